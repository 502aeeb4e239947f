#include "passes/while_unroll.h"

#include <string>

#include "absl/strings/str_cat.h"
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

// Compiles `text` with the default passes and with none, checks that both
// give the same bits, and returns how many copies of its body replaced the
// loop (0: the loop stayed).
int UnrolledCopies(const std::string& text) {
  const Literal v = Literal::CreateR1<float>({1.5f, -2.0f, 0.25f, 3.0f});
  auto exe = test::ExpectSameBits(text, {&v});
  if (exe == nullptr) return -1;
  const int loops = test::CountInModule(exe->module(), HloOpcode::kWhile);
  const std::string report = exe->PassReport();
  for (int copies = 1; copies <= kMaxUnrollTrips; ++copies) {
    if (report.find(absl::StrCat("unrolled 1 loops of constant trip counts into ", copies,
                                 " copies")) != std::string::npos) {
      EXPECT_EQ(loops, 0) << report;
      return copies;
    }
  }
  EXPECT_EQ(loops, 1) << report;
  return 0;
}

std::string Below(int n) {
  return absl::StrCat("n = s32[] constant(", n, ")\n  ROOT lt = pred[] compare(i, n), direction=LT");
}

TEST(WhileUnrollTest, CountedLoopsBecomeCopiesOfTheirBody) {
  EXPECT_EQ(UnrolledCopies(Loop("0", "i1 = s32[] add(i, one)", Below(1))), 1);
  EXPECT_EQ(UnrolledCopies(Loop("0", "i1 = s32[] add(i, one)", Below(2))), 2);
  EXPECT_EQ(UnrolledCopies(Loop("5", "i1 = s32[] add(i, one)", Below(9))), 4);
  // Counting down, the constant first in the step and in the test.
  EXPECT_EQ(UnrolledCopies(Loop("5", "i1 = s32[] subtract(i, one)",
                                "n = s32[] constant(2)\n  ROOT gt = pred[] compare(n, i), direction=LT")),
            3);
  EXPECT_EQ(UnrolledCopies(Loop("7", "i1 = s32[] add(one, i)",
                                "n = s32[] constant(7)\n  ROOT eq = pred[] compare(i, n), direction=EQ")),
            1);
  // The counter wraps after one trip (the loop's own s32 arithmetic).
  EXPECT_EQ(UnrolledCopies(Loop("2147483647", "i1 = s32[] add(i, one)",
                                "n = s32[] constant(0)\n  ROOT gt = pred[] compare(i, n), direction=GT")),
            1);
}

TEST(WhileUnrollTest, LeavesOtherLoops) {
  // More trips than unrolled, a step that is no constant (1, 2, then 4).
  EXPECT_EQ(UnrolledCopies(Loop("0", "i1 = s32[] add(i, one)", Below(kMaxUnrollTrips + 1))), 0);
  EXPECT_EQ(UnrolledCopies(Loop("1", "i1 = s32[] add(i, i)", Below(3))), 0);
}

}  // namespace
}  // namespace hlovm::passes
