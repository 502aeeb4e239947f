// Elementwise kernel throughput, each as a ratio to a reference loop timed in
// the same run with the same thread count (see ../shared/MACHINE.md):
//   f32 add of 16M elements vs a plain triad loop (same bytes moved),
//   f32 exponential / tanh / logistic / log / log1p / expm1 / erf / rsqrt and
//   f64 tanh of 16M vs a plain copy loop of the same type.
// Kernels run per chunk, as the VM calls them; threads split the chunks.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "ops/elementwise/elementwise.h"

namespace hlovm {
namespace {

constexpr int64_t kElements = int64_t{1} << 24;  // 16M
constexpr int64_t kChunk = int64_t{1} << 16;     // elements per kernel call

// Runs body(begin, end) over [0, kElements) in chunks on `threads` threads.
void ForChunks(int threads, const std::function<void(int64_t, int64_t)>& body) {
  bench::ForChunks(threads, kElements, kChunk, body);
}

// Times `kernel` and `reference` alternately; reports both bandwidths and
// ratio = reference time / kernel time (>= 1 means the kernel is faster).
void Compare(benchmark::State& state, double bytes, const std::function<void()>& kernel,
             const std::function<void()>& reference) {
  bench::CompareBandwidth(state, bytes, kernel, reference, "ref_GBps");
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

// Inputs: (i % 2001 - 1000) / 100, in [-10, 10]; their absolute values (plus
// 1/64, no zeros) where `positive` (log, log1p, rsqrt).
template <class T>
void UnaryVsCopy(benchmark::State& state, HloOpcode opcode, bool positive = false) {
  const int threads = static_cast<int>(state.range(0));
  std::vector<T> in(kElements), out(kElements);
  for (int64_t i = 0; i < kElements; ++i) {
    const T x = static_cast<T>((i % 2001) - 1000) / 100;
    in[i] = positive ? std::abs(x) + T(1) / 64 : x;
  }
  const ElementType type = sizeof(T) == 4 ? ElementType::kF32 : ElementType::kF64;
  auto kernel = SelectUnaryKernel(opcode, type, type);
  if (!kernel.ok()) {
    state.SkipWithError("no kernel");
    return;
  }
  const UnaryKernel k = *kernel;
  const T* pi = in.data();
  T* po = out.data();
  Compare(
      state, 2.0 * sizeof(T) * kElements,
      [&] { ForChunks(threads, [&](int64_t i, int64_t e) { k(pi + i, po + i, e - i); }); },
      [&] {
        ForChunks(threads, [&](int64_t i, int64_t e) {
          for (int64_t j = i; j < e; ++j) po[j] = pi[j];
          benchmark::ClobberMemory();
        });
      });
}

void BM_ExpF32VsCopy(benchmark::State& state) { UnaryVsCopy<float>(state, HloOpcode::kExp); }
void BM_TanhF32VsCopy(benchmark::State& state) { UnaryVsCopy<float>(state, HloOpcode::kTanh); }
void BM_LogisticF32VsCopy(benchmark::State& state) {
  UnaryVsCopy<float>(state, HloOpcode::kLogistic);
}
void BM_LogF32VsCopy(benchmark::State& state) { UnaryVsCopy<float>(state, HloOpcode::kLog, true); }
void BM_Log1pF32VsCopy(benchmark::State& state) {
  UnaryVsCopy<float>(state, HloOpcode::kLog1p, true);
}
void BM_Expm1F32VsCopy(benchmark::State& state) { UnaryVsCopy<float>(state, HloOpcode::kExpm1); }
void BM_ErfF32VsCopy(benchmark::State& state) { UnaryVsCopy<float>(state, HloOpcode::kErf); }
void BM_RsqrtF32VsCopy(benchmark::State& state) {
  UnaryVsCopy<float>(state, HloOpcode::kRsqrt, true);
}
void BM_TanhF64VsCopy(benchmark::State& state) { UnaryVsCopy<double>(state, HloOpcode::kTanh); }

BENCHMARK(BM_AddF32VsTriad)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExpF32VsCopy)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TanhF32VsCopy)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LogisticF32VsCopy)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LogF32VsCopy)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Log1pF32VsCopy)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Expm1F32VsCopy)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ErfF32VsCopy)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RsqrtF32VsCopy)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TanhF64VsCopy)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
