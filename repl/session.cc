// The REPL's session (see session.h).
//
// Each instruction line is evaluated by building a small module: the bound
// values it names become parameters of an ENTRY whose ROOT is the line, the
// user's computations and the predefined reducers it calls come along, and
// the module goes through the same parser, verifier and compiler as any
// file. Errors from that module are mapped back onto the line as typed.
#include "repl/session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "core/element_type.h"
#include "core/hlo_opcode.h"
#include "core/npy.h"
#include "core/status_macros.h"
#include "core/text_cursor.h"
#include "frontend/attribute_table.h"
#include "frontend/parser.h"
#include "frontend/printer.h"
#include "frontend/verifier.h"
#include "repl/debugger.h"
#include "repl/inputs.h"
#include "repl/source_file.h"
#include "vm/api.h"
#include "vm/check_failure.h"

namespace hlovm {
namespace repl {

struct Session::Prepared {
  std::unique_ptr<Executable> exe;
  std::vector<Literal> arguments;
  std::string bind;  // empty: only `_`
};

namespace {

// Predefined reducers: name -> the binary op they apply.
constexpr std::pair<absl::string_view, absl::string_view> kReducers[] = {
    {"add", "add"},         {"multiply", "multiply"}, {"mul", "multiply"}, {"maximum", "maximum"},
    {"max", "maximum"},     {"minimum", "minimum"},   {"min", "minimum"},  {"and", "and"},
    {"or", "or"},
};

// The attribute names Tab offers: every one the parser reads (the list of
// frontend/attribute_table.h).
std::vector<std::string> AttributeNames() {
  std::vector<std::string> names;
  for (int i = 0; i < AttributeCount(); ++i) names.emplace_back(AttributeName(AttributeAt(i)));
  return names;
}

// What :help says before the commands.
constexpr absl::string_view kHelpIntro =
    R"(Type HLO and see values:
  x = f32[2,3] constant({{1,2,3},{4,5,6}})    bind a value (the shape may be left out
  y = exponential(x)                          where the op's shape rule gives it; % optional)
  s = reduce(y, f32[] constant(0)), dimensions={0,1}, to_apply=add
  exponential(x)                              print without binding (_ is the last value)
Reducers add, multiply/mul, maximum/max, minimum/min, and, or exist for every type.
Define a computation by typing it (an unclosed { or ( keeps reading), paste a module,
and call it: r = call(x, y), to_apply=my_comp.
)";

// The column where :help's descriptions start.
constexpr size_t kHelpColumn = 28;

absl::string_view Trim(absl::string_view s) {
  return absl::StripAsciiWhitespace(absl::string_view(s.data(), s.size()));
}

bool IsNameStart(char c) { return absl::ascii_isalpha(c) || c == '_'; }
// The characters of a word that Tab completes (other than a path).
bool IsWordChar(char c) {
  return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '-' || c == '%' || c == ':';
}
bool IsNameChar(char c) { return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '-'; }

// Reads a name (optionally %-prefixed) at `pos`; empty when none.
absl::string_view LexName(absl::string_view s, size_t* pos) {
  size_t p = *pos;
  if (p < s.size() && s[p] == '%') ++p;
  if (p >= s.size() || !IsNameStart(s[p])) return {};
  const size_t start = p;
  while (p < s.size() && IsNameChar(s[p])) ++p;
  *pos = p;
  return s.substr(start, p - start);
}

void SkipSpace(absl::string_view s, size_t* pos) {
  while (*pos < s.size() && absl::ascii_isspace(s[*pos])) ++*pos;
}

// Every name-like token of `text` outside strings and comments.
std::vector<std::string> Identifiers(absl::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '%' || IsNameStart(c)) {
      size_t p = i;
      absl::string_view name = LexName(text, &p);
      if (name.empty()) {
        ++i;
        continue;
      }
      out.emplace_back(name);
      i = p;
    } else if (absl::ascii_isdigit(c)) {
      while (i < text.size() && (absl::ascii_isalnum(text[i]) || text[i] == '.')) ++i;
    } else {
      ++i;
    }
  }
  return out;
}

// Maps located messages about a generated module back onto the user's input.
struct InputMap {
  int first_line = 1;  // the module's line holding the input's first line
  int shift = 0;       // columns the module adds before the input's first line
  std::vector<std::string> lines;
};

std::string MapErrors(absl::string_view message, const InputMap& map) {
  std::vector<std::string> lines = absl::StrSplit(absl::string_view(message.data(), message.size()), '\n');
  std::string out;
  int pending_shift = -1;  // for the source line and caret that follow a mapped error
  int pending_line = -1;
  int after = 0;
  for (std::string& line : lines) {
    int l = 0, c = 0;
    char rest[2];
    if (std::sscanf(line.c_str(), "repl:%d:%d:%1c", &l, &c, rest) == 3) {
      const size_t colon = line.find(':', line.find(':', 5) + 1);
      std::string text = line.substr(colon + 1);
      const int index = l - map.first_line;
      if (index >= 0 && index < static_cast<int>(map.lines.size())) {
        pending_line = index;
        pending_shift = index == 0 ? map.shift : 0;
        after = 0;
        if (map.lines.size() > 1) {
          absl::StrAppend(&out, "line ", index + 1, ":", std::max(1, c - pending_shift), ": ");
        }
      } else {
        pending_line = -1;
        after = 0;
      }
      absl::StrAppend(&out, Trim(text), "\n");
      continue;
    }
    if (pending_line >= 0 && after == 0) {
      absl::StrAppend(&out, "  ", map.lines[pending_line], "\n");
      ++after;
      continue;
    }
    if (pending_line >= 0 && after == 1 && line.find('^') != std::string::npos &&
        line.find_first_not_of(" ^~") == std::string::npos) {
      const size_t k = line.find_first_not_of(' ');
      const int col = std::max(0, static_cast<int>(k) - pending_shift);
      absl::StrAppend(&out, "  ", std::string(col, ' '), line.substr(k), "\n");
      pending_line = -1;
      continue;
    }
    pending_line = -1;
    absl::StrAppend(&out, line, "\n");
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

int CountLines(absl::string_view text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

std::string Signature(const HloComputation& c) {
  std::vector<std::string> params;
  for (const HloInstruction* p : c.parameters()) {
    params.push_back(absl::StrCat(p->name(), ": ", PrintShape(p->shape(), false)));
  }
  return absl::StrCat("%", c.name(), " (", absl::StrJoin(params, ", "), ") -> ",
                      c.root() != nullptr ? PrintShape(c.root()->shape(), false) : "?");
}

// The REPL runs programs as written: every instruction typed or loaded
// exists in the bytecode, unfused, so breakpoints, :step, :print and :dis
// see it (`hlovm run` and `hlovm bench` apply the pass pipeline and fuse).
CompileOptions ReplCompileOptions(std::string file_name) {
  CompileOptions options;
  options.file_name = std::move(file_name);
  options.passes = "none";
  options.fusion = false;
  return options;
}

double Millis(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

std::string FormatTime(double ms) {
  if (ms < 1) return absl::StrFormat("%.1f us", ms * 1e3);
  if (ms < 1000) return absl::StrFormat("%.2f ms", ms);
  return absl::StrFormat("%.3f s", ms / 1e3);
}

// Edit distance between `a` and `b`: insertions, deletions, substitutions
// and swaps of two neighbours each count one.
size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1,
                          d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// The candidate `word` was most likely meant as (a few edits away, or one it
// begins), or empty.
std::string ClosestName(absl::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(1, word.size() / 3) + 1;
  for (const std::string& c : candidates) {
    size_t d = EditDistance(word, c);
    if (word.size() >= 3 && absl::StartsWith(c, word)) d = std::min<size_t>(d, 1);
    if (d < best_distance && d < std::max<size_t>(word.size(), 1)) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

// " (did you mean %x?)" for ClosestName, or empty.
std::string DidYouMean(absl::string_view word, const std::vector<std::string>& candidates,
                       absl::string_view sigil = "") {
  const std::string best = ClosestName(word, candidates);
  return best.empty() ? "" : absl::StrCat(" (did you mean ", sigil, best, "?)");
}

std::vector<std::string> OpcodeNames() {
  std::vector<std::string> names;
  for (int i = 0; i < HloOpcodeCount(); ++i) {
    names.emplace_back(HloOpcodeName(static_cast<HloOpcode>(i)));
  }
  return names;
}

// The instruction names in a computation's text: its `[ROOT] [%]name = ...`
// lines.
void AddInstructionNames(absl::string_view text, std::vector<std::string>* out) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = Trim(line);
    if (absl::StartsWith(line, "ROOT ")) line.remove_prefix(5);
    size_t pos = 0;
    absl::string_view name = LexName(line, &pos);
    SkipSpace(line, &pos);
    if (!name.empty() && pos < line.size() && line[pos] == '=') out->emplace_back(name);
  }
}

// Skips a shape at `*pos` (`f32[2,3]{1,0}`, `(f32[], s32[])`, `token[]`);
// false when there is none.
bool SkipShape(absl::string_view s, size_t* pos) {
  size_t p = *pos;
  auto skip_group = [&](char open, char close) {
    int depth = 0;
    for (; p < s.size(); ++p) {
      if (s[p] == open) ++depth;
      if (s[p] == close && --depth == 0) {
        ++p;
        return true;
      }
    }
    return false;
  };
  if (p < s.size() && s[p] == '(') {
    if (!skip_group('(', ')')) return false;
  } else {
    absl::string_view type = LexName(s, &p);
    if (type.empty() || p >= s.size() || s[p] != '[' ||
        !ElementTypeFromName(std::string(type)).has_value()) {
      return false;
    }
    if (!skip_group('[', ']')) return false;
    if (p < s.size() && s[p] == '{' && !skip_group('{', '}')) return false;
  }
  *pos = p;
  return true;
}

// A StableHLO op typed at the prompt: `[%name[:n] =] stablehlo.op ... : types`
// (chlo ops and the generic "stablehlo.op"(...) form too).
struct StableHloLine {
  std::string bind;         // the result's name without '%' ("" for `_` only)
  int64_t results = 1;      // `%name:n = ...`
  size_t op_start = 0;      // where the op begins in the line
  std::vector<std::string> result_types;  // MLIR types of the results
};

bool IsMlirIdChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' ||
         c == '-';
}

std::optional<StableHloLine> SplitStableHloLine(absl::string_view input) {
  StableHloLine line;
  size_t p = 0;
  auto skip = [&] {
    while (p < input.size() && absl::ascii_isspace(static_cast<unsigned char>(input[p]))) ++p;
  };
  skip();
  const size_t lhs = p;
  if (p < input.size() && (input[p] == '%' || IsNameStart(input[p]))) {
    size_t q = input[p] == '%' ? p + 1 : p;
    const size_t name_start = q;
    while (q < input.size() && IsMlirIdChar(input[q])) ++q;
    std::string name(input.substr(name_start, q - name_start));
    int64_t count = 1;
    if (q < input.size() && input[q] == ':') {
      size_t d = q + 1;
      count = 0;
      while (d < input.size() && absl::ascii_isdigit(static_cast<unsigned char>(input[d])) && count < 1000) {
        count = count * 10 + (input[d++] - '0');
      }
      if (d == q + 1 || count < 1) return std::nullopt;
      q = d;
    }
    while (q < input.size() && input[q] == ' ') ++q;
    if (!name.empty() && q < input.size() && input[q] == '=' &&
        (q + 1 >= input.size() || input[q + 1] != '=')) {
      line.bind = name;
      line.results = count;
      p = q + 1;
      skip();
    } else {
      p = lhs;
    }
  }
  absl::string_view op = input.substr(p);
  if (!absl::StartsWith(op, "stablehlo.") && !absl::StartsWith(op, "chlo.") &&
      !absl::StartsWith(op, "\"stablehlo.") && !absl::StartsWith(op, "\"chlo.")) {
    return std::nullopt;
  }
  line.op_start = p;
  // The types after the last ':' outside brackets and strings; the results
  // after a top-level "->".
  int depth = 0;
  bool quoted = false;
  size_t colon = absl::string_view::npos;
  for (size_t i = p; i < input.size(); ++i) {
    const char c = input[i];
    if (c == '"' && (i == 0 || input[i - 1] != '\\')) quoted = !quoted;
    if (quoted) continue;
    if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
    if ((c == ')' || c == ']' || c == '}' || (c == '>' && input[i - 1] != '-')) && depth > 0) --depth;
    if (c == ':' && depth == 0) colon = i;
  }
  if (colon == absl::string_view::npos) return line;  // the parser names what is missing
  absl::string_view types = Trim(input.substr(colon + 1));
  if (const size_t loc = types.find(" loc("); loc != absl::string_view::npos) types = Trim(types.substr(0, loc));
  depth = 0;
  for (size_t i = 0; i + 1 < types.size(); ++i) {
    const char c = types[i];
    if (c == '(' || c == '<' || c == '[') ++depth;
    if ((c == ')' || c == ']' || (c == '>' && i > 0 && types[i - 1] != '-')) && depth > 0) --depth;
    if (depth == 0 && c == '-' && types[i + 1] == '>') {
      types = Trim(types.substr(i + 2));
      break;
    }
  }
  if (types.size() >= 2 && types.front() == '(' && types.back() == ')') {
    types = Trim(types.substr(1, types.size() - 2));
  }
  depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= types.size(); ++i) {
    const char c = i < types.size() ? types[i] : ',';
    if (c == '(' || c == '<' || c == '[') ++depth;
    if ((c == ')' || c == ']' || c == '>') && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      absl::string_view t = Trim(types.substr(start, i - start));
      if (!t.empty()) line.result_types.emplace_back(t);
      start = i + 1;
    }
  }
  // A single pretty type also names the operands' type; with several
  // results only as many as the results are the results' types.
  if (static_cast<int64_t>(line.result_types.size()) > line.results) {
    line.result_types.erase(line.result_types.begin(),
                            line.result_types.end() - line.results);
  }
  return line;
}

// The MLIR tensor type of an array shape, or "" for what a StableHLO
// function argument cannot be.
std::string MlirTensorType(const Shape& shape) {
  if (!shape.IsArray()) return "";
  const ElementType t = shape.element_type();
  std::string element;
  if (t == ElementType::kPred) {
    element = "i1";
  } else if (IsSignedInteger(t)) {
    element = absl::StrCat("i", BitWidth(t));
  } else if (IsUnsignedInteger(t)) {
    element = absl::StrCat("ui", BitWidth(t));
  } else if (t == ElementType::kF16 || t == ElementType::kBF16 || t == ElementType::kF32 ||
             t == ElementType::kF64) {
    element = std::string(ElementTypeName(t));
  } else if (t == ElementType::kC64) {
    element = "complex<f32>";
  } else if (t == ElementType::kC128) {
    element = "complex<f64>";
  } else {
    return "";
  }
  std::string out = "tensor<";
  for (int64_t d : shape.dimensions()) absl::StrAppend(&out, d, "x");
  return absl::StrCat(out, element, ">");
}

}  // namespace

bool Session::IsKnownAttribute(absl::string_view name) {
  return IsAttributeName(std::string_view(name.data(), name.size()));
}

std::vector<std::string> Session::ReducerNames() {
  std::vector<std::string> names;
  for (const auto& reducer : kReducers) names.emplace_back(reducer.first);
  return names;
}

CompileOptions Session::CompileOptionsFor(std::string file_name) const {
  CompileOptions options = ReplCompileOptions(std::move(file_name));
  options.replica_count = replicas_;
  options.num_partitions = partitions_;
  return options;
}

Session::Session(std::FILE* out) : out_(out), debugger_(std::make_unique<Debugger>()) {}

Session::~Session() { debugger_->Kill(); }

bool Session::IsComplete(absl::string_view text) {
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      if (i >= text.size()) return false;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const size_t end = text.find("*/", i + 2);
      if (end == absl::string_view::npos) return false;
      i = end + 1;
    } else if (c == '(' || c == '{' || c == '[') {
      ++depth;
    } else if (c == ')' || c == '}' || c == ']') {
      --depth;
    }
  }
  if (depth > 0) return false;
  // A pasted module goes on until its ENTRY computation is closed.
  absl::string_view trimmed = Trim(text);
  if (absl::StartsWith(trimmed, "HloModule")) {
    // A `:` command line ends it too (module text has none).
    if (absl::StrContains(trimmed, "\n:")) return true;
    return absl::StrContains(trimmed, "ENTRY") && absl::EndsWith(trimmed, "}");
  }
  return true;
}

std::string Session::Prompt() const {
  return debugger_->state() == Debugger::State::kStopped ? "(debug) hlo> " : "hlo> ";
}

bool Session::debugging() const { return debugger_->state() == Debugger::State::kStopped; }

void Session::Print(absl::string_view text) {
  std::fwrite(text.data(), 1, text.size(), out_);
  if (text.empty() || text.back() != '\n') std::fputc('\n', out_);
  std::fflush(out_);
}

void Session::Error(absl::string_view message) {
  std::string text(message);
  const std::string first_line = text.substr(0, text.find('\n'));
  if (!absl::StrContains(first_line, "error:")) text = "error: " + text;
  if (color_) {
    const size_t at = text.find("error:");
    if (at != std::string::npos) text.replace(at, 6, "\033[1;31merror:\033[0m");
  }
  Print(text);
}

bool Session::Handle(absl::string_view raw) {
  absl::string_view input = Trim(raw);
  if (input.empty() || absl::StartsWith(input, "//") || input[0] == '#') return true;
  if (input[0] == ':') return HandleCommand(input);
  if (absl::StartsWith(input, "HloModule")) return HandleModuleText(input, "input");
  // A computation: NAME {  or  NAME (params) -> shape {  (optionally ENTRY, %).
  size_t pos = 0;
  if (absl::StartsWith(input, "ENTRY") && input.size() > 5 && !IsNameChar(input[5])) pos = 5;
  SkipSpace(input, &pos);
  absl::string_view name = LexName(input, &pos);
  SkipSpace(input, &pos);
  if (!name.empty() && pos < input.size()) {
    const bool brace = input[pos] == '{';
    const size_t first_brace = input.find('{');
    const bool signature = input[pos] == '(' && !HloOpcodeFromName(std::string(name)).has_value() &&
                           input.find("->") < first_brace;
    if (brace || signature) return HandleComputation(input);
  }
  // A bare bound name prints its value.
  if (!name.empty() && pos == input.size() && values_.count(std::string(name))) {
    PrintValue("", values_.at(std::string(name)).literal, false);
    return true;
  }
  return HandleInstruction(input);
}

const Session::Computation* Session::FindComputation(absl::string_view name) const {
  for (const Computation& c : computations_) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string Session::ComputationsText(absl::string_view except) const {
  std::string text;
  for (const Computation& c : computations_) {
    if (c.name != except) absl::StrAppend(&text, c.text, "\n\n");
  }
  return text;
}

std::string Session::ReducersText(absl::string_view used_text, const std::string& type) const {
  std::string text;
  std::vector<std::string> ids = Identifiers(used_text);
  for (const auto& [name, op] : kReducers) {
    if (FindComputation(name) != nullptr) continue;
    bool used = false;
    for (size_t i = 0; i + 1 < ids.size() && !used; ++i) {
      used = (ids[i] == AttributeName(AttrId::kToApply) ||
              ids[i] == AttributeName(AttrId::kScatter)) &&
             ids[i + 1] == name;
    }
    if (!used) continue;
    absl::StrAppend(&text, "%", name, " (a: ", type, "[], b: ", type, "[]) -> ", type, "[] {\n  %a = ",
                    type, "[] parameter(0)\n  %b = ", type, "[] parameter(1)\n  ROOT %r = ", type, "[] ",
                    op, "(%a, %b)\n}\n\n");
  }
  return text;
}

//===--- Instructions -----------------------------------------------------===//

bool Session::PrepareInstruction(absl::string_view input, Prepared* prepared) {
  // A StableHLO op line becomes the one op of a StableHLO function whose
  // arguments are the bound values it names.
  if (std::optional<StableHloLine> line = SplitStableHloLine(input)) {
    const absl::string_view op = input.substr(line->op_start);
    std::vector<std::string> params;
    for (size_t i = 0; i < op.size(); ++i) {
      if (op[i] != '%') continue;
      size_t e = i + 1;
      while (e < op.size() && IsMlirIdChar(op[e])) ++e;
      std::string id(op.substr(i + 1, e - i - 1));
      if (values_.count(id) && std::find(params.begin(), params.end(), id) == params.end()) {
        params.push_back(id);
      }
      i = e - 1;
    }
    std::string args;
    for (const std::string& p : params) {
      const std::string type = MlirTensorType(values_.at(p).literal.shape());
      if (type.empty()) {
        Error(absl::StrCat("%", p, " (", PrintShape(values_.at(p).literal.shape(), false),
                           ") has no StableHLO tensor type"));
        return false;
      }
      absl::StrAppend(&args, args.empty() ? "" : ", ", "%", p, ": ", type);
    }
    const std::string types = absl::StrJoin(line->result_types, ", ");
    std::string returned;
    for (int64_t i = 0; i < line->results; ++i) {
      absl::StrAppend(&returned, i ? ", " : "", "%repl_result",
                      line->results > 1 ? absl::StrCat("#", i) : "");
    }
    const std::string prefix = absl::StrCat(
        "    %repl_result", line->results > 1 ? absl::StrCat(":", line->results) : "", " = ");
    std::string text = absl::StrCat("module @repl {\n  func.func @main(", args, ") -> (", types,
                                    ") {\n", prefix, op, "\n    return ", returned, " : ", types,
                                    "\n  }\n}\n");
    InputMap map;
    map.lines = {std::string(input)};
    map.first_line = 3;
    map.shift = static_cast<int>(prefix.size()) - static_cast<int>(line->op_start);
    ParseOptions parse_options;
    parse_options.file_name = "repl";
    parse_options.keep_source = true;
    parse_options.max_errors = 1;
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, parse_options);
    absl::Status status = module.status();
    if (module.ok()) {
      (*module)->source_text = std::make_shared<const std::string>(text);
      absl::StatusOr<std::unique_ptr<Executable>> exe =
          Executable::FromModule(std::move(*module), CompileOptionsFor("repl"));
      if (exe.ok()) {
        prepared->exe = std::move(*exe);
        prepared->bind = line->bind;
        prepared->arguments.clear();
        for (const std::string& p : params) prepared->arguments.push_back(values_.at(p).literal.Clone());
        return true;
      }
      status = exe.status();
    }
    std::string message = MapErrors(status.message(), map);
    for (size_t at; (at = message.find("%repl_result")) != std::string::npos;) {
      message.replace(at, 12, line->bind.empty() ? "the expression" : "%" + line->bind);
    }
    Error(message);
    return false;
  }
  // `name = rhs` or a bare expression.
  size_t pos = 0;
  absl::string_view name = LexName(input, &pos);
  size_t after_name = pos;
  SkipSpace(input, &after_name);
  std::string bind;
  size_t rhs_start = 0;
  if (!name.empty() && after_name < input.size() && input[after_name] == '=' &&
      (after_name + 1 >= input.size() || input[after_name + 1] != '=')) {
    bind = std::string(name);
    rhs_start = after_name + 1;
    SkipSpace(input, &rhs_start);
  }
  absl::string_view rhs = input.substr(rhs_start);
  if (rhs.empty()) {
    Error("expects an instruction after '='");
    return false;
  }

  if (!CheckOpcode(input, rhs)) return false;
  // Ops whose result shape is not a function of their operands need it written.
  {
    size_t op_end = 0;
    absl::string_view op = LexName(rhs, &op_end);
    static constexpr HloOpcode kNeedShape[] = {
        HloOpcode::kReshape, HloOpcode::kBroadcast, HloOpcode::kIota, HloOpcode::kConvert,
        HloOpcode::kBitcastConvert, HloOpcode::kBitcast, HloOpcode::kRng, HloOpcode::kCustomCall,
        HloOpcode::kConstant, HloOpcode::kParameter, HloOpcode::kDynamicReshape};
    std::optional<HloOpcode> opcode = HloOpcodeFromName(std::string(op));
    if (opcode.has_value() && !op.empty() && rhs[0] != '%' &&
        std::find(std::begin(kNeedShape), std::end(kNeedShape), *opcode) != std::end(kNeedShape)) {
      Error(absl::StrCat("the result shape of ", op, " cannot be inferred from its operands; write it: ",
                         bind.empty() ? "" : bind + " = ", "SHAPE ", op, "(...), e.g. ",
                         *opcode == HloOpcode::kReshape ? "f32[3,2] reshape(x)"
                         : *opcode == HloOpcode::kBroadcast ? "f32[4,3] broadcast(v), dimensions={1}"
                         : *opcode == HloOpcode::kIota ? "s32[5] iota(), iota_dimension=0"
                         : *opcode == HloOpcode::kConvert ? "s32[2,3] convert(x)"
                         : "f32[2] constant({1, 2})"));
      return false;
    }
  }
  // Bound values the line names become parameters.
  std::vector<std::string> params;
  std::vector<ElementType> candidate_types;
  const std::vector<std::string> ids = Identifiers(rhs);
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string& id = ids[i];
    if (std::optional<ElementType> t = ElementTypeFromName(id)) {
      // A shape written in the line: `f32[]`.
      size_t at = rhs.find(id + "[");
      if (at != absl::string_view::npos) candidate_types.push_back(*t);
    }
    if (values_.count(id) && std::find(params.begin(), params.end(), id) == params.end()) {
      params.push_back(id);
    }
  }
  for (const std::string& p : params) {
    const Shape& s = values_.at(p).literal.shape();
    if (s.IsArray()) candidate_types.push_back(s.element_type());
  }
  candidate_types.push_back(ElementType::kF32);

