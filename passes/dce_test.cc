#include "passes/dce.h"

#include "gtest/gtest.h"
#include "passes/test_util.h"

namespace hlovm::passes {
namespace {

using test::Count;
using test::Find;
using test::Parse;

TEST(DceTest, RemovesUnusedInstructionsAndComputations) {
  auto m = Parse(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  dead = f32[4] multiply(p, q)
  z = f32[] constant(0)
  dead2 = f32[] reduce(dead, z), dimensions={0}, to_apply=add
  ROOT r = f32[4] add(p, q)
})");
  ASSERT_NE(m, nullptr);
  auto result = RunDce(*m);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->changes, 4);  // dead, z, dead2 and the computation add
  EXPECT_EQ(m->computations().size(), 1u);
  EXPECT_EQ(Find(*m->entry(), "dead"), nullptr);
  EXPECT_EQ(m->entry()->instruction_count(), 3);
  EXPECT_TRUE(VerifyModule(*m).ok());
}

TEST(DceTest, KeepsSideEffectsParametersAndRng) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  unused = f32[4] parameter(1)
  c = f32[4] custom-call(p), custom_call_target="foo", custom_call_has_side_effect=true
  chk = f32[4] custom-call(p, p), custom_call_target="check.expect_eq"
  pure = f32[4] custom-call(p), custom_call_target="bar"
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[4] rng(lo, hi), distribution=rng_uniform
  t = token[] after-all()
  o = token[] outfeed(p, t), outfeed_shape=f32[4]{0}
  ROOT n = f32[4] negate(p)
})");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(RunDce(*m).ok());
  const HloComputation& e = *m->entry();
  EXPECT_NE(Find(e, "c"), nullptr);
  EXPECT_NE(Find(e, "chk"), nullptr);
  EXPECT_NE(Find(e, "r"), nullptr);
  EXPECT_NE(Find(e, "o"), nullptr);
  EXPECT_NE(Find(e, "unused"), nullptr);
  EXPECT_EQ(Find(e, "pure"), nullptr);
  EXPECT_EQ(Count(e, HloOpcode::kParameter), 2);
  EXPECT_TRUE(VerifyModule(*m).ok());
}

TEST(DceTest, KeepsCallsWhoseCalleeHasEffects) {
  auto m = Parse(R"(HloModule m
f {
  a = f32[] parameter(0)
  ROOT c = f32[] custom-call(a), custom_call_target="check.expect_eq_f", custom_call_has_side_effect=true
}
ENTRY e {
  p = f32[] parameter(0)
  k = f32[] call(p), to_apply=f
  ROOT n = f32[] negate(p)
})");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(RunDce(*m).ok());
  EXPECT_NE(Find(*m->entry(), "k"), nullptr);
  EXPECT_EQ(m->computations().size(), 2u);
}

}  // namespace
}  // namespace hlovm::passes
