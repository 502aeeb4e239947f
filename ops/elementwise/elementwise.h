// Elementwise kernels: unary, binary, ternary (select, clamp) and type
// conversions over contiguous arrays of one element type.
//
// A kernel processes `n` consecutive elements; callers split large arrays
// into chunks (e.g. with tbb::parallel_for) and call the kernel per chunk, so a
// kernel never threads by itself and its result never depends on the split.
// Kernels are chosen once, at compile time, for an opcode and element types;
// nothing inside them dispatches per element. Element storage follows
// core/element_type.h (sub-byte types one per byte, f16/bf16/f8 as bits).
#ifndef HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_H_
#define HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/element_type.h"
#include "core/hlo_ir.h"
#include "core/hlo_opcode.h"

namespace hlovm {

using UnaryKernel = void (*)(const void* in, void* out, int64_t n);
using BinaryKernel = void (*)(const void* lhs, const void* rhs, void* out, int64_t n);
// For select (pred, on_true, on_false) and clamp (min, operand, max). An
// operand whose bit is set in `scalar_mask` (bit i for operand i) is a single
// element applied to every position (clamp's scalar bounds).
using TernaryKernel = void (*)(const void* a, const void* b, const void* c, void* out, int64_t n,
                               unsigned scalar_mask);

// Selects the kernel of a unary elementwise opcode (abs ... tanh, not,
// is-finite, real, imag, count-leading-zeros, popcnt, ...) for an operand of
// type `operand` producing `result` (they differ for is-finite, real, imag,
// abs of complex). Unimplemented for combinations XLA rejects.
absl::StatusOr<UnaryKernel> SelectUnaryKernel(HloOpcode opcode, ElementType operand,
                                              ElementType result);

// Selects the kernel of a binary elementwise opcode. `direction` and `type`
// are read for compare only.
absl::StatusOr<BinaryKernel> SelectBinaryKernel(
    HloOpcode opcode, ElementType operand, ElementType result,
    ComparisonDirection direction = ComparisonDirection::kEq,
    ComparisonType type = ComparisonType::kDefault);

// select or clamp over `type` (the type of the non-pred operands).
absl::StatusOr<TernaryKernel> SelectTernaryKernel(HloOpcode opcode, ElementType type);

// convert from `from` to `to` with XLA's rules.
absl::StatusOr<UnaryKernel> SelectConvertKernel(ElementType from, ElementType to);

// reduce-precision of a `type` operand to a float format with
// `exponent_bits` and `mantissa_bits` (XLA's rounding, overflow and NaN
// rules); the result keeps `type`. Call as kernel(in, out, n).
struct ReducePrecisionKernel {
  void (*fn)(const void* in, void* out, int64_t n, int exponent_bits, int mantissa_bits) = nullptr;
  int exponent_bits = 0;
  int mantissa_bits = 0;
  void operator()(const void* in, void* out, int64_t n) const {
    fn(in, out, n, exponent_bits, mantissa_bits);
  }
};
absl::StatusOr<ReducePrecisionKernel> SelectReducePrecisionKernel(ElementType type,
                                                                  int exponent_bits,
                                                                  int mantissa_bits);

// bitcast-convert between two types of equal bit width: a copy of the bytes.
// Different widths change the shape; the VM handles them as a shape op.
absl::StatusOr<UnaryKernel> SelectBitcastConvertKernel(ElementType from, ElementType to);

// Name of the SIMD target ("AVX2", "AVX3", "EMU128", ...) that the
// vectorized kernels run on, on this machine.
const char* ElementwiseSimdTarget();

}  // namespace hlovm

#endif  // HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_H_
