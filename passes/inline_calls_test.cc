#include "passes/inline_calls.h"

#include "gtest/gtest.h"
#include "passes/dce.h"
#include "passes/test_util.h"

namespace hlovm::passes {
namespace {

using test::Count;
using test::Parse;

TEST(InlineCallsTest, InlinesPureCallee) {
  auto m = Parse(R"(HloModule m
f {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  s = f32[4] add(a, b)
  ROOT n = f32[4] negate(s)
}
ENTRY e {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  c = f32[4] call(q, p), to_apply=f
  ROOT r = f32[4] multiply(c, p)
})");
  ASSERT_NE(m, nullptr);
  auto result = RunInlineCalls(*m);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->changes, 1);
  ASSERT_TRUE(RunDce(*m).ok());
  const HloComputation& e = *m->entry();
  EXPECT_EQ(Count(e, HloOpcode::kCall), 0);
  EXPECT_EQ(m->computations().size(), 1u);
  const HloInstruction* root = e.root();
  ASSERT_EQ(root->opcode(), HloOpcode::kMultiply);
  const HloInstruction* neg = root->operand(0);
  ASSERT_EQ(neg->opcode(), HloOpcode::kNegate);
  const HloInstruction* add = neg->operand(0);
  ASSERT_EQ(add->opcode(), HloOpcode::kAdd);
  // Parameters map to the call's operands in order: a -> q, b -> p.
  EXPECT_EQ(add->operand(0)->name(), "q");
  EXPECT_EQ(add->operand(1)->name(), "p");
  EXPECT_TRUE(VerifyModule(*m).ok());
}

TEST(InlineCallsTest, CallAsRootAndCalleeReturningParameter) {
  auto m = Parse(R"(HloModule m
f {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
ENTRY e {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT c = f32[] call(p, q), to_apply=f
})");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(RunInlineCalls(*m).ok());
  EXPECT_EQ(m->entry()->root()->name(), "q");
}

TEST(InlineCallsTest, LeavesCalleesWithSideEffects) {
  auto m = Parse(R"(HloModule m
f {
  a = f32[] parameter(0)
  ROOT c = f32[] custom-call(a), custom_call_target="x", custom_call_has_side_effect=true
}
ENTRY e {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p), to_apply=f
})");
  ASSERT_NE(m, nullptr);
  auto result = RunInlineCalls(*m);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->changes, 0);
  EXPECT_EQ(m->entry()->root()->opcode(), HloOpcode::kCall);
}

}  // namespace
}  // namespace hlovm::passes
