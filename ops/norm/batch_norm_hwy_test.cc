// Runs the Highway loops of batch_norm_hwy.cc on every SIMD target compiled
// in and supported here (Highway's per-target test suite, hwy_gtest.h) and
// compares them bit for bit with the plain scalar formulas of
// batch_norm_hwy.h: every loop multiplies and adds separately, so each
// target, its vector part and its tail give the scalar bits. (This file is
// compiled with -ffp-contract=off, as the kernels are: ops/CMakeLists.txt.)
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hwy/highway.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "ops/norm/batch_norm_hwy.h"

namespace hlovm {
namespace norm_internal {
namespace {

HWY_BEFORE_TEST(BatchNormHwyTest);

template <typename T>
std::vector<T> Values(int64_t n, uint32_t seed, bool positive = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(positive ? 0.25 : -4.0, 4.0);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(dist(rng));
  return v;
}

template <typename T>
void ExpectSameBits(const std::vector<T>& got, const std::vector<T>& want, const char* what,
                    int64_t n) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(T)), 0)
        << what << " n=" << n << " i=" << i << ": " << got[i] << " vs " << want[i];
  }
}

// Every length up to past two vectors of the widest target, and longer.
std::vector<int64_t> Lengths() {
  std::vector<int64_t> lengths;
  for (int64_t n = 0; n <= 40; ++n) lengths.push_back(n);
  lengths.push_back(1001);
  return lengths;
}

TEST_P(BatchNormHwyTest, RunsOnTheTargetUnderTest) {
  EXPECT_EQ(std::string(BatchNormSimdTarget()), hwy::TargetName(GetParam()));
}

template <typename T>
void CheckAll() {
  for (int64_t n : Lengths()) {
    const std::vector<T> x = Values<T>(n, 1), gy = Values<T>(n, 2), m = Values<T>(n, 3);
    const std::vector<T> r = Values<T>(n, 4), sc = Values<T>(n, 5), of = Values<T>(n, 6);
    const std::vector<T> coef = Values<T>(n, 7), sg = Values<T>(n, 8), sd = Values<T>(n, 9);
    const std::vector<T> ve = Values<T>(n, 10, /*positive=*/true);
    const T count = static_cast<T>(37);

    // s[i] += x[i]; q[i] += x[i] * x[i].
    std::vector<T> s = Values<T>(n, 11), q = Values<T>(n, 12);
    std::vector<T> ws = s, wq = q;
    for (int64_t i = 0; i < n; ++i) {
      ws[i] = ws[i] + x[i];
      const T sq = x[i] * x[i];
      wq[i] = wq[i] + sq;
    }
    AccSumSq(x.data(), s.data(), q.data(), n);
    ExpectSameBits(s, ws, "AccSumSq s", n);
    ExpectSameBits(q, wq, "AccSumSq q", n);

    // s[i] += gy[i]; q[i] += gy[i] * (x[i] - m[i]).
    s = Values<T>(n, 13);
    q = Values<T>(n, 14);
    ws = s;
    wq = q;
    for (int64_t i = 0; i < n; ++i) {
      ws[i] = ws[i] + gy[i];
      const T dx = x[i] - m[i];
      const T p = gy[i] * dx;
      wq[i] = wq[i] + p;
    }
    AccGrad(gy.data(), x.data(), m.data(), s.data(), q.data(), n);
    ExpectSameBits(s, ws, "AccGrad s", n);
    ExpectSameBits(q, wq, "AccGrad q", n);

    // y[i] = (x[i] - m[i]) * r[i] * sc[i] + of[i].
    std::vector<T> y(n), wy(n);
    for (int64_t i = 0; i < n; ++i) {
      const T dx = x[i] - m[i];
      const T a = dx * r[i];
      const T b = a * sc[i];
      wy[i] = b + of[i];
    }
    ApplyTrain(x.data(), m.data(), r.data(), sc.data(), of.data(), y.data(), n);
    ExpectSameBits(y, wy, "ApplyTrain", n);

    // y[i] = x[i] * s[i] + t[i] (s: sc, t: of).
    for (int64_t i = 0; i < n; ++i) {
      const T a = x[i] * sc[i];
      wy[i] = a + of[i];
    }
    ApplyInfer(x.data(), sc.data(), of.data(), y.data(), n);
    ExpectSameBits(y, wy, "ApplyInfer", n);

    // out[i] = coef[i] * ((gy[i] * count - sg[i]) - sd[i] * (x[i] - m[i]) / ve[i]).
    for (int64_t i = 0; i < n; ++i) {
      const T dx = x[i] - m[i];
      const T g = gy[i] * count;
      const T a = g - sg[i];
      const T b = sd[i] * dx;
      const T c = b / ve[i];
      const T d = a - c;
      wy[i] = coef[i] * d;
    }
    ApplyGrad(x.data(), gy.data(), m.data(), coef.data(), sg.data(), sd.data(), ve.data(), count,
              y.data(), n);
    ExpectSameBits(y, wy, "ApplyGrad", n);
  }
}

TEST_P(BatchNormHwyTest, F32LoopsMatchScalarFormulas) { CheckAll<float>(); }
TEST_P(BatchNormHwyTest, F64LoopsMatchScalarFormulas) { CheckAll<double>(); }

}  // namespace
}  // namespace norm_internal
}  // namespace hlovm
