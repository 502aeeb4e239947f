// Dead code elimination: removes instructions whose values nothing live uses
// and computations nothing calls. Side-effecting instructions (see
// EffectAnalysis), the root and parameters always stay.
#ifndef HLOVM_PASSES_DCE_H_
#define HLOVM_PASSES_DCE_H_

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "passes/pass.h"

namespace hlovm::passes {

absl::StatusOr<PassResult> RunDce(HloModule& module);

}  // namespace hlovm::passes

#endif  // HLOVM_PASSES_DCE_H_
