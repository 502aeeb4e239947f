// The StableHLO MLIR parser's token level, types, attributes, `dense<...>`
// literals and structure (module, functions, regions, statements). The ops
// themselves are in stablehlo_ops.cc.
#include "frontend/stablehlo/stablehlo_parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <complex>
#include <functional>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/element_type.h"
#include "core/status_macros.h"
#include "core/text_cursor.h"
#include "frontend/attribute_table.h"
#include "frontend/stablehlo/stablehlo_internal.h"

namespace hlovm {
namespace stablehlo_internal {
namespace {

bool IsIdStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdChar(char c) { return IsIdStart(c) || IsDigit(c) || c == '$' || c == '.'; }
bool IsValueNameChar(char c) { return IsIdChar(c) || c == '-'; }
bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }



// One element of a `dense<...>` value as written.
struct DenseElem {
  enum Kind : uint8_t { kInt, kFloat, kHex, kBool } kind = kInt;
  bool negative = false;
  uint64_t u = 0;  // kInt magnitude, kHex bits, kBool 0/1
  double d = 0;    // kFloat
  size_t offset = 0;
};

}  // namespace

Shape WithDefaultLayout(Shape shape) {
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      *shape.mutable_tuple_shape(i) = WithDefaultLayout(shape.tuple_shape(i));
    }
  } else if (shape.IsArray()) {
    shape.set_layout(Layout::RowMajor(shape.rank()));
  }
  return shape;
}

Parser::Parser(std::string_view text, const ParseOptions& options)
    : s_(text), n_(text.size()), options_(options) {}

//===----------------------------------------------------------------------===//
// Lexing.
//===----------------------------------------------------------------------===//

void Parser::Skip() {
  while (pos_ < n_) {
    char c = s_[pos_];
    if (IsSpace(c)) {
      ++pos_;
    } else if (c == '/' && PeekAt(pos_ + 1) == '/') {
      while (pos_ < n_ && s_[pos_] != '\n') ++pos_;
    } else {
      break;
    }
  }
}

char Parser::Peek() {
  Skip();
  return pos_ < n_ ? s_[pos_] : '\0';
}

bool Parser::Eat(char c) {
  if (Peek() != c) return false;
  ++pos_;
  return true;
}

bool Parser::EatStr(std::string_view str) {
  Skip();
  if (s_.substr(pos_, str.size()) != str) return false;
  pos_ += str.size();
  return true;
}

bool Parser::EatWord(std::string_view word) {
  Skip();
  if (s_.substr(pos_, word.size()) != word) return false;
  if (IsIdChar(PeekAt(pos_ + word.size()))) return false;
  pos_ += word.size();
  return true;
}

bool Parser::PeekWord(std::string_view word) {
  size_t save = pos_;
  bool yes = EatWord(word);
  pos_ = save;
  return yes;
}

std::string_view Parser::LexBareId() {
  Skip();
  if (!IsIdStart(PeekAt(pos_))) return {};
  size_t start = pos_;
  while (pos_ < n_ && IsIdChar(s_[pos_])) ++pos_;
  return s_.substr(start, pos_ - start);
}

absl::Status Parser::Expect(char c, std::string_view what) {
  if (Eat(c)) return absl::OkStatus();
  return ErrorHere(absl::StrCat("expected '", std::string(1, c), "' ", Sv(what)));
}

absl::Status Parser::ExpectWord(std::string_view word) {
  if (EatWord(word)) return absl::OkStatus();
  return ErrorHere(absl::StrCat("expected '", Sv(word), "'"));
}

absl::Status Parser::ParseInt(int64_t* out) {
  Skip();
  size_t p = pos_;
  bool negative = false;
  if (PeekAt(p) == '-') {
    negative = true;
    ++p;
  }
  if (!IsDigit(PeekAt(p))) return ErrorHere("expected integer");
  uint64_t value = 0;
  if (PeekAt(p) == '0' && PeekAt(p + 1) == 'x') {
    p += 2;
    size_t start = p;
    while (p < n_ && std::isxdigit(static_cast<unsigned char>(s_[p]))) ++p;
    auto [ptr, ec] = std::from_chars(s_.data() + start, s_.data() + p, value, 16);
    if (ec != std::errc() || p == start) return ErrorHere("bad hexadecimal integer");
  } else {
    size_t start = p;
    while (p < n_ && IsDigit(s_[p])) ++p;
    auto [ptr, ec] = std::from_chars(s_.data() + start, s_.data() + p, value);
    if (ec != std::errc()) return ErrorHere("integer out of range");
  }
  if (IsIdChar(PeekAt(p)) && PeekAt(p) != 'x') return ErrorHere("expected integer");
  uint64_t limit = negative ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1;
  if (value > limit) return ErrorHere("integer out of range");
  *out = negative ? static_cast<int64_t>(0 - value) : static_cast<int64_t>(value);
  pos_ = p;
  return absl::OkStatus();
}

absl::Status Parser::ParseString(std::string* out) {
  if (Peek() != '"') return ErrorHere("expected string");
  size_t start = pos_ + 1;
  size_t p = start;
  bool escaped = false;
  while (p < n_ && s_[p] != '"') {
    if (s_[p] == '\\') {
      escaped = true;
      ++p;
    }
    ++p;
  }
  if (p >= n_) return ErrorHere("unterminated string");
  std::string_view body = s_.substr(start, p - start);
  if (escaped) {
    // MLIR escapes are `\\`, `\"`, `\n`, `\t` and two hex digits `\XX`.
    out->clear();
    for (size_t i = 0; i < body.size(); ++i) {
      char c = body[i];
      if (c != '\\' || i + 1 >= body.size()) {
        out->push_back(c);
        continue;
      }
      char d = body[++i];
      if (d == 'n') {
        out->push_back('\n');
      } else if (d == 't') {
        out->push_back('\t');
      } else if (d == '\\' || d == '"') {
        out->push_back(d);
      } else if (i + 1 < body.size() && std::isxdigit(static_cast<unsigned char>(d)) &&
                 std::isxdigit(static_cast<unsigned char>(body[i + 1]))) {
        unsigned v = 0;
        std::from_chars(body.data() + i, body.data() + i + 2, v, 16);
        out->push_back(static_cast<char>(v));
        ++i;
      } else {
        return Error(start + i - 1, "bad escape in string");
      }
    }
  } else {
    out->assign(body);
  }
  pos_ = p + 1;
  return absl::OkStatus();
}

