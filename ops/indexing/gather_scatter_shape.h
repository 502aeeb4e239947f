// Shape rules of gather and scatter, including their batching dimensions.
#ifndef HLOVM_OPS_INDEXING_GATHER_SCATTER_SHAPE_H_
#define HLOVM_OPS_INDEXING_GATHER_SCATTER_SHAPE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"
#include "core/shape.h"
#include "ops/common/common_shape.h"

namespace hlovm {

// gather(operand, start_indices), dimension numbers, slice_sizes=.
absl::StatusOr<Shape> InferGatherShape(const Shape& operand, const Shape& start_indices,
                                       const GatherDimensionNumbers& dnums,
                                       absl::Span<const int64_t> slice_sizes);

// scatter(operands..., scatter_indices, updates...), to_apply=.
// `operands` holds all 2n+1 operand shapes in that order.
absl::StatusOr<Shape> InferScatterShape(absl::Span<const Shape* const> operands,
                                        const ScatterDimensionNumbers& dnums,
                                        const ComputationSignature& to_apply);

}  // namespace hlovm

#endif  // HLOVM_OPS_INDEXING_GATHER_SCATTER_SHAPE_H_
