#include "ops/custom/custom_call_shape.h"

#include "ops/common/shape_test_util.h"

namespace hlovm {
namespace {

using testing::S;

TEST(CustomCallShapeTest, LayoutConstraints) {
  const Shape a = S("f32[2,3]"), b = S("s32[4]");
  const Shape* ops[] = {&a, &b};
  HLOVM_EXPECT_SHAPE(InferCustomCallShape(ops, S("f32[7]"), std::nullopt, {}), "f32[7]");
  std::vector<Shape> ok = {S("f32[2,3]{0,1}"), S("s32[4]{0}")};
  HLOVM_EXPECT_SHAPE(InferCustomCallShape(ops, S("f32[7]"), ok, {}), "f32[7]");
  std::vector<Shape> few = {S("f32[2,3]{0,1}")};
  HLOVM_EXPECT_ERROR(InferCustomCallShape(ops, S("f32[7]"), few, {}),
                     "operand_layout_constraints gives 1 shapes for 2 operands.");
  std::vector<Shape> wrong = {S("f32[3,2]{0,1}"), S("s32[4]{0}")};
  HLOVM_EXPECT_ERROR(InferCustomCallShape(ops, S("f32[7]"), wrong, {}),
                     "gives operand 0 the shape f32[3,2] but the operand is f32[2,3]");
}

TEST(CustomCallShapeTest, Aliasing) {
  const Shape a = S("f32[2,3]"), b = S("(s32[4], f32[])");
  const Shape* ops[] = {&a, &b};
  const Shape out = S("(f32[2,3], s32[4])");
  OutputOperandAlias first{{0}, 0, {}};
  OutputOperandAlias second{{1}, 1, {0}};
  HLOVM_EXPECT_SHAPE(InferCustomCallShape(ops, out, std::nullopt, {first, second}),
                     "(f32[2,3], s32[4])");
  OutputOperandAlias mismatch{{1}, 0, {}};
  HLOVM_EXPECT_ERROR(InferCustomCallShape(ops, out, std::nullopt, {mismatch}),
                     "must agree: output {1} is s32[4] but operand 0 {} is f32[2,3]");
  OutputOperandAlias bad_operand{{0}, 2, {}};
  HLOVM_EXPECT_ERROR(CheckOutputOperandAliasing(out, ops, {bad_operand}),
                     "names operand 2, but there are 2 operands");
  OutputOperandAlias bad_index{{2}, 0, {}};
  HLOVM_EXPECT_ERROR(CheckOutputOperandAliasing(out, ops, {bad_index}),
                     "names output index {2}");
}

}  // namespace
}  // namespace hlovm
