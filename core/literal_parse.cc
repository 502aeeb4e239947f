// Parsing literals from XLA's text: values for a given shape (nested braces,
// special floats, complex pairs, tuples, the elided `{...}`), and shaped
// literals ("f32[2] {1, 2}"). Literal::SetFromDouble stores a number as the
// parser stores a decimal.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/float_format.h"
#include "core/literal.h"
#include "core/literal_internal.h"
#include "core/status_macros.h"

namespace hlovm {
namespace {

using literal_internal::ElementStrides;
using literal_internal::HasNanPayloads;
using literal_internal::ParseDecimal;
using literal_internal::SignMask;
using literal_internal::Sv;
using literal_internal::UpperTypeName;
using literal_internal::WriteBits;

//===----------------------------------------------------------------------===//
// Lexing literal values.
//===----------------------------------------------------------------------===//

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsIdentifierChar(char c) { return IsAlpha(c) || IsDigit(c) || c == '.' || c == '-'; }

struct ValueToken {
  enum Kind { kInt, kDecimal, kInf, kNan, kTrue, kFalse };
  Kind kind = kInt;
  bool negative = false;
  uint64_t magnitude = 0;  // kInt
  uint64_t payload = 0;    // kNan: 0 for the default NaN
  size_t begin = 0;        // text span
  size_t end = 0;
};

constexpr uint64_t kMaxDoublePayload = (uint64_t{1} << 52) - 1;

// Lexes `(0x<hex>)` after a nan at the cursor.
absl::Status LexNanPayload(TextCursor& cursor, ValueToken* token) {
  std::string_view text = cursor.text;
  size_t p = cursor.pos;
  if (p >= text.size() || text[p] != '(') return absl::OkStatus();
  if (p + 2 >= text.size() || text[p + 1] != '0' || (text[p + 2] != 'x' && text[p + 2] != 'X')) {
    cursor.pos = p;
    return cursor.Error("expected NaN payload '(0x<hex digits>)'");
  }
  size_t q = p + 3;
  uint64_t payload = 0;
  bool overflow = false;
  size_t digits = 0;
  for (; q < text.size(); ++q) {
    char c = text[q];
    int v;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      v = c - 'A' + 10;
    } else {
      break;
    }
    if (payload >> 60) overflow = true;
    payload = payload << 4 | v;
    ++digits;
  }
  if (digits == 0 || q >= text.size() || text[q] != ')') {
    cursor.pos = q;
    return cursor.Error("expected NaN payload '(0x<hex digits>)'");
  }
  if (overflow || payload == 0 || payload > kMaxDoublePayload) {
    cursor.pos = p;
    return cursor.Error(absl::StrCat("NaN payload ", Sv(text.substr(p + 1, q - p - 1)),
                                     " is out of range (0x1 to 0x", absl::Hex(kMaxDoublePayload),
                                     ")"));
  }
  token->payload = payload;
  cursor.pos = q + 1;
  return absl::OkStatus();
}

// Lexes one value token (number, inf, nan, true, false) at the cursor, which
// must already be past any space. On error the cursor stays at the token.
absl::Status LexValue(TextCursor& cursor, ValueToken* token) {
  std::string_view text = cursor.text;
  const size_t start = cursor.pos;
  *token = ValueToken();
  token->begin = start;
  if (start >= text.size()) return cursor.ErrorExpected("a value");
  char c = text[start];
  if (IsAlpha(c)) {
    size_t q = start;
    while (q < text.size() && IsIdentifierChar(text[q])) ++q;
    std::string_view word = text.substr(start, q - start);
    if (word == "nan") {
      cursor.pos = q;
      token->kind = ValueToken::kNan;
      absl::Status status = LexNanPayload(cursor, token);
      if (!status.ok()) return status;
    } else if (word == "inf") {
      token->kind = ValueToken::kInf;
      cursor.pos = q;
    } else if (word == "true") {
      token->kind = ValueToken::kTrue;
      cursor.pos = q;
    } else if (word == "false") {
      token->kind = ValueToken::kFalse;
      cursor.pos = q;
    } else {
      return cursor.ErrorExpected("a value");
    }
    token->end = cursor.pos;
    return absl::OkStatus();
  }
  if (c != '-' && c != '.' && !IsDigit(c)) return cursor.ErrorExpected("a value");
  size_t q = start;
  if (text[q] == '-') {
    token->negative = true;
    ++q;
  }
  // -inf and -nan.
  if (q < text.size() && IsAlpha(text[q])) {
    std::string_view rest = text.substr(q);
    if (rest.substr(0, 3) == "inf") {
      token->kind = ValueToken::kInf;
      cursor.pos = q + 3;
      token->end = cursor.pos;
      return absl::OkStatus();
    }
    if (rest.substr(0, 3) == "nan") {
      token->kind = ValueToken::kNan;
      cursor.pos = q + 3;
      absl::Status status = LexNanPayload(cursor, token);
      if (!status.ok()) {
        return status;
      }
      token->end = cursor.pos;
      return absl::OkStatus();
    }
    return cursor.ErrorExpected("a value");
  }
  size_t int_begin = q;
  while (q < text.size() && IsDigit(text[q])) ++q;
  size_t int_digits = q - int_begin;
  size_t frac_digits = 0;
  bool has_point = false;
  if (q < text.size() && text[q] == '.') {
    size_t r = q + 1;
    while (r < text.size() && IsDigit(text[r])) ++r;
    frac_digits = r - q - 1;
    if (int_digits > 0 || frac_digits > 0) {
      has_point = true;
      q = r;
    }
  }
  if (int_digits == 0 && frac_digits == 0) return cursor.ErrorExpected("a value");
  bool has_exponent = false;
  if (q < text.size() && (text[q] == 'e' || text[q] == 'E')) {
    size_t r = q + 1;
    if (r < text.size() && (text[r] == '+' || text[r] == '-')) ++r;
    size_t digits_begin = r;
    while (r < text.size() && IsDigit(text[r])) ++r;
    if (r > digits_begin) {
      has_exponent = true;
      q = r;
    }
  }
  if (has_point || has_exponent) {
    token->kind = ValueToken::kDecimal;
    cursor.pos = q;
    token->end = q;
    return absl::OkStatus();
  }
  // An integer.
  uint64_t magnitude = 0;
  for (size_t i = int_begin; i < q; ++i) {
    uint64_t digit = text[i] - '0';
    if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      return cursor.Error(
          absl::StrCat("integer ", Sv(text.substr(start, q - start)), " is out of range"));
    }
    magnitude = magnitude * 10 + digit;
  }
  if (token->negative && magnitude > (uint64_t{1} << 63)) {
    return cursor.Error(
        absl::StrCat("integer ", Sv(text.substr(start, q - start)), " is out of range"));
  }
  token->kind = ValueToken::kInt;
  token->magnitude = magnitude;
  cursor.pos = q;
  token->end = q;
  return absl::OkStatus();
}

