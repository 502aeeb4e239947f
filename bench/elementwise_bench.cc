// Elementwise kernel throughput, each as a ratio to a reference loop timed in
// the same run with the same thread count (see ../shared/MACHINE.md):
//   f32 add of 16M elements vs a plain triad loop (same bytes moved),
//   f32 exponential / tanh / logistic of 16M vs a plain copy loop.
// Kernels run per chunk, as the VM calls them; threads split the chunks.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "benchmark/benchmark.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"
#include "oneapi/tbb/task_arena.h"
#include "ops/elementwise/elementwise.h"

namespace hlovm {
namespace {

constexpr int64_t kElements = int64_t{1} << 24;  // 16M
constexpr int64_t kChunk = int64_t{1} << 16;     // elements per kernel call

// Runs body(begin, end) over [0, kElements) in chunks on `threads` threads.
void ForChunks(int threads, const std::function<void(int64_t, int64_t)>& body) {
  if (threads == 1) {
    for (int64_t i = 0; i < kElements; i += kChunk) body(i, std::min(kElements, i + kChunk));
    return;
  }
  static tbb::task_arena arena(2);
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, kElements, kChunk),
                      [&](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); });
  });
}

double Seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Times `kernel` and `reference` alternately; reports both bandwidths and
// ratio = reference time / kernel time (>= 1 means the kernel is faster).
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
  state.counters["ref_GBps"] = bytes * n / ref_s / 1e9;
  state.counters["ratio"] = ref_s / kernel_s;
  state.SetBytesProcessed(static_cast<int64_t>(bytes * n));
}

void BM_AddF32VsTriad(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  std::vector<float> a(kElements, 1.5f), b(kElements, 2.5f), c(kElements, 0.0f);
  auto add = SelectBinaryKernel(HloOpcode::kAdd, ElementType::kF32, ElementType::kF32);
  if (!add.ok()) {
    state.SkipWithError("no kernel");
    return;
  }
  const BinaryKernel k = *add;
  float* pa = a.data();
  float* pb = b.data();
  float* pc = c.data();
  Compare(
      state, 3.0 * 4 * kElements,
      [&] { ForChunks(threads, [&](int64_t i, int64_t e) { k(pa + i, pb + i, pc + i, e - i); }); },
      [&] {
        ForChunks(threads, [&](int64_t i, int64_t e) {
          for (int64_t j = i; j < e; ++j) pc[j] = pa[j] + 3.0f * pb[j];
        });
      });
}

void UnaryVsCopy(benchmark::State& state, HloOpcode opcode) {
  const int threads = static_cast<int>(state.range(0));
  std::vector<float> in(kElements), out(kElements);
  for (int64_t i = 0; i < kElements; ++i) in[i] = static_cast<float>((i % 2001) - 1000) / 100.0f;
  auto kernel = SelectUnaryKernel(opcode, ElementType::kF32, ElementType::kF32);
  if (!kernel.ok()) {
    state.SkipWithError("no kernel");
    return;
  }
  const UnaryKernel k = *kernel;
  const float* pi = in.data();
  float* po = out.data();
  Compare(
      state, 2.0 * 4 * kElements,
      [&] { ForChunks(threads, [&](int64_t i, int64_t e) { k(pi + i, po + i, e - i); }); },
      [&] {
        ForChunks(threads, [&](int64_t i, int64_t e) {
          for (int64_t j = i; j < e; ++j) po[j] = pi[j];
          benchmark::ClobberMemory();
        });
      });
}

void BM_ExpF32VsCopy(benchmark::State& state) { UnaryVsCopy(state, HloOpcode::kExp); }
void BM_TanhF32VsCopy(benchmark::State& state) { UnaryVsCopy(state, HloOpcode::kTanh); }
void BM_LogisticF32VsCopy(benchmark::State& state) { UnaryVsCopy(state, HloOpcode::kLogistic); }

BENCHMARK(BM_AddF32VsTriad)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExpF32VsCopy)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TanhF32VsCopy)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LogisticF32VsCopy)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
