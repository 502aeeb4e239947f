// The embedding API of hlovm: load HLO text, compile it to bytecode, execute
// it with literals. The command line, the REPL and the conformance runner are
// all clients of this header.
//
//   HLOVM_ASSIGN_OR_RETURN(auto exe, Executable::FromText(text, {.file_name = "m.hlo"}));
//   HLOVM_ASSIGN_OR_RETURN(Literal result, exe->Execute({&arg0, &arg1}));
//
// An Executable is immutable after compilation; Execute may be called from
// several threads at once (each call has its own registers).
#ifndef HLOVM_VM_API_H_
#define HLOVM_VM_API_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"
#include "core/literal.h"
#include "vm/cancel_cause.h"
#include "vm/compile_options.h"

namespace hlovm {

class Profiler;  // vm/profiler.h

// How `constant({...})` literals whose values the text leaves out are filled.
enum class ElidedFill {
  kXla,    // XLA's parser's deterministic counter pattern (bit-for-bit replays)
  kZeros,  // all zeros
  kError,  // refuse the module
};

struct CompileOptions {
  std::string file_name;  // for error messages
  ElidedFill elided = ElidedFill::kXla;
  bool verify = true;     // run the verifier before compiling
  // > 0: replace the module header's replica_count / num_partitions; < 0 is
  // refused, and so are counts beyond ValidateInstanceCounts (core/hlo_ir.h).
  int64_t replica_count = 0;
  int64_t num_partitions = 0;
  // The pass pipeline run between the verifier and the compiler (see
  // passes/pipeline.h): "none", "default" or a comma-separated list.
  std::string passes = "default";
  // Fuse elementwise regions into tiled loops (vm/fusion.h); same results.
  bool fusion = true;
  // How the module's FFT plans are made (ops/fft/fft.h); each module keeps
  // its own mode, whatever other modules in the process use.
  FftPlanMode fft_plan = FftPlanMode::kEstimate;
};

// Stepping, for the REPL's debugger: while an observer is set, Execute runs
// on one thread and calls OnStep before and after every bytecode instruction
// (tuple, get-tuple-element, reshape, copy and most bitcasts compile to no
// instruction; call and fusion run inlined in their caller's function).
class CollectiveBus;  // vm/collective_bus.h

// The infeed and outfeed queues of one instance: `infeed` pops from the
// front of `infeed`; `outfeed` appends its operand to `outfeed`.
struct FeedQueues {
  absl::Mutex mu;
  std::deque<Literal> infeed ABSL_GUARDED_BY(mu);
  std::vector<Literal> outfeed ABSL_GUARDED_BY(mu);
};

class StepObserver {
 public:
  struct Step {
    bool after = false;                           // false: about to run; true: just ran
    const HloInstruction* instruction = nullptr;  // the HLO it came from
    const HloComputation* computation = nullptr;  // the function running it
    int depth = 0;    // 0 for ENTRY, +1 per enclosing while/conditional body
    int64_t pc = 0;   // index in the function's bytecode
    // Reads the value of any instruction lowered into the running function
    // whose buffers hold it now; FailedPrecondition when it is not live.
    absl::FunctionRef<absl::StatusOr<Literal>(const HloInstruction*)> read_value;
  };
  virtual ~StepObserver() = default;
  // Returns false to stop; Execute then returns Cancelled.
  virtual bool OnStep(const Step& step) = 0;
};

// Where a run is, for another thread to read while it runs (the progress
// line of `hlovm run`, the report of an interrupted run). Written only when
// ExecuteOptions::position points at it: the dispatch loop then stores each
// instruction it starts (one relaxed store) and every while loop its
// iteration at its back-edge. Executable::DescribePosition reads it.
struct RunPosition {
  static constexpr int kMaxLoops = 8;
  // The bytecode instruction started last (opaque; in a parallel function,
  // one of those running).
  std::atomic<const void*> instruction{nullptr};
  // While loops entered and not yet left; the innermost kMaxLoops are kept.
  std::atomic<int32_t> loops{0};
  std::atomic<const HloInstruction*> loop[kMaxLoops];
  std::atomic<int64_t> iteration[kMaxLoops];  // 0-based, of loop[level]
};

// Read by the executor between instructions and at loop back-edges; costs
// nothing when unset.
struct ExecuteOptions {
  int threads = 0;                         // 0: all cores
  const std::atomic<bool>* cancel = nullptr;  // set to true to stop; Execute returns Cancelled
  const CancelCause* cancel_cause = nullptr;  // why `cancel` was set, for the error
  StepObserver* observer = nullptr;  // stepping hook, see StepObserver
  Profiler* profiler = nullptr;  // per-instruction times, see vm/profiler.h
  int64_t replica_id = 0;
  int64_t partition_id = 0;
  int32_t instance = 0;  // instance number, for profiles of replicated runs
  // The bus the instances of a multi-device run share (vm/replicas.h sets
  // it up); collectives over more than one instance need it.
  CollectiveBus* bus = nullptr;
  // infeed / outfeed queues (null: infeed fails, outfeed discards).
  FeedQueues* feeds = nullptr;
  // Compute as XLA's CPU backend does: subnormal operands read as zero and
  // subnormal results written as zero (core/float_env.h). Unimplemented on
  // processors without such a mode. When false the run keeps subnormals
  // (IEEE), whatever modes the calling thread has.
  bool flush_denormals = false;
  // Where the run is, published for another thread (see RunPosition).
  RunPosition* position = nullptr;
};

// An argument that Execute reads in place from the caller's memory, with no
// copy: an array of `shape` (row-major when it has no layout) whose elements
// lie at `data` in the layout's physical order, ByteWidth() bytes each,
// aligned at least to their size. The memory must stay valid and unchanged
// until Execute returns; the VM never writes to it. Literal::View
// (core/literal.h) makes the same kind of argument as a Literal, for tuples
// and ExecuteReplicated.
struct ArgumentView {
  Shape shape;
  const void* data = nullptr;
};

// Errors from Execute: a failed check custom-call (check.expect_eq, ...)
// has code kFailedPrecondition, carries the structured vm/check_failure.h
// payload (GetCheckFailure) and IsCheckFailure() true (exit code 1, like
// any other failure of the program itself: OutOfRange, Cancelled, Internal).
// Bad input is InvalidArgument (wrong arguments, malformed module),
// Unimplemented (an op or type not supported yet) or ResourceExhausted (a
// shape too large to allocate): exit code 2.
bool IsCheckFailure(const absl::Status& status);
// The exit code of the command line for a status (0, 1 or 2) per the rule above.
int ExitCodeForStatus(const absl::Status& status);

class Executable {
 public:
  virtual ~Executable() = default;

