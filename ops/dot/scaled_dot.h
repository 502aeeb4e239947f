// scaled-dot(lhs, rhs, lhs_scale, rhs_scale): a dot of block-scaled
// operands, as XLA's scaled-dot rewriter expands it. Each operand with a
// non-scalar scale is dequantised first: operand and scale are converted to
// one type (bf16 when both are narrower than 16 bits, their common type
// when equal, f32 when equally wide but different, else the wider), each
// scale element is broadcast over its block of the operand (scale
// dimensions divide the operand's), and the two are multiplied in that
// type. A scalar scale leaves its operand as it is. Then the plain dot
// (ops/dot/dot.h) with the instruction's dimension numbers and result type.
#ifndef HLOVM_OPS_DOT_SCALED_DOT_H_
#define HLOVM_OPS_DOT_SCALED_DOT_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "core/shape.h"
#include "ops/dot/dot.h"
#include "ops/elementwise/elementwise.h"

namespace hlovm {

struct DequantizePlan {
  bool active = false;  // false: a scalar scale, the operand is used as is
  ElementType type = ElementType::kBF16;  // the dequantised operand's type
  UnaryKernel convert_operand = nullptr, convert_scale = nullptr;  // null: already `type`
  BinaryKernel multiply = nullptr;
  std::vector<int64_t> dims, scale_dims;  // row-major, equal rank
  int64_t elements = 0, scale_elements = 0;
};

struct ScaledDotPlan {
  DequantizePlan lhs, rhs;
  DotPlan dot;  // over the dequantised operands
  int64_t flops() const { return dot.flops(); }
};

absl::StatusOr<ScaledDotPlan> MakeScaledDotPlan(const Shape& lhs, const Shape& rhs,
                                                const Shape& lhs_scale, const Shape& rhs_scale,
                                                const Shape& result, const DotDimensionNumbers& dnums);

// On the calling thread.
void RunScaledDot(const ScaledDotPlan& plan, const void* lhs, const void* rhs,
                  const void* lhs_scale, const void* rhs_scale, void* out);

}  // namespace hlovm

#endif  // HLOVM_OPS_DOT_SCALED_DOT_H_
