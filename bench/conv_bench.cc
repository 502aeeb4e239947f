// convolution throughput with references measured in the same run, with 1
// and 2 threads (fixed units spread by tbb::parallel_for, as the VM does):
// - BM_ResNetConv3x3: 1x56x56x64 NHWC f32, 3x3x64x64 kernel, same padding,
//   in GFLOP/s; reference BM_GemmRef: a 1024^3 f32 GEMM through the public
//   ops/dot/gemm.h API (ratio goal >= 0.75).
// - BM_Conv/<shape>: the convolutions of ResNet-50 and the depthwise
//   model, in GFLOP/s (bench/conv_vs_torch.py compares them with PyTorch).
// - BM_Depthwise3x3: 1x56x56x256 NHWC f32, 3x3 depthwise, in bytes/s
//   (input + output + kernel); reference BM_Triad: a STREAM triad
//   a[i] = b[i] + s * c[i] over 3 x 64 MiB (ratio goal >= 0.5).
#include <cstdint>
#include <cstring>
#include <string>
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

// One convolution shape: NHWC input [1, h, w, c_in], kernel [k, k, c_in /
// groups, c_out], the given stride and symmetric padding. `nchw` runs the
// depthwise layout of depthwise_conv_3x3_1x256x56x56_bf16.hlo instead
// (bf01_oi01->bf01 in `type`).
struct ConvShape {
  const char* name;
  int64_t h, c_in, c_out, k, stride, pad, groups;
  bool nchw = false;
  ElementType type = ElementType::kF32;
};

ConvolutionDimensionNumbers Nchw() {
  ConvolutionDimensionNumbers d;
  d.input_batch_dimension = 0;
  d.input_feature_dimension = 1;
  d.input_spatial_dimensions = {2, 3};
  d.kernel_output_feature_dimension = 0;
  d.kernel_input_feature_dimension = 1;
  d.kernel_spatial_dimensions = {2, 3};
  d.output_batch_dimension = 0;
  d.output_feature_dimension = 1;
  d.output_spatial_dimensions = {2, 3};
  return d;
}

void RunConvBench(benchmark::State& state, const ConvShape& cs, bool bytes_rate) {
  tbb::task_arena arena(static_cast<int>(state.range(0)));
  const ConvolutionDimensionNumbers dn = cs.nchw ? Nchw() : Nhwc();
  const Shape lhs = cs.nchw ? Shape(cs.type, {1, cs.c_in, cs.h, cs.h})
                            : Shape(cs.type, {1, cs.h, cs.h, cs.c_in});
  const Shape rhs = cs.nchw ? Shape(cs.type, {cs.c_out, cs.c_in / cs.groups, cs.k, cs.k})
                            : Shape(cs.type, {cs.k, cs.k, cs.c_in / cs.groups, cs.c_out});
  Window win(2);
  for (auto& w : win) {
    w.size = cs.k;
    w.stride = cs.stride;
    w.padding_low = w.padding_high = cs.pad;
  }
  auto out = InferConvolutionShape(lhs, rhs, cs.groups, 1, win, dn);
  if (!out.ok()) {
    state.SkipWithError(std::string(out.status().message()).c_str());
    return;
  }
  auto plan = MakeConvPlan(lhs, rhs, *out, win, dn, cs.groups, 1);
  if (!plan.ok()) {
    state.SkipWithError(std::string(plan.status().message()).c_str());
    return;
  }
  const int64_t esize = ByteWidth(cs.type);
  // Random f32 values; for bf16 their upper halves.
  auto fill = [&](int64_t n) {
    const std::vector<float> f = Random(n);
    std::vector<uint8_t> bytes(static_cast<size_t>(n * esize));
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t* src = reinterpret_cast<const uint8_t*>(&f[i]) + (esize == 2 ? 2 : 0);
      std::memcpy(&bytes[i * esize], src, static_cast<size_t>(esize));
    }
    return bytes;
  };
  const std::vector<uint8_t> in = fill(lhs.element_count()), k = fill(rhs.element_count());
  std::vector<uint8_t> o(static_cast<size_t>(out->element_count() * esize));
  auto scratch = hwy::AllocateAligned<uint8_t>(static_cast<size_t>(plan->scratch_bytes + 64));
  for (auto _ : state) {
    const ConvBuffers b = ConvPrepare(*plan, in.data(), k.data(), o.data(), scratch.get());
    ParallelUnits(arena, plan->units,
                  [&](int64_t u0, int64_t u1) { ConvUnits(*plan, b, u0, u1); });
    ConvFinish(*plan, b, o.data());
    benchmark::DoNotOptimize(o.data());
  }
  if (bytes_rate) {
    const double bytes = static_cast<double>(esize) * (in.size() + k.size() + o.size()) / esize;
    state.counters["GB/s"] =
        benchmark::Counter(bytes * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      static_cast<double>(plan->flops()) * state.iterations(), benchmark::Counter::kIsRate);
}

// The convolutions of ResNet-50 (Keras layout: strides on the 1x1
// convolutions, NHWC, batch 1) and the depthwise model's.
const ConvShape kShapes[] = {
    {"r56_3x3_64_64", 56, 64, 64, 3, 1, 1, 1},
    {"r56_1x1_64_256", 56, 64, 256, 1, 1, 0, 1},
    {"r56_1x1_256_64", 56, 256, 64, 1, 1, 0, 1},
    {"r56_1x1_64_64", 56, 64, 64, 1, 1, 0, 1},
    {"r28_3x3_128_128", 28, 128, 128, 3, 1, 1, 1},
    {"r14_3x3_256_256", 14, 256, 256, 3, 1, 1, 1},
    {"r7_3x3_512_512", 7, 512, 512, 3, 1, 1, 1},
    {"r56_1x1s2_256_128", 56, 256, 128, 1, 2, 0, 1},
    {"r56_1x1s2_256_512", 56, 256, 512, 1, 2, 0, 1},
    {"r28_1x1s2_512_1024", 28, 512, 1024, 1, 2, 0, 1},
    {"r230_7x7s2_3_64", 230, 3, 64, 7, 2, 0, 1},
    {"r28_1x1s2_512_256", 28, 512, 256, 1, 2, 0, 1},
    {"r14_1x1s2_1024_512", 14, 1024, 512, 1, 2, 0, 1},
    {"r14_1x1s2_1024_2048", 14, 1024, 2048, 1, 2, 0, 1},
    {"dw56_3x3_256_nchw_bf16", 56, 256, 256, 3, 1, 1, 256, true, ElementType::kBF16},
};

void BM_ResNetConv3x3(benchmark::State& state) { RunConvBench(state, kShapes[0], false); }
void BM_Depthwise3x3(benchmark::State& state) {
  RunConvBench(state, {"dw56_3x3_256", 56, 256, 256, 3, 1, 1, 256}, true);
}

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

// BM_Conv/<shape>/<threads>: every shape of kShapes (bench/conv_vs_torch.py
// sets them beside torch.nn.functional.conv2d).
const bool kRegistered = [] {
  for (const ConvShape& cs : kShapes) {
    benchmark::RegisterBenchmark((std::string("BM_Conv/") + cs.name).c_str(),
                                 [cs](benchmark::State& st) { RunConvBench(st, cs, false); })
        ->Arg(1)
        ->Arg(2)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
