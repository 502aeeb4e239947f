// dot GEMM throughput: [1024, 1024] x [1024, 1024] f32 (and f64) through the
// ops/dot kernels, with 1 and 2 threads (fixed work units spread by
// tbb::parallel_for, as the VM does). Reports GFLOP/s (2*m*n*k per run);
// the machine's peak is 100 GFLOP/s f32 per core. On a loaded machine the
// 1-thread CPU time column (the benchmark thread does all the work) gives
// the kernel's own rate: flops / CPU time.
#include <cstdint>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"
#include "oneapi/tbb/partitioner.h"
#include "oneapi/tbb/task_arena.h"
#include "hwy/targets.h"
#include "ops/dot/dot.h"

namespace hlovm {
namespace {

template <typename T>
void BM_Gemm(benchmark::State& state, ElementType type) {
  const int64_t n = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  // Third argument 1: restrict Highway to AVX2 (the project's reference
  // machines have no AVX-512).
  const bool avx2_only = state.range(2) == 1;
  if (avx2_only) hwy::SetSupportedTargetsForTest(HWY_AVX2);
  DotDimensionNumbers dn;
  dn.lhs_contracting_dimensions = {1};
  dn.rhs_contracting_dimensions = {0};
  auto plan = MakeDotPlan(Shape(type, {n, n}), Shape(type, {n, n}), Shape(type, {n, n}), dn);
  if (!plan.ok()) {
    state.SkipWithError(std::string(plan.status().message()).c_str());
    return;
  }
  std::mt19937 rng(1);
  std::uniform_real_distribution<T> dist(-1, 1);
  std::vector<T> a(n * n), b(n * n), c(n * n);
  for (auto& x : a) x = dist(rng);
  for (auto& x : b) x = dist(rng);
  tbb::task_arena arena(threads);
  for (auto _ : state) {
    const DotBuffers bufs = DotPrepare(*plan, a.data(), b.data(), c.data(), nullptr);
    arena.execute([&] {
      tbb::parallel_for(
          tbb::blocked_range<int64_t>(0, plan->units, 1),
          [&](const tbb::blocked_range<int64_t>& r) {
            DotGemmUnits(*plan, bufs, r.begin(), r.end());
          },
          tbb::simple_partitioner());
    });
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      static_cast<double>(plan->flops()) * state.iterations(), benchmark::Counter::kIsRate);
  state.SetLabel(gemm_internal::HwyGemmTarget());
  if (avx2_only) hwy::SetSupportedTargetsForTest(0);
}

void BM_GemmF32(benchmark::State& s) { BM_Gemm<float>(s, ElementType::kF32); }
void BM_GemmF64(benchmark::State& s) { BM_Gemm<double>(s, ElementType::kF64); }
BENCHMARK(BM_GemmF32)
    ->Args({1024, 1, 0})
    ->Args({1024, 2, 0})
    ->Args({1024, 1, 1})
    ->Args({1024, 2, 1})
    ->Args({256, 1, 0})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GemmF64)->Args({1024, 1, 0})->Args({1024, 2, 0})->Args({1024, 1, 1})->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
