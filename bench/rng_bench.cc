// rng-bit-generator throughput as a ratio to a reference timed in the same
// run with the same thread count: filling u32[16M] (64 MiB) with ThreeFry or
// Philox bits vs memset of the same 64 MiB (the memory write bandwidth).
// Both use the same fixed chunks the VM uses; threads take chunks from a
// task arena.
#include <cstdint>
#include <cstring>
#include <vector>

#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "ops/rng/rng_bits.h"

namespace hlovm {
namespace {

using bench::ForChunks;

constexpr int64_t kElements = 16 << 20;
constexpr int64_t kBytes = kElements * 4;
constexpr int64_t kSetChunk = 1 << 20;

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
  bench::CompareBandwidth(state, static_cast<double>(kBytes), kernel, reference, "memset_GBps");
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
