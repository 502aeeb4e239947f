// Runs the verifier over the real HLO text in the shared corpus: every module
// XLA's parser tests verify (xla-parse/valid with parse_api=verified, at the
// manifest's replica_count), every model dump in corpus/models and every
// conformance case must parse and verify. Exceptions are printed with their
// reason; each folder has a floor on the pass count that is only ever raised.
//
// The shared root is $HLOVM_SHARED (default ../shared, relative to the source
// tree where ctest runs); the tests skip when it is absent.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontend/parser.h"
#include "frontend/verifier.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace {

namespace fs = std::filesystem;

// Floors: the number of files that must verify. Raise them as the verifier
// (or the parser) improves; never lower them.
constexpr int kMinValidVerified = 236;
constexpr int kMinModels = 35;
constexpr int kMinConformance = 1374;
// xla-parse/valid/files: XLA's standalone test files (split at `// -----`).
// Not all of them are meant to verify (some are pass inputs that are invalid
// on purpose, or only parse); the floor counts the chunks that do. (One
// chunk of hlo_to_mhlo's while.hlo broadcasts f32[1] to f32[3], which XLA's
// verifier refuses as the verifier here does: broadcast keeps operand sizes.)
constexpr int kMinFilesChunks = 753;

fs::path SharedRoot() {
  const char* env = std::getenv("HLOVM_SHARED");
  if (env != nullptr) return env;
  if (fs::exists("../shared")) return "../shared";
  return "/work/shared";
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Outcome {
  int passed = 0;
  std::vector<std::string> exceptions;  // "file: reason"
};

// Parses and verifies one file; records an exception on failure. XLA's own
// test modules are verified as XLA's tests verify them (mixed precision
// allowed); modules hlovm runs, with hlovm's defaults.
void Check(const fs::path& path, std::optional<int64_t> replica_count, Outcome* out,
           bool xla_test_module = false) {
  const std::string text = ReadFile(path);
  ParseOptions parse_options;
  parse_options.file_name = path.filename().string();
  parse_options.keep_source = true;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, parse_options);
  if (!module.ok()) {
    out->exceptions.push_back(absl::StrCat("[parse] ", module.status().message()));
    return;
  }
  VerifyOptions options;
  options.replica_count = replica_count;
  options.allow_unbounded_dynamic = true;  // as XLA's verifier
  options.allow_mixed_precision = xla_test_module;
  absl::Status status = VerifyModule(**module, options);
  if (!status.ok()) {
    out->exceptions.push_back(std::string(status.message()));
    return;
  }
  ++out->passed;
}

void Print(const std::string& folder, const Outcome& o) {
  std::cout << folder << ": " << o.passed << " verified, " << o.exceptions.size()
            << " exception(s)\n";
  for (const std::string& e : o.exceptions) {
    // First line (location and message) plus the source line and caret.
    std::cout << "  " << e.substr(0, 600) << "\n";
  }
}

// One case of xla-parse/valid/manifest.json (the fields this test needs).
struct ManifestCase {
  std::string file;
  std::string parse_api;
  int64_t replica_count = 1;
};

// Pulls `"key": "value"` or `"key": number` out of a flat JSON object text.
std::string JsonField(std::string_view object, std::string_view key) {
  std::string needle(1, '"');
  needle.append(key.data(), key.size());
  needle.append("\":");
  size_t p = object.find(needle);
  if (p == std::string_view::npos) return "";
  p += needle.size();
  while (p < object.size() && object[p] == ' ') ++p;
  if (p < object.size() && object[p] == '"') {
    size_t end = p + 1;
    while (end < object.size() && object[end] != '"') end += object[end] == '\\' ? 2 : 1;
    return std::string(object.substr(p + 1, end - p - 1));
  }
  size_t end = p;
  while (end < object.size() && object[end] != ',' && object[end] != '}' &&
         object[end] != '\n') {
    ++end;
  }
  return std::string(object.substr(p, end - p));
}

// Splits the manifest's "cases" array into its objects (string-aware).
std::vector<ManifestCase> ReadManifest(const fs::path& path) {
  const std::string text = ReadFile(path);
  std::vector<ManifestCase> cases;
  size_t start = text.find("\"cases\"");
  if (start == std::string::npos) return cases;
  int depth = 0;
  bool in_string = false;
  size_t object_start = 0;
  for (size_t i = start; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      if (depth++ == 0) object_start = i;
    } else if (c == '}') {
      if (--depth == 0) {
        std::string_view object(text.data() + object_start, i + 1 - object_start);
        ManifestCase mc;
        mc.file = JsonField(object, "file");
        mc.parse_api = JsonField(object, "parse_api");
        const std::string rc = JsonField(object, "replica_count");
        if (!rc.empty()) mc.replica_count = std::atoll(rc.c_str());
        cases.push_back(mc);
      }
    } else if (c == ']' && depth == 0) {
      break;
    }
  }
  return cases;
}

