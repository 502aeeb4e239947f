#include "passes/while_dead_elements.h"

#include <string>

#include "frontend/printer.h"
#include "gtest/gtest.h"
#include "passes/dce.h"
#include "passes/test_util.h"
#include "vm/api.h"

namespace hlovm::passes {
namespace {

using test::Parse;

// (i, acc, v, w): acc and w are never read after the loop; acc feeds only
// itself, w feeds acc. The condition reads i; v comes out.
constexpr char kLoop[] = R"(HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = s32[] add(a, b)
}
body {
  p = (s32[], s32[], s32[4], s32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = s32[] get-tuple-element(p), index=1
  v = s32[4] get-tuple-element(p), index=2
  w = s32[4] get-tuple-element(p), index=3
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  vv = s32[4] add(v, v)
  w1 = s32[4] multiply(w, v)
  s = s32[] reduce(w1, one), dimensions={0}, to_apply=add
  acc1 = s32[] add(acc, s)
  ROOT t = (s32[], s32[], s32[4], s32[4]) tuple(i1, acc1, vv, w1)
}
cond {
  p = (s32[], s32[], s32[4], s32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  v = s32[4] parameter(0)
  z = s32[] constant(0)
  init = (s32[], s32[], s32[4], s32[4]) tuple(z, z, v, v)
  loop = (s32[], s32[], s32[4], s32[4]) while(init), condition=cond, body=body
  ROOT out = s32[4] get-tuple-element(loop), index=2
})";

TEST(WhileDeadElementsTest, RemovesElementsThatFeedOnlyDeadOnes) {
  auto m = Parse(kLoop);
  ASSERT_NE(m, nullptr);
  auto result = RunWhileDeadElements(*m);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->changes, 2);
  ASSERT_TRUE(RunDce(*m).ok());
  ASSERT_TRUE(VerifyModule(*m).ok()) << VerifyModule(*m);
  // The renumbered elements print as renumbered: the text reads back.
  EXPECT_NE(Parse(PrintModule(*m, PrintOptions::Default())), nullptr);
  const HloInstruction* loop = m->entry()->root()->operand(0);
  ASSERT_EQ(loop->opcode(), HloOpcode::kWhile);
  ASSERT_EQ(loop->shape().tuple_size(), 2);
  EXPECT_EQ(m->entry()->root()->tuple_index, 1);
  // Nothing of the accumulator is left in the body.
  for (const auto& i : loop->called_computations()[1]->instructions()) {
    EXPECT_NE(i->opcode(), HloOpcode::kReduce) << i->name();
    EXPECT_NE(i->opcode(), HloOpcode::kMultiply) << i->name();
  }
}

TEST(WhileDeadElementsTest, SameResultAsTheLoopAsWritten) {
  const Literal v = Literal::CreateR1<int32_t>({1, -2, 3, 7});
  auto exe = test::ExpectSameBits(kLoop, {&v}, "whiledce,dce");
  ASSERT_NE(exe, nullptr);
  EXPECT_NE(exe->PassReport().find("removed 2 dead elements of 1 loops"), std::string::npos)
      << exe->PassReport();
}

// An element read after the loop, one the condition reads, and one an
// outfeed in the body reads all stay, with what they read.
TEST(WhileDeadElementsTest, KeepsWhatIsReadAfterwardsByTheConditionOrBySideEffects) {
  auto m = Parse(R"(HloModule m
body {
  p = (s32[], s32[], s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  a = s32[] get-tuple-element(p), index=1
  b = s32[] get-tuple-element(p), index=2
  c = s32[] get-tuple-element(p), index=3
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  a1 = s32[] add(a, c)
  b1 = s32[] add(b, one)
  tok = token[] after-all()
  o = token[] outfeed(b1, tok), outfeed_shape=s32[]
  ROOT t = (s32[], s32[], s32[], s32[]) tuple(i1, a1, b1, c)
}
cond {
  p = (s32[], s32[], s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  z = s32[] constant(0)
  init = (s32[], s32[], s32[], s32[]) tuple(z, z, z, z)
  loop = (s32[], s32[], s32[], s32[]) while(init), condition=cond, body=body
  ROOT out = s32[] get-tuple-element(loop), index=1
})");
  ASSERT_NE(m, nullptr);
  auto result = RunWhileDeadElements(*m);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->changes, 0);  // i: condition, a: after, c: read by a, b: outfeed
}

// A loop whose whole state is read keeps it.
TEST(WhileDeadElementsTest, LeavesLoopsWhoseWholeStateIsRead) {
  auto m = Parse(R"(HloModule m
body {
  p = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  a = s32[] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], s32[]) tuple(i1, a)
}
cond {
  p = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  z = s32[] constant(0)
  init = (s32[], s32[]) tuple(z, z)
  ROOT loop = (s32[], s32[]) while(init), condition=cond, body=body
})");
  ASSERT_NE(m, nullptr);
  auto result = RunWhileDeadElements(*m);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->changes, 0);
}

}  // namespace
}  // namespace hlovm::passes
