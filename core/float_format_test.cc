#include "core/float_format.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace hlovm {
namespace {

constexpr ElementType kSmallTypes[] = {
    ElementType::kF8E5M2,     ElementType::kF8E4M3,        ElementType::kF8E4M3FN,
    ElementType::kF8E4M3FNUZ, ElementType::kF8E4M3B11FNUZ, ElementType::kF8E5M2FNUZ,
    ElementType::kF8E3M4,     ElementType::kF8E8M0FNU,     ElementType::kF6E2M3FN,
    ElementType::kF6E3M2FN,   ElementType::kF4E2M1FN,
};

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

uint32_t FloatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float BitsToFloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
uint64_t DoubleBits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

int PatternCount(ElementType type) { return 1 << NarrowFloatFormat(type).total_bits; }

// Values of the formats, from FORMAT.md's table.
TEST(FloatFormatTest, FormatTable) {
  struct Row {
    ElementType type;
    int e, m, bias;
    bool inf, neg_zero;
  };
  const Row kRows[] = {
      {ElementType::kF8E5M2, 5, 2, 15, true, true},
      {ElementType::kF8E4M3, 4, 3, 7, true, true},
      {ElementType::kF8E3M4, 3, 4, 3, true, true},
      {ElementType::kF8E4M3FN, 4, 3, 7, false, true},
      {ElementType::kF8E4M3FNUZ, 4, 3, 8, false, false},
      {ElementType::kF8E4M3B11FNUZ, 4, 3, 11, false, false},
      {ElementType::kF8E5M2FNUZ, 5, 2, 16, false, false},
      {ElementType::kF8E8M0FNU, 8, 0, 127, false, false},
      {ElementType::kF6E2M3FN, 2, 3, 1, false, true},
      {ElementType::kF6E3M2FN, 3, 2, 3, false, true},
      {ElementType::kF4E2M1FN, 2, 1, 1, false, true},
      {ElementType::kF16, 5, 10, 15, true, true},
      {ElementType::kBF16, 8, 7, 127, true, true},
  };
  for (const Row& r : kRows) {
    const SmallFloatFormat& f = NarrowFloatFormat(r.type);
    EXPECT_EQ(f.exponent_bits, r.e) << ElementTypeName(r.type);
    EXPECT_EQ(f.mantissa_bits, r.m) << ElementTypeName(r.type);
    EXPECT_EQ(f.bias, r.bias) << ElementTypeName(r.type);
    EXPECT_EQ(f.has_infinity, r.inf) << ElementTypeName(r.type);
    EXPECT_EQ(f.has_negative_zero, r.neg_zero) << ElementTypeName(r.type);
    EXPECT_EQ(f.total_bits, BitWidth(r.type)) << ElementTypeName(r.type);
    EXPECT_EQ(f.total_bits, (f.has_sign ? 1 : 0) + f.exponent_bits + f.mantissa_bits);
  }
}

TEST(FloatFormatTest, DecodesKnownValues) {
  using T = ElementType;
  EXPECT_EQ(DecodeNarrowFloat(T::kF8E4M3FN, 0x7E), 448.0);
  EXPECT_TRUE(std::isnan(DecodeNarrowFloat(T::kF8E4M3FN, 0x7F)));
  EXPECT_TRUE(std::isnan(DecodeNarrowFloat(T::kF8E4M3FN, 0xFF)));
  EXPECT_EQ(DecodeNarrowFloat(T::kF8E4M3FN, 0x78), 256.0);  // exponent all ones is finite
  EXPECT_EQ(DecodeNarrowFloat(T::kF8E4M3FN, 0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(DecodeNarrowFloat(T::kF8E5M2, 0x7B), 57344.0);
  EXPECT_EQ(DecodeNarrowFloat(T::kF8E5M2, 0x7C), kInf);
  EXPECT_EQ(DecodeNarrowFloat(T::kF8E5M2, 0xFC), -kInf);
  EXPECT_TRUE(std::isnan(DecodeNarrowFloat(T::kF8E5M2, 0x7D)));
  EXPECT_EQ(DecodeNarrowFloat(T::kF8E4M3, 0x77), 240.0);
  EXPECT_EQ(DecodeNarrowFloat(T::kF8E3M4, 0x6F), 15.5);
  EXPECT_EQ(DecodeNarrowFloat(T::kF8E4M3FNUZ, 0x7F), 240.0);
  EXPECT_TRUE(std::isnan(DecodeNarrowFloat(T::kF8E4M3FNUZ, 0x80)));
  EXPECT_EQ(DecodeNarrowFloat(T::kF8E4M3B11FNUZ, 0x7F), 30.0);
  EXPECT_EQ(DecodeNarrowFloat(T::kF8E5M2FNUZ, 0x7F), 57344.0);
  EXPECT_EQ(DecodeNarrowFloat(T::kF8E5M2FNUZ, 0x01), std::ldexp(1.0, -17));
  EXPECT_EQ(DecodeNarrowFloat(T::kF8E8M0FNU, 0x00), std::ldexp(1.0, -127));
  EXPECT_EQ(DecodeNarrowFloat(T::kF8E8M0FNU, 0x7F), 1.0);
  EXPECT_EQ(DecodeNarrowFloat(T::kF8E8M0FNU, 0xFE), std::ldexp(1.0, 127));
  EXPECT_TRUE(std::isnan(DecodeNarrowFloat(T::kF8E8M0FNU, 0xFF)));
  EXPECT_EQ(DecodeNarrowFloat(T::kF6E2M3FN, 0x1F), 7.5);
  EXPECT_EQ(DecodeNarrowFloat(T::kF6E2M3FN, 0x3F), -7.5);
  EXPECT_EQ(DecodeNarrowFloat(T::kF6E2M3FN, 0x01), 0.125);
  EXPECT_EQ(DecodeNarrowFloat(T::kF6E3M2FN, 0x1F), 28.0);
  EXPECT_EQ(DecodeNarrowFloat(T::kF6E3M2FN, 0x01), 0.0625);
  EXPECT_EQ(DecodeNarrowFloat(T::kF4E2M1FN, 0x7), 6.0);
  EXPECT_EQ(DecodeNarrowFloat(T::kF4E2M1FN, 0x1), 0.5);
  EXPECT_EQ(DecodeNarrowFloat(T::kF4E2M1FN, 0xF), -6.0);
  EXPECT_TRUE(std::signbit(DecodeNarrowFloat(T::kF4E2M1FN, 0x8)));
  EXPECT_EQ(DecodeNarrowFloat(T::kF4E2M1FN, 0x8), 0.0);
  EXPECT_EQ(DecodeNarrowFloat(T::kF16, 0x7BFF), 65504.0);
  EXPECT_EQ(DecodeNarrowFloat(T::kF16, 0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(DecodeNarrowFloat(T::kBF16, 0x3F80), 1.0);
  EXPECT_EQ(DecodeNarrowFloat(T::kBF16, 0x0001), std::ldexp(1.0, -133));
  // High bits beyond the format's width are ignored.
  EXPECT_EQ(DecodeNarrowFloat(T::kF4E2M1FN, 0xF7), 6.0);
}

// Decode then encode gives every pattern back; NaNs stay NaN with their sign
// where the format has signed NaNs.
TEST(FloatFormatTest, EveryPatternRoundTrips) {
  for (ElementType type :
       {ElementType::kF8E5M2, ElementType::kF8E4M3, ElementType::kF8E4M3FN,
        ElementType::kF8E4M3FNUZ, ElementType::kF8E4M3B11FNUZ, ElementType::kF8E5M2FNUZ,
        ElementType::kF8E3M4, ElementType::kF8E8M0FNU, ElementType::kF6E2M3FN,
        ElementType::kF6E3M2FN, ElementType::kF4E2M1FN, ElementType::kF16, ElementType::kBF16}) {
    const SmallFloatFormat& f = NarrowFloatFormat(type);
    int nan_count = 0;
    for (int bits = 0; bits < PatternCount(type); ++bits) {
      double value = DecodeNarrowFloat(type, bits);
      uint32_t again = EncodeNarrowFloat(type, value);
      if (std::isnan(value)) {
        ++nan_count;
        EXPECT_TRUE(std::isnan(DecodeNarrowFloat(type, again)))
            << ElementTypeName(type) << " " << bits;
        if (f.has_infinity || (f.has_nan && f.has_negative_zero)) {
          EXPECT_EQ(std::signbit(DecodeNarrowFloat(type, again)), std::signbit(value))
              << ElementTypeName(type) << " " << bits;
        }
        continue;
      }
      EXPECT_EQ(again, static_cast<uint32_t>(bits)) << ElementTypeName(type) << " " << value;
    }
    int expected_nans = 0;
    if (f.has_infinity) {
      expected_nans = 2 * ((1 << f.mantissa_bits) - 1);
    } else if (f.has_nan) {
      expected_nans = f.has_sign && f.has_negative_zero ? 2 : 1;
    }
    EXPECT_EQ(nan_count, expected_nans) << ElementTypeName(type);
  }
}

// An independent oracle: the nearest representable value, ties to the even
// pattern (f8e8m0fnu: ties away from zero, as its rounding keeps the leading
// one), with the format's overflow rule.
struct OracleTable {
  std::vector<std::pair<double, uint32_t>> finite;  // non-negative, ascending
};

OracleTable MakeOracleTable(ElementType type) {
  const SmallFloatFormat& f = NarrowFloatFormat(type);
  const uint32_t sign_bit = f.has_sign ? 1u << (f.total_bits - 1) : 0;
  OracleTable table;
  for (uint32_t bits = 0; bits < static_cast<uint32_t>(PatternCount(type)); ++bits) {
    if (bits & sign_bit) continue;
    double d = DecodeNarrowFloat(type, bits);
    if (std::isfinite(d)) table.finite.push_back({d, bits});
  }
  std::sort(table.finite.begin(), table.finite.end());
  return table;
}

uint32_t OracleEncode(ElementType type, const OracleTable& table, double v) {
  const SmallFloatFormat& f = NarrowFloatFormat(type);
  const bool e8m0 = type == ElementType::kF8E8M0FNU;
  const uint32_t sign_bit = f.has_sign ? 1u << (f.total_bits - 1) : 0;
  const auto& finite = table.finite;
  const auto [max_value, max_bits] = finite.back();
  const double step =
      (f.mantissa_bits == 0) ? max_value : std::ldexp(1.0, std::ilogb(max_value) - f.mantissa_bits);
  const double beyond = max_value + step;  // the next value with unbounded exponent
  const uint32_t nan_bits = f.nan_is_negative_zero_pattern ? sign_bit
                            : f.has_sign                   ? sign_bit - 1
                                                           : (1u << f.total_bits) - 1;
  auto overflow = [&](bool negative) -> uint32_t {
    if (f.has_infinity)
      return ((((1u << f.exponent_bits) - 1)) << f.mantissa_bits) | (negative ? sign_bit : 0);
    if (!f.has_nan) return max_bits | (negative ? sign_bit : 0);  // f6/f4 saturate
    if (f.nan_is_negative_zero_pattern || !f.has_sign) return nan_bits;
    return nan_bits | (negative ? sign_bit : 0);
  };
  const bool negative = std::signbit(v);
  if (negative && !f.has_sign) return nan_bits;
  const double a = std::fabs(v);
  if (a == 0 && e8m0) return nan_bits;
  // f8e8m0fnu below its second value: ml_dtypes (and XLA's CPU code) round as
  // if 2^-127 were a subnormal step, so everything strictly between 2^-127
  // and 2^-126 becomes 2^-126.
  if (e8m0 && a > std::ldexp(1.0, -127) && a < std::ldexp(1.0, -126)) return 0x01;
  // Pick the nearest among finite values and `beyond`.
  double best_diff = std::fabs(a - beyond);
  uint32_t best = 0xFFFFFFFFu;  // stands for overflow
  bool best_odd = !(max_bits & 1);
  for (const auto& [value, bits] : finite) {
    double diff = std::fabs(a - value);
    bool odd = bits & 1;
    bool better = diff < best_diff;
    if (diff == best_diff) {
      better = e8m0 ? value > (best == 0xFFFFFFFFu ? beyond : DecodeNarrowFloat(type, best))
                    : (!odd && best_odd);
    }
    if (better) {
      best_diff = diff;
      best = bits;
      best_odd = odd;
    }
  }
  if (best == 0xFFFFFFFFu) return overflow(negative);
  if (!negative) return best;
  if (best == 0 && !f.has_negative_zero) return 0;
  return best | sign_bit;
}

TEST(FloatFormatTest, MatchesNearestEvenOracle) {
  std::mt19937_64 rng(7);
  for (ElementType type : kSmallTypes) {
    const SmallFloatFormat& f = NarrowFloatFormat(type);
    std::vector<double> probes;
    // Every value, its midpoints with its neighbours, and points just off
    // them.
    std::vector<double> values;
    for (int bits = 0; bits < PatternCount(type); ++bits) {
      double d = DecodeNarrowFloat(type, bits);
      if (std::isfinite(d)) values.push_back(d);
    }
    std::sort(values.begin(), values.end());
    for (size_t i = 0; i < values.size(); ++i) {
      probes.push_back(values[i]);
      if (i + 1 < values.size()) {
        double mid = (values[i] + values[i + 1]) / 2;
        probes.push_back(mid);
        probes.push_back(std::nextafter(mid, kInf));
        probes.push_back(std::nextafter(mid, -kInf));
      }
    }
    // Around the largest value and beyond.
    double max_value = values.back();
    for (double scale : {1.01, 1.03, 1.0625, 1.1, 1.2, 1.5, 2.0, 4.0, 1e10}) {
      probes.push_back(max_value * scale);
      probes.push_back(-max_value * scale);
    }
    // Tiny values.
    for (double t : {1e-300, 5e-324, 1e-50, 1e-10}) {
      probes.push_back(t);
      probes.push_back(-t);
    }
    // Random doubles over the format's range.
    for (int i = 0; i < 20000; ++i) {
      double mag =
          std::ldexp(std::uniform_real_distribution<double>(1.0, 2.0)(rng),
                     static_cast<int>(rng() % (2 * f.bias + 12)) - f.bias - f.mantissa_bits - 4);
      probes.push_back((rng() & 1) ? -mag : mag);
    }
    const OracleTable table = MakeOracleTable(type);
    for (double p : probes) {
      ASSERT_EQ(EncodeNarrowFloat(type, p), OracleEncode(type, table, p))
          << ElementTypeName(type) << " value " << p;
    }
  }
}

TEST(FloatFormatTest, SpecialValuesFollowMlDtypes) {
  using T = ElementType;
  // IEEE-like: overflow and infinity give infinity; NaN is quiet.
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E5M2, kInf), 0x7Cu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E5M2, -kInf), 0xFCu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E5M2, 1e6), 0x7Cu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E5M2, 61440.0), 0x7Cu);  // tie above max: to even (inf)
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E5M2, 61439.0), 0x7Bu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E5M2, kNaN), 0x7Eu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E5M2, -kNaN), 0xFEu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3, kNaN), 0x7Cu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E3M4, kNaN), 0x78u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3, -0.0), 0x80u);
  // fn: overflow and infinity give NaN with the sign.
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FN, 448.0), 0x7Eu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FN, 464.0), 0x7Eu);  // tie: 448 is even
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FN, 464.5), 0x7Fu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FN, -1000.0), 0xFFu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FN, kInf), 0x7Fu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FN, -kInf), 0xFFu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FN, -kNaN), 0xFFu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FN, -0.0), 0x80u);
  // fnuz: one NaN, no negative zero.
  for (T t : {T::kF8E4M3FNUZ, T::kF8E4M3B11FNUZ, T::kF8E5M2FNUZ}) {
    EXPECT_EQ(EncodeNarrowFloat(t, -0.0), 0x00u) << ElementTypeName(t);
    EXPECT_EQ(EncodeNarrowFloat(t, -1e-30), 0x00u) << ElementTypeName(t);
    EXPECT_EQ(EncodeNarrowFloat(t, kInf), 0x80u) << ElementTypeName(t);
    EXPECT_EQ(EncodeNarrowFloat(t, -kInf), 0x80u) << ElementTypeName(t);
    EXPECT_EQ(EncodeNarrowFloat(t, kNaN), 0x80u) << ElementTypeName(t);
    EXPECT_EQ(EncodeNarrowFloat(t, -kNaN), 0x80u) << ElementTypeName(t);
    EXPECT_EQ(EncodeNarrowFloat(t, 1e30), 0x80u) << ElementTypeName(t);
    EXPECT_EQ(EncodeNarrowFloat(t, -1e30), 0x80u) << ElementTypeName(t);
  }
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FNUZ, 240.0), 0x7Fu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FNUZ, 247.0), 0x7Fu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FNUZ, 248.0), 0x80u);  // tie: 240 is odd
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3B11FNUZ, -30.0), 0xFFu);
  // f6/f4: no infinity or NaN; overflow saturates; NaN becomes the
  // negative-zero pattern (ml_dtypes' quiet_NaN), negated for -NaN.
  EXPECT_EQ(EncodeNarrowFloat(T::kF4E2M1FN, 7.0), 0x7u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF4E2M1FN, 100.0), 0x7u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF4E2M1FN, -100.0), 0xFu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF4E2M1FN, kInf), 0x7u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF4E2M1FN, -kInf), 0xFu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF4E2M1FN, kNaN), 0x8u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF4E2M1FN, -kNaN), 0x0u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF4E2M1FN, 0.25), 0x0u);  // tie to even zero
  EXPECT_EQ(EncodeNarrowFloat(T::kF4E2M1FN, 0.75), 0x2u);  // tie: 1.0 is even
  EXPECT_EQ(EncodeNarrowFloat(T::kF4E2M1FN, -0.0), 0x8u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF6E2M3FN, 1e9), 0x1Fu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF6E3M2FN, -1e9), 0x3Fu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF6E3M2FN, kNaN), 0x20u);
  // f8e8m0fnu: powers of two; no zero, no sign: both become NaN.
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, 1.0), 0x7Fu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, 1.4), 0x7Fu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, 1.5), 0x80u);  // ties round up
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, 0.75), 0x7Fu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, 3.0), 0x81u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, 0.0), 0xFFu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, -0.0), 0xFFu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, -1.0), 0xFFu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, kInf), 0xFFu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, kNaN), 0xFFu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, 1e-300), 0x00u);  // up to 2^-127
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, std::ldexp(1.0, 127)), 0xFEu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, std::ldexp(1.49, 127)), 0xFEu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, std::ldexp(1.5, 127)), 0xFFu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, std::ldexp(1.5, -127)), 0x01u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, std::ldexp(1.1, -127)), 0x01u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, std::ldexp(1.0, -127)), 0x00u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E8M0FNU, std::ldexp(1.9, -128)), 0x00u);
}

