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
    // Liveness by position in the list; the parameters are live whatever
    // reads them (marked while the list is numbered).
    const auto& list = computation->instructions();
    std::vector<bool> live(list.size(), false);
    std::vector<const HloInstruction*> stack;
    for (size_t k = 0; k < list.size(); ++k) {
      PrefetchAhead(list, k);
      HloInstruction* i = list[k].get();
      i->scratch = static_cast<uint32_t>(k);
      if (i->opcode() == HloOpcode::kParameter) {
        live[k] = true;
        stack.push_back(i);
      }
    }
    auto want = [&](const HloInstruction* i) {
      if (i == nullptr || i->parent() != computation.get() || live[i->scratch]) return;
      live[i->scratch] = true;
      stack.push_back(i);
    };
    auto propagate = [&] {
      while (!stack.empty()) {
        const HloInstruction* i = stack.back();
        stack.pop_back();
        for (const HloInstruction* o : i->operands()) want(o);
        for (const HloInstruction* p : i->control_predecessors()) want(p);
      }
    };
    // What the root and the parameters reach, then what the side effects
    // among the rest reach (only those need their effects looked up).
    want(computation->root());
    propagate();
    for (size_t k = 0; k < list.size(); ++k) {
      if (!live[k] && effects.HasEffect(*list[k])) want(list[k].get());
    }
    propagate();
    std::vector<bool> dead(list.size());
    int64_t removed = 0;
    for (size_t k = 0; k < list.size(); ++k) {
      dead[k] = !live[k];
      removed += dead[k];
    }
    removed_instructions += removed;
    // Live instructions may name dead ones only as control predecessors of
    // dead ones, which go too; nothing live refers to a dead instruction.
    if (removed > 0) RemoveAt(*computation, dead);
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
