// Runs the parser over the real HLO text in ../shared/corpus and
// ../shared/conformance: every valid text parses, every invalid one is
// rejected with a located error, and truncated texts never crash it.
//
// The corpus root is $HLOVM_SHARED (default ../shared, relative to the
// project root where ctest runs). Set HLOVM_TRUNCATION_FULL=1 for the full
// truncation sweep (meant for the sanitizer build).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/parser.h"
#include "frontend/verifier.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace {

namespace fs = std::filesystem;

// The number of invalid cases whose error contains XLA's expected text. Raise
// it when the parser gets closer to XLA's wording; never lower it.
constexpr int kMinMatchedInvalidMessages = 114;

fs::path SharedRoot() {
  const char* env = std::getenv("HLOVM_SHARED");
  return fs::path(env != nullptr ? env : "../shared");
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// .hlo files under `dir` (sorted), leaving out XLA's expected prints.
std::vector<fs::path> HloFiles(const fs::path& dir, bool recursive) {
  std::vector<fs::path> files;
  if (!fs::exists(dir)) return files;
  auto add = [&](const fs::directory_entry& e) {
    std::string name = e.path().filename().string();
    if (e.is_regular_file() && EndsWith(name, ".hlo") && !EndsWith(name, ".expected.hlo")) {
      files.push_back(e.path());
    }
  };
  if (recursive) {
    for (const auto& e : fs::recursive_directory_iterator(dir)) add(e);
  } else {
    for (const auto& e : fs::directory_iterator(dir)) add(e);
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A located error: "[file:]line:col: error: ..." then the line and a caret.
bool IsLocatedError(const absl::Status& status) {
  std::string_view m(status.message().data(), status.message().size());
  size_t at = m.find(": error: ");
  if (at == std::string_view::npos) return false;
  // "line:col" just before.
  size_t p = at;
  auto digits_back = [&]() {
    size_t end = p;
    while (p > 0 && m[p - 1] >= '0' && m[p - 1] <= '9') --p;
    return p < end;
  };
  if (!digits_back() || p == 0 || m[p - 1] != ':') return false;
  --p;
  if (!digits_back()) return false;
  // Then the message, the source line and the caret line.
  size_t nl1 = m.find('\n', at);
  if (nl1 == std::string_view::npos) return false;
  size_t nl2 = m.find('\n', nl1 + 1);
  if (nl2 == std::string_view::npos) return false;
  size_t q = nl2 + 1;
  while (q < m.size() && (m[q] == ' ' || m[q] == '\t')) ++q;
  return q < m.size() && m[q] == '^';
}

// The parts of a file to parse: split at `// -----` only when the file asks
// for lit's --split-input-file, leaving out parts with nothing but comments.
std::vector<TextChunk> Parts(const std::string& text) {
  std::vector<TextChunk> parts;
  if (text.find("split-input-file") != std::string::npos) {
    for (const TextChunk& chunk : SplitInputFile(text)) {
      if (!IsBlankText(chunk.text)) parts.push_back(chunk);
    }
  } else if (!IsBlankText(text)) {
    parts.push_back(TextChunk{text, 1});
  }
  return parts;
}

struct Tally {
  int files = 0;
  int parts = 0;
  int failures = 0;
};

Tally ParseAll(const std::vector<fs::path>& files) {
  Tally tally;
  for (const fs::path& path : files) {
    std::string text = ReadFile(path);
    ++tally.files;
    for (const TextChunk& part : Parts(text)) {
      ++tally.parts;
      ParseOptions options;
      options.file_name = path.string();
      options.first_line = part.first_line;
      auto module = ParseHloModule(part.text, options);
      if (!module.ok()) {
        ++tally.failures;
        ADD_FAILURE() << module.status().message();
      }
    }
  }
  return tally;
}

class CorpusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(SharedRoot() / "corpus")) GTEST_SKIP() << "no corpus at " << SharedRoot();
  }
  fs::path Corpus() const { return SharedRoot() / "corpus"; }
};

