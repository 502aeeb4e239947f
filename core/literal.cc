#include "core/literal.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/float_format.h"
#include "core/status_macros.h"

namespace hlovm {
namespace {

//===----------------------------------------------------------------------===//
// Storage.
//===----------------------------------------------------------------------===//

constexpr int64_t kAlignment = 64;
// Buffers of at least this size are mapped (zero pages come for free).
constexpr int64_t kMapThreshold = int64_t{1} << 20;
// Mappings of at least this size ask for transparent huge pages.
constexpr int64_t kHugePageThreshold = int64_t{8} << 20;
// No literal may be larger than this (64 TiB) or than the machine's physical
// memory; larger requests fail early.
constexpr int64_t kMaxBytes = int64_t{1} << 46;

int64_t RoundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Freed mappings kept for reuse, newest last, at most kBytes in all: a
// mapping's pages are already faulted in, which for a result written once
// costs more than the write itself.
class MappingCache {
 public:
  static constexpr int64_t kBytes = int64_t{128} << 20;
  static MappingCache& Get() {
    static MappingCache* cache = new MappingCache;
    return *cache;
  }
  // A kept mapping of exactly `length` bytes, or null.
  void* Take(int64_t length) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = kept_.size(); i-- > 0;) {
      if (kept_[i].length != length) continue;
      void* p = kept_[i].base;
      total_ -= length;
      kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(i));
      return p;
    }
    return nullptr;
  }
  // Keeps the mapping, unmapping the oldest ones beyond the budget.
  void Give(void* base, int64_t length) {
    if (length > kBytes / 2) {
      munmap(base, static_cast<size_t>(length));
      return;
    }
    std::vector<Mapping> evicted;
    {
      std::lock_guard<std::mutex> lock(mu_);
      kept_.push_back(Mapping{base, length});
      total_ += length;
      while (total_ > kBytes) {
        evicted.push_back(kept_.front());
        total_ -= kept_.front().length;
        kept_.erase(kept_.begin());
      }
    }
    for (const Mapping& m : evicted) munmap(m.base, static_cast<size_t>(m.length));
  }

 private:
  struct Mapping {
    void* base;
    int64_t length;
  };
  std::mutex mu_;
  std::vector<Mapping> kept_;
  int64_t total_ = 0;
};

//===----------------------------------------------------------------------===//
// Element access helpers.
//===----------------------------------------------------------------------===//

// Abseil here has its own string_view type.
absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string UpperTypeName(ElementType type) {
  return absl::AsciiStrToUpper(Sv(ElementTypeName(type)));
}

int64_t ReadSigned(ElementType type, const uint8_t* p) {
  switch (type) {
    case ElementType::kS2:
    case ElementType::kS4: {
      int shift = 8 - BitWidth(type);
      return static_cast<int8_t>(static_cast<uint8_t>(p[0] << shift)) >> shift;
    }
    case ElementType::kS8:
      return static_cast<int8_t>(p[0]);
    case ElementType::kS16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case ElementType::kS32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}

uint64_t ReadUnsigned(ElementType type, const uint8_t* p) {
  switch (type) {
    case ElementType::kU2:
    case ElementType::kU4:
      return p[0] & ((1u << BitWidth(type)) - 1);
    case ElementType::kU8:
      return p[0];
    case ElementType::kU16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case ElementType::kU32: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}

// Stores the low ByteWidth(type) bytes of `bits` (two's complement for
// signed types; s2/s4 sign-extended to the whole byte).
void WriteBits(ElementType type, uint64_t bits, uint8_t* p) {
  switch (ByteWidth(type)) {
    case 1:
      p[0] = static_cast<uint8_t>(bits);
      break;
    case 2: {
      uint16_t v = static_cast<uint16_t>(bits);
      std::memcpy(p, &v, 2);
      break;
    }
    case 4: {
      uint32_t v = static_cast<uint32_t>(bits);
      std::memcpy(p, &v, 4);
      break;
    }
    default:
      std::memcpy(p, &bits, 8);
      break;
  }
}

uint32_t ReadNarrowBits(ElementType type, const uint8_t* p) {
  if (ByteWidth(type) == 2) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  return p[0] & ((1u << BitWidth(type)) - 1);
}

//===----------------------------------------------------------------------===//
// Printing floats as XLA's RoundTripFpToString does.
//===----------------------------------------------------------------------===//

// Formats `value` as printf's "%.*g" does, into `buffer`; returns the length.
size_t FormatG(char (&buffer)[64], double value, int digits) {
  std::to_chars_result result =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::general, digits);
  return static_cast<size_t>(result.ptr - buffer);
}

void AppendFormatted(std::string* out, int digits, double value) {
  char buffer[64];
  out->append(buffer, FormatG(buffer, value, digits));
}

// Reads a decimal as the nearest double (correctly rounded); ±inf when it
// overflows.
double ParseDecimal(std::string_view text) {
  double value = 0;
  std::from_chars_result result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec == std::errc()) return value;
  std::string copy(text);  // out of range: let strtod give ±inf or the underflow
  return std::strtod(copy.c_str(), nullptr);
}

