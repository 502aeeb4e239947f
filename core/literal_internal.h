// Internal to core/literal*.cc: element access, float text helpers and
// layout arithmetic that literal storage (core/literal.cc), printing
// (core/literal_print.cc) and parsing (core/literal_parse.cc) share.
#ifndef HLOVM_CORE_LITERAL_INTERNAL_H_
#define HLOVM_CORE_LITERAL_INTERNAL_H_

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"
#include "core/element_type.h"
#include "core/float_format.h"
#include "core/shape.h"

namespace hlovm {
namespace literal_internal {

//===----------------------------------------------------------------------===//
// Element access helpers.
//===----------------------------------------------------------------------===//

// Abseil here has its own string_view type.
inline absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

inline std::string UpperTypeName(ElementType type) {
  return absl::AsciiStrToUpper(Sv(ElementTypeName(type)));
}

inline int64_t ReadSigned(ElementType type, const uint8_t* p) {
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

inline uint64_t ReadUnsigned(ElementType type, const uint8_t* p) {
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
inline void WriteBits(ElementType type, uint64_t bits, uint8_t* p) {
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

inline uint32_t ReadNarrowBits(ElementType type, const uint8_t* p) {
  if (ByteWidth(type) == 2) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  return p[0] & ((1u << BitWidth(type)) - 1);
}

//===----------------------------------------------------------------------===//
// Float text helpers of printing and parsing.
//===----------------------------------------------------------------------===//

// Reads a decimal as the nearest double (correctly rounded); ±inf when it
// overflows.
inline double ParseDecimal(std::string_view text) {
  double value = 0;
  std::from_chars_result result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec == std::errc()) return value;
  std::string copy(text);  // out of range: let strtod give ±inf or the underflow
  return std::strtod(copy.c_str(), nullptr);
}

// True for the formats whose NaNs carry a printed payload (IEEE-like ones
// with an all-ones exponent for inf/NaN).
inline bool HasNanPayloads(const SmallFloatFormat& format) {
  return format.has_infinity && format.has_nan && format.mantissa_bits > 0;
}

inline uint32_t SignMask(const SmallFloatFormat& format) {
  return format.has_sign ? 1u << (format.total_bits - 1) : 0;
}

//===----------------------------------------------------------------------===//
// Layout arithmetic.
//===----------------------------------------------------------------------===//

// Element strides of each logical dimension under `shape`'s layout.
inline std::vector<int64_t> ElementStrides(const Shape& shape) {
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

}  // namespace literal_internal
}  // namespace hlovm

#endif  // HLOVM_CORE_LITERAL_INTERNAL_H_
