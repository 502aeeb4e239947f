// Scheduling: (1) 10,000 independent small ops with 1 and 2 threads (2 must
// be no slower); (2) four independent large elementwise chains, which should
// use both cores.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "vm/api.h"

namespace hlovm {
namespace {

// 10,000 independent f32[16] ops (broadcast of a constant, add to the
// parameter), then a pairwise tree of adds that combines them into one
// result, so that materialising results does not dominate: 29,999 small
// instructions, most of them independent of each other.
std::string SmallOpsModule() {
  std::string text = "HloModule small\nENTRY main {\n  p0 = f32[16] parameter(0)\n";
  std::vector<std::string> level;
  for (int i = 0; i < 10000; ++i) {
    absl::StrAppend(&text, "  c", i, " = f32[] constant(", i, ")\n  b", i,
                    " = f32[16] broadcast(c", i, "), dimensions={}\n  a", i,
                    " = f32[16] add(p0, b", i, ")\n");
    level.push_back(absl::StrCat("a", i));
  }
  int next = 0;
  while (level.size() > 1) {
    std::vector<std::string> up;
    for (size_t i = 0; i + 1 < level.size(); i += 2) {
      std::string name = absl::StrCat("s", next++);
      absl::StrAppend(&text, "  ", name, " = f32[16] add(", level[i], ", ", level[i + 1], ")\n");
      up.push_back(name);
    }
    if (level.size() % 2) up.push_back(level.back());
    level = std::move(up);
  }
  absl::StrAppend(&text, "  ROOT r = f32[16] copy(", level[0], ")\n}\n");
  return text;
}

// Four independent chains of 6 elementwise ops over f32[4M] (16 MiB each).
std::string ChainsModule() {
  std::string text = "HloModule chains\nENTRY main {\n  p0 = f32[4194304] parameter(0)\n";
  std::string roots, shapes;
  for (int c = 0; c < 4; ++c) {
    absl::StrAppend(&text, "  k", c, " = f32[] constant(", c + 1, ")\n  kb", c,
                    " = f32[4194304] broadcast(k", c, "), dimensions={}\n  x", c,
                    "_0 = f32[4194304] multiply(p0, kb", c, ")\n");
    for (int i = 1; i < 6; ++i) {
      absl::StrAppend(&text, "  x", c, "_", i, " = f32[4194304] ",
                      i % 2 ? "add" : "multiply", "(x", c, "_", i - 1, ", kb", c, ")\n");
    }
    absl::StrAppend(&roots, c ? ", " : "", "x", c, "_5");
    absl::StrAppend(&shapes, c ? ", " : "", "f32[4194304]");
  }
  absl::StrAppend(&text, "  ROOT t = (", shapes, ") tuple(", roots, ")\n}\n");
  return text;
}

void RunModule(benchmark::State& state, const std::string& text, const Shape& param_shape) {
  std::unique_ptr<Executable> exe = bench::CompileOrSkip(state, text);
  if (exe == nullptr) return;
  auto arg = Literal::Create(param_shape);
  ExecuteOptions options;
  options.threads = static_cast<int>(state.range(0));
  const Literal* args[] = {&*arg};
  bench::ExecuteEachIteration(state, *exe, args, options);
}

void BM_SmallIndependentOps(benchmark::State& state) {
  static const std::string text = SmallOpsModule();
  RunModule(state, text, Shape(ElementType::kF32, {16}));
  state.counters["ns_per_op"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 29999,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_SmallIndependentOps)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_FourLargeChains(benchmark::State& state) {
  static const std::string text = ChainsModule();
  RunModule(state, text, Shape(ElementType::kF32, {4194304}));
  // Bytes read + written by the 28 instructions.
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 4 * 6 * 3 * 16777216);
}
BENCHMARK(BM_FourLargeChains)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
