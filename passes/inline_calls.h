// Inlines `call` instructions: the callee's instructions are copied into the
// caller with its parameters replaced by the call's operands, and the call's
// users read the copy of the callee's root; a callee that nothing else calls
// is moved rather than copied, and leaves the module. Calls whose callee has
// side effects or control dependencies stay (their order among the caller's
// effects would otherwise change). Inlined calls are removed.
#ifndef HLOVM_PASSES_INLINE_CALLS_H_
#define HLOVM_PASSES_INLINE_CALLS_H_

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "passes/pass.h"

namespace hlovm::passes {

// `names` (optional) names the copies; a pipeline shares one among passes.
absl::StatusOr<PassResult> RunInlineCalls(HloModule& module, NameUniquer* names = nullptr);

}  // namespace hlovm::passes

#endif  // HLOVM_PASSES_INLINE_CALLS_H_
