// The benchmarks' shared harness (bench_util.h).
#include "bench/bench_util.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"
#include "oneapi/tbb/partitioner.h"

namespace hlovm {
namespace bench {
namespace {

double ClockSeconds(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

double WallSeconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double ProcessCpuSeconds(const std::function<void()>& f) {
  const double t0 = ClockSeconds(CLOCK_PROCESS_CPUTIME_ID);
  f();
  return ClockSeconds(CLOCK_PROCESS_CPUTIME_ID) - t0;
}

double ThreadCpuNow() { return ClockSeconds(CLOCK_THREAD_CPUTIME_ID); }

void ParallelUnits(tbb::task_arena& arena, int64_t units,
                   const std::function<void(int64_t, int64_t)>& body) {
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<int64_t>(0, units, 1),
        [&](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); },
        tbb::simple_partitioner());
  });
}

void ForEachChunk(int threads, int64_t chunks, const std::function<void(int64_t, int64_t)>& body) {
  if (threads == 1 || chunks <= 1) {
    body(0, chunks);
    return;
  }
  static tbb::task_arena arena(2);
  ParallelUnits(arena, chunks, body);
}

void ForChunks(int threads, int64_t n, int64_t chunk,
               const std::function<void(int64_t, int64_t)>& body) {
  ForEachChunk(threads, (n + chunk - 1) / chunk, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) body(c * chunk, std::min(n, (c + 1) * chunk));
  });
}

std::vector<double> TimeBeside(benchmark::State& state, const std::function<double()>& timed,
                               const std::vector<std::function<double()>>& beside) {
  std::vector<double> seconds(beside.size() + 1, 0.0);
  for (auto _ : state) {
    const double t = timed();
    state.PauseTiming();
    for (size_t k = 0; k < beside.size(); ++k) seconds[k + 1] += beside[k]();
    state.ResumeTiming();
    seconds[0] += t;
    state.SetIterationTime(t);
  }
  const double iterations = static_cast<double>(std::max<int64_t>(1, state.iterations()));
  for (double& s : seconds) s /= iterations;
  return seconds;
}

KernelAndReference TimeAgainstReference(benchmark::State& state,
                                        const std::function<void()>& kernel,
                                        const std::function<void()>& reference, Clock clock) {
  auto time = [clock](const std::function<void()>& f) {
    return clock == Clock::kWall ? WallSeconds(f) : ProcessCpuSeconds(f);
  };
  const std::vector<double> s =
      TimeBeside(state, [&] { return time(kernel); }, {[&] { return time(reference); }});
  return KernelAndReference{s[0], s[1]};
}

void SetBandwidthCounters(benchmark::State& state, double bytes, const KernelAndReference& t,
                          const char* kernel_counter, const char* reference_counter) {
  state.counters[kernel_counter] = bytes / t.kernel / 1e9;
  state.counters[reference_counter] = bytes / t.reference / 1e9;
  state.counters["ratio"] = t.reference / t.kernel;
}

void CompareBandwidth(benchmark::State& state, double bytes, const std::function<void()>& kernel,
                      const std::function<void()>& reference, const char* reference_counter) {
  kernel();
  reference();
  SetBandwidthCounters(state, bytes, TimeAgainstReference(state, kernel, reference), "kernel_GBps",
                       reference_counter);
  state.SetBytesProcessed(static_cast<int64_t>(bytes * static_cast<double>(state.iterations())));
}

std::vector<Literal> RandomF32Arguments(absl::Span<const Shape> shapes, uint32_t seed) {
  std::vector<Literal> args;
  for (const Shape& shape : shapes) {
    Literal lit = *Literal::Create(shape);
    for (float& v : lit.data<float>()) {
      seed = seed * 1664525u + 1013904223u;
      v = static_cast<float>(seed >> 8) / static_cast<float>(1 << 24) - 0.5f;
    }
    args.push_back(std::move(lit));
  }
  return args;
}

std::string OverlapModule(int replicas, int64_t elements, int64_t dot, const std::string& body,
                          const std::string& root) {
  std::string text = R"(
HloModule overlap, replica_count=$R
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[$N] parameter(0)
  a = f32[$M,$M] parameter(1)
  b = f32[$M,$M] parameter(2)
$BODY
  ROOT out = $ROOT
})";
  text = absl::StrReplaceAll(text, {{"$BODY", body}, {"$ROOT", root}});
  return absl::StrReplaceAll(text, {{"$R", absl::StrCat(replicas)},
                                    {"$N", absl::StrCat(elements)},
                                    {"$M", absl::StrCat(dot)}});
}

std::unique_ptr<Executable> CompileOrSkip(benchmark::State& state, std::string_view text,
                                          const CompileOptions& options) {
  auto exe = Executable::FromText(text, options);
  if (!exe.ok()) {
    state.SkipWithError(std::string(exe.status().message()).c_str());
    return nullptr;
  }
  return std::move(*exe);
}

void ExecuteEachIteration(benchmark::State& state, const Executable& exe,
                          absl::Span<const Literal* const> arguments,
                          const ExecuteOptions& options) {
  for (auto _ : state) {
    auto result = exe.Execute(arguments, options);
    if (!result.ok()) state.SkipWithError(std::string(result.status().message()).c_str());
    benchmark::DoNotOptimize(result);
  }
}

}  // namespace bench
}  // namespace hlovm