std::vector<fs::path> HloFiles(const fs::path& dir, bool recursive) {
  std::vector<fs::path> files;
  if (!fs::exists(dir)) return files;
  auto add = [&](const fs::directory_entry& e) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.size() > 4 && name.substr(name.size() - 4) == ".hlo" &&
        name.find(".expected.") == std::string::npos) {
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

TEST(VerifyCorpusTest, XlaParseValidVerified) {
  const fs::path dir = SharedRoot() / "corpus/xla-parse/valid";
  if (!fs::exists(dir / "manifest.json")) GTEST_SKIP() << "no corpus at " << dir;
  Outcome o;
  int total = 0;
  for (const ManifestCase& mc : ReadManifest(dir / "manifest.json")) {
    if (mc.parse_api != "verified") continue;
    ++total;
    Check(dir / mc.file, mc.replica_count, &o, /*xla_test_module=*/true);
  }
  Print("xla-parse/valid (parse_api=verified)", o);
  EXPECT_GT(total, 0);
  EXPECT_GE(o.passed, kMinValidVerified);
}

TEST(VerifyCorpusTest, Models) {
  const fs::path dir = SharedRoot() / "corpus/models";
  if (!fs::exists(dir)) GTEST_SKIP() << "no corpus at " << dir;
  Outcome o;
  for (const fs::path& f : HloFiles(dir, /*recursive=*/false)) Check(f, std::nullopt, &o);
  Print("models", o);
  EXPECT_GE(o.passed, kMinModels);
}

TEST(VerifyCorpusTest, Conformance) {
  const fs::path dir = SharedRoot() / "conformance";
  if (!fs::exists(dir)) GTEST_SKIP() << "no conformance cases at " << dir;
  Outcome o;
  for (const fs::path& f : HloFiles(dir, /*recursive=*/true)) Check(f, std::nullopt, &o);
  Print("conformance", o);
  EXPECT_GE(o.passed, kMinConformance);
}

// True for opcodes whose result dimensions are read from the declared shape
// (so a changed declared shape is not a mismatch at the instruction itself).
bool DimensionsAreDeclared(HloOpcode op) {
  switch (op) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kDynamicReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kIota:
    case HloOpcode::kShuffle:
    case HloOpcode::kScan:
    case HloOpcode::kRng:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kRngGetAndUpdateState:
    case HloOpcode::kCustomCall:
    case HloOpcode::kRecv:
    case HloOpcode::kInfeed:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectivePermuteStart:
      return true;
    default:
      return false;
  }
}

// Takes verified modules, grows one dimension of one instruction's declared
// shape at a time, and checks that the verifier then reports that very
// instruction (sampled: up to 25 instructions per module).
TEST(VerifyCorpusTest, ChangedShapesAreReported) {
  const fs::path root = SharedRoot() / "corpus";
  if (!fs::exists(root)) GTEST_SKIP() << "no corpus at " << root;
  std::vector<std::pair<fs::path, int64_t>> files;
  for (const ManifestCase& mc : ReadManifest(root / "xla-parse/valid/manifest.json")) {
    if (mc.parse_api == "verified") {
      files.push_back({root / "xla-parse/valid" / mc.file, mc.replica_count});
    }
  }
  for (const fs::path& f : HloFiles(root / "models", false)) files.push_back({f, 1});
  std::mt19937_64 rng(7);
  int mutations = 0;
  std::vector<std::string> missed;
  for (const auto& [path, replicas] : files) {
    const std::string text = ReadFile(path);
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    if (!module.ok()) continue;
    VerifyOptions options;
    options.replica_count = replicas;
    options.allow_unbounded_dynamic = true;
    options.allow_mixed_precision = true;  // XLA's test modules among them
    if (!VerifyModule(**module, options).ok()) continue;
    std::vector<HloInstruction*> candidates;
    for (const auto& c : (*module)->computations()) {
      for (const auto& i : c->instructions()) {
        const Shape& s = i->shape();
        if (DimensionsAreDeclared(i->opcode()) || !s.IsArray() || s.rank() == 0 ||
            s.dimensions(0) < 0) {
          continue;
        }
        candidates.push_back(i.get());
      }
    }
    std::shuffle(candidates.begin(), candidates.end(), rng);
    if (candidates.size() > 25) candidates.resize(25);
    for (HloInstruction* instr : candidates) {
      const int64_t old = instr->shape().dimensions(0);
      instr->mutable_shape()->set_dimension(0, old + 1);
      absl::Status status = VerifyModule(**module, options);
      instr->mutable_shape()->set_dimension(0, old);
      ++mutations;
      const std::string subject = absl::StrCat("%", instr->name(), " (");
      if (status.ok() || std::string(status.message()).find(subject) == std::string::npos) {
        missed.push_back(absl::StrCat(path.filename().string(), ": ", subject,
                                      std::string(HloOpcodeName(instr->opcode())), ")"));
      }
    }
  }
  std::cout << mutations << " changed shapes, " << missed.size() << " not reported\n";
  for (const std::string& m : missed) std::cout << "  " << m << "\n";
  EXPECT_GE(mutations, 800);
  EXPECT_TRUE(missed.empty());
}