TEST(FloatFormatTest, SubnormalsAndUnderflow) {
  using T = ElementType;
  // f8e4m3fn: smallest subnormal 2^-9; half of it ties to zero, just above
  // rounds up.
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FN, std::ldexp(1.0, -9)), 0x01u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FN, std::ldexp(1.0, -10)), 0x00u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FN, std::nextafter(std::ldexp(1.0, -10), 1.0)), 0x01u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FN, -std::ldexp(1.0, -10)), 0x80u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FN, std::ldexp(3.0, -10)), 0x02u);  // 1.5 ulp -> 2
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FN, std::ldexp(7.5, -9)), 0x08u);   // to min normal
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E5M2, std::ldexp(1.0, -16)), 0x01u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF16, std::ldexp(1.0, -24)), 0x0001u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF16, std::ldexp(1.0, -25)), 0x0000u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF16, std::ldexp(1.5, -25)), 0x0001u);
  EXPECT_EQ(EncodeNarrowFloat(T::kBF16, std::ldexp(1.0, -133)), 0x0001u);
  // Double subnormals.
  EXPECT_EQ(EncodeNarrowFloat(T::kF16, 5e-324), 0x0000u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF16, -5e-324), 0x8000u);
}

TEST(FloatFormatTest, RoundsOnceFromDouble) {
  using T = ElementType;
  // 1 + 2^-4 + 2^-40 lies just above the midpoint of 1.0 and 1.125 in
  // f8e4m3fn; through binary32 it would first become the midpoint and then
  // round to even (1.0).
  const double v = 1.0 + std::ldexp(1.0, -4) + std::ldexp(1.0, -40);
  EXPECT_EQ(static_cast<double>(static_cast<float>(v)), 1.0625);
  EXPECT_EQ(EncodeNarrowFloat(T::kF8E4M3FN, v), EncodeNarrowFloat(T::kF8E4M3FN, 1.125));
  const double h = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(EncodeNarrowFloat(T::kF16, h), 0x3C01u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF16, 1.0 + std::ldexp(1.0, -11)), 0x3C00u);
  const double b = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(EncodeNarrowFloat(T::kBF16, b), 0x3F81u);
  EXPECT_EQ(EncodeNarrowFloat(T::kBF16, 1.0 + std::ldexp(1.0, -8)), 0x3F80u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF16, 65504.0), 0x7BFFu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF16, 65519.99), 0x7BFFu);
  EXPECT_EQ(EncodeNarrowFloat(T::kF16, 65520.0), 0x7C00u);
  EXPECT_EQ(EncodeNarrowFloat(T::kF16, -1e300), 0xFC00u);
}

