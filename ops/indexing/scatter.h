// scatter: plan and the kernels for the combiners that need no compiled
// computation. The result starts as a copy of the operands; then, for every
// position of the updates' scatter dimensions in row-major order, the window
// of updates is combined into the result at the start the index vector
// gives. Positions are applied serially in that order, so non-unique
// indices combine deterministically (as XLA's CPU backend does), whatever
// the thread count.
//
// Out-of-bounds rule (XLA CPU): a window whose start is negative, or whose
// end would pass the operand's bound in any dimension, is skipped as a
// whole. Operand batching dimensions take the coordinate of the matching
// scatter_indices batching dimension.
//
// Callers with other combiners iterate with ForEachIndexedWindow and
// ForEachWindowRun over `windows` (offsets count elements).
#ifndef HLOVM_OPS_INDEXING_SCATTER_H_
#define HLOVM_OPS_INDEXING_SCATTER_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"
#include "core/shape.h"
#include "ops/elementwise/elementwise.h"
#include "ops/indexing/index_windows.h"

namespace hlovm {

struct ScatterPlan {
  IndexWindowPlan windows;
};

// `operand` and `updates` are the shapes of the first operand and update
// (the others have the same dimensions); all arrays row-major.
absl::StatusOr<ScatterPlan> MakeScatterPlan(const Shape& operand, const Shape& scatter_indices,
                                            const Shape& updates,
                                            const ScatterDimensionNumbers& dnums);

// Combiner `result = update` for every operand i (elem_size[i] bytes each):
// the update computation returns its update parameters unchanged.
void RunScatterAssign(const ScatterPlan& plan, absl::Span<const int> elem_size,
                      uint8_t* const* results, const uint8_t* scatter_indices,
                      const uint8_t* const* updates);

// Combiner `result = kernel(result, update)` for one operand of `elem_size`
// bytes (a single binary opcode, in place).
void RunScatterBinary(const ScatterPlan& plan, int elem_size, BinaryKernel kernel,
                      uint8_t* result, const uint8_t* scatter_indices, const uint8_t* updates);

// A whole scatter with a single-opcode combiner compiled for one element
// type: no call per element. Exists for add and multiply of s8..s64,
// u8..u64, f32, f64 and for maximum, minimum, and, or, xor of the integer
// types (bit-exact with the elementwise kernels); nullptr otherwise.
using ScatterTypedKernel = void (*)(const ScatterPlan& plan, uint8_t* result,
                                    const uint8_t* scatter_indices, const uint8_t* updates);
ScatterTypedKernel SelectScatterTypedKernel(HloOpcode opcode, ElementType type);

}  // namespace hlovm

#endif  // HLOVM_OPS_INDEXING_SCATTER_H_