// Reads a numeric token as a double (correctly rounded). NaN tokens give a
// NaN whose sign and payload are in the token.
absl::Status TokenToDouble(TextCursor& cursor, const ValueToken& token, double* value) {
  switch (token.kind) {
    case ValueToken::kInf:
      *value = token.negative ? -std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::infinity();
      return absl::OkStatus();
    case ValueToken::kNan:
      *value = token.negative ? -std::numeric_limits<double>::quiet_NaN()
                              : std::numeric_limits<double>::quiet_NaN();
      return absl::OkStatus();
    case ValueToken::kInt:
    case ValueToken::kDecimal: {
      double v = ParseDecimal(cursor.text.substr(token.begin, token.end - token.begin));
      if (std::isinf(v)) {
        cursor.pos = token.begin;
        return cursor.Error(absl::StrCat("Constant is out of range for double (+/-",
                                         std::numeric_limits<double>::max(),
                                         ") and so is unparsable."));
      }
      *value = v;
      return absl::OkStatus();
    }
    default:
      cursor.pos = token.begin;
      return cursor.Error("expects decimal or integer");
  }
}

//===----------------------------------------------------------------------===//
// Storing parsed values.
//===----------------------------------------------------------------------===//

// Where a value goes, for error messages.
struct Target {
  const Shape* shape;
  int64_t linear_index;
};

std::string OutOfRangeMessage(const std::string& value, ElementType type, const std::string& low,
                              const std::string& high) {
  return absl::StrCat("value ", value, " is out of range for literal's primitive type ",
                      UpperTypeName(type), " namely [", low, ", ", high, "].");
}

