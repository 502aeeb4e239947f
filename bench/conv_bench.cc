// convolution throughput with references measured in the same run, with 1
// and 2 threads (fixed units spread by tbb::parallel_for, as the VM does):
// - BM_ResNetConv3x3: 1x56x56x64 NHWC f32, 3x3x64x64 kernel, same padding,
//   in GFLOP/s; reference BM_GemmRef: a 1024^3 f32 GEMM through the public
//   ops/dot/gemm.h API (ratio goal >= 0.75).
// - BM_Depthwise3x3: 1x56x56x256 NHWC f32, 3x3 depthwise, in bytes/s
//   (input + output + kernel); reference BM_Triad: a STREAM triad
//   a[i] = b[i] + s * c[i] over 3 x 64 MiB (ratio goal >= 0.5).
#include <cstdint>
#include <vector>

#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "hwy/aligned_allocator.h"
#include "oneapi/tbb/task_arena.h"
#include "ops/dot/conv.h"
#include "ops/dot/dot_conv_shape.h"
#include "ops/dot/gemm.h"

namespace hlovm {
namespace {

using bench::ParallelUnits;

std::vector<float> Random(int64_t n) { return bench::RandomUniform<float>(n, 1); }

void BM_GemmRef(benchmark::State& state) {
  const int64_t n = 1024;
  tbb::task_arena arena(static_cast<int>(state.range(0)));
  auto kernel = SelectGemmKernel(ElementType::kF32);
  GemmDims d;
  d.m = d.n = d.k = n;
  const std::vector<float> a = Random(n * n), b = Random(n * n);
  std::vector<float> c(static_cast<size_t>(n * n));
  for (auto _ : state) {
    ParallelUnits(arena, kernel->Units(d),
             [&](int64_t u0, int64_t u1) { kernel->fn(a.data(), b.data(), c.data(), d, u0, u1); });
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * n * n * n * state.iterations(),
                                                 benchmark::Counter::kIsRate);
}

ConvolutionDimensionNumbers Nhwc() {
  ConvolutionDimensionNumbers d;
  d.input_batch_dimension = 0;
  d.input_feature_dimension = 3;
  d.input_spatial_dimensions = {1, 2};
  d.kernel_input_feature_dimension = 2;
  d.kernel_output_feature_dimension = 3;
  d.kernel_spatial_dimensions = {0, 1};
  d.output_batch_dimension = 0;
  d.output_feature_dimension = 3;
  d.output_spatial_dimensions = {1, 2};
  return d;
}

void RunConvBench(benchmark::State& state, int64_t c_in, int64_t c_out, int64_t groups,
                  bool bytes_rate) {
  tbb::task_arena arena(static_cast<int>(state.range(0)));
  const Shape lhs(ElementType::kF32, {1, 56, 56, c_in});
  const Shape rhs(ElementType::kF32, {3, 3, c_in / groups, c_out});
  Window win(2);
  for (auto& w : win) {
    w.size = 3;
    w.padding_low = w.padding_high = 1;
  }
  auto out = InferConvolutionShape(lhs, rhs, groups, 1, win, Nhwc());
  auto plan = MakeConvPlan(lhs, rhs, *out, win, Nhwc(), groups, 1);
  if (!plan.ok()) {
    state.SkipWithError(std::string(plan.status().message()).c_str());
    return;
  }
  const std::vector<float> in = Random(lhs.element_count()), k = Random(rhs.element_count());
  std::vector<float> o(static_cast<size_t>(out->element_count()));
  auto scratch = hwy::AllocateAligned<uint8_t>(static_cast<size_t>(plan->scratch_bytes + 64));
  for (auto _ : state) {
    const ConvBuffers b = ConvPrepare(*plan, in.data(), k.data(), o.data(), scratch.get());
    ParallelUnits(arena, plan->units,
                  [&](int64_t u0, int64_t u1) { ConvUnits(*plan, b, u0, u1); });
    ConvFinish(*plan, b, o.data());
    benchmark::DoNotOptimize(o.data());
  }
  if (bytes_rate) {
    const double bytes = 4.0 * (in.size() + k.size() + o.size());
    state.counters["GB/s"] =
        benchmark::Counter(bytes * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  } else {
    state.counters["GFLOP/s"] = benchmark::Counter(
        static_cast<double>(plan->flops()) * state.iterations(), benchmark::Counter::kIsRate);
  }
}

void BM_ResNetConv3x3(benchmark::State& state) { RunConvBench(state, 64, 64, 1, false); }
void BM_Depthwise3x3(benchmark::State& state) { RunConvBench(state, 256, 256, 256, true); }

void BM_Triad(benchmark::State& state) {
  tbb::task_arena arena(static_cast<int>(state.range(0)));
  const int64_t n = 16 * 1024 * 1024;
  std::vector<float> a(static_cast<size_t>(n)), b = Random(n), c = Random(n);
  const float s = 3.0f;
  const int64_t chunk = 1 << 16;
  for (auto _ : state) {
    ParallelUnits(arena, (n + chunk - 1) / chunk, [&](int64_t c0, int64_t c1) {
      const int64_t e = std::min(n, c1 * chunk);
      for (int64_t i = c0 * chunk; i < e; ++i) a[i] = b[i] + s * c[i];
    });
    benchmark::DoNotOptimize(a.data());
  }
  state.counters["GB/s"] =
      benchmark::Counter(12.0 * n * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

BENCHMARK(BM_GemmRef)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ResNetConv3x3)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Triad)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Depthwise3x3)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
