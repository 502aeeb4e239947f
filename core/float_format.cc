#include "core/float_format.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace hlovm {
namespace {

// {total, exponent, mantissa, bias, sign, infinity, nan, negative zero,
//  NaN is the negative-zero pattern}
constexpr SmallFloatFormat kF16 = {16, 5, 10, 15, true, true, true, true, false};
constexpr SmallFloatFormat kBF16 = {16, 8, 7, 127, true, true, true, true, false};
constexpr SmallFloatFormat kF8E5M2 = {8, 5, 2, 15, true, true, true, true, false};
constexpr SmallFloatFormat kF8E4M3 = {8, 4, 3, 7, true, true, true, true, false};
constexpr SmallFloatFormat kF8E3M4 = {8, 3, 4, 3, true, true, true, true, false};
constexpr SmallFloatFormat kF8E4M3FN = {8, 4, 3, 7, true, false, true, true, false};
constexpr SmallFloatFormat kF8E4M3FNUZ = {8, 4, 3, 8, true, false, true, false, true};
constexpr SmallFloatFormat kF8E4M3B11FNUZ = {8, 4, 3, 11, true, false, true, false, true};
constexpr SmallFloatFormat kF8E5M2FNUZ = {8, 5, 2, 16, true, false, true, false, true};
constexpr SmallFloatFormat kF8E8M0FNU = {8, 8, 0, 127, false, false, true, false, false};
constexpr SmallFloatFormat kF6E2M3FN = {6, 2, 3, 1, true, false, false, true, false};
constexpr SmallFloatFormat kF6E3M2FN = {6, 3, 2, 3, true, false, false, true, false};
constexpr SmallFloatFormat kF4E2M1FN = {4, 2, 1, 1, true, false, false, true, false};

uint64_t DoubleBits(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof(bits));
  return bits;
}

double BitsToDouble(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d;
}

uint32_t FloatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

float BitsToFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// Derived constants of a format, as bit patterns.
struct FormatBits {
  uint32_t sign_bit;        // 0 when the format has no sign
  uint32_t magnitude_mask;  // every bit but the sign
  uint32_t max_finite;      // largest finite magnitude
  uint32_t infinity;        // pattern a (positive) infinity converts to
  uint32_t quiet_nan;       // pattern a (positive) NaN converts to
};

FormatBits GetFormatBits(const SmallFloatFormat& f) {
  FormatBits b;
  b.sign_bit = f.has_sign ? uint32_t{1} << (f.total_bits - 1) : 0;
  b.magnitude_mask = (uint32_t{1} << (f.has_sign ? f.total_bits - 1 : f.total_bits)) - 1;
  uint32_t exponent_ones = ((uint32_t{1} << f.exponent_bits) - 1) << f.mantissa_bits;
  uint32_t mantissa_ones = (uint32_t{1} << f.mantissa_bits) - 1;
  if (f.has_infinity) {
    // IEEE-like: the all-ones exponent holds infinity and the NaNs.
    b.max_finite = exponent_ones - (uint32_t{1} << f.mantissa_bits) + mantissa_ones;
    b.infinity = exponent_ones;
    b.quiet_nan = exponent_ones | (mantissa_ones == 0 ? 0 : uint32_t{1} << (f.mantissa_bits - 1));
  } else if (f.has_nan && !f.nan_is_negative_zero_pattern) {
    // *fn and f8e8m0fnu: the all-ones magnitude is NaN, infinity becomes NaN.
    b.max_finite = b.magnitude_mask - 1;
    b.infinity = b.magnitude_mask;
    b.quiet_nan = b.magnitude_mask;
  } else if (f.has_nan) {
    // *fnuz: the negative-zero pattern is the only NaN.
    b.max_finite = b.magnitude_mask;
    b.infinity = b.sign_bit;
    b.quiet_nan = b.sign_bit;
  } else {
    // f6/f4: no infinity or NaN. ml_dtypes maps infinity to the largest value
    // and NaN to the negative-zero pattern.
    b.max_finite = b.magnitude_mask;
    b.infinity = b.magnitude_mask;
    b.quiet_nan = b.sign_bit;
  }
  return b;
}

// Rounds to nearest even, dropping the low `shift` bits of `bits`.
uint64_t RoundShiftRightEven(uint64_t bits, int shift) {
  uint64_t bias = ((bits >> shift) & 1) + (uint64_t{1} << (shift - 1)) - 1;
  return (bits + bias) >> shift;
}

// Everything the encoder needs about one format, precomputed.
struct EncodeParams {
  int mantissa_bits;
  int bias;
  uint32_t sign_bit;
  uint32_t magnitude_mask;
  uint32_t max_finite;
  uint32_t infinity;
  uint32_t quiet_nan;
  bool has_sign;
  bool unsigned_zero;  // *fnuz: negating zero (or the NaN) changes nothing
  bool has_zero;       // false for f8e8m0fnu
};

