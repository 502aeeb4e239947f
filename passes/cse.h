// Common subexpression elimination within each computation: two instructions
// with the same opcode, shape, operands and attributes (metadata aside) give
// the same bits, so users of the second read the first. Side-effecting,
// rng and custom-call instructions, parameters, instructions with control
// dependencies and constants above 4096 elements are left alone.
#ifndef HLOVM_PASSES_CSE_H_
#define HLOVM_PASSES_CSE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "passes/pass.h"

namespace hlovm::passes {

// With `only`, the computations listed there alone.
absl::StatusOr<PassResult> RunCse(HloModule& module,
                                  const std::vector<const HloComputation*>* only = nullptr);

}  // namespace hlovm::passes

#endif  // HLOVM_PASSES_CSE_H_