  static absl::StatusOr<std::unique_ptr<Executable>> FromText(std::string_view text,
                                                              const CompileOptions& options = {});
  static absl::StatusOr<std::unique_ptr<Executable>> FromModule(std::unique_ptr<HloModule> module,
                                                                const CompileOptions& options = {});

  virtual const HloModule& module() const = 0;
  // Shapes (with layouts) of the entry parameters and result.
  virtual const std::vector<Shape>& parameter_shapes() const = 0;
  virtual const Shape& result_shape() const = 0;
  // How many elided constants were filled (the command line warns about them).
  virtual int64_t elided_constants_filled() const = 0;

  // Runs the entry computation. Arguments must match parameter_shapes()
  // (layouts may differ; values are relaid). A failed check returns its
  // message with IsCheckFailure() true (see above). The result has
  // result_shape(), layout included.
  virtual absl::StatusOr<Literal> Execute(absl::Span<const Literal* const> arguments,
                                          const ExecuteOptions& options = {}) const = 0;
  // As Execute, reading every argument in place (see ArgumentView): row-major
  // views are handed to the kernels as they are; others are relaid as
  // Execute relays literals. The result owns its storage.
  absl::StatusOr<Literal> ExecuteViews(absl::Span<const ArgumentView> arguments,
                                       const ExecuteOptions& options = {}) const;
  // The cheapest call, for bindings that check their arrays themselves
  // (the Python module): every parameter is an array (InvalidArgument
  // otherwise), and data[i] holds parameter i's elements in
  // parameter_shapes()[i]'s layout, aligned to their size, read in place as
  // ArgumentView says. Only the count is checked; the caller vouches for
  // the rest.
  virtual absl::StatusOr<Literal> ExecuteArrays(absl::Span<const void* const> data,
                                                const ExecuteOptions& options = {}) const = 0;

  // As Execute, with arguments the caller gives up: a result leaf that
  // returns an argument leaf unchanged (an entry parameter passed through,
  // laid out as the result wants it) takes over that leaf's storage instead
  // of a copy, and the argument leaf is left an empty tuple. A model step
  // that returns its weights then needs no second copy of them.
  virtual absl::StatusOr<Literal> ExecuteDonated(absl::Span<Literal> arguments,
                                                 const ExecuteOptions& options = {}) const = 0;
  // After ExecuteDonated: moves the leaves `result` took over back into the
  // argument leaves they came from (they are unchanged), so the arguments
  // can run again; `result` keeps empty tuples in their place.
  virtual void ReturnDonated(Literal& result, absl::Span<Literal> arguments) const = 0;

