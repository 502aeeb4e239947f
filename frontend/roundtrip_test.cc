// Round-trip tests over the shared corpus:
//  - parse(print(m)) gives the same IR as m for every module that parses;
//  - for XLA's parser round-trip cases, print(parse(text)) under the print
//    options the case names equals what XLA printed (the input itself, or the
//    .expected.hlo file).
// The corpus lives outside the repository (HLOVM_SHARED_DIR, default
// /work/shared); the tests skip when it is absent.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontend/parser.h"
#include "frontend/printer.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace {

namespace fs = std::filesystem;

std::string SharedDir() {
  const char* dir = std::getenv("HLOVM_SHARED_DIR");
  return dir != nullptr ? dir : "/work/shared";
}

bool ReadFile(const fs::path& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  *text = buffer.str();
  return true;
}

std::vector<fs::path> HloFiles(const fs::path& dir, bool recursive) {
  std::vector<fs::path> files;
  if (!fs::exists(dir)) return files;
  auto consider = [&](const fs::directory_entry& e) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.size() > 4 && name.substr(name.size() - 4) == ".hlo" &&
        name.find(".expected.") == std::string::npos) {
      files.push_back(e.path());
    }
  };
  if (recursive) {
    for (const auto& e : fs::recursive_directory_iterator(dir)) consider(e);
  } else {
    for (const auto& e : fs::directory_iterator(dir)) consider(e);
  }
  std::sort(files.begin(), files.end());
  return files;
}

//===--- IR comparison ----------------------------------------------------===//

std::string Ints(const std::vector<int64_t>& v) { return absl::StrJoin(v, ","); }