EncodeParams MakeEncodeParams(const SmallFloatFormat& f) {
  const FormatBits b = GetFormatBits(f);
  return EncodeParams{f.mantissa_bits,
                      f.bias,
                      b.sign_bit,
                      b.magnitude_mask,
                      b.max_finite,
                      b.infinity,
                      b.quiet_nan,
                      f.has_sign,
                      f.nan_is_negative_zero_pattern,
                      f.has_sign || f.mantissa_bits != 0};
}

// Converts as ml_dtypes' float8 conversion does (without saturation): one
// round-to-nearest-even from the exact double, overflow to the format's
// infinity pattern (see GetFormatBits), then the sign. f8e8m0fnu rounds as if
// 2^-127 were a subnormal step: values strictly between 2^-127 and 2^-126
// become 2^-126, smaller ones 2^-127 (XLA's CPU code agrees).
inline uint32_t EncodeWith(const EncodeParams& p, double value) {
  const uint64_t d = DoubleBits(value);
  const bool negative = (d >> 63) != 0;
  const uint64_t abs_bits = d & ~(uint64_t{1} << 63);
  constexpr uint64_t kDoubleInf = uint64_t{0x7FF} << 52;
  uint32_t result;
  if (abs_bits - 1 < kDoubleInf - 1) {  // finite and not zero
    if (!p.has_sign && negative) return p.quiet_nan;
    // value = mantissa * 2^(exponent - 52), leading one at bit 52.
    int exponent;
    uint64_t mantissa;
    const int biased = static_cast<int>(abs_bits >> 52);
    if (biased != 0) {
      exponent = biased - 1023;
      mantissa = (abs_bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);
    } else {
      const int shift = std::countl_zero(abs_bits) - 11;
      mantissa = abs_bits << shift;
      exponent = -1022 - shift;
    }
    // Target biased exponent minus one: the leading one of the rounded
    // mantissa adds the missing one when the two are summed below.
    const int target_base = exponent + p.bias - 1;
    int shift = 52 - p.mantissa_bits + (target_base < 0 ? -target_base : 0);
    if (shift > 54) shift = 54;  // rounds to zero (or the smallest value) anyway
    const uint64_t rounded = RoundShiftRightEven(mantissa, shift);
    const uint64_t exponent_field = target_base > 0 ? static_cast<uint64_t>(target_base) : 0;
    const uint64_t wide = rounded + (exponent_field << p.mantissa_bits);
    result = wide > p.max_finite ? p.infinity : static_cast<uint32_t>(wide);
  } else if (abs_bits == 0) {
    if (!p.has_zero) return p.quiet_nan;
    result = 0;
  } else {
    result = abs_bits == kDoubleInf ? p.infinity : p.quiet_nan;
  }
  // Negation as ml_dtypes defines it for each format, without branching on
  // the sign.
  if (!p.has_sign) return negative ? p.quiet_nan : result;
  const bool keep = p.unsigned_zero && (result & p.magnitude_mask) == 0;
  const uint32_t flip = (negative && !keep) ? p.sign_bit : 0u;
  return result ^ flip;
}

double DecodeGeneric(const SmallFloatFormat& f, uint32_t bits) {
  const FormatBits b = GetFormatBits(f);
  bits &= (f.total_bits == 32 ? ~uint32_t{0} : (uint32_t{1} << f.total_bits) - 1);
  const bool negative = (bits & b.sign_bit) != 0;
  const uint32_t magnitude = bits & b.magnitude_mask;
  const double sign = negative ? -1.0 : 1.0;
  const uint32_t exponent_field = magnitude >> f.mantissa_bits;
  const uint32_t mantissa = magnitude & ((uint32_t{1} << f.mantissa_bits) - 1);
  const uint32_t exponent_ones = (uint32_t{1} << f.exponent_bits) - 1;
  if (f.has_infinity && exponent_field == exponent_ones) {
    if (mantissa == 0) return sign * std::numeric_limits<double>::infinity();
    // Keep the payload (the quiet bit lands on the double's quiet bit).
    uint64_t nan =
        (uint64_t{0x7FF} << 52) | (static_cast<uint64_t>(mantissa) << (52 - f.mantissa_bits));
    if (negative) nan |= uint64_t{1} << 63;
    return BitsToDouble(nan);
  }
  if (f.has_nan && !f.has_infinity) {
    if (f.nan_is_negative_zero_pattern ? bits == b.sign_bit : magnitude == b.magnitude_mask) {
      return negative ? -std::numeric_limits<double>::quiet_NaN()
                      : std::numeric_limits<double>::quiet_NaN();
    }
  }
  if (!f.has_sign && f.mantissa_bits == 0) {
    // f8e8m0fnu: every pattern but the NaN is a power of two.
    return std::ldexp(1.0, static_cast<int>(magnitude) - f.bias);
  }
  if (exponent_field == 0) {
    return sign * std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissa_bits);
  }
  return sign * std::ldexp(static_cast<double>((uint32_t{1} << f.mantissa_bits) | mantissa),
                           static_cast<int>(exponent_field) - f.bias - f.mantissa_bits);
}

}  // namespace