absl::Status Parser::ParseSymbol(std::string* out) {
  if (!Eat('@')) return ErrorHere("expected symbol name '@...'");
  if (PeekAt(pos_) == '"') return ParseString(out);
  size_t start = pos_;
  while (pos_ < n_ && IsValueNameChar(s_[pos_])) ++pos_;
  if (pos_ == start) return ErrorHere("expected symbol name");
  out->assign(s_.substr(start, pos_ - start));
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// Errors.
//===----------------------------------------------------------------------===//

std::string Parser::FormatAt(size_t offset, std::string_view message) const {
  if (offset > n_) offset = n_;
  LineColumn lc = GetLineColumn(s_, offset);
  size_t line_start = offset - static_cast<size_t>(lc.column - 1);
  size_t line_end = line_start;
  while (line_end < n_ && s_[line_end] != '\n' && s_[line_end] != '\r') ++line_end;
  std::string caret;
  for (size_t i = line_start; i < offset && i < line_end; ++i) {
    caret.push_back(s_[i] == '\t' ? '\t' : ' ');
  }
  caret.push_back('^');
  std::string prefix = options_.file_name.empty() ? "" : absl::StrCat(options_.file_name, ":");
  return absl::StrCat(prefix, lc.line + options_.first_line - 1, ":", lc.column,
                      ": error: ", Sv(message), "\n",
                      Sv(s_.substr(line_start, line_end - line_start)), "\n", caret);
}

SourceLocation Parser::Locate(size_t offset) {
  if (offset > n_) offset = n_;
  if (offset < loc_offset_) {
    loc_offset_ = 0;
    loc_line_ = 1;
    loc_line_start_ = 0;
  }
  for (size_t i = loc_offset_; i < offset; ++i) {
    if (s_[i] == '\n') {
      ++loc_line_;
      loc_line_start_ = i + 1;
    }
  }
  loc_offset_ = offset;
  return SourceLocation{offset, loc_line_ + options_.first_line - 1,
                        static_cast<int>(offset - loc_line_start_) + 1};
}

void Parser::MarkOp(HloComputation* computation, int64_t first, size_t offset) {
  const SourceLocation location = Locate(offset);
  const auto& instructions = computation->instructions();
  for (size_t k = static_cast<size_t>(first); k < instructions.size(); ++k) {
    HloInstruction* instr = instructions[k].get();
    instr->set_location(location);
    // An instruction with a location prints as one read from HLO text:
    // its computation references and comparison type as raw attributes.
    const auto& called = instr->called_computations();
    auto ref = [&](size_t i) { return absl::StrCat("%", called[i]->name()); };
    RawAttributes& raw = instr->raw_attributes();
    switch (instr->opcode()) {
      case HloOpcode::kWhile:
        raw.Append(AttributeName(AttrId::kCondition), ref(0));
        raw.Append(AttributeName(AttrId::kBody), ref(1));
        break;
      case HloOpcode::kSelectAndScatter:
        raw.Append(AttributeName(AttrId::kSelect), ref(0));
        raw.Append(AttributeName(AttrId::kScatter), ref(1));
        break;
      case HloOpcode::kConditional:
        if (instr->operand(0)->shape().element_type() == ElementType::kPred && called.size() == 2) {
          raw.Append(AttributeName(AttrId::kTrueComputation), ref(0));
          raw.Append(AttributeName(AttrId::kFalseComputation), ref(1));
        } else {
          std::string list = "{";
          for (size_t i = 0; i < called.size(); ++i) absl::StrAppend(&list, i ? ", " : "", ref(i));
          raw.Append(AttributeName(AttrId::kBranchComputations), absl::StrCat(list, "}"));
        }
        break;
      case HloOpcode::kCompare: {
        const std::string_view type = AttributeValueName(instr->comparison_type);
        if (!type.empty()) raw.Append(AttributeName(AttrId::kType), type);
        break;
      }
      case HloOpcode::kCustomCall:
        if (!instr->attrs().backend_config.empty()) {
          raw.Append(AttributeName(AttrId::kBackendConfig),
                     absl::StrCat("\"", absl::CEscape(instr->attrs().backend_config), "\""));
        }
        if (!called.empty())
          raw.Append(AttributeName(AttrId::kCalledComputations), absl::StrCat("{", ref(0), "}"));
        break;
      default:
        if (!called.empty()) raw.Append(AttributeName(AttrId::kToApply), ref(0));
        break;
    }
  }
}

absl::Status Parser::Error(size_t offset, std::string_view message) const {
  return absl::InvalidArgumentError(FormatAt(offset, message));
}

absl::Status Parser::ErrorHere(std::string_view message) {
  Skip();
  return Error(pos_, message);
}

//===----------------------------------------------------------------------===//
// Types.
//===----------------------------------------------------------------------===//

absl::Status Parser::ParseElementType(ElementType* out) {
  Skip();
  size_t start = pos_;
  if (EatWord("complex")) {
    HLOVM_RETURN_IF_ERROR(Expect('<', "after 'complex'"));
    ElementType part;
    HLOVM_RETURN_IF_ERROR(ParseElementType(&part));
    HLOVM_RETURN_IF_ERROR(Expect('>', "to close 'complex<'"));
    if (part == ElementType::kF32) {
      *out = ElementType::kC64;
    } else if (part == ElementType::kF64) {
      *out = ElementType::kC128;
    } else {
      return Error(start, "complex types have f32 or f64 parts only");
    }
    return absl::OkStatus();
  }
  if (Peek() == '!') {
    size_t p = pos_ + 1;
    while (p < n_ && IsIdChar(s_[p])) ++p;
    std::string_view name = s_.substr(pos_ + 1, p - pos_ - 1);
    if (name.substr(0, 5) == "quant") {
      return Error(start, "quantized types (!quant.*) are not supported");
    }
    return Error(start, absl::StrCat("unsupported element type '!", Sv(name), "'"));
  }
  std::string_view id = LexBareId();
  if (id.empty()) return Error(start, "expected element type");
  std::string lower;
  for (char c : id) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  std::optional<ElementType> type;
  if (lower == "i1") {
    type = ElementType::kPred;
  } else if (lower.size() > 1 && lower[0] == 'i' && IsDigit(lower[1])) {
    type = ElementTypeFromName(absl::StrCat("s", lower.substr(1)));
  } else if (lower.size() > 2 && lower.substr(0, 2) == "si" && IsDigit(lower[2])) {
    type = ElementTypeFromName(absl::StrCat("s", lower.substr(2)));
  } else if (lower.size() > 2 && lower.substr(0, 2) == "ui" && IsDigit(lower[2])) {
    type = ElementTypeFromName(absl::StrCat("u", lower.substr(2)));
  } else if (lower[0] == 'f' || lower == "bf16") {
    type = ElementTypeFromName(lower);
  }
  if (!type.has_value() || !IsArrayType(*type)) {
    if (lower == "index") return Error(start, "the 'index' type is not supported");
    return Error(start, absl::StrCat("unknown element type '", Sv(id), "'"));
  }
  *out = *type;
  return absl::OkStatus();
}

absl::Status Parser::ParseTensorType(Shape* out) {
  // After `tensor<`: dims `4x3x` then the element type, then `>`.
  std::vector<int64_t> dims;
  while (true) {
    Skip();
    char c = PeekAt(pos_);
    if (c == '?') return ErrorHere("dynamic dimensions ('?') are not supported");
    if (c == '*') return ErrorHere("unranked tensors are not supported");
    if (!IsDigit(c)) break;
    size_t p = pos_;
    while (p < n_ && IsDigit(s_[p])) ++p;
    if (PeekAt(p) != 'x') break;  // an element type such as `i32` never starts with a digit
    int64_t d = 0;
    auto [ptr, ec] = std::from_chars(s_.data() + pos_, s_.data() + p, d);
    if (ec != std::errc() || d > (int64_t{1} << 40)) return ErrorHere("dimension too large");
    dims.push_back(d);
    pos_ = p + 1;
  }
  ElementType type;
  HLOVM_RETURN_IF_ERROR(ParseElementType(&type));
  if (Eat(',')) return ErrorHere("tensor encodings (sparse or bounded tensors) are not supported");
  HLOVM_RETURN_IF_ERROR(Expect('>', "to close 'tensor<'"));
  *out = Shape(type, std::move(dims));
  out->set_layout(Layout::RowMajor(out->rank()));
  return absl::OkStatus();
}

absl::Status Parser::ParseType(Shape* out) {
  DepthGuard guard(this);
  if (guard.exceeded()) return ErrorHere("maximum nesting depth exceeded");
  Skip();
  if (EatWord("tensor")) {
    HLOVM_RETURN_IF_ERROR(Expect('<', "after 'tensor'"));
    return ParseTensorType(out);
  }
  if (EatWord("tuple")) {
    HLOVM_RETURN_IF_ERROR(Expect('<', "after 'tuple'"));
    std::vector<Shape> elements;
    if (!Eat('>')) {
      do {
        Shape e;
        HLOVM_RETURN_IF_ERROR(ParseType(&e));
        elements.push_back(std::move(e));
      } while (Eat(','));
      HLOVM_RETURN_IF_ERROR(Expect('>', "to close 'tuple<'"));
    }
    *out = Shape::Tuple(std::move(elements));
    return absl::OkStatus();
  }
  if (EatStr("!stablehlo.token") || EatStr("!mhlo.token")) {
    *out = Shape::Token();
    return absl::OkStatus();
  }
  if (PeekWord("memref") || PeekWord("vector")) {
    return ErrorHere("only tensor, tuple and token types are supported");
  }
  // A bare element type is a rank-0 tensor (attribute types such as `i64`).
  ElementType type;
  HLOVM_RETURN_IF_ERROR(ParseElementType(&type));
  *out = Shape(type, {});
  out->set_layout(Layout::RowMajor(0));
  return absl::OkStatus();
}

absl::Status Parser::ParseTypeList(std::vector<Shape>* out) {
  out->clear();
  if (Eat('(')) {
    if (Eat(')')) return absl::OkStatus();
    do {
      Shape t;
      HLOVM_RETURN_IF_ERROR(ParseType(&t));
      out->push_back(std::move(t));
      if (Peek() == '{') {  // result attributes: {jax.result_info = ""}
        AttrList ignored;
        HLOVM_RETURN_IF_ERROR(ParseAttrDict(&ignored));
      }
    } while (Eat(','));
    return Expect(')', "to close the type list");
  }
  Shape t;
  HLOVM_RETURN_IF_ERROR(ParseType(&t));
  out->push_back(std::move(t));
  return absl::OkStatus();
}

absl::Status Parser::ParseOpTypes(std::vector<Shape>* ins, std::vector<Shape>* outs,
                                  bool* functional) {
  ins->clear();
  outs->clear();
  *functional = false;
  std::vector<Shape> first;
  if (Peek() == '(') {
    HLOVM_RETURN_IF_ERROR(ParseTypeList(&first));
  } else {
    do {
      Shape t;
      HLOVM_RETURN_IF_ERROR(ParseType(&t));
      first.push_back(std::move(t));
    } while (Peek() == ',' && (Eat(','), true));
  }
  if (EatStr("->")) {
    *functional = true;
    *ins = std::move(first);
    return ParseTypeList(outs);
  }
  *ins = first;
  *outs = std::move(first);
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// Attributes.
//===----------------------------------------------------------------------===//

absl::Status Parser::SkipBalanced(char open, char close) {
  DepthGuard guard(this);
  if (guard.exceeded()) return ErrorHere("maximum nesting depth exceeded");
  size_t start = pos_;
  if (!Eat(open)) return ErrorHere(absl::StrCat("expected '", std::string(1, open), "'"));
  int depth = 1;
  while (pos_ < n_) {
    char c = s_[pos_];
    if (c == '"') {
      std::string ignored;
      HLOVM_RETURN_IF_ERROR(ParseString(&ignored));
      continue;
    }
    if (c == '-' && PeekAt(pos_ + 1) == '>') {
      pos_ += 2;
      continue;
    }
    if (c == open) ++depth;
    if (c == close && --depth == 0) {
      ++pos_;
      return absl::OkStatus();
    }
    ++pos_;
  }
  return Error(start, absl::StrCat("unbalanced '", std::string(1, open), "'"));
}

absl::Status Parser::SkipLoc() {
  while (PeekWord("loc")) {
    EatWord("loc");
    if (Peek() != '(') return ErrorHere("expected '(' after 'loc'");
    HLOVM_RETURN_IF_ERROR(SkipBalanced('(', ')'));
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseConvDims(ConvolutionDimensionNumbers* out) {
  // [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]
  auto part = [&](char a, char b, int64_t* first, int64_t* second,
                  std::vector<int64_t>* spatial) -> absl::Status {
    HLOVM_RETURN_IF_ERROR(Expect('[', "to start convolution dimensions"));
    std::vector<std::pair<int64_t, int64_t>> spatial_at;  // (spatial index, position)
    bool seen_a = false, seen_b = false;
    int64_t position = 0;
    if (!Eat(']')) {
      do {
        Skip();
        char c = PeekAt(pos_);
        if (IsDigit(c)) {
          int64_t index = 0;
          HLOVM_RETURN_IF_ERROR(ParseInt(&index));
          if (index < 0 || index > 64) return ErrorHere("bad spatial dimension");
          spatial_at.push_back({index, position});
        } else if (c == a && !IsIdChar(PeekAt(pos_ + 1))) {
          if (seen_a) return ErrorHere("dimension given twice");
          seen_a = true;
          *first = position;
          ++pos_;
        } else if (c == b && !IsIdChar(PeekAt(pos_ + 1))) {
          if (seen_b) return ErrorHere("dimension given twice");
          seen_b = true;
          *second = position;
          ++pos_;
        } else {
          return ErrorHere(absl::StrCat("expected '", std::string(1, a), "', '",
                                        std::string(1, b), "' or a spatial dimension"));
        }
        ++position;
      } while (Eat(','));
      HLOVM_RETURN_IF_ERROR(Expect(']', "to close convolution dimensions"));
    }
    if (!seen_a || !seen_b) return ErrorHere("convolution dimensions miss a batch or feature dimension");
    std::sort(spatial_at.begin(), spatial_at.end());
    spatial->clear();
    for (size_t k = 0; k < spatial_at.size(); ++k) {
      if (spatial_at[k].first != static_cast<int64_t>(k)) {
        return ErrorHere("spatial dimensions must be numbered 0, 1, ...");
      }
      spatial->push_back(spatial_at[k].second);
    }
    return absl::OkStatus();
  };
  HLOVM_RETURN_IF_ERROR(part('b', 'f', &out->input_batch_dimension, &out->input_feature_dimension,
                             &out->input_spatial_dimensions));
  if (!EatWord("x")) return ErrorHere("expected 'x' between convolution dimensions");
  HLOVM_RETURN_IF_ERROR(part('i', 'o', &out->kernel_input_feature_dimension,
                             &out->kernel_output_feature_dimension,
                             &out->kernel_spatial_dimensions));
  if (!EatStr("->")) return ErrorHere("expected '->' in convolution dimensions");
  return part('b', 'f', &out->output_batch_dimension, &out->output_feature_dimension,
              &out->output_spatial_dimensions);
}

absl::Status Parser::ParseHashAttr(AttrValue* out) {
  // At '#'.
  size_t start = pos_;
  ++pos_;
  std::string_view name;
  {
    size_t p = pos_;
    while (p < n_ && IsIdChar(s_[p])) ++p;
    name = s_.substr(pos_, p - pos_);
    pos_ = p;
  }
  if (name.empty()) return Error(start, "expected attribute name after '#'");
  if (PeekAt(pos_) != '<') {
    // An alias (#loc1, #map): nothing to read here.
    out->kind = AttrValue::Kind::kOther;
    out->s = std::string(name);
    return absl::OkStatus();
  }
  std::string_view dialect = name.substr(0, name.find('.'));
  if (dialect != "stablehlo" && dialect != "chlo" && dialect != "mhlo") {
    out->kind = AttrValue::Kind::kOther;
    out->s = std::string(name);
    return SkipBalanced('<', '>');
  }
  ++pos_;  // '<'
  if (name == "stablehlo" || name == "chlo" || name == "mhlo") {
    // #stablehlo<comparison_direction LT>
    std::string_view kind = LexBareId();
    if (kind.empty()) return ErrorHere("expected attribute kind");
    std::string_view value = LexBareId();
    if (value.empty()) return ErrorHere(absl::StrCat("expected a ", Sv(kind), " value"));
    out->kind = AttrValue::Kind::kIdent;
    out->s = std::string(value);
    return Expect('>', "to close the attribute");
  }
  std::string_view sub = name.substr(name.find('.') + 1);
  if (sub == "conv" && Peek() == '[') {
    auto conv = std::make_shared<ConvolutionDimensionNumbers>();
    HLOVM_RETURN_IF_ERROR(ParseConvDims(conv.get()));
    out->kind = AttrValue::Kind::kConv;
    out->conv = std::move(conv);
    return Expect('>', "to close '#stablehlo.conv<'");
  }
  if (sub == "conv") EatWord("raw");
  out->kind = AttrValue::Kind::kStruct;
  out->s = std::string(sub);
  // Either `k = v, ...` or a single value (#stablehlo.precision<DEFAULT>).
  if (Eat('>')) return absl::OkStatus();
  size_t save = pos_;
  std::string_view key = LexBareId();
  if (!key.empty() && !Eat('=')) {
    if (Eat('>')) {
      out->kind = AttrValue::Kind::kIdent;
      out->s = std::string(key);
      return absl::OkStatus();
    }
    // A form not read here (#stablehlo.dot_algorithm<...> with types): kept
    // as text-free `other`.
    out->kind = AttrValue::Kind::kOther;
    pos_ = start + 1 + name.size();
    return SkipBalanced('<', '>');
  }
  pos_ = save;
  return ParseAttrDict(&out->fields, '>');
}

absl::Status Parser::ParseAttrDict(AttrList* out, char close) {
  // At '{' (or after '<' for struct attributes, close == '>').
  DepthGuard guard(this);
  if (guard.exceeded()) return ErrorHere("maximum nesting depth exceeded");
  if (close == '}') HLOVM_RETURN_IF_ERROR(Expect('{', "to start attributes"));
  if (Eat(close)) return absl::OkStatus();
  do {
    Skip();
    std::string key;
    if (Peek() == '"') {
      HLOVM_RETURN_IF_ERROR(ParseString(&key));
    } else {
      std::string_view id = LexBareId();
      if (id.empty()) return ErrorHere("expected attribute name");
      key = std::string(id);
    }
    AttrValue value;
    value.offset = pos_;
    if (Eat('=')) {
      HLOVM_RETURN_IF_ERROR(ParseAttrValue(&value));
    }
    out->emplace_back(std::move(key), std::move(value));
  } while (Eat(','));
  return Expect(close, "to close the attributes");
}

absl::Status Parser::ParseDense(AttrValue* out) {
  // After `dense<`.
  size_t start = pos_;
  std::vector<DenseElem> elems;
  std::string hex;
  bool is_hex = false;
  std::vector<int64_t> dims;          // list lengths by depth
  std::vector<bool> dim_known;
  int max_depth_seen = -1;
  bool complex_values = false;
  int depth = 0;
  auto parse_scalar = [&](DenseElem* e) -> absl::Status {
    Skip();
    e->offset = pos_;
    if (EatWord("true")) {
      e->kind = DenseElem::kBool;
      e->u = 1;
      return absl::OkStatus();
    }
    if (EatWord("false")) {
      e->kind = DenseElem::kBool;
      e->u = 0;
      return absl::OkStatus();
    }
    size_t p = pos_;
    if (PeekAt(p) == '-' || PeekAt(p) == '+') {
      e->negative = PeekAt(p) == '-';
      ++p;
    }
    if (PeekAt(p) == '0' && (PeekAt(p + 1) == 'x' || PeekAt(p + 1) == 'X')) {
      size_t q = p + 2;
      while (q < n_ && std::isxdigit(static_cast<unsigned char>(s_[q]))) ++q;
      auto [ptr, ec] = std::from_chars(s_.data() + p + 2, s_.data() + q, e->u, 16);
      if (ec != std::errc() || q == p + 2) return ErrorHere("bad hexadecimal value");
      e->kind = DenseElem::kHex;
      pos_ = q;
      return absl::OkStatus();
    }
    if (s_.substr(p, 3) == "inf" || s_.substr(p, 3) == "nan") {
      e->kind = DenseElem::kFloat;
      e->d = s_[p] == 'i' ? std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::quiet_NaN();
      if (e->negative) e->d = -e->d;
      pos_ = p + 3;
      return absl::OkStatus();
    }
    size_t q = p;
    bool is_float = false;
    while (q < n_ && (IsDigit(s_[q]) || s_[q] == '.' || s_[q] == 'e' || s_[q] == 'E' ||
                      ((s_[q] == '-' || s_[q] == '+') && q > p &&
                       (s_[q - 1] == 'e' || s_[q - 1] == 'E')))) {
      if (!IsDigit(s_[q])) is_float = true;
      ++q;
    }
    if (q == p) return ErrorHere("expected a value");
    if (is_float) {
      auto [ptr, ec] = std::from_chars(s_.data() + p, s_.data() + q, e->d);
      if (ptr != s_.data() + q || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
        return ErrorHere("bad floating-point value");
      }
      if (ec == std::errc::result_out_of_range) return ErrorHere("value out of range");
      if (e->negative) e->d = -e->d;
      e->kind = DenseElem::kFloat;
    } else {
      auto [ptr, ec] = std::from_chars(s_.data() + p, s_.data() + q, e->u);
      if (ec != std::errc()) return ErrorHere("integer out of range");
      e->kind = DenseElem::kInt;
    }
    pos_ = q;
    return absl::OkStatus();
  };
  // One element: a scalar or a complex (re, im).
  auto parse_element = [&]() -> absl::Status {
    if (Eat('(')) {
      complex_values = true;
      DenseElem re, im;
      HLOVM_RETURN_IF_ERROR(parse_scalar(&re));
      HLOVM_RETURN_IF_ERROR(Expect(',', "between the parts of a complex value"));
      HLOVM_RETURN_IF_ERROR(parse_scalar(&im));
      HLOVM_RETURN_IF_ERROR(Expect(')', "to close a complex value"));
      elems.push_back(re);
      elems.push_back(im);
      return absl::OkStatus();
    }
    DenseElem e;
    HLOVM_RETURN_IF_ERROR(parse_scalar(&e));
    elems.push_back(e);
    return absl::OkStatus();
  };
  std::function<absl::Status()> parse_list = [&]() -> absl::Status {
    // At '['.
    if (depth >= options_.max_recursion_depth) return ErrorHere("maximum nesting depth exceeded");
    size_t list_start = pos_;
    ++pos_;
    if (static_cast<int>(dims.size()) <= depth) {
      dims.push_back(0);
      dim_known.push_back(false);
    }
    int64_t count = 0;
    bool inner_lists = false;
    if (!Eat(']')) {
      do {
        if (Peek() == '[') {
          inner_lists = true;
          ++depth;
          HLOVM_RETURN_IF_ERROR(parse_list());
          --depth;
        } else {
          if (inner_lists) return ErrorHere("mixed values and lists");
          if (max_depth_seen >= 0 && max_depth_seen != depth) {
            return ErrorHere("values at different nesting depths");
          }
          max_depth_seen = depth;
          HLOVM_RETURN_IF_ERROR(parse_element());
        }
        ++count;
      } while (Eat(','));
      HLOVM_RETURN_IF_ERROR(Expect(']', "to close the list"));
    } else if (max_depth_seen >= 0 && max_depth_seen != depth - 1 && max_depth_seen != depth) {
      // An empty list: its depth is the last one.
    }
    if (!dim_known[depth]) {
      dims[depth] = count;
      dim_known[depth] = true;
    } else if (dims[depth] != count) {
      return Error(list_start, "lists of one level differ in length");
    }
    return absl::OkStatus();
  };
  bool splat = false;
  Skip();
  if (PeekAt(pos_) == '"') {
    HLOVM_RETURN_IF_ERROR(ParseString(&hex));
    if (hex.size() < 2 || hex[0] != '0' || (hex[1] != 'x' && hex[1] != 'X')) {
      return Error(start, "a dense string must be hexadecimal ('0x...')");
    }
    is_hex = true;
  } else if (PeekAt(pos_) == '[') {
    HLOVM_RETURN_IF_ERROR(parse_list());
  } else if (PeekAt(pos_) == '>') {
    // dense<> : an empty tensor.
  } else {
    splat = true;
    HLOVM_RETURN_IF_ERROR(parse_element());
  }
  HLOVM_RETURN_IF_ERROR(Expect('>', "to close 'dense<'"));
  if (!Eat(':')) return ErrorHere("expected ':' and the type of the dense value");
  Shape shape;
  size_t type_offset = pos_;
  HLOVM_RETURN_IF_ERROR(ParseType(&shape));
  if (!shape.IsArray()) return Error(type_offset, "a dense value needs a tensor type");
  const ElementType type = shape.element_type();
  const int64_t count = shape.element_count();
  auto literal_or = Literal::Create(shape);
  if (!literal_or.ok()) return Error(type_offset, Msg(literal_or.status()));
  auto literal = std::make_shared<Literal>(*std::move(literal_or));
  const int width = ByteWidth(type);
  uint8_t* data = literal->untyped_data();
  if (is_hex) {
    size_t digits = hex.size() - 2;
    if (digits % 2 != 0) return Error(start, "odd number of hexadecimal digits");
    std::string bytes;
    bytes.resize(digits / 2);
    for (size_t i = 0; i < bytes.size(); ++i) {
      unsigned v = 0;
      auto [ptr, ec] = std::from_chars(hex.data() + 2 + 2 * i, hex.data() + 4 + 2 * i, v, 16);
      if (ec != std::errc() || ptr != hex.data() + 4 + 2 * i) {
        return Error(start, "bad hexadecimal digit in dense string");
      }
      bytes[i] = static_cast<char>(v);
    }
    const size_t total = static_cast<size_t>(count) * static_cast<size_t>(width);
    if (bytes.size() == total) {
      if (total > 0) std::memcpy(data, bytes.data(), total);
    } else if (bytes.size() == static_cast<size_t>(width) && count > 0) {
      for (int64_t i = 0; i < count; ++i) std::memcpy(data + i * width, bytes.data(), width);
    } else {
      return Error(start, absl::StrCat("dense string holds ", bytes.size(), " bytes; ",
                                       shape.ToString(false), " needs ", total));
    }
    if (IsSubByte(type) || type == ElementType::kPred) {
      const uint8_t mask = type == ElementType::kPred ? 1 : static_cast<uint8_t>((1u << BitWidth(type)) - 1);
      for (int64_t i = 0; i < count; ++i) {
        if ((data[i] & ~mask) != 0 && type == ElementType::kPred) {
          return Error(start, "a boolean dense string holds a byte other than 0 or 1");
        }
        data[i] &= mask;
        if (IsSignedInteger(type) && (data[i] >> (BitWidth(type) - 1)) != 0) data[i] |= ~mask;
      }
    }
  } else {
    const bool is_complex = IsComplex(type);
    if (complex_values != is_complex && !elems.empty()) {
      return Error(start, is_complex ? "a complex tensor needs (re, im) values"
                                     : "complex values for a tensor that is not complex");
    }
    const size_t per = is_complex ? 2 : 1;
    const int64_t given = static_cast<int64_t>(elems.size() / per);
    if (!splat) {
      // The nesting must match the shape.
      bool match = static_cast<int64_t>(dims.size()) == shape.rank() || (given == 0 && count == 0);
      for (size_t k = 0; match && k < dims.size(); ++k) match = dims[k] == shape.dimensions(k);
      if (!match && !(shape.rank() == 0 && given == 1)) {
        return Error(start, absl::StrCat("dense value does not match ", shape.ToString(false)));
      }
    } else if (given != 1) {
      return Error(start, "bad dense value");
    }
    if (!splat && given != count) {
      return Error(start, absl::StrCat("dense value has ", given, " elements; ",
                                       shape.ToString(false), " has ", count));
    }
    const ElementType part_type = is_complex ? ComplexComponentType(type) : type;
    // Stores one scalar of `part_type` at `p`.
    auto store = [&](const DenseElem& e, uint8_t* p) -> absl::Status {
      const int part_width = ByteWidth(part_type);
      const TypeKind kind = ElementTypeKind(part_type);
      if (e.kind == DenseElem::kHex) {
        if (e.negative) return Error(e.offset, "a hexadecimal value cannot be negative");
        const int bits = IsSubByte(part_type) ? BitWidth(part_type) : part_width * 8;
        if (bits < 64 && (e.u >> bits) != 0) return Error(e.offset, "hexadecimal value too wide for the type");
        std::memcpy(p, &e.u, part_width);  // little-endian
        return absl::OkStatus();
      }
      if (kind == TypeKind::kFloat) {
        double v = e.kind == DenseElem::kFloat ? e.d
                   : e.negative                ? -static_cast<double>(e.u)
                                               : static_cast<double>(e.u);
        if (e.kind == DenseElem::kBool) return Error(e.offset, "a boolean value for a float type");
        if (part_type == ElementType::kF32) {
          float f = static_cast<float>(v);
          std::memcpy(p, &f, 4);
        } else if (part_type == ElementType::kF64) {
          std::memcpy(p, &v, 8);
        } else {
          // Other widths round as the HLO text parser does.
          Shape one(part_type, {});
          auto scalar = Literal::Create(one);
          if (!scalar.ok()) return Error(e.offset, Msg(scalar.status()));
          absl::Status st = scalar->SetFromDouble(0, v);
          if (!st.ok()) return Error(e.offset, Msg(st));
          std::memcpy(p, scalar->untyped_data(), part_width);
        }
        return absl::OkStatus();
      }
      if (kind == TypeKind::kPred) {
        if (e.kind == DenseElem::kFloat || e.negative || e.u > 1) {
          return Error(e.offset, "a boolean value must be true, false, 1 or 0");
        }
        *p = static_cast<uint8_t>(e.u);
        return absl::OkStatus();
      }
      if (e.kind == DenseElem::kFloat) return Error(e.offset, "a floating-point value for an integer type");
      if (e.kind == DenseElem::kBool) return Error(e.offset, "a boolean value for an integer type");
      const int bits = BitWidth(part_type);
      const bool is_signed = kind == TypeKind::kSigned;
      uint64_t bitsv = 0;
      if (is_signed) {
        const uint64_t max_mag = uint64_t{1} << (bits - 1);
        if (e.negative ? e.u > max_mag : e.u >= max_mag) {
          return Error(e.offset, absl::StrCat("value out of range for ", Sv(ElementTypeName(part_type))));
        }
        bitsv = e.negative ? 0 - e.u : e.u;
        if (bits < 64 && e.negative) bitsv |= ~((uint64_t{1} << bits) - 1);  // sign-extend
      } else {
        if (e.negative && e.u != 0) {
          return Error(e.offset, absl::StrCat("negative value for ", Sv(ElementTypeName(part_type))));
        }
        if (bits < 64 && (e.u >> bits) != 0) {
          return Error(e.offset, absl::StrCat("value out of range for ", Sv(ElementTypeName(part_type))));
        }
        bitsv = e.u;
      }
      std::memcpy(p, &bitsv, part_width);
      if (IsSubByte(part_type) && !is_signed) *p &= static_cast<uint8_t>((1u << bits) - 1);
      return absl::OkStatus();
    };
    const int part_width = ByteWidth(part_type);
    for (int64_t i = 0; i < count; ++i) {
      const int64_t src = splat ? 0 : i;
      for (size_t k = 0; k < per; ++k) {
        HLOVM_RETURN_IF_ERROR(store(elems[src * per + k], data + i * width + k * part_width));
      }
      if (splat && i == 0 && count > 1) {
        for (int64_t j = 1; j < count; ++j) std::memcpy(data + j * width, data, width);
        break;
      }
    }
  }
  out->kind = AttrValue::Kind::kDense;
  out->dense = std::move(literal);
  out->type = std::make_shared<Shape>(shape);
  return absl::OkStatus();
}

absl::Status Parser::ParseAttrValue(AttrValue* out) {
  DepthGuard guard(this);
  if (guard.exceeded()) return ErrorHere("maximum nesting depth exceeded");
  Skip();
  out->offset = pos_;
  char c = PeekAt(pos_);
  if (c == '"') {
    out->kind = AttrValue::Kind::kString;
    HLOVM_RETURN_IF_ERROR(ParseString(&out->s));
  } else if (c == '@') {
    out->kind = AttrValue::Kind::kSymbol;
    HLOVM_RETURN_IF_ERROR(ParseSymbol(&out->s));
  } else if (c == '#') {
    HLOVM_RETURN_IF_ERROR(ParseHashAttr(out));
  } else if (c == '{') {
    out->kind = AttrValue::Kind::kStruct;
    HLOVM_RETURN_IF_ERROR(ParseAttrDict(&out->fields));
  } else if (c == '[') {
    ++pos_;
    // [0:2, 1:3:1] (slice), or a list of values.
    size_t save = pos_;
    int64_t first = 0;
    if (ParseInt(&first).ok() && Peek() == ':') {
      pos_ = save;
      auto slice = std::make_shared<SliceAttr>();
      do {
        int64_t a = 0, b = 0, stride = 1;
        HLOVM_RETURN_IF_ERROR(ParseInt(&a));
        HLOVM_RETURN_IF_ERROR(Expect(':', "in a slice range"));
        HLOVM_RETURN_IF_ERROR(ParseInt(&b));
        if (Eat(':')) HLOVM_RETURN_IF_ERROR(ParseInt(&stride));
        slice->starts.push_back(a);
        slice->limits.push_back(b);
        slice->strides.push_back(stride);
      } while (Eat(','));
      HLOVM_RETURN_IF_ERROR(Expect(']', "to close the slice"));
      out->kind = AttrValue::Kind::kSlice;
      out->slice = std::move(slice);
      return absl::OkStatus();
    }
    pos_ = save;
    out->kind = AttrValue::Kind::kList;
    if (!Eat(']')) {
      do {
        AttrValue element;
        HLOVM_RETURN_IF_ERROR(ParseAttrValue(&element));
        out->list.push_back(std::move(element));
      } while (Eat(','));
      HLOVM_RETURN_IF_ERROR(Expect(']', "to close the list"));
    }
    if (EatWord("x")) {
      // [0] x [1]: dot_general's pretty dimension pairs.
      AttrValue second;
      if (Peek() != '[') return ErrorHere("expected '[' after 'x'");
      HLOVM_RETURN_IF_ERROR(ParseAttrValue(&second));
      AttrValue first_list = std::move(*out);
      *out = AttrValue();
      out->offset = first_list.offset;
      out->kind = AttrValue::Kind::kPair;
      out->list.push_back(std::move(first_list));
      out->list.push_back(std::move(second));
    }
    return absl::OkStatus();
  } else if (c == '-' || IsDigit(c)) {
    size_t p = pos_ + (c == '-' ? 1 : 0);
    bool is_float = false;
    if (!(PeekAt(p) == '0' && PeekAt(p + 1) == 'x')) {
      while (p < n_ && (IsDigit(s_[p]) || s_[p] == '.' || s_[p] == 'e' || s_[p] == 'E' ||
                        ((s_[p] == '-' || s_[p] == '+') && (s_[p - 1] == 'e' || s_[p - 1] == 'E')))) {
        if (!IsDigit(s_[p])) is_float = true;
        ++p;
      }
    }
    if (is_float) {
      auto [ptr, ec] = std::from_chars(s_.data() + pos_, s_.data() + p, out->f);
      if (ec != std::errc() || ptr != s_.data() + p) return ErrorHere("bad floating-point value");
      out->kind = AttrValue::Kind::kFloat;
      pos_ = p;
    } else {
      out->kind = AttrValue::Kind::kInt;
      HLOVM_RETURN_IF_ERROR(ParseInt(&out->i));
    }
  } else if (IsIdStart(c)) {
    if (EatWord("true")) {
      out->kind = AttrValue::Kind::kBool;
      out->b = true;
    } else if (EatWord("false")) {
      out->kind = AttrValue::Kind::kBool;
      out->b = false;
    } else if (EatWord("dense")) {
      if (!Eat('<')) return ErrorHere("expected '<' after 'dense'");
      return ParseDense(out);
    } else if (EatWord("dense_resource")) {
      return Error(out->offset, "dense_resource values are not supported");
    } else if (EatWord("sparse")) {
      return Error(out->offset, "sparse values are not supported");
    } else if (EatWord("array")) {
      HLOVM_RETURN_IF_ERROR(Expect('<', "after 'array'"));
      Shape element;
      HLOVM_RETURN_IF_ERROR(ParseType(&element));
      out->kind = AttrValue::Kind::kList;
      if (Eat(':')) {
        do {
          AttrValue v;
          HLOVM_RETURN_IF_ERROR(ParseAttrValue(&v));
          out->list.push_back(std::move(v));
        } while (Eat(','));
      }
      return Expect('>', "to close 'array<'");
    } else if (PeekWord("tensor") || PeekWord("tuple")) {
      auto type = std::make_shared<Shape>();
      HLOVM_RETURN_IF_ERROR(ParseType(type.get()));
      out->kind = AttrValue::Kind::kType;
      out->type = std::move(type);
      return absl::OkStatus();
    } else if (PeekWord("affine_map") || PeekWord("loc")) {
      LexBareId();
      out->kind = AttrValue::Kind::kOther;
      if (Peek() == '<') return SkipBalanced('<', '>');
      if (Peek() == '(') return SkipBalanced('(', ')');
      return absl::OkStatus();
    } else {
      std::string_view id = LexBareId();
      out->kind = AttrValue::Kind::kIdent;
      out->s = std::string(id);
      return absl::OkStatus();  // identifiers take no `: type`
    }
  } else {
    return ErrorHere("expected attribute value");
  }
  // `: type` after a number or a bool (1 : i64, 1.0 : f32, true : i1).
  if ((out->kind == AttrValue::Kind::kInt || out->kind == AttrValue::Kind::kFloat ||
       out->kind == AttrValue::Kind::kBool) && Peek() == ':') {
    size_t save = pos_;
    ++pos_;
    Shape type;
    // Only a scalar type belongs to the value; `: tensor<...>` after a
    // pretty attribute is the op's type.
    if (PeekWord("tensor") || PeekWord("tuple") || Peek() == '(' || Peek() == '!') {
      pos_ = save;
    } else if (!ParseType(&type).ok()) {
      pos_ = save;  // not a type: the ':' belongs to the op (`dim = 0 : tensor<..>` cannot reach here)
    } else if (out->kind == AttrValue::Kind::kInt && IsFloatingPoint(type.element_type())) {
      out->kind = AttrValue::Kind::kFloat;
      out->f = static_cast<double>(out->i);
    }
  }
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// Structure.
//===----------------------------------------------------------------------===//

HloComputation* Parser::NewComputation(std::string_view base) {
  std::string name(base);
  int64_t& n = computation_names_[name];
  if (n > 0 || functions_.contains(name)) {
    std::string candidate;
    do {
      candidate = absl::StrCat(Sv(base), ".", ++n);
    } while (computation_names_.contains(candidate) || functions_.contains(candidate));
    name = candidate;
    computation_names_[name] = 1;
  } else {
    n = 1;
  }
  return module_->AddComputation(std::make_unique<HloComputation>(std::move(name)));
}

HloComputation* Parser::FunctionComputation(std::string_view name) {
  auto it = functions_.find(std::string(name));
  if (it != functions_.end()) return it->second;
  std::string unique(name);
  if (computation_names_.contains(unique)) {
    int64_t& n = computation_names_[unique];
    do {
      unique = absl::StrCat(Sv(name), ".", ++n);
    } while (computation_names_.contains(unique));
  }
  computation_names_[unique] = 1;
  HloComputation* c = module_->AddComputation(std::make_unique<HloComputation>(unique));
  functions_[std::string(name)] = c;
  return c;
}

absl::Status Parser::ParseValueRef(ValueRef* out) {
  Skip();
  out->offset = pos_;
  if (PeekAt(pos_) != '%') return ErrorHere("expected a value ('%name')");
  size_t p = pos_ + 1;
  size_t start = p;
  while (p < n_ && IsValueNameChar(s_[p])) ++p;
  if (p == start) return ErrorHere("expected a value name after '%'");
  out->name = s_.substr(start, p - start);
  pos_ = p;
  out->index = -1;
  if (PeekAt(pos_) == '#') {
    ++pos_;
    size_t q = pos_;
    while (q < n_ && IsDigit(s_[q])) ++q;
    if (q == pos_) return ErrorHere("expected a result number after '#'");
    int64_t index = 0;
    auto [ptr, ec] = std::from_chars(s_.data() + pos_, s_.data() + q, index);
    if (ec != std::errc()) return ErrorHere("result number out of range");
    out->index = index;
    pos_ = q;
  }
  return absl::OkStatus();
}

absl::StatusOr<HloInstruction*> Parser::Import(Scope* scope, HloInstruction* outer,
                                               const ValueRef& ref) {
  auto it = scope->imported.find(outer);
  if (it != scope->imported.end()) return it->second;
  HloInstruction* inner = nullptr;
  if (outer->opcode() == HloOpcode::kConstant && outer->literal) {
    // Constants are copied in: HLO computations may hold their own.
    inner = Emit(scope, HloOpcode::kConstant, outer->shape(), {});
    inner->literal.emplace(outer->literal->Clone());
  } else if (scope->captures != nullptr) {
    int64_t k = static_cast<int64_t>(scope->captures->outer.size());
    for (int64_t j = 0; j < k; ++j) {
      if (scope->captures->outer[j] == outer) k = j;
    }
    if (k == static_cast<int64_t>(scope->captures->outer.size())) {
      scope->captures->outer.push_back(outer);
    }
    // The parameter's shape is completed once the region is read.
    const int64_t index = scope->first_capture + k;
    Shape* param_shape = scope->tuple_param->mutable_shape();
    std::vector<Shape> elements = param_shape->tuple_shapes();
    while (static_cast<int64_t>(elements.size()) <= index) elements.push_back(Shape());
    elements[index] = outer->shape();
    *param_shape = Shape::Tuple(std::move(elements));
    inner = EmitGte(scope, scope->tuple_param, index);
  } else {
    return Error(ref.offset, absl::StrCat("%", Sv(ref.name),
                                          " is defined outside this region; only while, if and "
                                          "case regions may read values from outside"));
  }
  scope->imported[outer] = inner;
  return inner;
}

absl::StatusOr<HloInstruction*> Parser::Resolve(Scope* scope, const ValueRef& ref) {
  std::string key(ref.name);
  auto it = scope->values.find(key);
  if (it == scope->values.end()) {
    if (scope->parent == nullptr) {
      return Error(ref.offset, absl::StrCat("use of undefined value %", Sv(ref.name)));
    }
    ValueRef outer_ref = ref;
    HLOVM_ASSIGN_OR_RETURN(HloInstruction * outer, Resolve(scope->parent, outer_ref));
    return Import(scope, outer, ref);
  }
  const std::vector<HloInstruction*>& values = it->second;
  if (ref.index < 0) {
    if (values.size() != 1) {
      return Error(ref.offset, absl::StrCat("%", Sv(ref.name), " has ", values.size(),
                                            " results; name one with #"));
    }
    return values[0];
  }
  if (ref.index >= static_cast<int64_t>(values.size())) {
    return Error(ref.offset, absl::StrCat("%", Sv(ref.name), " has ", values.size(), " results"));
  }
  return values[ref.index];
}

absl::Status Parser::ParseOperandList(Scope* scope, std::vector<HloInstruction*>* out) {
  // `%a, %b#1, ...` (possibly empty); stops before a ',' not followed by '%'.
  if (Peek() != '%') return absl::OkStatus();
  while (true) {
    ValueRef ref;
    HLOVM_RETURN_IF_ERROR(ParseValueRef(&ref));
    HLOVM_ASSIGN_OR_RETURN(HloInstruction * v, Resolve(scope, ref));
    out->push_back(v);
    size_t save = pos_;
    if (!Eat(',')) break;
    if (Peek() != '%') {
      pos_ = save;
      break;
    }
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseRegion(Scope* outer, RegionKind kind,
                                 const std::vector<std::pair<std::string, Shape>>* implicit_args,
                                 Captures* captures, HloComputation** out) {
  DepthGuard guard(this);
  if (guard.exceeded()) return ErrorHere("maximum nesting depth exceeded");
  size_t start = pos_;
  HLOVM_RETURN_IF_ERROR(Expect('{', "to start a region"));
  HloComputation* c = NewComputation("region");
  Scope scope;
  scope.parent = outer;
  scope.computation = c;
  std::vector<std::pair<std::string, Shape>> args;
  if (Peek() == '^') {
    ++pos_;
    LexBareId();
    if (Eat('(')) {
      if (!Eat(')')) {
        do {
          ValueRef ref;
          HLOVM_RETURN_IF_ERROR(ParseValueRef(&ref));
          if (ref.index >= 0) return Error(ref.offset, "a block argument takes no '#'");
          HLOVM_RETURN_IF_ERROR(Expect(':', "and the argument's type"));
          Shape t;
          HLOVM_RETURN_IF_ERROR(ParseType(&t));
          HLOVM_RETURN_IF_ERROR(SkipLoc());
          args.emplace_back(std::string(ref.name), std::move(t));
        } while (Eat(','));
        HLOVM_RETURN_IF_ERROR(Expect(')', "to close the block arguments"));
      }
    }
    HLOVM_RETURN_IF_ERROR(Expect(':', "after the block header"));
  } else if (implicit_args != nullptr) {
    args = *implicit_args;
  }
  if (kind == RegionKind::kFlat) {
    for (size_t i = 0; i < args.size(); ++i) {
      HloInstruction* p = EmitParameter(&scope, static_cast<int64_t>(i), args[i].second);
      if (!scope.values.emplace(args[i].first, std::vector<HloInstruction*>{p}).second) {
        return Error(start, absl::StrCat("block argument %", args[i].first, " given twice"));
      }
    }
  } else {
    if (kind == RegionKind::kCaptures && !args.empty()) {
      return Error(start, "if and case regions take no block arguments");
    }
    std::vector<Shape> shapes;
    for (const auto& a : args) shapes.push_back(a.second);
    for (HloInstruction* v : captures->outer) shapes.push_back(v->shape());
    HloInstruction* p = EmitParameter(&scope, 0, Shape::Tuple(shapes));
    scope.tuple_param = p;
    scope.captures = captures;
    scope.first_capture = static_cast<int64_t>(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      HloInstruction* g = EmitGte(&scope, p, static_cast<int64_t>(i));
      if (!scope.values.emplace(args[i].first, std::vector<HloInstruction*>{g}).second) {
        return Error(start, absl::StrCat("block argument %", args[i].first, " given twice"));
      }
    }
    // Captures already known (from the condition region of a while) keep
    // their positions.
    for (size_t k = 0; k < captures->outer.size(); ++k) {
      HloInstruction* g = EmitGte(&scope, p, scope.first_capture + static_cast<int64_t>(k));
      scope.imported[captures->outer[k]] = g;
    }
  }
  std::vector<HloInstruction*> returned;
  HLOVM_RETURN_IF_ERROR(ParseBlock(&scope, &returned));
  if (kind == RegionKind::kTuple) {
    // A while body hands every capture on unchanged; the root is a tuple
    // even for one value (the carried state is always a tuple).
    for (size_t k = 0; k < captures->outer.size(); ++k) {
      auto it = scope.imported.find(captures->outer[k]);
      returned.push_back(it != scope.imported.end()
                             ? it->second
                             : EmitGte(&scope, scope.tuple_param,
                                       scope.first_capture + static_cast<int64_t>(k)));
    }
  }
  if (kind == RegionKind::kTupleCond) {
    if (returned.size() != 1) return Error(start, "a while condition returns one value");
    c->set_root(returned[0]);
  } else if (returned.empty()) {
    c->set_root(EmitTuple(&scope, {}));
  } else if (returned.size() == 1 && kind != RegionKind::kTuple) {
    c->set_root(returned[0]);
  } else {
    c->set_root(EmitTuple(&scope, returned));
  }
  *out = c;
  return absl::OkStatus();
}

absl::Status Parser::ParseBlock(Scope* scope, std::vector<HloInstruction*>* returned) {
  bool terminated = false;
  while (true) {
    char c = Peek();
    if (c == '}') {
      ++pos_;
      break;
    }
    if (c == '\0') return ErrorHere("expected '}' to close the block");
    if (terminated) return ErrorHere("operations after the block's terminator");
    HLOVM_RETURN_IF_ERROR(ParseStatement(scope, &terminated, returned));
  }
  if (!terminated) return Error(pos_ - 1, "block has no terminator (return)");
  return absl::OkStatus();
}

absl::Status Parser::ParseStatement(Scope* scope, bool* terminated,
                                    std::vector<HloInstruction*>* returned) {
  Skip();
  const size_t start = pos_;
  // Results: `%a = `, `%a:2 = `, `%a, %b = `.
  struct Def {
    std::string name;
    int64_t count = 1;
    size_t offset = 0;
  };
  std::vector<Def> defs;
  if (Peek() == '%') {
    do {
      ValueRef ref;
      HLOVM_RETURN_IF_ERROR(ParseValueRef(&ref));
      if (ref.index >= 0) return Error(ref.offset, "a result name takes no '#'");
      Def d;
      d.name = std::string(ref.name);
      d.offset = ref.offset;
      if (PeekAt(pos_) == ':' && IsDigit(PeekAt(pos_ + 1))) {
        ++pos_;
        HLOVM_RETURN_IF_ERROR(ParseInt(&d.count));
        if (d.count < 1 || d.count > 100000) return Error(d.offset, "bad result count");
      }
      defs.push_back(std::move(d));
    } while (Eat(','));
    HLOVM_RETURN_IF_ERROR(Expect('=', "after the result names"));
  }
  Op op;
  Skip();
  op.offset = pos_;
  if (Peek() == '"') {
    HLOVM_RETURN_IF_ERROR(ParseString(&op.name));
    HLOVM_RETURN_IF_ERROR(ParseGenericOp(scope, &op));
  } else {
    std::string_view name = LexBareId();
    if (name.empty()) return ErrorHere("expected an operation");
    if (name == "return" || name == "func.return" || name == "stablehlo.return" ||
        name == "mhlo.return") {
      if (!defs.empty()) return Error(start, "a terminator has no results");
      std::vector<HloInstruction*> values;
      HLOVM_RETURN_IF_ERROR(ParseOperandList(scope, &values));
      if (Eat(':')) {
        std::vector<Shape> ins, outs;
        bool functional = false;
        HLOVM_RETURN_IF_ERROR(ParseOpTypes(&ins, &outs, &functional));
        if (ins.size() != values.size()) return Error(op.offset, "the types do not match the values");
      }
      HLOVM_RETURN_IF_ERROR(SkipLoc());
      *returned = std::move(values);
      *terminated = true;
      return absl::OkStatus();
    }
    op.name = std::string(name);
    HLOVM_RETURN_IF_ERROR(ParsePrettyOp(scope, name, &op));
  }
  HLOVM_RETURN_IF_ERROR(SkipLoc());
  if (op.name == "func.return" || op.name == "stablehlo.return" || op.name == "mhlo.return") {
    if (!defs.empty()) return Error(start, "a terminator has no results");
    *returned = op.operands;
    *terminated = true;
    return absl::OkStatus();
  }
  std::vector<HloInstruction*> results;
  const int64_t first = scope->computation->instruction_count();
  HLOVM_RETURN_IF_ERROR(Lower(scope, &op, &results));
  MarkOp(scope->computation, first, op.offset);
  int64_t wanted = 0;
  for (const Def& d : defs) wanted += d.count;
  if (wanted != static_cast<int64_t>(results.size()) && !(defs.empty())) {
    return Error(start, absl::StrCat("'", op.name, "' has ", results.size(), " results; ", wanted,
                                     " are named"));
  }
  size_t next = 0;
  for (const Def& d : defs) {
    std::vector<HloInstruction*> values(results.begin() + next, results.begin() + next + d.count);
    next += d.count;
    scope->values[d.name] = std::move(values);  // MLIR names are unique per region; later wins
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseFunc() {
  // After `func.func`.
  if (!EatWord("public") && !EatWord("private")) EatWord("nested");
  std::string name;
  Skip();
  const size_t name_offset = pos_;
  HLOVM_RETURN_IF_ERROR(ParseSymbol(&name));
  if (function_defined_.contains(name)) {
    return Error(name_offset, absl::StrCat("function @", name, " defined twice"));
  }
  function_defined_[name] = name_offset;
  HloComputation* c = FunctionComputation(name);
  Scope scope;
  scope.computation = c;
  HLOVM_RETURN_IF_ERROR(Expect('(', "to start the function's arguments"));
  int64_t number = 0;
  if (!Eat(')')) {
    do {
      ValueRef ref;
      HLOVM_RETURN_IF_ERROR(ParseValueRef(&ref));
      HLOVM_RETURN_IF_ERROR(Expect(':', "and the argument's type"));
      Shape t;
      HLOVM_RETURN_IF_ERROR(ParseType(&t));
      if (Peek() == '{') {
        AttrList ignored;
        HLOVM_RETURN_IF_ERROR(ParseAttrDict(&ignored));
      }
      HLOVM_RETURN_IF_ERROR(SkipLoc());
      HloInstruction* p = EmitParameter(&scope, number++, t);
      if (!scope.values.emplace(std::string(ref.name), std::vector<HloInstruction*>{p}).second) {
        return Error(ref.offset, absl::StrCat("argument %", Sv(ref.name), " given twice"));
      }
    } while (Eat(','));
    HLOVM_RETURN_IF_ERROR(Expect(')', "to close the function's arguments"));
  }
  std::vector<Shape> results;
  if (EatStr("->")) HLOVM_RETURN_IF_ERROR(ParseTypeList(&results));
  if (EatWord("attributes")) {
    AttrList ignored;
    HLOVM_RETURN_IF_ERROR(ParseAttrDict(&ignored));
  }
  if (Peek() != '{') {
    return ErrorHere("expected '{' (function declarations without a body are not supported)");
  }
  ++pos_;
  std::vector<HloInstruction*> returned;
  size_t body = pos_;
  HLOVM_RETURN_IF_ERROR(ParseBlock(&scope, &returned));
  if (returned.size() != results.size()) {
    return Error(body, absl::StrCat("@", name, " returns ", returned.size(), " values; its type says ",
                                    results.size()));
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (!returned[i]->shape().Compatible(results[i])) {
      return Error(body, absl::StrCat("@", name, " returns ", returned[i]->shape().ToString(false),
                                      " as result ", i, "; its type says ",
                                      results[i].ToString(false)));
    }
  }
  c->set_root(returned.size() == 1 ? returned[0] : EmitTuple(&scope, returned));
  HLOVM_RETURN_IF_ERROR(SkipLoc());
  return absl::OkStatus();
}

absl::Status Parser::ParseModuleBody(bool braced) {
  while (true) {
    char c = Peek();
    if (c == '\0') {
      if (braced) return ErrorHere("expected '}' to close the module");
      return absl::OkStatus();
    }
    if (braced && c == '}') {
      ++pos_;
      return absl::OkStatus();
    }
    if (c == '#') {
      // An attribute alias: #loc1 = loc(...).
      AttrValue ignored;
      HLOVM_RETURN_IF_ERROR(ParseHashAttr(&ignored));
      HLOVM_RETURN_IF_ERROR(Expect('=', "in an attribute alias"));
      HLOVM_RETURN_IF_ERROR(ParseAttrValue(&ignored));
      continue;
    }
    size_t start = pos_;
    std::string_view word = LexBareId();
    if (word == "func.func") {
      HLOVM_RETURN_IF_ERROR(ParseFunc());
    } else if (word == "module") {
      return Error(start, "nested modules are not supported");
    } else if (word.empty()) {
      return ErrorHere("expected 'func.func'");
    } else {
      std::string_view dialect = word.substr(0, word.find('.'));
      if (word.find('.') != std::string_view::npos && dialect != "func" && dialect != "stablehlo" &&
          dialect != "chlo") {
        return Error(start, absl::StrCat("unknown dialect '", Sv(dialect), "' (in '", Sv(word), "')"));
      }
      return Error(start, absl::StrCat("expected 'func.func', found '", Sv(word), "'"));
    }
  }
}

absl::StatusOr<std::unique_ptr<HloModule>> Parser::Run() {
  module_ = std::make_unique<HloModule>("main");
  Skip();
  if (Peek() == '\0') return ErrorHere("expected 'module' or 'func.func'");
  size_t start = pos_;
  while (Peek() == '#') {
    // Attribute aliases before the module: #loc1 = loc(...).
    AttrValue ignored;
    HLOVM_RETURN_IF_ERROR(ParseHashAttr(&ignored));
    HLOVM_RETURN_IF_ERROR(Expect('=', "in an attribute alias"));
    HLOVM_RETURN_IF_ERROR(ParseAttrValue(&ignored));
    start = pos_;
  }
  if (EatWord("module")) {
    Skip();
    if (Peek() == '@') {
      std::string name;
      HLOVM_RETURN_IF_ERROR(ParseSymbol(&name));
      module_->set_name(name);
    }
    if (EatWord("attributes")) {
      AttrList attrs;
      HLOVM_RETURN_IF_ERROR(ParseAttrDict(&attrs));
      for (const auto& [key, value] : attrs) {
        if (key == "mhlo.num_replicas" || key == "mhlo.num_partitions") {
          if (value.kind != AttrValue::Kind::kInt) {
            return Error(value.offset, absl::StrCat(key, " must be an integer"));
          }
          (key == "mhlo.num_replicas" ? module_->replica_count : module_->num_partitions) = value.i;
        }
      }
      absl::Status counts = ValidateInstanceCounts(module_->replica_count, module_->num_partitions);
      if (!counts.ok()) return Error(start, Msg(counts));
    }
    HLOVM_RETURN_IF_ERROR(Expect('{', "to start the module body"));
    HLOVM_RETURN_IF_ERROR(ParseModuleBody(/*braced=*/true));
    HLOVM_RETURN_IF_ERROR(SkipLoc());
    if (Peek() != '\0') return ErrorHere("text after the module");
  } else {
    HLOVM_RETURN_IF_ERROR(ParseModuleBody(/*braced=*/false));
  }
  for (const auto& [name, offset] : function_used_) {
    if (!function_defined_.contains(name)) {
      return Error(offset, absl::StrCat("call to undefined function @", name));
    }
  }
  if (function_defined_.empty()) return Error(start, "the module has no function");
  HloComputation* entry = nullptr;
  auto main = functions_.find("main");
  if (main != functions_.end()) {
    entry = main->second;
  } else {
    // The last function defined.
    size_t last = 0;
    for (const auto& [name, offset] : function_defined_) {
      if (entry == nullptr || offset > last) {
        entry = functions_[name];
        last = offset;
      }
    }
  }
  entry->set_is_entry(true);
  module_->set_entry(entry);
  if (options_.keep_source) module_->source_text = std::make_shared<const std::string>(s_);
  module_->source_name = options_.file_name;
  return std::move(module_);
}

HloInstruction* Parser::Emit(Scope* scope, HloOpcode opcode, Shape shape,
                             const std::vector<HloInstruction*>& operands) {
  auto instr = std::make_unique<HloInstruction>(
      opcode, absl::StrCat(Sv(HloOpcodeName(opcode)), ".", ++next_id_),
      WithDefaultLayout(std::move(shape)));
  for (HloInstruction* o : operands) instr->AppendOperand(o);
  return scope->computation->AddInstruction(std::move(instr));
}

HloInstruction* Parser::EmitParameter(Scope* scope, int64_t number, Shape shape) {
  auto instr = std::make_unique<HloInstruction>(
      HloOpcode::kParameter, absl::StrCat("Arg_", number, ".", ++next_id_),
      WithDefaultLayout(std::move(shape)));
  instr->parameter_number = number;  // read when the computation adds it
  return scope->computation->AddInstruction(std::move(instr));
}

HloInstruction* Parser::EmitTuple(Scope* scope, const std::vector<HloInstruction*>& elements) {
  std::vector<Shape> shapes;
  for (HloInstruction* e : elements) shapes.push_back(e->shape());
  return Emit(scope, HloOpcode::kTuple, Shape::Tuple(std::move(shapes)), elements);
}

HloInstruction* Parser::EmitGte(Scope* scope, HloInstruction* tuple, int64_t index) {
  const Shape& ts = tuple->shape();
  Shape element = index < ts.tuple_size() ? ts.tuple_shape(index) : Shape();
  HloInstruction* g = Emit(scope, HloOpcode::kGetTupleElement, element, {tuple});
  g->tuple_index = index;
  return g;
}

void Parser::Unpack(Scope* scope, HloInstruction* instr, size_t count,
                    std::vector<HloInstruction*>* results) {
  if (count == 1) {
    results->push_back(instr);
    return;
  }
  for (size_t i = 0; i < count; ++i) results->push_back(EmitGte(scope, instr, static_cast<int64_t>(i)));
}

}  // namespace stablehlo_internal

absl::StatusOr<std::unique_ptr<HloModule>> ParseStableHloModule(std::string_view text,
                                                                const ParseOptions& options) {
  stablehlo_internal::Parser parser(text, options);
  return parser.Run();
}

bool LooksLikeStableHlo(std::string_view text, std::string_view file_name) {
  if (file_name.size() >= 5 && file_name.substr(file_name.size() - 5) == ".mlir") return true;
  size_t p = 0;
  while (p < text.size()) {
    char c = text[p];
    if (stablehlo_internal::IsSpace(c)) {
      ++p;
    } else if (c == '/' && p + 1 < text.size() && text[p + 1] == '/') {
      while (p < text.size() && text[p] != '\n') ++p;
    } else {
      break;
    }
  }
  std::string_view rest = text.substr(p);
  if (rest.substr(0, 9) == "func.func") return true;
  if (!rest.empty() && rest[0] == '#') return true;  // an attribute alias (#loc = ...)
  if (rest.substr(0, 6) != "module") return false;
  rest = rest.substr(6);
  size_t q = 0;
  while (q < rest.size() && stablehlo_internal::IsSpace(rest[q])) ++q;
  rest = rest.substr(q);
  if (q == 0 && !rest.empty() && rest[0] != '{') return false;
  return !rest.empty() && (rest[0] == '@' || rest[0] == '{' || rest.substr(0, 10) == "attributes");
}

}  // namespace hlovm
