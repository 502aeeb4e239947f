// Dispatch cost: a while loop that counts a scalar to N (compare + add +
// tuple per iteration). Reports ns per iteration and ns per executed
// bytecode instruction (the condition's and the body's instructions; tuple
// and get-tuple-element compile to none). Also the fixed cost of one
// Execute call: a module of one add on two 8-element arrays.
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

constexpr char kOneAdd[] = R"hlo(HloModule add
ENTRY e {
  x = f32[8] parameter(0)
  y = f32[8] parameter(1)
  ROOT s = f32[8] add(x, y)
})hlo";

// One call of a one-add module on f32[8] inputs: what a run costs beyond
// its instructions (binding arguments, the frame, the result literal).
// Arg: the thread count asked for (0: every core, as the default).
void BM_ExecuteOneAdd(benchmark::State& state) {
  std::unique_ptr<Executable> exe = bench::CompileOrSkip(state, kOneAdd);
  if (exe == nullptr) return;
  absl::StatusOr<Literal> x = Literal::Create(exe->parameter_shapes()[0]);
  absl::StatusOr<Literal> y = Literal::Create(exe->parameter_shapes()[1]);
  if (!x.ok() || !y.ok()) {
    state.SkipWithError("cannot make the inputs");
    return;
  }
  const Literal* arguments[] = {&*x, &*y};
  ExecuteOptions options;
  options.threads = static_cast<int>(state.range(0));
  bench::ExecuteEachIteration(state, *exe, arguments, options);
}
BENCHMARK(BM_ExecuteOneAdd)->Arg(1)->Arg(0)->Unit(benchmark::kNanosecond);

// The same call through ExecuteArrays (bare data pointers, as the Python
// module passes NumPy arrays).
void BM_ExecuteArraysOneAdd(benchmark::State& state) {
  std::unique_ptr<Executable> exe = bench::CompileOrSkip(state, kOneAdd);
  if (exe == nullptr) return;
  alignas(64) float x[8] = {}, y[8] = {};
  const void* data[] = {x, y};
  ExecuteOptions options;
  options.threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    absl::StatusOr<Literal> result = exe->ExecuteArrays(data, options);
    if (!result.ok()) state.SkipWithError(std::string(result.status().message()).c_str());
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_ExecuteArraysOneAdd)->Arg(1)->Arg(0)->Unit(benchmark::kNanosecond);

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
