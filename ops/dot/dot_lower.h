// The dot family's lowering (dot_lower.cc), as convolution reuses it.
#ifndef HLOVM_OPS_DOT_DOT_LOWER_H_
#define HLOVM_OPS_DOT_DOT_LOWER_H_

#include "absl/status/status.h"
#include "core/hlo_ir.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {

// Emits `instr` (whose result shape has the bytes of `dot_shape`) as the dot
// of `lhs` and `rhs` with `dnums`.
absl::Status EmitDotAs(FunctionBuilder& b, const HloInstruction& instr, Reg lhs, Reg rhs,
                       const Shape& lhs_shape, const Shape& rhs_shape, const Shape& dot_shape,
                       const DotDimensionNumbers& dnums, ValueDesc* result);
}  // namespace vm
}  // namespace hlovm

#endif  // HLOVM_OPS_DOT_DOT_LOWER_H_
