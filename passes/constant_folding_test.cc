#include "passes/constant_folding.h"

#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "passes/dce.h"
#include "passes/test_util.h"
#include "vm/api.h"

namespace hlovm::passes {
namespace {

using test::Count;
using test::Parse;

// Records what it is asked to evaluate and answers with a literal whose
// bytes are all 0x2a.
struct FakeEvaluator {
  std::vector<std::string>* asked;
  absl::StatusOr<Literal> operator()(const HloInstruction& i) const {
    asked->push_back(i.name());
    auto lit = Literal::Create(i.shape());
    if (!lit.ok()) return lit.status();
    std::memset(lit->untyped_data(), 0x2a, i.shape().element_count() * 4);
    return lit;
  }
};

TEST(ConstantFoldingTest, FoldsChainsOfConstantOperands) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = s32[4] parameter(0)
  a = s32[4] constant({1, 2, 3, 4})
  b = s32[4] multiply(a, a)
  c = s32[4] negate(b)
  big = s32[100000] iota(), iota_dimension=0
  bigger = s32[100000] multiply(big, big)
  z = s32[] constant(0)
  bz = s32[4] broadcast(z), dimensions={}
  d = s32[4] add(c, p)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[4] rng(lo, hi), distribution=rng_uniform
  ROOT t = (s32[4], s32[4], s32[100000], f32[4]) tuple(d, bz, bigger, r)
})");
  ASSERT_NE(m, nullptr);
  std::vector<std::string> asked;
  ConstantFoldingOptions options;
  options.evaluate = FakeEvaluator{&asked};
  auto result = RunConstantFolding(*m, options);
  ASSERT_TRUE(result.ok());
  // b, then c (its operand is now a constant); not the iota-fed multiply
  // (too large), the broadcast, the rng or anything reading p.
  EXPECT_EQ(asked, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(result->changes, 2);
  ASSERT_TRUE(RunDce(*m).ok());
  const HloInstruction* d = m->entry()->root()->operand(0);
  EXPECT_EQ(d->operand(0)->opcode(), HloOpcode::kConstant);
  EXPECT_EQ(Count(*m->entry(), HloOpcode::kMultiply), 1);
}

TEST(ConstantFoldingTest, WithoutEvaluatorNothingChanges) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  a = f32[2] constant({1, 2})
  ROOT b = f32[2] negate(a)
})");
  ASSERT_NE(m, nullptr);
  auto result = RunConstantFolding(*m, {});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->changes, 0);
}

// Compiles `text` with the default passes, whose report must say
// `folded`, and without passes; both runs give the same bits.
void ExpectFoldedLikeTheRun(const std::string& text, const std::string& folded) {
  CompileOptions off;
  off.passes = "none";
  auto a = Executable::FromText(text);
  auto b = Executable::FromText(text, off);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_NE((*a)->PassReport().find(folded), std::string::npos) << (*a)->PassReport();
  auto ra = (*a)->Execute({});
  auto rb = (*b)->Execute({});
  ASSERT_TRUE(ra.ok() && rb.ok());
  EXPECT_TRUE(ra->BitwiseEqual(*rb)) << ra->ToString() << "\n" << rb->ToString();
}

TEST(ConstantFoldingTest, VmFoldedValuesEqualTheRun) {
  // Division by zero, NaN, signed zeros and integer overflow, folded by the
  // VM through the pipeline, against the same module run op by op.
  const std::string text = R"(HloModule m
ENTRY e {
  a = f32[4] constant({1, -0, nan, 3e38})
  b = f32[4] constant({0, 0, 1, 10})
  q = f32[4] divide(a, b)
  m = f32[4] multiply(a, b)
  i = s32[3] constant({2147483647, -2147483648, 7})
  j = s32[3] constant({1, -1, 0})
  s = s32[3] add(i, j)
  d = s32[3] divide(i, j)
  h = bf16[4] convert(q)
  ROOT t = (f32[4], f32[4], s32[3], s32[3], bf16[4]) tuple(q, m, s, d, h)
})";
  ExpectFoldedLikeTheRun(text, "folded 5 instructions");
}

TEST(ConstantFoldingTest, FoldedValuesGoWhereTheirInstructionsWere) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  a = s32[4] constant({1, 2, 3, 4})
  p = s32[4] parameter(0)
  b = s32[4] multiply(a, a)
  c = s32[4] add(b, p)
  ROOT d = s32[4] negate(c)
})");
  ASSERT_NE(m, nullptr);
  std::vector<std::string> asked;
  ConstantFoldingOptions options;
  options.evaluate = FakeEvaluator{&asked};
  ASSERT_TRUE(RunConstantFolding(*m, options).ok());
  // The value sits just before the multiply it replaces, so every operand
  // still comes before its users in the list.
  std::vector<std::string> names;
  for (const auto& i : m->entry()->instructions()) names.push_back(i->name());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "p", "b.folded", "b", "c", "d"}));
}

TEST(ConstantFoldingTest, VmFoldsReshapesAndBitcastsOfConstants) {
  // Row-major reshapes and bitcasts take the constant's bytes; a reshape
  // out of a column-major constant is evaluated by the VM. All against the
  // run without passes.
  const std::string text = R"(HloModule m
ENTRY e {
  a = f32[2,3]{1,0} constant({{1, 2, 3}, {4, 5, 6}})
  r = f32[3,2]{1,0} reshape(a)
  b = f32[6]{0} bitcast(a)
  c = f32[2,3]{0,1} constant({{1, 2, 3}, {4, 5, 6}})
  rc = f32[6]{0} reshape(c)
  e = f32[0,4]{1,0} constant({})
  re = f32[4,0]{1,0} reshape(e)
  ROOT t = (f32[3,2], f32[6], f32[6], f32[4,0]) tuple(r, b, rc, re)
})";
  ExpectFoldedLikeTheRun(text, "folded 4 instructions");
}

}  // namespace
}  // namespace hlovm::passes
