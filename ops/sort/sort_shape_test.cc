#include "ops/sort/sort_shape.h"

#include "ops/common/shape_test_util.h"

namespace hlovm {
namespace {

using testing::S;

TEST(SortShapeTest, Sort) {
  ComputationSignature lt{{S("f32[]"), S("f32[]")}, S("pred[]")};
  const Shape keys = S("f32[4,5]"), vals = S("s32[4,5]"), bad = S("s32[4,6]");
  const Shape* one[] = {&keys};
  HLOVM_EXPECT_SHAPE(InferSortShape(one, 1, lt), "f32[4,5]");
  HLOVM_EXPECT_ERROR(InferSortShape(one, 2, lt),
                     "Expected the dimension to sort (2) to be smaller than the rank of operand 0");
  const Shape* two[] = {&keys, &vals};
  ComputationSignature lt2{{S("f32[]"), S("f32[]"), S("s32[]"), S("s32[]")}, S("pred[]")};
  HLOVM_EXPECT_SHAPE(InferSortShape(two, 0, lt2), "(f32[4,5], s32[4,5])");
  HLOVM_EXPECT_ERROR(InferSortShape(two, 0, lt),
                     "Expected Sort compare computation to take 4 parameters, but got 2");
  const Shape* mismatch[] = {&keys, &bad};
  HLOVM_EXPECT_ERROR(InferSortShape(mismatch, 0, lt2), "Sort keys and values dimensions must match");
  ComputationSignature not_pred{{S("f32[]"), S("f32[]")}, S("f32[]")};
  HLOVM_EXPECT_ERROR(InferSortShape(one, 0, not_pred),
                     "does not lead to a scalar predicate shape");
  ComputationSignature wrong_type{{S("s32[]"), S("s32[]")}, S("pred[]")};
  HLOVM_EXPECT_ERROR(InferSortShape(one, 0, wrong_type), "0-th parameter of the Sort compare");
}

TEST(SortShapeTest, TopK) {
  HLOVM_EXPECT_SHAPE(InferTopKShape(S("f32[3,10]"), 4), "(f32[3,4], s32[3,4])");
  HLOVM_EXPECT_ERROR(InferTopKShape(S("f32[3,10]"), 11), "k=11 is out of range");
  HLOVM_EXPECT_ERROR(InferTopKShape(S("f32[]"), 1), "rank >= 1");
}

}  // namespace
}  // namespace hlovm
