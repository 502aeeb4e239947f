// Kernel selection for the elementwise ops: routes an opcode and element
// types to the per-family selectors of elementwise_internal.h.
#include "ops/elementwise/elementwise.h"

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hwy/targets.h"
#include "ops/elementwise/elementwise_hwy.h"
#include "ops/elementwise/elementwise_internal.h"

namespace hlovm {
namespace {

using elementwise_internal::ET;
using elementwise_internal::OpName;
using elementwise_internal::TypeName;

absl::Status Mismatch(HloOpcode opcode, ElementType operand, ElementType result) {
  return absl::InvalidArgumentError(absl::StrCat(OpName(opcode), " of ",
                                                 TypeName(operand), " cannot produce ",
                                                 TypeName(result)));
}

void CopyBytes1(const void* in, void* out, int64_t n) {
  if (in != out) std::memmove(out, in, n);
}
void CopyBytes2(const void* in, void* out, int64_t n) {
  if (in != out) std::memmove(out, in, 2 * n);
}
void CopyBytes4(const void* in, void* out, int64_t n) {
  if (in != out) std::memmove(out, in, 4 * n);
}
void CopyBytes8(const void* in, void* out, int64_t n) {
  if (in != out) std::memmove(out, in, 8 * n);
}
void CopyBytes16(const void* in, void* out, int64_t n) {
  if (in != out) std::memmove(out, in, 16 * n);
}

absl::StatusOr<UnaryKernel> CopyKernel(int byte_width) {
  switch (byte_width) {
    case 1:
      return &CopyBytes1;
    case 2:
      return &CopyBytes2;
    case 4:
      return &CopyBytes4;
    case 8:
      return &CopyBytes8;
    case 16:
      return &CopyBytes16;
    default:
      return absl::InvalidArgumentError(absl::StrCat("No copy kernel for ", byte_width, " bytes"));
  }
}

}  // namespace

absl::StatusOr<UnaryKernel> SelectUnaryKernel(HloOpcode opcode, ElementType operand,
                                              ElementType result) {
  namespace ei = elementwise_internal;
  if (!IsArrayType(operand) || !IsArrayType(result)) return Mismatch(opcode, operand, result);
  if (opcode == HloOpcode::kIsFinite || opcode == HloOpcode::kReal ||
      opcode == HloOpcode::kImag || (opcode == HloOpcode::kAbs && IsComplex(operand))) {
    return ei::SelectUnaryMixed(opcode, operand, result);
  }
  if (HloOpcodeFamily(opcode) != OpFamily::kUnary) {
    return absl::InvalidArgumentError(
        absl::StrCat(OpName(opcode), " is not a unary elementwise op"));
  }
  if (operand != result) return Mismatch(opcode, operand, result);
  if (operand == ET::kF32) return ei::SelectUnaryF32(opcode);
  if (operand == ET::kF64) return ei::SelectUnaryF64(opcode);
  if (IsFloatingPoint(operand)) return ei::SelectUnaryNarrowFloat(opcode, operand);
  if (IsComplex(operand)) return ei::SelectUnaryComplex(opcode, operand, result);
  return ei::SelectUnaryInt(opcode, operand);
}

absl::StatusOr<BinaryKernel> SelectBinaryKernel(HloOpcode opcode, ElementType operand,
                                                ElementType result,
                                                ComparisonDirection direction,
                                                ComparisonType type) {
  namespace ei = elementwise_internal;
  if (!IsArrayType(operand) || !IsArrayType(result)) return Mismatch(opcode, operand, result);
  if (opcode == HloOpcode::kCompare) {
    if (result != ET::kPred) return Mismatch(opcode, operand, result);
    return ei::SelectCompare(operand, direction, type);
  }
  if (opcode == HloOpcode::kComplex) {
    if ((operand == ET::kF32 && result == ET::kC64) ||
        (operand == ET::kF64 && result == ET::kC128)) {
      return ei::SelectComplexConstruct(operand);
    }
    return Mismatch(opcode, operand, result);
  }
  if (HloOpcodeFamily(opcode) != OpFamily::kBinary) {
    return absl::InvalidArgumentError(
        absl::StrCat(OpName(opcode), " is not a binary elementwise op"));
  }
  if (operand != result) return Mismatch(opcode, operand, result);
  if (IsFloatingPoint(operand)) return ei::SelectBinaryFloat(opcode, operand);
  if (IsComplex(operand)) return ei::SelectBinaryComplex(opcode, operand);
  return ei::SelectBinaryInt(opcode, operand);
}

absl::StatusOr<UnaryKernel> SelectConvertKernel(ElementType from, ElementType to) {
  namespace ei = elementwise_internal;
  if (!IsArrayType(from) || !IsArrayType(to)) {
    return absl::InvalidArgumentError(absl::StrCat("convert from ", TypeName(from),
                                                   " to ", TypeName(to)));
  }
  if (from == to) return CopyKernel(ByteWidth(from));
  if (IsComplex(from)) return ei::SelectConvertFromComplex(from, to);
  if (IsFloatingPoint(from)) return ei::SelectConvertFromFloat(from, to);
  return ei::SelectConvertFromInt(from, to);
}

absl::StatusOr<UnaryKernel> SelectBitcastConvertKernel(ElementType from, ElementType to) {
  if (!IsArrayType(from) || !IsArrayType(to) || BitWidth(from) != BitWidth(to)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bitcast-convert of equal widths only: ", TypeName(from), " (",
                     BitWidth(from), " bits) to ", TypeName(to), " (", BitWidth(to),
                     " bits)"));
  }
  return CopyKernel(ByteWidth(from));
}

const char* ElementwiseSimdTarget() {
  return hwy::TargetName(elementwise_internal::HwyChosenTarget());
}

}  // namespace hlovm