// Every typed attribute field, as text, so that two instructions can be
// compared field by field.
std::string TypedFields(const HloInstruction& i) {
  std::string s;
  absl::StrAppend(&s, "pn=", i.parameter_number, " ti=", i.tuple_index,
                  " dims=", Ints(i.dimensions), " iota=", i.iota_dimension,
                  " dss=", Ints(i.attrs().dynamic_slice_sizes));
  if (i.slice) {
    absl::StrAppend(&s, " slice=", Ints(i.slice->starts), ":", Ints(i.slice->limits), ":",
                    Ints(i.slice->strides));
  }
  if (i.attrs().window) {
    s += " window=";
    for (const WindowDimension& d : *i.attrs().window) {
      absl::StrAppend(&s, d.size, "/", d.stride, "/", d.padding_low, "/", d.padding_high, "/",
                      d.window_dilation, "/", d.base_dilation, "/", d.window_reversal, ";");
    }
  }
  if (i.attrs().padding) {
    s += " padding=";
    for (const PaddingDimension& d : *i.attrs().padding)
      absl::StrAppend(&s, d.low, "_", d.high, "_", d.interior, ";");
  }
  if (i.attrs().convolution_dimension_numbers) {
    const auto& d = *i.attrs().convolution_dimension_numbers;
    absl::StrAppend(&s, " conv=", d.input_batch_dimension, d.input_feature_dimension, "/",
                    Ints(d.input_spatial_dimensions), "/", d.kernel_input_feature_dimension,
                    d.kernel_output_feature_dimension, "/", Ints(d.kernel_spatial_dimensions), "/",
                    d.output_batch_dimension, d.output_feature_dimension, "/",
                    Ints(d.output_spatial_dimensions));
  }
  absl::StrAppend(&s, " fgc=", i.attrs().feature_group_count, " bgc=", i.attrs().batch_group_count);
  if (i.attrs().dot_dimension_numbers) {
    const auto& d = *i.attrs().dot_dimension_numbers;
    absl::StrAppend(&s, " dot=", Ints(d.lhs_batch_dimensions), "/", Ints(d.rhs_batch_dimensions),
                    "/", Ints(d.lhs_contracting_dimensions), "/",
                    Ints(d.rhs_contracting_dimensions), "/", Ints(d.lhs_ragged_dimensions), "/",
                    Ints(d.rhs_group_dimensions));
  }
  absl::StrAppend(&s, " prec=", absl::StrJoin(i.attrs().operand_precision, ","));
  if (i.attrs().gather_dimension_numbers) {
    const auto& g = *i.attrs().gather_dimension_numbers;
    absl::StrAppend(&s, " gather=", Ints(g.offset_dims), "/", Ints(g.collapsed_slice_dims), "/",
                    Ints(g.start_index_map), "/", Ints(g.operand_batching_dims), "/",
                    Ints(g.start_indices_batching_dims), "/", g.index_vector_dim);
  }
  absl::StrAppend(&s, " gss=", Ints(i.attrs().gather_slice_sizes));
  if (i.attrs().scatter_dimension_numbers) {
    const auto& g = *i.attrs().scatter_dimension_numbers;
    absl::StrAppend(&s, " scatter=", Ints(g.update_window_dims), "/", Ints(g.inserted_window_dims),
                    "/", Ints(g.scatter_dims_to_operand_dims), "/", Ints(g.input_batching_dims),
                    "/", Ints(g.scatter_indices_batching_dims), "/", g.index_vector_dim);
  }
  absl::StrAppend(
      &s, " sorted=", i.attrs().indices_are_sorted, " unique=", i.attrs().unique_indices,
      " dir=", static_cast<int>(i.comparison_direction),
      " ctype=", static_cast<int>(i.comparison_type),
      " dist=", static_cast<int>(i.attrs().distribution),
      " alg=", static_cast<int>(i.attrs().rng_algorithm), " eb=", i.attrs().exponent_bits,
      " mb=", i.attrs().mantissa_bits, " fft=", static_cast<int>(i.attrs().fft_type),
      " fftlen=", Ints(i.attrs().fft_length), " stable=", i.attrs().is_stable, " k=", i.attrs().k,
      " largest=", i.attrs().largest);
  // No replica_groups and an empty list both mean "all replicas".
  if (i.attrs().replica_groups &&
      (!i.attrs().replica_groups->groups.empty() || !i.attrs().replica_groups->iota_text.empty())) {
    s += " rg=";
    for (const auto& g : i.attrs().replica_groups->groups) absl::StrAppend(&s, "{", Ints(g), "}");
  }
  if (i.attrs().channel_id) absl::StrAppend(&s, " ch=", *i.attrs().channel_id);
  absl::StrAppend(&s, " ugdi=", i.attrs().use_global_device_ids, " stp=");
  for (const auto& [a, b] : i.attrs().source_target_pairs) absl::StrAppend(&s, a, ">", b, ",");
  if (i.attrs().split_dimension) absl::StrAppend(&s, " split=", *i.attrs().split_dimension);
  absl::StrAppend(&s, " cct=", i.attrs().custom_call_target,
                  " se=", i.attrs().custom_call_has_side_effect, " bc=", i.attrs().backend_config,
                  " kind=", i.attrs().fusion_kind, " ls=", i.attrs().left_side,
                  " lo=", i.attrs().lower, " ud=", i.attrs().unit_diagonal,
                  " ta=", static_cast<int>(i.attrs().transpose_a), " eps=", i.attrs().epsilon,
                  " fi=", i.attrs().feature_index, " host=", i.attrs().is_host_transfer);
  return s;
}

std::string StripPercent(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c != '%') out.push_back(c);
  }
  return out;
}

