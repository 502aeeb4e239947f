// Calling a compiled computation from inside a kernel: the reducer of a
// reduce or reduce-window, the comparator of a sort, the combiner of a
// scatter, the body of a map. Kernels first try MatchBinaryReducer /
// MatchComparator and run a tight vectorised loop for the common single-op
// computations; any other computation runs as compiled bytecode through a
// ComputationCall, never through an interpreter of the HLO graph.
#ifndef HLOVM_VM_COMPUTATION_CALL_H_
#define HLOVM_VM_COMPUTATION_CALL_H_

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "vm/bytecode.h"
#include "vm/executor.h"

namespace hlovm {
namespace vm {

// One reusable activation of a compiled function. Not thread-safe: each
// thread (each parallel chunk) makes its own; creating one allocates the
// function's arena once, and Run allocates nothing.
class ComputationCall {
 public:
  static absl::StatusOr<ComputationCall> Create(const Function& fn);

  // Number of parameter leaves and result leaves (tuples are flattened).
  int num_args() const { return static_cast<int>(fn_->param_regs.size()); }
  int num_results() const { return static_cast<int>(fn_->result_regs.size()); }

  // Points parameter leaf i at args[i] (each a buffer of that leaf's shape),
  // runs the function and returns false after recording an error in `ctx`.
  bool Run(const void* const* args, ExecContext& ctx) {
    uint8_t** regs = frame_->regs();
    for (size_t i = 0; i < fn_->param_regs.size(); ++i) {
      regs[fn_->param_regs[i]] = static_cast<uint8_t*>(const_cast<void*>(args[i]));
    }
    return RunFunction(*fn_, regs, ctx);
  }
  // Result leaf i of the last Run (valid until the next Run).
  const uint8_t* result(int i) const { return frame_->regs()[fn_->result_regs[i]]; }

 private:
  const Function* fn_ = nullptr;
  std::unique_ptr<Frame> frame_;
};

// If `computation` is `ROOT op(p0, p1)` for a binary elementwise opcode
// (either operand order when the opcode is commutative) over scalars, returns
// the opcode; reduce/reduce-window/scatter use a vectorised kernel for it.
std::optional<HloOpcode> MatchBinaryReducer(const HloComputation& computation);

// A comparator that is `ROOT compare(p_{2i}, p_{2i+1})` (or the swapped
// operands) on one pair of a sort's operands.
struct SimpleComparator {
  int operand = 0;  // which sort operand it reads
  ComparisonDirection direction = ComparisonDirection::kLt;  // after un-swapping
  ComparisonType type = ComparisonType::kDefault;
};
std::optional<SimpleComparator> MatchComparator(const HloComputation& computation);

}  // namespace vm
}  // namespace hlovm

#endif  // HLOVM_VM_COMPUTATION_CALL_H_