  std::string header = "HloModule repl\n\n";
  std::string entry = "ENTRY %repl.entry {\n";
  for (size_t i = 0; i < params.size(); ++i) {
    absl::StrAppend(&entry, "  %", params[i], " = ",
                    PrintShape(values_.at(params[i]).literal.shape(), true), " parameter(", i, ")\n");
  }
  const std::string comps = ComputationsText("");
  const std::string root_prefix = "  ROOT %repl.result = ";
  InputMap map;
  map.lines = absl::StrSplit(absl::string_view(input.data(), input.size()), '\n');
  const size_t rhs_col = rhs_start - (input.rfind('\n', rhs_start) == absl::string_view::npos
                                          ? 0
                                          : input.rfind('\n', rhs_start) + 1);
  const int rhs_line = CountLines(input.substr(0, rhs_start));
  // The input's lines before the rhs (a name on its own line) are not in the module.
  map.lines.erase(map.lines.begin(), map.lines.begin() + rhs_line);

  absl::Status first_error;
  bool tried_placeholder = false;
  for (size_t attempt = 0; attempt < candidate_types.size(); ++attempt) {
    const std::string type(ElementTypeName(candidate_types[attempt]));
    const std::string reducers = ReducersText(rhs, type);
    if (attempt > 0 && reducers.empty()) break;  // the type only matters to reducers
    for (int placeholder = 0; placeholder < 2; ++placeholder) {
      if (placeholder == 1 && !tried_placeholder) break;
      const std::string filler = placeholder ? "f32[] " : "";
      std::string text = header + comps + reducers + entry;
      map.first_line = CountLines(text) + 1;
      map.shift = static_cast<int>(root_prefix.size() + filler.size()) - static_cast<int>(rhs_col);
      absl::StrAppend(&text, root_prefix, filler, rhs, "\n}\n");
      ParseOptions parse_options;
      parse_options.file_name = "repl";
      parse_options.keep_source = true;
      parse_options.allow_single_instruction = false;
      parse_options.max_errors = 1;
      absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, parse_options);
      if (!module.ok()) {
        if (placeholder == 0 && absl::StrContains(module.status().message(), "cannot infer shape")) {
          tried_placeholder = true;
          if (first_error.ok()) first_error = module.status();
          continue;
        }
        if (first_error.ok() || placeholder == 1) first_error = module.status();
        break;
      }
      HloInstruction* root = (*module)->entry()->root();
      if (placeholder == 1) {
        absl::StatusOr<Shape> shape = InferInstructionShape(*root);
        if (!shape.ok()) {
          first_error = absl::InvalidArgumentError(absl::StrCat(
              "cannot infer the shape of ", std::string(HloOpcodeName(root->opcode())), " (", shape.status().message(),
              "); write it: ", bind.empty() ? "" : bind + " = ", "SHAPE ", std::string(HloOpcodeName(root->opcode())),
              "(...)"));
          break;
        }
        *root->mutable_shape() = *shape;
      }
      (*module)->source_text = std::make_shared<const std::string>(text);
      CompileOptions compile_options = CompileOptionsFor("repl");
      absl::StatusOr<std::unique_ptr<Executable>> exe =
          Executable::FromModule(std::move(*module), compile_options);
      if (!exe.ok()) {
        if (first_error.ok() || (attempt == 0 && placeholder == 1)) first_error = exe.status();
        break;
      }
      prepared->exe = std::move(*exe);
      prepared->bind = bind;
      prepared->arguments.clear();
      for (const std::string& p : params) prepared->arguments.push_back(values_.at(p).literal.Clone());
      return true;
    }
  }
  std::string message = MapErrors(first_error.message(), map);
  const std::string internal = "%repl.result ";
  for (size_t at; (at = message.find(internal)) != std::string::npos;) {
    message.replace(at, internal.size(), bind.empty() ? "the expression " : "%" + bind + " ");
  }
  Error(message);
  return false;
}

