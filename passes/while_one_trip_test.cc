#include "passes/while_one_trip.h"

#include <string>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "passes/test_util.h"
#include "vm/api.h"

namespace hlovm::passes {
namespace {

// A counted loop: the counter starts at START, the body applies STEP to it
// and doubles the accumulator (adding v), and the condition is TEST.
std::string Loop(const std::string& start, const std::string& step, const std::string& test) {
  return absl::StrReplaceAll(R"(HloModule m
body {
  p = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = f32[4] get-tuple-element(p), index=1
  v = f32[4] get-tuple-element(p), index=2
  one = s32[] constant(1)
  STEP
  two = f32[] constant(2)
  twos = f32[4] broadcast(two), dimensions={}
  d = f32[4] multiply(acc, twos)
  acc1 = f32[4] add(d, v)
  ROOT t = (s32[], f32[4], f32[4]) tuple(i1, acc1, v)
}
cond {
  p = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  TEST
}
ENTRY e {
  v = f32[4] parameter(0)
  start = s32[] constant(START)
  init = (s32[], f32[4], f32[4]) tuple(start, v, v)
  loop = (s32[], f32[4], f32[4]) while(init), condition=cond, body=body
  ROOT out = f32[4] get-tuple-element(loop), index=1
})",
                             {{"START", start}, {"STEP", step}, {"TEST", test}});
}

// Compiles `text` with the default passes and with none; returns how many
// loops onetrip replaced, after checking that both give the same bits.
int ReplacedLoops(const std::string& text) {
  const Literal v = Literal::CreateR1<float>({1.5f, -2.0f, 0.25f, 3.0f});
  auto exe = test::ExpectSameBits(text, {&v});
  if (exe == nullptr) return -1;
  const int loops = test::CountInModule(exe->module(), HloOpcode::kWhile);
  const std::string report = exe->PassReport();
  if (report.find("replaced 1 loops") != std::string::npos) {
    EXPECT_EQ(loops, 0) << report;
    return 1;
  }
  EXPECT_EQ(loops, 1) << report;
  return 0;
}

TEST(WhileOneTripTest, ReplacesCountedLoopsThatRunOnce) {
  EXPECT_EQ(ReplacedLoops(Loop("0", "i1 = s32[] add(i, one)",
                               "n = s32[] constant(1)\n  ROOT lt = pred[] compare(i, n), direction=LT")),
            1);
  // Counting down, the constant first in the step and in the test.
  EXPECT_EQ(ReplacedLoops(Loop("5", "i1 = s32[] subtract(i, one)",
                               "n = s32[] constant(4)\n  ROOT gt = pred[] compare(n, i), direction=LT")),
            1);
  EXPECT_EQ(ReplacedLoops(Loop("7", "i1 = s32[] add(one, i)",
                               "n = s32[] constant(7)\n  ROOT eq = pred[] compare(i, n), direction=EQ")),
            1);
  // The counter wraps after one trip (the loop's own s32 arithmetic).
  EXPECT_EQ(ReplacedLoops(Loop("2147483647", "i1 = s32[] add(i, one)",
                               "n = s32[] constant(0)\n  ROOT gt = pred[] compare(i, n), direction=GT")),
            1);
}

TEST(WhileOneTripTest, LeavesOtherLoops) {
  // Two trips; a step that is no constant (1, 2, then 4: two trips too).
  EXPECT_EQ(ReplacedLoops(Loop("0", "i1 = s32[] add(i, one)",
                               "n = s32[] constant(2)\n  ROOT lt = pred[] compare(i, n), direction=LT")),
            0);
  EXPECT_EQ(ReplacedLoops(Loop("1", "i1 = s32[] add(i, i)",
                               "n = s32[] constant(3)\n  ROOT lt = pred[] compare(i, n), direction=LT")),
            0);
}

}  // namespace
}  // namespace hlovm::passes