// Empty when `a` and `b` hold the same IR; otherwise the first difference.
std::string CompareModules(const HloModule& a, const HloModule& b) {
  if (a.name() != b.name()) return absl::StrCat("module name ", a.name(), " vs ", b.name());
  if (a.replica_count != b.replica_count || a.num_partitions != b.num_partitions) {
    return "replica_count/num_partitions";
  }
  for (const auto& [name, value] : a.raw_attributes) {
    if (name == "entry_computation_layout") continue;
    auto it = std::find_if(b.raw_attributes.begin(), b.raw_attributes.end(),
                           [&](const auto& p) { return p.first == name; });
    if (it == b.raw_attributes.end()) return absl::StrCat("header attribute ", name, " lost");
    if (NormalizeAttributeValue(value) != NormalizeAttributeValue(it->second)) {
      return absl::StrCat("header attribute ", name, ": ", value, " vs ", it->second);
    }
  }
  if (a.entry_parameter_layouts.has_value() && b.entry_parameter_layouts.has_value()) {
    if (a.entry_parameter_layouts->size() != b.entry_parameter_layouts->size())
      return "entry layout";
    for (size_t i = 0; i < a.entry_parameter_layouts->size(); ++i) {
      if (PrintShape((*a.entry_parameter_layouts)[i]) !=
          PrintShape((*b.entry_parameter_layouts)[i])) {
        return "entry parameter layout";
      }
    }
  }
  if ((a.entry() == nullptr) != (b.entry() == nullptr) ||
      (a.entry() != nullptr && a.entry()->name() != b.entry()->name())) {
    return "entry computation";
  }
  // Computations are matched by name (the printer writes them in post
  // order). Those wrapped by async ops may come back under a new name when
  // printed in the `op-start` shorthand; they are compared through the async
  // ops that call them.
  auto async_wrapped = [](const HloModule& m) {
    std::set<const HloComputation*> wrapped;
    for (const auto& c : m.computations()) {
      if (c->is_async_wrapped) wrapped.insert(c.get());
      for (const auto& instr : c->instructions()) {
        HloOpcode op = instr->opcode();
        if (op == HloOpcode::kAsyncStart || op == HloOpcode::kAsyncUpdate ||
            op == HloOpcode::kAsyncDone) {
          for (const HloComputation* callee : instr->called_computations()) wrapped.insert(callee);
        }
      }
    }
    return wrapped;
  };
  const std::set<const HloComputation*> wrapped_a = async_wrapped(a), wrapped_b = async_wrapped(b);
  if (a.computations().size() - wrapped_a.size() != b.computations().size() - wrapped_b.size()) {
    return absl::StrCat("computation count ", a.computations().size(), " vs ",
                        b.computations().size());
  }
  for (size_t ci = 0; ci < a.computations().size(); ++ci) {
    const HloComputation& ca = *a.computations()[ci];
    const HloComputation* found = b.FindComputation(ca.name());
    const std::string where = absl::StrCat("computation ", ca.name(), ": ");
    if (wrapped_a.contains(&ca)) continue;
    if (found == nullptr) return where + "missing after reprint";
    const HloComputation& cb = *found;
    if (ca.is_entry() != cb.is_entry()) return where + "is_entry";
    if (ca.execution_thread != cb.execution_thread) return where + "execution_thread";
    if (ca.instruction_count() != cb.instruction_count()) {
      return absl::StrCat(where, "instruction count ", ca.instruction_count(), " vs ",
                          cb.instruction_count());
    }
    if ((ca.root() == nullptr) != (cb.root() == nullptr) ||
        (ca.root() != nullptr && ca.root()->name() != cb.root()->name())) {
      return where + "root";
    }
    // The printer writes instructions in post order, so they are matched by
    // name, not position.
    std::map<std::string, const HloInstruction*> by_name;
    for (const auto& instr : cb.instructions()) by_name[instr->name()] = instr.get();
    for (int64_t ii = 0; ii < ca.instruction_count(); ++ii) {
      const HloInstruction& ia = *ca.instructions()[ii];
      const std::string at = absl::StrCat(where, "instruction ", ia.name(), ": ");
      auto found = by_name.find(ia.name());
      if (found == by_name.end()) return at + "missing after reprint";
      const HloInstruction& ib = *found->second;
      if (ia.opcode() != ib.opcode()) return at + "opcode";
      if (PrintShape(ia.shape()) != PrintShape(ib.shape())) {
        return absl::StrCat(at, "shape ", PrintShape(ia.shape()), " vs ", PrintShape(ib.shape()));
      }
      if (ia.operand_count() != ib.operand_count()) return at + "operand count";
      for (int64_t k = 0; k < ia.operand_count(); ++k) {
        if (ia.operand(k)->name() != ib.operand(k)->name()) return absl::StrCat(at, "operand ", k);
      }
      if (ia.called_computations().size() != ib.called_computations().size())
        return at + "called count";
      for (size_t k = 0; k < ia.called_computations().size(); ++k) {
        const HloComputation* ka = ia.called_computations()[k];
        const HloComputation* kb = ib.called_computations()[k];
        if (wrapped_a.contains(ka) && wrapped_b.contains(kb)) {
          // Compare what the async op wraps.
          const HloInstruction* ra = ka->root();
          const HloInstruction* rb = kb->root();
          if ((ra == nullptr) != (rb == nullptr) ||
              (ra != nullptr && (ra->opcode() != rb->opcode() ||
                                 PrintShape(ra->shape()) != PrintShape(rb->shape()) ||
                                 TypedFields(*ra) != TypedFields(*rb)))) {
            return absl::StrCat(at, "wrapped computation ", k);
          }
          continue;
        }
        if (ka->name() != kb->name()) return absl::StrCat(at, "called computation ", k);
      }
      if (ia.control_predecessors().size() != ib.control_predecessors().size()) {
        return at + "control predecessors";
      }
      for (size_t k = 0; k < ia.control_predecessors().size(); ++k) {
        if (ia.control_predecessors()[k]->name() != ib.control_predecessors()[k]->name()) {
          return at + "control predecessor";
        }
      }
      if (std::string ta = TypedFields(ia), tb = TypedFields(ib); ta != tb) {
        size_t d = 0;
        while (d < ta.size() && d < tb.size() && ta[d] == tb[d]) ++d;
        size_t from = d > 40 ? d - 40 : 0;
        return absl::StrCat(at, "typed fields differ: ...", ta.substr(from, 120), " vs ...",
                            tb.substr(from, 120));
      }
      if (ia.literal.has_value() != ib.literal.has_value()) return at + "literal presence";
      if (ia.literal.has_value()) {
        if (ia.literal->elided() != ib.literal->elided()) return at + "literal elided";
        if (!ia.literal->elided() && !ia.literal->BitwiseEqual(*ib.literal)) {
          return absl::StrCat(at, "literal ", ia.literal->ValueToString(), " vs ",
                              ib.literal->ValueToString());
        }
      }
      // Attributes as written must come back with the same value.
      const bool async = ia.opcode() == HloOpcode::kAsyncStart ||
                         ia.opcode() == HloOpcode::kAsyncUpdate ||
                         ia.opcode() == HloOpcode::kAsyncDone;
      for (const auto& [name, value] : ia.raw_attributes()) {
        if (name == "control-predecessors") continue;
        // `calls` of an async op is implied by the shorthand form.
        if (async && name == "calls") continue;
        // A body written inline comes back as a reference to the computation
        // it became (compared above).
        if ((name == "to_apply" || name == "calls" || name == "condition" || name == "body" ||
             name == "branch_computations" || name == "true_computation" ||
             name == "false_computation" || name == "select" || name == "scatter" ||
             name == "called_computations") &&
            value.find_first_of("=(") != std::string_view::npos) {
          continue;
        }
        const std::optional<std::string_view> other = ib.FindRawAttribute(name);
        if (!other.has_value()) return absl::StrCat(at, "attribute ", std::string(name), " lost");
        std::string va = NormalizeAttributeValue(value), vb = NormalizeAttributeValue(*other);
        if (StripPercent(va) != StripPercent(vb)) {
          return absl::StrCat(at, "attribute ", std::string(name), ": ", va, " vs ", vb);
        }
      }
    }
  }
  return "";
}

