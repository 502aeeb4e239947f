// The parser fills in a result shape the text leaves out from the shared
// shape rules (frontend/shape_inference.h), so that a shape it infers is the one
// the verifier then checks.
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "frontend/parser.h"
#include "frontend/verifier.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace {

using ::testing::HasSubstr;

std::string RootShape(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  if (!m.ok()) return std::string(m.status().message());
  EXPECT_TRUE(VerifyModule(**m).ok()) << text;
  const HloInstruction* root = (*m)->entry()->root();
  absl::StatusOr<Shape> again = InferInstructionShape(*root);
  EXPECT_TRUE(again.ok()) << again.status();
  if (again.ok()) {
    EXPECT_EQ(again->ToString(false), root->shape().ToString(false));
  }
  return root->shape().ToString(true);
}

std::string Entry(const std::string& params, const std::string& root) {
  return "HloModule m\nENTRY e {\n" + params + "\n  ROOT r = " + root + "\n}\n";
}

TEST(ShapeInference, OmittedShapesComeFromTheSharedRules) {
  const std::string x = "  x = f32[2,3]{1,0} parameter(0)";
  EXPECT_EQ(RootShape(Entry(x, "exponential(x)")), "f32[2,3]{1,0}");
  EXPECT_EQ(RootShape(Entry(x, "compare(x, x), direction=LT")), "pred[2,3]{1,0}");
  EXPECT_EQ(RootShape(Entry(x, "transpose(x), dimensions={1,0}")), "f32[3,2]{1,0}");
  EXPECT_EQ(RootShape(Entry(x, "dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={1}")),
            "f32[2,2]{1,0}");
  EXPECT_EQ(RootShape(Entry(x, "concatenate(x, x), dimensions={0}")), "f32[4,3]{1,0}");
  EXPECT_EQ(RootShape(Entry(x, "tuple(x, x)")), "(f32[2,3]{1,0}, f32[2,3]{1,0})");
  // Ops the parser had no rule of its own for.
  EXPECT_EQ(RootShape(Entry(x, "slice(x), slice={[0:1], [1:3]}")), "f32[1,2]{1,0}");
  EXPECT_EQ(RootShape(Entry(x, "reverse(x), dimensions={0}")), "f32[2,3]{1,0}");
}

TEST(ShapeInference, ReductionsReadTheirComputation) {
  const std::string text = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = add(a, b)
}
ENTRY e {
  x = f32[2,3] parameter(0)
  ROOT r = reduce(x, f32[] constant(0)), dimensions={1}, to_apply=add
})";
  EXPECT_EQ(RootShape(text), "f32[2]{0}");
}

TEST(ShapeInference, ShapesThatMustBeWrittenAndRulesThatRefuse) {
  const std::string x = "  x = f32[2,3] parameter(0)\n  i = s32[5] parameter(1)";
  absl::StatusOr<std::unique_ptr<HloModule>> reshape = ParseHloModule(Entry(x, "reshape(x)"));
  ASSERT_FALSE(reshape.ok());
  EXPECT_THAT(std::string(reshape.status().message()),
              HasSubstr("cannot infer shape for opcode: reshape"));
  absl::StatusOr<std::unique_ptr<HloModule>> add = ParseHloModule(Entry(x, "add(x, i)"));
  ASSERT_FALSE(add.ok());
  EXPECT_THAT(std::string(add.status().message()),
              HasSubstr("failed to infer shape for opcode: add, error: Binary op add with "
                        "different element types: f32[2,3] and s32[5]."));
}

}  // namespace
}  // namespace hlovm
