// Binary kernels of pred and the integer types, and of complex numbers.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/elementwise/elementwise_binary_ops.h"
#include "ops/elementwise/elementwise_internal.h"

namespace hlovm {
namespace elementwise_internal {
namespace {

absl::Status NoKernel(HloOpcode opcode, ElementType type) {
  return absl::UnimplementedError(absl::StrCat("No ", OpName(opcode), " kernel for ",
                                               TypeName(type)));
}

template <ET kType>
absl::StatusOr<BinaryKernel> SelectInt(HloOpcode opcode) {
  switch (opcode) {
#define HLOVM_EW_CASE_(op, Op) \
  case HloOpcode::op:          \
    return &BinaryLoop<kType, kType, Op>;
    HLOVM_EW_INT_BINARY_OPS(HLOVM_EW_CASE_)
#undef HLOVM_EW_CASE_
    default:
      return NoKernel(opcode, kType);
  }
}

// pred behaves as XLA's CPU backend treats i1: add and max are or, multiply
// and min are and.
absl::StatusOr<BinaryKernel> SelectPred(HloOpcode opcode) {
  constexpr ET kP = ET::kPred;
  switch (opcode) {
    case HloOpcode::kAnd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMinimum:
      return &BinaryLoop<kP, kP, MulOp>;
    case HloOpcode::kOr:
    case HloOpcode::kAdd:
    case HloOpcode::kMaximum:
      return &BinaryLoop<kP, kP, AddOp>;
    case HloOpcode::kXor:
      return &BinaryLoop<kP, kP, XorOp>;
    default:
      return NoKernel(opcode, kP);
  }
}

template <ET kType>
absl::StatusOr<BinaryKernel> SelectComplex(HloOpcode opcode) {
  switch (opcode) {
#define HLOVM_EW_CASE_(op, Op) \
  case HloOpcode::op:          \
    return &BinaryLoop<kType, kType, Op>;
    HLOVM_EW_CASE_(kAdd, AddOp)
    HLOVM_EW_CASE_(kSubtract, SubOp)
    HLOVM_EW_CASE_(kMultiply, MulOp)
    HLOVM_EW_CASE_(kDivide, DivOp)
    HLOVM_EW_CASE_(kPower, PowOp)
    HLOVM_EW_CASE_(kAtan2, Atan2Op)
    HLOVM_EW_CASE_(kMaximum, MaxOp)
    HLOVM_EW_CASE_(kMinimum, MinOp)
#undef HLOVM_EW_CASE_
    default:
      return NoKernel(opcode, kType);
  }
}

}  // namespace

absl::StatusOr<BinaryKernel> SelectBinaryInt(HloOpcode opcode, ElementType type) {
  switch (type) {
    case ET::kPred:
      return SelectPred(opcode);
#define HLOVM_EW_TYPE_(e) \
  case ET::e:             \
    return SelectInt<ET::e>(opcode);
      HLOVM_EW_INT_TYPES(HLOVM_EW_TYPE_)
#undef HLOVM_EW_TYPE_
    default:
      return NoKernel(opcode, type);
  }
}

absl::StatusOr<BinaryKernel> SelectBinaryComplex(HloOpcode opcode, ElementType type) {
  if (type == ET::kC64) return SelectComplex<ET::kC64>(opcode);
  if (type == ET::kC128) return SelectComplex<ET::kC128>(opcode);
  return NoKernel(opcode, type);
}

}  // namespace elementwise_internal
}  // namespace hlovm
