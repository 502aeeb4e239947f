// The small harness the benchmarks share: clocks, the VM's way of splitting
// work into fixed chunks over threads, the loop that times a kernel with its
// reference beside it in the same run, the counters that report the two as
// bandwidths and a ratio, reproducible random inputs, and compiling and
// running a module text through the public API with errors reported as
// skipped benchmarks.
#ifndef HLOVM_BENCH_BENCH_UTIL_H_
#define HLOVM_BENCH_BENCH_UTIL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "benchmark/benchmark.h"
#include "oneapi/tbb/task_arena.h"
#include "vm/api.h"

namespace hlovm {
namespace bench {

//===--- Clocks -------------------------------------------------------------===//

// Seconds of one call of `f` on the steady wall clock.
double WallSeconds(const std::function<void()>& f);
// CPU seconds of this process (all its threads) during one call of `f`. The
// build machines are shared, and wall time mostly measures how long other
// tenants hold the cores.
double ProcessCpuSeconds(const std::function<void()>& f);
// CPU seconds of the calling thread so far.
double ThreadCpuNow();

//===--- Splitting work ------------------------------------------------------===//

// body(begin, end) over units [0, units) on `arena`, one unit per task (the
// VM's simple partitioner).
void ParallelUnits(tbb::task_arena& arena, int64_t units,
                   const std::function<void(int64_t, int64_t)>& body);
// body(begin, end) over chunk indices [0, chunks): once over all of them on
// the calling thread when threads == 1 (or there is at most one chunk),
// otherwise one chunk per task on a shared two-thread arena (the VM's
// ForEachChunk).
void ForEachChunk(int threads, int64_t chunks, const std::function<void(int64_t, int64_t)>& body);
// body(begin, end) once per fixed chunk [c * chunk, min(n, (c + 1) * chunk))
// of [0, n), chunks spread as ForEachChunk does.
void ForChunks(int threads, int64_t n, int64_t chunk,
               const std::function<void(int64_t, int64_t)>& body);

//===--- Timing against a reference -------------------------------------------===//

// The benchmark loop: each iteration calls `timed` (seconds; the
// iteration's manual time) and, with the timer paused, each of `beside`,
// all in the same run. Returns their mean seconds per iteration, `timed`'s
// first.
std::vector<double> TimeBeside(benchmark::State& state, const std::function<double()>& timed,
                               const std::vector<std::function<double()>>& beside);

// Mean seconds of a kernel and of its reference, timed alternately.
struct KernelAndReference {
  double kernel = 0;
  double reference = 0;
};

enum class Clock { kWall, kProcessCpu };

// Times `kernel` (the iteration time) and `reference` alternately with
// TimeBeside on `clock`.
KernelAndReference TimeAgainstReference(benchmark::State& state,
                                        const std::function<void()>& kernel,
                                        const std::function<void()>& reference,
                                        Clock clock = Clock::kWall);

// Counters of a bandwidth comparison of `bytes` per call: `kernel_counter`
// and `reference_counter` in GB/s, and "ratio" = reference time / kernel
// time (>= 1: the kernel is faster).
void SetBandwidthCounters(benchmark::State& state, double bytes, const KernelAndReference& t,
                          const char* kernel_counter, const char* reference_counter);

// The whole comparison of a kernel with a reference that moves the same
// `bytes` per call: one untimed call of each, then TimeAgainstReference on
// the wall clock, SetBandwidthCounters ("kernel_GBps" and
// `reference_counter`) and the bytes processed.
void CompareBandwidth(benchmark::State& state, double bytes, const std::function<void()>& kernel,
                      const std::function<void()>& reference, const char* reference_counter);

//===--- Inputs -----------------------------------------------------------------===//

// n values uniform in [lo, hi) from mt19937(seed).
template <typename T>
std::vector<T> RandomUniform(int64_t n, uint32_t seed, T lo = T(-1), T hi = T(1)) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<T> dist(lo, hi);
  std::vector<T> v(static_cast<size_t>(n));
  for (T& x : v) x = dist(rng);
  return v;
}

// n normally distributed values from mt19937(seed).
template <typename T>
std::vector<T> RandomNormal(int64_t n, uint32_t seed, T mean = T(0), T stddev = T(1)) {
  std::mt19937 rng(seed);
  std::normal_distribution<T> dist(mean, stddev);
  std::vector<T> v(static_cast<size_t>(n));
  for (T& x : v) x = dist(rng);
  return v;
}

// Arrays of `shapes` (f32) filled in order from one linear congruential
// sequence started at `seed`, values in [-0.5, 0.5): the same inputs in
// every run and every process given the same seed.
std::vector<Literal> RandomF32Arguments(absl::Span<const Shape> shapes, uint32_t seed);

//===--- Modules -------------------------------------------------------------===//

// Compiles `text`; on failure skips the benchmark with the error and
// returns null.
std::unique_ptr<Executable> CompileOrSkip(benchmark::State& state, std::string_view text,
                                          const CompileOptions& options = {});

// The overlap benchmarks' module (bench/async_overlap_bench.cc,
// bench/mpi_overlap.cc) on `replicas` replicas: parameters x = f32[N] (what
// an all-reduce reduces with `add`), a and b = f32[M,M] (a dot's operands),
// then `body`, then `ROOT out = ` `root`; $N and $M in body and root stand
// for `elements` and `dot`.
std::string OverlapModule(int replicas, int64_t elements, int64_t dot, const std::string& body,
                          const std::string& root);

// Runs `exe` once per benchmark iteration; a failed run skips the
// benchmark with its error.
void ExecuteEachIteration(benchmark::State& state, const Executable& exe,
                          absl::Span<const Literal* const> arguments,
                          const ExecuteOptions& options);

}  // namespace bench
}  // namespace hlovm

#endif  // HLOVM_BENCH_BENCH_UTIL_H_
