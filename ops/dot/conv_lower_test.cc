// End-to-end tests of convolution through the VM: large NHWC, NCHW and
// depthwise convolutions that split across threads give the same bits for
// 1, 2 and 4 threads and match a double-precision direct loop; the sharding
// custom calls are the identity on one device and an unknown target is an
// error naming it.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "vm/api.h"
#include "vm/vm_test_util.h"

namespace hlovm {
namespace {

using vm_test::Array;
using vm_test::Build;
using vm_test::RunWith;
using vm_test::Values;

// NHWC / HWIO, same padding, groups `g`, computed in double.
std::vector<double> RefNhwc(const std::vector<float>& in, const std::vector<float>& k, int64_t n,
                            int64_t h, int64_t w, int64_t c, int64_t o, int64_t g) {
  const int64_t cg = c / g, og = o / g;
  std::vector<double> r(static_cast<size_t>(n * h * w * o), 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t f = 0; f < o; ++f) {
          double acc = 0;
          for (int64_t ky = 0; ky < 3; ++ky)
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t iy = y + ky - 1, ix = x + kx - 1;
              if (iy < 0 || ix < 0 || iy >= h || ix >= w) continue;
              for (int64_t ci = 0; ci < cg; ++ci) {
                acc += double(in[((b * h + iy) * w + ix) * c + f / og * cg + ci]) *
                       double(k[((ky * 3 + kx) * cg + ci) * o + f]);
              }
            }
          r[((b * h + y) * w + x) * o + f] = acc;
        }
  return r;
}

void CheckNhwc(int64_t g, int64_t c, int64_t o) {
  const int64_t n = 2, h = 30, w = 28;
  const std::string text = "HloModule m\nENTRY e {\n  a = f32[2,30,28," + std::to_string(c) +
                           "] parameter(0)\n  b = f32[3,3," + std::to_string(c / g) + "," +
                           std::to_string(o) + "] parameter(1)\n  ROOT r = f32[2,30,28," +
                           std::to_string(o) +
                           "] convolution(a, b), window={size=3x3 pad=1_1x1_1}, "
                           "dim_labels=b01f_01io->b01f, feature_group_count=" +
                           std::to_string(g) + "\n}\n";
  auto exe = Build(text);
  ASSERT_NE(exe, nullptr);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> in(n * h * w * c), k(9 * (c / g) * o);
  for (auto& x : in) x = dist(rng);
  for (auto& x : k) x = dist(rng);
  const Literal la = Array(ElementType::kF32, {n, h, w, c}, in);
  const Literal lb = Array(ElementType::kF32, {3, 3, c / g, o}, k);
  const auto r1 = Values<float>(RunWith(*exe, {&la, &lb}, 1));
  const auto r2 = Values<float>(RunWith(*exe, {&la, &lb}, 2));
  const auto r4 = Values<float>(RunWith(*exe, {&la, &lb}, 4));
  ASSERT_EQ(r1.size(), r2.size());
  EXPECT_EQ(0, std::memcmp(r1.data(), r2.data(), r1.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(r1.data(), r4.data(), r1.size() * sizeof(float)));
  const auto ref = RefNhwc(in, k, n, h, w, c, o, g);
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(r1[i], ref[i], 1e-4) << i;
}

TEST(LowerConvTest, NhwcGemmPathSameBitsAnyThreadCount) { CheckNhwc(1, 32, 24); }
TEST(LowerConvTest, DepthwiseSameBitsAnyThreadCount) { CheckNhwc(48, 48, 48); }
TEST(LowerConvTest, GroupedSameBitsAnyThreadCount) { CheckNhwc(4, 32, 16); }

// A window over the whole input (a weight gradient, fb01_io01->01bf) runs
// as a dot: the same values as the dot written out.
TEST(LowerConvTest, WholeWindowConvolutionIsTheDot) {
  auto conv = Build(R"(HloModule m
ENTRY e {
  a = f32[6,5,7,9] parameter(0)
  b = f32[6,4,7,9] parameter(1)
  ROOT r = f32[1,1,5,4] convolution(a, b), window={size=7x9}, dim_labels=fb01_io01->01bf
})");
  auto swapped = Build(R"(HloModule m
ENTRY e {
  a = f32[6,5,7,9] parameter(0)
  b = f32[6,4,7,9] parameter(1)
  ROOT r = f32[1,1,4,5] convolution(a, b), window={size=7x9}, dim_labels=fb01_io01->01fb
})");
  auto dot = Build(R"(HloModule m
ENTRY e {
  a = f32[6,5,7,9] parameter(0)
  b = f32[6,4,7,9] parameter(1)
  ROOT r = f32[5,4] dot(a, b), lhs_contracting_dims={0,2,3}, rhs_contracting_dims={0,2,3}
})");
  ASSERT_NE(conv, nullptr);
  ASSERT_NE(swapped, nullptr);
  ASSERT_NE(dot, nullptr);
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> dist(-4, 4);
  std::vector<float> av(6 * 5 * 7 * 9), bv(6 * 4 * 7 * 9);
  for (float& v : av) v = static_cast<float>(dist(rng));
  for (float& v : bv) v = static_cast<float>(dist(rng));
  Literal a = Array<float>(ElementType::kF32, {6, 5, 7, 9}, av);
  Literal b = Array<float>(ElementType::kF32, {6, 4, 7, 9}, bv);
  auto want = dot->Execute({&a, &b});
  auto got = conv->Execute({&a, &b});
  auto got_t = swapped->Execute({&a, &b});
  ASSERT_TRUE(want.ok() && got.ok() && got_t.ok());
  const std::vector<float> w = Values<float>(*want);
  EXPECT_EQ(Values<float>(*got), w);
  const std::vector<float> t = Values<float>(*got_t);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(t[j * 5 + i], w[i * 4 + j]) << i << "," << j;
}

TEST(LowerConvTest, ShardingCustomCallsAreTheIdentity) {
  auto exe = Build(R"(
HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  s = f32[2,3] custom-call(a), custom_call_target="Sharding", sharding={devices=[2,1]0,1}
  f = f32[2,3] custom-call(s), custom_call_target="SPMDFullToShardShape", sharding={manual}
  ROOT t = f32[2,3] custom-call(f), custom_call_target="SPMDShardToFullShape", sharding={replicated}
})");
  ASSERT_NE(exe, nullptr);
  const std::vector<float> v = {1, -2, 3.5f, 0, -0.0f, 7};
  const Literal la = Array(ElementType::kF32, {2, 3}, v);
  const auto r = Values<float>(RunWith(*exe, {&la}, 1));
  ASSERT_EQ(r.size(), v.size());
  EXPECT_EQ(0, std::memcmp(r.data(), v.data(), v.size() * sizeof(float)));
}

TEST(LowerConvTest, UnknownCustomCallNamesTheTarget) {
  auto module = Executable::FromText(R"(
HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  ROOT c = f32[2] custom-call(a), custom_call_target="NoSuchTarget"
})");
  ASSERT_FALSE(module.ok());
  EXPECT_NE(std::string(module.status().message()).find("\"NoSuchTarget\""), std::string::npos)
      << module.status();
}

}  // namespace
}  // namespace hlovm
