// All-reduce over MPI: hlovm's (vm/mpi_run.h: its own reduction in rank
// order, a reduce-scatter and an all-gather of messages) against
// MPI_Allreduce on the same buffers, in one run:
//   mpirun -n 4 build/bench/mpi_allreduce
// prints, on rank 0, the time and bandwidth of a 64 MiB f32 all-reduce and
// the latency of a scalar one, for both, and their ratios. hlovm's figures
// are whole ExecuteOverMpi calls (its threads, its meeting, the results
// sent to rank 0: a 16-byte slice), so they include its per-run overhead.
// The two sides alternate round by round (the fastest of each is compared,
// and every round's ratio is printed too): on a shared machine the load
// moves between minutes.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/bench_util.h"
#include "core/aligned_buffer.h"
#include "core/literal.h"
#include "vm/api.h"
#include "vm/mpi_run.h"

namespace hlovm {
namespace {

constexpr int64_t kFloats = 16 << 20;  // 64 MiB of f32
constexpr int kScalarRounds = 2000;

// The slowest process's seconds for one run of `f` (every process runs it;
// the barrier lines them up).
double Timed(const MpiSession& mpi, const std::function<void()>& f) {
  MPI_Barrier(MPI_COMM_WORLD);
  return mpi.Slowest(bench::WallSeconds(f));
}

// Rounds of a pair alternate (MPI's, then hlovm's), so that both meet the
// same load of a shared machine; `Pair` keeps each side's fastest and the
// ratio of every round.
struct Pair {
  double mpi = 1e30, ours = 1e30;
  std::vector<double> ratios;  // hlovm's time over MPI's, a round each
  void Add(double m, double o) {
    mpi = std::min(mpi, m);
    ours = std::min(ours, o);
    ratios.push_back(o / m);
  }
  // "median 1.23 (1.10-1.41 over 7 rounds)"
  std::string Spread() {
    std::sort(ratios.begin(), ratios.end());
    return absl::StrFormat("median %.2f (%.2f-%.2f over %d rounds)", ratios[ratios.size() / 2],
                           ratios.front(), ratios.back(), static_cast<int>(ratios.size()));
  }
};

int Main(const MpiSession& mpi) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<float> in(kFloats), out(kFloats);
  for (int64_t i = 0; i < kFloats; ++i) in[i] = static_cast<float>((i * 7 + rank) % 113) / 7;
  const std::string add = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
})";
  auto big = Executable::FromText(absl::StrCat("HloModule big, replica_count=", size, add, R"(
ENTRY e {
  p = f32[)", kFloats, R"(] parameter(0)
  r = f32[)", kFloats, R"(] all-reduce(p), replica_groups={}, to_apply=add
  ROOT s = f32[4] slice(r), slice={[0:4]}
})"));
  auto scalar = Executable::FromText(absl::StrCat("HloModule scalar, replica_count=", size, add, R"(
cond {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant()", kScalarRounds, R"()
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  r = f32[] all-reduce(x), replica_groups={}, to_apply=add
  ROOT t = (s32[], f32[]) tuple(j, r)
}
ENTRY e {
  zero = s32[] constant(0)
  x = f32[] constant(1e-30)
  init = (s32[], f32[]) tuple(zero, x)
  ROOT w = (s32[], f32[]) while(init), condition=cond, body=body
})"));
  if (!big.ok() || !scalar.ok()) {
    std::fprintf(stderr, "%s\n", std::string((big.ok() ? scalar : big).status().message()).c_str());
    return 1;
  }
  auto literal = Literal::Create(Shape(ElementType::kF32, {kFloats}));
  std::copy(in.begin(), in.end(), reinterpret_cast<float*>(literal->untyped_data()));
  const std::vector<const Literal*> big_args = {&*literal};
  const std::vector<const Literal*> no_args;
  ReplicatedOptions options;
  options.threads = 1;
  bool ok = true;
  auto run = [&](const Executable& exe, const std::vector<const Literal*>& args) {
    DistributedRun r = ExecuteOverMpi(exe, absl::MakeConstSpan(&args, 1), options);
    ok = ok && r.error.ok() && r.results[rank].ok();
  };
  float x = 1, y = 0;
  Pair big_pair, scalar_pair;
  for (int round = 0; round < 7; ++round) {
    const double m = Timed(mpi, [&] {
      MPI_Allreduce(in.data(), out.data(), kFloats, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    });
    big_pair.Add(m, Timed(mpi, [&] { run(**big, big_args); }));
  }
  for (int round = 0; round < 9; ++round) {
    const double m = Timed(mpi, [&] {
      for (int i = 0; i < kScalarRounds; ++i) {
        MPI_Allreduce(&x, &y, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      }
    });
    scalar_pair.Add(m, Timed(mpi, [&] { run(**scalar, no_args); }));
  }
  const double mpi_big = big_pair.mpi, ours_big = big_pair.ours;
  const double mpi_scalar = scalar_pair.mpi / kScalarRounds;
  const double ours_scalar = scalar_pair.ours / kScalarRounds;
  if (!ok) {
    std::fprintf(stderr, "hlovm's all-reduce failed\n");
    return 1;
  }
  if (rank == 0) {
    const double bytes = kFloats * 4.0;
    std::printf("%d processes, one instance each\n", size);
    std::printf("all-reduce 64 MiB f32: MPI_Allreduce %.1f ms (%.2f GB/s), hlovm %.1f ms "
                "(%.2f GB/s): hlovm's bandwidth %.2f x MPI's\n",
                mpi_big * 1e3, bytes / mpi_big / 1e9, ours_big * 1e3, bytes / ours_big / 1e9,
                mpi_big / ours_big);
    std::printf("  time over MPI's time, round by round: %s\n", big_pair.Spread().c_str());
    std::printf("all-reduce f32[] latency: MPI_Allreduce %.1f us, hlovm %.1f us: %.2f x MPI's\n",
                mpi_scalar * 1e6, ours_scalar * 1e6, ours_scalar / mpi_scalar);
    std::printf("  round by round: %s\n", scalar_pair.Spread().c_str());
  }
  return 0;
}

}  // namespace
}  // namespace hlovm

int main() {
  hlovm::BindToLocalCores();         // as hlovm's main does
  hlovm::KeepFreedMemoryForReuse();  // as hlovm's main does
  hlovm::MpiSession mpi;  // MPI_Init .. MPI_Finalize around the runs
  return hlovm::Main(mpi);
}