void AppendNan(std::string* out, bool negative, uint64_t payload, uint64_t quiet_payload) {
  out->append(negative ? "-nan" : "nan");
  if (payload != quiet_payload) absl::StrAppend(out, "(0x", absl::Hex(payload), ")");
}

void AppendF32(std::string* out, float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if (std::isnan(value)) {
    AppendNan(out, bits >> 31, bits & 0x7fffff, uint64_t{1} << 22);
    return;
  }
  if (std::isinf(value)) {
    out->append(value < 0 ? "-inf" : "inf");
    return;
  }
  // Shortest of FLT_DIG significant digits when that reads back exactly,
  // else max_digits10.
  char buffer[64];
  size_t length = FormatG(buffer, value, std::numeric_limits<float>::digits10);
  float parsed = 0;
  if (std::from_chars(buffer, buffer + length, parsed).ec == std::errc() && parsed == value) {
    out->append(buffer, length);
    return;
  }
  AppendFormatted(out, std::numeric_limits<float>::max_digits10, value);
}

void AppendF64(std::string* out, double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, 8);
  if (std::isnan(value)) {
    AppendNan(out, bits >> 63, bits & ((uint64_t{1} << 52) - 1), uint64_t{1} << 51);
    return;
  }
  if (std::isinf(value)) {
    out->append(value < 0 ? "-inf" : "inf");
    return;
  }
  char buffer[64];
  size_t length = FormatG(buffer, value, std::numeric_limits<double>::digits10);
  if (ParseDecimal(std::string_view(buffer, length)) == value) {
    out->append(buffer, length);
    return;
  }
  AppendFormatted(out, std::numeric_limits<double>::max_digits10, value);
}

// Decimal digits that let every value of a format with `precision`
// significand bits read back exactly: ceil(1 + precision * log10(2)).
int MaxDigits10(int precision) {
  return static_cast<int>(std::ceil(1.0 + precision * 0.30102999566398120));
}

// True for the formats whose NaNs carry a printed payload (IEEE-like ones
// with an all-ones exponent for inf/NaN).
bool HasNanPayloads(const SmallFloatFormat& format) {
  return format.has_infinity && format.has_nan && format.mantissa_bits > 0;
}

uint32_t SignMask(const SmallFloatFormat& format) {
  return format.has_sign ? 1u << (format.total_bits - 1) : 0;
}

void AppendNarrow(std::string* out, ElementType type, uint32_t bits) {
  const SmallFloatFormat& format = NarrowFloatFormat(type);
  double value = DecodeNarrowFloat(type, bits);
  if (std::isnan(value)) {
    if (HasNanPayloads(format)) {
      uint32_t mantissa_mask = (1u << format.mantissa_bits) - 1;
      AppendNan(out, (bits & SignMask(format)) != 0, bits & mantissa_mask,
                uint64_t{1} << (format.mantissa_bits - 1));
    } else if (!format.has_sign) {
      out->append("nan");  // f8e8m0fnu's NaN
    } else {
      // The sign bit of the NaN pattern, as XLA prints it: the *fnuz NaN
      // (1.000...0) is "-nan", f8e4m3fn has "nan" and "-nan".
      out->append((bits & SignMask(format)) != 0 ? "-nan" : "nan");
    }
    return;
  }
  if (std::isinf(value)) {
    out->append(value < 0 ? "-inf" : "inf");
    return;
  }
  // max_digits10 digits, as XLA prints; f8e8m0fnu's smallest value does not
  // read back from them (values just above 2^-127 round up, as in XLA), so
  // where the short form fails the exact value is printed.
  char buffer[64];
  size_t length = FormatG(buffer, value, MaxDigits10(format.mantissa_bits + 1));
  if (EncodeNarrowFloat(type, ParseDecimal(std::string_view(buffer, length))) == bits) {
    out->append(buffer, length);
    return;
  }
  AppendFormatted(out, std::numeric_limits<double>::max_digits10, value);
}

