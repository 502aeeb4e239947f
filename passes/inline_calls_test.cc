#include "passes/inline_calls.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
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

// The copies go where the call was: every instruction's operands still
// come before it in the list, so the next pass needs no graph walk to
// order it, and the copies of the first call precede those of the second.
TEST(InlineCallsTest, CopiesTakeTheCallsPlaceInTheList) {
  auto m = Parse(R"(HloModule m
f {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a)
}
ENTRY e {
  p = f32[4] parameter(0)
  c1 = f32[4] call(p), to_apply=f
  m1 = f32[4] multiply(c1, p)
  c2 = f32[4] call(m1), to_apply=f
  ROOT r = f32[4] add(c2, c1)
})");
  ASSERT_NE(m, nullptr);
  auto result = RunInlineCalls(*m);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->changes, 2);
  const auto& list = m->entry()->instructions();
  absl::flat_hash_map<const HloInstruction*, size_t> position;
  for (size_t k = 0; k < list.size(); ++k) position[list[k].get()] = k;
  for (size_t k = 0; k < list.size(); ++k) {
    for (const HloInstruction* o : list[k]->operands()) {
      EXPECT_LT(position.at(o), k) << list[k]->name() << " reads " << o->name();
    }
  }
  std::vector<std::string> names;
  for (const auto& i : list) names.push_back(i->name());
  // The inlined calls are gone with the pass.
  EXPECT_EQ(names, (std::vector<std::string>{"p", "n.1", "m1", "n.2", "r"}));
  ASSERT_TRUE(RunDce(*m).ok());
  EXPECT_TRUE(VerifyModule(*m).ok());
}

// A callee called once moves into its caller: the same instruction
// objects, their names kept unless another instruction of the module has
// the name too, and the callee leaves the module with its call.
TEST(InlineCallsTest, CalleeCalledOnceMoves) {
  auto m = Parse(R"(HloModule m
f {
  a = f32[4] parameter(0)
  s = f32[4] add(a, a)
  ROOT n = f32[4] negate(s)
}
ENTRY e {
  p = f32[4] parameter(0)
  s = f32[4] multiply(p, p)
  c = f32[4] call(s), to_apply=f
  ROOT r = f32[4] add(c, s)
})");
  ASSERT_NE(m, nullptr);
  const HloComputation* f = m->FindComputation("f");
  const HloInstruction* neg = f->root();
  auto result = RunInlineCalls(*m);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->changes, 1);
  EXPECT_EQ(m->computations().size(), 1u);
  const HloComputation& e = *m->entry();
  EXPECT_EQ(e.root()->operand(0), neg);
  EXPECT_EQ(neg->parent(), &e);
  std::vector<std::string> names;
  for (const auto& i : e.instructions()) names.push_back(i->name());
  EXPECT_EQ(names, (std::vector<std::string>{"p", "s", "s.1", "n", "r"}));
  const HloInstruction* add = neg->operand(0);
  EXPECT_EQ(add->operand(0)->name(), "s");
  EXPECT_EQ(add->operand(1)->name(), "s");
  EXPECT_TRUE(VerifyModule(*m).ok());
}

// g is called once, from f, which is called twice: f's copies call g too,
// so g is copied where f is inlined and stays while they call it. The IR
// does not rely on callees coming first: with the entry listed first, f is
// copied before f's call of g is looked at.
TEST(InlineCallsTest, CopiesCountAsCallSites) {
  auto m = Parse(R"(HloModule m
g {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
f {
  a = f32[] parameter(0)
  ROOT c = f32[] call(a), to_apply=g
}
ENTRY e {
  p = f32[] parameter(0)
  c1 = f32[] call(p), to_apply=f
  c2 = f32[] call(c1), to_apply=f
  ROOT r = f32[] add(c1, c2)
})");
  ASSERT_NE(m, nullptr);
  auto& list = const_cast<std::vector<std::unique_ptr<HloComputation>>&>(m->computations());
  std::reverse(list.begin(), list.end());
  ASSERT_TRUE(RunInlineCalls(*m).ok());
  ASSERT_TRUE(VerifyModule(*m).ok());
  EXPECT_NE(m->FindComputation("g"), nullptr);
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(RunInlineCalls(*m).ok());
    ASSERT_TRUE(RunDce(*m).ok());
    ASSERT_TRUE(VerifyModule(*m).ok());
  }
  EXPECT_EQ(m->computations().size(), 1u);
  const HloComputation& e = *m->entry();
  EXPECT_EQ(Count(e, HloOpcode::kCall), 0);
  EXPECT_EQ(Count(e, HloOpcode::kNegate), 2);
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
