// Algebraic simplification limited to rewrites that give the same bits for
// every input (NaN payloads and signed zeros included), so nothing like
// x + 0 -> x or float reassociation:
//   get-tuple-element(tuple(a, ...), i)    -> the i-th operand
//   select(constant pred, a, b), select(p, a, a) -> a or b
//   reshape, convert, copy, transpose, broadcast, slice, pad, reverse and
//   one-operand concatenate that leave their operand unchanged -> the operand
//   reshape(reshape(x))                    -> reshape(x)
//   dot(transpose(x), y), dot(x, transpose(y)) -> dot(x, y) with the
//     dimension numbers mapped through the permutation, where the free
//     dimensions keep their order (the same sums in the same order)
// A replacement is made only where its shape (layout included) equals the
// instruction's.
#ifndef HLOVM_PASSES_ALGSIMP_H_
#define HLOVM_PASSES_ALGSIMP_H_

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "passes/pass.h"

namespace hlovm::passes {

absl::StatusOr<PassResult> RunAlgebraicSimplifier(HloModule& module);

}  // namespace hlovm::passes

#endif  // HLOVM_PASSES_ALGSIMP_H_