void AppendElement(std::string* out, ElementType type, const uint8_t* p, bool pred_as_digit) {
  switch (ElementTypeKind(type)) {
    case TypeKind::kPred:
      if (pred_as_digit) {
        out->push_back(p[0] != 0 ? '1' : '0');
      } else {
        out->append(p[0] != 0 ? "true" : "false");
      }
      return;
    case TypeKind::kSigned:
      absl::StrAppend(out, ReadSigned(type, p));
      return;
    case TypeKind::kUnsigned:
      absl::StrAppend(out, ReadUnsigned(type, p));
      return;
    case TypeKind::kFloat:
      if (type == ElementType::kF32) {
        float v;
        std::memcpy(&v, p, 4);
        AppendF32(out, v);
      } else if (type == ElementType::kF64) {
        double v;
        std::memcpy(&v, p, 8);
        AppendF64(out, v);
      } else {
        AppendNarrow(out, type, ReadNarrowBits(type, p));
      }
      return;
    case TypeKind::kComplex:
      out->push_back('(');
      if (type == ElementType::kC64) {
        float parts[2];
        std::memcpy(parts, p, 8);
        AppendF32(out, parts[0]);
        out->append(", ");
        AppendF32(out, parts[1]);
      } else {
        double parts[2];
        std::memcpy(parts, p, 16);
        AppendF64(out, parts[0]);
        out->append(", ");
        AppendF64(out, parts[1]);
      }
      out->push_back(')');
      return;
    default:
      out->append("?");
      return;
  }
}

//===----------------------------------------------------------------------===//
// Layout arithmetic.
//===----------------------------------------------------------------------===//

// Element strides of each logical dimension under `shape`'s layout.
std::vector<int64_t> ElementStrides(const Shape& shape) {
  std::vector<int64_t> minor_to_major = shape.minor_to_major();
  std::vector<int64_t> strides(shape.rank(), 1);
  int64_t stride = 1;
  for (int64_t dim : minor_to_major) {
    if (dim < 0 || dim >= shape.rank()) continue;
    strides[dim] = stride;
    stride *= shape.dimensions(dim);
  }
  return strides;
}

