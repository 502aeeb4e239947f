#include "ops/shape/shape_ops_shape.h"

#include "ops/common/shape_test_util.h"

namespace hlovm {
namespace {

using testing::S;

TEST(ShapeOpsShapeTest, Broadcast) {
  HLOVM_EXPECT_SHAPE(InferBroadcastShape(S("f32[3]"), S("f32[2,3]"), {1}), "f32[2,3]");
  HLOVM_EXPECT_SHAPE(InferBroadcastShape(S("f32[]"), S("f32[2,3]"), {}), "f32[2,3]");
  HLOVM_EXPECT_ERROR(InferBroadcastShape(S("f32[3]"), S("f32[2,3]"), {0}),
                     "operand dimension 0 (size 3) maps to result dimension 0 (size 2)");
  // A size-1 dimension is not stretched (XLA's verifier; the kernels copy).
  HLOVM_EXPECT_ERROR(InferBroadcastShape(S("f32[2,1]"), S("f32[2,5]"), {0, 1}),
                     "operand dimension 1 (size 1) maps to result dimension 1 (size 5); "
                     "broadcast keeps the size of every operand dimension");
  HLOVM_EXPECT_ERROR(InferBroadcastShape(S("f32[3]"), S("f32[2,3]"), {2}),
                     "Broadcast dimension 2 is out of bound");
  HLOVM_EXPECT_ERROR(InferBroadcastShape(S("f32[3]"), S("f32[2,3]"), {}),
                     "Size of broadcast_dimensions has to match operand's rank");
}

TEST(ShapeOpsShapeTest, ReshapeAndTranspose) {
  HLOVM_EXPECT_SHAPE(InferReshapeShape(S("f32[2,3]"), S("f32[6]")), "f32[6]");
  HLOVM_EXPECT_ERROR(InferReshapeShape(S("f32[2,3]"), S("f32[7]")),
                     "Reshape operation has mismatched element counts: from=6 (f32[2,3]) to=7 "
                     "(f32[7]).");
  HLOVM_EXPECT_SHAPE(InferTransposeShape(S("f32[2,3,4]"), {2, 0, 1}), "f32[4,2,3]");
  HLOVM_EXPECT_ERROR(InferTransposeShape(S("f32[2,3]"), {0, 0}),
                     "Transpose dimensions [0,0] are not a permutation of the operand "
                     "dimensions (operand shape is f32[2,3]).");
}

TEST(ShapeOpsShapeTest, Slices) {
  HLOVM_EXPECT_SHAPE(InferSliceShape(S("f32[10,8]"), {1, 0}, {9, 8}, {2, 3}), "f32[4,3]");
  HLOVM_EXPECT_ERROR(InferSliceShape(S("f32[10]"), {0}, {11}, {1}),
                     "Limit index (11) must be less than or equal to dimension size (10)");
  HLOVM_EXPECT_ERROR(InferSliceShape(S("f32[10]"), {0}, {5}, {0}), "Stride (0) must be positive.");
  HLOVM_EXPECT_ERROR(InferSliceShape(S("f32[10]"), {6}, {5}, {1}), "Limit index (5) must be greater");
  HLOVM_EXPECT_ERROR(InferSliceShape(S("f32[10,2]"), {0}, {5}, {1}),
                     "Slice index count does not match argument rank: 1 vs 2.");
  const Shape i = S("s32[]"), f = S("f32[]");
  const Shape* idx[] = {&i, &i};
  HLOVM_EXPECT_SHAPE(InferDynamicSliceShape(S("f32[10,8]"), idx, {2, 8}), "f32[2,8]");
  HLOVM_EXPECT_ERROR(InferDynamicSliceShape(S("f32[10,8]"), idx, {2, 9}),
                     "Slice dim size 9 greater than dynamic slice dimension: 8.");
  const Shape* fidx[] = {&i, &f};
  HLOVM_EXPECT_ERROR(InferDynamicSliceShape(S("f32[10,8]"), fidx, {2, 8}), "integral type");
  HLOVM_EXPECT_SHAPE(InferDynamicUpdateSliceShape(S("f32[10,8]"), S("f32[2,8]"), idx),
                     "f32[10,8]");
  HLOVM_EXPECT_ERROR(InferDynamicUpdateSliceShape(S("f32[10,8]"), S("f32[2,9]"), idx),
                     "Size index 9 to dynamic update slice must be <= dimension size 8.");
  HLOVM_EXPECT_ERROR(InferDynamicUpdateSliceShape(S("f32[10,8]"), S("s32[2,8]"), idx),
                     "element type does not match");
}

TEST(ShapeOpsShapeTest, Concatenate) {
  const Shape a = S("f32[2,3]"), b = S("f32[4,3]"), c = S("f32[2,3,1]"), d = S("s32[2,3]"),
              e = S("f32[2,4]");
  const Shape* ok[] = {&a, &b};
  HLOVM_EXPECT_SHAPE(InferConcatenateShape(ok, 0), "f32[6,3]");
  const Shape* ranks[] = {&a, &c};
  HLOVM_EXPECT_ERROR(InferConcatenateShape(ranks, 0),
                     "Cannot concatenate arrays with different ranks: 2 (f32[2,3]) vs 3 "
                     "(f32[2,3,1]).");
  const Shape* types[] = {&a, &d};
  HLOVM_EXPECT_ERROR(InferConcatenateShape(types, 0),
                     "Cannot concatenate arrays with different element types: f32 vs s32.");
  const Shape* dims[] = {&a, &e};
  HLOVM_EXPECT_ERROR(InferConcatenateShape(dims, 0), "Dimension 1 in both shapes must be equal");
  HLOVM_EXPECT_ERROR(InferConcatenateShape(ok, 2), "Concatenate dimension out of bounds: 2.");
  HLOVM_EXPECT_ERROR(InferConcatenateShape({}, 0), "Concatenate expects at least one argument.");
}

TEST(ShapeOpsShapeTest, PadReverseIota) {
  PaddingConfig p = {{1, 2, 0}, {0, 0, 1}};
  HLOVM_EXPECT_SHAPE(InferPadShape(S("f32[3,4]"), S("f32[]"), p), "f32[6,7]");
  HLOVM_EXPECT_ERROR(InferPadShape(S("f32[3,4]"), S("f32[1]"), p), "non-scalar padding values");
  HLOVM_EXPECT_ERROR(InferPadShape(S("f32[3]"), S("f32[]"), p),
                     "The rank of the operand and the padding configuration do not match");
  PaddingConfig neg = {{-5, 0, 0}};
  HLOVM_EXPECT_ERROR(InferPadShape(S("f32[3]"), S("f32[]"), neg), "negative size");
  HLOVM_EXPECT_SHAPE(InferReverseShape(S("f32[3,4]"), {1}), "f32[3,4]");
  HLOVM_EXPECT_ERROR(InferReverseShape(S("f32[3,4]"), {2}), "out-of-bounds");
  HLOVM_EXPECT_ERROR(InferReverseShape(S("f32[3,4]"), {0, 0}), "must be unique");
  HLOVM_EXPECT_SHAPE(InferIotaShape(S("s32[4,5]"), 1), "s32[4,5]");
  HLOVM_EXPECT_ERROR(InferIotaShape(S("s32[4,5]"), 2), "iota dimension");
  HLOVM_EXPECT_ERROR(InferIotaShape(S("s32[]"), 0), "Iota does not support scalars.");
}

TEST(ShapeOpsShapeTest, BitcastAndDynamicDims) {
  HLOVM_EXPECT_SHAPE(InferBitcastShape(S("f32[2,3]"), S("s32[6]")), "s32[6]");
  HLOVM_EXPECT_SHAPE(InferBitcastShape(S("f32[2]"), S("u8[8]")), "u8[8]");
  HLOVM_EXPECT_ERROR(InferBitcastShape(S("f32[2,3]"), S("f32[7]")), "different shape sizes");
  HLOVM_EXPECT_SHAPE(InferGetDimensionSizeShape(S("f32[2,3]"), 1), "s32[]");
  HLOVM_EXPECT_ERROR(InferGetDimensionSizeShape(S("f32[2,3]"), 2), "out of bounds");
  auto r = InferSetDimensionSizeShape(S("f32[2,3]"), S("s32[]"), 1);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->is_dynamic_dimension(1));
  EXPECT_FALSE(r->is_dynamic_dimension(0));
  HLOVM_EXPECT_ERROR(InferSetDimensionSizeShape(S("f32[2,3]"), S("s64[]"), 1), "S32 scalar");
  HLOVM_EXPECT_SHAPE(InferCopyStartShape(S("f32[2]")), "(f32[2], f32[2], u32[])");
  HLOVM_EXPECT_SHAPE(InferCopyDoneShape(S("(f32[2], f32[2], u32[])")), "f32[2]");
  HLOVM_EXPECT_ERROR(InferCopyDoneShape(S("f32[2]")), "copy-start");
}

}  // namespace
}  // namespace hlovm
