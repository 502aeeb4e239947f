// Parsing HLO text (frontend/parser.h): the module and its header
// attributes, computations, and instructions with their operands. The
// parser's token level and the files of its other rules are described in
// frontend/parser_internal.h.
#include "frontend/parser.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/element_type.h"
#include "core/hlo_ir.h"
#include "core/hlo_opcode.h"
#include "core/literal.h"
#include "core/shape.h"
#include "core/status_macros.h"
#include "core/text_cursor.h"

#include "frontend/parser_internal.h"
#include "frontend/stablehlo/stablehlo_parser.h"

namespace hlovm {
namespace parser_internal {

//===----------------------------------------------------------------------===//
// Module and computations.
//===----------------------------------------------------------------------===//

absl::StatusOr<std::unique_ptr<HloModule>> Parser::Run() {
  auto module = std::make_unique<HloModule>("");
  module_ = module.get();
  Skip();
  if (pos_ >= n_) {
    if (bad_comment_) return Error(0, "");
    return Error(pos_, "expects HloModule");
  }
  bool single = false;
  if (!PeekWord("HloModule") && !PeekWord("ENTRY")) {
    if (CanBeShape()) {
      single = true;
    } else {
      size_t save = pos_;
      std::string_view name = LexName();
      char next = Peek();
      if (!name.empty() && (next == '=' || (next == '(' && HloOpcodeFromName(name).has_value()))) {
        single = true;
      }
      pos_ = save;
    }
  }
  absl::Status status;
  if (single) {
    if (!options_.allow_single_instruction) {
      return ErrorHere("expects HloModule");
    }
    status = ParseSingleInstruction(module.get());
  } else {
    HloModule* m = module.get();
    status = ParseModule(&m);
  }
  if (!status.ok()) {
    if (errors_.empty()) return status;
    if (!absl::IsAborted(status) && !absl::IsCancelled(status)) {
      errors_.push_back(std::string(status.message()));
    }
    return absl::InvalidArgumentError(absl::StrJoin(errors_, "\n"));
  }
  if (bad_comment_) return Error(0, "");
  if (!errors_.empty()) return absl::InvalidArgumentError(absl::StrJoin(errors_, "\n"));
  if (options_.keep_source) {
    module->source_text = std::make_shared<const std::string>(s_);
  }
  module->source_name = options_.file_name;
  return module;
}

absl::Status Parser::ParseModule(HloModule** module_out) {
  HloModule* module = *module_out;
  if (EatWord("HloModule")) {
    std::string_view name = LexName();
    if (name.empty()) return ErrorHere("expects name");
    module->set_name(std::string(name));
    Eat(':');
    while (Eat(',')) HLOVM_RETURN_IF_ERROR(ParseHeaderAttributes(module));
    HLOVM_RETURN_IF_ERROR(ParseStackFrameIndex(module));
  } else {
    if (!options_.allow_missing_header) return ErrorHere("expects HloModule");
    module->has_header = false;
  }
  bool saw_entry = false;
  HloComputation* entry = nullptr;
  do {
    HLOVM_RETURN_IF_ERROR(ParseComputation(&saw_entry, &entry));
  } while (!AtEnd());
  if (entry == nullptr) {
    // The last computation written at top level (not an inline or async
    // wrapped one) is the entry.
    for (auto it = module->computations().rbegin(); it != module->computations().rend(); ++it) {
      if (!(*it)->is_inline && !(*it)->is_async_wrapped) {
        entry = it->get();
        break;
      }
    }
  }
  if (entry == nullptr) return Error(pos_, "module has no computation");
  entry->set_is_entry(true);
  module->set_entry(entry);
  if (!module->has_header) module->set_name(Cat("module_", entry->name()));
  return absl::OkStatus();
}

absl::Status Parser::ParseHeaderAttributes(HloModule* module) {
  Skip();
  size_t name_offset = pos_;
  std::string_view name = LexIdent();
  if (name.empty() || !Eat('=')) return Error(name_offset, "expects attribute name");
  for (const auto& [existing, value] : module->raw_attributes) {
    if (existing == name) {
      return Error(name_offset, Cat("attribute ", name, " already exists"));
    }
  }
  Skip();
  size_t value_offset = pos_;
  if (name == "is_scheduled") {
    HLOVM_RETURN_IF_ERROR(ParseBool(&module->is_scheduled));
  } else if (name == "alias_passthrough_params") {
    HLOVM_RETURN_IF_ERROR(ParseBool(&module->alias_passthrough_params));
  } else if (name == "replica_count" || name == "num_partitions") {
    HLOVM_RETURN_IF_ERROR(ParseInt64(name == "replica_count" ? &module->replica_count
                                                             : &module->num_partitions));
    absl::Status counts = ValidateInstanceCounts(module->replica_count, module->num_partitions);
    if (!counts.ok()) return Error(value_offset, std::string(counts.message()));
  } else if (name == "input_output_alias") {
    HLOVM_RETURN_IF_ERROR(ParseAliasing(module));
  } else if (name == "buffer_donor") {
    HLOVM_RETURN_IF_ERROR(ParseBufferDonor(module));
  } else if (name == "entry_computation_layout") {
    HLOVM_RETURN_IF_ERROR(Expect('{', "Expects '{' at the start of aliasing description"));
    HLOVM_RETURN_IF_ERROR(Expect('(', "Expects ( before parameter shape list"));
    std::vector<Shape> params;
    while (Peek() != ')') {
      Shape shape;
      HLOVM_RETURN_IF_ERROR(ParseShapeHere(&shape));
      params.push_back(std::move(shape));
      if (Peek() == ')') break;
      HLOVM_RETURN_IF_ERROR(Expect(',', "Expects , between parameter shapes"));
    }
    HLOVM_RETURN_IF_ERROR(Expect(')', "Expects ) at end of parameter shape list"));
    Skip();
    if (s_.substr(pos_, 2) != "->") return ErrorHere("Expects -> before result shape");
    pos_ += 2;
    Shape result;
    HLOVM_RETURN_IF_ERROR(ParseShapeHere(&result));
    HLOVM_RETURN_IF_ERROR(Expect('}', "Expects '}' at the end of computation layouts"));
    module->entry_parameter_layouts = std::move(params);
    module->entry_result_layout = std::move(result);
  } else {
    // frontend_attributes, allow_spmd_sharding_propagation_*, and attributes
    // unknown to hlovm are kept as text.
    HLOVM_RETURN_IF_ERROR(SkipValue());
    if (name == "debug_attributes") {
      std::string_view value = s_.substr(value_offset, pos_ - value_offset);
      size_t at = 0;
      while ((at = value.find("log_mode=", at)) != std::string_view::npos) {
        at += 9;
        size_t end = at;
        while (end < value.size() && IsNameChar(value[end])) ++end;
        std::string_view mode = value.substr(at, end - at);
        if (mode != "default" && mode != "fusion_debugger" && mode != "none" &&
            mode != "disabled") {
          return Error(value_offset + at, Cat("Invalid debug_log_mode value: ", mode));
        }
      }
    }
  }
  module->raw_attributes.emplace_back(std::string(name),
                                      std::string(s_.substr(value_offset, pos_ - value_offset)));
  return absl::OkStatus();
}

// FileNames / FunctionNames / FileLocations / StackFrames tables after the
// header: checked for form and kept as text.
absl::Status Parser::ParseStackFrameIndex(HloModule* module) {
  if (!PeekWord("FileNames")) return absl::OkStatus();
  StackFrameIndex index;
  // `{name=int name=int ...}` into `fields` (names must be known).
  auto sub_attributes = [&](std::initializer_list<std::pair<std::string_view, int64_t*>> fields)
      -> absl::Status {
    HLOVM_RETURN_IF_ERROR(Expect('{', "expects '{' to start sub attributes"));
    while (Peek() != '}') {
      Eat(',');
      Skip();
      size_t offset = pos_;
      std::string_view name = LexIdent();
      if (name.empty() || !Eat('=')) return Error(offset, "expects attribute name");
      int64_t* target = nullptr;
      for (const auto& [field, ptr] : fields) {
        if (field == name) target = ptr;
      }
      if (target == nullptr) return Error(offset, Cat("unexpected attribute \"", name, "\""));
      HLOVM_RETURN_IF_ERROR(ParseInt64(target));
    }
    ++pos_;
    return absl::OkStatus();
  };
  auto strings = [&](std::vector<std::string>* out) -> absl::Status {
    while (IsDigit(Peek())) {
      int64_t id = 0;
      HLOVM_RETURN_IF_ERROR(ParseInt64(&id));
      out->emplace_back();
      HLOVM_RETURN_IF_ERROR(ParseString(&out->back()));
    }
    return absl::OkStatus();
  };
  EatWord("FileNames");
  HLOVM_RETURN_IF_ERROR(strings(&index.file_names));
  if (!EatWord("FunctionNames")) return ErrorHere("expects 'FunctionNames'");
  HLOVM_RETURN_IF_ERROR(strings(&index.function_names));
  if (!EatWord("FileLocations")) return ErrorHere("expects 'FileLocations'");
  while (IsDigit(Peek())) {
    int64_t id = 0;
    HLOVM_RETURN_IF_ERROR(ParseInt64(&id));
    StackFrameIndex::FileLocation l;
    HLOVM_RETURN_IF_ERROR(sub_attributes({{"file_name_id", &l.file_name_id},
                                          {"function_name_id", &l.function_name_id},
                                          {"line", &l.line},
                                          {"end_line", &l.end_line},
                                          {"column", &l.column},
                                          {"end_column", &l.end_column}}));
    index.file_locations.push_back(l);
  }
  if (!EatWord("StackFrames")) return ErrorHere("expects 'StackFrames'");
  while (IsDigit(Peek())) {
    int64_t id = 0;
    HLOVM_RETURN_IF_ERROR(ParseInt64(&id));
    StackFrameIndex::Frame f;
    HLOVM_RETURN_IF_ERROR(sub_attributes(
        {{"file_location_id", &f.file_location_id}, {"parent_frame_id", &f.parent_frame_id}}));
    index.stack_frames.push_back(f);
  }
  module->stack_frame_index = std::move(index);
  return absl::OkStatus();
}

absl::Status Parser::ParseAliasing(HloModule* module) {
  HLOVM_RETURN_IF_ERROR(Expect('{', "Expects '{' at the start of aliasing description"));
  const char* kFormat =
      "Expected format: <output_shape_index>: (<input_param>, <input_param_shape_index>) OR "
      "<output_shape_index>: <input_param>";
  while (Peek() != '}') {
    InputOutputAlias alias;
    HLOVM_RETURN_IF_ERROR(ParseShapeIndex(&alias.output_index));
    HLOVM_RETURN_IF_ERROR(Expect(':', kFormat));
    HLOVM_RETURN_IF_ERROR(Expect('(', kFormat));
    HLOVM_RETURN_IF_ERROR(ParseInt64(&alias.parameter_number));
    HLOVM_RETURN_IF_ERROR(Expect(',', kFormat));
    HLOVM_RETURN_IF_ERROR(ParseShapeIndex(&alias.parameter_index));
    if (Eat(',')) {
      std::string_view kind = LexName();
      if (kind == "must-alias") {
        alias.must_alias = true;
      } else if (kind != "may-alias") {
        return ErrorHere("Unexpected aliasing kind; expected must-alias or may-alias");
      }
    }
    HLOVM_RETURN_IF_ERROR(Expect(')', kFormat));
    module->input_output_alias.push_back(std::move(alias));
    if (!Eat(',')) break;
  }
  return Expect('}', "Expects '}' at the end of aliasing description");
}

absl::Status Parser::ParseBufferDonor(HloModule* module) {
  HLOVM_RETURN_IF_ERROR(Expect('{', "Expects '{' at the start of buffer donor description"));
  const char* kFormat = "Expected format: (<input_param>, <input_param_shape_index>)";
  while (Peek() != '}') {
    BufferDonor donor;
    HLOVM_RETURN_IF_ERROR(Expect('(', kFormat));
    HLOVM_RETURN_IF_ERROR(ParseInt64(&donor.parameter_number));
    HLOVM_RETURN_IF_ERROR(Expect(',', kFormat));
    HLOVM_RETURN_IF_ERROR(ParseShapeIndex(&donor.parameter_index));
    HLOVM_RETURN_IF_ERROR(Expect(')', kFormat));
    module->buffer_donor.push_back(std::move(donor));
    if (!Eat(',')) break;
  }
  return Expect('}', "Expects '}' at the end of buffer donor description");
}

absl::Status Parser::ParseComputation(bool* saw_entry, HloComputation** entry) {
  Skip();
  size_t start = pos_;
  bool is_entry = EatWord("ENTRY");
  Skip();
  size_t name_offset = pos_;
  std::string_view name = LexName();
  if (name.empty()) return Error(name_offset, "expects name");
  if (is_entry && *saw_entry) return Error(start, "expects only one ENTRY");
  std::optional<Shape> signature;
  size_t signature_offset = 0;
  if (Peek() == '(') {
    ++pos_;
    std::vector<Shape> params;
    while (Peek() != ')') {
      std::string_view param = LexName();
      if (param.empty()) return ErrorHere("expects name");
      HLOVM_RETURN_IF_ERROR(Expect(':', "expects ':'"));
      Shape shape;
      HLOVM_RETURN_IF_ERROR(ParseShapeHere(&shape));
      params.push_back(std::move(shape));
      if (!Eat(',')) break;
    }
    HLOVM_RETURN_IF_ERROR(Expect(')', "expects ')' at the end of the parameter list"));
    Skip();
    if (s_.substr(pos_, 2) != "->") return ErrorHere("expects '->'");
    pos_ += 2;
    Skip();
    signature_offset = pos_;
    Shape result;
    HLOVM_RETURN_IF_ERROR(ParseShapeHere(&result));
    signature = std::move(result);
  }
  auto existing = computation_pool_.find(name);
  HloComputation* computation = NewComputation(std::string(name));
  computation->set_location(Locate(start));
  Scope scope;
  scope.computation = computation;
  HLOVM_RETURN_IF_ERROR(ParseInstructionList(computation, &scope));
  if (signature.has_value() && !failed_computations_.contains(computation) &&
      !signature->Compatible(computation->root()->shape())) {
    return Error(signature_offset,
                 Cat("Shape of computation ", name, ", ", Human(*signature),
                              ", is not compatible with that of its root instruction ",
                              computation->root()->name(), ", ",
                              Human(computation->root()->shape())));
  }
  while (Eat(',')) {
    Skip();
    size_t attr_offset = pos_;
    std::string_view attr = LexIdent();
    if (attr != "execution_thread" || !Eat('=')) {
      return Error(attr_offset, Cat("unexpected attribute \"", attr, "\""));
    }
    HLOVM_RETURN_IF_ERROR(ParseString(&computation->execution_thread));
  }
  if (existing != computation_pool_.end()) {
    return ErrorWithNote(name_offset, Cat("computation already exists: ", name),
                         existing->second.second, "computation previously defined here");
  }
  computation_pool_.emplace(computation->name(), std::make_pair(computation, name_offset));
  if (is_entry) {
    *saw_entry = true;
    *entry = computation;
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseInstructionList(HloComputation* computation, Scope* scope) {
  HLOVM_RETURN_IF_ERROR(Expect('{', "expects '{' at the beginning of instruction list."));
  bool closed = true;
  do {
    if (AtEnd()) return ErrorHere("expects '}' at the end of instruction list.");
    Skip();
    size_t start = pos_;
    if (depth_ == 0 && AtComputationHeader()) {
      // A '}' is missing: this computation ends here and the next one is
      // read as usual, rather than as instructions of this one.
      failed_computations_.insert(computation);
      absl::Status missing = Error(
          start, Cat("expects '}' to end computation ", computation->name(),
                     " before the next computation"));
      if (options_.max_errors <= 1) return missing;
      errors_.push_back(std::string(missing.message()));
      if (static_cast<int>(errors_.size()) >= options_.max_errors) {
        return absl::AbortedError("too many errors");
      }
      closed = false;
      break;
    }
    absl::Status status = ParseInstruction(scope);
    if (!status.ok()) {
      failed_computations_.insert(computation);
      // Report it, then go on with the next instruction so that one run
      // reports several errors; instructions that use a failed one are
      // skipped silently.
      HLOVM_RETURN_IF_ERROR(RecordAndRecover(status, start));
    }
  } while (Peek() != '}');
  if (closed) ++pos_;
  if (computation->instructions().empty()) {
    if (!closed) return absl::CancelledError("reported: the computation was not closed");
    return Error(pos_ - 1, "computation has no instructions");
  }
  HloInstruction* root = scope->root;
  if (root == nullptr) root = computation->instructions().back().get();
  computation->set_root(root);
  return absl::OkStatus();
}

bool Parser::AtComputationHeader() {
  const size_t save = pos_;
  bool header = EatWord("ENTRY");
  if (!header && !PeekWord("ROOT")) {
    const std::string_view name = LexName();
    const char next = Peek();
    if (!name.empty() && next == '{') {
      header = true;
    } else if (!name.empty() && next == '(') {
      // `name (p: f32[2], ...)` or `name ()`; not a tuple shape.
      ++pos_;
      header = Peek() == ')' || (!LexName().empty() && Peek() == ':');
    }
  }
  pos_ = save;
  return header;
}

absl::Status Parser::RecordAndRecover(const absl::Status& status, size_t start) {
  // Aborted: the error limit was reached; Run() reports what was collected.
  if (absl::IsAborted(status)) return status;
  const bool silent = absl::IsCancelled(status);
  if (bad_comment_ || depth_ > 1 || options_.max_errors <= 1) {
    if (errors_.empty()) {
      return silent ? Error(start, "instruction uses an instruction that failed to parse") : status;
    }
    if (!silent) errors_.push_back(std::string(status.message()));
    return absl::AbortedError("stopped after errors");
  }
  if (!silent) {
    errors_.push_back(std::string(status.message()));
    if (static_cast<int>(errors_.size()) >= options_.max_errors) {
      return absl::AbortedError("too many errors");
    }
  }
  // The failed instruction's name: uses of it are not reported again.
  size_t p = start;
  if (s_.substr(p, 4) == "ROOT" && !IsNameChar(PeekAt(p + 4))) p += 4;
  while (p < n_ && IsSpace(s_[p])) ++p;
  if (PeekAt(p) == '%') ++p;
  size_t name_start = p;
  while (p < n_ && IsNameChar(s_[p])) ++p;
  if (p > name_start) poisoned_.insert(s_.substr(name_start, p - name_start));
  // Resume at the next line, outside any brackets opened since `start`, that
  // starts an instruction (`[ROOT] name =`) or closes the computation.
  int depth = 0;
  p = start;
  while (p < n_) {
    char c = s_[p];
    if (c == '"') {
      ++p;
      while (p < n_ && s_[p] != '"' && s_[p] != '\n') p += s_[p] == '\\' ? 2 : 1;
      ++p;
      continue;
    }
    if (c == '{' || c == '(' || c == '[') ++depth;
    if (c == '}' || c == ')' || c == ']') --depth;
    ++p;
    if (c != '\n' || depth > 0) continue;
    size_t q = p;
    while (q < n_ && (s_[q] == ' ' || s_[q] == '\t' || s_[q] == '\r')) ++q;
    if (PeekAt(q) == '}' && depth == 0) {
      pos_ = q;
      return absl::OkStatus();
    }
    if (depth < 0) break;
    size_t r = q;
    if (s_.substr(r, 4) == "ROOT" && !IsNameChar(PeekAt(r + 4))) r += 4;
    while (r < n_ && (s_[r] == ' ' || s_[r] == '\t')) ++r;
    if (PeekAt(r) == '%') ++r;
    size_t id = r;
    while (r < n_ && IsNameChar(s_[r])) ++r;
    while (r < n_ && (s_[r] == ' ' || s_[r] == '\t')) ++r;
    if (r > id && PeekAt(r) == '=') {
      pos_ = q;
      return absl::OkStatus();
    }
  }
  // A bracket the failed instruction left open (a missing ')') hides every
  // line after it; resume instead at the first later line that starts an
  // instruction (`ROOT`, or a `%name =`) or holds only the `}` closing the
  // computation, so that the one error is not followed by "expects '}'".
  for (p = s_.find('\n', start); p != std::string_view::npos && p < n_;
       p = s_.find('\n', p + 1)) {
    size_t q = p + 1;
    while (q < n_ && (s_[q] == ' ' || s_[q] == '\t' || s_[q] == '\r')) ++q;
    if (PeekAt(q) == '}') {
      size_t e = q + 1;
      while (e < n_ && (s_[e] == ' ' || s_[e] == '\t' || s_[e] == '\r')) ++e;
      if (e >= n_ || s_[e] == '\n' || s_.substr(e, 2) == "//") {
        pos_ = q;
        return absl::OkStatus();
      }
      continue;
    }
    size_t r = q;
    const bool root = s_.substr(r, 4) == "ROOT" && !IsNameChar(PeekAt(r + 4));
    if (root) r += 4;
    while (r < n_ && (s_[r] == ' ' || s_[r] == '\t')) ++r;
    if (!root && PeekAt(r) != '%') continue;
    if (PeekAt(r) == '%') ++r;
    size_t id = r;
    while (r < n_ && IsNameChar(s_[r])) ++r;
    while (r < n_ && (s_[r] == ' ' || s_[r] == '\t')) ++r;
    if (r > id && PeekAt(r) == '=') {
      pos_ = q;
      return absl::OkStatus();
    }
  }
  pos_ = n_;
  return absl::OkStatus();
}

absl::Status Parser::ParseInstruction(Scope* scope) {
  Skip();
  size_t start = pos_;
  bool is_root = EatWord("ROOT");
  Skip();
  size_t name_offset = pos_;
  if (CanBeShape()) return Error(name_offset, "expects name");
  std::string_view name = LexName();
  if (name.empty()) return Error(name_offset, "expects name");
  HLOVM_RETURN_IF_ERROR(Expect('=', "expects '=' in instruction"));
  if (is_root && scope->root != nullptr) {
    return Error(start, "one computation should have only one ROOT");
  }
  HloInstruction* instr = nullptr;
  HLOVM_RETURN_IF_ERROR(ParseInstructionRhs(scope, name, name_offset, true, &instr));
  if (is_root) scope->root = instr;
  return absl::OkStatus();
}

absl::Status Parser::ParseSingleInstruction(HloModule* module) {
  HloComputation* computation = NewComputation("single_instruction");
  Scope scope;
  scope.computation = computation;
  scope.create_missing = true;
  Skip();
  size_t start = pos_;
  std::string_view name;
  size_t name_offset = pos_;
  if (!CanBeShape()) {
    name = LexName();
    if (name.empty()) return Error(name_offset, "expects name");
    HLOVM_RETURN_IF_ERROR(Expect('=', "expects '=' in instruction"));
  }
  HloInstruction* instr = nullptr;
  HLOVM_RETURN_IF_ERROR(ParseInstructionRhs(&scope, name, name_offset, true, &instr));
  if (!AtEnd()) return ErrorHere("Expected eof");
  computation->set_root(instr);
  computation->set_location(Locate(start));
  computation->set_is_entry(true);
  module->set_entry(computation);
  module->set_name("single_instruction_module");
  module->has_header = false;
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// Instructions.
//===----------------------------------------------------------------------===//

namespace {

bool IsCollectiveWithRealAsyncForm(std::string_view base) {
  return base == "all-reduce" || base == "all-gather" || base == "collective-permute" ||
         base == "copy" || base == "send" || base == "recv";
}

}  // namespace

absl::Status Parser::ParseInstructionRhs(Scope* scope, std::string_view name,
                                         size_t name_offset, bool allow_attributes,
                                         HloInstruction** out) {
  DepthGuard guard(this);
  if (guard.exceeded()) return ErrorHere("maximum recursion depth exceeded");
  Skip();
  size_t rhs_offset = pos_;
  Shape shape;
  const bool shape_given = CanBeShape();
  if (shape_given) {
    const Shape* ref = nullptr;
    HLOVM_RETURN_IF_ERROR(ParseShapeRef(&ref));
    shape = *ref;
  }

  Skip();
  size_t op_offset = pos_;
  std::string_view op_text = LexIdent();
  if (op_text.empty()) return Error(op_offset, "expects opcode");
  HloOpcode opcode;
  std::optional<HloOpcode> wrapped;
  if (std::optional<HloOpcode> found = HloOpcodeFromName(op_text)) {
    opcode = *found;
  } else {
    struct Suffix {
      std::string_view text;
      HloOpcode opcode;
    };
    static constexpr Suffix kSuffixes[] = {{"-start", HloOpcode::kAsyncStart},
                                           {"-update", HloOpcode::kAsyncUpdate},
                                           {"-done", HloOpcode::kAsyncDone}};
    bool matched = false;
    for (const Suffix& suffix : kSuffixes) {
      if (op_text.size() > suffix.text.size() &&
          op_text.substr(op_text.size() - suffix.text.size()) == suffix.text) {
        std::string_view base = op_text.substr(0, op_text.size() - suffix.text.size());
        if (IsCollectiveWithRealAsyncForm(base)) break;
        std::optional<HloOpcode> w = HloOpcodeFromName(base);
        if (!w) {
          return Error(op_offset, Cat("expects async wrapped opcode but sees: ", op_text,
                                               ", error: Unknown opcode: ", base));
        }
        opcode = suffix.opcode;
        wrapped = *w;
        matched = true;
        break;
      }
    }
    if (!matched) {
      std::string message = Cat("expects opcode but sees: ", op_text, ", error: Unknown opcode: ",
                                op_text);
      if (std::optional<std::string_view> near = NearestOpcodeName(op_text)) {
        message = Cat(message, " (did you mean ", *near, "?)");
      }
      return Error(op_offset, message);
    }
  }
  // A shape left out is inferred once the instruction has been read
  // (FinishInstruction), except where the text has nothing to infer it
  // from: a parameter, a constant (whose literal is read in its shape) and
  // the async shorthand (whose wrapped op is built from it).
  if (!shape_given &&
      (wrapped.has_value() || opcode == HloOpcode::kParameter || opcode == HloOpcode::kConstant)) {
    return Error(op_offset,
                 Cat("cannot infer shape for opcode: ", HloOpcodeName(opcode)));
  }

  std::string instr_name;
  if (name.empty()) {
    instr_name = UniqueName(Cat(HloOpcodeName(opcode), ".anon"));
  } else {
    instr_name.assign(name);
    auto it = scope->names.find(name);
    if (it != scope->names.end()) {
      return ErrorWithNote(name_offset, Cat("instruction already exists: ", name),
                           it->second->location().offset, "instruction previously defined here");
    }
  }
  auto owned = std::make_unique<HloInstruction>(opcode, std::move(instr_name), std::move(shape));
  HloInstruction* instr = owned.get();
  instr->set_location(Locate(name.empty() ? rhs_offset : name_offset));
  if (wrapped.has_value()) instr->mutable_attrs().async_wrapped_opcode = wrapped;

  // Operands.
  Skip();
  size_t operands_offset = pos_;
  std::vector<HloInstruction*> operands;
  if (opcode == HloOpcode::kParameter) {
    HLOVM_RETURN_IF_ERROR(Expect('(', "expects '(' before parameter number"));
    Skip();
    size_t number_offset = pos_;
    HLOVM_RETURN_IF_ERROR(ParseInt64(&instr->parameter_number));
    if (instr->parameter_number < 0) {
      return Error(number_offset, "parameter number must be >= 0");
    }
    HLOVM_RETURN_IF_ERROR(Expect(')', "expects ')' after parameter number"));
    HloComputation* c = scope->computation;
    if (instr->parameter_number < c->parameter_count() &&
        c->parameter(instr->parameter_number) != nullptr) {
      return Error(number_offset,
                   Cat("Duplicate parameter number ", instr->parameter_number));
    }
  } else if (opcode == HloOpcode::kConstant) {
    HLOVM_RETURN_IF_ERROR(Expect('(', "expects '(' before constant literal"));
    Literal literal;
    HLOVM_RETURN_IF_ERROR(ParseLiteralHere(instr->shape(), &literal));
    HLOVM_RETURN_IF_ERROR(Expect(')', "expects ')' after constant literal"));
    instr->literal = std::move(literal);
  } else {
    HLOVM_RETURN_IF_ERROR(ParseOperands(scope, &operands));
    int arity = HloOpcodeArity(opcode);
    if (GetOpSpec(opcode).operands == OperandRule::kAny) arity = kVariadic;
    if (arity != kVariadic && static_cast<int>(operands.size()) != arity) {
      return Error(operands_offset, Cat("expects ", arity, " operands, but has ",
                                                 operands.size(), " operands"));
    }
  }
  for (HloInstruction* operand : operands) instr->AppendOperand(operand);

  // Checks XLA's parser makes before reading attributes.
  const bool pred_conditional = opcode == HloOpcode::kConditional && !operands.empty() &&
                                operands[0]->shape().element_type() == ElementType::kPred;
  if (opcode == HloOpcode::kConditional) {
    if (operands.empty()) return Error(operands_offset, "conditional expects at least one operand");
    const Shape& index = operands[0]->shape();
    if (!index.IsArray() || index.rank() != 0) {
      return Error(pos_, "The first operand must be a scalar");
    }
    if (index.element_type() != ElementType::kPred && index.element_type() != ElementType::kS32) {
      return Error(pos_, "The first operand must be a scalar of PRED or S32");
    }
  }
  HloInstruction* async_source = nullptr;
  if (opcode == HloOpcode::kAsyncUpdate || opcode == HloOpcode::kAsyncDone) {
    if (operands.empty()) {
      return Error(operands_offset, "No operand found for AsyncUpdate and AsyncDone");
    }
    async_source = operands[0];
    if (async_source->opcode() == HloOpcode::kAsyncDone) {
      return Error(operands_offset, "AsyncUpdate and AsyncDone cannot have AsyncDone as operand.");
    }
    // The async state may reach update/done through other instructions (a
    // loop carry, a copy); only a direct async operand is followed.
    if (async_source->opcode() != HloOpcode::kAsyncStart &&
        async_source->opcode() != HloOpcode::kAsyncUpdate) {
      async_source = nullptr;
    }
  }
  if (shape_given && (opcode == HloOpcode::kAsyncStart || opcode == HloOpcode::kAsyncUpdate)) {
    const Shape& s = instr->shape();
    if (!s.IsTuple() || s.tuple_size() < 2 || !s.tuple_shape(0).IsTuple()) {
      return Error(op_offset,
                   "AsyncStart and AsyncUpdate expect the shape to be in the form of "
                   "((operand0_shape, operand1_shape, ...), output_shape, ...)");
    }
  }
  if (wrapped.has_value() && async_source != nullptr) {
    const std::vector<HloComputation*>& calls = async_source->called_computations();
    if (!calls.empty() && calls[0]->root() != nullptr &&
        calls[0]->root()->opcode() != *wrapped) {
      return Error(op_offset, Cat("Expect async wrapped opcode to be ",
                                           HloOpcodeName(calls[0]->root()->opcode()),
                                           ", but got ", HloOpcodeName(*wrapped)));
    }
  }

  // The shorthand async-start wraps the named op in a computation of its own;
  // the attributes written belong to the wrapped op.
  HloInstruction* target = instr;
  if (wrapped.has_value() && opcode == HloOpcode::kAsyncStart) {
    HLOVM_RETURN_IF_ERROR(BuildAsyncWrapped(scope, instr, *wrapped, op_offset, &target));
  }
  HloOpcode rule_opcode = target->opcode();

  Called called;
  AttrSet seen;
  if (allow_attributes) {
    // Conditional's branch attributes depend on the index type.
    HLOVM_RETURN_IF_ERROR(ParseAttributes(scope, target, instr, rule_opcode, &called, &seen));
    (void)pred_conditional;
  }
  HLOVM_RETURN_IF_ERROR(FinishInstruction(scope, target, &called, seen, op_offset, rhs_offset,
                                          operands_offset, shape_given));
  if (target != instr) {
    // Everything written was recorded on the async-start too, for printing.
    instr->raw_attributes() = target->raw_attributes();
    for (HloInstruction* pred : target->control_predecessors()) instr->AddControlPredecessor(pred);
    instr->mutable_attrs().sharding = target->attrs().sharding;
    instr->mutable_attrs().backend_config = target->attrs().backend_config;
    instr->mutable_attrs().async_execution_thread = target->attrs().async_execution_thread;
    target->mutable_attrs().async_execution_thread.clear();
  }

  // Async chains: update/done inherit the wrapped computation and thread.
  if (async_source != nullptr) {
    HloComputation* inherited = async_source->called_computations().empty()
                                    ? nullptr
                                    : async_source->called_computations()[0];
    HloComputation* calls = called.First(Attr::kCalls);
    if (calls != nullptr && inherited != nullptr && calls != inherited) {
      return Error(operands_offset, Cat("Expect async_wrapped_computation to be ",
                                        inherited->name(), ", but got ", calls->name()));
    }
    std::string source_thread = async_source->attrs().async_execution_thread.empty()
                                    ? "main"
                                    : async_source->attrs().async_execution_thread;
    if (seen.contains(Attr::kAsyncExecutionThread)) {
      std::string mine = instr->attrs().async_execution_thread.empty()
                             ? "main"
                             : instr->attrs().async_execution_thread;
      if (mine != source_thread) {
        return Error(operands_offset,
                     Cat("Expect async_execution_thread to be ", source_thread,
                                  ", but got ", mine));
      }
    }
    instr->mutable_attrs().async_execution_thread = async_source->attrs().async_execution_thread;
    if (instr->called_computations().empty() && inherited != nullptr) {
      instr->AppendCalledComputation(inherited);
    }
  }

  HloInstruction* added = AddToScope(scope, std::move(owned));
  if (!name.empty()) scope->names.emplace(added->name(), added);
  RegisterName(added);
  *out = added;
  return absl::OkStatus();
}

absl::Status Parser::BuildAsyncWrapped(Scope* scope, HloInstruction* start, HloOpcode wrapped,
                                       size_t offset, HloInstruction** root) {
  HloComputation* computation = NewComputation(UniqueComputationName("async_wrapped"));
  computation->is_async_wrapped = true;
  computation->set_location(start->location());
  int64_t number = 0;
  for (HloInstruction* operand : start->operands()) {
    auto param = std::make_unique<HloInstruction>(HloOpcode::kParameter, "async_param",
                                                  operand->shape());
    param->parameter_number = number++;
    param->set_location(start->location());
    HloInstruction* p = computation->AddInstruction(std::move(param));
    if (number > 1) p->set_name(Cat("async_param.", number - 1));
  }
  auto op = std::make_unique<HloInstruction>(wrapped, "async_op", start->shape().tuple_shape(1));
  op->set_location(start->location());
  for (int64_t i = 0; i < computation->parameter_count(); ++i) {
    op->AppendOperand(computation->parameter(i));
  }
  HloInstruction* r = computation->AddInstruction(std::move(op));
  computation->set_root(r);
  start->AppendCalledComputation(computation);
  // Operands may be bound late (by async-update), so the wrapped op's arity
  // is left to the verifier.
  (void)offset;
  *root = r;
  return absl::OkStatus();
}

absl::Status Parser::ParseOperands(Scope* scope, std::vector<HloInstruction*>* operands) {
  DepthGuard guard(this);
  if (guard.exceeded()) return ErrorHere("maximum recursion depth exceeded");
  HLOVM_RETURN_IF_ERROR(Expect('(', "expects '(' at the beginning of operands"));
  if (Eat(')')) return absl::OkStatus();
  do {
    HloInstruction* operand = nullptr;
    HLOVM_RETURN_IF_ERROR(ParseOperand(scope, &operand));
    operands->push_back(operand);
  } while (Eat(','));
  return Expect(')', "expects ')' at the end of operands");
}

absl::Status Parser::ParseOperand(Scope* scope, HloInstruction** out) {
  Skip();
  size_t start = pos_;
  const Shape* shape = nullptr;
  if (CanBeShape()) HLOVM_RETURN_IF_ERROR(ParseShapeRef(&shape));
  Skip();
  size_t name_offset = pos_;
  bool percent = PeekAt(pos_) == '%';
  std::string_view name = LexName();
  if (!name.empty() && !percent && Peek() == '(') {
    // A nested instruction: `add(x, multiply(y, z))`.
    pos_ = start;
    return ParseInstructionRhs(scope, "", start, /*allow_attributes=*/false, out);
  }
  HloInstruction* operand = nullptr;
  if (!name.empty() && !percent && Peek() == '=') {
    // `add(%a, %b, dimensions={0}`: the operand list was not closed.
    return Error(name_offset, Cat("expects ')' at the end of operands, before attribute ", name));
  }
  if (name.empty()) {
    if (shape != nullptr && scope->create_missing) {
      auto param = std::make_unique<HloInstruction>(HloOpcode::kParameter,
                                                    UniqueName("parameter.anon"), *shape);
      param->parameter_number = scope->next_parameter++;
      param->set_location(Locate(start));
      operand = AddToScope(scope, std::move(param));
      RegisterName(operand);
      *out = operand;
      return absl::OkStatus();
    }
    return Error(name_offset, "expects name");
  }
  auto it = scope->names.find(name);
  if (it != scope->names.end()) {
    operand = it->second;
  } else if (scope->create_missing) {
    if (shape == nullptr) {
      return Error(name_offset,
                   "Operand had no shape in HLO text; cannot create parameter for "
                   "single-instruction module.");
    }
    auto param = std::make_unique<HloInstruction>(HloOpcode::kParameter, std::string(name), *shape);
    param->parameter_number = scope->next_parameter++;
    param->set_location(Locate(name_offset));
    operand = AddToScope(scope, std::move(param));
    scope->names.emplace(operand->name(), operand);
    RegisterName(operand);
  } else {
    if (poisoned_.contains(name)) return absl::CancelledError("uses a failed instruction");
    // Reported once: later uses of the same missing name are not.
    poisoned_.insert(name);
    return Error(name_offset, Cat("instruction does not exist: ", name));
  }
  // Compact tuple-element form: %t#1#0.
  while (PeekAt(pos_) == '#') {
    ++pos_;
    size_t index_offset = pos_;
    int64_t index = 0;
    HLOVM_RETURN_IF_ERROR(ParseInt64(&index));
    if (!operand->shape().IsTuple()) return Error(index_offset, "GTE operand must be tuple");
    if (index < 0 || index >= operand->shape().tuple_size()) {
      return Error(index_offset, Cat("GTE index ", index, " out of bounds"));
    }
    auto key = std::make_pair(operand, index);
    auto found = scope->gtes.find(key);
    if (found != scope->gtes.end()) {
      operand = found->second;
      continue;
    }
    auto gte = std::make_unique<HloInstruction>(HloOpcode::kGetTupleElement,
                                                UniqueName(Cat(operand->name(), "_", index)),
                                                operand->shape().tuple_shape(index));
    gte->tuple_index = index;
    gte->AppendOperand(operand);
    gte->set_location(Locate(name_offset));
    gte->raw_attributes().Append(AttributeName(Attr::kIndex), Cat(index));
    HloInstruction* g = AddToScope(scope, std::move(gte));
    RegisterName(g);
    scope->gtes.emplace(key, g);
    operand = g;
  }
  if (shape != nullptr && !shape->Compatible(operand->shape())) {
    return Error(name_offset,
                 Cat("The declared operand shape ", HumanWithLayout(*shape),
                              " is not compatible with the shape of the operand instruction ",
                              HumanWithLayout(operand->shape()), "."));
  }
  char next = Peek();
  if (next != ',' && next != ')') return ErrorHere("expects ',' or ')' after operand");
  *out = operand;
  return absl::OkStatus();
}

}  // namespace parser_internal

using parser_internal::IsSpace;
using parser_internal::Parser;

//===----------------------------------------------------------------------===//
// Public entry points.
//===----------------------------------------------------------------------===//

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(std::string_view text,
                                                          const ParseOptions& options) {
  // StableHLO MLIR text (a `.mlir` file, or text opening with `module` or
  // `func.func`) goes to its own frontend, which builds the same IR.
  if (LooksLikeStableHlo(text, options.file_name)) return ParseStableHloModule(text, options);
  Parser parser(text, options);
  return parser.Run();
}

bool IsBlankText(std::string_view text) {
  size_t p = 0;
  while (p < text.size()) {
    char c = text[p];
    if (IsSpace(c)) {
      ++p;
    } else if (c == '/' && p + 1 < text.size() && text[p + 1] == '/') {
      while (p < text.size() && text[p] != '\n') ++p;
    } else if (c == '/' && p + 1 < text.size() && text[p + 1] == '*') {
      size_t end = text.find("*/", p + 2);
      if (end == std::string_view::npos) return false;
      p = end + 2;
    } else {
      return false;
    }
  }
  return true;
}

std::vector<TextChunk> SplitInputFile(std::string_view text) {
  std::vector<TextChunk> chunks;
  size_t chunk_start = 0;
  int chunk_line = 1;
  int line = 1;
  size_t p = 0;
  while (p <= text.size()) {
    size_t end = text.find('\n', p);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(p, end - p);
    size_t first = l.find_first_not_of(" \t");
    if (first != std::string_view::npos && l.substr(first, 8) == "// -----") {
      chunks.push_back(TextChunk{text.substr(chunk_start, p - chunk_start), chunk_line});
      chunk_start = std::min(end + 1, text.size());
      chunk_line = line + 1;
    }
    if (end == text.size()) break;
    p = end + 1;
    ++line;
  }
  chunks.push_back(TextChunk{text.substr(chunk_start), chunk_line});
  return chunks;
}

}  // namespace hlovm
