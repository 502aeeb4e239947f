#include "passes/dce.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "passes/ir_util.h"

namespace hlovm::passes {

absl::StatusOr<PassResult> RunDce(HloModule& module) {
  EffectAnalysis effects;
  int64_t removed_instructions = 0;
  for (const auto& computation : module.computations()) {
    absl::flat_hash_set<const HloInstruction*> live;
    std::vector<const HloInstruction*> stack;
    auto want = [&](const HloInstruction* i) {
      if (i != nullptr && live.insert(i).second) stack.push_back(i);
    };
    want(computation->root());
    for (const auto& i : computation->instructions()) {
      if (i->opcode() == HloOpcode::kParameter || effects.HasEffect(*i)) want(i.get());
    }
    while (!stack.empty()) {
      const HloInstruction* i = stack.back();
      stack.pop_back();
      for (const HloInstruction* o : i->operands()) want(o);
      for (const HloInstruction* p : i->control_predecessors()) want(p);
    }
    absl::flat_hash_set<const HloInstruction*> dead;
    for (const auto& i : computation->instructions()) {
      if (!live.contains(i.get())) dead.insert(i.get());
    }
    // Live instructions may name dead ones only as control predecessors of
    // dead ones, which go too; nothing live refers to a dead instruction.
    removed_instructions += static_cast<int64_t>(dead.size());
    RemoveInstructions(*computation, dead);
  }

  // Computations reachable from the entry through called computations.
  absl::flat_hash_set<const HloComputation*> reachable;
  std::vector<const HloComputation*> stack;
  if (module.entry() != nullptr) {
    reachable.insert(module.entry());
    stack.push_back(module.entry());
  }
  while (!stack.empty()) {
    const HloComputation* c = stack.back();
    stack.pop_back();
    for (const auto& i : c->instructions()) {
      for (const HloComputation* callee : i->called_computations()) {
        if (callee != nullptr && reachable.insert(callee).second) stack.push_back(callee);
      }
    }
  }
  absl::flat_hash_set<const HloComputation*> dead_computations;
  for (const auto& c : module.computations()) {
    if (!reachable.contains(c.get())) dead_computations.insert(c.get());
  }
  RemoveComputations(module, dead_computations);

  PassResult result;
  result.changes = removed_instructions + static_cast<int64_t>(dead_computations.size());
  result.detail = absl::StrCat("removed ", removed_instructions, " instructions, ",
                               dead_computations.size(), " computations");
  return result;
}

}  // namespace hlovm::passes
