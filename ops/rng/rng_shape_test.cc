#include "ops/rng/rng_shape.h"

#include "ops/common/shape_test_util.h"

namespace hlovm {
namespace {

using testing::S;

TEST(RngShapeTest, Rng) {
  HLOVM_EXPECT_SHAPE(InferRngShape(S("f32[]"), S("f32[]"), RandomDistribution::kUniform,
                                   S("f32[3,4]")),
                     "f32[3,4]");
  HLOVM_EXPECT_ERROR(InferRngShape(S("f32[2]"), S("f32[]"), RandomDistribution::kUniform,
                                   S("f32[3,4]")),
                     "must be scalars");
  HLOVM_EXPECT_ERROR(InferRngShape(S("s32[]"), S("s32[]"), RandomDistribution::kNormal,
                                   S("s32[3]")),
                     "floating point");
  HLOVM_EXPECT_ERROR(InferRngShape(S("s32[]"), S("s32[]"), RandomDistribution::kUniform,
                                   S("f32[3]")),
                     "element type");
}

TEST(RngShapeTest, BitGenerator) {
  HLOVM_EXPECT_SHAPE(InferRngBitGeneratorShape(S("u64[2]"), S("(u64[2], u32[8])")),
                     "(u64[2], u32[8])");
  HLOVM_EXPECT_ERROR(InferRngBitGeneratorShape(S("u64[2]"), S("u32[8]")), "returns a tuple");
  EXPECT_TRUE(ShapesCompatible(InferRngGetAndUpdateStateShape(), S("u64[2]")));
}

}  // namespace
}  // namespace hlovm
