// End-to-end tests of sort, topk and scan through the VM.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "vm/test_util.h"

namespace hlovm {
namespace {

using testing_util::Lit;
using testing_util::RunHlo;
using testing_util::Values;

// Keys sorted along dimension 0 of [rows, cols] with a two-operand
// lexicographic comparator (key descending, then payload ascending): the
// compiled-comparator path. The result must match std::stable_sort and be
// the same with 1 and 2 threads.
TEST(LowerSort, CompiledComparatorMatchesReferenceAndThreadCounts) {
  const int rows = 300, cols = 40;
  std::mt19937 rng(9);
  std::vector<float> keys(rows * cols);
  std::vector<int32_t> payload(rows * cols);
  for (auto& k : keys) k = static_cast<float>(static_cast<int>(rng() % 7) - 3);
  for (auto& p : payload) p = static_cast<int32_t>(rng() % 5);
  const std::string hlo = R"(
HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  eq = pred[] compare(a, b), direction=EQ
  lt = pred[] compare(c, d), direction=LT
  both = pred[] and(eq, lt)
  ROOT r = pred[] or(gt, both)
}
ENTRY e {
  k = f32[300,40] parameter(0)
  p = s32[300,40] parameter(1)
  ROOT s = (f32[300,40], s32[300,40]) sort(k, p), dimensions={0}, is_stable=true, to_apply=cmp
})";
  std::vector<std::string> krows, prows;
  for (int r = 0; r < rows; ++r) {
    std::vector<std::string> kv, pv;
    for (int c = 0; c < cols; ++c) {
      kv.push_back(absl::StrCat(keys[r * cols + c]));
      pv.push_back(absl::StrCat(payload[r * cols + c]));
    }
    krows.push_back(absl::StrCat("{", absl::StrJoin(kv, ","), "}"));
    prows.push_back(absl::StrCat("{", absl::StrJoin(pv, ","), "}"));
  }
  std::vector<Literal> args;
  args.push_back(Lit(absl::StrCat("f32[300,40] {", absl::StrJoin(krows, ","), "}")));
  args.push_back(Lit(absl::StrCat("s32[300,40] {", absl::StrJoin(prows, ","), "}")));
  auto one = RunHlo(hlo, args, 1);
  auto two = RunHlo(hlo, args, 2);
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_TRUE(two.ok()) << two.status();
  const auto k1 = Values<float>(one->tuple_elements()[0]);
  const auto p1 = Values<int32_t>(one->tuple_elements()[1]);
  EXPECT_EQ(k1, Values<float>(two->tuple_elements()[0]));
  EXPECT_EQ(p1, Values<int32_t>(two->tuple_elements()[1]));
  for (int c = 0; c < cols; ++c) {
    std::vector<int> idx(rows);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
      const float ka = keys[a * cols + c], kb = keys[b * cols + c];
      if (ka != kb) return ka > kb;
      return payload[a * cols + c] < payload[b * cols + c];
    });
    for (int r = 0; r < rows; ++r) {
      ASSERT_EQ(k1[r * cols + c], keys[idx[r] * cols + c]) << r << "," << c;
      ASSERT_EQ(p1[r * cols + c], payload[idx[r] * cols + c]) << r << "," << c;
    }
  }
}

// JAX's float comparator (NaN -> +NaN, -0 -> +0, TOTALORDER LT): zeros of
// both signs are equal and stay in input order; every NaN sorts last, in
// input order, with its own bits.
TEST(LowerSort, CanonicalisingComparatorKeepsZerosAndNaNsInOrder) {
  const std::string hlo = R"(
HloModule m
cmp {
  p0 = f32[] parameter(0)
  ne0 = pred[] compare(p0, p0), direction=NE
  nan = f32[] constant(nan)
  zero = f32[] constant(0)
  eq0 = pred[] compare(p0, zero), direction=EQ
  s0 = f32[] select(eq0, zero, p0)
  c0 = f32[] select(ne0, nan, s0)
  p1 = f32[] parameter(1)
  ne1 = pred[] compare(p1, p1), direction=NE
  eq1 = pred[] compare(p1, zero), direction=EQ
  s1 = f32[] select(eq1, zero, p1)
  c1 = f32[] select(ne1, nan, s1)
  ROOT lt = pred[] compare(c0, c1), direction=LT, type=TOTALORDER
}
ENTRY e {
  x = f32[8] parameter(0)
  ROOT s = f32[8] sort(x), dimensions={0}, is_stable=true, to_apply=cmp
})";
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> in = {0.f, -nan, 2.f, -0.f, nan, -1.f, 0.f, -0.f};
  Literal arg = Lit("f32[8] {0, 0, 0, 0, 0, 0, 0, 0}");
  std::memcpy(arg.untyped_data(), in.data(), in.size() * 4);
  std::vector<Literal> args;
  args.push_back(std::move(arg));
  auto out = RunHlo(hlo, args);
  ASSERT_TRUE(out.ok()) << out.status();
  const auto got = Values<float>(*out);
  const std::vector<float> want = {-1.f, 0.f, -0.f, 0.f, -0.f, 2.f, -nan, nan};
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), 32), 0);
}

TEST(LowerScan, ReverseCumsumAlongMinorDimensionWithArrayCarry) {
  const std::string hlo = R"(
HloModule m
body {
  x = s32[2] parameter(0)
  c = s32[2] parameter(1)
  s = s32[2] add(x, c)
  ROOT t = (s32[2], s32[2]) tuple(s, s)
}
ENTRY e {
  in = s32[2,4] constant({{1, 2, 3, 4}, {10, 20, 30, 40}})
  init = s32[2] constant({100, 0})
  ROOT r = (s32[2,4], s32[2]) scan(in, init), dimensions={1}, num_carries=1, is_reverse=true, to_apply=body
})";
  auto out = RunHlo(hlo);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>(out->tuple_elements()[0]),
            (std::vector<int32_t>{110, 109, 107, 104, 100, 90, 70, 40}));
  EXPECT_EQ(Values<int32_t>(out->tuple_elements()[1]), (std::vector<int32_t>{110, 100}));
}

}  // namespace
}  // namespace hlovm