const SmallFloatFormat& NarrowFloatFormat(ElementType type) {
  switch (type) {
    case ElementType::kF16:
      return kF16;
    case ElementType::kBF16:
      return kBF16;
    case ElementType::kF8E5M2:
      return kF8E5M2;
    case ElementType::kF8E4M3:
      return kF8E4M3;
    case ElementType::kF8E4M3FN:
      return kF8E4M3FN;
    case ElementType::kF8E4M3FNUZ:
      return kF8E4M3FNUZ;
    case ElementType::kF8E4M3B11FNUZ:
      return kF8E4M3B11FNUZ;
    case ElementType::kF8E5M2FNUZ:
      return kF8E5M2FNUZ;
    case ElementType::kF8E3M4:
      return kF8E3M4;
    case ElementType::kF8E8M0FNU:
      return kF8E8M0FNU;
    case ElementType::kF6E2M3FN:
      return kF6E2M3FN;
    case ElementType::kF6E3M2FN:
      return kF6E3M2FN;
    case ElementType::kF4E2M1FN:
      return kF4E2M1FN;
    default:
      return kF16;  // not a narrow float type: callers must not ask
  }
}

uint32_t EncodeNarrowFloat(ElementType type, double value) {
  static const auto* const kParams = [] {
    auto* params = new std::array<EncodeParams, ElementTypeCount()>;
    for (int i = 0; i < ElementTypeCount(); ++i) {
      (*params)[i] = MakeEncodeParams(NarrowFloatFormat(static_cast<ElementType>(i)));
    }
    return params;
  }();
  if (type == ElementType::kF16 || type == ElementType::kBF16) [[unlikely]] {
    if (std::isnan(value)) {
      const bool negative = std::signbit(value);
      if (type == ElementType::kF16) {
        // Quiet NaN keeping the sign and the top payload bits.
        uint64_t payload = (DoubleBits(value) >> 42) & 0x3FF;
        return (negative ? 0x8000u : 0u) | 0x7E00u | static_cast<uint32_t>(payload);
      }
      // As Eigen (and so XLA) does: the canonical quiet NaN with the sign.
      return negative ? 0xFFC0u : 0x7FC0u;
    }
  }
  return EncodeWith((*kParams)[static_cast<size_t>(type) % ElementTypeCount()], value);
}

double DecodeNarrowFloat(ElementType type, uint32_t bits) {
  return DecodeGeneric(NarrowFloatFormat(type), bits);
}

uint16_t FloatToHalf(float value) {
  const uint32_t f = FloatBits(value);
  const uint32_t sign = (f >> 16) & 0x8000u;
  const uint32_t abs = f & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) {
    // NaN: quiet, with the sign and the top payload bits.
    return static_cast<uint16_t>(sign | 0x7E00u | ((abs >> 13) & 0x1FFu));
  }
  if (abs >= 0x477FF000u) {
    // At or above 65520 (the midpoint of 65504 and 2^16), or infinity.
    return static_cast<uint16_t>(sign | 0x7C00u);
  }
  if (abs < 0x38800000u) {
    // Below 2^-14: a half subnormal (or zero); value * 2^24 rounded to even.
    const uint32_t exponent = abs >> 23;
    if (exponent < 102) return static_cast<uint16_t>(sign);  // below 2^-25
    const uint32_t mantissa = (abs & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126 - exponent;  // 14..24
    uint32_t result = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (result & 1u))) ++result;
    return static_cast<uint16_t>(sign | result);
  }
  // Normal: rebias the exponent (127 -> 15) and round the mantissa to even.
  const uint32_t rebased = abs - (112u << 23);
  const uint32_t rounded = rebased + 0xFFFu + ((rebased >> 13) & 1u);
  return static_cast<uint16_t>(sign | (rounded >> 13));
}

float HalfToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  const uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0x1F) return BitsToFloat(sign | 0x7F800000u | (mantissa << 13));
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in binary32.
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return BitsToFloat(sign | FloatBits(magnitude));
  }
  return BitsToFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

uint16_t FloatToBFloat16(float value) {
  const uint32_t f = FloatBits(value);
  if ((f & 0x7FFFFFFFu) > 0x7F800000u) {
    // As Eigen does: the canonical quiet NaN, keeping the sign.
    return static_cast<uint16_t>((f >> 16) & 0x8000u) | 0x7FC0u;
  }
  return static_cast<uint16_t>((f + 0x7FFFu + ((f >> 16) & 1u)) >> 16);
}

float BFloat16ToFloat(uint16_t bits) { return BitsToFloat(static_cast<uint32_t>(bits) << 16); }

}  // namespace hlovm