bool Session::CheckOpcode(absl::string_view input, absl::string_view rhs) {
  size_t pos = 0;
  SkipShape(rhs, &pos);
  SkipSpace(rhs, &pos);
  const size_t op_pos = pos;
  const absl::string_view op = LexName(rhs, &pos);
  const bool call = pos < rhs.size() && rhs[pos] == '(';
  // The line as typed, with a caret under the word at `rhs[at]`.
  auto excerpt = [&](size_t at) {
    const size_t offset = static_cast<size_t>(rhs.data() - input.data()) + at;
    const size_t line_start = input.rfind('\n', offset) == absl::string_view::npos
                                  ? 0
                                  : input.rfind('\n', offset) + 1;
    const size_t line_end = std::min(input.find('\n', offset), input.size());
    return absl::StrCat("\n  ", input.substr(line_start, line_end - line_start), "\n  ",
                        std::string(offset - line_start, ' '), "^");
  };
  std::string message;
  if (!op.empty() && call && HloOpcodeFromName(std::string(op)).has_value()) {
    // The attributes after the operands: a name the parser does not know
    // would be kept as text and ignored.
    int depth = 0;
    size_t p = pos;
    for (; p < rhs.size(); ++p) {
      if (rhs[p] == '(' || rhs[p] == '{' || rhs[p] == '[') ++depth;
      if ((rhs[p] == ')' || rhs[p] == '}' || rhs[p] == ']') && --depth == 0) break;
    }
    const std::vector<std::string> attributes = AttributeNames();
    while (++p < rhs.size()) {
      if (rhs[p] == '"') {
        while (++p < rhs.size() && rhs[p] != '"') {
          if (rhs[p] == '\\') ++p;
        }
        continue;
      }
      if (rhs[p] == '(' || rhs[p] == '{' || rhs[p] == '[') ++depth;
      if (rhs[p] == ')' || rhs[p] == '}' || rhs[p] == ']') --depth;
      if (rhs[p] != ',' || depth != 0) continue;
      size_t at = p + 1;
      SkipSpace(rhs, &at);
      size_t end = at;
      while (end < rhs.size() && (IsNameChar(rhs[end]))) ++end;
      absl::string_view name = rhs.substr(at, end - at);
      if (name.empty() || end >= rhs.size() || rhs[end] != '=' || IsKnownAttribute(name)) continue;
      const std::string near = DidYouMean(name, attributes);
      Error(absl::StrCat("unknown attribute ", name,
                         near.empty() ? " (Tab completes attribute names)" : near,
                         excerpt(at)));
      return false;
    }
    return true;
  }
  if (!op.empty() && call) {
    if (FindComputation(op) != nullptr) {
      message = absl::StrCat("unknown opcode ", op, " (did you mean call(...), to_apply=", op,
                             "? a computation is called with call)");
    } else {
      const std::string near = DidYouMean(op, OpcodeNames());
      message = absl::StrCat("unknown opcode ", op,
                             near.empty() ? " (Tab completes opcode names)" : near);
    }
    Error(message + excerpt(op_pos));
    return false;
  }
  // Not an instruction at all: `x * 2`, `5`. An operator between two
  // operands suggests its op.
  message = absl::StrCat("not an HLO instruction: write [SHAPE] OPCODE(OPERANDS)[, ATTRIBUTES], "
                         "e.g. multiply(x, y)");
  static constexpr std::pair<absl::string_view, absl::string_view> kOperators[] = {
      {"**", "power"}, {"+", "add"}, {"-", "subtract"}, {"*", "multiply"}, {"/", "divide"},
      {"^", "power"},  {"%", "remainder"}};
  std::vector<std::string> words = absl::StrSplit(absl::string_view(rhs.data(), rhs.size()), ' ',
                                                  absl::SkipWhitespace());
  if (words.size() == 3) {
    for (const auto& [symbol, opcode] : kOperators) {
      if (words[1] != symbol) continue;
      // A number next to a bound value becomes a constant of its type
      // (broadcast to its shape first when it is an array).
      std::string operands[2] = {words[0], words[2]};
      std::string broadcast;
      for (int k = 0; k < 2; ++k) {
        double number;
        auto it = values_.find(words[2 - 2 * k]);
        if (!absl::SimpleAtod(words[2 * k], &number) || it == values_.end() ||
            !it->second.literal.shape().IsArray()) {
          continue;
        }
        const Shape& shape = it->second.literal.shape();
        const std::string scalar = absl::StrCat(
            std::string(ElementTypeName(shape.element_type())), "[] constant(", words[2 * k], ")");
        if (shape.rank() == 0) {
          operands[k] = scalar;
        } else {
          broadcast = absl::StrCat("c = ", PrintShape(shape, false), " broadcast(", scalar,
                                   "), dimensions={}");
          operands[k] = "c";
        }
      }
      const std::string call = absl::StrCat(opcode, "(", operands[0], ", ", operands[1], ")");
      message = broadcast.empty()
                    ? absl::StrCat("not an HLO instruction (did you mean ", call, "?)")
                    : absl::StrCat("not an HLO instruction; in HLO: ", broadcast, " then ", call);
      break;
    }
  }
  Error(message + excerpt(op_pos));
  return false;
}

