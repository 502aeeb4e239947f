// Removes `while` loops whose condition is false on the initial value (the
// body never runs): users read the initial value instead. The condition is
// decided when its root is a constant, or a comparison of constants and
// tuple elements that the loop's initial tuple gives as constants; the
// comparison is evaluated by the caller's evaluator (the VM). Conditions
// with side effects keep their loop.
#ifndef HLOVM_PASSES_WHILE_ZERO_TRIP_H_
#define HLOVM_PASSES_WHILE_ZERO_TRIP_H_

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "passes/constant_folding.h"
#include "passes/pass.h"

namespace hlovm::passes {

absl::StatusOr<PassResult> RunWhileZeroTrip(HloModule& module, const ConstantEvaluator& evaluate);

}  // namespace hlovm::passes

#endif  // HLOVM_PASSES_WHILE_ZERO_TRIP_H_