// Random small vector of dimension-like values, some out of range.
std::vector<int64_t> RandomDims(std::mt19937_64& rng) {
  std::vector<int64_t> v(rng() % 4);
  for (int64_t& x : v) x = static_cast<int64_t>(rng() % 8) - 2;
  return v;
}

// Scrambles attributes, operands and shapes of verified modules at random
// and verifies after each change: any status is fine, a crash or sanitizer
// report is not (run this binary in the sanitizer build).
TEST(VerifyCorpusTest, RandomChangesNeverCrash) {
  const fs::path dir = SharedRoot() / "corpus/xla-parse/valid";
  if (!fs::exists(dir / "manifest.json")) GTEST_SKIP() << "no corpus at " << dir;
  std::mt19937_64 rng(99);
  int changes = 0, rejected = 0;
  for (const ManifestCase& mc : ReadManifest(dir / "manifest.json")) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(ReadFile(dir / mc.file));
    if (!module.ok()) continue;
    std::vector<HloInstruction*> all;
    for (const auto& c : (*module)->computations()) {
      for (const auto& i : c->instructions()) all.push_back(i.get());
    }
    if (all.empty()) continue;
    for (int round = 0; round < 30; ++round) {
      HloInstruction* instr = all[rng() % all.size()];
      switch (rng() % 12) {
        case 0: instr->dimensions = RandomDims(rng); break;
        case 1: instr->tuple_index = static_cast<int64_t>(rng() % 6) - 1; break;
        case 2:
          if (instr->operand_count() > 0) {
            // May create cycles or cross-computation operands.
            instr->ReplaceOperand(rng() % instr->operand_count(), all[rng() % all.size()]);
          }
          break;
        case 3:
          if (instr->shape().IsArray() && instr->shape().rank() > 0) {
            instr->mutable_shape()->set_dimension(rng() % instr->shape().rank(),
                                                  static_cast<int64_t>(rng() % 9) - 1);
          }
          break;
        case 4:
          instr->iota_dimension = static_cast<int64_t>(rng() % 5) - 1;
          instr->mutable_attrs().feature_index = static_cast<int64_t>(rng() % 5) - 1;
          instr->mutable_attrs().k = static_cast<int64_t>(rng() % 5) - 1;
          break;
        case 5:
          instr->mutable_attrs().dynamic_slice_sizes = RandomDims(rng);
          instr->mutable_attrs().gather_slice_sizes = RandomDims(rng);
          instr->mutable_attrs().fft_length = RandomDims(rng);
          break;
        case 6:
          if (instr->attrs().gather_dimension_numbers.has_value()) {
            auto& g = *instr->mutable_attrs().gather_dimension_numbers;
            g.offset_dims = RandomDims(rng);
            g.start_index_map = RandomDims(rng);
            g.operand_batching_dims = RandomDims(rng);
            g.index_vector_dim = static_cast<int64_t>(rng() % 5) - 1;
          }
          if (instr->attrs().scatter_dimension_numbers.has_value()) {
            auto& d = *instr->mutable_attrs().scatter_dimension_numbers;
            d.update_window_dims = RandomDims(rng);
            d.inserted_window_dims = RandomDims(rng);
            d.scatter_indices_batching_dims = RandomDims(rng);
            d.index_vector_dim = static_cast<int64_t>(rng() % 5) - 1;
          }
          break;
        case 7:
          if (instr->attrs().dot_dimension_numbers.has_value()) {
            auto& d = *instr->mutable_attrs().dot_dimension_numbers;
            d.lhs_contracting_dimensions = RandomDims(rng);
            d.rhs_batch_dimensions = RandomDims(rng);
          }
          if (instr->attrs().convolution_dimension_numbers.has_value()) {
            auto& d = *instr->mutable_attrs().convolution_dimension_numbers;
            d.input_spatial_dimensions = RandomDims(rng);
            d.kernel_output_feature_dimension = static_cast<int64_t>(rng() % 6) - 1;
            d.output_batch_dimension = static_cast<int64_t>(rng() % 6) - 1;
          }
          break;
        case 8:
          if (instr->attrs().window.has_value() && !instr->attrs().window->empty()) {
            WindowDimension& w =
                (*instr->mutable_attrs().window)[rng() % instr->mutable_attrs().window->size()];
            w.size = static_cast<int64_t>(rng() % 5) - 1;
            w.stride = static_cast<int64_t>(rng() % 4) - 1;
            w.padding_low = static_cast<int64_t>(rng() % 7) - 3;
            w.base_dilation = static_cast<int64_t>(rng() % 3);
          } else if (rng() % 2 == 0) {
            instr->mutable_attrs().window = Window(rng() % 3);
          }
          break;
        case 9:
          if (instr->slice.has_value()) {
            instr->slice->starts = RandomDims(rng);
            instr->slice->limits = RandomDims(rng);
            instr->slice->strides = RandomDims(rng);
          }
          if (instr->attrs().padding.has_value() && !instr->attrs().padding->empty()) {
            (*instr->mutable_attrs().padding)[0].interior = static_cast<int64_t>(rng() % 5) - 2;
            (*instr->mutable_attrs().padding)[0].low = INT64_MAX - static_cast<int64_t>(rng() % 3);
          }
          break;
        case 10:
          if (instr->attrs().replica_groups.has_value()) {
            instr->mutable_attrs().replica_groups->groups = {RandomDims(rng), RandomDims(rng)};
          }
          instr->mutable_attrs().source_target_pairs = {{static_cast<int64_t>(rng() % 4) - 1, 0},
                                                        {0, 1}};
          instr->mutable_attrs().split_dimension = static_cast<int64_t>(rng() % 5) - 1;
          break;
        case 11:
          if (!instr->called_computations().empty() && (*module)->entry() != nullptr) {
            // Call something else (possibly the entry, possibly itself).
            const auto& comps = (*module)->computations();
            instr->AppendCalledComputation(comps[rng() % comps.size()].get());
          }
          break;
      }
      ++changes;
      if (!VerifyModule(**module).ok()) ++rejected;
    }
  }
  std::cout << changes << " random changes verified, " << rejected << " rejected\n";
  EXPECT_GT(changes, 1000);
}

