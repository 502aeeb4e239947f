// Exact conversions between double and the narrow floating-point formats
// (f16, bf16 and the 8-, 6- and 4-bit types), following XLA (ml_dtypes):
// round-to-nearest-even, and each format's own rules for overflow, NaN,
// infinity and negative zero.
#ifndef HLOVM_CORE_FLOAT_FORMAT_H_
#define HLOVM_CORE_FLOAT_FORMAT_H_

#include <cstdint>

#include "core/element_type.h"

namespace hlovm {

// Describes one of the small float formats (see FORMAT.md's table).
struct SmallFloatFormat {
  int total_bits;
  int exponent_bits;
  int mantissa_bits;
  int bias;
  bool has_sign;
  bool has_infinity;   // IEEE-like: all-ones exponent holds inf and NaN
  bool has_nan;
  bool has_negative_zero;
  bool nan_is_negative_zero_pattern;  // the *fnuz types: NaN is 1.000...0
};

// Returns the format of f16, bf16 or a small float type. Only valid when
// IsFloatingPoint(type) and type is not f32/f64.
const SmallFloatFormat& NarrowFloatFormat(ElementType type);

// Rounds `value` to the narrow float type `type` (f16, bf16, or any small
// float type) with round-to-nearest-even and returns the bit pattern in the
// low bits. Follows XLA's conversion rules for values the format cannot hold.
uint32_t EncodeNarrowFloat(ElementType type, double value);
// Decodes a bit pattern of the narrow float type `type` exactly.
double DecodeNarrowFloat(ElementType type, uint32_t bits);

// Fast paths for the two 16-bit formats.
uint16_t FloatToHalf(float value);
float HalfToFloat(uint16_t bits);
uint16_t FloatToBFloat16(float value);
float BFloat16ToFloat(uint16_t bits);

}  // namespace hlovm

#endif  // HLOVM_CORE_FLOAT_FORMAT_H_
