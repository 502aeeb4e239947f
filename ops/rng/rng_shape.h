// Shape rules of rng and rng-bit-generator. Their result dimensions come
// from the declared shape, which these rules check.
#ifndef HLOVM_OPS_RNG_RNG_SHAPE_H_
#define HLOVM_OPS_RNG_RNG_SHAPE_H_

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "core/shape.h"

namespace hlovm {

// rng(a, b), distribution=: scalar parameters of the output's element type.
absl::StatusOr<Shape> InferRngShape(const Shape& a, const Shape& b,
                                    RandomDistribution distribution, const Shape& output);
// rng-bit-generator(state) -> (state, bits).
absl::StatusOr<Shape> InferRngBitGeneratorShape(const Shape& state, const Shape& output);
// rng-get-and-update-state -> u64[2] (the generator state, as XLA has it).
Shape InferRngGetAndUpdateStateShape();

}  // namespace hlovm

#endif  // HLOVM_OPS_RNG_RNG_SHAPE_H_
