#include "ops/elementwise/elementwise_shape.h"

#include "ops/common/shape_test_util.h"

namespace hlovm {
namespace {

using testing::S;

TEST(ElementwiseShapeTest, Unary) {
  HLOVM_EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kExp, S("f32[2,3]")), "f32[2,3]");
  HLOVM_EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kAbs, S("c64[4]")), "f32[4]");
  HLOVM_EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kAbs, S("s32[4]")), "s32[4]");
  HLOVM_EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kReal, S("c128[4]")), "f64[4]");
  HLOVM_EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kIsFinite, S("bf16[3]")), "pred[3]");
  HLOVM_EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kNot, S("pred[]")), "pred[]");
  HLOVM_EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kCopy, S("(f32[], s32[])")), "(f32[], s32[])");
  HLOVM_EXPECT_ERROR(InferUnaryOpShape(HloOpcode::kFloor, S("s32[2]")),
                     "Expected element type in shape to be floating for floor operation; got s32.");
  HLOVM_EXPECT_ERROR(InferUnaryOpShape(HloOpcode::kExp, S("s32[2]")), "floating or complex");
  HLOVM_EXPECT_ERROR(InferUnaryOpShape(HloOpcode::kNot, S("f32[2]")), "pred or integral");
  HLOVM_EXPECT_ERROR(InferUnaryOpShape(HloOpcode::kClz, S("f32[2]")), "integral");
  HLOVM_EXPECT_ERROR(InferUnaryOpShape(HloOpcode::kAbs, S("u8[2]")), "signed or complex");
  HLOVM_EXPECT_ERROR(InferUnaryOpShape(HloOpcode::kNegate, S("(f32[])")),
                     "Expected array argument for operand of unary operation");
}

TEST(ElementwiseShapeTest, Binary) {
  HLOVM_EXPECT_SHAPE(InferBinaryOpShape(HloOpcode::kAdd, S("f32[2,3]"), S("f32[2,3]")),
                     "f32[2,3]");
  HLOVM_EXPECT_SHAPE(InferBinaryOpShape(HloOpcode::kAdd, S("f32[2,1]"), S("f32[2,3]")),
                     "f32[2,3]");
  HLOVM_EXPECT_SHAPE(InferBinaryOpShape(HloOpcode::kMultiply, S("f32[]"), S("f32[4]")), "f32[4]");
  HLOVM_EXPECT_SHAPE(InferBinaryOpShape(HloOpcode::kAdd, S("bf16[2]"), S("f32[2]")), "f32[2]");
  HLOVM_EXPECT_SHAPE(InferBinaryOpShape(HloOpcode::kCompare, S("s32[5]"), S("s32[5]")), "pred[5]");
  HLOVM_EXPECT_SHAPE(InferBinaryOpShape(HloOpcode::kComplex, S("f32[5]"), S("f32[5]")), "c64[5]");
  HLOVM_EXPECT_SHAPE(InferBinaryOpShape(HloOpcode::kAnd, S("pred[5]"), S("pred[5]")), "pred[5]");
  HLOVM_EXPECT_ERROR(InferBinaryOpShape(HloOpcode::kAdd, S("f32[2,3]"), S("f32[3,2]")),
                     "Binary op add with incompatible shapes: f32[2,3] and f32[3,2].");
  HLOVM_EXPECT_ERROR(InferBinaryOpShape(HloOpcode::kAdd, S("f32[2]"), S("s32[2]")),
                     "Binary op add with different element types: f32[2] and s32[2].");
  HLOVM_EXPECT_ERROR(InferBinaryOpShape(HloOpcode::kSubtract, S("pred[2]"), S("pred[2]")),
                     "arithmetic type");
  HLOVM_EXPECT_ERROR(InferBinaryOpShape(HloOpcode::kAnd, S("f32[2]"), S("f32[2]")),
                     "Expected pred or integral type in argument to and/or operation");
  HLOVM_EXPECT_ERROR(InferBinaryOpShape(HloOpcode::kShiftLeft, S("f32[2]"), S("f32[2]")),
                     "integral");
}

