// Shape kernel throughput as a ratio to a reference timed in the same run
// with the same thread count (see ../shared/MACHINE.md):
//   transpose of a 4096x4096 f32 array vs memcpy of the same 64 MiB.
// Both split their work into the same fixed chunks the VM uses
// (ForEachChunk); threads take chunks from a task arena.
#include <cstdint>
#include <cstring>
#include <vector>

#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "ops/shape/transpose.h"

namespace hlovm {
namespace {

using bench::ForChunks;

constexpr int64_t kSide = 4096;
constexpr int64_t kBytes = kSide * kSide * 4;
constexpr int64_t kCopyChunk = 1 << 20;

void BM_TransposeF32VsMemcpy(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  std::vector<float> a(kSide * kSide), b(kSide * kSide), c(kSide * kSide);
  for (int64_t i = 0; i < kSide * kSide; ++i) a[i] = static_cast<float>(i);
  const int64_t dims[] = {kSide, kSide};
  const int64_t perm[] = {1, 0};
  auto plan_or = MakeTransposePlan(4, dims, perm);
  if (!plan_or.ok()) {
    state.SkipWithError("no plan");
    return;
  }
  const TransposePlan plan = *plan_or;
  const float* pa = a.data();
  float* pb = b.data();
  float* pc = c.data();
  // ratio = reference time / kernel time (1 means the kernel moves bytes as
  // fast as the reference).
  bench::CompareBandwidth(
      state, static_cast<double>(kBytes),
      [&] {
        ForChunks(threads, plan.units(), plan.units_per_chunk,
                  [&](int64_t u0, int64_t u1) { RunTranspose(plan, pa, pb, u0, u1); });
      },
      [&] {
        ForChunks(threads, kBytes, kCopyChunk, [&](int64_t b0, int64_t b1) {
          std::memcpy(reinterpret_cast<char*>(pc) + b0, reinterpret_cast<const char*>(pa) + b0,
                      b1 - b0);
        });
      },
      "memcpy_GBps");
  if (b[1] != a[kSide] || b[kSide] != a[1]) state.SkipWithError("wrong transpose");
}
BENCHMARK(BM_TransposeF32VsMemcpy)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