bool Session::HandleInstruction(absl::string_view input) {
  Prepared prepared;
  if (!PrepareInstruction(input, &prepared)) return false;
  return Execute(prepared);
}

bool Session::Execute(Prepared& prepared) {
  cancel_.store(false);
  if (instances() > 1) return ExecuteInstances(prepared);
  if (debugger_->armed() && !debugger_->active()) {
    debugger_->Start(std::move(prepared.exe), std::move(prepared.arguments), threads_, &cancel_,
                     prepared.bind, false);
    return WaitForDebugger();
  }
  std::vector<const Literal*> pointers;
  for (const Literal& a : prepared.arguments) pointers.push_back(&a);
  ExecuteOptions options;
  options.threads = threads_;
  options.cancel = &cancel_;
  FeedQueues feeds;
  {
    absl::MutexLock lock(&feeds.mu);
    for (Literal& v : infeed_) feeds.infeed.push_back(std::move(v));
  }
  infeed_.clear();
  options.feeds = &feeds;
  absl::StatusOr<Literal> result = prepared.exe->Execute(pointers, options);
  {
    // What the program did not take stays queued.
    absl::MutexLock lock(&feeds.mu);
    for (Literal& v : feeds.infeed) infeed_.push_back(std::move(v));
    for (const Literal& v : feeds.outfeed) Print(absl::StrCat("outfeed: ", v.ToString()));
  }
  const bool interrupted = cancel_.exchange(false);
  if (!result.ok()) {
    if (interrupted || absl::IsCancelled(result.status())) {
      Print("interrupted");
    } else if (auto failure = GetCheckFailure(result.status())) {
      Error(FormatCheckFailure(*failure));
    } else {
      Error(result.status().message());
    }
    return false;
  }
  FinishResult(prepared.bind, std::move(*result));
  return true;
}

bool Session::ExecuteInstances(Prepared& prepared) {
  const int64_t n = instances();
  if (debugger_->armed()) {
    Error(absl::StrCat("the debugger runs one instance; this run has ", n,
                       " (:replicas 1 to debug it, :delete to run without breakpoints)"));
    return false;
  }
  std::vector<std::vector<const Literal*>> arguments(1);
  for (const Literal& a : prepared.arguments) arguments[0].push_back(&a);
  ReplicatedOptions options;
  options.threads = threads_;
  options.interrupt = &cancel_;
  for (const Literal& v : infeed_) options.infeed.push_back(&v);
  std::vector<std::vector<Literal>> outfeed;
  options.outfeed = &outfeed;
  std::vector<absl::StatusOr<Literal>> results =
      ExecuteReplicated(*prepared.exe, arguments, options);
  for (size_t id = 0; id < outfeed.size(); ++id) {
    for (const Literal& v : outfeed[id]) {
      Print(absl::StrCat("outfeed ", InstanceName(static_cast<int64_t>(id), partitions_), ": ",
                         v.ToString()));
    }
  }
  const bool interrupted = cancel_.exchange(false);
  if (interrupted) {
    Print("interrupted");
    return false;
  }
  bool failed = false;
  for (size_t id = 0; id < results.size(); ++id) {
    const absl::Status& status = results[id].status();
    if (status.ok()) continue;
    failed = true;
    // Instances cancelled because another failed only say so.
    if (absl::IsCancelled(status) && results.size() > 1) continue;
    std::string message = std::string(status.message());
    if (auto failure = GetCheckFailure(status)) message = FormatCheckFailure(*failure);
    Error(absl::StrCat(InstanceName(static_cast<int64_t>(id), partitions_), ": ", message));
  }
  if (failed) return false;
  bool identical = true;
  for (size_t id = 1; id < results.size(); ++id) {
    identical = identical && results[id]->BitwiseEqual(*results[0]);
  }
  const std::string prefix = prepared.bind.empty() ? "" : prepared.bind + " = ";
  if (identical) {
    Print(absl::StrCat(partitions_ == 1 ? absl::StrCat("replicas 0-", n - 1)
                                        : absl::StrCat("all ", n, " instances"),
                       ": ", prefix, FormatValue(*results[0], false)));
  } else {
    for (size_t id = 0; id < results.size(); ++id) {
      Print(absl::StrCat(InstanceName(static_cast<int64_t>(id), partitions_), ": ", prefix,
                         FormatValue(*results[id], false)));
    }
    Print(absl::StrCat("(", prepared.bind.empty() ? "" : prepared.bind + " and ",
                       "_ hold replica 0's value)"));
  }
  Literal result = std::move(*results[0]);
  if (!prepared.bind.empty()) {
    if (!values_.count(prepared.bind)) value_order_.push_back(prepared.bind);
    values_[prepared.bind] = Value{result.Clone()};
  }
  values_["_"] = Value{std::move(result)};
  return true;
}

void Session::FinishResult(const std::string& bind, Literal result) {
  if (!bind.empty()) {
    if (!values_.count(bind)) value_order_.push_back(bind);
    values_[bind] = Value{result.Clone()};
  }
  PrintValue(bind, result, false);
  values_["_"] = Value{std::move(result)};
}

void Session::PrintValue(absl::string_view name, const Literal& value, bool full) {
  std::string text = FormatValue(value, full);
  Print(name.empty() ? text : absl::StrCat(name, " = ", text));
}

