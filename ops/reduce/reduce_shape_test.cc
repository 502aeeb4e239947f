#include "ops/reduce/reduce_shape.h"

#include "ops/common/shape_test_util.h"

namespace hlovm {
namespace {

using testing::S;

ComputationSignature Add(const char* t) { return {{S(t), S(t)}, S(t)}; }

TEST(ReduceShapeTest, Reduce) {
  const Shape in = S("f32[4,5,6]"), init = S("f32[]");
  const Shape* ops[] = {&in, &init};
  HLOVM_EXPECT_SHAPE(InferReduceShape(ops, {1}, Add("f32[]")), "f32[4,6]");
  HLOVM_EXPECT_SHAPE(InferReduceShape(ops, {0, 1, 2}, Add("f32[]")), "f32[]");
  HLOVM_EXPECT_ERROR(InferReduceShape(ops, {3}, Add("f32[]")),
                     "Reducing out-of-bounds dimension 3 in shape f32[4,5,6].");
  HLOVM_EXPECT_ERROR(InferReduceShape(ops, {1, 1}, Add("f32[]")), "Duplicate reduction dimension");
  ComputationSignature three{{S("f32[]"), S("f32[]"), S("f32[]")}, S("f32[]")};
  HLOVM_EXPECT_ERROR(InferReduceShape(ops, {1}, three),
                     "Reduction function must take 2 parameters, but takes 3 parameter(s).");
  HLOVM_EXPECT_ERROR(InferReduceShape(ops, {1}, Add("s32[]")),
                     "Reduction function's accumulator shape at index 0 differs from the "
                     "init_value shape");
  ComputationSignature vec{{S("f32[2]"), S("f32[2]")}, S("f32[2]")};
  HLOVM_EXPECT_ERROR(InferReduceShape(ops, {1}, vec), "scalar");
}

TEST(ReduceShapeTest, VariadicReduce) {
  const Shape a = S("f32[4,5]"), b = S("s32[4,5]"), fi = S("f32[]"), si = S("s32[]");
  const Shape* ops[] = {&a, &b, &fi, &si};
  ComputationSignature f{{S("f32[]"), S("s32[]"), S("f32[]"), S("s32[]")},
                         S("(f32[], s32[])")};
  HLOVM_EXPECT_SHAPE(InferReduceShape(ops, {1}, f), "(f32[4], s32[4])");
  ComputationSignature single{{S("f32[]"), S("s32[]"), S("f32[]"), S("s32[]")}, S("f32[]")};
  HLOVM_EXPECT_ERROR(InferReduceShape(ops, {1}, single),
                     "Reduction function must produce a tuple with 2 elements, but produces a "
                     "scalar");
  const Shape c = S("s32[4,6]");
  const Shape* mismatch[] = {&a, &c, &fi, &si};
  HLOVM_EXPECT_ERROR(InferReduceShape(mismatch, {1}, f),
                     "All reduced tensors must have the same dimension");
}

TEST(ReduceShapeTest, ReduceWindow) {
  const Shape in = S("f32[4,6]"), init = S("f32[]");
  const Shape* ops[] = {&in, &init};
  Window w(2);
  w[0].size = 2;
  w[0].stride = 2;
  w[1].size = 3;
  w[1].padding_low = 1;
  w[1].padding_high = 1;
  HLOVM_EXPECT_SHAPE(InferReduceWindowShape(ops, w, Add("f32[]")), "f32[2,6]");
  HLOVM_EXPECT_ERROR(InferReduceWindowShape(ops, Window(1), Add("f32[]")),
                     "Window has dimension 1 but base shape has dimension 2.");
  Window bad = w;
  bad[0].stride = 0;
  HLOVM_EXPECT_ERROR(InferReduceWindowShape(ops, bad, Add("f32[]")), "non-positive stride");
}

TEST(ReduceShapeTest, SelectAndScatter) {
  Window w(1);
  w[0].size = 2;
  w[0].stride = 2;
  ComputationSignature ge{{S("f32[]"), S("f32[]")}, S("pred[]")};
  HLOVM_EXPECT_SHAPE(
      InferSelectAndScatterShape(S("f32[8]"), ge, w, S("f32[4]"), S("f32[]"), Add("f32[]")),
      "f32[8]");
  HLOVM_EXPECT_ERROR(
      InferSelectAndScatterShape(S("f32[8]"), ge, w, S("f32[5]"), S("f32[]"), Add("f32[]")),
      "Source shape does not match the shape of window-reduced operand");
  HLOVM_EXPECT_ERROR(InferSelectAndScatterShape(S("f32[8]"), Add("f32[]"), w, S("f32[4]"),
                                                S("f32[]"), Add("f32[]")),
                     "Select function must have rank-0 PRED result");
}

}  // namespace
}  // namespace hlovm