TEST_F(CorpusTest, XlaParserTestCasesParse) {
  auto files = HloFiles(Corpus() / "xla-parse/valid", /*recursive=*/false);
  ASSERT_GE(files.size(), 300u);
  Tally t = ParseAll(files);
  std::printf("xla-parse/valid: %d/%d parse\n", t.parts - t.failures, t.parts);
  EXPECT_EQ(t.failures, 0);
}

TEST_F(CorpusTest, XlaHloFilesParse) {
  auto files = HloFiles(Corpus() / "xla-parse/valid/files", /*recursive=*/true);
  ASSERT_GE(files.size(), 400u);
  Tally t = ParseAll(files);
  std::printf("xla-parse/valid/files: %d files, %d/%d modules parse\n", t.files,
              t.parts - t.failures, t.parts);
  EXPECT_EQ(t.failures, 0);
}

TEST_F(CorpusTest, ModelsParse) {
  auto files = HloFiles(Corpus() / "models", /*recursive=*/false);
  ASSERT_GE(files.size(), 30u);
  Tally t = ParseAll(files);
  std::printf("models: %d/%d parse\n", t.parts - t.failures, t.parts);
  EXPECT_EQ(t.failures, 0);
}

TEST_F(CorpusTest, ConformanceModulesParse) {
  auto files = HloFiles(SharedRoot() / "conformance", /*recursive=*/true);
  if (files.empty()) GTEST_SKIP() << "no conformance cases";
  Tally t = ParseAll(files);
  std::printf("conformance: %d/%d parse\n", t.parts - t.failures, t.parts);
  EXPECT_EQ(t.failures, 0);
}

TEST_F(CorpusTest, InvalidTextsAreRejectedWithLocatedErrors) {
  auto files = HloFiles(Corpus() / "xla-parse/invalid", /*recursive=*/false);
  ASSERT_GE(files.size(), 100u);
  int matched = 0, with_expectation = 0;
  for (const fs::path& path : files) {
    std::string text = ReadFile(path);
    ParseOptions options;
    options.file_name = path.filename().string();
    auto module = ParseHloModule(text, options);
    absl::Status status = module.ok() ? VerifyModule(**module) : module.status();
    if (status.ok()) {
      ADD_FAILURE() << path << " was accepted";
      continue;
    }
    EXPECT_TRUE(IsLocatedError(status)) << path << ":\n" << status.message();
    std::string base = path.string().substr(0, path.string().size() - 4);
    std::string expected = ReadFile(base + ".error.txt");
    std::string expected2 = fs::exists(base + ".error2.txt") ? ReadFile(base + ".error2.txt") : "";
    std::string message(status.message());
    if (!expected.empty()) ++with_expectation;
    if (message.find(expected) != std::string::npos &&
        message.find(expected2) != std::string::npos) {
      ++matched;
    } else {
      std::printf("  message differs from XLA's for %s\n    want: %s\n    got:  %s\n",
                  path.filename().string().c_str(), expected.c_str(),
                  message.substr(0, message.find('\n')).c_str());
    }
  }
  std::printf("xla-parse/invalid: %zu/%zu rejected; %d contain XLA's expected text "
              "(%d have a non-empty expectation)\n",
              files.size(), files.size(), matched, with_expectation);
  EXPECT_GE(matched, kMinMatchedInvalidMessages);
}

TEST_F(CorpusTest, RecursionLimitIsEnforced) {
  auto files = HloFiles(Corpus() / "xla-parse/invalid-with-options", /*recursive=*/false);
  ASSERT_EQ(files.size(), 5u);
  for (const fs::path& path : files) {
    std::string text = ReadFile(path);
    std::string base = path.string().substr(0, path.string().size() - 4);
    ParseOptions limited;
    limited.max_recursion_depth = 10;
    auto rejected = ParseHloModule(text, limited);
    ASSERT_FALSE(rejected.ok()) << path;
    EXPECT_TRUE(IsLocatedError(rejected.status())) << rejected.status().message();
    EXPECT_NE(std::string(rejected.status().message()).find(ReadFile(base + ".error.txt")),
              std::string::npos)
        << rejected.status().message();
    auto accepted = ParseHloModule(text);
    EXPECT_TRUE(accepted.ok()) << path << ": " << accepted.status().message();
  }
}