//===--- Computations and modules -----------------------------------------===//

bool Session::HandleComputation(absl::string_view input) {
  absl::string_view text = input;
  bool entry = false;
  if (absl::StartsWith(text, "ENTRY")) {
    entry = true;
    text = Trim(text.substr(5));
  }
  size_t pos = 0;
  const std::string name(LexName(text, &pos));
  std::string module_text = absl::StrCat("HloModule repl\n\n", ComputationsText(name));
  // Predefined reducers called from a typed computation are f32 ones.
  module_text += ReducersText(text, "f32");
  InputMap map;
  map.first_line = CountLines(module_text) + 1;
  map.shift = 6;
  map.lines = absl::StrSplit(absl::string_view(text.data(), text.size()), '\n');
  absl::StrAppend(&module_text, "ENTRY ", text, "\n");
  CompileOptions options = CompileOptionsFor("repl");
  ParseOptions parse_options;
  parse_options.file_name = "repl";
  parse_options.keep_source = true;
  parse_options.allow_single_instruction = false;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(module_text, parse_options);
  absl::StatusOr<std::unique_ptr<Executable>> exe =
      module.ok() ? Executable::FromModule(std::move(*module), options)
                  : absl::StatusOr<std::unique_ptr<Executable>>(module.status());
  if (!exe.ok()) {
    Error(MapErrors(exe.status().message(), map));
    return false;
  }
  const HloComputation& c = *(*exe)->module().entry();
  Computation computation{c.name(), std::string(text)};
  bool replaced = false;
  for (Computation& existing : computations_) {
    if (existing.name == c.name()) {
      existing = computation;
      replaced = true;
    }
  }
  if (!replaced) computations_.push_back(computation);
  if (entry) entry_ = c.name();
  Print(absl::StrCat(replaced ? "redefined " : "defined ", Signature(c),
                     entry ? "  (ENTRY: `:run ARGS` runs it)" : ""));
  return true;
}

bool Session::HandleModuleText(absl::string_view text, absl::string_view file_name) {
  CompileOptions options = ReplCompileOptions(std::string(file_name));  // the module's own counts
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::FromText(std::string(text), options);
  if (!exe.ok()) {
    Error(exe.status().message());
    return false;
  }
  const HloModule& module = (*exe)->module();
  int count = 0;
  for (const auto& c : module.computations()) {
    if (c->is_inline || c->is_async_wrapped) continue;
    Computation computation{c->name(), PrintComputation(*c, PrintOptions::Long(), false)};
    bool replaced = false;
    for (Computation& existing : computations_) {
      if (existing.name == c->name()) {
        existing = computation;
        replaced = true;
      }
    }
    if (!replaced) computations_.push_back(std::move(computation));
    ++count;
  }
  entry_ = module.entry()->name();
  const int64_t replicas = std::max<int64_t>(1, module.replica_count);
  const int64_t partitions = std::max<int64_t>(1, module.num_partitions);
  std::string counts;
  if (replicas * partitions > 1 || instances() > 1) {
    counts = absl::StrCat("\nruns as ", replicas, " replica", replicas == 1 ? "" : "s",
                          partitions > 1 ? absl::StrCat(" x ", partitions, " partitions") : "",
                          " (the module's replica_count", partitions > 1 ? "/num_partitions" : "",
                          "; :replicas N changes it)");
  }
  replicas_ = replicas;
  partitions_ = partitions;
  Print(absl::StrCat("loaded ", count, " computation", count == 1 ? "" : "s", "; ENTRY ",
                     Signature(*module.entry()), "\n`:run ARGS` runs it", counts));
  return true;
}

bool Session::PrepareRun(absl::string_view args, Prepared* prepared) {
  args = Trim(args);
  std::string name = entry_;
  size_t pos = 0;
  absl::string_view first = LexName(args, &pos);
  if (!first.empty() && (pos >= args.size() || absl::ascii_isspace(args[pos])) &&
      FindComputation(first) != nullptr) {
    name = std::string(first);
    args = Trim(args.substr(pos));
  }
  if (name.empty()) {
    Error("nothing to run: :load a module, define an ENTRY computation, or name a computation");
    return false;
  }
  const Computation* c = FindComputation(name);
  if (c == nullptr) {
    Error(absl::StrCat("no computation named ", name));
    return false;
  }
  std::string text = absl::StrCat("HloModule repl\n\n", ComputationsText(name),
                                   ReducersText(c->text, "f32"), "ENTRY ", c->text, "\n");
  CompileOptions options = CompileOptionsFor("repl");
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::FromText(std::string(text), options);
  if (!exe.ok()) {
    Error(exe.status().message());
    return false;
  }
  const std::vector<Shape>& params = (*exe)->parameter_shapes();
  std::vector<Literal> arguments;
  std::string rest(args);
  TextCursor cursor{rest, 0};
  for (size_t i = 0; i < params.size(); ++i) {
    (void)cursor.SkipSpace();
    if (cursor.AtEnd()) {
      std::string expected;
      for (size_t j = 0; j < params.size(); ++j) {
        absl::StrAppend(&expected, "\n  parameter ", j, ": ", params[j].ToString(false));
      }
      Error(absl::StrCat("%", name, " takes ", params.size(), " argument", params.size() == 1 ? "" : "s",
                         ", ", i, " given (or use --random)", expected));
      return false;
    }
    const std::string_view rest_text = cursor.Rest();
    absl::string_view word(rest_text.data(), std::min(rest_text.size(), rest_text.find_first_of(" \t\n")));
    if (word == "--random") {
      for (; i < params.size(); ++i) {
        absl::StatusOr<Literal> literal = Literal::Create(params[i]);
        if (!literal.ok()) {
          Error(literal.status().message());
          return false;
        }
        (void)FillRandom(&*literal, RandomSeedForParameter(0, i));  // as `hlovm run --random`
        arguments.push_back(std::move(*literal));
      }
      cursor.pos += word.size();
      break;
    }
    absl::StatusOr<Literal> literal = absl::InvalidArgumentError("");
    absl::string_view bare = word.substr(word[0] == '%' ? 1 : 0);
    if (values_.count(std::string(bare))) {
      literal = values_.at(std::string(bare)).literal.Clone();
      cursor.pos += word.size();
    } else if (absl::EndsWith(word, ".npy")) {
      literal = ParseInput(std::string(word), params[i]);
      // The REPL has no --convert-inputs: name what converts here instead.
      constexpr absl::string_view kFlagHint =
          "--convert-inputs converts its elements to the parameter's type";
      if (!literal.ok() && absl::StrContains(literal.status().message(), kFlagHint)) {
        literal = absl::InvalidArgumentError(absl::StrReplaceAll(
            literal.status().message(),
            {{kFlagHint, "the REPL does not convert inputs: save the array with the parameter's "
                         "type (NumPy's astype), or run the module with `hlovm run "
                         "--convert-inputs`"}}));
      }
      cursor.pos += word.size();
    } else {
      const size_t start = cursor.pos;
      Literal value;
      // Every element written, as `hlovm run` requires: nothing is padded.
      absl::Status status = ParseShapedLiteral(cursor, &value, LiteralSyntax{true});
      if (!status.ok()) {
        cursor.pos = start;
        status = ParseLiteralValue(cursor, params[i], &value, LiteralSyntax{true});
      }
      if (status.ok()) {
        literal = std::move(value);
      } else {
        literal = absl::InvalidArgumentError(absl::StrCat(
            "argument ", i, ": ", status.message(), " at `", std::string(cursor.Rest().substr(0, 20)), "`"));
      }
    }
    if (!literal.ok()) {
      Error(literal.status().message());
      return false;
    }
    if (!literal->shape().Compatible(params[i])) {
      Error(absl::StrCat("argument ", i, " is ", literal->shape().ToString(false), ", but parameter ", i,
                         " is ", params[i].ToString(false)));
      return false;
    }
    arguments.push_back(std::move(*literal));
  }
  (void)cursor.SkipSpace();
  if (!cursor.AtEnd()) {
    Error(absl::StrCat("%", name, " takes ", params.size(), " arguments; unexpected `", std::string(cursor.Rest()), "`"));
    return false;
  }
  prepared->exe = std::move(*exe);
  prepared->arguments = std::move(arguments);
  prepared->bind.clear();
  return true;
}

//===--- Commands ---------------------------------------------------------===//

using Completion = Session::ArgumentCompletion;

