// Multi-device runs over several processes started by an MPI launcher
// (`mpirun -n N hlovm run model.hlo ...`). The module's R x P instances are
// spread evenly: instance i runs in process i / (R*P/N). Each process runs
// its instances on threads of their own around a MessageCollectiveBus
// (vm/message_bus.h); instances of one process exchange messages through its
// mailbox, instances of different processes through MPI. One thread at a
// time makes MPI calls (MPI_THREAD_SERIALIZED): an instance waiting for a
// message of another process polls MPI itself; the caller's thread does
// whenever none does.
// Reductions are the semantics' own (ops/collective/collective_semantics.h),
// in rank order, so every result is bitwise the one-process result.
//
// Faults: an instance that fails tells every process (its peers fail at
// once, the others are cancelled); one that returns early makes the peers
// that wait for it fail at once; a peer that never comes makes them fail
// after the collective timeout; a process that dies (killed) ends the run
// at once in the processes of its machine (they watch each other's PIDs)
// and elsewhere when the launcher ends the job (SIGTERM). At the end every process sends its
// instances' results to rank 0, and the processes meet once more before
// MPI_Finalize (so that no message is left in flight).
#ifndef HLOVM_VM_MPI_RUN_H_
#define HLOVM_VM_MPI_RUN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/literal.h"
#include "vm/api.h"

namespace hlovm {

// The number of processes an MPI launcher started (from its environment:
// OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX's); 0 when none did.
int MpiLauncherSize();
// This process's rank by the same launcher's environment (before MPI is
// initialised); 0 when no launcher set one.
int MpiLauncherRank();

// Where an MPI launcher started several processes on this machine and
// bound none of them to cores (Open MPI does not where the processes
// outnumber the cores), binds this one to its share: its local rank's
// core where they outnumber the cores, else an equal block of them. Left
// as it is where the launcher bound it, or was told how (`mpirun
// --bind-to none` keeps every process free). Called first thing in main,
// before any thread starts: the threads that follow, the kernels' pool
// among them, take the process's cores as theirs. Returns the cores it
// bound the process to ("" where it left it as it was).
std::string BindToLocalCores();

// Whether this process speaks for the job, printing what one process
// would: it runs alone (no launcher started several), or it is rank 0.
bool MpiSpeaksForJob();

// Whether this build can run over MPI (it found MPI at configure time).
bool MpiAvailable();

struct DistributedRun {
  // Set when the run could not start (every process gets it).
  absl::Status error;
  int rank = 0;
  int processes = 1;
  // Per instance: whether it ran in this process.
  std::vector<char> local;
  // Per instance: on rank 0 every instance's result (a failed one's status
  // with its code and message); elsewhere, and on rank 0 without `gather`
  // (ExecuteOverMpi), this process's instances only.
  std::vector<absl::StatusOr<Literal>> results;
  // Per instance, as on rank 0 `results`: its outfeed values, printed.
  std::vector<std::vector<std::string>> outfeed;
  // Set when the job broke (a peer process ended early, or the launcher
  // ended the job): MPI was left as it was, not finalised. The caller
  // should report and then end the process with EndAbandonedProcess.
  bool abandoned = false;
};

// Ends this process of a broken job (DistributedRun::abandoned) once it has
// reported: flushes its output and calls _exit, past the exit handlers (the
// MPI library's, a leak checker's) that would wait on the job that is gone
// until the launcher kills the process.
[[noreturn]] void EndAbandonedProcess(int code);

// Keeps MPI initialised while it lives, so that several ExecuteOverMpi
// calls share one MPI_Init .. MPI_Finalize (`hlovm bench` under mpirun);
// does nothing in a build without MPI or when MPI is initialised already.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  // The slowest process's value of `seconds` (every process calls it; a
  // build without MPI returns `seconds`).
  double Slowest(double seconds) const;

 private:
  bool owns_ = false;
};

// Runs every instance of `executable` over the processes of the MPI job
// this process belongs to (MPI_Init .. MPI_Finalize happen in here, unless
// the caller initialised MPI: it then finalises it, and may call this again).
// `arguments` and `options` as for ExecuteReplicated.
// With `gather` false, rank 0 does not get the other processes' results and
// outfeed (each process keeps its own instances'): `hlovm bench` times the
// run as one process runs it, without moving its results.
DistributedRun ExecuteOverMpi(const Executable& executable,
                              absl::Span<const std::vector<const Literal*>> arguments,
                              const ReplicatedOptions& options, bool gather = true);

}  // namespace hlovm

#endif  // HLOVM_VM_MPI_RUN_H_
