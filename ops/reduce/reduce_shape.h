// Shape rules of the reductions: reduce, reduce-window and select-and-scatter,
// plus the check of a reducer computation's signature that they (and the
// collectives and scatter) share.
#ifndef HLOVM_OPS_REDUCE_REDUCE_SHAPE_H_
#define HLOVM_OPS_REDUCE_REDUCE_SHAPE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"
#include "core/shape.h"
#include "ops/common/common_shape.h"

namespace hlovm {

// Checks that `reducer` is (T1..Tn, T1..Tn) -> (T1..Tn) (or (T,T)->T for
// n == 1) with scalar Ti matching `init_values` and `input_element_types`
// (floating point precision may differ).
absl::Status VerifyReducerShape(const ComputationSignature& reducer,
                                absl::Span<const Shape* const> init_values,
                                absl::Span<const ElementType> input_element_types);

// The dimensions a window of `window` sliding over `base` produces.
absl::StatusOr<Shape> InferWindowOutputShape(const Shape& base, const Window& window,
                                             ElementType element_type);

// reduce(inputs..., inits...), dimensions=, to_apply=. `operands` holds the
// n inputs followed by the n init values.
absl::StatusOr<Shape> InferReduceShape(absl::Span<const Shape* const> operands,
                                       absl::Span<const int64_t> dimensions,
                                       const ComputationSignature& to_apply);
// reduce-window(inputs..., inits...), window=, to_apply=.
absl::StatusOr<Shape> InferReduceWindowShape(absl::Span<const Shape* const> operands,
                                             const Window& window,
                                             const ComputationSignature& to_apply);
// select-and-scatter(operand, source, init), window=, select=, scatter=.
absl::StatusOr<Shape> InferSelectAndScatterShape(const Shape& operand,
                                                 const ComputationSignature& select,
                                                 const Window& window, const Shape& source,
                                                 const Shape& init_value,
                                                 const ComputationSignature& scatter);

}  // namespace hlovm

#endif  // HLOVM_OPS_REDUCE_REDUCE_SHAPE_H_