//===--- Tests ------------------------------------------------------------===//

struct Counts {
  int total = 0, parse_failed = 0, reparse_failed = 0, differ = 0, same = 0;
  std::vector<std::string> failures, parse_failures;
};

void ReprintOne(std::string_view text, const std::string& label, Counts& counts) {
  ++counts.total;
  auto module = ParseHloModule(text);
  if (!module.ok()) {
    ++counts.parse_failed;
    counts.parse_failures.push_back(label);
    return;
  }
  const std::string printed = PrintModule(**module, PrintOptions::Long());
  auto again = ParseHloModule(printed);
  if (!again.ok()) {
    ++counts.reparse_failed;
    counts.failures.push_back(absl::StrCat(label, ": reprint does not parse: ",
                                           std::string(again.status().message()).substr(0, 300)));
    return;
  }
  std::string diff = CompareModules(**module, **again);
  if (diff.empty()) {
    // Printing is a fixed point: the reprint prints the same text again.
    std::string reprinted = PrintModule(**again, PrintOptions::Long());
    if (reprinted != printed) {
      size_t d = 0;
      while (d < printed.size() && d < reprinted.size() && printed[d] == reprinted[d]) ++d;
      size_t from = d > 60 ? d - 60 : 0;
      diff = absl::StrCat("second print differs: ...", printed.substr(from, 160), " vs ...",
                          reprinted.substr(from, 160));
    }
  }
  if (!diff.empty()) {
    ++counts.differ;
    counts.failures.push_back(absl::StrCat(label, ": ", diff.substr(0, 400)));
    return;
  }
  ++counts.same;
}

