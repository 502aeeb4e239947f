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

}  // namespace
}  // namespace hlovm::passes
