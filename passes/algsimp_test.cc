#include "passes/algsimp.h"

#include "gtest/gtest.h"
#include "passes/test_util.h"

namespace hlovm::passes {
namespace {

using test::Parse;

TEST(AlgsimpTest, RemovesIdentityShapeOps) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = f32[2,3] parameter(0)
  r = f32[2,3] reshape(p)
  t = f32[2,3] transpose(r), dimensions={0,1}
  c = f32[2,3] convert(t)
  s = f32[2,3] slice(c), slice={[0:2], [0:3]}
  b = f32[2,3] broadcast(s), dimensions={0,1}
  ROOT n = f32[2,3] negate(b)
})");
  ASSERT_NE(m, nullptr);
  auto result = RunAlgebraicSimplifier(*m);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->changes, 5);
  EXPECT_EQ(m->entry()->root()->operand(0)->name(), "p");
}

TEST(AlgsimpTest, KeepsOpsThatChangeValues) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = f32[2,3] parameter(0)
  z = f32[] constant(0)
  zb = f32[2,3] broadcast(z), dimensions={}
  a = f32[2,3] add(p, zb)
  t = f32[3,2] transpose(a), dimensions={1,0}
  c = f16[3,2] convert(t)
  ROOT s = f16[2,2] slice(c), slice={[0:2], [0:2]}
})");
  ASSERT_NE(m, nullptr);
  auto result = RunAlgebraicSimplifier(*m);
  ASSERT_TRUE(result.ok());
  // x + 0 is not bit-exact for x = -0, so it stays.
  EXPECT_EQ(result->changes, 0);
}

TEST(AlgsimpTest, SelectOnConstantPredicateAndTupleElements) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  t = pred[] constant(true)
  f = pred[] constant(false)
  a = f32[4] select(t, p, q)
  b = f32[4] select(f, p, q)
  tup = (f32[4], f32[4]) tuple(a, b)
  g = f32[4] get-tuple-element(tup), index=1
  ROOT r = f32[4] subtract(a, g)
})");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(RunAlgebraicSimplifier(*m).ok());
  const HloInstruction* root = m->entry()->root();
  EXPECT_EQ(root->operand(0)->name(), "p");
  EXPECT_EQ(root->operand(1)->name(), "q");
}

TEST(AlgsimpTest, ReshapeOfReshape) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = f32[6] parameter(0)
  a = f32[2,3] reshape(p)
  ROOT b = f32[3,2] reshape(a)
})");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(RunAlgebraicSimplifier(*m).ok());
  EXPECT_EQ(m->entry()->root()->operand(0)->name(), "p");
  EXPECT_TRUE(VerifyModule(*m).ok());
}

// The embedding transpose of a language model's logits: the dot reads the
// table through the permutation, the transposed copy is gone, the bits are
// the same (the GEMM sums each output in k order however it reads B), and
// the module prints the dimension numbers it now computes with.
TEST(AlgsimpTest, TransposeFoldsIntoDot) {
  const std::string text = R"(HloModule m
ENTRY e {
  x = f32[3,40] parameter(0)
  w = f32[50,40] parameter(1)
  wt = f32[40,50]{0,1} transpose(w), dimensions={1,0}
  ROOT d = f32[3,50] dot(x, wt), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  auto m = Parse(text);
  ASSERT_NE(m, nullptr);
  auto result = RunAlgebraicSimplifier(*m);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->changes, 1);
  const HloInstruction* root = m->entry()->root();
  EXPECT_EQ(root->operand(1)->name(), "w");
  EXPECT_EQ(root->attrs().dot_dimension_numbers->rhs_contracting_dimensions,
            std::vector<int64_t>{1});
  EXPECT_NE(PrintModule(*m, PrintOptions::Default()).find("rhs_contracting_dims={1}"),
            std::string::npos);
  Literal x = test::Iota(Shape(ElementType::kF32, {3, 40}), 0.37f);
  Literal w = test::Iota(Shape(ElementType::kF32, {50, 40}), -0.11f);
  test::ExpectSameBits(text, {&x, &w});
}

// Batch dimensions map too; a transpose that would reorder the free
// dimensions (and so the result's) stays.
TEST(AlgsimpTest, TransposeFoldsIntoDotOnlyWhereFreeDimensionsKeepTheirOrder) {
  const std::string text = R"(HloModule m
ENTRY e {
  a = f32[4,6,5] parameter(0)
  b = f32[4,5,7] parameter(1)
  at = f32[4,5,6] transpose(a), dimensions={0,2,1}
  bt = f32[7,4,5] transpose(b), dimensions={2,0,1}
  ROOT d = f32[4,6,7] dot(at, bt), lhs_batch_dims={0}, lhs_contracting_dims={1},
      rhs_batch_dims={1}, rhs_contracting_dims={2}
}
)";
  auto m = Parse(text);
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(RunAlgebraicSimplifier(*m).ok());
  const HloInstruction* root = m->entry()->root();
  EXPECT_EQ(root->operand(0)->name(), "a");
  EXPECT_EQ(root->operand(1)->name(), "b");
  EXPECT_EQ(root->attrs().dot_dimension_numbers->lhs_contracting_dimensions,
            std::vector<int64_t>{2});
  EXPECT_EQ(root->attrs().dot_dimension_numbers->rhs_batch_dimensions, std::vector<int64_t>{0});
  EXPECT_EQ(root->attrs().dot_dimension_numbers->rhs_contracting_dimensions,
            std::vector<int64_t>{1});
  EXPECT_TRUE(VerifyModule(*m).ok());
  Literal a = test::Iota(Shape(ElementType::kF32, {4, 6, 5}), 0.5f);
  Literal b = test::Iota(Shape(ElementType::kF32, {4, 5, 7}), -0.25f);
  test::ExpectSameBits(text, {&a, &b});

  auto kept = Parse(R"(HloModule m
ENTRY e {
  x = f32[3,4] parameter(0)
  y = f32[4,5,6] parameter(1)
  yt = f32[4,6,5] transpose(y), dimensions={0,2,1}
  ROOT d = f32[3,6,5] dot(x, yt), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  ASSERT_NE(kept, nullptr);
  auto result = RunAlgebraicSimplifier(*kept);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->changes, 0);
}

}  // namespace
}  // namespace hlovm::passes
