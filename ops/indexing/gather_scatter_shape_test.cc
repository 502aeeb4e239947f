#include "ops/indexing/gather_scatter_shape.h"

#include "ops/common/shape_test_util.h"

namespace hlovm {
namespace {

using testing::S;

GatherDimensionNumbers RowGather() {
  // operand [N, D], indices [B, 1] -> [B, D]
  GatherDimensionNumbers d;
  d.offset_dims = {1};
  d.collapsed_slice_dims = {0};
  d.start_index_map = {0};
  d.index_vector_dim = 1;
  return d;
}

TEST(GatherShapeTest, Valid) {
  HLOVM_EXPECT_SHAPE(InferGatherShape(S("f32[10,4]"), S("s32[5,1]"), RowGather(), {1, 4}),
                     "f32[5,4]");
  // Implicit trailing index vector dimension.
  GatherDimensionNumbers d = RowGather();
  HLOVM_EXPECT_SHAPE(InferGatherShape(S("f32[10,4]"), S("s32[5]"), d, {1, 4}), "f32[5,4]");
  // Batching dims: operand [B, N, D], indices [B, K, 1] -> [B, K, D].
  GatherDimensionNumbers b;
  b.offset_dims = {2};
  b.collapsed_slice_dims = {1};
  b.start_index_map = {1};
  b.operand_batching_dims = {0};
  b.start_indices_batching_dims = {0};
  b.index_vector_dim = 2;
  HLOVM_EXPECT_SHAPE(InferGatherShape(S("f32[3,10,4]"), S("s32[3,7,1]"), b, {1, 1, 4}),
                     "f32[3,7,4]");
}

TEST(GatherShapeTest, Invalid) {
  HLOVM_EXPECT_ERROR(InferGatherShape(S("f32[10,4]"), S("f32[5,1]"), RowGather(), {1, 4}),
                     "must be an integral tensor");
  HLOVM_EXPECT_ERROR(InferGatherShape(S("f32[10,4]"), S("s32[5,1]"), RowGather(), {1, 5}),
                     "Slice size at index 1 in gather op is out of range");
  HLOVM_EXPECT_ERROR(InferGatherShape(S("f32[10,4]"), S("s32[5,1]"), RowGather(), {2, 4}),
                     "Gather op can only collapse slice dims with bound 1 or 0");
  HLOVM_EXPECT_ERROR(InferGatherShape(S("f32[10,4]"), S("s32[5,2]"), RowGather(), {1, 4}),
                     "elements in start_index_map");
  HLOVM_EXPECT_ERROR(InferGatherShape(S("f32[10,4]"), S("s32[5,1]"), RowGather(), {1}),
                     "one slice size for every input dimension");
  GatherDimensionNumbers d = RowGather();
  d.index_vector_dim = 3;
  HLOVM_EXPECT_ERROR(InferGatherShape(S("f32[10,4]"), S("s32[5,1]"), d, {1, 4}),
                     "Gather index leaf dimension must be within");
}

ScatterDimensionNumbers RowScatter() {
  // operand [N, D], indices [B, 1], updates [B, D]
  ScatterDimensionNumbers d;
  d.update_window_dims = {1};
  d.inserted_window_dims = {0};
  d.scatter_dims_to_operand_dims = {0};
  d.index_vector_dim = 1;
  return d;
}

TEST(ScatterShapeTest, ValidAndInvalid) {
  ComputationSignature add{{S("f32[]"), S("f32[]")}, S("f32[]")};
  const Shape op = S("f32[10,4]"), idx = S("s32[5,1]"), upd = S("f32[5,4]");
  const Shape* ok[] = {&op, &idx, &upd};
  HLOVM_EXPECT_SHAPE(InferScatterShape(ok, RowScatter(), add), "f32[10,4]");
  const Shape big = S("f32[5,5]");
  const Shape* too_big[] = {&op, &idx, &big};
  HLOVM_EXPECT_ERROR(InferScatterShape(too_big, RowScatter(), add),
                     "Bounds of the window dimensions of updates must not exceed");
  const Shape rows = S("f32[6,4]");
  const Shape* wrong_rows[] = {&op, &idx, &rows};
  HLOVM_EXPECT_ERROR(InferScatterShape(wrong_rows, RowScatter(), add),
                     "Bounds of the scatter dimensions of updates must be same");
  const Shape rank3 = S("f32[5,4,1]");
  const Shape* wrong_rank[] = {&op, &idx, &rank3};
  HLOVM_EXPECT_ERROR(InferScatterShape(wrong_rank, RowScatter(), add),
                     "Updates tensor must be of rank 2; got 3.");
  ComputationSignature cmp{{S("f32[]"), S("f32[]")}, S("pred[]")};
  HLOVM_EXPECT_ERROR(InferScatterShape(ok, RowScatter(), cmp), "Reduction function");
  // Two operands, two updates.
  const Shape op2 = S("s32[10,4]"), upd2 = S("s32[5,4]");
  const Shape* two[] = {&op, &op2, &idx, &upd, &upd2};
  ComputationSignature pair{{S("f32[]"), S("s32[]"), S("f32[]"), S("s32[]")},
                            S("(f32[], s32[])")};
  HLOVM_EXPECT_SHAPE(InferScatterShape(two, RowScatter(), pair), "(f32[10,4], s32[10,4])");
}

}  // namespace
}  // namespace hlovm