absl::Status PayloadOutOfRange(TextCursor& cursor, const ValueToken& token, const Target& target,
                               uint64_t largest) {
  cursor.pos = token.begin;
  return cursor.Error(absl::StrCat(
      "tries to set NaN payload 0x", absl::Hex(token.payload), " to a literal in shape ",
      target.shape->ToString(false), " at linear index ", target.linear_index,
      ", but the NaN payload is out of range (0x", absl::Hex(largest), ")"));
}

absl::Status NoPayloads(TextCursor& cursor, const ValueToken& token, const Target& target,
                        ElementType type) {
  cursor.pos = token.begin;
  return cursor.Error(absl::StrCat("tries to set NaN payload 0x", absl::Hex(token.payload),
                                   " to a literal in shape ", target.shape->ToString(false),
                                   " at linear index ", target.linear_index, ", but ",
                                   Sv(ElementTypeName(type)), " does not support payloads"));
}

// Largest finite value of a narrow float type.
double NarrowMax(ElementType type) {
  const SmallFloatFormat& format = NarrowFloatFormat(type);
  double best = 0;
  uint32_t count = 1u << format.total_bits;
  for (uint32_t bits = 0; bits < count; ++bits) {
    double v = DecodeNarrowFloat(type, bits);
    if (std::isfinite(v) && v > best) best = v;
  }
  return best;
}

double NarrowLowest(ElementType type) {
  const SmallFloatFormat& format = NarrowFloatFormat(type);
  double best = std::numeric_limits<double>::infinity();
  uint32_t count = 1u << format.total_bits;
  for (uint32_t bits = 0; bits < count; ++bits) {
    double v = DecodeNarrowFloat(type, bits);
    if (std::isfinite(v) && v < best) best = v;
  }
  return best;
}

// Converts a parsed value to the float type `type` (f16..f64 and small
// floats, not complex) and stores it at `p`. `range_type` names the type in
// range errors (the complex type for complex parts); `part` is "" or
// "real"/"imaginary".
absl::Status StoreFloat(TextCursor& cursor, const ValueToken& token, double value, ElementType type,
                        const Target& target, ElementType range_type, std::string_view part,
                        uint8_t* p) {
  auto range_error = [&](double low, double high) {
    cursor.pos = token.begin;
    if (part.empty()) {
      return cursor.Error(OutOfRangeMessage(absl::StrCat(value), range_type, absl::StrCat(low),
                                            absl::StrCat(high)));
    }
    return cursor.Error(
        absl::StrCat(Sv(part), " part ", value, " is out of range for literal's primitive type ",
                     UpperTypeName(range_type), ", namely [", low, ", ", high, "]."));
  };
  const bool is_nan = token.kind == ValueToken::kNan;
  if (type == ElementType::kF64) {
    uint64_t bits;
    if (is_nan) {
      uint64_t payload = token.payload != 0 ? token.payload : uint64_t{1} << 51;
      bits = (uint64_t{token.negative} << 63) | (uint64_t{0x7ff} << 52) | payload;
    } else {
      std::memcpy(&bits, &value, 8);
    }
    std::memcpy(p, &bits, 8);
    return absl::OkStatus();
  }
  if (type == ElementType::kF32) {
    uint32_t bits;
    if (is_nan) {
      uint64_t payload = token.payload != 0 ? token.payload : uint64_t{1} << 22;
      if (payload > 0x7fffff) return PayloadOutOfRange(cursor, token, target, 0x7fffff);
      bits = (uint32_t{token.negative} << 31) | (uint32_t{0xff} << 23) |
             static_cast<uint32_t>(payload);
    } else {
      float f = static_cast<float>(value);
      if (std::isinf(f) && !std::isinf(value)) {
        return range_error(-std::numeric_limits<float>::max(), std::numeric_limits<float>::max());
      }
      std::memcpy(&bits, &f, 4);
    }
    std::memcpy(p, &bits, 4);
    return absl::OkStatus();
  }
  // f16, bf16 and the small floats.
  const SmallFloatFormat& format = NarrowFloatFormat(type);
  const uint32_t sign = SignMask(format);
  const uint32_t exponent_mask = ((1u << format.exponent_bits) - 1) << format.mantissa_bits;
  const uint32_t mantissa_mask = (1u << format.mantissa_bits) - 1;
  uint32_t bits;
  if (is_nan) {
    if (!format.has_nan) {
      cursor.pos = token.begin;
      return cursor.Error(absl::StrCat(Sv(ElementTypeName(type)), " has no NaN"));
    }
    if (HasNanPayloads(format)) {
      uint64_t payload =
          token.payload != 0 ? token.payload : uint64_t{1} << (format.mantissa_bits - 1);
      if (payload > mantissa_mask) return PayloadOutOfRange(cursor, token, target, mantissa_mask);
      bits = (token.negative ? sign : 0) | exponent_mask | static_cast<uint32_t>(payload);
    } else if (format.nan_is_negative_zero_pattern) {
      if (token.payload != 0) return NoPayloads(cursor, token, target, type);
      bits = 1u << (format.total_bits - 1);
    } else {
      // One NaN per sign: every exponent and mantissa bit set (f8e4m3fn), or
      // the all-ones pattern of an unsigned format (f8e8m0fnu).
      if (token.payload != 0 && token.payload != mantissa_mask) {
        return NoPayloads(cursor, token, target, type);
      }
      bits = (token.negative ? sign : 0) | exponent_mask | mantissa_mask;
    }
  } else if (std::isinf(value) && !format.has_infinity && !format.has_nan) {
    return range_error(NarrowLowest(type), NarrowMax(type));
  } else {
    bits = EncodeNarrowFloat(type, value);
    if (std::isfinite(value) && !std::isfinite(DecodeNarrowFloat(type, bits))) {
      return range_error(NarrowLowest(type), NarrowMax(type));
    }
  }
  WriteBits(type, bits, p);
  return absl::OkStatus();
}

