// Loop-invariant code motion for `while`: instructions of a loop body whose
// operands do not change between iterations (constants, iota, tuple elements
// the body passes through unchanged, and pure instructions of those) are
// computed once before the loop and carried into the body as new tuple
// elements. Side-effecting and rng instructions never move. The values are
// those the body would have computed, so results are bit-identical; only the
// number of evaluations changes.
#ifndef HLOVM_PASSES_WHILE_LICM_H_
#define HLOVM_PASSES_WHILE_LICM_H_

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "passes/pass.h"

namespace hlovm::passes {

// `names` (optional) names the copies; a pipeline shares one among passes.
absl::StatusOr<PassResult> RunWhileLicm(HloModule& module, NameUniquer* names = nullptr);

}  // namespace hlovm::passes

#endif  // HLOVM_PASSES_WHILE_LICM_H_
