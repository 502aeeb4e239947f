// Parse and parse+verify throughput on the largest module text in the corpus
// ($HLOVM_SHARED/corpus/models, default ../shared), goal >= 100 MB/s of text
// for parse + verify in a Release build; and the whole compile of it (parse,
// verify, passes, lowering to bytecode) with the pass pipeline's share of
// that CPU time (`pass_share`, goal <= 0.10).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "bench/bench_util.h"
#include "benchmark/benchmark.h"
#include "frontend/parser.h"
#include "frontend/verifier.h"
#include "vm/api.h"

namespace hlovm {
namespace {

namespace fs = std::filesystem;

// The text of the largest .hlo under the models folder ("" if none).
const std::string& LargestModel() {
  static const std::string* text = [] {
    const char* env = std::getenv("HLOVM_SHARED");
    fs::path dir = fs::path(env != nullptr ? env : "../shared") / "corpus" / "models";
    fs::path best;
    uintmax_t best_size = 0;
    if (fs::exists(dir)) {
      for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().extension() == ".hlo" && e.file_size() > best_size) {
          best_size = e.file_size();
          best = e.path();
        }
      }
    }
    auto* out = new std::string;
    if (!best.empty()) {
      std::ifstream in(best, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      *out = ss.str();
    }
    return out;
  }();
  return *text;
}

// Parses the largest model each iteration (and verifies it where
// `verify`); freeing the module is not timed.
void ParseLargestModel(benchmark::State& state, bool verify) {
  const std::string& text = LargestModel();
  if (text.empty()) {
    state.SkipWithError("no corpus models found");
    return;
  }
  for (auto _ : state) {
    auto module = ParseHloModule(text);
    if (!module.ok()) {
      state.SkipWithError("parse failed");
      return;
    }
    if (verify) {
      absl::Status verified = VerifyModule(**module);
      benchmark::DoNotOptimize(verified);
    }
    benchmark::DoNotOptimize(module);
    state.PauseTiming();
    module = absl::StatusOr<std::unique_ptr<HloModule>>();
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * text.size());
}

void BM_ParseLargestModel(benchmark::State& state) { ParseLargestModel(state, false); }
BENCHMARK(BM_ParseLargestModel)->Unit(benchmark::kMillisecond)->MinTime(2);

void BM_ParseAndVerifyLargestModel(benchmark::State& state) { ParseLargestModel(state, true); }
BENCHMARK(BM_ParseAndVerifyLargestModel)->Unit(benchmark::kMillisecond)->MinTime(2);

// Executable::FromText with the default passes and fusion: everything
// between the text and a runnable program. Both the compile and its passes
// are timed in CPU seconds of this thread (the compile runs on it alone).
void BM_CompileLargestModel(benchmark::State& state) {
  const std::string& text = LargestModel();
  if (text.empty()) {
    state.SkipWithError("no corpus models found");
    return;
  }
  double total = 0, passes = 0;
  for (auto _ : state) {
    const double t0 = bench::ThreadCpuNow();
    auto exe = Executable::FromText(text);
    total += bench::ThreadCpuNow() - t0;
    if (!exe.ok()) {
      state.SkipWithError("compile failed");
      return;
    }
    passes += (*exe)->pass_seconds();
    state.PauseTiming();
    exe = absl::StatusOr<std::unique_ptr<Executable>>();
    state.ResumeTiming();
  }
  state.counters["pass_share"] = passes / std::max(total, 1e-9);
  state.counters["passes_ms"] = passes * 1e3 / static_cast<double>(state.iterations());
}
BENCHMARK(BM_CompileLargestModel)->Unit(benchmark::kMillisecond)->MinTime(2);

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
