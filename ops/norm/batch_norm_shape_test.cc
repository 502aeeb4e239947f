#include "ops/norm/batch_norm_shape.h"

#include "ops/common/shape_test_util.h"

namespace hlovm {
namespace {

using testing::S;

TEST(BatchNormShapeTest, AllThree) {
  const Shape x = S("f32[2,3,4]"), v = S("f32[3]"), w = S("f32[4]");
  HLOVM_EXPECT_SHAPE(InferBatchNormTrainingShape(x, v, v, 1), "(f32[2,3,4], f32[3], f32[3])");
  HLOVM_EXPECT_SHAPE(InferBatchNormInferenceShape(x, v, v, v, v, 1), "f32[2,3,4]");
  HLOVM_EXPECT_SHAPE(InferBatchNormGradShape(x, v, v, v, x, 1), "(f32[2,3,4], f32[3], f32[3])");
  HLOVM_EXPECT_ERROR(InferBatchNormTrainingShape(x, w, v, 1),
                     "The size of scale should be the same as feature count");
  HLOVM_EXPECT_ERROR(InferBatchNormTrainingShape(x, v, v, 3),
                     "Expected feature_index of batch-norm-training to be smaller than the rank");
  HLOVM_EXPECT_ERROR(InferBatchNormInferenceShape(S("s32[2,3]"), v, v, v, v, 1),
                     "must have a floating point element type");
  HLOVM_EXPECT_ERROR(InferBatchNormGradShape(x, v, v, v, S("f32[2,3,5]"), 1), "output_grad");
}

}  // namespace
}  // namespace hlovm