// Parses one element value of `type` at the cursor (after space) and stores
// it at `p`.
absl::Status ParseElement(TextCursor& cursor, ElementType type, const Target& target, uint8_t* p) {
  const TypeKind kind = ElementTypeKind(type);
  if (kind == TypeKind::kComplex) {
    if (cursor.Peek() != '(') return cursor.ErrorExpected("'(' before complex number");
    ++cursor.pos;
    ElementType part_type = ComplexComponentType(type);
    int part_width = ByteWidth(part_type);
    for (int part = 0; part < 2; ++part) {
      HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
      ValueToken token;
      size_t at = cursor.pos;
      absl::Status lexed = LexValue(cursor, &token);
      if (!lexed.ok() || token.kind == ValueToken::kTrue || token.kind == ValueToken::kFalse) {
        if (!lexed.ok() && cursor.pos != at) return lexed;
        cursor.pos = at;
        return cursor.Error(part == 0
                                ? "expect floating-point value for real part of complex number"
                                : "expect floating-point value for imaginary part of complex "
                                  "number");
      }
      double value;
      HLOVM_RETURN_IF_ERROR(TokenToDouble(cursor, token, &value));
      HLOVM_RETURN_IF_ERROR(StoreFloat(cursor, token, value, part_type, target, type,
                                       part == 0 ? "real" : "imaginary", p + part * part_width));
      HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
      if (part == 0) {
        if (cursor.Peek() != ',') {
          return cursor.Error("expect comma after real part of complex literal");
        }
        ++cursor.pos;
      } else {
        if (cursor.Peek() != ')') return cursor.Error("expect ')' after complex number");
        ++cursor.pos;
      }
    }
    return absl::OkStatus();
  }
  ValueToken token;
  size_t at = cursor.pos;
  HLOVM_RETURN_IF_ERROR(LexValue(cursor, &token));
  auto wrong_kind = [&](std::string_view expected) {
    cursor.pos = at;
    return cursor.Error(absl::StrCat(Sv(expected), UpperTypeName(type)));
  };
  switch (kind) {
    case TypeKind::kPred:
      if (token.kind == ValueToken::kTrue || token.kind == ValueToken::kFalse) {
        p[0] = token.kind == ValueToken::kTrue;
      } else if (token.kind == ValueToken::kInt) {
        // As XLA: any integer, nonzero meaning true (arrays print 0 and 1).
        p[0] = token.magnitude != 0;
      } else {
        return wrong_kind("expects integer for primitive type: ");
      }
      return absl::OkStatus();
    case TypeKind::kSigned:
    case TypeKind::kUnsigned: {
      if (token.kind != ValueToken::kInt) return wrong_kind("expects integer for primitive type: ");
      // As XLA: the text is read as a 64-bit integer (a positive one above
      // INT64_MAX wraps to its two's complement), then checked against the
      // type's range; unsigned types check it as an unsigned 64-bit value,
      // so u64 takes any of them.
      const int bits = BitWidth(type);
      const int64_t value = token.negative ? static_cast<int64_t>(~token.magnitude + 1)
                                           : static_cast<int64_t>(token.magnitude);
      if (kind == TypeKind::kSigned) {
        const int64_t max =
            bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
        const int64_t min = -max - 1;
        if (value < min || value > max) {
          cursor.pos = at;
          return cursor.Error(
              OutOfRangeMessage(absl::StrCat(value), type, absl::StrCat(min), absl::StrCat(max)));
        }
      } else {
        const uint64_t max =
            bits == 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << bits) - 1;
        if (static_cast<uint64_t>(value) > max) {
          cursor.pos = at;
          return cursor.Error(OutOfRangeMessage(absl::StrCat(value), type, "0", absl::StrCat(max)));
        }
      }
      WriteBits(type, static_cast<uint64_t>(value), p);
      return absl::OkStatus();
    }
    case TypeKind::kFloat: {
      if (token.kind == ValueToken::kTrue || token.kind == ValueToken::kFalse) {
        return wrong_kind("expect floating point value for primitive type: ");
      }
      double value;
      HLOVM_RETURN_IF_ERROR(TokenToDouble(cursor, token, &value));
      return StoreFloat(cursor, token, value, type, target, type, "", p);
    }
    default:
      cursor.pos = at;
      return cursor.Error(absl::StrCat("unsupported primitive type ", UpperTypeName(type)));
  }
}

