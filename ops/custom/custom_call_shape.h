// Shape rule of custom-call (and of output_to_operand_aliasing, which
// fusion and async-start share). A custom call's result is whatever it
// declares; what can be checked is that its operand layout constraints and
// aliasing pairs fit the operands.
#ifndef HLOVM_OPS_CUSTOM_CUSTOM_CALL_SHAPE_H_
#define HLOVM_OPS_CUSTOM_CUSTOM_CALL_SHAPE_H_

#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"
#include "core/shape.h"

namespace hlovm {

// Checks each {output_index}: (operand, {operand_index}) pair: both indices
// exist and the two subshapes agree.
absl::Status CheckOutputOperandAliasing(const Shape& result,
                                        absl::Span<const Shape* const> operands,
                                        absl::Span<const OutputOperandAlias> aliasing);

// custom-call(operands...) -> `declared`, after checking the
// operand_layout_constraints (one per operand, each matching its operand)
// and the aliasing.
absl::StatusOr<Shape> InferCustomCallShape(
    absl::Span<const Shape* const> operands, const Shape& declared,
    const std::optional<std::vector<Shape>>& operand_layout_constraints,
    absl::Span<const OutputOperandAlias> aliasing);

}  // namespace hlovm

#endif  // HLOVM_OPS_CUSTOM_CUSTOM_CALL_SHAPE_H_
