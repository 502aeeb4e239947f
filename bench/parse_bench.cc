// Parse and parse+verify throughput on the largest module text in the corpus
// ($HLOVM_SHARED/corpus/models, default ../shared). The goal is
// >= 100 MB/s of text for parse + verify in a Release build.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "benchmark/benchmark.h"
#include "frontend/parser.h"
#include "frontend/verifier.h"

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

void BM_ParseLargestModel(benchmark::State& state) {
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
    benchmark::DoNotOptimize(module);
    state.PauseTiming();
    module = absl::StatusOr<std::unique_ptr<HloModule>>();  // freeing is not parsing
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * text.size());
}
BENCHMARK(BM_ParseLargestModel)->Unit(benchmark::kMillisecond)->MinTime(2);

void BM_ParseAndVerifyLargestModel(benchmark::State& state) {
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
    absl::Status verified = VerifyModule(**module);
    benchmark::DoNotOptimize(verified);
    state.PauseTiming();
    module = absl::StatusOr<std::unique_ptr<HloModule>>();
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * text.size());
}
BENCHMARK(BM_ParseAndVerifyLargestModel)->Unit(benchmark::kMillisecond)->MinTime(2);

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