void ReprintFiles(const std::vector<fs::path>& files, Counts& counts) {
  for (const fs::path& path : files) {
    std::string text;
    if (!ReadFile(path, &text)) continue;
    std::vector<TextChunk> chunks = SplitInputFile(text);
    for (size_t c = 0; c < chunks.size(); ++c) {
      if (IsBlankText(chunks[c].text)) continue;
      std::string label = path.string();
      if (chunks.size() > 1) absl::StrAppend(&label, "#", c);
      ReprintOne(chunks[c].text, label, counts);
    }
  }
}

void Report(const char* what, const Counts& counts) {
  std::printf("%s: %d modules, %d parse failures (not counted), %d reprinted to the same IR, "
              "%d differ, %d reprints do not parse\n",
              what, counts.total, counts.parse_failed, counts.same, counts.differ,
              counts.reparse_failed);
  for (size_t i = 0; i < counts.failures.size() && i < 100; ++i) {
    std::printf("  %s\n", counts.failures[i].c_str());
  }
  for (size_t i = 0; i < counts.parse_failures.size() && i < 100; ++i) {
    std::printf("  does not parse: %s\n", counts.parse_failures[i].c_str());
  }
}

TEST(RoundTripTest, XlaParseValidReprintsToSameIr) {
  fs::path dir = fs::path(SharedDir()) / "corpus/xla-parse/valid";
  if (!fs::exists(dir)) GTEST_SKIP() << "no corpus at " << dir;
  Counts counts;
  ReprintFiles(HloFiles(dir, /*recursive=*/false), counts);
  ReprintFiles(HloFiles(dir / "files", /*recursive=*/true), counts);
  Report("xla-parse/valid", counts);
  EXPECT_EQ(counts.differ + counts.reparse_failed, 0);
}

TEST(RoundTripTest, ModelsReprintToSameIr) {
  fs::path dir = fs::path(SharedDir()) / "corpus/models";
  if (!fs::exists(dir)) GTEST_SKIP() << "no corpus at " << dir;
  Counts counts;
  ReprintFiles(HloFiles(dir, /*recursive=*/false), counts);
  Report("models", counts);
  EXPECT_EQ(counts.differ + counts.reparse_failed, 0);
}

TEST(RoundTripTest, ConformanceReprintsToSameIr) {
  fs::path dir = fs::path(SharedDir()) / "conformance";
  if (!fs::exists(dir)) GTEST_SKIP() << "no conformance cases at " << dir;
  Counts counts;
  ReprintFiles(HloFiles(dir, /*recursive=*/true), counts);
  Report("conformance", counts);
  EXPECT_EQ(counts.differ + counts.reparse_failed, 0);
}

// One case of XLA's parser tests (from valid/manifest.json).
struct Case {
  std::string file, roundtrip, expected_file;
};

