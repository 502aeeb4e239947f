// The custom-call registry: `custom_call_target` names a target; the
// compiler asks the target's factory for a prepared call once (Prepare: it
// validates operands, parses backend_config), and the executor runs it
// (Eval). Arrays reach a target in row-major order. The built-in targets are
// the conformance checks (vm/checks.cc): check.expect_eq, check.expect_close
// and check.expect_almost_eq, as ../shared/conformance/FORMAT.md defines.
// The registry is thread-safe; prepared calls must be safe to run from
// several threads at once.
#ifndef HLOVM_VM_CUSTOM_CALL_H_
#define HLOVM_VM_CUSTOM_CALL_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"
#include "core/shape.h"

namespace hlovm {

struct ArrayView {
  const Shape* shape;  // row-major
  const uint8_t* data;
};
struct MutableArrayView {
  const Shape* shape;  // row-major
  uint8_t* data;
};

class PreparedCustomCall {
 public:
  virtual ~PreparedCustomCall() = default;
  // Runs the call: reads `operands` (one per leaf array of the operands, in
  // order) and writes every leaf of the result.
  virtual absl::Status Run(absl::Span<const ArrayView> operands,
                           absl::Span<const MutableArrayView> results) const = 0;
  // True for checks: a failure is reported as a check failure and the
  // program keeps running.
  virtual bool is_check() const { return false; }
};

using CustomCallFactory =
    absl::StatusOr<std::unique_ptr<PreparedCustomCall>> (*)(const HloInstruction& instruction);

// Registers `factory` for `target`; a later registration replaces it.
void RegisterCustomCallTarget(std::string_view target, CustomCallFactory factory);
// Null when nothing is registered for `target`.
CustomCallFactory FindCustomCallTarget(std::string_view target);
// Registered target names, sorted.
std::vector<std::string> CustomCallTargets();

namespace vm {
// Registers the built-in check.* targets (called by the registry itself).
void RegisterCheckTargets();
}  // namespace vm

}  // namespace hlovm

#endif  // HLOVM_VM_CUSTOM_CALL_H_