bool IsPermutation(absl::Span<const int64_t> order, int64_t rank) {
  if (static_cast<int64_t>(order.size()) != rank) return false;
  std::vector<bool> seen(rank, false);
  for (int64_t d : order) {
    if (d < 0 || d >= rank || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Printing arrays as XLA's DenseArrayPrintHelper does.
//===----------------------------------------------------------------------===//

class ArrayPrinter {
 public:
  ArrayPrinter(const Literal& literal, bool oneline, std::string* out)
      : literal_(literal),
        shape_(literal.shape()),
        type_(shape_.element_type()),
        width_(ByteWidth(type_)),
        rank_(shape_.rank()),
        oneline_(oneline),
        linebreak_(oneline ? " " : "\n"),
        strides_(ElementStrides(shape_)),
        index_(rank_, 0),
        out_(out) {}

  void Print() { PrintLevel(0, 0); }

 private:
  void OpenBrace(int64_t level) {
    int64_t remaining = rank_ - level;
    if (rank_ == 1) {
      out_->push_back('{');
      return;
    }
    if (remaining == 1) {
      if (!oneline_) out_->append("  ");
      out_->push_back('{');
      if (shape_.dimensions(level) > 1) out_->push_back(' ');
      return;
    }
    if (rank_ > 3 && level > 0) {
      absl::StrAppend(out_, "{ /*i", level - 1, "=", index_[level - 1], "*/");
      if (shape_.dimensions(level) > 0) out_->append(linebreak_);
      return;
    }
    out_->push_back('{');
    out_->append(linebreak_);
  }

  void CloseBrace(int64_t level) {
    int64_t remaining = rank_ - level;
    if (rank_ == 1) {
      out_->push_back('}');
      return;
    }
    if (remaining == 1) {
      if (shape_.dimensions(level) > 1) out_->push_back(' ');
      out_->push_back('}');
      return;
    }
    out_->append(linebreak_);
    out_->push_back('}');
  }

  void PrintLevel(int64_t level, int64_t offset) {
    if (level == rank_) {
      AppendElement(out_, type_, literal_.untyped_data() + offset * width_,
                    /*pred_as_digit=*/rank_ > 0);
      return;
    }
    OpenBrace(level);
    int64_t size = shape_.dimensions(level);
    for (int64_t i = 0; i < size; ++i) {
      index_[level] = i;
      PrintLevel(level + 1, offset + i * strides_[level]);
      if (i + 1 < size) {
        out_->push_back(',');
        out_->append(rank_ - level > 1 ? linebreak_ : " ");
      }
    }
    CloseBrace(level);
  }

  const Literal& literal_;
  const Shape& shape_;
  ElementType type_;
  int64_t width_;
  int64_t rank_;
  bool oneline_;
  const char* linebreak_;
  std::vector<int64_t> strides_;
  std::vector<int64_t> index_;
  std::string* out_;
};

void PrintValue(const Literal& literal, bool print_shape, bool with_layout, bool oneline,
                std::string* out) {
  const Shape& shape = literal.shape();
  if (shape.IsTuple()) {
    out->append(oneline ? "( " : "(\n");
    const std::vector<Literal>& elements = literal.tuple_elements();
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i > 0) out->append(oneline ? ", " : ",\n");
      PrintValue(elements[i], print_shape, with_layout, oneline, out);
    }
    out->append(oneline ? " )" : "\n)");
    return;
  }
  if (shape.IsToken()) {
    out->append("token");
    return;
  }
  if (!shape.IsArray()) {
    out->append(shape.ToString(with_layout));
    return;
  }
  if (print_shape) {
    out->append(shape.ToString(with_layout));
    out->push_back(' ');
  }
  if (literal.elided()) {
    out->append("{...}");
    return;
  }
  ArrayPrinter(literal, oneline, out).Print();
}

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

absl::Status ParseArrayValue(TextCursor& cursor, const Shape& shape, Literal* literal) {
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

absl::Status ParseValue(TextCursor& cursor, const Shape& shape, Literal* literal) {
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
      HLOVM_RETURN_IF_ERROR(ParseValue(cursor, shape.tuple_shape(i), &elements[i]));
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
  return ParseArrayValue(cursor, shape, literal);
}

// Deepest tuple nesting ParseLiteral reads.
constexpr int kMaxTupleDepth = 100;

absl::Status ParseShapeAndValue(TextCursor& cursor, Literal* literal, int depth);

// The tuple form ToString prints: "(shape value, shape value, ...)".
absl::Status ParseTupleOfShapedValues(TextCursor& cursor, Literal* literal, int depth) {
  HLOVM_RETURN_IF_ERROR(cursor.Expect('('));
  std::vector<Literal> elements;
  HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
  if (cursor.Peek() != ')') {
    while (true) {
      Literal element;
      HLOVM_RETURN_IF_ERROR(ParseShapeAndValue(cursor, &element, depth + 1));
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
absl::Status ParseArrayShapeAndValue(TextCursor& cursor, Literal* literal) {
  size_t close = cursor.text.find(']', cursor.pos);
  if (close != std::string_view::npos) {
    TextCursor head{cursor.text.substr(0, close + 1), cursor.pos};
    Shape shape;
    if (ParseShape(head, &shape).ok()) {
      TextCursor value_cursor{cursor.text, head.pos};
      Literal value;
      absl::Status status = ParseLiteralValue(value_cursor, shape, &value);
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
  return ParseLiteralValue(cursor, shape, literal);
}

absl::Status ParseShapeAndValue(TextCursor& cursor, Literal* literal, int depth) {
  HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
  if (cursor.Peek() != '(') return ParseArrayShapeAndValue(cursor, literal);
  if (depth >= kMaxTupleDepth) {
    return cursor.Error(absl::StrCat("tuples are nested more than ", kMaxTupleDepth, " deep"));
  }
  // Either "(shape value, ...)" or "(shapes) (values)": try both, and report
  // the error of the reading that got further.
  TextCursor shaped = cursor;
  Literal shaped_literal;
  absl::Status shaped_status = ParseTupleOfShapedValues(shaped, &shaped_literal, depth);
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
  if (plain_status.ok()) plain_status = ParseLiteralValue(plain, shape, &plain_literal);
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

//===----------------------------------------------------------------------===//
// AlignedBuffer.
//===----------------------------------------------------------------------===//

// Each allocation starts with a kAlignment-byte header whose first 8 bytes
// hold the mapped length (0 when the block came from aligned_alloc); the data
// follows the header.
absl::StatusOr<AlignedBuffer> AlignedBuffer::Allocate(int64_t size, Init init) {
  if (size < 0) return absl::InvalidArgumentError(absl::StrCat("negative buffer size ", size));
  static const int64_t limit = [] {
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0) return kMaxBytes;
    return std::min<int64_t>(kMaxBytes, static_cast<int64_t>(pages) * page_size);
  }();
  if (size > limit) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate ", size, " bytes (more than the limit of ", limit, ")"));
  }
  const int64_t total = size + kAlignment;
  uint8_t* base = nullptr;
  uint64_t mapped = 0;
  if (total >= kMapThreshold) {
    const int64_t length = RoundUp(total, 4096);
    void* p = MappingCache::Get().Take(length);
    if (p != nullptr) {
      if (init == kZeroed) std::memset(p, 0, static_cast<size_t>(length));
    } else {
      p = mmap(nullptr, static_cast<size_t>(length), PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) {
        return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", size, " bytes"));
      }
      // Large arrays on 2 MiB pages where the kernel offers them for the
      // asking: a fresh mapping costs one fault (and one zeroing) per 2 MiB
      // instead of per 4 KiB, which on a virtual machine was most of the
      // time spent making a large model's inputs.
      if (length >= kHugePageThreshold) madvise(p, static_cast<size_t>(length), MADV_HUGEPAGE);
    }
    base = static_cast<uint8_t*>(p);
    mapped = static_cast<uint64_t>(length);
  } else {
    const int64_t length = RoundUp(total, kAlignment);
    base = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, static_cast<size_t>(length)));
    if (base == nullptr) {
      return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", size, " bytes"));
    }
    if (init == kZeroed) std::memset(base, 0, static_cast<size_t>(length));
  }
  std::memcpy(base, &mapped, sizeof(mapped));
  AlignedBuffer buffer;
  buffer.data_.reset(base + kAlignment);
  buffer.size_ = size;
  return buffer;
}

void AlignedBuffer::Free::operator()(uint8_t* p) const {
  if (p == nullptr) return;
  uint8_t* base = p - kAlignment;
  uint64_t mapped;
  std::memcpy(&mapped, base, sizeof(mapped));
  if (mapped != 0) {
    MappingCache::Get().Give(base, static_cast<int64_t>(mapped));
  } else {
    std::free(base);
  }
}

//===----------------------------------------------------------------------===//
// Literal.
//===----------------------------------------------------------------------===//

absl::StatusOr<Literal> Literal::Create(const Shape& shape) {
  return Make(shape, AlignedBuffer::kZeroed);
}

absl::StatusOr<Literal> Literal::CreateUninitialized(const Shape& shape) {
  return Make(shape, AlignedBuffer::kUninitialized);
}

absl::StatusOr<Literal> Literal::Make(const Shape& shape, AlignedBuffer::Init init) {
  Literal literal;
  literal.shape_ = shape;
  if (shape.IsTuple()) {
    literal.elements_.reserve(shape.tuple_size());
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      HLOVM_ASSIGN_OR_RETURN(Literal element, Make(shape.tuple_shape(i), init));
      literal.elements_.push_back(std::move(element));
    }
    std::vector<Shape> shapes;
    for (const Literal& element : literal.elements_) shapes.push_back(element.shape());
    literal.shape_ = Shape::Tuple(std::move(shapes));
    return literal;
  }
  if (!shape.IsArray()) return literal;  // token, opaque: no storage
  const int64_t rank = shape.rank();
  const int width = ByteWidth(shape.element_type());
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = shape.dimensions(d);
    if (size < 0) {
      return absl::InvalidArgumentError(absl::StrCat("cannot create a literal of shape ",
                                                     shape.ToString(), ": dimension ", d,
                                                     " has no size"));
    }
  }
  // Sizes and strides (ElementStrides) of a valid shape fit int64, zero-size
  // arrays included.
  if (absl::Status valid = ValidateShape(shape); !valid.ok()) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot create a literal: ", valid.message()));
  }
  for (int64_t d = 0; d < rank; ++d) count *= shape.dimensions(d);
  const int64_t bytes = count * width;
  if (!shape.has_layout()) {
    literal.shape_.set_layout(Layout::RowMajor(rank));
  } else if (!IsPermutation(shape.layout().minor_to_major, rank)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot create a literal of shape ",
                                                   shape.ToString(),
                                                   ": the layout does not fit the rank"));
  }
  absl::StatusOr<AlignedBuffer> buffer = AlignedBuffer::Allocate(bytes, init);
  if (!buffer.ok()) {
    return absl::Status(buffer.status().code(),
                        absl::StrCat("cannot create a literal of shape ", shape.ToString(), ": ",
                                     buffer.status().message()));
  }
  literal.buffer_ = std::move(buffer).value();
  return literal;
}

