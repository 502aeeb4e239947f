#include "passes/inline_calls.h"

#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "passes/ir_util.h"

namespace hlovm::passes {

absl::StatusOr<PassResult> RunInlineCalls(HloModule& module, NameUniquer* shared_names) {
  EffectAnalysis effects;
  std::optional<NameUniquer> own_names;
  NameUniquer& names = shared_names != nullptr ? *shared_names : own_names.emplace(module);
  int64_t inlined = 0;
  std::vector<HloComputation*> computations;
  for (const auto& c : module.computations()) computations.push_back(c.get());
  for (HloComputation* caller : computations) {
    // Calls added by inlining are handled in the next round of the pipeline.
    std::vector<HloInstruction*> calls;
    for (const auto& i : caller->instructions()) {
      if (i->opcode() == HloOpcode::kCall && i->called_computations().size() == 1 &&
          i->control_predecessors().empty()) {
        calls.push_back(i.get());
      }
    }
    absl::flat_hash_set<const HloInstruction*> control;
    for (const auto& i : caller->instructions()) {
      for (const HloInstruction* p : i->control_predecessors()) control.insert(p);
    }
    absl::flat_hash_map<const HloInstruction*, HloInstruction*> results;
    const size_t original_size = caller->instructions().size();
    std::vector<AppendedRange> copies;
    for (HloInstruction* call : calls) {
      HloComputation* callee = call->to_apply();
      if (callee == nullptr || callee == caller || callee->root() == nullptr ||
          effects.ComputationHasEffect(*callee) || HasControlDependencies(*callee) ||
          callee->parameter_count() != call->operand_count()) {
        continue;
      }
      if (control.contains(call)) continue;
      absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
      for (int64_t p = 0; p < callee->parameter_count(); ++p) {
        // An operand that is itself an inlined call reads that call's result.
        HloInstruction* op = call->operand(p);
        auto it = results.find(op);
        map[callee->parameter(p)] = it == results.end() ? op : it->second;
      }
      const size_t begin = caller->instructions().size();
      results[call] = CopyComputationInto(*callee, *caller, names, map);
      copies.push_back({call, begin, caller->instructions().size()});
      ++inlined;
    }
    // The copies go where their call was, so the caller's users still
    // follow their operands in its list.
    MoveAppendedBefore(*caller, original_size, copies);
    ReplaceUses(*caller, results);
  }
  PassResult result;
  result.changes = inlined;
  result.detail = absl::StrCat("inlined ", inlined, " calls");
  return result;
}

}  // namespace hlovm::passes
