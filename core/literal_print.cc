// Printing literals as XLA prints them: elements (floats as
// RoundTripFpToString does), arrays (as DenseArrayPrintHelper does), tuples.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/float_format.h"
#include "core/literal.h"
#include "core/literal_internal.h"

namespace hlovm {
namespace {

using literal_internal::ElementStrides;
using literal_internal::HasNanPayloads;
using literal_internal::ParseDecimal;
using literal_internal::ReadNarrowBits;
using literal_internal::ReadSigned;
using literal_internal::ReadUnsigned;
using literal_internal::SignMask;

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
// Printing arrays as XLA's DenseArrayPrintHelper does.
//===----------------------------------------------------------------------===//

class ArrayPrinter {
 public:
  // `edge_items` > 0: a dimension longer than twice that prints only its
  // first and last `edge_items` entries around "...".
  ArrayPrinter(const Literal& literal, bool oneline, std::string* out, int64_t edge_items = 0)
      : literal_(literal),
        shape_(literal.shape()),
        type_(shape_.element_type()),
        width_(ByteWidth(type_)),
        rank_(shape_.rank()),
        oneline_(oneline),
        linebreak_(oneline ? " " : "\n"),
        strides_(ElementStrides(shape_)),
        index_(rank_, 0),
        out_(out),
        edge_items_(edge_items) {}

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
    const bool skip = edge_items_ > 0 && size > 2 * edge_items_;
    for (int64_t i = 0; i < size; ++i) {
      if (skip && i == edge_items_) {
        // Rows of a matrix are indented; "..." stands in their column.
        if (rank_ - level == 2 && !oneline_) out_->append("  ");
        out_->append("...,");
        out_->append(rank_ - level > 1 ? linebreak_ : " ");
        i = size - edge_items_;
      }
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
  int64_t edge_items_;
};

// `threshold` >= 0: arrays of more than `threshold` elements print
// summarized (ArrayPrinter's `edge_items`).
void PrintValue(const Literal& literal, bool print_shape, bool with_layout, bool oneline,
                std::string* out, int64_t threshold = -1, int64_t edge_items = 0) {
  const Shape& shape = literal.shape();
  if (shape.IsTuple()) {
    out->append(oneline ? "( " : "(\n");
    const std::vector<Literal>& elements = literal.tuple_elements();
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i > 0) out->append(oneline ? ", " : ",\n");
      PrintValue(elements[i], print_shape, with_layout, oneline, out, threshold, edge_items);
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
  const bool summarize = threshold >= 0 && shape.element_count() > threshold;
  ArrayPrinter(literal, oneline, out, summarize ? edge_items : 0).Print();
}

}  // namespace

std::string Literal::GetAsString(int64_t physical_index) const {
  const ElementType type = shape_.element_type();
  return ElementToString(type, untyped_data() + physical_index * ByteWidth(type));
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

std::string SummaryString(const Literal& literal, int64_t threshold, int64_t edge_items) {
  std::string out;
  PrintValue(literal, /*print_shape=*/true, /*with_layout=*/false, /*oneline=*/false, &out,
             threshold, edge_items);
  return out;
}

bool IsSummarized(const Literal& literal, int64_t threshold, int64_t edge_items) {
  if (literal.shape().IsTuple()) {
    for (const Literal& element : literal.tuple_elements()) {
      if (IsSummarized(element, threshold, edge_items)) return true;
    }
    return false;
  }
  if (!literal.shape().IsArray() || literal.elided() ||
      literal.shape().element_count() <= threshold) {
    return false;
  }
  for (int64_t d : literal.shape().dimensions()) {
    if (d > 2 * edge_items) return true;
  }
  return false;
}

std::string ElementToString(ElementType type, const uint8_t* element, bool pred_as_digit) {
  std::string out;
  AppendElement(&out, type, element, pred_as_digit);
  return out;
}

}  // namespace hlovm