const Session::CommandInfo Session::kCommandTable[] = {
    {"help", "h ?", "[OPCODE]", "this text, or an op's operands, attribute syntax, meaning\nand an example",
     Completion::kOpcode, false, false, &Session::CmdHelp},
    {"type", "t", "NAME", "the shape of a value (the signature of a computation)",
     Completion::kName, false, false, &Session::CmdType},
    {"list", "ls", "", "values and computations", Completion::kNone, false, false,
     &Session::CmdList},
    {"print", "p", "NAME [full]", "a value (in full); while debugging any value computed so far",
     Completion::kName, false, false, &Session::CmdPrint},
    {"dis", "", "[COMPUTATION]", "the bytecode of a computation", Completion::kComputation, false,
     false, &Session::CmdDis},
    {"load", "", "FILE.hlo", "load a module: its computations become callable", Completion::kFile,
     false, true, &Session::CmdLoad},
    {"run", "r", "[COMPUTATION] ARGS",
     "run the loaded ENTRY (or COMPUTATION); ARGS are literals,\nbound names, .npy files, or "
     "--random",
     Completion::kRun, false, true, &Session::CmdRun},
    {"time", "", "EXPR | :time :run ...", "compile and run times (min and median)",
     Completion::kExpression, false, false, &Session::CmdTime},
    {"threads", "", "N", "executor threads (0: all cores)", Completion::kNone, false, false,
     &Session::CmdThreads},
    {"replicas", "", "[N [PARTITIONS]]",
     "instances each run has (a loaded module sets its own);\nalone: show them",
     Completion::kNone, false, true, &Session::CmdReplicas},
    {"save", "", "FILE.hlo", "the session as a module (`hlovm check` / `hlovm run` it)",
     Completion::kFile, false, false, &Session::CmdSave},
    {"save-value", "", "NAME FILE.npy",
     "a value as a NumPy .npy file (while debugging also any value\ncomputed so far)",
     Completion::kNameThenFile, false, false, &Session::CmdSaveValue},
    {"infeed", "", "[LITERAL | FILE.npy]",
     "queue a value for the infeed of the next runs (alone: list them;\n`:infeed clear` empties "
     "the queue)",
     Completion::kFile, false, false, &Session::CmdInfeed},
    {"reset", "", "", "forget everything", Completion::kNone, false, true, &Session::CmdReset},
    {"quit", "q exit", "", "leave (also Ctrl-D)", Completion::kNone, false, false,
     &Session::CmdQuit},
    {"break", "b", "[COMPUTATION] INSTRUCTION",
     "stop before an instruction (alone: list breakpoints and watches)", Completion::kInstruction,
     true, false, &Session::CmdBreak},
    {"watch", "", "INSTRUCTION", "stop when its value changes", Completion::kInstruction, true,
     false, &Session::CmdWatch},
    {"delete", "", "[INSTRUCTION]", "remove a breakpoint or watch (alone: all of them)",
     Completion::kInstruction, true, false, &Session::CmdDelete},
    {"debug", "", "[COMPUTATION] ARGS", "like :run, stopped before the first instruction",
     Completion::kRun, true, false, &Session::CmdDebug},
    {"step", "s", "", "run one instruction, into loop and branch bodies", Completion::kNone, true,
     false, &Session::CmdStep},
    {"next", "n", "", "run one instruction of this computation (over bodies)", Completion::kNone,
     true, false, &Session::CmdNext},
    {"continue", "c", "", "run to the next breakpoint or the end", Completion::kNone, true, false,
     &Session::CmdContinue},
    {"finish", "", "", "run until the current body or computation returns", Completion::kNone, true,
     false, &Session::CmdFinish},
    {"where", "bt", "", "where the program stopped, with the bodies it is in", Completion::kNone,
     true, false, &Session::CmdWhere},
    {"kill", "", "", "stop the program being debugged", Completion::kNone, true, false,
     &Session::CmdKill},
};

absl::Span<const Session::CommandInfo> Session::Commands() { return kCommandTable; }

const Session::CommandInfo* Session::FindCommand(absl::string_view name) {
  for (const CommandInfo& command : kCommandTable) {
    if (command.name == name) return &command;
    for (absl::string_view alias : absl::StrSplit(command.aliases, ' ', absl::SkipEmpty())) {
      if (alias == name) return &command;
    }
  }
  return nullptr;
}

namespace {

// One command's lines in :help: its synopsis, then its help from
// kHelpColumn on (or on the next line when the synopsis is longer).
std::string CommandHelpLines(const Session::CommandInfo& command) {
  std::string synopsis = absl::StrCat("  :", command.name);
  if (!command.arguments.empty()) absl::StrAppend(&synopsis, " ", command.arguments);
  std::string text = synopsis;
  if (synopsis.size() < kHelpColumn) {
    text.append(kHelpColumn - synopsis.size(), ' ');
  } else {
    text.append("  ");
  }
  bool first = true;
  for (absl::string_view line : absl::StrSplit(command.help, '\n')) {
    if (!first) text.append("\n" + std::string(kHelpColumn, ' '));
    absl::StrAppend(&text, line);
    first = false;
  }
  if (!command.aliases.empty()) {
    std::vector<std::string> aliases;
    for (absl::string_view a : absl::StrSplit(command.aliases, ' ', absl::SkipEmpty())) {
      aliases.push_back(absl::StrCat(":", a));
    }
    absl::StrAppend(&text, " (", absl::StrJoin(aliases, ", "), ")");
  }
  return text + "\n";
}

}  // namespace

std::string Session::HelpText() {
  std::string text(kHelpIntro);
  for (bool debugger : {false, true}) {
    text += debugger ? "Debugger:\n" : "\nCommands:\n";
    for (const CommandInfo& command : kCommandTable) {
      if (command.debugger == debugger) text += CommandHelpLines(command);
    }
  }
  text += "  (with breakpoints set, :run and expressions run under the debugger)\n";
  text += "Ctrl-C stops a running program.";
  return text;
}

bool Session::HandleCommand(absl::string_view line) {
  size_t space = line.find_first_of(" \t\n");
  absl::string_view name = line.substr(1, space == absl::string_view::npos ? line.npos : space - 1);
  absl::string_view args = space == absl::string_view::npos ? absl::string_view() : Trim(line.substr(space));
  const CommandInfo* command = FindCommand(name);
  if (command == nullptr) {
    Error(absl::StrCat("unknown command :", name, " (:help lists them)"));
    return false;
  }
  if (command->refused_while_debugging && debugger_->active()) {
    Error("a program is being debugged: :continue, :finish or :kill it first");
    return false;
  }
  return (this->*command->handler)(args);
}

bool Session::CmdHelp(absl::string_view args) {
  if (args.empty()) {
    Print(HelpText());
    return true;
  }
  if (args[0] == ':') {
    // `:help :run`: that command's lines (all of them for an unknown one).
    const CommandInfo* command = FindCommand(args.substr(1));
    Print(command != nullptr ? CommandHelpLines(*command) : HelpText());
    return true;
  }
  std::string op(args);
  std::string help = OpcodeHelp(op);
  if (help.empty()) {
    Error(absl::StrCat("no opcode named ", op));
    return false;
  }
  Print(help);
  return true;
}

bool Session::CmdQuit(absl::string_view /*args*/) {
  quit_ = true;
  return true;
}

bool Session::CmdRun(absl::string_view args) {
  Prepared prepared;
  if (!PrepareRun(args, &prepared)) return false;
  return Execute(prepared);
}

bool Session::CmdType(absl::string_view args) {
  std::string name(args.substr(!args.empty() && args[0] == '%' ? 1 : 0));
  auto it = values_.find(name);
  if (it != values_.end()) {
    Print(absl::StrCat(name, " : ", it->second.literal.shape().ToString(false)));
    return true;
  }
  if (const Computation* c = FindComputation(name)) {
    auto module = ParseHloModule(absl::StrCat("HloModule m\n", ComputationsText(name),
                                              ReducersText(c->text, "f32"), "ENTRY ", c->text));
    if (module.ok()) {
      Print(Signature(*(*module)->entry()));
      return true;
    }
  }
  Error(absl::StrCat("no value or computation named ", name));
  return false;
}

bool Session::CmdList(absl::string_view /*args*/) {
  std::string text;
  for (const std::string& name : value_order_) {
    absl::StrAppend(&text, "  ", name, " : ", values_.at(name).literal.shape().ToString(false), "\n");
  }
  if (values_.count("_")) {
    absl::StrAppend(&text, "  _ : ", values_.at("_").literal.shape().ToString(false), "  (the last value)\n");
  }
  for (const Computation& c : computations_) {
    auto module = ParseHloModule(absl::StrCat("HloModule m\n", ComputationsText(c.name),
                                              ReducersText(c.text, "f32"), "ENTRY ", c.text));
    absl::StrAppend(&text, "  ", module.ok() ? Signature(*(*module)->entry()) : "%" + c.name,
                    c.name == entry_ ? "  (ENTRY)" : "", "\n");
  }
  if (text.empty()) text = "nothing bound yet";
  Print(text);
  return true;
}

bool Session::CmdDis(absl::string_view args) {
  Prepared prepared;
  std::string name = args.empty() ? entry_ : std::string(args.substr(args[0] == '%' ? 1 : 0));
  if (name.empty() || FindComputation(name) == nullptr) {
    Error(name.empty() ? "usage: :dis COMPUTATION" : absl::StrCat("no computation named ", name));
    return false;
  }
  const Computation* c = FindComputation(name);
  CompileOptions options = ReplCompileOptions("");
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::FromText(
      absl::StrCat("HloModule repl\n\n", ComputationsText(name), ReducersText(c->text, "f32"), "ENTRY ",
                   c->text, "\n"),
      options);
  if (!exe.ok()) {
    Error(exe.status().message());
    return false;
  }
  Print((*exe)->Disassemble());
  return true;
}

bool Session::CmdTime(absl::string_view args) {
  if (args.empty()) {
    Error("usage: :time EXPRESSION  or  :time :run [COMPUTATION] ARGS");
    return false;
  }
  const bool run = absl::StartsWith(args, ":run");
  auto prepare = [&](Prepared* p) {
    return run ? PrepareRun(args.substr(4), p) : PrepareInstruction(args, p);
  };
  using Clock = std::chrono::steady_clock;
  std::vector<double> compile, execute;
  Prepared prepared;
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < 20 && (i < 3 || Millis(Clock::now() - start) < 300); ++i) {
    const Clock::time_point t0 = Clock::now();
    Prepared p;
    if (!prepare(&p)) return false;
    compile.push_back(Millis(Clock::now() - t0));
    prepared = std::move(p);
  }
  std::vector<const Literal*> pointers;
  for (const Literal& a : prepared.arguments) pointers.push_back(&a);
  ExecuteOptions options;
  options.threads = threads_;
  options.cancel = &cancel_;
  cancel_.store(false);
  const Clock::time_point run_start = Clock::now();
  for (int i = 0; i < 10000 && (i < 3 || Millis(Clock::now() - run_start) < 500); ++i) {
    const Clock::time_point t0 = Clock::now();
    absl::Status status;
    if (instances() == 1) {
      status = prepared.exe->Execute(pointers, options).status();
    } else {
      ReplicatedOptions replicated;
      replicated.threads = threads_;
      replicated.interrupt = &cancel_;
      for (const absl::StatusOr<Literal>& r :
           ExecuteReplicated(*prepared.exe, absl::MakeConstSpan(&pointers, 1), replicated)) {
        if (status.ok()) status = r.status();
      }
    }
    execute.push_back(Millis(Clock::now() - t0));
    if (!status.ok()) {
      Error(cancel_.exchange(false) ? std::string("interrupted") : std::string(status.message()));
      return false;
    }
  }
  auto summary = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return absl::StrCat("min ", FormatTime(v.front()), ", median ", FormatTime(v[v.size() / 2]), " over ",
                        v.size(), " runs");
  };
  Print(absl::StrCat("compile: ", summary(compile), "\nrun:     ", summary(execute)));
  return true;
}