TEST(FloatFormatTest, SixteenBitNaNs) {
  EXPECT_EQ(EncodeNarrowFloat(ElementType::kF16, kNaN), 0x7E00u);
  EXPECT_EQ(EncodeNarrowFloat(ElementType::kF16, -kNaN), 0xFE00u);
  EXPECT_EQ(EncodeNarrowFloat(ElementType::kBF16, kNaN), 0x7FC0u);
  EXPECT_EQ(EncodeNarrowFloat(ElementType::kBF16, -kNaN), 0xFFC0u);
  // A signalling f16 NaN pattern comes back quiet with its payload.
  double snan = DecodeNarrowFloat(ElementType::kF16, 0x7C01);
  EXPECT_TRUE(std::isnan(snan));
  EXPECT_EQ(EncodeNarrowFloat(ElementType::kF16, snan), 0x7E01u);
  EXPECT_EQ(FloatToHalf(BitsToFloat(0x7F800001u)), 0x7E00u);  // payload below f16's bits
  EXPECT_EQ(FloatToHalf(BitsToFloat(0xFFA02000u)), 0xFF01u);  // signalling -> quiet, sign kept
  EXPECT_EQ(FloatToHalf(BitsToFloat(0x7FC00000u)), 0x7E00u);
  EXPECT_EQ(FloatToBFloat16(BitsToFloat(0x7F800001u)), 0x7FC0u);  // never becomes inf
  EXPECT_EQ(FloatToBFloat16(BitsToFloat(0xFFFFFFFFu)), 0xFFC0u);
  EXPECT_EQ(FloatBits(HalfToFloat(0x7E01)), 0x7FC02000u);
  EXPECT_EQ(FloatBits(BFloat16ToFloat(0xFFC1)), 0xFFC10000u);
}

