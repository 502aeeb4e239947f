// Unary kernels of c64 and c128 whose result is complex.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/elementwise/elementwise_internal.h"
#include "ops/elementwise/elementwise_unary_ops.h"

namespace hlovm {
namespace elementwise_internal {
namespace {

template <ET kType>
absl::StatusOr<UnaryKernel> SelectComplex(HloOpcode opcode) {
  switch (opcode) {
#define HLOVM_EW_CASE_(op, Op) \
  case HloOpcode::op:          \
    return &UnaryLoop<kType, kType, Op>;
    HLOVM_EW_CASE_(kNegate, NegateOp)
    HLOVM_EW_CASE_(kSign, SignOp)
    HLOVM_EW_CASE_(kExp, ExpOp)
    HLOVM_EW_CASE_(kExpm1, Expm1Op)
    HLOVM_EW_CASE_(kLog, ComplexLogOp)
    HLOVM_EW_CASE_(kLog1p, Log1pOp)
    HLOVM_EW_CASE_(kLogistic, LogisticOp)
    HLOVM_EW_CASE_(kSqrt, ComplexSqrtOp)
    HLOVM_EW_CASE_(kRsqrt, RsqrtOp)
    HLOVM_EW_CASE_(kCbrt, ComplexCbrtOp)
    HLOVM_EW_CASE_(kSin, ComplexSinOp)
    HLOVM_EW_CASE_(kCos, ComplexCosOp)
    HLOVM_EW_CASE_(kTan, ComplexTanOp)
    HLOVM_EW_CASE_(kTanh, ComplexTanhOp)
    HLOVM_EW_CASE_(kAcos, ComplexAcosOp)
    HLOVM_EW_CASE_(kAcosh, ComplexAcoshOp)
    HLOVM_EW_CASE_(kAsin, ComplexAsinOp)
    HLOVM_EW_CASE_(kAsinh, ComplexAsinhOp)
    HLOVM_EW_CASE_(kAtan, ComplexAtanOp)
    HLOVM_EW_CASE_(kAtanh, ComplexAtanhOp)
    HLOVM_EW_CASE_(kCosh, ComplexCoshOp)
    HLOVM_EW_CASE_(kSinh, ComplexSinhOp)
#undef HLOVM_EW_CASE_
    default:
      return absl::UnimplementedError(absl::StrCat("No ", OpName(opcode), " kernel for ",
                                                   TypeName(kType)));
  }
}

}  // namespace

absl::StatusOr<UnaryKernel> SelectUnaryComplex(HloOpcode opcode, ElementType type,
                                               ElementType result) {
  if (type == ET::kC64) return SelectComplex<ET::kC64>(opcode);
  return SelectComplex<ET::kC128>(opcode);
}

}  // namespace elementwise_internal
}  // namespace hlovm
