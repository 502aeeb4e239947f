// f32 reduce-sum of 64M elements through the VM as a ratio to the read
// bandwidth of a plain loop (eight scalar accumulators, per-thread partials),
// timed in the same run with the same thread count (1 and 2 threads).
// ratio = reference time / VM time (>= 1: the VM reads faster), both as
// process CPU time; the goal is ratio >= 0.8. Also a row sum ([8192, 8192]
// over dimension 1) and a column sum (over dimension 0) against the same
// reference.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "oneapi/tbb/task_arena.h"
#include "vm/api.h"

namespace hlovm {
namespace {

constexpr int64_t kElements = int64_t{1} << 26;  // 64M f32 = 256 MiB

// Plain read loop: eight independent accumulators per 1M-element part.
float ReadSum(const float* x, int64_t n) {
  float a[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const int64_t blocks = n / 8;
  for (int64_t b = 0; b < blocks; ++b) {
    for (int k = 0; k < 8; ++k) a[k] += x[b * 8 + k];
  }
  for (int64_t i = blocks * 8; i < n; ++i) a[0] += x[i];
  return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

float ReferenceSum(const float* x, int threads) {
  constexpr int64_t kPart = int64_t{1} << 20;
  constexpr int64_t kParts = kElements / kPart;
  std::vector<float> partial(kParts);
  auto body = [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) partial[p] = ReadSum(x + p * kPart, kPart);
  };
  if (threads == 1) {
    body(0, kParts);
  } else {
    static tbb::task_arena arena(2);
    bench::ParallelUnits(arena, kParts, body);
  }
  float s = 0;
  for (float v : partial) s += v;
  return s;
}

void SumVsRead(benchmark::State& state, const std::string& dims, const std::string& out_shape,
               const std::string& reduce_dims) {
  const int threads = static_cast<int>(state.range(0));
  const std::string hlo = "HloModule m\n"
                          "add { a = f32[] parameter(0)  b = f32[] parameter(1)"
                          "  ROOT s = f32[] add(a, b) }\n"
                          "ENTRY e { p = f32[" + dims + "] parameter(0)  z = f32[] constant(0)\n"
                          "  ROOT r = f32[" + out_shape + "] reduce(p, z), dimensions={" +
                          reduce_dims + "}, to_apply=add }\n";
  std::unique_ptr<Executable> exe = bench::CompileOrSkip(state, hlo);
  if (exe == nullptr) return;
  Literal input = std::move(Literal::Create(exe->parameter_shapes()[0]).value());
  float* x = reinterpret_cast<float*>(input.untyped_data());
  for (int64_t i = 0; i < kElements; ++i) x[i] = static_cast<float>(i % 1000) * 0.001f;
  const Literal* args[] = {&input};
  ExecuteOptions options;
  options.threads = threads;
  auto run = [&] {
    auto r = exe->Execute(args, options);
    if (!r.ok()) state.SkipWithError(std::string(r.status().message()).c_str());
    benchmark::DoNotOptimize(r);
  };
  float sink = 0;
  auto reference = [&] { sink += ReferenceSum(x, threads); };
  run();
  reference();
  // Both as process CPU time: the build machines are shared, and wall time
  // mostly measures how long other tenants hold the cores.
  const bench::KernelAndReference t =
      bench::TimeAgainstReference(state, run, reference, bench::Clock::kProcessCpu);
  benchmark::DoNotOptimize(sink);
  bench::SetBandwidthCounters(state, 4.0 * kElements, t, "vm_GBps", "read_GBps");
}

void BM_ReduceSumF32VsRead(benchmark::State& state) { SumVsRead(state, "67108864", "", "0"); }
void BM_ReduceRowsF32VsRead(benchmark::State& state) {
  SumVsRead(state, "8192,8192", "8192", "1");
}
void BM_ReduceColumnsF32VsRead(benchmark::State& state) {
  SumVsRead(state, "8192,8192", "8192", "0");
}

BENCHMARK(BM_ReduceSumF32VsRead)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReduceRowsF32VsRead)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReduceColumnsF32VsRead)
    ->Arg(1)
    ->Arg(2)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
