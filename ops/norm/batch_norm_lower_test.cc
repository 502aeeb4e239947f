// End-to-end tests of batch norm through the VM: training against a direct
// computation in double, grad and inference consistency, bf16, and bitwise
// the same results with 1 and 2 threads.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "vm/vm_test_util.h"

namespace hlovm {
namespace {

using vm_test::Array;
using vm_test::Build;
using vm_test::RunWith;
using vm_test::Values;

TEST(LowerNorm, TrainingMatchesReferenceAndThreadCounts) {
  // NCHW with many features: split across threads.
  const int n = 8, c = 64, hw = 100;
  auto exe = Build(R"(
HloModule m
ENTRY e {
  x = f32[8,64,100] parameter(0)
  s = f32[64] parameter(1)
  o = f32[64] parameter(2)
  ROOT t = (f32[8,64,100], f32[64], f32[64]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1
})");
  ASSERT_NE(exe, nullptr);
  std::mt19937 gen(5);
  std::normal_distribution<float> nd(1.f, 2.f);
  std::vector<float> x(n * c * hw), s(c), o(c);
  for (float& v : x) v = nd(gen);
  for (int f = 0; f < c; ++f) {
    s[f] = 0.5f + f * 0.01f;
    o[f] = -0.25f + f * 0.02f;
  }
  Literal lx = Array(ElementType::kF32, {n, c, hw}, x), ls = Array(ElementType::kF32, {c}, s),
          lo = Array(ElementType::kF32, {c}, o);
  Literal one = RunWith(*exe, {&lx, &ls, &lo}, 1);
  Literal two = RunWith(*exe, {&lx, &ls, &lo}, 2);
  ASSERT_EQ(one.tuple_elements().size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const auto a = Values<float>(one.tuple_elements()[i]);
    const auto b = Values<float>(two.tuple_elements()[i]);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << "result " << i;
  }
  const auto y = Values<float>(one.tuple_elements()[0]);
  const auto mean = Values<float>(one.tuple_elements()[1]);
  const auto var = Values<float>(one.tuple_elements()[2]);
  for (int f = 0; f < c; ++f) {
    double sum = 0, sq = 0;
    for (int b = 0; b < n; ++b) {
      for (int i = 0; i < hw; ++i) {
        const double v = x[(b * c + f) * hw + i];
        sum += v;
        sq += v * v;
      }
    }
    const double m = sum / (n * hw), v = sq / (n * hw) - m * m;
    EXPECT_NEAR(mean[f], m, 1e-5);
    EXPECT_NEAR(var[f], v, 1e-4);
    for (int b : {0, n - 1}) {
      const int at = (b * c + f) * hw + 3;
      EXPECT_NEAR(y[at], (x[at] - m) / std::sqrt(v + 0.001) * s[f] + o[f], 1e-4);
    }
  }
}

TEST(LowerNorm, InferenceAndGradNhwc) {
  auto exe = Build(R"(
HloModule m
ENTRY e {
  x = f64[4,3] parameter(0)
  s = f64[3] parameter(1)
  o = f64[3] parameter(2)
  m = f64[3] parameter(3)
  v = f64[3] parameter(4)
  i = f64[4,3] batch-norm-inference(x, s, o, m, v), epsilon=0.5, feature_index=1
  g = (f64[4,3], f64[3], f64[3]) batch-norm-grad(x, s, m, v, x), epsilon=0.5, feature_index=1
  g0 = f64[4,3] get-tuple-element(g), index=0
  g1 = f64[3] get-tuple-element(g), index=1
  g2 = f64[3] get-tuple-element(g), index=2
  ROOT t = (f64[4,3], f64[4,3], f64[3], f64[3]) tuple(i, g0, g1, g2)
})");
  ASSERT_NE(exe, nullptr);
  const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const std::vector<double> s = {1, 2, 0.5}, o = {0, 1, -1}, m = {5.5, 6.5, 7.5}, v = {11.25, 11.25, 11.25};
  Literal lx = Array(ElementType::kF64, {4, 3}, x), ls = Array(ElementType::kF64, {3}, s),
          lo = Array(ElementType::kF64, {3}, o), lm = Array(ElementType::kF64, {3}, m),
          lv = Array(ElementType::kF64, {3}, v);
  Literal r = RunWith(*exe, {&lx, &ls, &lo, &lm, &lv}, 1);
  ASSERT_EQ(r.tuple_elements().size(), 4u);
  const auto inf = Values<double>(r.tuple_elements()[0]);
  const auto gx = Values<double>(r.tuple_elements()[1]);
  const auto gs = Values<double>(r.tuple_elements()[2]);
  const auto go = Values<double>(r.tuple_elements()[3]);
  for (int i = 0; i < 12; ++i) {
    const int f = i % 3;
    EXPECT_NEAR(inf[i], (x[i] - m[f]) / std::sqrt(v[f] + 0.5) * s[f] + o[f], 1e-12);
  }
  for (int f = 0; f < 3; ++f) {
    double sg = 0, sd = 0;
    for (int b = 0; b < 4; ++b) {
      sg += x[b * 3 + f];
      sd += x[b * 3 + f] * (x[b * 3 + f] - m[f]);
    }
    EXPECT_NEAR(go[f], sg, 1e-12);
    EXPECT_NEAR(gs[f], sd / std::sqrt(v[f] + 0.5), 1e-12);
    for (int b = 0; b < 4; ++b) {
      const double d = x[b * 3 + f] - m[f];
      const double want = s[f] / std::sqrt(v[f] + 0.5) / 4 * (4 * x[b * 3 + f] - sg - d * sd / (v[f] + 0.5));
      EXPECT_NEAR(gx[b * 3 + f], want, 1e-12);
    }
  }
}

TEST(LowerNorm, Bf16ComputesInF32) {
  auto exe = Build(R"(
HloModule m
ENTRY e {
  x = bf16[2,2] constant({{1, 2}, {3, 5}})
  s = bf16[2] constant({1, 1})
  o = bf16[2] constant({0, 0})
  ROOT t = (bf16[2,2], bf16[2], bf16[2]) batch-norm-training(x, s, o), epsilon=0, feature_index=1
})");
  ASSERT_NE(exe, nullptr);
  Literal r = RunWith(*exe, {}, 1);
  ASSERT_EQ(r.tuple_elements().size(), 3u);
  // Features {1,3} and {2,5}: means 2 and 3.5, variances 1 and 2.25.
  EXPECT_EQ(r.tuple_elements()[1].ToString().find("2, 3.5") != std::string::npos, true)
      << r.tuple_elements()[1].ToString();
  EXPECT_EQ(r.tuple_elements()[2].ToString().find("1, 2.25") != std::string::npos, true)
      << r.tuple_elements()[2].ToString();
  EXPECT_NE(r.tuple_elements()[0].ToString().find("-1, -1"), std::string::npos)
      << r.tuple_elements()[0].ToString();
}

TEST(LowerNorm, RejectsIntegerOperands) {
  auto exe = Executable::FromText(R"(
HloModule m
ENTRY e {
  x = s32[2,2] parameter(0)
  s = s32[2] parameter(1)
  ROOT t = (s32[2,2], s32[2], s32[2]) batch-norm-training(x, s, s), epsilon=0, feature_index=1
})");
  EXPECT_FALSE(exe.ok());
}

}  // namespace
}  // namespace hlovm
