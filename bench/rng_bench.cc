// rng-bit-generator throughput as a ratio to a reference timed in the same
// run with the same thread count: filling u32[16M] (64 MiB) with ThreeFry or
// Philox bits vs memset of the same 64 MiB (the memory write bandwidth).
// Both use the same fixed chunks the VM uses; threads take chunks from a
// task arena.
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
#include "ops/rng/rng_bits.h"

namespace hlovm {
namespace {

constexpr int64_t kElements = 16 << 20;
constexpr int64_t kBytes = kElements * 4;
constexpr int64_t kSetChunk = 1 << 20;

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
          for (int64_t c = r.begin(); c < r.end(); ++c)
            body(c * chunk, std::min(n, (c + 1) * chunk));
        },
        tbb::simple_partitioner());
  });
}

double Seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void BM_RngBitGeneratorU32VsMemset(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const auto algorithm =
      state.range(1) == 0 ? RngBitsAlgorithm::kThreeFry : RngBitsAlgorithm::kPhilox;
  std::vector<uint32_t> out(kElements), ref(kElements);
  const int64_t dims[] = {kElements};
  auto plan_or = MakeRngBitsPlan(algorithm, 4, dims, 2);
  if (!plan_or.ok()) {
    state.SkipWithError("no plan");
    return;
  }
  const RngBitsPlan plan = *plan_or;
  const uint64_t seed[2] = {0x0123456789abcdefull, 42};
  uint8_t* po = reinterpret_cast<uint8_t*>(out.data());
  uint8_t* pr = reinterpret_cast<uint8_t*>(ref.data());
  auto kernel = [&] {
    ForChunks(threads, plan.blocks, plan.blocks_per_chunk,
              [&](int64_t b, int64_t e) { RunRngBits(plan, seed, po, b, e); });
  };
  auto reference = [&] {
    ForChunks(threads, kBytes, kSetChunk, [&](int64_t b, int64_t e) {
      std::memset(pr + b, static_cast<int>(b & 0x7f), e - b);
    });
  };
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
  state.counters["kernel_GBps"] = kBytes * n / kernel_s / 1e9;
  state.counters["memset_GBps"] = kBytes * n / ref_s / 1e9;
  state.counters["ratio"] = ref_s / kernel_s;
  state.SetBytesProcessed(static_cast<int64_t>(kBytes * n));
  if (out[0] == out[1] && out[1] == out[2]) state.SkipWithError("constant output");
}
BENCHMARK(BM_RngBitGeneratorU32VsMemset)
    ->ArgNames({"threads", "philox"})
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({1, 1})
    ->Args({2, 1})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
