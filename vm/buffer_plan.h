// Buffer planning for one bytecode Function: liveness of every register,
// slots reused once their last reader has run, elementwise results written
// in place into an operand that dies there, and the dependency graph the
// parallel executor follows (data, reuse hazards, control and side-effect
// order). Results are live until the function returns.
#ifndef HLOVM_VM_BUFFER_PLAN_H_
#define HLOVM_VM_BUFFER_PLAN_H_

#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "vm/bytecode.h"

namespace hlovm {
namespace vm {

// Fills def/last_use, slots and offsets, arena_bytes, the dependency graph
// and `parallel`. `extra_edges` are (before, after) instruction pairs from
// control predecessors. In a `while_body`, instructions that can work in
// place and compute a state leaf's next value from its last read write into
// the state buffer itself (Function::param_mutated).
// With `results_outside` (the entry function and loop bodies), result slots
// are left out of the arena (Function::slot_result); they get offsets in a
// region of their own (Function::result_region_bytes).
absl::Status PlanFunction(Function* fn, const std::vector<std::pair<int32_t, int32_t>>& extra_edges,
                          bool while_body = false, bool results_outside = false);

// The functions whose frames live in a buffer of their caller's arena (loop
// conditions and bodies, conditional branches: RegInfo::frames); the rest
// (reducers, comparators, ...) get frames of their own when called.
absl::flat_hash_set<const Function*> FunctionsInCallerArenas(const Program& program);

// A function runs on the parallel executor when its instructions touch at
// least kParallelFunctionBytes and at least two of them are worth a task
// (kSpawnCost bytes; loops and conditionals, of unknown cost, are not
// counted as such). Functions of small instructions only run sequentially:
// per-instruction bookkeeping and waking a second thread (tens of
// microseconds on a shared core) cost more than they gain.
inline constexpr int64_t kParallelFunctionBytes = 512 * 1024;
inline constexpr int64_t kSpawnCost = 128 * 1024;

}  // namespace vm
}  // namespace hlovm

#endif  // HLOVM_VM_BUFFER_PLAN_H_
