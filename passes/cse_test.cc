#include "passes/cse.h"

#include <vector>

#include "gtest/gtest.h"
#include "passes/dce.h"
#include "passes/test_util.h"

namespace hlovm::passes {
namespace {

using test::Count;
using test::Parse;

TEST(CseTest, MergesIdenticalInstructions) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] exponential(p)
  b = f32[4] exponential(p), metadata={op_name="other"}
  c = f32[4] add(a, p)
  d = f32[4] add(b, p)
  ROOT r = f32[4] multiply(c, d)
})");
  ASSERT_NE(m, nullptr);
  auto result = RunCse(*m);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->changes, 2);  // b, then d once it reads a
  const HloInstruction* root = m->entry()->root();
  EXPECT_EQ(root->operand(0), root->operand(1));
  ASSERT_TRUE(RunDce(*m).ok());
  EXPECT_EQ(Count(*m->entry(), HloOpcode::kExp), 1);
}

TEST(CseTest, LooksAtTheComputationsListedAlone) {
  auto m = Parse(R"(HloModule m
f {
  a = f32[4] parameter(0)
  x = f32[4] exponential(a)
  y = f32[4] exponential(a)
  ROOT s = f32[4] add(x, y)
}
ENTRY e {
  p = f32[4] parameter(0)
  a = f32[4] exponential(p)
  b = f32[4] exponential(p)
  c = f32[4] add(a, b)
  ROOT r = f32[4] call(c), to_apply=f
})");
  ASSERT_NE(m, nullptr);
  const std::vector<const HloComputation*> only = {m->entry()};
  auto result = RunCse(*m, &only);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->changes, 1);
  ASSERT_TRUE(RunDce(*m).ok());
  EXPECT_EQ(Count(*m->entry(), HloOpcode::kExp), 1);
  EXPECT_EQ(Count(*m->FindComputation("f"), HloOpcode::kExp), 2);
}

TEST(CseTest, KeepsDifferentAttributesAndConstants) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = f32[2,3] parameter(0)
  a = f32[3,2] transpose(p), dimensions={1,0}
  b = f32[2,3] transpose(p), dimensions={0,1}
  c1 = f32[] constant(1)
  c2 = f32[] constant(2)
  c3 = f32[] constant(1)
  ROOT t = (f32[3,2], f32[2,3], f32[], f32[], f32[]) tuple(a, b, c1, c2, c3)
})");
  ASSERT_NE(m, nullptr);
  auto result = RunCse(*m);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->changes, 1);  // only c3 -> c1
  const HloInstruction* root = m->entry()->root();
  EXPECT_NE(root->operand(0), root->operand(1));
  EXPECT_EQ(root->operand(2), root->operand(4));
  EXPECT_NE(root->operand(2), root->operand(3));
}

TEST(CseTest, NeverMergesRngOrSideEffects) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  a = f32[4] rng(lo, hi), distribution=rng_uniform
  b = f32[4] rng(lo, hi), distribution=rng_uniform
  c = f32[4] custom-call(a), custom_call_target="x", custom_call_has_side_effect=true
  d = f32[4] custom-call(a), custom_call_target="x", custom_call_has_side_effect=true
  ROOT t = (f32[4], f32[4], f32[4], f32[4]) tuple(a, b, c, d)
})");
  ASSERT_NE(m, nullptr);
  auto result = RunCse(*m);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->changes, 0);
}

}  // namespace
}  // namespace hlovm::passes
