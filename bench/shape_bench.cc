// Shape kernel throughput as a ratio to a reference timed in the same run
// with the same thread count (see ../shared/MACHINE.md):
//   transpose of a 4096x4096 f32 array vs memcpy of the same 64 MiB.
// Both split their work into the same fixed chunks the VM uses
// (ForEachChunk); threads take chunks from a task arena.
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "benchmark/benchmark.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"
#include "oneapi/tbb/partitioner.h"
#include "oneapi/tbb/task_arena.h"
#include "ops/shape/transpose.h"

namespace hlovm {
namespace {

constexpr int64_t kSide = 4096;
constexpr int64_t kBytes = kSide * kSide * 4;
constexpr int64_t kCopyChunk = 1 << 20;

// Runs body(begin, end) over [0, n) in chunks of `chunk` on `threads` threads.
void ForChunks(int threads, int64_t n, int64_t chunk,
               const std::function<void(int64_t, int64_t)>& body) {
  const int64_t chunks = (n + chunk - 1) / chunk;
  if (threads == 1) {
    for (int64_t c = 0; c < chunks; ++c) body(c * chunk, std::min(n, (c + 1) * chunk));
    return;
  }
  static tbb::task_arena arena(2);
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<int64_t>(0, chunks, 1),
        [&](const tbb::blocked_range<int64_t>& r) {
          for (int64_t c = r.begin(); c < r.end(); ++c) body(c * chunk, std::min(n, (c + 1) * chunk));
        },
        tbb::simple_partitioner());
  });
}

double Seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Times `kernel` and `reference` alternately; ratio = reference time /
// kernel time (1 means the kernel moves bytes as fast as the reference).
void Compare(benchmark::State& state, double bytes, const std::function<void()>& kernel,
             const std::function<void()>& reference) {
  kernel();
  reference();
  double kernel_s = 0, ref_s = 0;
  for (auto _ : state) {
    const double k = Seconds(kernel);
    state.PauseTiming();
    ref_s += Seconds(reference);
    state.ResumeTiming();
    kernel_s += k;
    state.SetIterationTime(k);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["kernel_GBps"] = bytes * n / kernel_s / 1e9;
  state.counters["memcpy_GBps"] = bytes * n / ref_s / 1e9;
  state.counters["ratio"] = ref_s / kernel_s;
  state.SetBytesProcessed(static_cast<int64_t>(bytes * n));
}

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
  Compare(
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
      });
  if (b[1] != a[kSide] || b[kSide] != a[1]) state.SkipWithError("wrong transpose");
}
BENCHMARK(BM_TransposeF32VsMemcpy)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