bool Session::CmdThreads(absl::string_view args) {
  int n = 0;
  if (args.empty() || !absl::SimpleAtoi(absl::string_view(args.data(), args.size()), &n) || n < 0) {
    Error(absl::StrCat("usage: :threads N (0: all cores); now ", threads_));
    return false;
  }
  threads_ = n;
  Print(absl::StrCat("threads: ", n == 0 ? std::string("all cores") : absl::StrCat(n)));
  return true;
}

bool Session::CmdReplicas(absl::string_view args) {
  std::vector<std::string> words = absl::StrSplit(absl::string_view(args.data(), args.size()), ' ',
                                                  absl::SkipWhitespace());
  auto show = [&] {
    return absl::StrCat("replicas: ", replicas_, partitions_ > 1 ? absl::StrCat(", partitions: ", partitions_) : "");
  };
  if (words.empty()) {
    Print(show());
    return true;
  }
  int64_t replicas = 0, partitions = 1;
  if (words.size() > 2 || !absl::SimpleAtoi(words[0], &replicas) ||
      (words.size() == 2 && !absl::SimpleAtoi(words[1], &partitions))) {
    Error(absl::StrCat("usage: :replicas N [PARTITIONS]; now ", replicas_, " x ", partitions_));
    return false;
  }
  if (absl::Status valid = ValidateInstanceCounts(replicas, partitions); !valid.ok()) {
    Error(valid.message());
    return false;
  }
  replicas_ = replicas;
  partitions_ = partitions;
  Print(show());
  return true;
}

bool Session::CmdInfeed(absl::string_view args) {
  if (args.empty()) {
    std::string text;
    for (const Literal& v : infeed_) absl::StrAppend(&text, "  ", v.ToString(), "\n");
    Print(text.empty() ? "the infeed queue is empty" : "infeed queue:\n" + text);
    return true;
  }
  if (args == "clear") {
    infeed_.clear();
    Print("the infeed queue is empty");
    return true;
  }
  absl::StatusOr<Literal> value = absl::EndsWith(args, ".npy") ? ReadNpy(std::string(args))
                                                               : ParseLiteral(std::string(args));
  if (!value.ok()) {
    Error(absl::StrCat(":infeed ", args, ": ", value.status().message()));
    return false;
  }
  infeed_.push_back(std::move(*value));
  Print(absl::StrCat("queued for infeed: ", infeed_.back().ToString(), " (", infeed_.size(),
                     " in the queue)"));
  return true;
}

bool Session::CmdReset(absl::string_view /*args*/) {
  debugger_->Kill();
  debugger_ = std::make_unique<Debugger>();
  values_.clear();
  value_order_.clear();
  computations_.clear();
  entry_.clear();
  threads_ = 0;
  replicas_ = 1;
  partitions_ = 1;
  infeed_.clear();
  Print("session reset");
  return true;
}

bool Session::CmdLoad(absl::string_view args) {
  if (args.empty()) {
    Error("usage: :load FILE.hlo");
    return false;
  }
  absl::StatusOr<std::string> text = ReadSourceFile(std::string(args));
  if (!text.ok()) {
    Error(text.status().message());
    return false;
  }
  return HandleModuleText(*text, args);
}

bool Session::CmdSave(absl::string_view args) {
  if (args.empty()) {
    Error("usage: :save FILE.hlo");
    return false;
  }
  std::string text = "HloModule repl_session\n\n";
  std::string comps;
  for (const Computation& c : computations_) absl::StrAppend(&comps, c.text, "\n\n");
  text += comps + ReducersText(comps, "f32");
  absl::StrAppend(&text, "ENTRY %session {\n");
  std::vector<std::string> names;
  for (const std::string& name : value_order_) {
    const Literal& v = values_.at(name).literal;
    if (!v.shape().IsArray() && !v.shape().IsTuple()) continue;
    const std::string id = name == "_" ? "last" : name;
    absl::StrAppend(&text, "  %", id, " = ", PrintShape(v.shape(), true), " constant(", v.ValueToString(),
                    ")\n");
    names.push_back("%" + id);
  }
  absl::StrAppend(&text, "  ROOT %values = tuple(", absl::StrJoin(names, ", "), ")\n}\n");
  absl::StatusOr<std::unique_ptr<Executable>> check = Executable::FromText(text);
  if (!check.ok()) {
    Error(absl::StrCat("the session does not form a valid module: ", check.status().message()));
    return false;
  }
  std::ofstream file{std::string(args)};
  file << text;
  file.close();
  if (!file) {
    Error(absl::StrCat("cannot write ", args));
    return false;
  }
  Print(absl::StrCat("saved ", names.size(), " value", names.size() == 1 ? "" : "s", " and ",
                     computations_.size(), " computation", computations_.size() == 1 ? "" : "s", " to ",
                     args));
  return true;
}

bool Session::CmdSaveValue(absl::string_view args) {
  std::vector<std::string> words = absl::StrSplit(absl::string_view(args.data(), args.size()), ' ',
                                                  absl::SkipWhitespace());
  if (words.size() != 2) {
    Error("usage: :save-value NAME FILE.npy");
    return false;
  }
  const std::string name = words[0][0] == '%' ? words[0].substr(1) : words[0];
  const std::string& path = words[1];
  if (!absl::EndsWith(path, ".npy")) {
    Error(absl::StrCat("the file of :save-value ends in .npy, not ", path));
    return false;
  }
  Literal debugged;
  const Literal* value = nullptr;
  if (auto it = values_.find(name); it != values_.end()) {
    value = &it->second.literal;
  } else if (debugger_->state() == Debugger::State::kStopped) {
    std::string note;
    absl::StatusOr<Literal> read = debugger_->ReadValue(name, &note);
    if (!read.ok()) {
      Error(read.status().message());
      return false;
    }
    debugged = std::move(*read);
    value = &debugged;
  } else {
    std::vector<std::string> names(value_order_.begin(), value_order_.end());
    Error(absl::StrCat("no value named ", name, DidYouMean(name, names)));
    return false;
  }
  if (!value->shape().IsArray()) {
    Error(absl::StrCat(name, " is ", value->shape().ToString(false),
                       "; a .npy file holds one array (save its elements: e = get-tuple-element(",
                       name, "), index=0)"));
    return false;
  }
  if (absl::Status status = WriteNpy(*value, path); !status.ok()) {
    Error(status.message());
    return false;
  }
  const ElementType type = value->shape().element_type();
  const ElementType stored = NpyStorageType(type);
  Print(absl::StrCat("wrote ", path, " (", value->shape().ToString(false),
                     stored == type ? std::string()
                                    : absl::StrCat(" stored as ", std::string(ElementTypeName(stored))),
                     ")"));
  return true;
}

bool Session::CmdPrint(absl::string_view args) {
  std::vector<std::string> words = absl::StrSplit(absl::string_view(args.data(), args.size()), ' ',
                                                  absl::SkipWhitespace());
  if (words.empty()) {
    Error("usage: :print NAME [full]");
    return false;
  }
  const bool full = words.size() > 1 && words[1] == "full";
  std::string name = words[0][0] == '%' ? words[0].substr(1) : words[0];
  if (debugger_->state() == Debugger::State::kStopped && !values_.count(name)) {
    std::string note;
    absl::StatusOr<Literal> value = debugger_->ReadValue(name, &note);
    if (!value.ok()) {
      Error(value.status().message());
      return false;
    }
    Print(absl::StrCat("%", name, note.empty() ? "" : " (" + note + ")", " = ", FormatValue(*value, full)));
    return true;
  }
  auto it = values_.find(name);
  if (it == values_.end()) {
    Error(absl::StrCat("no value named ", name));
    return false;
  }
  PrintValue(name, it->second.literal, full);
  return true;
}

bool Session::CmdBreak(absl::string_view args) {
  Debugger& d = *debugger_;
  std::vector<std::string> words = absl::StrSplit(absl::string_view(args.data(), args.size()), ' ',
                                                  absl::SkipWhitespace());
  for (std::string& w : words) {
    if (!w.empty() && w[0] == '%') w.erase(0, 1);
  }
  if (words.empty()) {
    std::string list = d.ListBreakpoints();
    Print(list.empty() ? "no breakpoints" : list);
    return true;
  }
  if (words.size() > 2) {
    Error("usage: :break [COMPUTATION] INSTRUCTION");
    return false;
  }
  const std::string computation = words.size() == 2 ? words[0] : "";
  const std::string instruction = words.back();
  if (instruction.empty() || (words.size() == 2 && computation.empty())) {
    Error("usage: :break [COMPUTATION] INSTRUCTION");
    return false;
  }
  if (!CheckInstructionName(computation, instruction)) return false;
  d.AddBreakpoint(computation, instruction);
  Print(absl::StrCat("breakpoint before %", instruction,
                     computation.empty() ? "" : absl::StrCat(" in %", computation)));
  return true;
}

bool Session::CmdWatch(absl::string_view args) {
  if (args.empty()) {
    Error("usage: :watch INSTRUCTION");
    return false;
  }
  std::string name(args.substr(args[0] == '%' ? 1 : 0));
  if (name.empty()) {
    Error("usage: :watch INSTRUCTION");
    return false;
  }
  if (!CheckInstructionName("", name)) return false;
  debugger_->AddWatch(name);
  Print(absl::StrCat("watching %", name));
  return true;
}

