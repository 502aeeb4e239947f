// The elementwise family's lowering (elementwise_lower.cc): the kernel an
// elementwise instruction runs, chosen at compile time for its element
// types, shared by the op-by-op instruction and by fused regions.
#ifndef HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_LOWER_H_
#define HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_LOWER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "ops/elementwise/elementwise.h"

namespace hlovm {
namespace vm {

// The kernel of one elementwise instruction (unary, binary, compare, select,
// clamp, convert, reduce-precision), chosen for its element types. Both the
// op-by-op handlers and fused regions (vm/fusion.h) call it, so a fused
// region computes the same bits.
struct ElementwiseKernel {
  enum Kind : uint8_t { kUnary, kBinary, kTernary, kReducePrecision };
  Kind kind = kUnary;
  UnaryKernel unary = nullptr;  // also convert
  BinaryKernel binary = nullptr;
  TernaryKernel ternary = nullptr;
  ReducePrecisionKernel reduce_precision;
  int arity = 0;
  int in_size[3] = {0, 0, 0};  // operand element widths in bytes
  int out_size = 0;
  unsigned scalar_mask = 0;  // ternary operands that are one element
  std::string variant;       // for the disassembly, e.g. "f32 GT"
};
// Fails for an instruction that is not elementwise, whose operands do not
// match its shape, or whose types have no kernel.
absl::StatusOr<ElementwiseKernel> SelectElementwiseKernel(const HloInstruction& instr);

}  // namespace vm
}  // namespace hlovm

#endif  // HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_LOWER_H_
