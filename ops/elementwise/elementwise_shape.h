// Shape rules of the elementwise op families: unary, binary (incl. compare),
// ternary (select, clamp), type conversions (convert, bitcast-convert,
// reduce-precision, stochastic-convert) and map. The verifier and the REPL
// call these; kernels rely on what they establish.
#ifndef HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_SHAPE_H_
#define HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_SHAPE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/hlo_opcode.h"
#include "core/shape.h"
#include "ops/common/common_shape.h"

namespace hlovm {

// Infers the shape of a one-operand elementwise op (abs, exponential, not,
// is-finite, real, ...). Also copy and domain, which return their operand.
absl::StatusOr<Shape> InferUnaryOpShape(HloOpcode opcode, const Shape& operand);

// Infers the shape of a two-operand elementwise op (add, compare, complex,
// and, shift-left, ...). Operands of equal rank may differ in degenerate
// (size-1) dimensions; a scalar operand broadcasts.
absl::StatusOr<Shape> InferBinaryOpShape(HloOpcode opcode, const Shape& lhs,
                                         const Shape& rhs);

// select(pred, on_true, on_false).
absl::StatusOr<Shape> InferSelectShape(const Shape& pred, const Shape& on_true,
                                       const Shape& on_false);
// clamp(min, operand, max).
absl::StatusOr<Shape> InferClampShape(const Shape& min, const Shape& operand,
                                      const Shape& max);

absl::StatusOr<Shape> InferConvertShape(const Shape& operand, ElementType new_type);
absl::StatusOr<Shape> InferBitcastConvertShape(const Shape& operand,
                                               ElementType new_type);
absl::StatusOr<Shape> InferReducePrecisionShape(const Shape& operand,
                                                int64_t exponent_bits,
                                                int64_t mantissa_bits);
absl::StatusOr<Shape> InferStochasticConvertShape(const Shape& operand,
                                                  const Shape& random,
                                                  ElementType new_type);

// map(operands...), to_apply=f, dimensions={0..rank-1}.
absl::StatusOr<Shape> InferMapShape(absl::Span<const Shape* const> operands,
                                    const ComputationSignature& to_apply,
                                    absl::Span<const int64_t> dimensions);

}  // namespace hlovm

#endif  // HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_SHAPE_H_