TEST(FloatFormatTest, HalfFastPathsAgreeWithExactConversion) {
  // Every f16 pattern decodes exactly.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = HalfToFloat(static_cast<uint16_t>(h));
    double d = DecodeNarrowFloat(ElementType::kF16, h);
    if (std::isnan(d)) {
      ASSERT_TRUE(std::isnan(f)) << h;
      ASSERT_EQ(std::signbit(f), std::signbit(d)) << h;
      ASSERT_EQ(FloatToHalf(f), h | 0x200u) << h;  // quieted, payload kept
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), d) << h;
    ASSERT_EQ(std::signbit(f), std::signbit(d)) << h;
    ASSERT_EQ(FloatToHalf(f), h) << h;
  }
  // A stride through all binary32 patterns (and their neighbours).
  for (uint64_t i = 0; i < (uint64_t{1} << 32); i += 997) {
    for (uint32_t bits : {static_cast<uint32_t>(i), static_cast<uint32_t>(i) ^ 0x1000u}) {
      float f = BitsToFloat(bits);
      if (std::isnan(f)) continue;
      ASSERT_EQ(FloatToHalf(f), EncodeNarrowFloat(ElementType::kF16, f)) << std::hex << bits;
    }
  }
  // Every rounding boundary of f16: midpoints and their neighbours in f32.
  for (uint32_t h = 0; h < 0x7C00; ++h) {
    double lo = DecodeNarrowFloat(ElementType::kF16, h);
    double hi = DecodeNarrowFloat(ElementType::kF16, h + 1);
    float mid = static_cast<float>((lo + hi) / 2);  // exact in binary32
    for (float f : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      ASSERT_EQ(FloatToHalf(f), EncodeNarrowFloat(ElementType::kF16, f)) << h;
      ASSERT_EQ(FloatToHalf(-f), EncodeNarrowFloat(ElementType::kF16, -f)) << h;
    }
  }
}

