#include "ops/control/control_shape.h"

#include "ops/common/shape_test_util.h"

namespace hlovm {
namespace {

using testing::S;

TEST(ControlShapeTest, TupleAndGetTupleElement) {
  const Shape a = S("f32[2]"), b = S("s32[]");
  const Shape* ops[] = {&a, &b};
  HLOVM_EXPECT_SHAPE(InferTupleShape(ops), "(f32[2], s32[])");
  HLOVM_EXPECT_SHAPE(InferGetTupleElementShape(S("(f32[2], s32[])"), 1), "s32[]");
  HLOVM_EXPECT_ERROR(InferGetTupleElementShape(S("(f32[2], s32[])"), 2),
                     "Cannot infer shape: attempt to index out of tuple bounds: 2 >= 2");
  HLOVM_EXPECT_ERROR(InferGetTupleElementShape(S("f32[2]"), 0),
                     "Cannot infer shape: attempting to index into non-tuple: f32[2].");
}

TEST(ControlShapeTest, CallAndWhile) {
  const Shape a = S("f32[2]");
  const Shape* ops[] = {&a};
  ComputationSignature f{{S("f32[2]")}, S("s32[]")};
  HLOVM_EXPECT_SHAPE(InferCallShape("call", ops, f), "s32[]");
  ComputationSignature g{{S("f32[3]")}, S("s32[]")};
  HLOVM_EXPECT_ERROR(InferCallShape("call", ops, g), "call operand 0 has shape f32[2]");
  ComputationSignature cond{{S("(s32[], f32[2])")}, S("pred[]")};
  ComputationSignature body{{S("(s32[], f32[2])")}, S("(s32[], f32[2])")};
  HLOVM_EXPECT_SHAPE(InferWhileShape(cond, body, S("(s32[], f32[2])")), "(s32[], f32[2])");
  HLOVM_EXPECT_ERROR(InferWhileShape(cond, body, S("(s32[], f32[3])")),
                     "The parameter of condition and body, the result of the body, and init "
                     "must all have the same shape");
  ComputationSignature bad_cond{{S("(s32[], f32[2])")}, S("s32[]")};
  HLOVM_EXPECT_ERROR(InferWhileShape(bad_cond, body, S("(s32[], f32[2])")),
                     "Condition must return a boolean; got s32[].");
}

TEST(ControlShapeTest, Conditional) {
  ComputationSignature b0{{S("f32[2]")}, S("f32[]")};
  ComputationSignature b1{{S("s32[]")}, S("f32[]")};
  const Shape x = S("f32[2]"), y = S("s32[]");
  const Shape* ops[] = {&x, &y};
  ComputationSignature branches[] = {b0, b1};
  HLOVM_EXPECT_SHAPE(InferConditionalShape(S("pred[]"), branches, ops), "f32[]");
  HLOVM_EXPECT_SHAPE(InferConditionalShape(S("s32[]"), branches, ops), "f32[]");
  HLOVM_EXPECT_ERROR(InferConditionalShape(S("f32[]"), branches, ops),
                     "branch_index must be bool or int32");
  const Shape* swapped[] = {&y, &x};
  HLOVM_EXPECT_ERROR(InferConditionalShape(S("s32[]"), branches, swapped),
                     "branch operand 0 must match the shape of the only parameter");
  ComputationSignature b2{{S("s32[]")}, S("s32[]")};
  ComputationSignature mixed[] = {b0, b2};
  HLOVM_EXPECT_ERROR(InferConditionalShape(S("s32[]"), mixed, ops),
                     "must have the same shape");
}

TEST(ControlShapeTest, AsyncTokensAndDevices) {
  const Shape a = S("f32[2]");
  const Shape* ops[] = {&a};
  ComputationSignature f{{S("f32[2]")}, S("f32[4]")};
  HLOVM_EXPECT_SHAPE(InferAsyncStartShape(ops, f, S("((f32[2]), f32[4], s32[])")),
                     "((f32[2]), f32[4], s32[])");
  HLOVM_EXPECT_SHAPE(InferAsyncDoneShape(S("((f32[2]), f32[4], s32[])")), "f32[4]");
  HLOVM_EXPECT_ERROR(InferAsyncDoneShape(S("f32[4]")), "async-start tuple");
  const Shape t = S("token[]");
  const Shape* toks[] = {&t, &t};
  HLOVM_EXPECT_SHAPE(InferAfterAllShape(toks), "token[]");
  const Shape* not_tok[] = {&t, &a};
  HLOVM_EXPECT_SHAPE(InferAfterAllShape(not_tok), "token[]");
  EXPECT_TRUE(ShapesCompatible(InferDeviceIdShape(), S("u32[]")));
  HLOVM_EXPECT_SHAPE(InferSendShape(S("f32[2]"), S("token[]")), "(f32[2], u32[], token[])");
  HLOVM_EXPECT_SHAPE(InferRecvDoneShape(S("(f32[2], u32[], token[])")), "(f32[2], token[])");
  HLOVM_EXPECT_SHAPE(InferOutfeedShape(S("f32[2]"), S("token[]")), "token[]");
  HLOVM_EXPECT_ERROR(InferOutfeedShape(S("f32[2]"), S("f32[2]")), "Expected a token");
  HLOVM_EXPECT_ERROR(InferInfeedShape(S("token[]"), S("f32[2]")), "infeed returns a tuple");
}

}  // namespace
}  // namespace hlovm
