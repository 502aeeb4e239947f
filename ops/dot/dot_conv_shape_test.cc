#include "ops/dot/dot_conv_shape.h"

#include "ops/common/shape_test_util.h"

namespace hlovm {
namespace {

using testing::S;

DotDimensionNumbers MatMul() {
  DotDimensionNumbers d;
  d.lhs_contracting_dimensions = {1};
  d.rhs_contracting_dimensions = {0};
  return d;
}

TEST(DotShapeTest, Dot) {
  HLOVM_EXPECT_SHAPE(InferDotShape(S("f32[2,3]"), S("f32[3,4]"), MatMul()), "f32[2,4]");
  DotDimensionNumbers b;
  b.lhs_batch_dimensions = {0};
  b.rhs_batch_dimensions = {0};
  b.lhs_contracting_dimensions = {2};
  b.rhs_contracting_dimensions = {1};
  HLOVM_EXPECT_SHAPE(InferDotShape(S("f32[5,2,3]"), S("f32[5,3,4]"), b), "f32[5,2,4]");
  HLOVM_EXPECT_SHAPE(InferDotShape(S("bf16[2,3]"), S("bf16[3,4]"), MatMul(), ElementType::kF32),
                     "f32[2,4]");
  HLOVM_EXPECT_ERROR(InferDotShape(S("f32[2,3]"), S("f32[4,4]"), MatMul()),
                     "Cannot infer shape for dot operation: f32[2,3] <dot> f32[4,4]. "
                     "Contracting dimension sizes do not match.");
  DotDimensionNumbers out = MatMul();
  out.lhs_contracting_dimensions = {2};
  HLOVM_EXPECT_ERROR(InferDotShape(S("f32[2,3]"), S("f32[3,4]"), out),
                     "A dimension number is out of range in Dot");
  HLOVM_EXPECT_ERROR(InferDotShape(S("s32[2,3]"), S("s32[3,4]"), MatMul(), ElementType::kS8),
                     "must not be narrower");
}

TEST(DotShapeTest, RaggedAndScaled) {
  DotDimensionNumbers d = MatMul();
  d.rhs_contracting_dimensions = {1};
  d.lhs_ragged_dimensions = {0};
  d.rhs_group_dimensions = {0};
  HLOVM_EXPECT_SHAPE(InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"), S("s32[3]"), d),
                     "f32[11,7]");
  DotDimensionNumbers c = MatMul();
  c.lhs_ragged_dimensions = {1};
  HLOVM_EXPECT_SHAPE(InferRaggedDotShape(S("f32[11,5]"), S("f32[5,7]"), S("s32[3]"), c),
                     "f32[3,11,7]");
  d.lhs_ragged_dimensions = {};
  HLOVM_EXPECT_ERROR(InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"), S("s32[3]"), d),
                     "exactly one lhs ragged dimension");
  HLOVM_EXPECT_SHAPE(InferScaledDotShape(S("f8e4m3fn[2,32]"), S("f8e4m3fn[32,4]"),
                                         S("f8e8m0fnu[2,1]"), S("f8e8m0fnu[1,4]"), MatMul(),
                                         ElementType::kBF16),
                     "bf16[2,4]");
  HLOVM_EXPECT_ERROR(InferScaledDotShape(S("f8e4m3fn[2,32]"), S("f8e4m3fn[32,4]"),
                                         S("f8e8m0fnu[2]"), S("f8e8m0fnu[1,4]"), MatMul()),
                     "scaled-dot scale f8e8m0fnu[2] does not fit operand f8e4m3fn[2,32]");
}

ConvolutionDimensionNumbers Nhwc() {
  // b01f_01io->b01f
  ConvolutionDimensionNumbers d;
  d.input_batch_dimension = 0;
  d.input_feature_dimension = 3;
  d.input_spatial_dimensions = {1, 2};
  d.kernel_input_feature_dimension = 2;
  d.kernel_output_feature_dimension = 3;
  d.kernel_spatial_dimensions = {0, 1};
  d.output_batch_dimension = 0;
  d.output_feature_dimension = 3;
  d.output_spatial_dimensions = {1, 2};
  return d;
}

TEST(ConvolutionShapeTest, Convolution) {
  Window w(2);
  for (auto& d : w) d.size = 3;
  HLOVM_EXPECT_SHAPE(InferConvolutionShape(S("f32[1,8,8,4]"), S("f32[3,3,4,16]"), 1, 1, w, Nhwc()),
                     "f32[1,6,6,16]");
  Window same = w;
  for (auto& d : same) d.padding_low = d.padding_high = 1;
  HLOVM_EXPECT_SHAPE(
      InferConvolutionShape(S("f32[1,8,8,4]"), S("f32[3,3,4,16]"), 1, 1, same, Nhwc()),
      "f32[1,8,8,16]");
  // Depthwise: feature_group_count = 4.
  HLOVM_EXPECT_SHAPE(InferConvolutionShape(S("f32[1,8,8,4]"), S("f32[3,3,1,4]"), 4, 1, w, Nhwc()),
                     "f32[1,6,6,4]");
  HLOVM_EXPECT_ERROR(InferConvolutionShape(S("f32[1,8,8,4]"), S("f32[3,3,5,16]"), 1, 1, w, Nhwc()),
                     "Expected LHS feature dimension (value 4) to be a multiple of "
                     "feature_group_count (value 1)");
  HLOVM_EXPECT_ERROR(InferConvolutionShape(S("f32[1,8,8,4]"), S("f32[2,3,4,16]"), 1, 1, w, Nhwc()),
                     "Window dimensions do not match RHS shape");
  HLOVM_EXPECT_ERROR(InferConvolutionShape(S("f32[1,8,8]"), S("f32[3,3,4,16]"), 1, 1, w, Nhwc()),
                     "The LHS argument to a convolution should have rank 4");
  HLOVM_EXPECT_ERROR(InferConvolutionShape(S("f32[1,8,8,4]"), S("f32[3,3,4,16]"), 1, 1, Window(1),
                                           Nhwc()),
                     "Window must have same number of dimensions as dimension numbers");
}

}  // namespace
}  // namespace hlovm