// Last character of `text` that is not space or inside a comment.
char LastSignificantChar(std::string_view text) {
  char last = '\0';
  size_t p = 0;
  while (p < text.size()) {
    if (text[p] == '/' && p + 1 < text.size() && text[p + 1] == '/') {
      while (p < text.size() && text[p] != '\n') ++p;
    } else if (text[p] == '/' && p + 1 < text.size() && text[p + 1] == '*') {
      size_t end = text.find("*/", p + 2);
      if (end == std::string_view::npos) return '\0';
      p = end + 2;
    } else if (text[p] == '"') {
      size_t q = p + 1;
      while (q < text.size() && text[q] != '"') q += text[q] == '\\' ? 2 : 1;
      last = '"';
      p = q + 1;
    } else {
      if (text[p] != ' ' && text[p] != '\n' && text[p] != '\t' && text[p] != '\r') last = text[p];
      ++p;
    }
  }
  return last;
}

// Truncates corpus texts at many points: each prefix is an error (or, when
// it ends exactly after a whole computation or instruction, a smaller valid
// module); nothing crashes or hangs. Prefixes that parse are verified too.
TEST_F(CorpusTest, TruncatedTextsFailCleanly) {
  const bool full = std::getenv("HLOVM_TRUNCATION_FULL") != nullptr;
  std::vector<fs::path> files = HloFiles(Corpus() / "xla-parse/valid", /*recursive=*/false);
  for (const auto& dir : {Corpus() / "xla-parse/valid/files", Corpus() / "models"}) {
    auto more = HloFiles(dir, /*recursive=*/true);
    files.insert(files.end(), more.begin(), more.end());
  }
  std::mt19937_64 rng(12345);
  int64_t prefixes = 0, errors = 0, valid_prefixes = 0;
  for (const fs::path& path : files) {
    std::string text = ReadFile(path);
    for (const TextChunk& part : Parts(text)) {
      std::string_view whole = part.text;
      if (whole.empty()) continue;
      // Sampled: a few cut points per text, fewer for large files.
      std::vector<size_t> cuts;
      if (full) {
        size_t step = std::max<size_t>(1, whole.size() / 2000);
        for (size_t c = 0; c < whole.size(); c += step) cuts.push_back(c);
      } else {
        int count = whole.size() > 200000 ? 3 : whole.size() > 20000 ? 6 : 12;
        for (int i = 0; i < count; ++i) cuts.push_back(rng() % whole.size());
      }
      for (size_t cut : cuts) {
        std::string_view prefix = whole.substr(0, cut);
        ++prefixes;
        auto module = ParseHloModule(prefix);
        if (!module.ok()) {
          ++errors;
          EXPECT_TRUE(IsLocatedError(module.status()))
              << path << " cut at " << cut << ":\n" << module.status().message();
          continue;
        }
        ++valid_prefixes;
        char last = LastSignificantChar(prefix);
        EXPECT_TRUE(last == '}' || last == ')' || last == '"' || last == ']' ||
                    (last >= '0' && last <= '9') || (last >= 'a' && last <= 'z') ||
                    (last >= 'A' && last <= 'Z'))
            << path << " cut at " << cut << " parsed";
        absl::Status verified = VerifyModule(**module);
        (void)verified;  // may fail; must not crash
      }
    }
  }
  std::printf("truncation: %lld prefixes, %lld errors, %lld complete prefixes that parse\n",
              static_cast<long long>(prefixes), static_cast<long long>(errors),
              static_cast<long long>(valid_prefixes));
}

}  // namespace
}  // namespace hlovm