//===----------------------------------------------------------------------===//
// Parsing arrays and tuples.
//===----------------------------------------------------------------------===//

absl::Status ParseArrayValue(TextCursor& cursor, const Shape& shape, LiteralSyntax syntax,
                             Literal* literal) {
  const int64_t rank = shape.rank();
  const ElementType type = shape.element_type();
  const int64_t width = ByteWidth(type);
  uint8_t* data = literal->untyped_data();
  HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
  if (cursor.Peek() == '}') return cursor.Error("unexpected '}' token");
  if (rank == 0) {
    if (cursor.Peek() == '{') {
      return cursor.Error("expects nested array in rank 0, but sees larger");
    }
    return ParseElement(cursor, type, Target{&shape, 0}, data);
  }
  if (cursor.Peek() != '{') {
    // XLA reads a bare value given for an array (`f32[3] constant(1)`) into
    // its first element and leaves the others zero.
    if (cursor.AtEnd() || cursor.Peek() == '}' || cursor.Peek() == ',' || cursor.Peek() == ')') {
      return cursor.ErrorExpected("'{' to start an array literal");
    }
    if (syntax.every_element) {
      return cursor.Error(absl::StrCat("one value given for ", shape.ToString(false), ", which has ",
                                       shape.element_count(), " element",
                                       shape.element_count() == 1 ? "" : "s",
                                       "; write every element, in braces"));
    }
    if (shape.element_count() == 0) {
      return cursor.Error(absl::StrCat("tries to set a value to a literal in shape ",
                                       shape.ToString(false),
                                       " at linear index 0, but the index is out of range"));
    }
    return ParseElement(cursor, type, Target{&shape, 0}, data);
  }
  const std::vector<int64_t> strides = ElementStrides(literal->shape());
  // The elided form `{...}`.
  {
    TextCursor probe = cursor;
    ++probe.pos;
    HLOVM_RETURN_IF_ERROR(probe.SkipSpace());
    if (probe.Rest().substr(0, 3) == "...") {
      if (syntax.every_element) {
        return cursor.Error(absl::StrCat("the elided value {...} gives none of the ",
                                         shape.element_count(), " elements of ",
                                         shape.ToString(false)));
      }
      probe.pos += 3;
      HLOVM_RETURN_IF_ERROR(probe.SkipSpace());
      if (probe.Peek() != '}') {
        return probe.ErrorExpected("'}' after '...' (an elided literal is written {...})");
      }
      ++probe.pos;
      cursor = probe;
      literal->set_elided(true);
      return absl::OkStatus();
    }
  }
  // elems_seen[d]: elements or sub-arrays seen so far in the open array at
  // nesting depth d.
  std::vector<int64_t> elems_seen(rank, 0);
  auto index_string = [&](int64_t dim) {
    std::vector<int64_t> prefix;
    for (int64_t d = 0; d < dim; ++d) prefix.push_back(elems_seen[d] - 1);
    return absl::StrCat("[", absl::StrJoin(prefix, ","), "]");
  };
  int64_t nest_level = 0;
  int64_t linear_index = 0;
  bool after_item = false;  // an element or sub-array just ended
  bool after_comma = false;
  do {
    HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
    const char c = cursor.Peek();
    if (c == '{') {
      if (after_item) return cursor.ErrorExpected("',' or '}'");
      if (nest_level >= rank) {
        return cursor.Error(
            absl::StrFormat("expects nested array in rank %d, but sees larger", rank));
      }
      if (nest_level > 0) {
        int64_t dim = nest_level - 1;
        if (++elems_seen[dim] > shape.dimensions(dim)) {
          return cursor.Error(
              absl::StrFormat("expects %d elements in the %sth element, but sees more",
                              shape.dimensions(dim), index_string(dim)));
        }
      }
      ++nest_level;
      ++cursor.pos;
      after_item = false;
      after_comma = false;
    } else if (c == '}') {
      if (after_comma) return cursor.ErrorExpected("a value or '{' after ','");
      --nest_level;
      if (elems_seen[nest_level] != shape.dimensions(nest_level)) {
        return cursor.Error(absl::StrFormat("expects %d elements in the %sth element, but sees %d",
                                            shape.dimensions(nest_level), index_string(nest_level),
                                            elems_seen[nest_level]));
      }
      elems_seen[nest_level] = 0;
      ++cursor.pos;
      after_item = true;
    } else if (c == ',') {
      if (!after_item) return cursor.ErrorExpected("a value or '{'");
      ++cursor.pos;
      after_item = false;
      after_comma = true;
    } else if (c == '.' && cursor.Rest().substr(0, 3) == "...") {
      if (nest_level != 1) {
        return cursor.Error(absl::StrFormat(
            "expects `...` at nest level 1, but sees it at nest level %d", nest_level));
      }
      return cursor.Error("`...` may only stand for a whole literal, as {...}");
    } else if (cursor.AtEnd()) {
      return cursor.ErrorExpected("'}'");
    } else {
      if (after_item) return cursor.ErrorExpected("',' or '}'");
      if (nest_level != rank) {
        return cursor.Error(
            absl::StrFormat("expects nested array in rank %d, but sees %d", rank, nest_level));
      }
      if (++elems_seen[rank - 1] > shape.dimensions(rank - 1)) {
        return cursor.Error(
            absl::StrFormat("expects %d elements on the minor-most dimension, but sees more",
                            shape.dimensions(rank - 1)));
      }
      int64_t offset = 0;
      for (int64_t d = 0; d < rank; ++d) offset += (elems_seen[d] - 1) * strides[d];
      HLOVM_RETURN_IF_ERROR(
          ParseElement(cursor, type, Target{&shape, linear_index}, data + offset * width));
      ++linear_index;
      after_item = true;
      after_comma = false;
    }
  } while (nest_level > 0);
  return absl::OkStatus();
}