  // Readable bytecode (`hlovm dis`).
  virtual std::string Disassemble() const = 0;

  // What the compiled program's buffers take (`hlovm bench`).
  struct MemoryStats {
    int64_t entry_arena_bytes = 0;   // the entry function's planned buffers (with reuse)
    int64_t result_bytes = 0;        // results, computed in the literals returned
    int64_t nested_arena_bytes = 0;  // one activation of every nested function (loop bodies, ...)
    int64_t constant_bytes = 0;      // the constant pool
    int64_t value_bytes = 0;         // every owned value's size added up, as if nothing were reused
    int64_t parameter_bytes = 0;     // the entry parameters
    // The largest live set: at the entry instruction where it peaks, the
    // bytes of every owned value defined by then and still to be read (a
    // value written in place into an operand's buffer counted once;
    // results, which the caller gets in buffers of their own as from XLA,
    // from the start to the end), plus the largest live set of the
    // functions that instruction calls (loop bodies with the state they
    // read, branches, reducers), recursively. No plan for this instruction
    // order needs less; the arenas and results against it measure the
    // plan's waste.
    int64_t live_set_bytes = 0;
  };
  virtual MemoryStats memory_stats() const = 0;
  // Which passes ran and what they changed, as `//` comment lines (the
  // disassembly header); "// passes: none" when none ran.
  virtual std::string PassReport() const { return "// passes: none\n"; }
  // CPU seconds the pass pipeline took (0 when none ran).
  virtual double pass_seconds() const { return 0; }

  // Where a run of this executable publishing into `position` is, e.g.
  // "%mul.2 (line 20), in while %loop (line 9) iteration 41"; empty when it
  // has not started an instruction yet. Only while that run goes on (or
  // after it ended, as long as this executable lives).
  virtual std::string DescribePosition(const RunPosition& position) const { return ""; }
};

// Names instance `id` of a run with `partitions` partitions: "replica 2",
// or "replica 1 partition 0".
std::string InstanceName(int64_t id, int64_t partitions);

// Multi-device runs: the module's replica_count x num_partitions instances,
// each on a thread of its own, meeting at collectives on an in-memory bus.
struct ReplicatedOptions {
  int threads = 0;  // kernel threads of each instance (0: its share of the cores)
  bool flush_denormals = false;  // ExecuteOptions::flush_denormals for every instance
  double collective_timeout_seconds = 10;
  // Every instance's infeed queue starts with these values.
  std::vector<const Literal*> infeed;
  // When set, receives each instance's outfeed values.
  std::vector<std::vector<Literal>>* outfeed = nullptr;
  // When set, every instance records into it (ProfileEvent::instance tells
  // them apart).
  Profiler* profiler = nullptr;
  // Set to true by the caller to stop every instance (they return
  // Cancelled); read, never written.
  const std::atomic<bool>* interrupt = nullptr;
  // Where instance 0 is (ExecuteOptions::position).
  RunPosition* position = nullptr;
  // Where the instances meet (vm/collective_bus.h). Null: an in-memory bus
  // of their own, or with `message_bus` a MessageCollectiveBus
  // (vm/message_bus.h; the same results, by messages).
  CollectiveBus* bus = nullptr;
  bool message_bus = false;
  // Run only instances [first_instance, first_instance + local_instances)
  // (0: all); the others run elsewhere on `bus` (one process of an MPI run).
  // Results and outfeed then hold these instances only.
  int64_t first_instance = 0;
  int64_t local_instances = 0;
  // When set, the cancel flag the instances share and set when one fails
  // (the bus's too); else one of their own.
  std::atomic<bool>* cancel = nullptr;
  // When set, where the caller gives the cause of a cancellation that
  // comes from elsewhere (an MPI run: another process's instance failed);
  // an instance that fails gives its own. Else one of their own.
  CancelCause* cancel_cause = nullptr;
};
// One result per instance (id = replica * num_partitions + partition).
// `arguments` holds one argument list for every instance, or one per
// instance. When an instance fails, the others are cancelled: waiting
// collectives fail at once and running ones stop at the next instruction;
// their errors (Cancelled) give the cause, e.g. "execution cancelled:
// replica 2 failed".
std::vector<absl::StatusOr<Literal>> ExecuteReplicated(
    const Executable& executable, absl::Span<const std::vector<const Literal*>> arguments,
    const ReplicatedOptions& options = {});

}  // namespace hlovm

#endif  // HLOVM_VM_API_H_