Literal Literal::Tuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  shapes.reserve(elements.size());
  for (const Literal& element : elements) shapes.push_back(element.shape());
  Literal literal;
  literal.shape_ = Shape::Tuple(std::move(shapes));
  literal.elements_ = std::move(elements);
  return literal;
}

Literal Literal::Clone() const {
  Literal copy;
  copy.shape_ = shape_;
  copy.elided_ = elided_;
  if (buffer_.data() != nullptr) {
    // The same size was allocated once already; a failure here means memory
    // ran out in between, which leaves the clone empty.
    absl::StatusOr<AlignedBuffer> buffer = AlignedBuffer::Allocate(buffer_.size());
    if (buffer.ok()) {
      copy.buffer_ = std::move(buffer).value();
      if (buffer_.size() > 0) {
        std::memcpy(copy.buffer_.data(), buffer_.data(), static_cast<size_t>(buffer_.size()));
      }
    }
  }
  copy.elements_.reserve(elements_.size());
  for (const Literal& element : elements_) copy.elements_.push_back(element.Clone());
  return copy;
}

bool Literal::BitwiseEqual(const Literal& other) const {
  if (!(shape_ == other.shape_)) return false;
  if (elements_.size() != other.elements_.size()) return false;
  for (size_t i = 0; i < elements_.size(); ++i) {
    if (!elements_[i].BitwiseEqual(other.elements_[i])) return false;
  }
  if (buffer_.size() != other.buffer_.size()) return false;
  if (buffer_.size() == 0) return true;
  return std::memcmp(buffer_.data(), other.buffer_.data(), static_cast<size_t>(buffer_.size())) ==
         0;
}

