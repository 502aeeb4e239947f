// Checks convert between every pair of element types against a slow,
// obvious reference: exact source values in long double, then XLA's rules
// (integers wrap, floats saturate into integers with NaN -> 0, x != 0 for
// pred, one round-to-nearest-even into float types); on every SIMD target.
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/element_type.h"
#include "core/float_format.h"
#include "gtest/gtest.h"
#include "hwy/highway.h"
#include "hwy/targets.h"
#include "ops/elementwise/elementwise.h"

namespace hlovm {
namespace {

using LD = long double;
using ET = ElementType;

const std::vector<ET>& AllTypes() {
  static const auto* types = new std::vector<ET>{
      ET::kPred, ET::kS2,   ET::kS4,   ET::kS8,   ET::kS16,  ET::kS32,       ET::kS64,
      ET::kU2,   ET::kU4,   ET::kU8,   ET::kU16,  ET::kU32,  ET::kU64,       ET::kF16,
      ET::kBF16, ET::kF32,  ET::kF64,  ET::kC64,  ET::kC128, ET::kF8E5M2,    ET::kF8E4M3,
      ET::kF8E4M3FN, ET::kF8E4M3FNUZ, ET::kF8E4M3B11FNUZ, ET::kF8E5M2FNUZ, ET::kF8E3M4,
      ET::kF8E8M0FNU, ET::kF6E2M3FN, ET::kF6E3M2FN, ET::kF4E2M1FN};
  return *types;
}

bool IsNarrow(ET t) { return IsFloatingPoint(t) && t != ET::kF32 && t != ET::kF64; }
bool NarrowFloatHasNegativeZero(ET t) {
  return !IsNarrow(t) || NarrowFloatFormat(t).has_negative_zero;
}

// The exact value of element i (real part for complex types).
LD ReadValue(ET t, const std::vector<uint8_t>& buf, size_t i) {
  const int w = ByteWidth(t);
  const uint8_t* p = &buf[i * w];
  if (t == ET::kPred) return *p != 0;
  if (IsInteger(t)) {
    uint64_t raw = 0;
    std::memcpy(&raw, p, w);
    const int bits = BitWidth(t);
    if (bits < 64) raw &= (uint64_t{1} << bits) - 1;
    if (IsSignedInteger(t) && bits < 64 && ((raw >> (bits - 1)) & 1)) {
      return static_cast<LD>(static_cast<int64_t>(raw | ~((uint64_t{1} << bits) - 1)));
    }
    return IsSignedInteger(t) ? static_cast<LD>(static_cast<int64_t>(raw)) : static_cast<LD>(raw);
  }
  if (t == ET::kF32 || t == ET::kC64) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (t == ET::kF64 || t == ET::kC128) {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  uint32_t bits = 0;
  std::memcpy(&bits, p, w);
  return DecodeNarrowFloat(t, bits);
}
LD ReadImag(ET t, const std::vector<uint8_t>& buf, size_t i) {
  if (t == ET::kC64) {
    float f;
    std::memcpy(&f, &buf[i * 8 + 4], 4);
    return f;
  }
  double d;
  std::memcpy(&d, &buf[i * 16 + 8], 8);
  return d;
}

void WriteBits(ET t, std::vector<uint8_t>& buf, size_t i, uint64_t bits) {
  const int w = ByteWidth(t);
  std::memcpy(&buf[i * w], &bits, std::min(w, 8));
}

// Source values: every pattern of types up to 16 bits; edge and random values
// of the wider ones.
std::vector<uint8_t> Inputs(ET t, size_t* count) {
  const int w = ByteWidth(t);
  std::vector<uint8_t> buf;
  if (BitWidth(t) <= 16 && t != ET::kPred && !IsComplex(t)) {
    const int bits = BitWidth(t);
    *count = size_t{1} << bits;
    buf.resize(*count * w);
    for (size_t i = 0; i < *count; ++i) {
      uint64_t v = i;
      if (IsSignedInteger(t) && bits < 8 && ((v >> (bits - 1)) & 1)) v |= ~((uint64_t{1} << bits) - 1);
      WriteBits(t, buf, i, v);
    }
    return buf;
  }
  if (t == ET::kPred) {
    *count = 2;
    return {0, 1};
  }
  std::vector<LD> values = {0, -0.0L, 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 127.5, 128, -129, 255.5, 256,
                            32767.5, 65504, 65520, 1e5, -1e5, 2147483520.0L, 2147483647, 2147483648.0L,
                            -2147483648.0L, -2147483904.0L, 4294967295.0L, 4294967296.0L, 1e18L,
                            9223372036854775807.0L, 9223372036854775808.0L, -9223372036854775808.0L,
                            18446744073709551615.0L, 18446744073709551616.0L, 1e30L, -1e30L, 3.4e38L,
                            1e-3L, 1e-40L, 1e-300L, 3e38L, 1e300L,
                            std::numeric_limits<LD>::infinity(), -std::numeric_limits<LD>::infinity(),
                            std::numeric_limits<LD>::quiet_NaN(), -std::numeric_limits<LD>::quiet_NaN()};
  std::mt19937_64 rng(5);
  for (int i = 0; i < 200; ++i) {
    values.push_back(static_cast<LD>(static_cast<int64_t>(rng())) / (LD(1) + (rng() % 1000000)));
    values.push_back(static_cast<LD>(static_cast<int64_t>(rng() >> (rng() % 64))));
  }
  *count = values.size();
  buf.resize(*count * w);
  for (size_t i = 0; i < *count; ++i) {
    const LD v = values[i];
    uint8_t* p = &buf[i * w];
    if (IsInteger(t)) {
      // Values of the type: the low bits of the integer part.
      const LD m = std::isfinite(v) ? std::fmod(std::trunc(v), 18446744073709551616.0L) : 0;
      const uint64_t bits = m < 0 ? uint64_t{0} - static_cast<uint64_t>(-m) : static_cast<uint64_t>(m);
      WriteBits(t, buf, i, bits);
    } else if (t == ET::kF32 || t == ET::kC64) {
      const float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
      if (t == ET::kC64) {
        const float im = static_cast<float>(-v / 3);
        std::memcpy(p + 4, &im, 4);
      }
    } else {
      const double d = static_cast<double>(v);
      std::memcpy(p, &d, 8);
      if (t == ET::kC128) {
        const double im = static_cast<double>(-v / 3);
        std::memcpy(p + 8, &im, 8);
      }
    }
  }
  return buf;
}

// The reference result for one element; `valid` is false where the
// reference cannot decide (int -> narrow float beyond 2^53).
struct Expected {
  bool valid = true;
  bool is_float = false;
  LD value = 0;      // for float destinations (NaN allowed)
  int64_t raw = 0;   // for pred/integer destinations: the value
  LD imag = 0;
};

Expected Reference(ET from, ET to, LD v, LD imag) {
  Expected e;
  if (to == ET::kPred) {
    e.raw = (v != 0) ? 1 : 0;
    return e;
  }
  if (IsInteger(to)) {
    const int bits = BitWidth(to);
    const bool is_signed = IsSignedInteger(to);
    if (IsFloatingPoint(from)) {
      if (std::isnan(v)) {
        e.raw = 0;
        return e;
      }
      const LD lo = is_signed ? -std::ldexp(LD(1), bits - 1) : 0;
      const LD hi = is_signed ? std::ldexp(LD(1), bits - 1) - 1 : std::ldexp(LD(1), bits) - 1;
      const LD t = std::trunc(v);
      const LD c = t < lo ? lo : (t > hi ? hi : t);
      e.raw = is_signed ? static_cast<int64_t>(c) : static_cast<int64_t>(static_cast<uint64_t>(c));
      if (!is_signed && bits == 64 && c >= 9223372036854775808.0L) {
        e.raw = static_cast<int64_t>(static_cast<uint64_t>(c));
      }
    } else {
      // Integer to integer: the source value modulo 2^bits.
      const __int128 s = v < 0 ? -static_cast<__int128>(static_cast<uint64_t>(-v))
                               : static_cast<__int128>(static_cast<uint64_t>(v));
      uint64_t low = static_cast<uint64_t>(static_cast<unsigned __int128>(s));
      if (bits < 64) low &= (uint64_t{1} << bits) - 1;
      if (is_signed && bits < 64 && ((low >> (bits - 1)) & 1)) low |= ~((uint64_t{1} << bits) - 1);
      e.raw = static_cast<int64_t>(low);
    }
    return e;
  }
  e.is_float = true;
  const ET component = IsComplex(to) ? ComplexComponentType(to) : to;
  auto round_to = [&](LD x) -> LD {
    if (component == ET::kF32) return static_cast<float>(x);
    if (component == ET::kF64) return static_cast<double>(x);
    if (!IsFloatingPoint(from) && std::fabs(x) >= std::ldexp(LD(1), 53)) e.valid = false;
    return DecodeNarrowFloat(component, EncodeNarrowFloat(component, static_cast<double>(x)));
  };
  e.value = round_to(v);
  e.imag = IsComplex(from) ? round_to(imag) : 0;
  return e;
}

void CheckPair(ET from, ET to) {
  SCOPED_TRACE(std::string(ElementTypeName(from)) + " -> " + std::string(ElementTypeName(to)));
  auto kernel = SelectConvertKernel(from, to);
  if (IsComplex(from) && !IsComplex(to)) {
    EXPECT_FALSE(kernel.ok());
    return;
  }
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  size_t n = 0;
  const std::vector<uint8_t> in = Inputs(from, &n);
  std::vector<uint8_t> out(n * ByteWidth(to));
  (*kernel)(in.data(), out.data(), static_cast<int64_t>(n));
  int failures = 0;
  for (size_t i = 0; i < n && failures < 5; ++i) {
    const LD v = ReadValue(from, in, i);
    const LD im = IsComplex(from) ? ReadImag(from, in, i) : 0;
    const Expected e = Reference(from, to, v, im);
    if (!e.valid) continue;
    if (!e.is_float) {
      const LD got = ReadValue(to, out, i);
      if (got != static_cast<LD>(IsUnsignedInteger(to) ? static_cast<LD>(static_cast<uint64_t>(e.raw))
                                                       : static_cast<LD>(e.raw))) {
        ++failures;
        ADD_FAILURE() << "x=" << static_cast<double>(v) << " got " << static_cast<double>(got)
                      << " expected " << e.raw;
      }
      continue;
    }
    const LD got = ReadValue(to, out, i);
    const bool same = (std::isnan(got) && std::isnan(e.value)) ||
                      (got == e.value && std::signbit(got) == std::signbit(e.value)) ||
                      (got == 0 && e.value == 0 && !NarrowFloatHasNegativeZero(to));
    bool same_imag = true;
    if (IsComplex(to)) {
      const LD gi = ReadImag(to, out, i);
      same_imag = (std::isnan(gi) && std::isnan(e.imag)) || gi == e.imag;
    }
    if (!same || !same_imag) {
      ++failures;
      ADD_FAILURE() << "x=" << static_cast<double>(v) << " got " << static_cast<double>(got)
                    << " expected " << static_cast<double>(e.value);
    }
  }
}

TEST(ConvertTest, EveryPairMatchesReference) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (ET from : AllTypes()) {
      for (ET to : AllTypes()) CheckPair(from, to);
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

// One rounding from the exact integer: going through double first would round
// 2^60 + 2^52 + 1 to the tie 2^60 + 2^52 and then down to 2^60.
TEST(ConvertTest, WideIntegersRoundOnceIntoNarrowFloats) {
  const int64_t x = (int64_t{1} << 60) + (int64_t{1} << 52) + 1;
  uint16_t out = 0;
  auto kernel = SelectConvertKernel(ET::kS64, ET::kBF16);
  ASSERT_TRUE(kernel.ok());
  (*kernel)(&x, &out, 1);
  EXPECT_EQ(DecodeNarrowFloat(ET::kBF16, out), std::ldexp(1.0, 60) + std::ldexp(1.0, 53));
  const uint64_t max = UINT64_MAX;
  auto u64 = SelectConvertKernel(ET::kU64, ET::kBF16);
  ASSERT_TRUE(u64.ok());
  (*u64)(&max, &out, 1);
  EXPECT_EQ(DecodeNarrowFloat(ET::kBF16, out), std::ldexp(1.0, 64));
}

TEST(ConvertTest, FloatToIntSaturatesAndMapsNanToZero) {
  const std::vector<float> x = {NAN, INFINITY, -INFINITY, 3e9f, -3e9f, -0.9f, 2.9f, -2147483648.0f};
  std::vector<int32_t> s(x.size());
  std::vector<uint32_t> u(x.size());
  auto to_s32 = SelectConvertKernel(ET::kF32, ET::kS32);
  auto to_u32 = SelectConvertKernel(ET::kF32, ET::kU32);
  ASSERT_TRUE(to_s32.ok() && to_u32.ok());
  (*to_s32)(x.data(), s.data(), static_cast<int64_t>(x.size()));
  (*to_u32)(x.data(), u.data(), static_cast<int64_t>(x.size()));
  EXPECT_EQ(s, (std::vector<int32_t>{0, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN, 0, 2, INT32_MIN}));
  EXPECT_EQ(u, (std::vector<uint32_t>{0, UINT32_MAX, 0, 3000000000u, 0, 0, 2, 0}));
}

// f32 -> bf16 keeps every bit of the scalar rule (round to nearest even on
// the bit pattern; a NaN keeps its sign and upper payload and turns quiet),
// NaN payloads and subnormals included, on every target: the AVX-512 path
// converts 32 floats at a time, so the length leaves a tail of each kind.
TEST(ConvertTest, F32ToBF16KeepsTheBitsOfTheScalarRule) {
  std::vector<uint32_t> bits = {0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00008000,
                                0x00018000, 0x3f808000, 0x3f818000, 0x7f7fffff, 0xff7f8000,
                                0x7f800000, 0xff800000, 0x7f800001, 0xffbfffff, 0x7fc00000,
                                0x7fffffff, 0xff800001, 0x7f808000};
  for (uint64_t b = 12345; b < (uint64_t{1} << 32); b += 65521)
    bits.push_back(static_cast<uint32_t>(b));
  bits.resize(bits.size() / 32 * 32 + 23);
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    auto kernel = SelectConvertKernel(ET::kF32, ET::kBF16);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    std::vector<uint16_t> out(bits.size());
    (*kernel)(bits.data(), out.data(), static_cast<int64_t>(bits.size()));
    for (size_t i = 0; i < bits.size(); ++i) {
      const uint32_t x = bits[i];
      const bool nan = (x & 0x7f800000) == 0x7f800000 && (x & 0x007fffff) != 0;
      const uint16_t want = nan ? static_cast<uint16_t>((x >> 16) | 0x40)
                                : static_cast<uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);
      ASSERT_EQ(out[i], want) << "at " << i << ", bits 0x" << std::hex << x;
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
}  // namespace hlovm