bool Session::CheckInstructionName(const std::string& computation,
                                   const std::string& instruction) {
  std::vector<std::string> names;
  if (!computation.empty()) {
    const Computation* c = FindComputation(computation);
    if (c == nullptr) {
      std::vector<std::string> computations;
      for (const Computation& each : computations_) computations.push_back(each.name);
      Error(absl::StrCat("no computation named %", computation,
                         DidYouMean(computation, computations, "%")));
      return false;
    }
    AddInstructionNames(c->text, &names);
  } else {
    for (const Computation& c : computations_) AddInstructionNames(c.text, &names);
  }
  if (std::find(names.begin(), names.end(), instruction) != names.end()) return true;
  std::string message = absl::StrCat("no instruction named %", instruction);
  if (!computation.empty()) absl::StrAppend(&message, " in %", computation);
  if (computations_.empty()) {
    absl::StrAppend(&message, " (define or :load a computation first)");
  } else {
    absl::StrAppend(&message, DidYouMean(instruction, names, "%"));
  }
  Error(message);
  return false;
}

bool Session::CmdDelete(absl::string_view args) {
  std::string name(args.substr(!args.empty() && args[0] == '%' ? 1 : 0));
  if (!debugger_->ClearBreakpoint(name)) {
    Error(name.empty() ? std::string("no breakpoints or watches")
                       : absl::StrCat("no breakpoint or watch on ", name));
    return false;
  }
  Print(name.empty() ? "all breakpoints and watches deleted" : absl::StrCat("deleted %", name));
  return true;
}

bool Session::CmdDebug(absl::string_view args) {
  if (debugger_->active()) {
    Error("a program is already being debugged (:kill stops it)");
    return false;
  }
  if (instances() > 1) {
    Error(absl::StrCat("the debugger runs one instance; this session runs ", instances(),
                       " (:replicas 1 to debug)"));
    return false;
  }
  Prepared prepared;
  if (!PrepareRun(args, &prepared)) return false;
  cancel_.store(false);
  debugger_->Start(std::move(prepared.exe), std::move(prepared.arguments), threads_, &cancel_, "",
                   true);
  return WaitForDebugger();
}

bool Session::CmdKill(absl::string_view /*args*/) {
  if (!debugger_->active()) {
    Error("no program is running");
    return false;
  }
  debugger_->Kill();
  Print("program stopped");
  return true;
}

bool Session::CmdWhere(absl::string_view /*args*/) {
  if (debugger_->state() != Debugger::State::kStopped) {
    Error("no program is stopped");
    return false;
  }
  Print(debugger_->Where());
  return true;
}

bool Session::CheckStopped() {
  if (debugger_->state() == Debugger::State::kStopped) return true;
  Error("no program is stopped (set :break and :run, or :debug ARGS)");
  return false;
}

bool Session::CmdStep(absl::string_view /*args*/) {
  if (!CheckStopped()) return false;
  debugger_->Resume(Debugger::Mode::kStep);
  return WaitForDebugger();
}

bool Session::CmdNext(absl::string_view /*args*/) {
  if (!CheckStopped()) return false;
  debugger_->Resume(Debugger::Mode::kNext);
  return WaitForDebugger();
}

bool Session::CmdContinue(absl::string_view /*args*/) {
  if (!CheckStopped()) return false;
  debugger_->Resume(Debugger::Mode::kContinue);
  return WaitForDebugger();
}

bool Session::CmdFinish(absl::string_view /*args*/) {
  if (!CheckStopped()) return false;
  debugger_->Resume(Debugger::Mode::kFinish);
  return WaitForDebugger();
}

bool Session::WaitForDebugger() {
  Debugger& d = *debugger_;
  const Debugger::State state = d.WaitForStop(cancel_);
  if (state == Debugger::State::kStopped) {
    Print(d.StopText());
    return true;
  }
  std::string bind;
  absl::StatusOr<Literal> result = d.TakeResult(&bind);
  const bool interrupted = cancel_.exchange(false);
  if (!result.ok()) {
    if (interrupted || absl::IsCancelled(result.status())) {
      Print("interrupted");
    } else {
      Error(result.status().message());
    }
    return false;
  }
  Print("program finished");
  FinishResult(bind, std::move(*result));
  return true;
}

//===--- Completion -------------------------------------------------------===//

namespace {

// The paths that complete `prefix`; directories end in '/'. Hidden files
// only when the prefix's last component starts with a dot.
std::vector<std::string> PathCompletions(absl::string_view prefix) {
  const std::string text(prefix);
  const size_t slash = text.rfind('/');
  const std::string shown = slash == std::string::npos ? "" : text.substr(0, slash + 1);
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : text.substr(0, slash));
  const std::string stem = slash == std::string::npos ? text : text.substr(slash + 1);
  std::vector<std::string> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!absl::StartsWith(name, stem)) continue;
    if (name[0] == '.' && (stem.empty() || stem[0] != '.')) continue;
    std::error_code dir_ec;
    out.push_back(shown + name + (it->is_directory(dir_ec) ? "/" : ""));
  }
  return out;
}

}  // namespace

std::vector<std::string> Session::Completions(absl::string_view prefix) const {
  std::vector<std::string> out;
  auto add = [&](absl::string_view word) {
    if (absl::StartsWith(absl::string_view(word.data(), word.size()),
                         absl::string_view(prefix.data(), prefix.size()))) {
      out.emplace_back(word);
    }
  };
  if (!prefix.empty() && prefix[0] == ':') {
    for (const CommandInfo& command : kCommandTable) add(absl::StrCat(":", command.name));
  } else {
    const bool percent = !prefix.empty() && prefix[0] == '%';
    absl::string_view bare = percent ? prefix.substr(1) : prefix;
    auto add_name = [&](const std::string& name) {
      if (absl::StartsWith(name, absl::string_view(bare.data(), bare.size()))) {
        out.push_back(percent ? "%" + name : name);
      }
    };
    for (const std::string& name : value_order_) add_name(name);
    for (const Computation& c : computations_) add_name(c.name);
    if (!percent) {
      for (int i = 0; i < HloOpcodeCount(); ++i) add(std::string(HloOpcodeName(static_cast<HloOpcode>(i))));
      for (int i = 0; i < AttributeCount(); ++i) add(std::string(AttributeName(AttributeAt(i))));
      for (const auto& r : kReducers) add(r.first);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> Session::ArgumentCompletions(ArgumentCompletion kind,
                                                      absl::string_view prefix) const {
  if (kind == ArgumentCompletion::kExpression) return Completions(prefix);
  if (kind == ArgumentCompletion::kOpcode && !prefix.empty() && prefix[0] == ':') {
    return Completions(prefix);
  }
  std::vector<std::string> out;
  if (kind == ArgumentCompletion::kFile) {
    out = PathCompletions(prefix);
  } else if (kind == ArgumentCompletion::kRun && absl::StrContains(prefix, "/")) {
    out = PathCompletions(prefix);  // a .npy file in a folder
  } else {
    if (kind == ArgumentCompletion::kRun) {
      // .npy files and folders of the current one, besides the names.
      for (std::string& path : PathCompletions(prefix)) {
        if (absl::EndsWith(path, "/") || absl::EndsWith(path, ".npy")) out.push_back(std::move(path));
      }
    }
    std::vector<std::string> names;
    switch (kind) {
      case ArgumentCompletion::kOpcode:
        for (int i = 0; i < HloOpcodeCount(); ++i) {
          names.emplace_back(HloOpcodeName(static_cast<HloOpcode>(i)));
        }
        break;
      case ArgumentCompletion::kRun:
        names.push_back("--random");
        [[fallthrough]];
      case ArgumentCompletion::kName:
      case ArgumentCompletion::kNameThenFile:
        names.insert(names.end(), value_order_.begin(), value_order_.end());
        [[fallthrough]];
      case ArgumentCompletion::kComputation:
        for (const Computation& c : computations_) names.push_back(c.name);
        break;
      case ArgumentCompletion::kInstruction:
        for (const Computation& c : computations_) {
          names.push_back(c.name);
          AddInstructionNames(c.text, &names);
        }
        break;
      case ArgumentCompletion::kNone:
      case ArgumentCompletion::kFile:
      case ArgumentCompletion::kExpression:
        break;
    }
    // Names may be written with their %.
    const bool percent = !prefix.empty() && prefix[0] == '%';
    const absl::string_view bare = percent ? prefix.substr(1) : prefix;
    for (const std::string& name : names) {
      if (!absl::StartsWith(name, bare)) continue;
      if (percent && absl::StartsWith(name, "--")) continue;
      out.push_back(percent ? "%" + name : name);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> Session::CompleteLine(absl::string_view line, size_t* word_start) const {
  ArgumentCompletion kind = ArgumentCompletion::kExpression;
  // After `:command `, the command's arguments.
  const absl::string_view trimmed = absl::StripLeadingAsciiWhitespace(line);
  if (!trimmed.empty() && trimmed[0] == ':') {
    const size_t space = trimmed.find_first_of(" \t");
    if (space != absl::string_view::npos) {
      const CommandInfo* command = FindCommand(trimmed.substr(1, space - 1));
      kind = command != nullptr ? command->completion : ArgumentCompletion::kNone;
    }
  }
  if (kind == ArgumentCompletion::kNameThenFile) {
    // NAME FILE: the second argument is a path.
    const size_t space = trimmed.find_first_of(" \t");
    const std::vector<std::string> words = absl::StrSplit(
        trimmed.substr(space), absl::ByAnyChar(" \t"), absl::SkipEmpty());
    const bool in_word = !line.empty() && !absl::ascii_isspace(line.back());
    kind = words.size() - (in_word ? 1 : 0) >= 1 ? ArgumentCompletion::kFile
                                                 : ArgumentCompletion::kName;
  }
  size_t start = line.size();
  if (kind == ArgumentCompletion::kFile) {
    while (start > 0 && !absl::ascii_isspace(line[start - 1])) --start;
  } else if (kind == ArgumentCompletion::kRun) {
    // A path is one word up to the space; a name stops at its own characters.
    size_t word = start;
    while (word > 0 && !absl::ascii_isspace(line[word - 1])) --word;
    if (line.substr(word).find('/') != absl::string_view::npos) {
      start = word;
    } else {
      while (start > 0 && IsWordChar(line[start - 1])) --start;
    }
  } else {
    while (start > 0 && IsWordChar(line[start - 1])) --start;
  }
  *word_start = start;
  return ArgumentCompletions(kind, line.substr(start));
}

}  // namespace repl
}  // namespace hlovm