TEST(FloatFormatTest, BFloat16FastPathsAgreeWithExactConversion) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    float f = BFloat16ToFloat(static_cast<uint16_t>(b));
    double d = DecodeNarrowFloat(ElementType::kBF16, b);
    if (std::isnan(d)) {
      ASSERT_TRUE(std::isnan(f));
      ASSERT_EQ(FloatToBFloat16(f), (b & 0x8000u) | 0x7FC0u);
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), d) << b;
    ASSERT_EQ(FloatToBFloat16(f), b) << b;
    if (b < 0x7F80) {
      // The midpoint with the next value and its neighbours.
      uint32_t mid_bits = (b << 16) + 0x8000u;
      for (uint32_t m : {mid_bits, mid_bits - 1, mid_bits + 1}) {
        float g = BitsToFloat(m);
        ASSERT_EQ(FloatToBFloat16(g), EncodeNarrowFloat(ElementType::kBF16, g)) << m;
        ASSERT_EQ(FloatToBFloat16(-g), EncodeNarrowFloat(ElementType::kBF16, -g)) << m;
      }
    }
  }
  for (uint64_t i = 0; i < (uint64_t{1} << 32); i += 997) {
    float f = BitsToFloat(static_cast<uint32_t>(i));
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToBFloat16(f), EncodeNarrowFloat(ElementType::kBF16, f)) << i;
  }
  EXPECT_EQ(FloatToBFloat16(3.4028235e38f), 0x7F80u);  // rounds up to infinity
  EXPECT_EQ(FloatToBFloat16(-0.0f), 0x8000u);
}

TEST(FloatFormatTest, DoubleBitsHelperSanity) { EXPECT_EQ(DoubleBits(1.0), 0x3FF0000000000000u); }

}  // namespace
}  // namespace hlovm
