// Unrolls `while` loops with a small constant trip count: a loop that runs
// T times (T <= kMaxUnrollTrips, and T copies of its body no larger than
// kMaxUnrolledInstructions, or T = 1 whatever the body) becomes T copies of
// its body chained from the initial value, which later passes and fusion
// see through. The trip count is read from the usual counted-loop form:
// the condition compares a state element with a constant, the body adds a
// constant to (or subtracts one from) that element, and the initial tuple
// gives it as a constant; every test (on entry and after each trip) is
// evaluated by the caller's evaluator (the VM), so it follows the loop's
// own integer arithmetic. Conditions with side effects keep their loop.
#ifndef HLOVM_PASSES_WHILE_UNROLL_H_
#define HLOVM_PASSES_WHILE_UNROLL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "passes/constant_folding.h"
#include "passes/pass.h"

namespace hlovm::passes {

inline constexpr int64_t kMaxUnrollTrips = 4;
inline constexpr int64_t kMaxUnrolledInstructions = 256;

// `names` (optional) names the body's copies; a pipeline shares one.
absl::StatusOr<PassResult> RunWhileUnroll(HloModule& module, const ConstantEvaluator& evaluate,
                                          NameUniquer* names = nullptr);

}  // namespace hlovm::passes

#endif  // HLOVM_PASSES_WHILE_UNROLL_H_
