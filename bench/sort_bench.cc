// Sort kernel throughput as a ratio to std::sort of the same data, timed in
// the same run with the same thread count (see ../shared/MACHINE.md):
//   sort of 1M f32 (one row) with an LT comparator vs std::sort;
//   1024 rows of 1024 f32 sorted along the minor dimension, rows split in
//   the fixed chunks the VM uses, vs std::sort of each row.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "ops/sort/sort.h"

namespace hlovm {
namespace {

using bench::ForChunks;

// rows x n f32, sorted along n: the VM's fast path (LT, FLOAT comparison) vs
// std::sort of each row of a fresh copy. The copy for std::sort is not timed.
void SortVsStdSort(benchmark::State& state, int64_t rows, int64_t n, int threads) {
  const std::vector<float> input = bench::RandomNormal<float>(rows * n, 42, 0.f, 100.f);
  std::vector<float> out(rows * n), ref(rows * n);
  FastSortPlan plan;
  plan.geometry = SortGeometry{rows, n, 1};
  plan.key_type = ElementType::kF32;
  plan.float_compare = true;
  plan.elem_size = {4};
  const int64_t chunk = std::max<int64_t>(1, (64 * 1024) / (n * 4));
  auto kernel = [&] {
    ForChunks(threads, rows, chunk, [&](int64_t b, int64_t e) {
      const uint8_t* in[] = {reinterpret_cast<const uint8_t*>(input.data())};
      uint8_t* o[] = {reinterpret_cast<uint8_t*>(out.data())};
      SortScratch scratch;
      FastSortRows(plan, in, o, b, e, scratch);
    });
  };
  auto reference = [&] {
    ForChunks(threads, rows, chunk, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) std::sort(ref.begin() + r * n, ref.begin() + (r + 1) * n);
    });
  };
  const std::vector<double> s = bench::TimeBeside(
      state, [&] { return bench::WallSeconds(kernel); },
      {[&] {
        std::memcpy(ref.data(), input.data(), input.size() * 4);
        return bench::WallSeconds(reference);
      }});
  if (std::memcmp(out.data(), ref.data(), out.size() * 4) != 0) {
    state.SkipWithError("kernel and std::sort disagree");
    return;
  }
  state.counters["kernel_Melem_per_s"] = rows * n / s[0] / 1e6;
  state.counters["std_sort_Melem_per_s"] = rows * n / s[1] / 1e6;
  state.counters["ratio"] = s[1] / s[0];
}

void BM_SortF32_1M_VsStdSort(benchmark::State& state) {
  SortVsStdSort(state, 1, 1 << 20, static_cast<int>(state.range(0)));
}
BENCHMARK(BM_SortF32_1M_VsStdSort)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_SortF32_1024Rows_VsStdSort(benchmark::State& state) {
  SortVsStdSort(state, 1024, 1024, static_cast<int>(state.range(0)));
}
BENCHMARK(BM_SortF32_1024Rows_VsStdSort)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