// Reads the string value of "key" in the object text starting at `from`.
std::string JsonString(const std::string& text, size_t from, size_t to, std::string_view key) {
  std::string needle = absl::StrCat("\"", std::string(key), "\": \"");
  size_t p = text.find(needle, from);
  if (p == std::string::npos || p >= to) return "";
  p += needle.size();
  std::string out;
  while (p < text.size() && text[p] != '"') {
    if (text[p] == '\\' && p + 1 < text.size()) ++p;
    out.push_back(text[p++]);
  }
  return out;
}

std::vector<Case> ReadManifest(const fs::path& path) {
  std::string text;
  std::vector<Case> cases;
  if (!ReadFile(path, &text)) return cases;
  size_t pos = text.find("\"file\": \"");
  while (pos != std::string::npos) {
    size_t next = text.find("\"file\": \"", pos + 1);
    size_t end = next == std::string::npos ? text.size() : next;
    cases.push_back({JsonString(text, pos, end, "file"), JsonString(text, pos, end, "roundtrip"),
                     JsonString(text, pos, end, "expected_file")});
    pos = next;
  }
  return cases;
}

std::string WithoutWhitespace(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (!absl::ascii_isspace(static_cast<unsigned char>(c))) out.push_back(c);
  }
  return out;
}

TEST(RoundTripTest, XlaRoundTripCasesPrintAsXla) {
  fs::path dir = fs::path(SharedDir()) / "corpus/xla-parse/valid";
  std::vector<Case> cases = ReadManifest(dir / "manifest.json");
  if (cases.empty()) GTEST_SKIP() << "no manifest at " << dir;
  int considered = 0, exact = 0, modulo_space = 0;
  std::vector<std::string> failures, space_failures;
  for (const Case& c : cases) {
    const std::string& r = c.roundtrip;
    enum { kModule, kRootInstruction } what = kModule;
    PrintOptions options;
    if (r.find("set_print_operand_shape(true).set_print_large_constants(true)") !=
        std::string::npos) {
      options = PrintOptions::Long();
    } else if (r.find("compact_gte") != std::string::npos) {
      options = PrintOptions::ShortParsable();
      options.compact_gte = true;
      options.print_operand_shape = true;
      options.print_percent = true;
    } else if (r.find("ToString(HloPrintOptions::ShortParsable())") != std::string::npos &&
               (r.rfind("exact", 0) == 0 || r.rfind("expected", 0) == 0)) {
      options = PrintOptions::ShortParsable();
    } else if (r.find("ToString(HloPrintOptions())") != std::string::npos) {
      options = PrintOptions::Default();
    } else if (r.find("root_instruction()->ToString(HloPrintOptions::Canonical())") !=
               std::string::npos) {
      options = PrintOptions::Canonical();
      what = kRootInstruction;
    } else if (r.find("Canonical().set_print_metadata(false)") != std::string::npos) {
      options = PrintOptions::Canonical();
    } else {
      continue;  // the case checks properties, not the printed text
    }
    ++considered;
    std::string input, expected;
    if (!ReadFile(dir / c.file, &input)) {
      failures.push_back(c.file + ": unreadable");
      continue;
    }
    expected = input;
    if (!c.expected_file.empty() && !ReadFile(dir / c.expected_file, &expected)) {
      failures.push_back(c.file + ": expected file unreadable");
      continue;
    }
    auto module = ParseHloModule(input);
    if (!module.ok()) {
      failures.push_back(absl::StrCat(c.file, ": does not parse: ",
                                      std::string(module.status().message()).substr(0, 200)));
      continue;
    }
    std::string printed;
    if (what == kRootInstruction) {
      const HloComputation* entry = (*module)->entry();
      if (entry == nullptr || entry->root() == nullptr) {
        failures.push_back(c.file + ": no entry root");
        continue;
      }
      printed = PrintInstruction(*entry->root(), options);
    } else {
      printed = PrintModule(**module, options);
    }
    const std::string want(absl::StripAsciiWhitespace(expected));
    const std::string got(absl::StripAsciiWhitespace(printed));
    if (got == want) {
      ++exact;
      ++modulo_space;
      continue;
    }
    const bool space_only = WithoutWhitespace(got) == WithoutWhitespace(want);
    if (space_only) ++modulo_space;
    // Show the first differing line.
    std::istringstream gs(got), ws(want);
    std::string gl, wl;
    int line = 0;
    while (true) {
      bool g = static_cast<bool>(std::getline(gs, gl));
      bool w = static_cast<bool>(std::getline(ws, wl));
      ++line;
      if (!g && !w) break;
      if (!g) gl = "<end>";
      if (!w) wl = "<end>";
      if (gl != wl) break;
    }
    (space_only ? space_failures : failures)
        .push_back(absl::StrCat(c.file, " line ", line, "\n    want: ", wl.substr(0, 300),
                                "\n    got:  ", gl.substr(0, 300)));
  }
  std::printf("XLA round-trip cases: %d considered, %d match exactly (outer whitespace stripped), "
              "%d match ignoring whitespace, %zu differ\n",
              considered, exact, modulo_space, failures.size());
  for (const std::string& f : failures) std::printf("  %s\n", f.c_str());
  std::printf("Cases that differ in whitespace only:\n");
  for (const std::string& f : space_failures) std::printf("  %s\n", f.c_str());
  EXPECT_EQ(modulo_space, considered);
}

