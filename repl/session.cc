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
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/element_type.h"
#include "core/hlo_opcode.h"
#include "core/npy.h"
#include "core/status_macros.h"
#include "core/text_cursor.h"
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

constexpr absl::string_view kAttributes[] = {
    "dimensions",         "to_apply",          "condition",        "body",
    "branch_computations", "true_computation", "false_computation", "direction",
    "index",              "slice",             "padding",          "window",
    "dim_labels",         "lhs_contracting_dims", "rhs_contracting_dims", "lhs_batch_dims",
    "rhs_batch_dims",     "feature_group_count", "batch_group_count", "distribution",
    "comparator",         "is_stable",         "iota_dimension",   "offset_dims",
    "collapsed_slice_dims", "start_index_map", "index_vector_dim", "slice_sizes",
    "update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims",
    "indices_are_sorted", "unique_indices",    "dynamic_slice_sizes", "exponent_bits",
    "mantissa_bits",      "fft_type",          "fft_length",       "k",
    "largest",            "custom_call_target", "backend_config",  "type",
    "replica_groups",     "channel_id",        "reverse",          "precision_config",
    "algorithm",          "rng_algorithm",     "left_side",        "lower",
    "unit_diagonal",      "transpose_a",       "epsilon",          "feature_index",
};

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

}  // namespace

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
      used = (ids[i] == "to_apply") && ids[i + 1] == name;
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
      CompileOptions compile_options = ReplCompileOptions("repl");
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

bool Session::HandleInstruction(absl::string_view input) {
  Prepared prepared;
  if (!PrepareInstruction(input, &prepared)) return false;
  return Execute(prepared);
}

bool Session::Execute(Prepared& prepared) {
  cancel_.store(false);
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
  absl::StatusOr<Literal> result = prepared.exe->Execute(pointers, options);
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
  CompileOptions options = ReplCompileOptions("repl");
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
  CompileOptions options = ReplCompileOptions(std::string(file_name));
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
  Print(absl::StrCat("loaded ", count, " computation", count == 1 ? "" : "s", "; ENTRY ",
                     Signature(*module.entry()), "\n`:run ARGS` runs it"));
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
  CompileOptions options = ReplCompileOptions("repl");
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
    {"help", "h ?", "[OPCODE]", "this text, or an op's operands, attributes and meaning",
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
    {"save", "", "FILE.hlo", "the session as a module (`hlovm check` / `hlovm run` it)",
     Completion::kFile, false, false, &Session::CmdSave},
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
    absl::StatusOr<Literal> result = prepared.exe->Execute(pointers, options);
    execute.push_back(Millis(Clock::now() - t0));
    if (!result.ok()) {
      Error(cancel_.exchange(false) ? std::string("interrupted") : std::string(result.status().message()));
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

bool Session::CmdReset(absl::string_view /*args*/) {
  debugger_->Kill();
  debugger_ = std::make_unique<Debugger>();
  values_.clear();
  value_order_.clear();
  computations_.clear();
  entry_.clear();
  threads_ = 0;
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
  debugger_->AddWatch(name);
  Print(absl::StrCat("watching %", name));
  return true;
}

bool Session::CmdDelete(absl::string_view args) {
  std::string name(args.substr(!args.empty() && args[0] == '%' ? 1 : 0));
  if (!debugger_->ClearBreakpoint(name)) {
    Error(absl::StrCat("no breakpoint or watch on ", name));
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
      for (absl::string_view a : kAttributes) add(a);
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
  } else {
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
  size_t start = line.size();
  if (kind == ArgumentCompletion::kFile) {
    while (start > 0 && !absl::ascii_isspace(line[start - 1])) --start;
  } else {
    while (start > 0 && IsWordChar(line[start - 1])) --start;
  }
  *word_start = start;
  return ArgumentCompletions(kind, line.substr(start));
}

}  // namespace repl
}  // namespace hlovm
