// End-to-end tests of dot through the VM: a large f32 matmul that splits
// across threads gives the same bits for any thread count and matches a
// double-precision reference; transposed operands with non-default layouts;
// bf16 operands widened to an f32 result.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/float_format.h"
#include "gtest/gtest.h"
#include "vm/api.h"
#include "vm/vm_test_util.h"

namespace hlovm {
namespace {

using vm_test::Array;
using vm_test::Build;
using vm_test::RunWith;
using vm_test::Values;

TEST(LowerDotTest, LargeMatmulSameBitsAnyThreadCount) {
  const int64_t m = 300, k = 520, n = 410;
  auto exe = Build(R"(
HloModule m
ENTRY e {
  a = f32[300,520] parameter(0)
  b = f32[520,410] parameter(1)
  ROOT d = f32[300,410] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  ASSERT_NE(exe, nullptr);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(m * k), b(k * n);
  for (auto& x : a) x = dist(rng);
  for (auto& x : b) x = dist(rng);
  const Literal la = Array(ElementType::kF32, {m, k}, a), lb = Array(ElementType::kF32, {k, n}, b);
  const auto r1 = Values<float>(RunWith(*exe, {&la, &lb}, 1));
  const auto r2 = Values<float>(RunWith(*exe, {&la, &lb}, 2));
  const auto r4 = Values<float>(RunWith(*exe, {&la, &lb}, 4));
  ASSERT_EQ(r1.size(), static_cast<size_t>(m * n));
  EXPECT_EQ(0, std::memcmp(r1.data(), r2.data(), r1.size() * 4));
  EXPECT_EQ(0, std::memcmp(r1.data(), r4.data(), r1.size() * 4));
  for (int64_t i = 0; i < m; i += 37) {
    for (int64_t j = 0; j < n; j += 29) {
      double want = 0;
      for (int64_t p = 0; p < k; ++p) want += double(a[i * k + p]) * b[p * n + j];
      ASSERT_NEAR(r1[i * n + j], want, 1e-3) << i << "," << j;
    }
  }
}

TEST(LowerDotTest, BatchedTransposedOperandsWithLayouts) {
  // out[b, i, j] = sum_p x[p, b, i] * y[j, b, p]; x is stored column-major.
  auto exe = Build(R"(
HloModule m
ENTRY e {
  x = f32[2,2,3]{0,1,2} parameter(0)
  y = f32[2,2,2] parameter(1)
  ROOT d = f32[2,3,2] dot(x, y), lhs_batch_dims={1}, lhs_contracting_dims={0},
      rhs_batch_dims={1}, rhs_contracting_dims={2}
})");
  ASSERT_NE(exe, nullptr);
  auto x = ParseLiteral("f32[2,2,3] {{{1,2,3},{4,5,6}},{{7,8,9},{10,11,12}}}");
  auto y = ParseLiteral("f32[2,2,2] {{{1,0},{2,1}},{{0,1},{1,-1}}}");
  ASSERT_TRUE(x.ok() && y.ok());
  const auto got = Values<float>(RunWith(*exe, {&*x, &*y}, 1));
  // Reference from the index formula above.
  float xs[2][2][3] = {{{1, 2, 3}, {4, 5, 6}}, {{7, 8, 9}, {10, 11, 12}}};
  float ys[2][2][2] = {{{1, 0}, {2, 1}}, {{0, 1}, {1, -1}}};
  std::vector<float> want;
  for (int bb = 0; bb < 2; ++bb)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j) {
        float s = 0;
        for (int p = 0; p < 2; ++p) s += xs[p][bb][i] * ys[j][bb][p];
        want.push_back(s);
      }
  EXPECT_EQ(got, want);
}

TEST(LowerDotTest, Bf16OperandsToF32Result) {
  auto exe = Build(R"(
HloModule m
ENTRY e {
  x = bf16[1,3] constant({{256, 1, 1}})
  y = bf16[3,1] constant({{1}, {1}, {1}})
  ROOT d = f32[1,1] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  ASSERT_NE(exe, nullptr);
  EXPECT_EQ(Values<float>(RunWith(*exe, {}, 1)), std::vector<float>{258});
}

TEST(LowerDotTest, AttentionShapedBatchedDotSameBitsAnyThreadCount) {
  // Q . K^T over [b, h, q, d] x [b, h, k, d] (contracting d), f32 and bf16
  // operands: same bits for 1, 2 and 4 threads, matching a double-precision
  // reference.
  const int64_t b = 2, h = 6, q = 70, k = 90, d = 64;
  for (const char* type : {"f32", "bf16"}) {
    SCOPED_TRACE(type);
    auto exe = Build(absl::StrFormat(R"(
HloModule m
ENTRY e {
  q = %1$s[2,6,70,64] parameter(0)
  k = %1$s[2,6,90,64] parameter(1)
  ROOT s = f32[2,6,70,90] dot(q, k), lhs_batch_dims={0,1}, lhs_contracting_dims={3},
      rhs_batch_dims={0,1}, rhs_contracting_dims={3}
})",
                                     type));
    ASSERT_NE(exe, nullptr);
    const bool bf16 = std::string(type) == "bf16";
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> dist(-1, 1);
    std::vector<float> qv(b * h * q * d), kv(b * h * k * d);
    std::vector<uint16_t> qb(qv.size()), kb(kv.size());
    for (size_t i = 0; i < qv.size(); ++i) {
      qb[i] = FloatToBFloat16(dist(rng));
      qv[i] = bf16 ? BFloat16ToFloat(qb[i]) : dist(rng);
    }
    for (size_t i = 0; i < kv.size(); ++i) {
      kb[i] = FloatToBFloat16(dist(rng));
      kv[i] = bf16 ? BFloat16ToFloat(kb[i]) : dist(rng);
    }
    const Literal lq = bf16 ? Array(ElementType::kBF16, {b, h, q, d}, qb)
                            : Array(ElementType::kF32, {b, h, q, d}, qv);
    const Literal lk = bf16 ? Array(ElementType::kBF16, {b, h, k, d}, kb)
                            : Array(ElementType::kF32, {b, h, k, d}, kv);
    const auto r1 = Values<float>(RunWith(*exe, {&lq, &lk}, 1));
    const auto r2 = Values<float>(RunWith(*exe, {&lq, &lk}, 2));
    const auto r4 = Values<float>(RunWith(*exe, {&lq, &lk}, 4));
    ASSERT_EQ(r1.size(), static_cast<size_t>(b * h * q * k));
    EXPECT_EQ(0, std::memcmp(r1.data(), r2.data(), r1.size() * 4));
    EXPECT_EQ(0, std::memcmp(r1.data(), r4.data(), r1.size() * 4));
    for (int64_t bh = 0; bh < b * h; bh += 5) {
      for (int64_t i = 0; i < q; i += 7) {
        for (int64_t j = 0; j < k; j += 3) {
          double want = 0;
          for (int64_t p = 0; p < d; ++p) {
            want += double(qv[(bh * q + i) * d + p]) * kv[(bh * k + j) * d + p];
          }
          ASSERT_NEAR(r1[(bh * q + i) * k + j], want, 1e-4) << bh << "," << i << "," << j;
        }
      }
    }
  }
}

}  // namespace
}  // namespace hlovm
