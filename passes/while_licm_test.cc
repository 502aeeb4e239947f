#include "passes/while_licm.h"

#include "gtest/gtest.h"
#include "passes/dce.h"
#include "passes/test_util.h"

namespace hlovm::passes {
namespace {

using test::Count;
using test::Parse;

constexpr char kLoop[] = R"(HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
body {
  p = (s32[], s32[], s32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = s32[] get-tuple-element(p), index=1
  v = s32[8] get-tuple-element(p), index=2
  sq = s32[8] multiply(v, v)
  z = s32[] constant(0)
  sum = s32[] reduce(sq, z), dimensions={0}, to_apply=add
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  acc1 = s32[] add(acc, sum)
  ROOT t = (s32[], s32[], s32[8]) tuple(i1, acc1, v)
}
cond {
  p = (s32[], s32[], s32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  v = s32[8] parameter(0)
  z = s32[] constant(0)
  init = (s32[], s32[], s32[8]) tuple(z, z, v)
  w = (s32[], s32[], s32[8]) while(init), condition=cond, body=body
  ROOT r = s32[] get-tuple-element(w), index=1
})";

TEST(WhileLicmTest, HoistsInvariantReduce) {
  auto m = Parse(kLoop);
  ASSERT_NE(m, nullptr);
  auto result = RunWhileLicm(*m);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->changes, 2);  // multiply and reduce
  ASSERT_TRUE(RunDce(*m).ok());
  const HloComputation* body = m->FindComputation("body");
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(Count(*body, HloOpcode::kReduce), 0);
  EXPECT_EQ(Count(*body, HloOpcode::kMultiply), 0);
  EXPECT_EQ(Count(*m->entry(), HloOpcode::kReduce), 1);
  const HloInstruction* w = m->entry()->root()->operand(0);
  ASSERT_EQ(w->opcode(), HloOpcode::kWhile);
  EXPECT_EQ(w->shape().tuple_size(), 4);
  EXPECT_EQ(body->root()->operand_count(), 4);
  absl::Status verified = VerifyModule(*m);
  EXPECT_TRUE(verified.ok()) << verified;
}

TEST(WhileLicmTest, KeepsVariantAndRngInstructions) {
  auto m = Parse(R"(HloModule m
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[4] rng(lo, hi), distribution=rng_uniform
  e = f32[4] exponential(x)
  s = f32[4] add(e, r)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[4]) tuple(i1, s)
}
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  x = f32[4] parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[4]) tuple(z, x)
  ROOT w = (s32[], f32[4]) while(init), condition=cond, body=body
})");
  ASSERT_NE(m, nullptr);
  auto result = RunWhileLicm(*m);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->changes, 0);
}

TEST(WhileLicmTest, WholeLoopResultKeepsItsShape) {
  auto m = Parse(R"(HloModule m
body {
  p = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  y = f32[4] get-tuple-element(p), index=2
  e = f32[4] exponential(y)
  s = f32[4] multiply(x, e)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[4], f32[4]) tuple(i1, s, y)
}
cond {
  p = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  z = s32[] constant(0)
  init = (s32[], f32[4], f32[4]) tuple(z, x, y)
  ROOT w = (s32[], f32[4], f32[4]) while(init), condition=cond, body=body
})");
  ASSERT_NE(m, nullptr);
  auto result = RunWhileLicm(*m);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->changes, 1);  // exponential(y): y passes through unchanged
  EXPECT_EQ(m->entry()->root()->shape().tuple_size(), 3);
  EXPECT_EQ(m->entry()->root()->opcode(), HloOpcode::kTuple);
  absl::Status verified = VerifyModule(*m);
  EXPECT_TRUE(verified.ok()) << verified;
}

}  // namespace
}  // namespace hlovm::passes
