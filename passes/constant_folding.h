// Constant folding: an instruction whose operands are all constants is
// replaced by a constant holding its value, computed by an evaluator the
// caller supplies (the VM compiles and runs the one instruction, so the
// folded bits are exactly those the run would produce). Instructions with
// called computations, side effects or rng, zero-operand ones (iota,
// constants), broadcasts, tuple plumbing and dynamic shapes are left, as are
// results larger than the size bound.
#ifndef HLOVM_PASSES_CONSTANT_FOLDING_H_
#define HLOVM_PASSES_CONSTANT_FOLDING_H_

#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "core/literal.h"
#include "passes/pass.h"

namespace hlovm::passes {

// Evaluates `instr`, all of whose operands are constants.
using ConstantEvaluator = std::function<absl::StatusOr<Literal>(const HloInstruction& instr)>;

struct ConstantFoldingOptions {
  ConstantEvaluator evaluate;
  int64_t max_result_bytes = int64_t{1} << 16;
  // Names the folded constants (optional; a pipeline shares one among passes).
  NameUniquer* names = nullptr;
};

absl::StatusOr<PassResult> RunConstantFolding(HloModule& module,
                                              const ConstantFoldingOptions& options);

}  // namespace hlovm::passes

#endif  // HLOVM_PASSES_CONSTANT_FOLDING_H_
