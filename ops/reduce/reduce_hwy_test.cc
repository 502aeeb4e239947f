// Runs the Highway folds of reduce_hwy.cc on every SIMD target compiled in
// and supported here (Highway's per-target test suite, hwy_gtest.h) and
// compares each with a plain scalar fold in the order the kernel documents:
// bit for bit, at every alignment and length around the vector widths.
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hwy/highway.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "ops/reduce/reduce_hwy.h"

namespace hlovm {
namespace reduce_internal {
namespace {

HWY_BEFORE_TEST(ReduceHwyTest);

template <typename T>
bool SameBits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// The sum's order: element i joins residue class i mod W (W = four 128-bit
// vectors of T; four lanes of one element on HWY_SCALAR), each class summed
// in index order from -0, then the classes combined in a pairwise tree.
template <typename T>
T ReferenceSum(const T* x, int64_t n, int64_t target) {
  const int64_t width = target == HWY_SCALAR ? 4 : 4 * static_cast<int64_t>(16 / sizeof(T));
  std::vector<T> cls(width, T(-0.0));
  for (int64_t i = 0; i < n; ++i) cls[i % width] += x[i];
  for (int64_t s = 1; s < width; s *= 2) {
    for (int64_t c = 0; c + s < width; c += 2 * s) cls[c] += cls[c + s];
  }
  return cls[0];
}

// NaN if any element is NaN; otherwise the largest (smallest), with -0
// ordered below +0.
template <typename T>
T ReferenceMaxMin(const T* x, int64_t n, bool max) {
  T r = x[0];
  for (int64_t i = 0; i < n; ++i) {
    const T v = x[i];
    if (std::isnan(v)) return std::numeric_limits<T>::quiet_NaN();
    const bool better = max ? (v > r || (v == r && !std::signbit(v)))
                            : (v < r || (v == r && std::signbit(v)));
    if (better) r = v;
  }
  return r;
}

// Values of mixed magnitude and sign, so that a different order of adds
// would round differently; some exact zeros of either sign.
template <typename T>
std::vector<T> Inputs(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-30, 30);
  std::vector<T> x(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<T>(std::ldexp(mantissa(rng), exponent(rng)));
    if (i % 37 == 5) x[i] = T(0.0);
    if (i % 41 == 7) x[i] = T(-0.0);
  }
  return x;
}

// Every length up to a few times the widest vector block, and some longer.
std::vector<int64_t> Lengths() {
  std::vector<int64_t> lengths;
  for (int64_t n = 1; n <= 150; ++n) lengths.push_back(n);
  for (int64_t n : {255, 256, 257, 1000, 4099}) lengths.push_back(n);
  return lengths;
}

TEST_P(ReduceHwyTest, RunsOnTheTargetUnderTest) {
  EXPECT_EQ(std::string(ReduceSimdTarget()), hwy::TargetName(GetParam()));
}

template <typename T>
void ExpectSum(int64_t target, T (*kernel)(const T*, int64_t)) {
  const std::vector<T> data = Inputs<T>(4099 + 16, 1);
  for (int64_t n : Lengths()) {
    for (int64_t offset = 0; offset < static_cast<int64_t>(64 / sizeof(T)); ++offset) {
      const T* x = data.data() + offset;
      const T got = kernel(x, n);
      const T want = ReferenceSum(x, n, target);
      ASSERT_TRUE(SameBits(got, want)) << "n=" << n << " offset=" << offset << " got " << got
                                       << " expected " << want;
    }
  }
  const std::vector<T> zeros(100, T(-0.0));
  EXPECT_TRUE(SameBits(kernel(zeros.data(), 100), T(-0.0)));
}

TEST_P(ReduceHwyTest, SumF32MatchesScalarOrder) { ExpectSum<float>(GetParam(), HwySumF32); }
TEST_P(ReduceHwyTest, SumF64MatchesScalarOrder) { ExpectSum<double>(GetParam(), HwySumF64); }

// Four runs at once: each sum bitwise the one-run kernel's order, with the
// runs equally aligned (rows of a row reduce) and not.
TEST_P(ReduceHwyTest, Sum4F32MatchesOneRunAtATime) {
  const std::vector<float> data = Inputs<float>(4 * 4099 + 64, 3);
  for (int64_t n : Lengths()) {
    for (int64_t offset = 0; offset < 16; ++offset) {
      for (int64_t stride : {n, n + 1, (n + 15) / 16 * 16}) {
        const float* x[4];
        for (int k = 0; k < 4; ++k) x[k] = data.data() + offset + k * stride;
        float got[4];
        HwySum4F32(x, n, got);
        for (int k = 0; k < 4; ++k) {
          const float want = ReferenceSum(x[k], n, GetParam());
          ASSERT_TRUE(SameBits(got[k], want)) << "n=" << n << " offset=" << offset << " stride="
                                              << stride << " run " << k << " got " << got[k]
                                              << " expected " << want;
        }
      }
    }
  }
}

template <typename T>
void ExpectMaxMin(T (*kernel)(const T*, int64_t), bool max) {
  std::vector<T> data = Inputs<T>(1000 + 16, 2);
  for (int64_t n : Lengths()) {
    if (n > 1000) continue;
    for (int64_t offset = 0; offset < 3; ++offset) {
      const T* x = data.data() + offset;
      const T got = kernel(x, n);
      const T want = ReferenceMaxMin(x, n, max);
      ASSERT_TRUE(SameBits(got, want)) << "n=" << n << " offset=" << offset << " got " << got
                                       << " expected " << want;
    }
  }
  // Signed zeros: +0 is the max and -0 the min, in either order, in the
  // scalar loop (short runs, and the tail after the vectors) and in the
  // vector lanes.
  for (const std::vector<T>& zeros :
       {std::vector<T>{T(-0.0), T(0.0), T(-0.0)}, std::vector<T>{T(0.0), T(-0.0), T(0.0)}}) {
    EXPECT_TRUE(SameBits(kernel(zeros.data(), 3), max ? T(0.0) : T(-0.0)));
    std::vector<T> x(67, max ? T(-0.0) : T(0.0));
    x[20] = zeros[0];
    x[50] = zeros[1];
    x[66] = max ? T(0.0) : T(-0.0);
    EXPECT_TRUE(SameBits(kernel(x.data(), 67), max ? T(0.0) : T(-0.0)));
    // Within the vector lanes the zeros are ordered too: x[66] is gone, so
    // the zero of the winning sign stands only among the vector lanes.
    EXPECT_TRUE(SameBits(kernel(x.data(), 66), max ? T(0.0) : T(-0.0)));
  }
  // A NaN anywhere, in the vector part or the tail, wins.
  for (int64_t at : {0, 3, 17, 64, 99}) {
    std::vector<T> x = Inputs<T>(100, 3);
    x[at] = std::numeric_limits<T>::quiet_NaN();
    EXPECT_TRUE(std::isnan(kernel(x.data(), 100))) << "NaN at " << at;
    x[at] = std::numeric_limits<T>::infinity();
    EXPECT_TRUE(SameBits(kernel(x.data(), 100), ReferenceMaxMin(x.data(), 100, max)));
  }
}

TEST_P(ReduceHwyTest, MaxF32MatchesScalar) { ExpectMaxMin<float>(HwyMaxF32, true); }
TEST_P(ReduceHwyTest, MinF32MatchesScalar) { ExpectMaxMin<float>(HwyMinF32, false); }
TEST_P(ReduceHwyTest, MaxF64MatchesScalar) { ExpectMaxMin<double>(HwyMaxF64, true); }
TEST_P(ReduceHwyTest, MinF64MatchesScalar) { ExpectMaxMin<double>(HwyMinF64, false); }

// Zeros of both signs in every lane position: +0 is the maximum and -0 the
// minimum wherever the other sign's zeros sit, as the lanes fold in any
// order.
TEST_P(ReduceHwyTest, MaxMinF32OrderSignedZeros) {
  for (int64_t n : {32, 100, 128}) {
    for (int64_t at = 0; at < n; ++at) {
      std::vector<float> x(n, -0.0f), y(n, 0.0f);
      x[at] = 0.0f;
      y[at] = -0.0f;
      ASSERT_TRUE(SameBits(HwyMaxF32(x.data(), n), 0.0f)) << "n=" << n << " at=" << at;
      ASSERT_TRUE(SameBits(HwyMinF32(y.data(), n), -0.0f)) << "n=" << n << " at=" << at;
      ASSERT_TRUE(SameBits(HwyMaxF32(y.data(), n), 0.0f)) << "n=" << n << " at=" << at;
      ASSERT_TRUE(SameBits(HwyMinF32(x.data(), n), -0.0f)) << "n=" << n << " at=" << at;
    }
  }
}

}  // namespace
}  // namespace reduce_internal
}  // namespace hlovm
