// Unary kernels of f32, f64 and the narrow float types (computed through f32).
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/elementwise/elementwise_internal.h"
#include "ops/elementwise/elementwise_unary_ops.h"

namespace hlovm {
namespace elementwise_internal {
namespace {

absl::Status NoFloatKernel(HloOpcode opcode, ElementType type) {
  return absl::UnimplementedError(absl::StrCat("No ", OpName(opcode), " kernel for ",
                                               TypeName(type)));
}

template <ET kType>
absl::StatusOr<UnaryKernel> SelectNarrow(HloOpcode opcode) {
  switch (opcode) {
#define HLOVM_EW_CASE_(op, Op) \
  case HloOpcode::op:          \
    return &WidenUnary<kType, kF32Unary<Op>>;
    HLOVM_EW_FLOAT_UNARY_OPS(HLOVM_EW_CASE_)
#undef HLOVM_EW_CASE_
    default:
      return NoFloatKernel(opcode, kType);
  }
}

}  // namespace

absl::StatusOr<UnaryKernel> SelectUnaryF32(HloOpcode opcode) {
  switch (opcode) {
#define HLOVM_EW_CASE_(op, Op) \
  case HloOpcode::op:          \
    return kF32Unary<Op>;
    HLOVM_EW_FLOAT_UNARY_OPS(HLOVM_EW_CASE_)
#undef HLOVM_EW_CASE_
    default:
      return NoFloatKernel(opcode, ET::kF32);
  }
}

absl::StatusOr<UnaryKernel> SelectUnaryF64(HloOpcode opcode) {
  switch (opcode) {
#define HLOVM_EW_CASE_(op, Op) \
  case HloOpcode::op:          \
    return kF64Unary<Op>;
    HLOVM_EW_FLOAT_UNARY_OPS(HLOVM_EW_CASE_)
#undef HLOVM_EW_CASE_
    default:
      return NoFloatKernel(opcode, ET::kF64);
  }
}

absl::StatusOr<UnaryKernel> SelectUnaryNarrowFloat(HloOpcode opcode, ElementType type) {
  switch (type) {
#define HLOVM_EW_TYPE_(e) \
  case ET::e:             \
    return SelectNarrow<ET::e>(opcode);
    HLOVM_EW_NARROW_FLOAT_TYPES(HLOVM_EW_TYPE_)
#undef HLOVM_EW_TYPE_
    default:
      return NoFloatKernel(opcode, type);
  }
}

}  // namespace elementwise_internal
}  // namespace hlovm
