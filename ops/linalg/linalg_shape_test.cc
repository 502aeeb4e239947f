#include "ops/linalg/linalg_shape.h"

#include "ops/common/shape_test_util.h"

namespace hlovm {
namespace {

using testing::S;

TEST(LinalgShapeTest, Cholesky) {
  HLOVM_EXPECT_SHAPE(InferCholeskyShape(S("f32[2,4,4]")), "f32[2,4,4]");
  HLOVM_EXPECT_ERROR(InferCholeskyShape(S("f32[4,3]")), "two minor dimensions");
  HLOVM_EXPECT_ERROR(InferCholeskyShape(S("f32[4]")), "rank >= 2");
  HLOVM_EXPECT_ERROR(InferCholeskyShape(S("s32[4,4]")), "floating or complex");
}

TEST(LinalgShapeTest, TriangularSolve) {
  HLOVM_EXPECT_SHAPE(InferTriangularSolveShape(S("f32[4,4]"), S("f32[4,3]"), true), "f32[4,3]");
  HLOVM_EXPECT_SHAPE(InferTriangularSolveShape(S("f32[4,4]"), S("f32[3,4]"), false), "f32[3,4]");
  HLOVM_EXPECT_ERROR(InferTriangularSolveShape(S("f32[4,4]"), S("f32[3,4]"), true),
                     "shared dimension");
  HLOVM_EXPECT_ERROR(InferTriangularSolveShape(S("f32[4,4]"), S("f64[4,3]"), true),
                     "equal element types");
  HLOVM_EXPECT_ERROR(InferTriangularSolveShape(S("f32[2,4,4]"), S("f32[3,4,3]"), true),
                     "leading batch dimensions");
}

}  // namespace
}  // namespace hlovm