// Instructions built in code have no attribute text: the printer writes
// their typed fields. Stripping the text from XLA's round-trip cases and
// printing again must give XLA's text back for every case whose attributes
// all have typed fields.
TEST(RoundTripTest, TypedFieldsPrintAsXla) {
  fs::path dir = fs::path(SharedDir()) / "corpus/xla-parse/valid";
  std::vector<Case> cases = ReadManifest(dir / "manifest.json");
  if (cases.empty()) GTEST_SKIP() << "no manifest at " << dir;
  int considered = 0, same = 0, skipped = 0;
  std::vector<std::string> failures;
  for (const Case& c : cases) {
    PrintOptions options;
    if (c.roundtrip.find("set_print_operand_shape(true).set_print_large_constants(true)") !=
        std::string::npos) {
      options = PrintOptions::Long();
    } else if (c.roundtrip == "exact: ToString(HloPrintOptions::ShortParsable()) == input") {
      options = PrintOptions::ShortParsable();
    } else {
      continue;
    }
    std::string input;
    if (!ReadFile(dir / c.file, &input)) continue;
    // Attributes with no typed field (kept as text only), and the async
    // thread, which the parser keeps on the wrapped instruction.
    bool untyped = false;
    for (std::string_view name : {"metadata=", "origin=", "statistics=", "frontend_attributes=",
                                  "domain=", "has_dynamic_root=", "async_execution_thread="}) {
      untyped = untyped || input.find(name) != std::string::npos;
    }
    if (untyped) {
      ++skipped;
      continue;
    }
    auto module = ParseHloModule(input);
    if (!module.ok()) continue;
    ++considered;
    for (const auto& computation : (*module)->computations()) {
      for (const auto& instr : computation->instructions()) {
        instr->raw_attributes().Clear();
        instr->set_location(SourceLocation{});
      }
    }
    const std::string got(absl::StripAsciiWhitespace(PrintModule(**module, options)));
    const std::string want(absl::StripAsciiWhitespace(input));
    if (got == want) {
      ++same;
      continue;
    }
    std::istringstream gs(got), ws(want);
    std::string gl, wl;
    while (true) {
      bool g = static_cast<bool>(std::getline(gs, gl));
      bool w = static_cast<bool>(std::getline(ws, wl));
      if (!g && !w) break;
      if (!g) gl = "<end>";
      if (!w) wl = "<end>";
      if (gl != wl) break;
    }
    failures.push_back(absl::StrCat(c.file, "\n    want: ", wl.substr(0, 400), "\n    got:  ",
                                    gl.substr(0, 400)));
  }
  std::printf("Typed printing: %d of %d XLA round-trip modules print exactly from typed fields "
              "(%d skipped: attributes without typed fields)\n",
              same, considered, skipped);
  for (const std::string& f : failures) std::printf("  %s\n", f.c_str());
  EXPECT_EQ(same, considered);
}

}  // namespace
}  // namespace hlovm