absl::Status ParseValue(TextCursor& cursor, const Shape& shape, LiteralSyntax syntax,
                        Literal* literal) {
  if (shape.IsTuple()) {
    HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
    if (cursor.Peek() != '(') return cursor.ErrorExpected("'(' in front of tuple elements");
    ++cursor.pos;
    std::vector<Literal>& elements = literal->tuple_elements();
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      if (i > 0) {
        HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
        if (cursor.Peek() != ',') {
          return cursor.ErrorExpected(
              absl::StrCat("',' and the ", i, "th of ", shape.tuple_size(), " tuple elements"));
        }
        ++cursor.pos;
      }
      HLOVM_RETURN_IF_ERROR(ParseValue(cursor, shape.tuple_shape(i), syntax, &elements[i]));
    }
    HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
    if (cursor.Peek() != ')') {
      return cursor.ErrorExpected(
          absl::StrCat("')' at the end of the tuple with ", shape.tuple_size(), " elements"));
    }
    ++cursor.pos;
    return absl::OkStatus();
  }
  if (!shape.IsArray()) {
    return cursor.Error(
        absl::StrCat("a literal of shape ", shape.ToString(false), " cannot be written"));
  }
  return ParseArrayValue(cursor, shape, syntax, literal);
}

// Deepest tuple nesting ParseLiteral reads.
constexpr int kMaxTupleDepth = 100;

