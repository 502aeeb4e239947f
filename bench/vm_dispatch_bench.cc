// Dispatch cost: a while loop that counts a scalar to N (compare + add +
// tuple per iteration). Reports ns per iteration and ns per executed
// bytecode instruction (the condition's and the body's instructions; tuple
// and get-tuple-element compile to none).
#include <atomic>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "frontend/parser.h"
#include "vm/api.h"
#include "vm/compiler.h"

namespace hlovm {
namespace {

std::string CountModule(int64_t n) {
  return absl::StrCat(R"hlo(HloModule count
cond {
  s = (s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant()hlo", n, R"hlo()
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[]) tuple(j)
}
ENTRY main {
  z = s32[] constant(0)
  t = (s32[]) tuple(z)
  ROOT w = (s32[]) while(t), condition=cond, body=body
})hlo");
}

// Bytecode instructions per iteration, from the compiled program.
int64_t InstructionsPerIteration(const std::string& text) {
  auto module = ParseHloModule(text);
  auto program = vm::CompileModule(**module);
  int64_t n = 0;
  for (const auto& fn : (*program)->functions) {
    if (fn.get() != (*program)->entry) n += static_cast<int64_t>(fn->code.size());
  }
  return n;
}

void WhileCount(benchmark::State& state, const ExecuteOptions& options) {
  const int64_t n = state.range(0);
  const std::string text = CountModule(n);
  std::unique_ptr<Executable> exe = bench::CompileOrSkip(state, text);
  if (exe == nullptr) return;
  bench::ExecuteEachIteration(state, *exe, {}, options);
  const int64_t per_iter = InstructionsPerIteration(text);
  const double iterations = static_cast<double>(state.iterations()) * n;
  state.counters["ns_per_loop_iteration"] = benchmark::Counter(
      iterations, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["ns_per_instruction"] = benchmark::Counter(
      iterations * per_iter, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["instructions_per_iteration"] = static_cast<double>(per_iter);
}

void BM_WhileCount(benchmark::State& state) {
  ExecuteOptions options;
  options.threads = 1;
  WhileCount(state, options);
}
BENCHMARK(BM_WhileCount)->Arg(10000000)->Unit(benchmark::kMillisecond)->Iterations(3);

// As `hlovm run` executes: with a cancel flag (Ctrl-C), which selects the
// hooked dispatch loop.
void BM_WhileCountCancellable(benchmark::State& state) {
  std::atomic<bool> cancel{false};
  ExecuteOptions options;
  options.threads = 1;
  options.cancel = &cancel;
  WhileCount(state, options);
}
BENCHMARK(BM_WhileCountCancellable)->Arg(10000000)->Unit(benchmark::kMillisecond)->Iterations(3);

// As `hlovm run` and `hlovm bench` execute: publishing where the run is
// (RunPosition) for the Ctrl-C report and the progress line.
void BM_WhileCountPublished(benchmark::State& state) {
  RunPosition position;
  ExecuteOptions options;
  options.threads = 1;
  options.position = &position;
  WhileCount(state, options);
}
BENCHMARK(BM_WhileCountPublished)->Arg(10000000)->Unit(benchmark::kMillisecond)->Iterations(3);

// As the REPL executes: cancellable and publishing.
void BM_WhileCountCancellablePublished(benchmark::State& state) {
  std::atomic<bool> cancel{false};
  RunPosition position;
  ExecuteOptions options;
  options.threads = 1;
  options.cancel = &cancel;
  options.position = &position;
  WhileCount(state, options);
}
BENCHMARK(BM_WhileCountCancellablePublished)
    ->Arg(10000000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
