#include "passes/while_zero_trip.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "passes/dce.h"
#include "passes/ir_util.h"
#include "passes/test_util.h"
#include "vm/api.h"

namespace hlovm::passes {
namespace {

std::string Loop(int start, const std::string& cond_root) {
  return R"(HloModule m
body {
  p = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[3] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  e = f32[3] exponential(x)
  ROOT t = (s32[], f32[3]) tuple(i1, e)
}
cond {
  p = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  )" + cond_root + R"(
}
ENTRY e {
  x = f32[3] parameter(0)
  s = s32[] constant()" + std::to_string(start) + R"()
  init = (s32[], f32[3]) tuple(s, x)
  ROOT w = (s32[], f32[3]) while(init), condition=cond, body=body
})";
}

// Decides with the VM, as the pipeline does.
absl::StatusOr<PassResult> RunWithVm(HloModule& m) {
  ConstantEvaluator evaluate = [](const HloInstruction& i) -> absl::StatusOr<Literal> {
    auto module = std::make_unique<HloModule>("t");
    auto c = std::make_unique<HloComputation>("t.entry");
    c->set_is_entry(true);
    auto root = CloneInstruction(i, "r");
    for (int64_t k = 0; k < i.operand_count(); ++k) {
      root->ReplaceOperand(k, c->AddInstruction(CloneInstruction(*i.operand(k), absl::StrCat("o", k))));
    }
    c->set_root(c->AddInstruction(std::move(root)));
    module->set_entry(module->AddComputation(std::move(c)));
    CompileOptions options;
    options.passes = "none";
    auto exe = Executable::FromModule(std::move(module), options);
    if (!exe.ok()) return exe.status();
    return (*exe)->Execute({});
  };
  return RunWhileZeroTrip(m, evaluate);
}

TEST(WhileZeroTripTest, RemovesLoopWhoseFirstTestFails) {
  auto m = test::Parse(Loop(10, "ROOT lt = pred[] compare(i, n), direction=LT"));
  ASSERT_NE(m, nullptr);
  auto r = RunWithVm(*m);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->changes, 1);
  EXPECT_EQ(m->entry()->root()->name(), "init");
  ASSERT_TRUE(RunDce(*m).ok());
  EXPECT_EQ(test::CountInModule(*m, HloOpcode::kWhile), 0);
  EXPECT_TRUE(VerifyModule(*m).ok());
}

TEST(WhileZeroTripTest, KeepsLoopThatRuns) {
  auto m = test::Parse(Loop(0, "ROOT lt = pred[] compare(i, n), direction=LT"));
  ASSERT_NE(m, nullptr);
  auto r = RunWithVm(*m);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->changes, 0);
}

TEST(WhileZeroTripTest, ConstantFalseCondition) {
  auto m = test::Parse(Loop(0, "ROOT f = pred[] constant(false)"));
  ASSERT_NE(m, nullptr);
  auto r = RunWhileZeroTrip(*m, nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->changes, 1);
}

TEST(WhileZeroTripTest, ResultEqualsTheRun) {
  const std::string text = Loop(7, "ROOT lt = pred[] compare(i, n), direction=LT");
  CompileOptions off;
  off.passes = "none";
  auto a = Executable::FromText(text);
  auto b = Executable::FromText(text, off);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE((*a)->PassReport().find("removed 1 loops that never run"), std::string::npos)
      << (*a)->PassReport();
  auto x = Literal::Create(Shape(ElementType::kF32, {3}));
  ASSERT_TRUE(x.ok());
  auto ra = (*a)->Execute({&*x});
  auto rb = (*b)->Execute({&*x});
  ASSERT_TRUE(ra.ok() && rb.ok());
  EXPECT_TRUE(ra->BitwiseEqual(*rb));
}

}  // namespace
}  // namespace hlovm::passes
