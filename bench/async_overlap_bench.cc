// Overlap of an asynchronous all-reduce with computation (vm/COLLECTIVES.md,
// "Asynchronous collectives"). Each iteration times, on the same replicas
// and bus, three modules:
//   compute      a dot of two f32[M,M] that does not depend on the exchange
//   comm         an all-reduce-start / all-reduce-done of f32[N]
//   overlapped   the all-reduce-start, then the dot, then the done
// and reports their median times (ms) and the ratios
//   overlap_vs_sum = overlapped / (compute + comm)   below 1: the exchange
//                                                     progressed during the dot
//   overlap_vs_max = overlapped / max(compute, comm)  1 is perfect overlap
// Arg 0 runs on the in-memory bus, arg 1 on the message bus (the transport
// of MPI runs, every instance in this process).
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "vm/api.h"

namespace hlovm {
namespace {

constexpr int kReplicas = 2;
constexpr int64_t kElements = 8 << 20;  // 32 MiB of f32 per instance
constexpr int64_t kDot = 576;           // f32[576,576] x f32[576,576]

// The module's text: `body` between the parameters and a ROOT tuple of
// `root` of shape `root_shape`.
std::string Module(const std::string& body, const std::string& root_shape,
                   const std::string& root) {
  return bench::OverlapModule(kReplicas, kElements, kDot, body,
                              absl::StrCat(root_shape, " tuple(", root, ")"));
}

struct OverlapSetup {
  std::unique_ptr<Executable> compute, comm, overlapped;
  std::vector<Literal> args;
  std::vector<const Literal*> arg_ptrs;
  std::string error;
};

OverlapSetup* Setup() {
  static OverlapSetup* setup = [] {
    auto* s = new OverlapSetup;
    const std::string dot =
        "  d = f32[$M,$M] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n";
    const std::string start = "  st = f32[$N] all-reduce-start(x), replica_groups={}, to_apply=add\n";
    const std::string done = "  r = f32[$N] all-reduce-done(st)\n";
    auto build = [&](const std::string& text, std::unique_ptr<Executable>* out) {
      auto exe = Executable::FromText(text);
      if (!exe.ok()) {
        s->error = std::string(exe.status().message());
        return;
      }
      *out = std::move(*exe);
    };
    // Small results (a slice of each): the figures are the exchange's and
    // the dot's, not the result literals' allocation.
    const std::string dot_slice = "  ds = f32[1,4] slice(d), slice={[0:1], [0:4]}\n";
    const std::string r_slice = "  rs = f32[4] slice(r), slice={[0:4]}\n";
    build(Module(dot + dot_slice, "(f32[1,4])", "ds"), &s->compute);
    build(Module(start + done + r_slice, "(f32[4])", "rs"), &s->comm);
    build(Module(start + dot + done + dot_slice + r_slice, "(f32[4], f32[1,4])", "rs, ds"),
          &s->overlapped);
    s->args = bench::RandomF32Arguments({Shape(ElementType::kF32, {kElements}),
                                         Shape(ElementType::kF32, {kDot, kDot}),
                                         Shape(ElementType::kF32, {kDot, kDot})},
                                        1);
    for (const Literal& l : s->args) s->arg_ptrs.push_back(&l);
    return s;
  }();
  return setup;
}

void BM_AllReduceOverlapsDot(benchmark::State& state) {
  OverlapSetup* s = Setup();
  if (!s->error.empty()) {
    state.SkipWithError(s->error.c_str());
    return;
  }
  ReplicatedOptions options;
  options.threads = 1;  // one core's kernels per instance
  options.message_bus = state.range(0) == 1;
  const std::vector<const Literal*>* args = &s->arg_ptrs;
  auto time = [&](const Executable& exe) {
    const auto begin = std::chrono::steady_clock::now();
    auto results = ExecuteReplicated(exe, absl::MakeConstSpan(args, 1), options);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin)
            .count();
    for (const auto& r : results) {
      if (!r.ok()) state.SkipWithError(std::string(r.status().message()).c_str());
    }
    benchmark::DoNotOptimize(results);
    return ms;
  };
  // Once each first: frames, arenas and the result pages of a first run.
  time(*s->compute);
  time(*s->comm);
  time(*s->overlapped);
  // Medians over the runs (the machine may be shared: a mean follows the
  // outliers).
  std::vector<double> times[3];
  for (auto _ : state) {
    times[0].push_back(time(*s->compute));
    times[1].push_back(time(*s->comm));
    times[2].push_back(time(*s->overlapped));
  }
  double median[3];
  for (int k = 0; k < 3; ++k) {
    std::sort(times[k].begin(), times[k].end());
    median[k] = times[k][times[k].size() / 2];
  }
  const double compute = median[0], comm = median[1], overlapped = median[2];
  state.counters["compute_ms"] = compute;
  state.counters["comm_ms"] = comm;
  state.counters["overlapped_ms"] = overlapped;
  state.counters["overlap_vs_sum"] = overlapped / (compute + comm);
  state.counters["overlap_vs_max"] = overlapped / std::max(compute, comm);
}
BENCHMARK(BM_AllReduceOverlapsDot)
    ->Arg(0)
    ->Arg(1)
    ->Iterations(20)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
