// Parse throughput of the StableHLO frontend beside the HLO parser on the
// same programs: every `.mlir` in $HLOVM_SHARED/conformance/stablehlo-mlir
// (default ../shared) whose HLO form is in ../conformance/stablehlo (the
// case whose first line reads `// source: x.mlir`). Each benchmark parses
// all of its set per iteration; bytes/s is of the text read, and
// `programs_per_s` compares the two on equal work. Goal: the StableHLO
// frontend within 2x of the HLO parser's bytes/s.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "frontend/parser.h"
#include "frontend/stablehlo/stablehlo_parser.h"

namespace hlovm {
namespace {

namespace fs = std::filesystem;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Pairs {
  std::vector<std::string> mlir, hlo;
  int64_t mlir_bytes = 0, hlo_bytes = 0;
};

// The programs present in both forms, read once.
const Pairs& Programs() {
  static const Pairs* pairs = [] {
    auto* out = new Pairs;
    const char* env = std::getenv("HLOVM_SHARED");
    const fs::path root = fs::path(env != nullptr ? env : "../shared") / "conformance";
    const fs::path hlo_dir = root / "stablehlo", mlir_dir = root / "stablehlo-mlir";
    if (!fs::is_directory(hlo_dir) || !fs::is_directory(mlir_dir)) return out;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(hlo_dir)) {
      if (e.path().extension() == ".hlo") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& h : files) {
      std::string text = ReadText(h);
      const std::string prefix = "// source: ";
      if (text.compare(0, prefix.size(), prefix) != 0) continue;
      std::string source = text.substr(prefix.size(), text.find('\n') - prefix.size());
      if (source.find('#') != std::string::npos || source.find('/') != std::string::npos) continue;
      const fs::path m = mlir_dir / source;
      if (!fs::exists(m)) continue;
      out->mlir.push_back(ReadText(m));
      out->mlir_bytes += static_cast<int64_t>(out->mlir.back().size());
      out->hlo_bytes += static_cast<int64_t>(text.size());
      out->hlo.push_back(std::move(text));
    }
    return out;
  }();
  return *pairs;
}

void ParseAll(benchmark::State& state, bool stablehlo) {
  const Pairs& pairs = Programs();
  const std::vector<std::string>& texts = stablehlo ? pairs.mlir : pairs.hlo;
  if (texts.empty()) {
    state.SkipWithError("no conformance programs found");
    return;
  }
  for (auto _ : state) {
    for (const std::string& text : texts) {
      auto module = stablehlo ? ParseStableHloModule(text) : ParseHloModule(text);
      if (!module.ok()) {
        state.SkipWithError("parse failed");
        return;
      }
      benchmark::DoNotOptimize(module);
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          (stablehlo ? pairs.mlir_bytes : pairs.hlo_bytes));
  state.counters["programs_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * static_cast<double>(texts.size()),
      benchmark::Counter::kIsRate);
}

void BM_ParseStableHloPrograms(benchmark::State& state) { ParseAll(state, true); }
BENCHMARK(BM_ParseStableHloPrograms)->Unit(benchmark::kMillisecond)->MinTime(2);

void BM_ParseHloFormsOfThePrograms(benchmark::State& state) { ParseAll(state, false); }
BENCHMARK(BM_ParseHloFormsOfThePrograms)->Unit(benchmark::kMillisecond)->MinTime(2);

}  // namespace
}  // namespace hlovm

BENCHMARK_MAIN();
