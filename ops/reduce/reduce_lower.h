// The reduce family's lowering (reduce_lower.cc): the single-op reduces and
// reduce-windows over whole rows that fused regions (vm/fusion.h) may feed
// with rows they compute, folding them exactly as the op-by-op instruction.
#ifndef HLOVM_OPS_REDUCE_REDUCE_LOWER_H_
#define HLOVM_OPS_REDUCE_REDUCE_LOWER_H_

#include <optional>

#include "core/hlo_ir.h"
#include "ops/elementwise/elementwise.h"
#include "ops/reduce/reduce.h"
#include "ops/reduce/reduce_window.h"

namespace hlovm {
namespace vm {

// A single-operand reduce whose reducer is one elementwise op and whose
// reduced dimensions are the innermost ones (each output folds one
// contiguous run of `g.inner` elements with `fold`/`op`, exactly as the
// op-by-op reduce does): fused regions may feed it rows they compute
// (vm/fusion.h). Nullopt for every other reduce.
struct RowReduce {
  ReduceGeometry g;
  int elem_size = 0;
  BinaryKernel op = nullptr;
  RunFoldKernel fold = nullptr;
  RowFold4Kernel fold4 = nullptr;  // column reduces: four rows a pass, or null
  HloOpcode opcode = HloOpcode::kAdd;
};
std::optional<RowReduce> SelectRowReduce(const HloInstruction& reduce);
// The same for a reduce whose innermost dimension is kept (a column reduce,
// `g.runs` false): each output column folds its reduced elements in order,
// row after row, as the op-by-op reduce does.
std::optional<RowReduce> SelectColumnReduce(const HloInstruction& reduce);

// A reduce-window that folds whole rows (ops/reduce/reduce_window.h
// WindowRowView): one operand and a one-op reducer with a vectorized kernel.
struct WindowReduce {
  WindowGeometry g;
  WindowRowView rows;
  int elem_size = 0;
  BinaryKernel op = nullptr;
  HloOpcode opcode = HloOpcode::kAdd;
};
std::optional<WindowReduce> SelectWindowRows(const HloInstruction& reduce_window);

}  // namespace vm
}  // namespace hlovm

#endif  // HLOVM_OPS_REDUCE_REDUCE_LOWER_H_
