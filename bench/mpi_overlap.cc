// Overlap of an asynchronous all-reduce with computation over MPI, one
// instance a process (vm/COLLECTIVES.md, "Asynchronous collectives"):
//   mpirun -n 2 build/bench/mpi_overlap
// prints, on rank 0, the time of whole ExecuteOverMpi calls of three
// modules in the same job:
//   compute      a dot of two f32[M,M] that does not depend on the exchange
//   comm         an all-reduce-start / all-reduce-done of 8 MiB of f32
//   overlapped   the start, then the dot, then the done
// and overlapped / (compute + comm): below 1 when the exchange progressed
// while the dot ran (1 / (compute + comm) * max(compute, comm) is the best).
// Each figure is the median of the slowest process's time over the runs.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/bench_util.h"
#include "core/literal.h"
#include "vm/api.h"
#include "vm/mpi_run.h"

namespace hlovm {
namespace {

constexpr int64_t kElements = 2 << 20;  // 8 MiB of f32
constexpr int64_t kDot = 1024;
constexpr int kRuns = 15;


int Main(const MpiSession& mpi) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string dot =
      "  d = f32[$M,$M] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
      "  ds = f32[1,4] slice(d), slice={[0:1], [0:4]}\n";
  const std::string start = "  st = f32[$N] all-reduce-start(x), replica_groups={}, to_apply=add\n";
  const std::string done =
      "  r = f32[$N] all-reduce-done(st)\n"
      "  rs = f32[4] slice(r), slice={[0:4]}\n";
  // The ROOT is a small slice: the results sent to rank 0 stay small.
  auto module = [&](const std::string& body, const std::string& root) {
    return bench::OverlapModule(size, kElements, kDot, body, "f32[4] " + root);
  };
  auto compute = Executable::FromText(module(dot, "reshape(ds)"));
  auto comm = Executable::FromText(module(start + done, "copy(rs)"));
  auto overlapped = Executable::FromText(
      module(start + dot + done + "  dr = f32[4] reshape(ds)\n", "add(rs, dr)"));
  for (const auto* exe : {&compute, &comm, &overlapped}) {
    if (!exe->ok()) {
      std::fprintf(stderr, "%s\n", std::string(exe->status().message()).c_str());
      return 1;
    }
  }
  const std::vector<Literal> args = bench::RandomF32Arguments(
      {Shape(ElementType::kF32, {kElements}), Shape(ElementType::kF32, {kDot, kDot}),
       Shape(ElementType::kF32, {kDot, kDot})},
      1 + rank);
  std::vector<const Literal*> arg_ptrs;
  for (const Literal& l : args) arg_ptrs.push_back(&l);
  ReplicatedOptions options;
  options.threads = 1;
  bool ok = true;
  // The slowest process's seconds for one run of `exe`.
  auto run = [&](const Executable& exe) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double seconds = bench::WallSeconds([&] {
      DistributedRun r = ExecuteOverMpi(exe, absl::MakeConstSpan(&arg_ptrs, 1), options);
      ok = ok && r.error.ok() && r.results[rank].ok();
    });
    return mpi.Slowest(seconds);
  };
  std::vector<double> times[3];
  const Executable* exes[3] = {compute->get(), comm->get(), overlapped->get()};
  for (const Executable* exe : exes) run(*exe);  // warm up
  for (int i = 0; i < kRuns; ++i) {
    for (int k = 0; k < 3; ++k) times[k].push_back(run(*exes[k]));
  }
  if (!ok) {
    std::fprintf(stderr, "a run failed\n");
    return 1;
  }
  double median[3];
  for (int k = 0; k < 3; ++k) {
    std::sort(times[k].begin(), times[k].end());
    median[k] = times[k][kRuns / 2] * 1e3;
  }
  if (rank == 0) {
    std::printf("%d processes, one instance each; medians of %d runs\n", size, kRuns);
    std::printf("compute %.2f ms, comm %.2f ms, overlapped %.2f ms\n", median[0], median[1],
                median[2]);
    std::printf("overlapped / (compute + comm) = %.2f, overlapped / max(compute, comm) = %.2f\n",
                median[2] / (median[0] + median[1]), median[2] / std::max(median[0], median[1]));
  }
  return 0;
}

}  // namespace
}  // namespace hlovm

int main() {
  hlovm::BindToLocalCores();  // as hlovm's main does
  hlovm::MpiSession mpi;  // MPI_Init .. MPI_Finalize around the runs
  return hlovm::Main(mpi);
}