TEST(VerifyCorpusTest, XlaParseValidFiles) {
  const fs::path dir = SharedRoot() / "corpus/xla-parse/valid/files";
  if (!fs::exists(dir)) GTEST_SKIP() << "no corpus at " << dir;
  Outcome o;
  int parse_failures = 0;
  for (const fs::path& f : HloFiles(dir, /*recursive=*/true)) {
    const std::string text = ReadFile(f);
    for (const TextChunk& chunk : SplitInputFile(text)) {
      if (IsBlankText(chunk.text)) continue;
      ParseOptions parse_options;
      parse_options.file_name = f.filename().string();
      parse_options.first_line = chunk.first_line;
      parse_options.keep_source = true;
      absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(chunk.text, parse_options);
      if (!module.ok()) {
        ++parse_failures;
        continue;
      }
      VerifyOptions options;
      options.allow_unbounded_dynamic = true;  // as XLA's verifier
      options.allow_mixed_precision = true;    // as XLA's tests
      absl::Status status = VerifyModule(**module, options);
      if (status.ok()) {
        ++o.passed;
      } else {
        o.exceptions.push_back(std::string(status.message()));
      }
    }
  }
  std::cout << "xla-parse/valid/files: " << parse_failures << " chunk(s) did not parse\n";
  Print("xla-parse/valid/files (chunks)", o);
  EXPECT_GE(o.passed, kMinFilesChunks);
}

}  // namespace
}  // namespace hlovm
