// Compares every elementwise kernel with a slow, obvious scalar reference over
// edge values (NaN, infinities, signed zeros, subnormals, INT_MIN, -1, zero
// divisors, large shift counts) and random values, on every SIMD target
// compiled in; and checks which target runs on this machine.
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/float_format.h"
#include "gtest/gtest.h"
#include "hwy/highway.h"
#include "hwy/targets.h"
#include "ops/elementwise/elementwise.h"

namespace hlovm {
namespace {

using LD = long double;
using ET = ElementType;

// Runs `body` once per SIMD target that is compiled in and supported here.
void ForEachTarget(const std::function<void()>& body) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    body();
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(ElementwiseTargetTest, ChoosesTheBestTargetOfThisMachine) {
  const int64_t supported = hwy::SupportedTargets();
  std::string expected = "EMU128";
  if (supported & HWY_AVX3) {
    expected = "AVX3";
  } else if (supported & HWY_AVX2) {
    expected = "AVX2";
  }
  EXPECT_EQ(std::string(ElementwiseSimdTarget()), expected);
  // The project's machines are AVX2 + FMA without AVX-512.
  if ((supported & HWY_AVX2) && !(supported & HWY_AVX3)) {
    EXPECT_EQ(std::string(ElementwiseSimdTarget()), "AVX2");
  }
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

// Distance in units in the last place of T; 0 when both are NaN.
template <class T>
int64_t UlpDistance(T a, T b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<int64_t>::max();
  if (a == b) return 0;
  if (std::isinf(a) || std::isinf(b)) return std::numeric_limits<int64_t>::max();
  using S = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  auto key = [](T x) {
    S bits;
    std::memcpy(&bits, &x, sizeof(T));
    return bits < 0 ? -static_cast<int64_t>(bits & std::numeric_limits<S>::max()) : static_cast<int64_t>(bits);
  };
  const int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}

template <class T>
std::vector<T> FloatInputs(int random_count) {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {0, -T(0), 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 3.5, 0.49999997, 3.14159265,
                      -3.14159265, 10, -10, 20, 88.5, 88.8, 89, -87.5, -100, -104, -110, 700,
                      710, -745, -750, 1e-7, -1e-7, 1e10, -1e10, 2147483648.0, -2147483648.0,
                      4294967296.0, 1e20, -1e20, 0.999, -0.999, 1.001, 39000, 1e6};
  v.push_back(L::quiet_NaN());
  v.push_back(-L::quiet_NaN());
  v.push_back(L::infinity());
  v.push_back(-L::infinity());
  v.push_back(L::min());
  v.push_back(-L::min());
  v.push_back(L::denorm_min());
  v.push_back(-L::denorm_min());
  v.push_back(L::max());
  v.push_back(L::lowest());
  v.push_back(L::epsilon());
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<T> small(-12, 12);
  std::uniform_real_distribution<T> unit(-1, 1);
  for (int i = 0; i < random_count; ++i) {
    v.push_back(small(rng));
    v.push_back(unit(rng));
    // Any bit pattern (covers every exponent).
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    const U bits = static_cast<U>(rng());
    T x;
    std::memcpy(&x, &bits, sizeof(T));
    v.push_back(x);
  }
  return v;
}

template <class T>
constexpr ET FloatType() {
  return sizeof(T) == 4 ? ET::kF32 : ET::kF64;
}

//===----------------------------------------------------------------------===//
// Float unary ops
//===----------------------------------------------------------------------===//

LD RefRoundAfz(LD x) {
  if (std::isnan(x) || std::isinf(x)) return x;
  const LD r = std::floor(std::fabs(x) + 0.5L);
  return std::copysign(r, x);
}
LD RefSign(LD x) {
  if (std::isnan(x)) return x;
  if (x == 0) return x;
  return x > 0 ? 1 : -1;
}

struct UnaryCase {
  HloOpcode opcode;
  LD (*ref)(LD);
  int f32_ulps;  // allowed distance from the correctly rounded result
  int f64_ulps;
};

const std::vector<UnaryCase>& FloatUnaryCases() {
  static const auto* cases = new std::vector<UnaryCase>{
      {HloOpcode::kAbs, [](LD x) { return std::fabs(x); }, 0, 0},
      {HloOpcode::kNegate, [](LD x) { return -x; }, 0, 0},
      {HloOpcode::kCeil, [](LD x) { return std::ceil(x); }, 0, 0},
      {HloOpcode::kFloor, [](LD x) { return std::floor(x); }, 0, 0},
      {HloOpcode::kRoundNearestAfz, RefRoundAfz, 0, 0},
      {HloOpcode::kRoundNearestEven, [](LD x) { return std::rint(x); }, 0, 0},
      {HloOpcode::kSign, RefSign, 0, 0},
      {HloOpcode::kSqrt, [](LD x) { return std::sqrt(x); }, 0, 0},
      {HloOpcode::kRsqrt, [](LD x) { return 1 / std::sqrt(x); }, 1, 1},
      {HloOpcode::kCbrt, [](LD x) { return std::cbrt(x); }, 1, 2},
      {HloOpcode::kExp, [](LD x) { return std::exp(x); }, 2, 2},
      // XLA's f32 expm1, log1p and erf are up to 6, 2 and 7 ulp from the functions.
      {HloOpcode::kExpm1, [](LD x) { return std::expm1(x); }, 6, 2},
      {HloOpcode::kLog, [](LD x) { return std::log(x); }, 1, 2},
      {HloOpcode::kLog1p, [](LD x) { return std::log1p(x); }, 2, 2},
      {HloOpcode::kLogistic, [](LD x) { return 1 / (1 + std::exp(-x)); }, 3, 3},
      // XLA's f64 tanh is up to 7 ulp from tanh (just below 1 for 17.7 < |x| < 20).
      {HloOpcode::kTanh, [](LD x) { return std::tanh(x); }, 4, 7},
      {HloOpcode::kSin, [](LD x) { return std::sin(x); }, 1, 2},
      {HloOpcode::kCos, [](LD x) { return std::cos(x); }, 1, 2},
      {HloOpcode::kTan, [](LD x) { return std::tan(x); }, 1, 2},
      {HloOpcode::kErf, [](LD x) { return std::erf(x); }, 7, 2},
      {HloOpcode::kAcos, [](LD x) { return std::acos(x); }, 1, 2},
      {HloOpcode::kAcosh, [](LD x) { return std::acosh(x); }, 1, 2},
      {HloOpcode::kAsin, [](LD x) { return std::asin(x); }, 1, 2},
      {HloOpcode::kAsinh, [](LD x) { return std::asinh(x); }, 1, 2},
      {HloOpcode::kAtan, [](LD x) { return std::atan(x); }, 1, 2},
      {HloOpcode::kAtanh, [](LD x) { return std::atanh(x); }, 1, 2},
      {HloOpcode::kCosh, [](LD x) { return std::cosh(x); }, 1, 2},
      {HloOpcode::kSinh, [](LD x) { return std::sinh(x); }, 1, 2},
  };
  return *cases;
}

template <class T>
void CheckFloatUnary(int random_count) {
  const std::vector<T> in = FloatInputs<T>(random_count);
  std::vector<T> out(in.size());
  for (const UnaryCase& c : FloatUnaryCases()) {
    SCOPED_TRACE(std::string(HloOpcodeName(c.opcode)));
    auto kernel = SelectUnaryKernel(c.opcode, FloatType<T>(), FloatType<T>());
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    (*kernel)(in.data(), out.data(), static_cast<int64_t>(in.size()));
    const int allowed = sizeof(T) == 4 ? c.f32_ulps : c.f64_ulps;
    int failures = 0;
    for (size_t i = 0; i < in.size() && failures < 5; ++i) {
      // logistic follows XLA's expansion 1 / (1 + exp(-x)) in T (so exp may
      // overflow); sqrt is checked against T's correctly rounded sqrt.
      T expected;
      if (c.opcode == HloOpcode::kLogistic) {
        expected = T(1) / (T(1) + static_cast<T>(std::exp(-static_cast<LD>(in[i]))));
      } else if (c.opcode == HloOpcode::kSqrt) {
        expected = std::sqrt(in[i]);
      } else {
        expected = static_cast<T>(c.ref(static_cast<LD>(in[i])));
      }
      const int64_t d = UlpDistance(out[i], expected);
      // Subnormal results may lose bits in polynomial approximations.
      const bool subnormal = expected != 0 && std::fabs(expected) < std::numeric_limits<T>::min();
      if (d > allowed && !(subnormal && std::fabs(out[i] - expected) <= 4 * std::numeric_limits<T>::min() * std::numeric_limits<T>::epsilon())) {
        ++failures;
        ADD_FAILURE() << "x=" << in[i] << " got " << out[i] << " expected " << expected
                      << " (" << d << " ulp)";
      }
      if (allowed == 0 && !std::isnan(expected)) {
        EXPECT_EQ(std::signbit(out[i]), std::signbit(expected)) << "x=" << in[i];
      }
    }
  }
}

TEST(ElementwiseUnaryTest, F32MatchesReference) {
  ForEachTarget([] { CheckFloatUnary<float>(3000); });
}
TEST(ElementwiseUnaryTest, F64MatchesReference) {
  ForEachTarget([] { CheckFloatUnary<double>(1000); });
}

// XLA's CPU f32 tanh, step by step in scalars: std::fma is the fused
// multiply-add of the AVX2 and AVX-512 kernels.
float RationalTanh(float x) {
  const float ax = std::fabs(x);
  if (ax >= 20.0f) return std::copysign(1.0f, x);
  if (ax < 0.0004f) return x;
  const float bound = 7.99881172180175781f;
  float c = x < -bound ? -bound : x;
  c = c > bound ? bound : c;
  const float c2 = c * c;
  float p = std::fma(c2, -2.76076847742355e-16f, 2.00018790482477e-13f);
  for (float k : {-8.60467152213735e-11f, 5.12229709037114e-08f, 1.48572235717979e-05f,
                  6.37261928875436e-04f, 4.89352455891786e-03f}) {
    p = std::fma(c2, p, k);
  }
  float q = std::fma(c2, 1.19825839466702e-06f, 1.18534705686654e-04f);
  for (float k : {2.26843463243900e-03f, 4.89352518554385e-03f}) q = std::fma(c2, q, k);
  const float numerator = c * p;
  return numerator / q;
}

TEST(ElementwiseUnaryTest, F32TanhIsXlasRationalApproximation) {
  std::vector<float> in = FloatInputs<float>(3000);
  for (float x : {0.0004f, 0.00039999999f, 7.9f, 7.99881172180175781f, 8.5f, 19.99f, 20.0f}) {
    in.push_back(x);
    in.push_back(-x);
  }
  std::vector<float> out(in.size());
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    if (target != HWY_AVX2 && target != HWY_AVX3) continue;  // the targets with FMA
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    auto kernel = SelectUnaryKernel(HloOpcode::kTanh, ET::kF32, ET::kF32);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    (*kernel)(in.data(), out.data(), static_cast<int64_t>(in.size()));
    int failures = 0;
    for (size_t i = 0; i < in.size() && failures < 5; ++i) {
      const float expected = RationalTanh(in[i]);
      if (std::isnan(expected) ? !std::isnan(out[i])
                               : std::memcmp(&out[i], &expected, sizeof(float)) != 0) {
        ++failures;
        ADD_FAILURE() << "x=" << in[i] << " got " << out[i] << " expected " << expected;
      }
    }
    // Exactly +-1 from the clamp on (and for the infinities); the input
    // itself near 0.
    const std::vector<float> edge = {7.99881172180175781f,
                                     -9.0f,
                                     25.0f,
                                     -std::numeric_limits<float>::infinity(),
                                     0.0003f,
                                     -0.0f};
    std::vector<float> got(edge.size());
    (*kernel)(edge.data(), got.data(), static_cast<int64_t>(edge.size()));
    EXPECT_EQ(got[0], 1.0f);
    EXPECT_EQ(got[1], -1.0f);
    EXPECT_EQ(got[2], 1.0f);
    EXPECT_EQ(got[3], -1.0f);
    EXPECT_EQ(got[4], 0.0003f);
    EXPECT_TRUE(got[5] == 0.0f && std::signbit(got[5]));
  }
  hwy::SetSupportedTargetsForTest(0);
}

// Runs the `opcode` kernel of T on `in` on the targets with fused multiply-add
// (AVX2, AVX-512) and expects `expected(x)` bit for bit (any NaN for NaN).
template <class T>
void ExpectBitExactOnFmaTargets(HloOpcode opcode, const std::vector<T>& in, T (*expected)(T)) {
  std::vector<T> out(in.size());
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    if (target != HWY_AVX2 && target != HWY_AVX3) continue;
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    auto kernel = SelectUnaryKernel(opcode, FloatType<T>(), FloatType<T>());
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    (*kernel)(in.data(), out.data(), static_cast<int64_t>(in.size()));
    int failures = 0;
    for (size_t i = 0; i < in.size() && failures < 5; ++i) {
      const T want = expected(in[i]);
      if (std::isnan(want) ? !std::isnan(out[i]) : std::memcmp(&out[i], &want, sizeof(T)) != 0) {
        ++failures;
        ADD_FAILURE() << "x=" << std::hexfloat << in[i] << " got " << out[i] << " expected "
                      << want;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

// XLA's CPU f64 tanh, step by step in scalars (see tanh_f64-inl.h).
double RationalTanhF64(double x) {
  if (std::fabs(x) >= 20.0) return std::copysign(1.0, x);
  const double bound = 17.714196154005176;
  double c = x < -bound ? -bound : x;
  c = c > bound ? bound : c;
  const double c2 = c * c;
  double p = 2.6158007860482230e-23;
  for (double k : {7.6534862268749319e-19, 3.1309488231386680e-15, 4.2303918148209176e-12,
                   2.4618379131293676e-09, 6.8644367682497074e-07, 9.3839087674268880e-05,
                   5.9809711724441161e-03, 1.5184719640284322e-01, 1.0}) {
    p = std::fma(c2, p, k);
  }
  double q = 6.463747022670968018e-21;
  for (double k : {5.782506856739003571e-17, 1.293019623712687916e-13, 1.123643448069621992e-10,
                   4.492975677839633985e-08, 8.785185266237658698e-06, 8.295161192716231542e-04,
                   3.437448108450402717e-02, 4.851805297361760360e-01, 1.0}) {
    q = std::fma(c2, q, k);
  }
  return c * p / q;
}

TEST(ElementwiseUnaryTest, F64TanhIsXlasRationalApproximation) {
  std::vector<double> in = FloatInputs<double>(3000);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> wide(-21, 21);
  for (int i = 0; i < 3000; ++i) in.push_back(wide(rng));
  for (double x : {17.714196154005176, 17.7, 19.99, 20.0, 1e-300, 4.9e-324, 2e-308}) {
    in.push_back(x);
    in.push_back(-x);
  }
  ExpectBitExactOnFmaTargets<double>(HloOpcode::kTanh, in, RationalTanhF64);
  // Just below 1 between the clamp and 20, exactly +-1 from 20 on; subnormals
  // and signed zeros are kept.
  auto kernel = SelectUnaryKernel(HloOpcode::kTanh, ET::kF64, ET::kF64);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const std::vector<double> edge = {19.0, 20.0, -std::numeric_limits<double>::infinity(), -4.9e-324,
                                    -0.0};
  std::vector<double> got(edge.size());
  (*kernel)(edge.data(), got.data(), static_cast<int64_t>(edge.size()));
  EXPECT_LT(got[0], 1.0);
  EXPECT_GT(got[0], 1.0 - 1e-15);
  EXPECT_EQ(got[1], 1.0);
  EXPECT_EQ(got[2], -1.0);
  EXPECT_EQ(got[3], -4.9e-324);
  EXPECT_TRUE(got[4] == 0.0 && std::signbit(got[4]));
}

// FloatInputs plus `count` uniform values in [lo, hi].
std::vector<float> F32InputsWith(float lo, float hi, int count) {
  std::vector<float> in = FloatInputs<float>(3000);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<float> range(lo, hi);
  for (int i = 0; i < count; ++i) in.push_back(range(rng));
  return in;
}

// XLA's CPU f32 erf, step by step in scalars (see erf_f32-inl.h).
float RationalErf(float x) {
  if (std::fabs(x) >= 3.832506856900711f) return std::copysign(1.0f, x);
  const float x2 = x * x;
  float p = 0.00022905065861350646f;
  for (float k :
       {0.0034082910107109506f, 0.050955695062380861f, 0.18520832239976145f, 1.128379143519084f}) {
    p = std::fma(x2, p, k);
  }
  float q = -1.1791602954361697e-7f;
  for (float k : {0.000023547966471313185f, 0.0010179625278914885f, 0.014070470171167667f,
                  0.11098505178285362f, 0.49746925110067538f, 1.0f}) {
    q = std::fma(x2, q, k);
  }
  return x * p / q;
}

TEST(ElementwiseUnaryTest, F32ErfIsXlasRationalApproximation) {
  std::vector<float> in = F32InputsWith(-4.5f, 4.5f, 20000);
  for (float x : {3.832506856900711f, 3.8325067f, 1e-30f, 1e-45f}) {
    in.push_back(x);
    in.push_back(-x);
  }
  ExpectBitExactOnFmaTargets<float>(HloOpcode::kErf, in, RationalErf);
}

// XLA's CPU f32 log, step by step in scalars (see log_f32-inl.h); subnormals
// are scaled by 2^24 first.
float CephesLog(float x) {
  if (std::isnan(x) || x < 0) return std::numeric_limits<float>::quiet_NaN();
  if (x == 0) return -std::numeric_limits<float>::infinity();
  if (std::isinf(x)) return x;
  int e = 0;
  if (x < std::numeric_limits<float>::min()) {
    x *= 16777216.0f;
    e = -24;
  }
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  e += static_cast<int>(bits >> 23) - 126;
  float m = std::bit_cast<float>((bits & 0x007fffffu) | 0x3f000000u);  // in [0.5, 1)
  float t = m - 1.0f;
  if (m < 0.707106781186547524f) {
    t = t + m;
    e -= 1;
  }
  const float fe = static_cast<float>(e);
  const float t2 = t * t;
  const float t3 = t2 * t;
  float y = std::fma(t, 7.0376836292E-2f, -1.1514610310E-1f);
  float y1 = std::fma(t, -1.2420140846E-1f, 1.4249322787E-1f);
  float y2 = std::fma(t, 2.0000714765E-1f, -2.4999993993E-1f);
  y = std::fma(y, t, 1.1676998740E-1f);
  y1 = std::fma(y1, t, -1.6668057665E-1f);
  y2 = std::fma(y2, t, 3.3333331174E-1f);
  y = std::fma(y, t3, y1);
  y = std::fma(y, t3, y2);
  y = std::fma(y, t3, -2.12194440e-4f * fe);
  const float r = std::fma(-0.5f, t2, t) + y;
  return std::fma(0.693359375f, fe, r);
}

TEST(ElementwiseUnaryTest, F32LogIsXlasCephesPolynomial) {
  std::vector<float> in = F32InputsWith(0.0f, 4.0f, 20000);
  for (float x : {0.70710677f, 0.70710683f, 1.0f, 1e-40f, 3e-45f}) in.push_back(x);
  ExpectBitExactOnFmaTargets<float>(HloOpcode::kLog, in, CephesLog);
  // Subnormals get their logarithm (XLA's CPU backend flushes them to 0).
  auto kernel = SelectUnaryKernel(HloOpcode::kLog, ET::kF32, ET::kF32);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const float sub = std::numeric_limits<float>::denorm_min();
  float got = 0;
  (*kernel)(&sub, &got, 1);
  EXPECT_NEAR(got, -103.27893f, 1e-4f);
}

// XLA's CPU f32 log1p, step by step in scalars (see log_f32-inl.h).
float CephesLog1p(float x) {
  if (!(std::fabs(x) < static_cast<float>(0.41421356237309504880))) return CephesLog(x + 1.0f);
  float n = static_cast<float>(4.5270000862445199635215E-5);
  for (double k :
       {4.9854102823193375972212E-1, 6.5787325942061044846969E0, 2.9911919328553073277375E1,
        6.0949667980987787057556E1, 5.7112963590585538103336E1, 2.0039553499201281259648E1}) {
    n = std::fma(n, x, static_cast<float>(k));
  }
  float q = 1.0f;
  for (double k :
       {1.5062909083469192043167E1, 8.3047565967967209469434E1, 2.2176239823732856465394E2,
        3.0909872225312059774938E2, 2.1642788614495947685003E2, 6.0118660497603843919306E1}) {
    q = std::fma(q, x, static_cast<float>(k));
  }
  const float x2 = x * x;
  return x + std::fma(-0.5f, x2, (x * x2) * (n / q));
}

TEST(ElementwiseUnaryTest, F32Log1pIsXlasRationalApproximation) {
  std::vector<float> in = F32InputsWith(-1.0f, 2.0f, 20000);
  for (float x : {0.41421356f, 0.4142136f, -0.41421356f, -0.4142136f, -1.0f, 1e-40f}) {
    in.push_back(x);
  }
  ExpectBitExactOnFmaTargets<float>(HloOpcode::kLog1p, in, CephesLog1p);
}

// XLA's CPU f32 exp, step by step in scalars (see exp_f32-inl.h), with
// subnormal results z * 2^n rounded once where XLA flushes them to 0.
float CephesExp(float x) {
  if (std::isnan(x)) return x;
  const float c = std::min(std::max(x, -104.0f), 88.8f);
  const float n = std::floor(std::fma(c, 1.44269504088896341f, 0.5f));
  float r = std::fma(-n, 0.693145751953125f, c);
  r = std::fma(-n, 1.4286067653301877e-6f, r);
  float z = std::fma(r, 1.9875691500E-4f, 1.3981999507E-3f);
  for (float k : {8.3334519073E-3f, 4.1665795894E-2f, 1.6666665459E-1f, 5.0000001201E-1f}) {
    z = std::fma(z, r, k);
  }
  z = std::fma(z, r * r, r) + 1.0f;
  const int ni = static_cast<int>(n);
  const int e1 = std::min(std::max(ni, -126), 127);
  // z * 2^(n - e1) exactly, by its exponent bits (z stays normal).
  z = std::bit_cast<float>(std::bit_cast<uint32_t>(z) + (static_cast<uint32_t>(ni - e1) << 23));
  return z * std::bit_cast<float>(static_cast<uint32_t>(e1 + 127) << 23);
}

TEST(ElementwiseUnaryTest, F32ExpIsXlasCephesPolynomial) {
  std::vector<float> in = F32InputsWith(-110.0f, 90.0f, 40000);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (int i = 0; i < 20000; ++i) in.push_back(unit(rng));
  // Around the overflow threshold, the clamps and the ends of the normal and
  // subnormal ranges.
  for (float x : {88.72283f, 88.72284f, 88.8f, 88.80001f, 89.0f, -87.33654f, -87.33655f, -87.8f,
                  -87.80001f, -103.27893f, -103.97208f, -103.97209f, -104.0f, -104.00001f}) {
    in.push_back(x);
    for (int i = 1; i <= 64; ++i) {
      in.push_back(std::nextafter(in.back(), 0.0f));
    }
  }
  ExpectBitExactOnFmaTargets<float>(HloOpcode::kExp, in, CephesExp);
  auto kernel = SelectUnaryKernel(HloOpcode::kExp, ET::kF32, ET::kF32);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> edge = {0.0f, -0.0f, 88.72283f, 88.7229f, inf, -inf, -104.0f, -87.0f};
  std::vector<float> got(edge.size());
  (*kernel)(edge.data(), got.data(), static_cast<int64_t>(edge.size()));
  EXPECT_EQ(got[0], 1.0f);
  EXPECT_EQ(got[1], 1.0f);
  EXPECT_TRUE(std::isfinite(got[2]));
  EXPECT_EQ(got[3], inf);
  EXPECT_EQ(got[4], inf);
  EXPECT_EQ(got[5], 0.0f);
  EXPECT_EQ(got[6], 0.0f);
  EXPECT_GE(got[7], std::numeric_limits<float>::min());
}

// XLA's CPU f32 expm1 in scalars, with CephesExp and RationalTanh.
float TanhFormExpm1(float x) {
  const float e = CephesExp(x);
  const float half_x = x * 0.5f;
  if (half_x == 0) return x;
  if (std::fabs(x) > 0.5f) return e - 1.0f;
  return RationalTanh(half_x) * (e + 1.0f);
}

TEST(ElementwiseUnaryTest, F32Expm1IsXlasTanhForm) {
  std::vector<float> in = F32InputsWith(-1.0f, 1.0f, 20000);
  for (float x : {0.5f, 0.50000006f, -0.5f, 0.0008f, 1e-40f, 1e-45f, -1e-45f, 89.0f, -89.0f}) {
    in.push_back(x);
  }
  ExpectBitExactOnFmaTargets<float>(HloOpcode::kExpm1, in, TanhFormExpm1);
}

TEST(ElementwiseUnaryTest, InPlaceIsAllowed) {
  std::vector<float> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  auto kernel = SelectUnaryKernel(HloOpcode::kNegate, ET::kF32, ET::kF32);
  ASSERT_TRUE(kernel.ok());
  (*kernel)(v.data(), v.data(), static_cast<int64_t>(v.size()));
  for (int i = 0; i < 11; ++i) EXPECT_EQ(v[i], -(i + 1));
}

// Narrow floats: every bit pattern, computed as f32 and rounded back.
void CheckNarrowUnary(ET type) {
  SCOPED_TRACE(std::string(ElementTypeName(type)));
  const int bits = BitWidth(type);
  const int count = 1 << bits;
  const int width = ByteWidth(type);
  std::vector<uint8_t> in(count * width), out(count * width);
  for (int i = 0; i < count; ++i) {
    if (width == 2) {
      const uint16_t v = static_cast<uint16_t>(i);
      std::memcpy(&in[2 * i], &v, 2);
    } else {
      in[i] = static_cast<uint8_t>(i);
    }
  }
  auto bits_at = [&](const std::vector<uint8_t>& buf, int i) -> uint32_t {
    if (width == 2) {
      uint16_t v;
      std::memcpy(&v, &buf[2 * i], 2);
      return v;
    }
    return buf[i];
  };
  for (const UnaryCase& c : FloatUnaryCases()) {
    SCOPED_TRACE(std::string(HloOpcodeName(c.opcode)));
    auto kernel = SelectUnaryKernel(c.opcode, type, type);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    (*kernel)(in.data(), out.data(), count);
    int failures = 0;
    for (int i = 0; i < count && failures < 5; ++i) {
      const double x = DecodeNarrowFloat(type, bits_at(in, i));
      const float xf = static_cast<float>(x);
      const float f = c.opcode == HloOpcode::kLogistic
                          ? 1.0f / (1.0f + static_cast<float>(std::exp(-static_cast<LD>(xf))))
                          : static_cast<float>(c.ref(static_cast<LD>(xf)));
      // Formats without NaN have no agreed encoding for it.
      if (std::isnan(f) && !NarrowFloatFormat(type).has_nan) continue;
      const uint32_t expected = EncodeNarrowFloat(type, f);
      const uint32_t got = bits_at(out, i);
      const double e = DecodeNarrowFloat(type, expected), g = DecodeNarrowFloat(type, got);
      if (got == expected || (std::isnan(e) && std::isnan(g))) continue;
      // f32 results within a few ulp may round to the neighbouring value.
      const int64_t d = UlpDistance(static_cast<float>(g), f);
      const int64_t step = UlpDistance(static_cast<float>(g), static_cast<float>(e));
      if (c.f32_ulps > 0 && d <= step + 8) continue;
      ++failures;
      ADD_FAILURE() << "x=" << x << " got " << g << " expected " << e;
    }
  }
}

TEST(ElementwiseUnaryTest, NarrowFloatsMatchReference) {
  ForEachTarget([] {
    for (ET t : {ET::kF16, ET::kBF16, ET::kF8E4M3FN, ET::kF8E5M2, ET::kF8E4M3FNUZ,
                 ET::kF8E8M0FNU, ET::kF4E2M1FN, ET::kF6E3M2FN}) {
      CheckNarrowUnary(t);
    }
  });
}

TEST(ElementwiseUnaryTest, MixedResultTypes) {
  const std::vector<float> x = {1, -0.0f, INFINITY, -INFINITY, NAN, 3e38f};
  std::vector<uint8_t> pred(x.size());
  auto finite = SelectUnaryKernel(HloOpcode::kIsFinite, ET::kF32, ET::kPred);
  ASSERT_TRUE(finite.ok());
  (*finite)(x.data(), pred.data(), 6);
  EXPECT_EQ(pred, (std::vector<uint8_t>{1, 1, 0, 0, 0, 1}));

  const std::vector<std::complex<float>> z = {{3, -4}, {0, 0}, {INFINITY, NAN}, {1e30f, 1e30f}};
  std::vector<float> r(z.size());
  auto abs = SelectUnaryKernel(HloOpcode::kAbs, ET::kC64, ET::kF32);
  ASSERT_TRUE(abs.ok());
  (*abs)(z.data(), r.data(), 4);
  EXPECT_EQ(r[0], 5);
  EXPECT_EQ(r[1], 0);
  // XLA's |z| = max * sqrt(1 + (min/max)^2) with NaN-propagating max/min:
  // |inf + NaN i| is NaN (C's hypot would say inf).
  EXPECT_TRUE(std::isnan(r[2]));
  EXPECT_NEAR(r[3], 1.41421356e30f, 1e24f);
  auto real = SelectUnaryKernel(HloOpcode::kReal, ET::kC64, ET::kF32);
  auto imag = SelectUnaryKernel(HloOpcode::kImag, ET::kC64, ET::kF32);
  ASSERT_TRUE(real.ok() && imag.ok());
  (*real)(z.data(), r.data(), 1);
  EXPECT_EQ(r[0], 3);
  (*imag)(z.data(), r.data(), 1);
  EXPECT_EQ(r[0], -4);
  auto imag_real = SelectUnaryKernel(HloOpcode::kImag, ET::kF32, ET::kF32);
  ASSERT_TRUE(imag_real.ok());
  std::vector<float> y(x.size());
  (*imag_real)(x.data(), y.data(), 6);
  for (float v : y) EXPECT_EQ(v, 0);
}

TEST(ElementwiseUnaryTest, ComplexMatchesStdWithinTolerance) {
  const std::vector<std::complex<double>> z = {{0.5, 0.25}, {-1.5, 2}, {3, -0.75}, {-0.2, -0.9}};
  struct C {
    HloOpcode op;
    std::complex<LD> (*ref)(std::complex<LD>);
  };
  const std::vector<C> cases = {
      {HloOpcode::kExp, [](std::complex<LD> v) { return std::exp(v); }},
      {HloOpcode::kExpm1, [](std::complex<LD> v) { return std::exp(v) - std::complex<LD>(1); }},
      {HloOpcode::kLog, [](std::complex<LD> v) { return std::log(v); }},
      {HloOpcode::kLog1p, [](std::complex<LD> v) { return std::log(v + std::complex<LD>(1)); }},
      {HloOpcode::kSqrt, [](std::complex<LD> v) { return std::sqrt(v); }},
      {HloOpcode::kRsqrt, [](std::complex<LD> v) { return std::complex<LD>(1) / std::sqrt(v); }},
      {HloOpcode::kCbrt, [](std::complex<LD> v) { return std::pow(v, std::complex<LD>(1.0L / 3)); }},
      {HloOpcode::kSin, [](std::complex<LD> v) { return std::sin(v); }},
      {HloOpcode::kCos, [](std::complex<LD> v) { return std::cos(v); }},
      {HloOpcode::kTan, [](std::complex<LD> v) { return std::tan(v); }},
      {HloOpcode::kTanh, [](std::complex<LD> v) { return std::tanh(v); }},
      {HloOpcode::kLogistic,
       [](std::complex<LD> v) { return std::complex<LD>(1) / (std::complex<LD>(1) + std::exp(-v)); }},
      {HloOpcode::kSign, [](std::complex<LD> v) { return v / std::abs(v); }},
      {HloOpcode::kNegate, [](std::complex<LD> v) { return -v; }},
      {HloOpcode::kAsinh, [](std::complex<LD> v) { return std::asinh(v); }},
  };
  std::vector<std::complex<double>> out(z.size());
  std::vector<std::complex<float>> zf(z.begin(), z.end()), outf(z.size());
  for (const C& c : cases) {
    SCOPED_TRACE(std::string(HloOpcodeName(c.op)));
    auto k128 = SelectUnaryKernel(c.op, ET::kC128, ET::kC128);
    auto k64 = SelectUnaryKernel(c.op, ET::kC64, ET::kC64);
    ASSERT_TRUE(k128.ok() && k64.ok());
    (*k128)(z.data(), out.data(), 4);
    (*k64)(zf.data(), outf.data(), 4);
    for (int i = 0; i < 4; ++i) {
      const std::complex<LD> e = c.ref(std::complex<LD>(z[i].real(), z[i].imag()));
      EXPECT_NEAR(out[i].real(), e.real(), 1e-13 * (1 + std::abs(e)));
      EXPECT_NEAR(out[i].imag(), e.imag(), 1e-13 * (1 + std::abs(e)));
      EXPECT_NEAR(outf[i].real(), e.real(), 1e-5 * (1 + std::abs(e)));
      EXPECT_NEAR(outf[i].imag(), e.imag(), 1e-5 * (1 + std::abs(e)));
    }
  }
}

//===----------------------------------------------------------------------===//
// Float binary ops
//===----------------------------------------------------------------------===//

template <class T>
T RefMax(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  if (a == 0 && b == 0) return (std::signbit(a) && std::signbit(b)) ? -T(0) : T(0);
  return a > b ? a : b;
}
template <class T>
T RefMin(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  if (a == 0 && b == 0) return (std::signbit(a) || std::signbit(b)) ? -T(0) : T(0);
  return a < b ? a : b;
}

template <class T>
void CheckFloatBinary(int random_count) {
  std::vector<T> base = FloatInputs<T>(0);
  std::vector<T> a, b;
  for (T x : base) {
    for (T y : base) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  const std::vector<T> r1 = FloatInputs<T>(random_count), r2 = FloatInputs<T>(random_count);
  for (size_t i = 0; i < r1.size(); ++i) {
    a.push_back(r1[i]);
    b.push_back(r2[r2.size() - 1 - i]);
  }
  struct C {
    HloOpcode op;
    std::function<T(T, T)> ref;
    int ulps;
  };
  const std::vector<C> cases = {
      {HloOpcode::kAdd, [](T x, T y) { return x + y; }, 0},
      {HloOpcode::kSubtract, [](T x, T y) { return x - y; }, 0},
      {HloOpcode::kMultiply, [](T x, T y) { return x * y; }, 0},
      {HloOpcode::kDivide, [](T x, T y) { return x / y; }, 0},
      {HloOpcode::kRemainder, [](T x, T y) { return static_cast<T>(std::fmod(LD(x), LD(y))); }, 0},
      {HloOpcode::kMaximum, RefMax<T>, 0},
      {HloOpcode::kMinimum, RefMin<T>, 0},
      {HloOpcode::kPower, [](T x, T y) { return static_cast<T>(std::pow(LD(x), LD(y))); }, 2},
      {HloOpcode::kAtan2, [](T x, T y) { return static_cast<T>(std::atan2(LD(x), LD(y))); }, 1},
  };
  std::vector<T> out(a.size());
  for (const C& c : cases) {
    SCOPED_TRACE(std::string(HloOpcodeName(c.op)));
    auto kernel = SelectBinaryKernel(c.op, FloatType<T>(), FloatType<T>());
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    (*kernel)(a.data(), b.data(), out.data(), static_cast<int64_t>(a.size()));
    int failures = 0;
    for (size_t i = 0; i < a.size() && failures < 5; ++i) {
      const T e = c.ref(a[i], b[i]);
      if (UlpDistance(out[i], e) > c.ulps ||
          (c.ulps == 0 && !std::isnan(e) && std::signbit(e) != std::signbit(out[i]))) {
        ++failures;
        ADD_FAILURE() << a[i] << " op " << b[i] << " got " << out[i] << " expected " << e;
      }
    }
  }
}

TEST(ElementwiseBinaryTest, F32MatchesReference) {
  ForEachTarget([] { CheckFloatBinary<float>(2000); });
}
TEST(ElementwiseBinaryTest, F64MatchesReference) {
  ForEachTarget([] { CheckFloatBinary<double>(2000); });
}

// Narrow types: f32 arithmetic rounded once more is the correctly rounded
// result (f32 has more than twice their precision).
TEST(ElementwiseBinaryTest, NarrowFloatsRoundOnce) {
  ForEachTarget([] {
    for (ET t : {ET::kF16, ET::kBF16, ET::kF8E4M3FN, ET::kF8E5M2, ET::kF4E2M1FN}) {
      SCOPED_TRACE(std::string(ElementTypeName(t)));
      const int width = ByteWidth(t);
      std::mt19937 rng(7);
      const int n = 5000;
      std::vector<uint8_t> a(n * width), b(n * width), out(n * width);
      const uint32_t mask = (1u << BitWidth(t)) - 1;
      for (int i = 0; i < n * width; ++i) {
        a[i] = static_cast<uint8_t>(rng());
        b[i] = static_cast<uint8_t>(rng());
      }
      if (width == 1) {
        for (int i = 0; i < n; ++i) {
          a[i] &= mask;
          b[i] &= mask;
        }
      }
      auto at = [&](const std::vector<uint8_t>& v, int i) -> uint32_t {
        if (width == 2) {
          uint16_t x;
          std::memcpy(&x, &v[2 * i], 2);
          return x;
        }
        return v[i];
      };
      struct C {
        HloOpcode op;
        double (*ref)(double, double);
      };
      for (const C& c : std::vector<C>{
               {HloOpcode::kAdd, [](double x, double y) { return x + y; }},
               {HloOpcode::kSubtract, [](double x, double y) { return x - y; }},
               {HloOpcode::kMultiply, [](double x, double y) { return x * y; }},
               {HloOpcode::kDivide, [](double x, double y) { return x / y; }},
               {HloOpcode::kMaximum, [](double x, double y) { return RefMax(x, y); }},
               {HloOpcode::kMinimum, [](double x, double y) { return RefMin(x, y); }}}) {
        SCOPED_TRACE(std::string(HloOpcodeName(c.op)));
        auto kernel = SelectBinaryKernel(c.op, t, t);
        ASSERT_TRUE(kernel.ok());
        (*kernel)(a.data(), b.data(), out.data(), n);
        int failures = 0;
        for (int i = 0; i < n && failures < 5; ++i) {
          const double x = DecodeNarrowFloat(t, at(a, i)), y = DecodeNarrowFloat(t, at(b, i));
          const uint32_t e = EncodeNarrowFloat(t, c.ref(x, y));
          const uint32_t g = at(out, i);
          if (e == g || (std::isnan(DecodeNarrowFloat(t, e)) && std::isnan(DecodeNarrowFloat(t, g)))) {
            continue;
          }
          ++failures;
          ADD_FAILURE() << x << " op " << y << " got " << DecodeNarrowFloat(t, g) << " expected "
                        << DecodeNarrowFloat(t, e);
        }
      }
    }
  });
}

TEST(ElementwiseBinaryTest, ComplexArithmetic) {
  using C = std::complex<double>;
  const std::vector<C> a = {{1, 2}, {3, -4}, {0.5, 0.25}, {1, 1}, {INFINITY, 1}, {1, 1}};
  const std::vector<C> b = {{3, -1}, {-2, 0.5}, {1e-3, 2}, {0, 0}, {1, 2}, {INFINITY, 0}};
  std::vector<C> out(a.size());
  auto mul = SelectBinaryKernel(HloOpcode::kMultiply, ET::kC128, ET::kC128);
  auto div = SelectBinaryKernel(HloOpcode::kDivide, ET::kC128, ET::kC128);
  auto pow = SelectBinaryKernel(HloOpcode::kPower, ET::kC128, ET::kC128);
  ASSERT_TRUE(mul.ok() && div.ok() && pow.ok());
  (*mul)(a.data(), b.data(), out.data(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(out[i].real(), a[i].real() * b[i].real() - a[i].imag() * b[i].imag());
    EXPECT_EQ(out[i].imag(), a[i].real() * b[i].imag() + a[i].imag() * b[i].real());
  }
  (*div)(a.data(), b.data(), out.data(), 6);
  for (int i = 0; i < 3; ++i) {
    const std::complex<LD> e = std::complex<LD>(a[i].real(), a[i].imag()) /
                               std::complex<LD>(b[i].real(), b[i].imag());
    EXPECT_NEAR(out[i].real(), e.real(), 1e-14 * std::abs(e));
    EXPECT_NEAR(out[i].imag(), e.imag(), 1e-14 * std::abs(e));
  }
  EXPECT_TRUE(std::isinf(out[3].real()) && std::isinf(out[3].imag()));  // (1+i)/0
  EXPECT_TRUE(std::isinf(out[4].real()));                               // inf/(1+2i)
  EXPECT_EQ(out[5], C(0, 0));                                           // (1+i)/inf
  (*pow)(a.data(), b.data(), out.data(), 3);
  for (int i = 0; i < 3; ++i) {
    const std::complex<LD> e = std::pow(std::complex<LD>(a[i].real(), a[i].imag()),
                                        std::complex<LD>(b[i].real(), b[i].imag()));
    EXPECT_NEAR(out[i].real(), e.real(), 1e-12 * std::abs(e));
    EXPECT_NEAR(out[i].imag(), e.imag(), 1e-12 * std::abs(e));
  }
  // max/min of complex numbers: lexicographic on (real, imag).
  const std::vector<C> x = {{1.5, 2.5}, {1.5, 7.5}, {0, 1.5}, {-1, 9}};
  const std::vector<C> y = {{7.5, 1.5}, {1.5, 2.5}, {-0.0, 2.5}, {-2, 10}};
  auto cmin = SelectBinaryKernel(HloOpcode::kMinimum, ET::kC128, ET::kC128);
  auto cmax = SelectBinaryKernel(HloOpcode::kMaximum, ET::kC128, ET::kC128);
  ASSERT_TRUE(cmin.ok() && cmax.ok());
  (*cmin)(x.data(), y.data(), out.data(), 4);
  EXPECT_EQ(out[0], C(1.5, 2.5));
  EXPECT_EQ(out[1], C(1.5, 2.5));
  EXPECT_EQ(out[2], C(0, 1.5));
  EXPECT_EQ(out[3], C(-2, 10));
  (*cmax)(x.data(), y.data(), out.data(), 4);
  EXPECT_EQ(out[0], C(7.5, 1.5));
  EXPECT_EQ(out[1], C(1.5, 7.5));
  EXPECT_EQ(out[2].imag(), 2.5);
  EXPECT_EQ(out[3], C(-1, 9));

  std::vector<double> re = {1, -2}, im = {3, 4};
  auto cplx = SelectBinaryKernel(HloOpcode::kComplex, ET::kF64, ET::kC128);
  ASSERT_TRUE(cplx.ok());
  (*cplx)(re.data(), im.data(), out.data(), 2);
  EXPECT_EQ(out[0], C(1, 3));
  EXPECT_EQ(out[1], C(-2, 4));
}

//===----------------------------------------------------------------------===//
// Integer ops
//===----------------------------------------------------------------------===//

struct IntType {
  ET type;
  int bits;
  bool is_signed;
};
const std::vector<IntType>& IntTypes() {
  static const auto* types = new std::vector<IntType>{
      {ET::kS2, 2, true},   {ET::kS4, 4, true},   {ET::kS8, 8, true},   {ET::kS16, 16, true},
      {ET::kS32, 32, true}, {ET::kS64, 64, true}, {ET::kU2, 2, false},  {ET::kU4, 4, false},
      {ET::kU8, 8, false},  {ET::kU16, 16, false}, {ET::kU32, 32, false}, {ET::kU64, 64, false}};
  return *types;
}

// Integer values are handled as int64 holding the type's value (sign- or
// zero-extended); Wrap reduces any int128 modulo 2^bits into that form.
int64_t Wrap(const IntType& t, __int128 v) {
  const unsigned __int128 m = static_cast<unsigned __int128>(v);
  uint64_t low = static_cast<uint64_t>(m);
  if (t.bits < 64) low &= (uint64_t{1} << t.bits) - 1;
  if (t.is_signed && t.bits < 64 && (low >> (t.bits - 1)) & 1) low |= ~((uint64_t{1} << t.bits) - 1);
  return static_cast<int64_t>(low);
}
uint64_t AsUnsigned(const IntType& t, int64_t v) {
  uint64_t u = static_cast<uint64_t>(v);
  if (t.bits < 64) u &= (uint64_t{1} << t.bits) - 1;
  return u;
}
int64_t AsSigned(const IntType& t, int64_t v) {
  IntType s = t;
  s.is_signed = true;
  return Wrap(s, v);
}
__int128 Value(const IntType& t, int64_t v) {
  return t.is_signed ? __int128{v} : static_cast<__int128>(static_cast<uint64_t>(v));
}
int64_t MinOf(const IntType& t) { return t.is_signed ? Wrap(t, __int128{1} << (t.bits - 1)) : 0; }

std::vector<int64_t> IntInputs(const IntType& t) {
  std::vector<int64_t> v;
  for (__int128 x : std::initializer_list<__int128>{0, 1, 2, 3, 5, 7, -1, -2, -3, 8, 15, 16, 31, 32, 33, 63, 64,
                                            65, 100, 127, 128, 255, 1000, 65535, 1 << 20}) {
    v.push_back(Wrap(t, x));
  }
  v.push_back(MinOf(t));
  v.push_back(Wrap(t, (__int128{1} << (t.bits - 1)) - 1));
  v.push_back(Wrap(t, -(__int128{1} << (t.bits - 1)) + 1));
  std::mt19937_64 rng(3);
  for (int i = 0; i < 40; ++i) v.push_back(Wrap(t, static_cast<int64_t>(rng())));
  return v;
}

std::vector<uint8_t> Pack(const IntType& t, const std::vector<int64_t>& v) {
  const int w = ByteWidth(t.type);
  std::vector<uint8_t> out(v.size() * w);
  for (size_t i = 0; i < v.size(); ++i) std::memcpy(&out[i * w], &v[i], w);  // little endian
  return out;
}
int64_t Unpack(const IntType& t, const std::vector<uint8_t>& buf, size_t i) {
  const int w = ByteWidth(t.type);
  uint64_t raw = 0;
  std::memcpy(&raw, &buf[i * w], w);
  return Wrap(t, static_cast<__int128>(raw));
}

int64_t RefIntBinary(HloOpcode op, const IntType& t, int64_t a, int64_t b) {
  const __int128 x = Value(t, a), y = Value(t, b);
  const uint64_t count = AsUnsigned(t, b);
  switch (op) {
    case HloOpcode::kAdd:
      return Wrap(t, x + y);
    case HloOpcode::kSubtract:
      return Wrap(t, x - y);
    case HloOpcode::kMultiply:
      return Wrap(t, static_cast<__int128>(static_cast<unsigned __int128>(x) * static_cast<unsigned __int128>(y)));
    case HloOpcode::kDivide:
      if (y == 0) return Wrap(t, -1);
      if (t.is_signed && a == MinOf(t) && y == -1) return MinOf(t);
      return Wrap(t, x / y);
    case HloOpcode::kRemainder:
      if (y == 0) return a;
      if (t.is_signed && a == MinOf(t) && y == -1) return 0;
      return Wrap(t, x % y);
    case HloOpcode::kMaximum:
      return x >= y ? a : b;
    case HloOpcode::kMinimum:
      return x <= y ? a : b;
    case HloOpcode::kAnd:
      return Wrap(t, x & y);
    case HloOpcode::kOr:
      return Wrap(t, x | y);
    case HloOpcode::kXor:
      return Wrap(t, x ^ y);
    case HloOpcode::kShiftLeft:
      return count >= static_cast<uint64_t>(t.bits) ? 0 : Wrap(t, x << count);
    case HloOpcode::kShiftRightLogical:
      return count >= static_cast<uint64_t>(t.bits) ? 0 : Wrap(t, AsUnsigned(t, a) >> count);
    case HloOpcode::kShiftRightArithmetic: {
      const int64_t s = AsSigned(t, a);
      if (count >= static_cast<uint64_t>(t.bits)) return Wrap(t, s < 0 ? -1 : 0);
      return Wrap(t, s >> count);
    }
    case HloOpcode::kPower: {
      // The exponent's low 6 bits by repeated multiplication; negative
      // exponents (read as signed) give 1 for base 1, else 0.
      if (AsSigned(t, b) < 0) return x == 1 ? 1 : 0;
      __int128 r = 1;
      for (uint64_t i = 0; i < (count & 63); ++i) r = Wrap(t, static_cast<__int128>(static_cast<unsigned __int128>(r) * static_cast<unsigned __int128>(x)));
      return Wrap(t, r);
    }
    case HloOpcode::kMulhi: {
      if (t.bits == 64) {
        if (t.is_signed) return static_cast<int64_t>((x * y) >> 64);
        const unsigned __int128 p = static_cast<unsigned __int128>(static_cast<uint64_t>(a)) * static_cast<uint64_t>(b);
        return static_cast<int64_t>(static_cast<uint64_t>(p >> 64));
      }
      return Wrap(t, (x * y) >> t.bits);
    }
    default:
      return 0;
  }
}

TEST(ElementwiseIntTest, BinaryMatchesReference) {
  const std::vector<HloOpcode> ops = {
      HloOpcode::kAdd, HloOpcode::kSubtract, HloOpcode::kMultiply, HloOpcode::kDivide,
      HloOpcode::kRemainder, HloOpcode::kMaximum, HloOpcode::kMinimum, HloOpcode::kAnd,
      HloOpcode::kOr, HloOpcode::kXor, HloOpcode::kShiftLeft, HloOpcode::kShiftRightLogical,
      HloOpcode::kShiftRightArithmetic, HloOpcode::kPower, HloOpcode::kMulhi};
  for (const IntType& t : IntTypes()) {
    SCOPED_TRACE(std::string(ElementTypeName(t.type)));
    const std::vector<int64_t> base = IntInputs(t);
    std::vector<int64_t> a, b;
    for (int64_t x : base) {
      for (int64_t y : base) {
        a.push_back(x);
        b.push_back(y);
      }
    }
    const std::vector<uint8_t> pa = Pack(t, a), pb = Pack(t, b);
    std::vector<uint8_t> out(pa.size());
    for (HloOpcode op : ops) {
      SCOPED_TRACE(std::string(HloOpcodeName(op)));
      auto kernel = SelectBinaryKernel(op, t.type, t.type);
      ASSERT_TRUE(kernel.ok()) << kernel.status();
      (*kernel)(pa.data(), pb.data(), out.data(), static_cast<int64_t>(a.size()));
      int failures = 0;
      for (size_t i = 0; i < a.size() && failures < 5; ++i) {
        const int64_t e = RefIntBinary(op, t, a[i], b[i]);
        const int64_t g = Unpack(t, out, i);
        if (e != g) {
          ++failures;
          ADD_FAILURE() << a[i] << " op " << b[i] << " got " << g << " expected " << e;
        }
      }
    }
  }
}

TEST(ElementwiseIntTest, UnaryMatchesReference) {
  for (const IntType& t : IntTypes()) {
    SCOPED_TRACE(std::string(ElementTypeName(t.type)));
    const std::vector<int64_t> in = IntInputs(t);
    const std::vector<uint8_t> packed = Pack(t, in);
    std::vector<uint8_t> out(packed.size());
    struct C {
      HloOpcode op;
      std::function<int64_t(int64_t)> ref;
    };
    const std::vector<C> cases = {
        {HloOpcode::kAbs, [&](int64_t x) { return Wrap(t, Value(t, x) < 0 ? -Value(t, x) : Value(t, x)); }},
        {HloOpcode::kNegate, [&](int64_t x) { return Wrap(t, -Value(t, x)); }},
        {HloOpcode::kSign, [&](int64_t x) { return Wrap(t, Value(t, x) < 0 ? -1 : Value(t, x) > 0 ? 1 : 0); }},
        {HloOpcode::kNot, [&](int64_t x) { return Wrap(t, ~Value(t, x)); }},
        {HloOpcode::kClz,
         [&](int64_t x) {
           const uint64_t u = AsUnsigned(t, x);
           int n = 0;
           for (int bit = t.bits - 1; bit >= 0 && !((u >> bit) & 1); --bit) ++n;
           return Wrap(t, n);  // the count is a value of the same type
         }},
        {HloOpcode::kPopulationCount,
         [&](int64_t x) {
           const uint64_t u = AsUnsigned(t, x);
           int n = 0;
           for (int bit = 0; bit < t.bits; ++bit) n += (u >> bit) & 1;
           return Wrap(t, n);
         }},
    };
    for (const C& c : cases) {
      SCOPED_TRACE(std::string(HloOpcodeName(c.op)));
      auto kernel = SelectUnaryKernel(c.op, t.type, t.type);
      ASSERT_TRUE(kernel.ok()) << kernel.status();
      (*kernel)(packed.data(), out.data(), static_cast<int64_t>(in.size()));
      for (size_t i = 0; i < in.size(); ++i) {
        EXPECT_EQ(Unpack(t, out, i), c.ref(in[i])) << "x=" << in[i];
      }
    }
  }
}

TEST(ElementwiseIntTest, SubByteResultsAreSignExtended) {
  const std::vector<int8_t> a = {7, -8, 3}, b = {1, -1, 0};
  std::vector<int8_t> out(3);
  auto add = SelectBinaryKernel(HloOpcode::kAdd, ET::kS4, ET::kS4);
  ASSERT_TRUE(add.ok());
  (*add)(a.data(), b.data(), out.data(), 3);
  EXPECT_EQ(out, (std::vector<int8_t>{-8, 7, 3}));
}

TEST(ElementwiseIntTest, PredOps) {
  const std::vector<uint8_t> a = {0, 0, 1, 1}, b = {0, 1, 0, 1};
  std::vector<uint8_t> out(4);
  struct C {
    HloOpcode op;
    std::vector<uint8_t> expected;
  };
  for (const C& c : std::vector<C>{{HloOpcode::kAnd, {0, 0, 0, 1}},
                                   {HloOpcode::kOr, {0, 1, 1, 1}},
                                   {HloOpcode::kXor, {0, 1, 1, 0}},
                                   {HloOpcode::kAdd, {0, 1, 1, 1}},
                                   {HloOpcode::kMultiply, {0, 0, 0, 1}},
                                   {HloOpcode::kMaximum, {0, 1, 1, 1}},
                                   {HloOpcode::kMinimum, {0, 0, 0, 1}}}) {
    auto kernel = SelectBinaryKernel(c.op, ET::kPred, ET::kPred);
    ASSERT_TRUE(kernel.ok());
    (*kernel)(a.data(), b.data(), out.data(), 4);
    EXPECT_EQ(out, c.expected) << HloOpcodeName(c.op);
  }
  auto not_kernel = SelectUnaryKernel(HloOpcode::kNot, ET::kPred, ET::kPred);
  ASSERT_TRUE(not_kernel.ok());
  (*not_kernel)(a.data(), out.data(), 4);
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 1, 0, 0}));
}

//===----------------------------------------------------------------------===//
// Compare
//===----------------------------------------------------------------------===//

bool RefCompare(ComparisonDirection d, LD a, LD b) {
  switch (d) {
    case ComparisonDirection::kEq:
      return a == b;
    case ComparisonDirection::kNe:
      return a != b;
    case ComparisonDirection::kGe:
      return a >= b;
    case ComparisonDirection::kGt:
      return a > b;
    case ComparisonDirection::kLe:
      return a <= b;
    case ComparisonDirection::kLt:
      return a < b;
  }
  return false;
}

// Total order rank: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN.
LD TotalRank(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, 8);
  const uint64_t mag = bits & ~(uint64_t{1} << 63);
  return (bits >> 63) ? -static_cast<LD>(mag) - 1 : static_cast<LD>(mag);
}

TEST(ElementwiseCompareTest, AllDirectionsAndTypes) {
  const std::vector<ComparisonDirection> dirs = {
      ComparisonDirection::kEq, ComparisonDirection::kNe, ComparisonDirection::kGe,
      ComparisonDirection::kGt, ComparisonDirection::kLe, ComparisonDirection::kLt};
  // Floats (f64 and f32) with FLOAT and TOTALORDER.
  const std::vector<double> fv = {0.0, -0.0, 1, -1, INFINITY, -INFINITY, NAN, -NAN, 1e-310, 2.5};
  std::vector<double> a, b;
  for (double x : fv) {
    for (double y : fv) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());
  std::vector<uint8_t> out(a.size());
  for (ComparisonDirection d : dirs) {
    for (ComparisonType ct : {ComparisonType::kDefault, ComparisonType::kFloat, ComparisonType::kTotalOrder}) {
      for (ET t : {ET::kF64, ET::kF32}) {
        auto kernel = SelectBinaryKernel(HloOpcode::kCompare, t, ET::kPred, d, ct);
        ASSERT_TRUE(kernel.ok()) << kernel.status();
        if (t == ET::kF64) {
          (*kernel)(a.data(), b.data(), out.data(), static_cast<int64_t>(a.size()));
        } else {
          (*kernel)(af.data(), bf.data(), out.data(), static_cast<int64_t>(a.size()));
        }
        for (size_t i = 0; i < a.size(); ++i) {
          const double x = t == ET::kF64 ? a[i] : static_cast<double>(af[i]);
          const double y = t == ET::kF64 ? b[i] : static_cast<double>(bf[i]);
          const bool e = ct == ComparisonType::kTotalOrder ? RefCompare(d, TotalRank(x), TotalRank(y))
                                                           : RefCompare(d, x, y);
          EXPECT_EQ(out[i], e ? 1 : 0) << x << " vs " << y << " dir " << static_cast<int>(d)
                                       << " type " << static_cast<int>(ct);
        }
      }
    }
  }
  // Integers: signed and unsigned order.
  for (const IntType& t : IntTypes()) {
    const std::vector<int64_t> base = IntInputs(t);
    std::vector<int64_t> x, y;
    for (size_t i = 0; i < 12; ++i) {
      for (size_t j = 0; j < base.size(); ++j) {
        x.push_back(base[i]);
        y.push_back(base[j]);
      }
    }
    const std::vector<uint8_t> px = Pack(t, x), py = Pack(t, y);
    std::vector<uint8_t> res(x.size());
    for (ComparisonDirection d : dirs) {
      auto kernel = SelectBinaryKernel(HloOpcode::kCompare, t.type, ET::kPred, d,
                                       t.is_signed ? ComparisonType::kSigned : ComparisonType::kUnsigned);
      ASSERT_TRUE(kernel.ok());
      (*kernel)(px.data(), py.data(), res.data(), static_cast<int64_t>(x.size()));
      for (size_t i = 0; i < x.size(); ++i) {
        EXPECT_EQ(res[i], RefCompare(d, static_cast<LD>(Value(t, x[i])), static_cast<LD>(Value(t, y[i]))) ? 1 : 0);
      }
    }
  }
  // Complex: EQ and NE only.
  EXPECT_FALSE(SelectBinaryKernel(HloOpcode::kCompare, ET::kC64, ET::kPred, ComparisonDirection::kLt).ok());
  const std::vector<std::complex<float>> ca = {{1, 2}, {1, 2}, {NAN, 0}}, cb = {{1, 2}, {1, 3}, {NAN, 0}};
  std::vector<uint8_t> cres(3);
  auto ne = SelectBinaryKernel(HloOpcode::kCompare, ET::kC64, ET::kPred, ComparisonDirection::kNe);
  ASSERT_TRUE(ne.ok());
  (*ne)(ca.data(), cb.data(), cres.data(), 3);
  EXPECT_EQ(cres, (std::vector<uint8_t>{0, 1, 1}));
  // A comparison type that does not fit the element type is rejected.
  EXPECT_FALSE(SelectBinaryKernel(HloOpcode::kCompare, ET::kF32, ET::kPred, ComparisonDirection::kLt,
                                  ComparisonType::kSigned)
                   .ok());
}

TEST(ElementwiseCompareTest, NarrowFloatTotalOrder) {
  // bf16: -nan, -inf, -1, -0, +0, 1, inf, nan.
  const std::vector<uint16_t> v = {0xffc0, 0xff80, 0xbf80, 0x8000, 0x0000, 0x3f80, 0x7f80, 0x7fc0};
  std::vector<uint16_t> a, b;
  for (uint16_t x : v) {
    for (uint16_t y : v) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  std::vector<uint8_t> out(a.size());
  auto lt = SelectBinaryKernel(HloOpcode::kCompare, ET::kBF16, ET::kPred, ComparisonDirection::kLt,
                               ComparisonType::kTotalOrder);
  ASSERT_TRUE(lt.ok());
  (*lt)(a.data(), b.data(), out.data(), static_cast<int64_t>(a.size()));
  for (size_t i = 0; i < v.size(); ++i) {
    for (size_t j = 0; j < v.size(); ++j) EXPECT_EQ(out[i * v.size() + j], i < j ? 1 : 0) << i << "," << j;
  }
}

//===----------------------------------------------------------------------===//
// select, clamp, reduce-precision, bitcast-convert
//===----------------------------------------------------------------------===//

TEST(ElementwiseTernaryTest, SelectAndClamp) {
  const std::vector<uint8_t> p = {1, 0, 1, 0, 0};
  const std::vector<int64_t> t = {1, 2, 3, 4, 5}, f = {-1, -2, -3, -4, -5};
  std::vector<int64_t> out(5);
  auto select = SelectTernaryKernel(HloOpcode::kSelect, ET::kS64);
  ASSERT_TRUE(select.ok());
  (*select)(p.data(), t.data(), f.data(), out.data(), 5, 0);
  EXPECT_EQ(out, (std::vector<int64_t>{1, -2, 3, -4, -5}));
  (*select)(p.data(), t.data(), f.data(), out.data(), 5, 1);  // scalar pred
  EXPECT_EQ(out, t);
  (*select)(p.data(), t.data(), f.data(), out.data(), 5, 4);  // scalar on_false
  EXPECT_EQ(out, (std::vector<int64_t>{1, -1, 3, -1, -1}));

  const std::vector<std::complex<double>> ct = {{1, 2}, {3, 4}}, cf = {{5, 6}, {7, 8}};
  std::vector<std::complex<double>> cout(2);
  auto cselect = SelectTernaryKernel(HloOpcode::kSelect, ET::kC128);
  ASSERT_TRUE(cselect.ok());
  (*cselect)(p.data(), ct.data(), cf.data(), cout.data(), 2, 0);
  EXPECT_EQ(cout[0], ct[0]);
  EXPECT_EQ(cout[1], cf[1]);

  // clamp(lo, x, hi) with scalar bounds, NaN propagating like max/min.
  const float lo = -1, hi = 2;
  const std::vector<float> x = {-5, 0.5f, 7, NAN, -0.0f};
  std::vector<float> y(5);
  auto clamp = SelectTernaryKernel(HloOpcode::kClamp, ET::kF32);
  ASSERT_TRUE(clamp.ok());
  (*clamp)(&lo, x.data(), &hi, y.data(), 5, 5);
  EXPECT_EQ(y[0], -1);
  EXPECT_EQ(y[1], 0.5f);
  EXPECT_EQ(y[2], 2);
  EXPECT_TRUE(std::isnan(y[3]));
  EXPECT_EQ(y[4], 0);
  const std::vector<int8_t> xi = {-8, 3, 7}, loi = {-2, -2, -2}, hii = {5, 1, 5};
  std::vector<int8_t> yi(3);
  auto clamp4 = SelectTernaryKernel(HloOpcode::kClamp, ET::kS4);
  ASSERT_TRUE(clamp4.ok());
  (*clamp4)(loi.data(), xi.data(), hii.data(), yi.data(), 3, 0);
  EXPECT_EQ(yi, (std::vector<int8_t>{-2, 1, 5}));
}

// bf16 and f16 clamp (decoded to f32 in blocks) gives the bits of the f32
// clamp of the decoded values, rounded back, for every x bit pattern and
// bounds that include NaN, signed zeros and infinities; scalar and array
// bounds.
TEST(ElementwiseTernaryTest, NarrowFloatClampMatchesF32ClampBitForBit) {
  auto f32_clamp = SelectTernaryKernel(HloOpcode::kClamp, ET::kF32);
  ASSERT_TRUE(f32_clamp.ok());
  struct Narrow {
    ET type;
    float (*decode)(uint16_t);
    uint16_t (*encode)(float);
  };
  for (const Narrow& t : {Narrow{ET::kBF16, &BFloat16ToFloat, &FloatToBFloat16},
                          Narrow{ET::kF16, &HalfToFloat, &FloatToHalf}}) {
    auto clamp = SelectTernaryKernel(HloOpcode::kClamp, t.type);
    ASSERT_TRUE(clamp.ok());
    std::vector<uint16_t> x(65536), y(65536), lo_arr(65536), hi_arr(65536);
    std::vector<float> xf(65536), lof(65536), hif(65536), yf(65536);
    for (int i = 0; i < 65536; ++i) x[i] = static_cast<uint16_t>(i), xf[i] = t.decode(x[i]);
    const std::vector<std::pair<float, float>> bounds = {
        {0, 6}, {-1, 2}, {-0.0f, 0.0f}, {NAN, 1}, {-1, NAN}, {-INFINITY, INFINITY}, {3, -3}};
    for (const auto& [lo_v, hi_v] : bounds) {
      const uint16_t lo = t.encode(lo_v), hi = t.encode(hi_v);
      const float lo_f = t.decode(lo), hi_f = t.decode(hi);
      (*clamp)(&lo, x.data(), &hi, y.data(), 65536, 5);
      (*f32_clamp)(&lo_f, xf.data(), &hi_f, yf.data(), 65536, 5);
      for (int i = 0; i < 65536; ++i) {
        ASSERT_EQ(y[i], t.encode(yf[i])) << "x bits " << i << " bounds " << lo_v << ", " << hi_v;
      }
      // The same bounds as arrays, and x as the scalar operand.
      std::fill(lo_arr.begin(), lo_arr.end(), lo);
      std::fill(hi_arr.begin(), hi_arr.end(), hi);
      std::vector<uint16_t> y_arr(65536);
      (*clamp)(lo_arr.data(), x.data(), hi_arr.data(), y_arr.data(), 65536, 0);
      EXPECT_EQ(y_arr, y);
      for (int i = 0; i < 65536; ++i) lo_arr[i] = x[i], lof[i] = xf[i];
      uint16_t one = t.encode(1.0f);
      const float one_f = 1.0f;
      (*clamp)(lo_arr.data(), &one, &hi, y_arr.data(), 65536, 6);
      (*f32_clamp)(lof.data(), &one_f, &hi_f, yf.data(), 65536, 6);
      for (int i = 0; i < 65536; ++i) ASSERT_EQ(y_arr[i], t.encode(yf[i])) << "lo bits " << i;
    }
  }
}

TEST(ElementwiseReducePrecisionTest, MatchesNarrowRounding) {
  std::mt19937 rng(11);
  std::vector<float> in;
  for (int i = 0; i < 20000; ++i) {
    const uint32_t bits = rng();
    float f;
    std::memcpy(&f, &bits, 4);
    if (std::isfinite(f)) in.push_back(f);
  }
  std::vector<float> out(in.size());
  auto bf16 = SelectReducePrecisionKernel(ET::kF32, 8, 7);
  ASSERT_TRUE(bf16.ok());
  (*bf16)(in.data(), out.data(), static_cast<int64_t>(in.size()));
  for (size_t i = 0; i < in.size(); ++i) {
    const float e = BFloat16ToFloat(FloatToBFloat16(in[i]));
    EXPECT_EQ(UlpDistance(out[i], e), 0) << in[i];
  }
  auto f16 = SelectReducePrecisionKernel(ET::kF32, 5, 10);
  ASSERT_TRUE(f16.ok());
  (*f16)(in.data(), out.data(), static_cast<int64_t>(in.size()));
  for (size_t i = 0; i < in.size(); ++i) {
    const float a = std::fabs(in[i]);
    if (a >= 6.103515625e-05f && a < 65504) {
      EXPECT_EQ(out[i], HalfToFloat(FloatToHalf(in[i]))) << in[i];
    } else if (a >= 65520) {
      EXPECT_TRUE(std::isinf(out[i])) << in[i];
    } else if (a < 3e-5f) {
      EXPECT_EQ(out[i], 0) << in[i];
    }
  }
  const std::vector<float> specials = {NAN, INFINITY, -INFINITY};
  std::vector<float> sout(3);
  (*f16)(specials.data(), sout.data(), 3);
  EXPECT_TRUE(std::isnan(sout[0]));
  EXPECT_EQ(sout[1], INFINITY);
  EXPECT_EQ(sout[2], -INFINITY);
  auto no_mantissa = SelectReducePrecisionKernel(ET::kF64, 11, 0);
  ASSERT_TRUE(no_mantissa.ok());
  const double nan = NAN;
  double r;
  (*no_mantissa)(&nan, &r, 1);
  EXPECT_TRUE(std::isinf(r));  // no mantissa bits: NaN becomes inf
  EXPECT_FALSE(SelectReducePrecisionKernel(ET::kS32, 8, 7).ok());

  // f64 to an f16-like format: the smallest subnormal flushes to zero,
  // 65505 rounds to 65504 and 65520 overflows.
  const std::vector<double> d = {INFINITY, NAN, 4.9406564584124654e-324, 0, 65505, 65520};
  std::vector<double> dout(d.size());
  auto f64_to_f16 = SelectReducePrecisionKernel(ET::kF64, 5, 10);
  ASSERT_TRUE(f64_to_f16.ok());
  (*f64_to_f16)(d.data(), dout.data(), static_cast<int64_t>(d.size()));
  EXPECT_EQ(dout[0], INFINITY);
  EXPECT_TRUE(std::isnan(dout[1]));
  EXPECT_EQ(dout[2], 0);
  EXPECT_EQ(dout[3], 0);
  EXPECT_EQ(dout[4], 65504);
  EXPECT_EQ(dout[5], INFINITY);
  // Wider formats than the operand's leave it unchanged.
  const uint16_t h = 0x3812;  // f16 0.508789062
  uint16_t hout = 0;
  auto wide = SelectReducePrecisionKernel(ET::kF16, 11, 52);
  ASSERT_TRUE(wide.ok());
  (*wide)(&h, &hout, 1);
  EXPECT_EQ(hout, h);
}

TEST(ElementwiseBitcastTest, EqualWidthsCopy) {
  const float x = 1.0f;
  uint32_t y = 0;
  auto kernel = SelectBitcastConvertKernel(ET::kF32, ET::kU32);
  ASSERT_TRUE(kernel.ok());
  (*kernel)(&x, &y, 1);
  EXPECT_EQ(y, 0x3f800000u);
  EXPECT_FALSE(SelectBitcastConvertKernel(ET::kF32, ET::kU16).ok());
}

TEST(ElementwiseSelectionTest, RejectsWhatXlaRejects) {
  EXPECT_FALSE(SelectUnaryKernel(HloOpcode::kNot, ET::kF32, ET::kF32).ok());
  EXPECT_FALSE(SelectUnaryKernel(HloOpcode::kExp, ET::kS32, ET::kS32).ok());
  EXPECT_FALSE(SelectUnaryKernel(HloOpcode::kAdd, ET::kF32, ET::kF32).ok());
  EXPECT_FALSE(SelectBinaryKernel(HloOpcode::kShiftLeft, ET::kF32, ET::kF32).ok());
  EXPECT_FALSE(SelectBinaryKernel(HloOpcode::kSubtract, ET::kPred, ET::kPred).ok());
  EXPECT_FALSE(SelectConvertKernel(ET::kC64, ET::kF32).ok());
  EXPECT_FALSE(SelectTernaryKernel(HloOpcode::kClamp, ET::kC64).ok());
}

}  // namespace
}  // namespace hlovm