absl::Status ParseShapeAndValue(TextCursor& cursor, LiteralSyntax syntax, Literal* literal,
                                int depth);

// The tuple form ToString prints: "(shape value, shape value, ...)".
absl::Status ParseTupleOfShapedValues(TextCursor& cursor, LiteralSyntax syntax, Literal* literal,
                                      int depth) {
  HLOVM_RETURN_IF_ERROR(cursor.Expect('('));
  std::vector<Literal> elements;
  HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
  if (cursor.Peek() != ')') {
    while (true) {
      Literal element;
      HLOVM_RETURN_IF_ERROR(ParseShapeAndValue(cursor, syntax, &element, depth + 1));
      elements.push_back(std::move(element));
      HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
      if (cursor.Peek() == ')') break;
      if (cursor.Peek() != ',') return cursor.ErrorExpected("',' or ')'");
      ++cursor.pos;
    }
  }
  ++cursor.pos;
  *literal = Literal::Tuple(std::move(elements));
  return absl::OkStatus();
}

// Parses an array shape and its value. "f32[2] {1, 2}" could read as a shape
// with layout {1, 2} and no value, so the shape is first read without a
// layout; only if the value does not fit there is the layout taken.
absl::Status ParseArrayShapeAndValue(TextCursor& cursor, LiteralSyntax syntax, Literal* literal) {
  size_t close = cursor.text.find(']', cursor.pos);
  if (close != std::string_view::npos) {
    TextCursor head{cursor.text.substr(0, close + 1), cursor.pos};
    Shape shape;
    if (ParseShape(head, &shape).ok()) {
      TextCursor value_cursor{cursor.text, head.pos};
      Literal value;
      absl::Status status = ParseLiteralValue(value_cursor, shape, &value, syntax);
      if (status.ok()) {
        TextCursor next = value_cursor;
        if (next.SkipSpace().ok() && (next.AtEnd() || next.Peek() == ',' || next.Peek() == ')')) {
          cursor = value_cursor;
          *literal = std::move(value);
          return absl::OkStatus();
        }
      }
      TextCursor with_layout = cursor;
      Shape full;
      if (!ParseShape(with_layout, &full).ok() || with_layout.pos == head.pos) {
        if (!status.ok()) {
          cursor = value_cursor;
          return status;
        }
        cursor = value_cursor;
        *literal = std::move(value);
        return absl::OkStatus();
      }
    }
  }
  Shape shape;
  HLOVM_RETURN_IF_ERROR(ParseShape(cursor, &shape));
  return ParseLiteralValue(cursor, shape, literal, syntax);
}

absl::Status ParseShapeAndValue(TextCursor& cursor, LiteralSyntax syntax, Literal* literal,
                                int depth) {
  HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
  if (cursor.Peek() != '(') return ParseArrayShapeAndValue(cursor, syntax, literal);
  if (depth >= kMaxTupleDepth) {
    return cursor.Error(absl::StrCat("tuples are nested more than ", kMaxTupleDepth, " deep"));
  }
  // Either "(shape value, ...)" or "(shapes) (values)": try both, and report
  // the error of the reading that got further.
  TextCursor shaped = cursor;
  Literal shaped_literal;
  absl::Status shaped_status = ParseTupleOfShapedValues(shaped, syntax, &shaped_literal, depth);
  if (shaped_status.ok()) {
    // "(...)" followed by "(" is a tuple shape and its value, as in "() ()".
    TextCursor next = shaped;
    if (!next.SkipSpace().ok() || next.Peek() != '(') {
      cursor = shaped;
      *literal = std::move(shaped_literal);
      return absl::OkStatus();
    }
  }
  TextCursor plain = cursor;
  Shape shape;
  Literal plain_literal;
  absl::Status plain_status = ParseShape(plain, &shape);
  if (plain_status.ok()) plain_status = ParseLiteralValue(plain, shape, &plain_literal, syntax);
  if (plain_status.ok()) {
    cursor = plain;
    *literal = std::move(plain_literal);
    return absl::OkStatus();
  }
  if (shaped_status.ok()) {
    cursor = shaped;
    *literal = std::move(shaped_literal);
    return absl::OkStatus();
  }
  if (plain.pos >= shaped.pos) {
    cursor = plain;
    return plain_status;
  }
  cursor = shaped;
  return shaped_status;
}

}  // namespace