int64_t Literal::PhysicalIndex(absl::Span<const int64_t> index) const {
  if (!shape_.has_layout()) {
    std::vector<int64_t> strides = ElementStrides(shape_);
    int64_t offset = 0;
    for (size_t d = 0; d < index.size() && d < strides.size(); ++d) {
      offset += index[d] * strides[d];
    }
    return offset;
  }
  int64_t offset = 0;
  int64_t stride = 1;
  for (int64_t d : shape_.layout().minor_to_major) {
    if (d >= 0 && d < static_cast<int64_t>(index.size())) offset += index[d] * stride;
    stride *= shape_.dimensions(d);
  }
  return offset;
}

double Literal::GetAsDouble(int64_t physical_index) const {
  const ElementType type = shape_.element_type();
  const uint8_t* p = untyped_data() + physical_index * ByteWidth(type);
  switch (ElementTypeKind(type)) {
    case TypeKind::kPred:
      return p[0] != 0 ? 1.0 : 0.0;
    case TypeKind::kSigned:
      return static_cast<double>(ReadSigned(type, p));
    case TypeKind::kUnsigned:
      return static_cast<double>(ReadUnsigned(type, p));
    case TypeKind::kFloat:
      if (type == ElementType::kF32) {
        float v;
        std::memcpy(&v, p, 4);
        return v;
      }
      if (type == ElementType::kF64) {
        double v;
        std::memcpy(&v, p, 8);
        return v;
      }
      return DecodeNarrowFloat(type, ReadNarrowBits(type, p));
    case TypeKind::kComplex:
      if (type == ElementType::kC64) {
        float v;
        std::memcpy(&v, p, 4);
        return v;
      } else {
        double v;
        std::memcpy(&v, p, 8);
        return v;
      }
    default:
      return 0;
  }
}

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

