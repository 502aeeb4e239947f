// Sort kernel throughput as a ratio to std::sort of the same data, timed in
// the same run with the same thread count (see ../shared/MACHINE.md):
//   sort of 1M f32 (one row) with an LT comparator vs std::sort;
//   1024 rows of 1024 f32 sorted along the minor dimension, rows split in
//   the fixed chunks the VM uses, vs std::sort of each row.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"
#include "oneapi/tbb/partitioner.h"
#include "oneapi/tbb/task_arena.h"
#include "ops/sort/sort.h"

namespace hlovm {
namespace {

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
          for (int64_t c = r.begin(); c < r.end(); ++c) body(c * chunk, std::min(n, (c + 1) * chunk));
        },
        tbb::simple_partitioner());
  });
}

double Seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<float> RandomFloats(int64_t n) {
  std::mt19937 rng(42);
  std::normal_distribution<float> dist(0.f, 100.f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// rows x n f32, sorted along n: the VM's fast path (LT, FLOAT comparison) vs
// std::sort of each row of a fresh copy. The copy for std::sort is not timed.
void SortVsStdSort(benchmark::State& state, int64_t rows, int64_t n, int threads) {
  const std::vector<float> input = RandomFloats(rows * n);
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
  double kernel_s = 0, ref_s = 0;
  for (auto _ : state) {
    const double k = Seconds(kernel);
    state.PauseTiming();
    std::memcpy(ref.data(), input.data(), input.size() * 4);
    ref_s += Seconds(reference);
    state.ResumeTiming();
    kernel_s += k;
    state.SetIterationTime(k);
  }
  if (std::memcmp(out.data(), ref.data(), out.size() * 4) != 0) {
    state.SkipWithError("kernel and std::sort disagree");
    return;
  }
  const double iters = static_cast<double>(state.iterations());
  state.counters["kernel_Melem_per_s"] = rows * n * iters / kernel_s / 1e6;
  state.counters["std_sort_Melem_per_s"] = rows * n * iters / ref_s / 1e6;
  state.counters["ratio"] = ref_s / kernel_s;
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