absl::Status Literal::SetFromDouble(int64_t physical_index, double value) {
  const ElementType type = shape_.element_type();
  if (!shape_.IsArray() || physical_index < 0 || physical_index >= shape_.element_count()) {
    return absl::OutOfRangeError(
        absl::StrCat("no element ", physical_index, " in a literal of shape ", shape_.ToString()));
  }
  uint8_t* p = untyped_data() + physical_index * ByteWidth(type);
  const TypeKind kind = ElementTypeKind(type);
  if (kind == TypeKind::kFloat) {
    ValueToken token;
    token.kind = std::isnan(value) ? ValueToken::kNan : ValueToken::kDecimal;
    token.negative = std::signbit(value);
    TextCursor cursor{std::string_view(), 0};  // only carries error messages
    return StoreFloat(cursor, token, value, type, Target{&shape_, physical_index}, type, "", p);
  }
  if (kind == TypeKind::kPred) {
    p[0] = value != 0;
    return absl::OkStatus();
  }
  if (kind == TypeKind::kSigned || kind == TypeKind::kUnsigned) {
    const int bits = BitWidth(type);
    double low = kind == TypeKind::kSigned ? -std::ldexp(1.0, bits - 1) : 0.0;
    double high_exclusive =
        kind == TypeKind::kSigned ? std::ldexp(1.0, bits - 1) : std::ldexp(1.0, bits);
    if (!(value >= low && value < high_exclusive) || value != std::floor(value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("value ", value, " does not fit in ", Sv(ElementTypeName(type))));
    }
    uint64_t bits_value = kind == TypeKind::kSigned
                              ? static_cast<uint64_t>(static_cast<int64_t>(value))
                              : static_cast<uint64_t>(value);
    WriteBits(type, bits_value, p);
    return absl::OkStatus();
  }
  if (kind == TypeKind::kComplex) {
    if (type == ElementType::kC64) {
      float parts[2] = {static_cast<float>(value), 0.0f};
      std::memcpy(p, parts, 8);
    } else {
      double parts[2] = {value, 0.0};
      std::memcpy(p, parts, 16);
    }
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("cannot store a number in ", Sv(ElementTypeName(type))));
}

absl::Status ParseLiteralValue(TextCursor& cursor, const Shape& shape, Literal* literal,
                               LiteralSyntax syntax) {
  HLOVM_ASSIGN_OR_RETURN(Literal result, Literal::Create(shape));
  HLOVM_RETURN_IF_ERROR(ParseValue(cursor, result.shape(), syntax, &result));
  *literal = std::move(result);
  return absl::OkStatus();
}

absl::Status ParseShapedLiteral(TextCursor& cursor, Literal* literal, LiteralSyntax syntax) {
  return ParseShapeAndValue(cursor, syntax, literal, 0);
}

absl::StatusOr<Literal> ParseLiteral(std::string_view text, LiteralSyntax syntax) {
  TextCursor cursor{text, 0};
  Literal literal;
  absl::Status status = ParseShapeAndValue(cursor, syntax, &literal, 0);
  if (status.ok()) {
    status = cursor.SkipSpace();
    if (status.ok() && !cursor.AtEnd()) status = cursor.ErrorExpected("end of the literal");
  }
  if (!status.ok()) {
    LineColumn where = GetLineColumn(text, cursor.pos);
    std::string prefix = where.line == 1
                             ? absl::StrCat("column ", where.column, ": ")
                             : absl::StrCat("line ", where.line, ", column ", where.column, ": ");
    return absl::Status(status.code(), absl::StrCat(prefix, status.message()));
  }
  return literal;
}

}  // namespace hlovm