std::string Literal::GetAsString(int64_t physical_index) const {
  const ElementType type = shape_.element_type();
  return ElementToString(type, untyped_data() + physical_index * ByteWidth(type));
}

absl::StatusOr<Literal> Literal::Relayout(const Layout& layout) const {
  if (!shape_.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot relayout ", shape_.ToString()));
  }
  if (!IsPermutation(layout.minor_to_major, shape_.rank())) {
    return absl::InvalidArgumentError(
        absl::StrCat("layout ", layout.ToString(), " does not fit shape ", shape_.ToString()));
  }
  Shape target = shape_;
  target.set_layout(layout);
  HLOVM_ASSIGN_OR_RETURN(Literal result, Create(target));
  result.elided_ = elided_;
  const int64_t rank = shape_.rank();
  const int64_t width = ByteWidth(shape_.element_type());
  const int64_t count = shape_.element_count();
  if (count == 0) return result;
  std::vector<int64_t> from = ElementStrides(shape_);
  std::vector<int64_t> to = ElementStrides(target);
  std::vector<int64_t> index(rank, 0);
  const uint8_t* src = untyped_data();
  uint8_t* dst = result.untyped_data();
  for (int64_t n = 0; n < count; ++n) {
    int64_t a = 0, b = 0;
    for (int64_t d = 0; d < rank; ++d) {
      a += index[d] * from[d];
      b += index[d] * to[d];
    }
    std::memcpy(dst + b * width, src + a * width, static_cast<size_t>(width));
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape_.dimensions(d)) break;
      index[d] = 0;
    }
  }
  return result;
}

std::string Literal::ValueToString() const {
  std::string out;
  PrintValue(*this, /*print_shape=*/false, /*with_layout=*/false, /*oneline=*/true, &out);
  return out;
}

std::string Literal::ToString() const {
  std::string out;
  PrintValue(*this, /*print_shape=*/true, /*with_layout=*/false, /*oneline=*/false, &out);
  return out;
}

std::string Literal::ToStringWithLayout() const {
  std::string out;
  PrintValue(*this, /*print_shape=*/true, /*with_layout=*/true, /*oneline=*/false, &out);
  return out;
}

std::string ElementToString(ElementType type, const uint8_t* element, bool pred_as_digit) {
  std::string out;
  AppendElement(&out, type, element, pred_as_digit);
  return out;
}

absl::Status ParseLiteralValue(TextCursor& cursor, const Shape& shape, Literal* literal) {
  HLOVM_ASSIGN_OR_RETURN(Literal result, Literal::Create(shape));
  HLOVM_RETURN_IF_ERROR(ParseValue(cursor, result.shape(), &result));
  *literal = std::move(result);
  return absl::OkStatus();
}

absl::Status ParseShapedLiteral(TextCursor& cursor, Literal* literal) {
  return ParseShapeAndValue(cursor, literal, 0);
}

absl::StatusOr<Literal> ParseLiteral(std::string_view text) {
  TextCursor cursor{text, 0};
  Literal literal;
  absl::Status status = ParseShapeAndValue(cursor, &literal, 0);
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
