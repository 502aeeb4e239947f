// Shape rules of sort and topk.
#ifndef HLOVM_OPS_SORT_SORT_SHAPE_H_
#define HLOVM_OPS_SORT_SORT_SHAPE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/shape.h"
#include "ops/common/common_shape.h"

namespace hlovm {

// sort(operands...), dimensions={dimension}, to_apply=comparator. The
// comparator takes two scalars per operand and returns pred[].
absl::StatusOr<Shape> InferSortShape(absl::Span<const Shape* const> operands,
                                     int64_t dimension, const ComputationSignature& comparator);

// topk(operand), k=, largest=: (values, s32 indices) with the last
// dimension cut to k.
absl::StatusOr<Shape> InferTopKShape(const Shape& operand, int64_t k);

}  // namespace hlovm

#endif  // HLOVM_OPS_SORT_SORT_SHAPE_H_
