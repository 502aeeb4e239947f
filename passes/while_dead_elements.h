// Removes the dead elements of `while` loop states: an element that nothing
// after the loop reads, that the condition does not read, and that the body
// reads only to compute dead elements (itself included) and nothing with a
// side effect. The loop, its condition, its body and its initial tuple then
// carry only the live elements; what computed the dead ones is left to dce.
// A loop whose whole state is read (not through get-tuple-element) keeps
// every element.
#ifndef HLOVM_PASSES_WHILE_DEAD_ELEMENTS_H_
#define HLOVM_PASSES_WHILE_DEAD_ELEMENTS_H_

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "passes/pass.h"

namespace hlovm::passes {

// `names` (optional) names the new instructions; a pipeline shares one.
absl::StatusOr<PassResult> RunWhileDeadElements(HloModule& module, NameUniquer* names = nullptr);

}  // namespace hlovm::passes

#endif  // HLOVM_PASSES_WHILE_DEAD_ELEMENTS_H_
