#include "ops/norm/batch_norm.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "ops/norm/batch_norm_hwy.h"

namespace hlovm {
namespace {

// The feature-split kernels and the row mode compute the same values (to
// rounding), and the feature-split kernels give the same bits whatever the
// grouping of feature ranges.
TEST(BatchNormTest, FeatureAndRowModesAgree) {
  const BatchNormGeometry g{300, 7, 1};
  const int64_t n = g.outer * g.features;
  std::mt19937 gen(1);
  std::normal_distribution<double> nd(2, 3);
  std::vector<double> x(n), gy(n), scale(7), offset(7);
  for (double& v : x) v = nd(gen);
  for (double& v : gy) v = nd(gen);
  for (int f = 0; f < 7; ++f) {
    scale[f] = 1 + 0.1 * f;
    offset[f] = 0.5 - 0.2 * f;
  }
  // Training, features in two groups vs all at once.
  std::vector<double> y1(n), m1(7), v1(7), y2(n), m2(7), v2(7);
  BatchNormTraining(ElementType::kF64, g, x.data(), scale.data(), offset.data(), 1e-3f, y1.data(),
                    m1.data(), v1.data(), 0, 7);
  BatchNormTraining(ElementType::kF64, g, x.data(), scale.data(), offset.data(), 1e-3f, y2.data(),
                    m2.data(), v2.data(), 0, 3);
  BatchNormTraining(ElementType::kF64, g, x.data(), scale.data(), offset.data(), 1e-3f, y2.data(),
                    m2.data(), v2.data(), 3, 7);
  EXPECT_EQ(std::memcmp(y1.data(), y2.data(), n * sizeof(double)), 0);
  EXPECT_EQ(m1, m2);
  EXPECT_EQ(v1, v2);
  // Row mode, chunks of 64 rows.
  const int64_t rpc = 64, chunks = (g.outer + rpc - 1) / rpc;
  std::vector<double> partials(chunks * 14), consts(28), y3(n), m3(7), v3(7);
  for (int64_t c = 0; c < chunks; ++c) {
    BatchNormRowPartials(ElementType::kF64, BatchNormOp::kTraining, g, rpc, c, x.data(), nullptr,
                         nullptr, partials.data() + c * 14);
  }
  BatchNormRowFinish(ElementType::kF64, BatchNormOp::kTraining, g, chunks, partials.data(),
                     scale.data(), offset.data(), nullptr, nullptr, 1e-3f, m3.data(), v3.data(),
                     consts.data());
  BatchNormRowApply(ElementType::kF64, BatchNormOp::kTraining, g, rpc, 0, chunks, x.data(), nullptr,
                    consts.data(), nullptr, 1e-3f, y3.data());
  for (int f = 0; f < 7; ++f) {
    EXPECT_NEAR(m3[f], m1[f], 1e-12);
    EXPECT_NEAR(v3[f], v1[f], 1e-10);
  }
  for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(y3[i], y1[i], 1e-10);
  // Grad in both modes.
  std::vector<double> gx1(n), gs1(7), go1(7), gx2(n), gs2(7), go2(7);
  BatchNormGrad(ElementType::kF64, g, x.data(), scale.data(), m1.data(), v1.data(), gy.data(),
                1e-3f, gx1.data(), gs1.data(), go1.data(), 0, 7);
  for (int64_t c = 0; c < chunks; ++c) {
    BatchNormRowPartials(ElementType::kF64, BatchNormOp::kGrad, g, rpc, c, x.data(), gy.data(),
                         m1.data(), partials.data() + c * 14);
  }
  BatchNormRowFinish(ElementType::kF64, BatchNormOp::kGrad, g, chunks, partials.data(),
                     scale.data(), nullptr, m1.data(), v1.data(), 1e-3f, gs2.data(), go2.data(),
                     consts.data());
  BatchNormRowApply(ElementType::kF64, BatchNormOp::kGrad, g, rpc, 0, chunks, x.data(), gy.data(),
                    consts.data(), v1.data(), 1e-3f, gx2.data());
  for (int f = 0; f < 7; ++f) {
    EXPECT_NEAR(gs2[f], gs1[f], 1e-9);
    EXPECT_NEAR(go2[f], go1[f], 1e-9);
  }
  for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(gx2[i], gx1[i], 1e-9);
  // Training's gradient with respect to x sums to zero per feature.
  for (int f = 0; f < 7; ++f) {
    double s = 0;
    for (int64_t r = 0; r < g.outer; ++r) s += gx1[r * 7 + f];
    EXPECT_NEAR(s, 0, 1e-9);
  }
}

// Variance is E[x^2] - E[x]^2 as XLA's expander computes it: with a large
// mean in f32 the cancellation shows (a two-pass variance would not).
TEST(BatchNormTest, TrainingUsesMeanOfSquaresMinusSquaredMean) {
  const BatchNormGeometry g{1, 1, 4};
  const std::vector<float> x = {10000.f, 10001.f, 10002.f, 10003.f};
  const float scale = 1, offset = 0;
  std::vector<float> y(4);
  float mean = 0, var = 0;
  BatchNormTraining(ElementType::kF32, g, x.data(), &scale, &offset, 0.f, y.data(), &mean, &var, 0, 1);
  EXPECT_EQ(mean, 10001.5f);
  float sum_sq = 0;
  for (float v : x) sum_sq += v * v;
  EXPECT_EQ(var, sum_sq / 4.f - mean * mean);
}

// The SIMD loops give the bits of the plain scalar formulas (separate
// multiplies and adds) in every lane and in the tail.
TEST(BatchNormTest, SimdLoopsMatchScalarFormulas) {
  std::printf("batch norm SIMD target: %s\n", norm_internal::BatchNormSimdTarget());
  const int n = 37;
  std::mt19937 gen(3);
  std::normal_distribution<float> nd(0.5f, 2.f);
  std::vector<float> x(n), gy(n), m(n), r(n), sc(n), of(n), ve(n), y(n), s(n, 0.f), q(n, 0.f);
  for (int i = 0; i < n; ++i) {
    x[i] = nd(gen);
    gy[i] = nd(gen);
    m[i] = nd(gen);
    r[i] = std::abs(nd(gen)) + 0.1f;
    sc[i] = nd(gen);
    of[i] = nd(gen);
    ve[i] = std::abs(nd(gen)) + 0.1f;
  }
  norm_internal::ApplyTrain(x.data(), m.data(), r.data(), sc.data(), of.data(), y.data(), n);
  for (int i = 0; i < n; ++i) {
    volatile float a = x[i] - m[i];
    volatile float b = a * r[i];
    volatile float c = b * sc[i];
    EXPECT_EQ(y[i], c + of[i]) << i;
  }
  norm_internal::ApplyGrad(x.data(), gy.data(), m.data(), r.data(), sc.data(), of.data(), ve.data(),
                           9.f, y.data(), n);
  for (int i = 0; i < n; ++i) {
    volatile float d = x[i] - m[i];
    volatile float i1 = gy[i] * 9.f;
    volatile float i12 = i1 - sc[i];
    volatile float i4 = of[i] * d;
    volatile float i5 = i4 / ve[i];
    volatile float i6 = i12 - i5;
    EXPECT_EQ(y[i], r[i] * i6) << i;
  }
  norm_internal::AccGrad(gy.data(), x.data(), m.data(), s.data(), q.data(), n);
  for (int i = 0; i < n; ++i) {
    volatile float d = x[i] - m[i];
    volatile float p = gy[i] * d;
    EXPECT_EQ(s[i], gy[i]);
    EXPECT_EQ(q[i], 0.f + p);
  }
}

}  // namespace
}  // namespace hlovm