TEST(ElementwiseShapeTest, SelectAndClamp) {
  HLOVM_EXPECT_SHAPE(InferSelectShape(S("pred[3]"), S("f32[3]"), S("f32[3]")), "f32[3]");
  HLOVM_EXPECT_SHAPE(InferSelectShape(S("pred[]"), S("f32[3]"), S("f32[3]")), "f32[3]");
  HLOVM_EXPECT_ERROR(InferSelectShape(S("s32[3]"), S("f32[3]"), S("f32[3]")), "PRED");
  HLOVM_EXPECT_ERROR(InferSelectShape(S("pred[3]"), S("f32[3]"), S("f32[4]")),
                     "Operands to select must be the same shape");
  HLOVM_EXPECT_ERROR(InferSelectShape(S("pred[4]"), S("f32[3]"), S("f32[3]")),
                     "Operands to select and predicate must be the same shape");
  HLOVM_EXPECT_SHAPE(InferClampShape(S("f32[]"), S("f32[3]"), S("f32[]")), "f32[3]");
  HLOVM_EXPECT_SHAPE(InferClampShape(S("f32[3]"), S("f32[3]"), S("f32[3]")), "f32[3]");
  HLOVM_EXPECT_ERROR(InferClampShape(S("f32[2]"), S("f32[3]"), S("f32[]")),
                     "Clamp with incompatible shapes");
  HLOVM_EXPECT_ERROR(InferClampShape(S("s32[]"), S("f32[3]"), S("f32[]")),
                     "Clamp with incompatible element types");
}

TEST(ElementwiseShapeTest, Conversions) {
  HLOVM_EXPECT_SHAPE(InferConvertShape(S("f32[2]"), ElementType::kS8), "s8[2]");
  HLOVM_EXPECT_ERROR(InferConvertShape(S("(f32[2])"), ElementType::kS8),
                     "Convert does not allow non-arrays");
  HLOVM_EXPECT_SHAPE(InferConvertShape(S("f32[2]"), ElementType::kC64), "c64[2]");
  HLOVM_EXPECT_SHAPE(InferConvertShape(S("c64[]"), ElementType::kC128), "c128[]");
  HLOVM_EXPECT_ERROR(InferConvertShape(S("c64[2]"), ElementType::kF32),
                     "Conversion from complex to real type");
  HLOVM_EXPECT_SHAPE(InferBitcastConvertShape(S("f32[2]"), ElementType::kS32), "s32[2]");
  HLOVM_EXPECT_SHAPE(InferBitcastConvertShape(S("f32[2]"), ElementType::kU8), "u8[2,4]");
  HLOVM_EXPECT_SHAPE(InferBitcastConvertShape(S("u16[3,2]"), ElementType::kF32), "f32[3]");
  HLOVM_EXPECT_ERROR(InferBitcastConvertShape(S("u16[3,3]"), ElementType::kF32),
                     "Last dimension of input shape=3 is not equal to ratio of bit-widths=2");
  HLOVM_EXPECT_ERROR(InferBitcastConvertShape(S("c64[3]"), ElementType::kF64),
                     "Conversion between complex and real type");
  HLOVM_EXPECT_SHAPE(InferReducePrecisionShape(S("f32[4]"), 5, 10), "f32[4]");
  HLOVM_EXPECT_ERROR(InferReducePrecisionShape(S("f32[4]"), 0, 10),
                     "Expected exponent_bits >= 1; got 0.");
  HLOVM_EXPECT_ERROR(InferReducePrecisionShape(S("s32[4]"), 5, 10), "floating point");
  HLOVM_EXPECT_SHAPE(InferStochasticConvertShape(S("f32[4]"), S("u32[4]"), ElementType::kS8),
                     "s8[4]");
  HLOVM_EXPECT_ERROR(InferStochasticConvertShape(S("f32[4]"), S("u16[4]"), ElementType::kS8),
                     "same bits");
  HLOVM_EXPECT_ERROR(InferStochasticConvertShape(S("f32[4]"), S("s32[4]"), ElementType::kS8),
                     "unsigned integers");
}

TEST(ElementwiseShapeTest, Map) {
  ComputationSignature add{{S("f32[]"), S("f32[]")}, S("f32[]")};
  const Shape a = S("f32[2,3]"), b = S("f32[2,3]"), c = S("f32[3,2]");
  const Shape* ok[] = {&a, &b};
  HLOVM_EXPECT_SHAPE(InferMapShape(ok, add, {0, 1}), "f32[2,3]");
  const Shape* bad[] = {&a, &c};
  HLOVM_EXPECT_ERROR(InferMapShape(bad, add, {0, 1}),
                     "Map operation requires all operands to have the same shape");
  HLOVM_EXPECT_ERROR(InferMapShape(ok, add, {0}), "Map applied to a subset of dimensions");
  const Shape* one[] = {&a};
  HLOVM_EXPECT_ERROR(InferMapShape(one, add, {0, 1}),
                     "Map applied function arity must match number of arguments");
  ComputationSignature vec{{S("f32[]"), S("f32[]")}, S("f32[2]")};
  HLOVM_EXPECT_ERROR(InferMapShape(ok, vec, {0, 1}), "Mapped computation's result has to be a scalar");
}

}  // namespace
}  // namespace hlovm
