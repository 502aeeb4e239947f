// FFT throughput as a ratio to FFTW called directly, timed in the same run
// with the same thread count (see ../shared/MACHINE.md):
//   one c64 FFT of 2^20 points;
//   a batch of 1024 c64 FFTs of 1024 points, run in the VM's fixed chunks.
// The kernel is hlovm's FftKernel (plans made at compile time, FFTW_ESTIMATE,
// new-array execution per chunk); the reference is one FFTW_ESTIMATE plan over
// the whole batch (2 threads: one plan per half of the batch, one half per
// thread), executed with fftwf_execute. "ratio" is reference time / kernel
// time: above 1/1.1 = 0.91 meets the goal.
#include <fftw3.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "ops/fft/fft.h"

namespace hlovm {
namespace {

// The VM's ForEachChunk: fixed chunks, simple partitioner.
using bench::ForEachChunk;

struct FftwFree {
  void operator()(void* p) const { fftwf_free(p); }
};
using Buffer = std::unique_ptr<fftwf_complex, FftwFree>;
Buffer Alloc(int64_t n) { return Buffer(static_cast<fftwf_complex*>(fftwf_malloc(n * sizeof(fftwf_complex)))); }

void FftVsFftw(benchmark::State& state, int64_t batch, int64_t n, int threads) {
  FftKernelSpec spec;
  spec.type = FftType::kFft;
  spec.single = true;
  spec.length = {n, 1, 1};
  spec.batch = batch;
  auto kernel_or = FftKernel::Create(spec);
  if (!kernel_or.ok()) {
    state.SkipWithError("cannot create the kernel");
    return;
  }
  const FftKernel& kernel = **kernel_or;
  const int64_t total = batch * n;
  Buffer in = Alloc(total), out = Alloc(total), ref = Alloc(total);
  // Real and imaginary parts interleaved, as fftwf_complex stores them.
  const std::vector<float> values = bench::RandomNormal<float>(2 * total, 42);
  std::memcpy(in.get(), values.data(), values.size() * sizeof(float));
  std::memset(out.get(), 0, total * sizeof(fftwf_complex));
  std::memset(ref.get(), 0, total * sizeof(fftwf_complex));
  // Reference plans: the whole batch, or one half per thread.
  const int parts = threads > 1 && batch >= 2 ? 2 : 1;
  std::vector<fftwf_plan> plans;
  std::vector<int64_t> first(parts + 1);
  for (int p = 0; p <= parts; ++p) first[p] = batch * p / parts;
  for (int p = 0; p < parts; ++p) {
    const int len = static_cast<int>(n);
    plans.push_back(fftwf_plan_many_dft(1, &len, static_cast<int>(first[p + 1] - first[p]),
                                        in.get() + first[p] * n, nullptr, 1, len,
                                        ref.get() + first[p] * n, nullptr, 1, len, FFTW_FORWARD,
                                        FFTW_ESTIMATE));
  }
  auto run_kernel = [&] {
    ForEachChunk(threads, kernel.chunks(),
              [&](int64_t b, int64_t e) { (void)kernel.RunChunks(in.get(), out.get(), b, e); });
  };
  auto run_reference = [&] {
    ForEachChunk(threads, parts, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) fftwf_execute(plans[p]);
    });
  };
  run_kernel();
  run_reference();
  const bench::KernelAndReference t =
      bench::TimeAgainstReference(state, run_kernel, run_reference);
  for (fftwf_plan p : plans) fftwf_destroy_plan(p);
  // Same transform: the results agree to rounding.
  double worst = 0, scale = 0;
  for (int64_t i = 0; i < total; i += 97) {
    const std::complex<float> a(out.get()[i][0], out.get()[i][1]), b(ref.get()[i][0], ref.get()[i][1]);
    worst = std::max(worst, static_cast<double>(std::abs(a - b)));
    scale = std::max(scale, static_cast<double>(std::abs(b)));
  }
  if (worst > 1e-4 * scale) {
    state.SkipWithError("kernel and FFTW disagree");
    return;
  }
  state.counters["kernel_ms"] = t.kernel * 1e3;
  state.counters["fftw_ms"] = t.reference * 1e3;
  state.counters["ratio"] = t.reference / t.kernel;
}

void BM_FftC64_2p20_VsFftw(benchmark::State& state) {
  FftVsFftw(state, 1, 1 << 20, static_cast<int>(state.range(0)));
}
BENCHMARK(BM_FftC64_2p20_VsFftw)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_FftC64_1024x1024_VsFftw(benchmark::State& state) {
  FftVsFftw(state, 1024, 1024, static_cast<int>(state.range(0)));
}
BENCHMARK(BM_FftC64_1024x1024_VsFftw)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
