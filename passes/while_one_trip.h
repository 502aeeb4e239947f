// Replaces `while` loops that run exactly once by their body applied to the
// initial value. The trip count is read from the usual counted-loop form:
// the condition compares a state element with a constant, the body adds a
// constant to (or subtracts one from) that element, and the initial tuple
// gives it as a constant; the two tests (on entry, and after one trip) are
// evaluated by the caller's evaluator (the VM), so they follow the loop's
// own integer arithmetic. Conditions with side effects keep their loop.
#ifndef HLOVM_PASSES_WHILE_ONE_TRIP_H_
#define HLOVM_PASSES_WHILE_ONE_TRIP_H_

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "passes/constant_folding.h"
#include "passes/pass.h"

namespace hlovm::passes {

// `names` (optional) names the body's copies; a pipeline shares one.
absl::StatusOr<PassResult> RunWhileOneTrip(HloModule& module, const ConstantEvaluator& evaluate,
                                           NameUniquer* names = nullptr);

}  // namespace hlovm::passes

#endif  // HLOVM_PASSES_WHILE_ONE_TRIP_H_
