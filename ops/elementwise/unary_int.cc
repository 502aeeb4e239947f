// Unary kernels of pred and the integer types, and of the ops whose result
// type differs from the operand's (is-finite, real, imag, abs of complex).
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/elementwise/elementwise_internal.h"
#include "ops/elementwise/elementwise_unary_ops.h"

namespace hlovm {
namespace elementwise_internal {
namespace {

absl::Status NoKernel(HloOpcode opcode, ElementType operand, ElementType result) {
  return absl::UnimplementedError(absl::StrCat("No ", OpName(opcode), " kernel for ",
                                               TypeName(operand), " -> ",
                                               TypeName(result)));
}

template <ET kType>
absl::StatusOr<UnaryKernel> SelectInt(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAbs:
      return &UnaryLoop<kType, kType, AbsOp>;
    case HloOpcode::kNegate:
      return &UnaryLoop<kType, kType, NegateOp>;
    case HloOpcode::kSign:
      return &UnaryLoop<kType, kType, SignOp>;
    case HloOpcode::kNot:
      return &UnaryLoop<kType, kType, NotOp>;
    case HloOpcode::kClz:
      return &UnaryLoop<kType, kType, ClzOp>;
    case HloOpcode::kPopulationCount:
      return &UnaryLoop<kType, kType, PopcntOp>;
    default:
      return NoKernel(opcode, kType, kType);
  }
}

template <ET kIn, ET kOut>
absl::StatusOr<UnaryKernel> SelectMixedFor(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kIsFinite:
      if constexpr (kOut == ET::kPred && !kIsComplex<typename Traits<kIn>::Compute>) {
        return &UnaryLoop<kIn, kOut, IsFiniteOp>;
      }
      break;
    case HloOpcode::kReal:
      return &UnaryLoop<kIn, kOut, RealOp>;
    case HloOpcode::kImag:
      return &UnaryLoop<kIn, kOut, ImagOp>;
    case HloOpcode::kAbs:
      if constexpr (kIsComplex<typename Traits<kIn>::Compute>) {
        return &UnaryLoop<kIn, kOut, AbsOp>;
      }
      break;
    default:
      break;
  }
  return NoKernel(opcode, kIn, kOut);
}

}  // namespace

absl::StatusOr<UnaryKernel> SelectUnaryInt(HloOpcode opcode, ElementType type) {
  switch (type) {
    case ET::kPred:
      if (opcode == HloOpcode::kNot) return &UnaryLoop<ET::kPred, ET::kPred, NotOp>;
      return NoKernel(opcode, type, type);
#define HLOVM_EW_TYPE_(e) \
  case ET::e:             \
    return SelectInt<ET::e>(opcode);
      HLOVM_EW_INT_TYPES(HLOVM_EW_TYPE_)
#undef HLOVM_EW_TYPE_
    default:
      return NoKernel(opcode, type, type);
  }
}

absl::StatusOr<UnaryKernel> SelectUnaryMixed(HloOpcode opcode, ElementType operand,
                                             ElementType result) {
  if (operand == ET::kC64 && result == ET::kF32) return SelectMixedFor<ET::kC64, ET::kF32>(opcode);
  if (operand == ET::kC128 && result == ET::kF64) {
    return SelectMixedFor<ET::kC128, ET::kF64>(opcode);
  }
  if (result == ET::kPred) {
    switch (operand) {
#define HLOVM_EW_TYPE_(e) \
  case ET::e:             \
    return SelectMixedFor<ET::e, ET::kPred>(opcode);
      HLOVM_EW_FLOAT_TYPES(HLOVM_EW_TYPE_)
#undef HLOVM_EW_TYPE_
      default:
        break;
    }
  }
  if (operand == result && (opcode == HloOpcode::kReal || opcode == HloOpcode::kImag)) {
    switch (operand) {
#define HLOVM_EW_TYPE_(e) \
  case ET::e:             \
    return SelectMixedFor<ET::e, ET::e>(opcode);
      HLOVM_EW_FLOAT_TYPES(HLOVM_EW_TYPE_)
#undef HLOVM_EW_TYPE_
      default:
        break;
    }
  }
  return NoKernel(opcode, operand, result);
}

}  // namespace elementwise_internal
}  // namespace hlovm
