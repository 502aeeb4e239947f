// Shape rules of batch-norm-training, batch-norm-inference and
// batch-norm-grad.
#ifndef HLOVM_OPS_NORM_BATCH_NORM_SHAPE_H_
#define HLOVM_OPS_NORM_BATCH_NORM_SHAPE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/shape.h"

namespace hlovm {

// -> (operand, mean[features], variance[features]).
absl::StatusOr<Shape> InferBatchNormTrainingShape(const Shape& operand, const Shape& scale,
                                                  const Shape& offset, int64_t feature_index);
// -> operand.
absl::StatusOr<Shape> InferBatchNormInferenceShape(const Shape& operand, const Shape& scale,
                                                   const Shape& offset, const Shape& mean,
                                                   const Shape& variance,
                                                   int64_t feature_index);
// -> (grad_operand, grad_scale[features], grad_offset[features]).
absl::StatusOr<Shape> InferBatchNormGradShape(const Shape& operand, const Shape& scale,
                                              const Shape& mean, const Shape& variance,
                                              const Shape& grad_output, int64_t feature_index);

}  // namespace hlovm

#endif  // HLOVM_OPS_NORM_BATCH_NORM_SHAPE_H_
