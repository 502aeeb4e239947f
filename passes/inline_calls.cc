#include "passes/inline_calls.h"

#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "passes/ir_util.h"

namespace hlovm::passes {
namespace {

// Moves the instructions of `callee`, which nothing else calls, into
// `caller` (appended, in post order), their reads of the callee's
// parameters pointed at what `map` gives for them. An instruction keeps its
// name unless another instruction of the module has it too (names are
// unique within a computation, and may repeat across computations). Returns
// what the callee's root is now. The callee is left with its parameters.
HloInstruction* MoveComputationInto(
    HloComputation& callee, HloComputation& caller, NameUniquer& names,
    const absl::flat_hash_map<const HloInstruction*, HloInstruction*>& map) {
  const std::vector<HloInstruction*> order = PostOrder(callee);
  // Named while the instructions are still the callee's (the uniquer
  // collects the module's names on first use).
  for (HloInstruction* i : order) {
    if (i->opcode() != HloOpcode::kParameter && !names.Unique(i->name())) {
      i->set_name(names.Get(i->name()));
    }
  }
  auto& list = const_cast<std::vector<std::unique_ptr<HloInstruction>>&>(callee.instructions());
  // PostOrder numbered each instruction with its position in the list.
  std::vector<std::unique_ptr<HloInstruction>> owned(list.size());
  for (size_t k = 0; k < list.size(); ++k) {
    if (list[k]->opcode() != HloOpcode::kParameter) owned[k] = std::move(list[k]);
  }
  std::erase(list, nullptr);
  for (HloInstruction* i : order) {
    if (i->opcode() == HloOpcode::kParameter) continue;
    for (int64_t k = 0; k < i->operand_count(); ++k) {
      if (i->operand(k)->opcode() == HloOpcode::kParameter && i->operand(k)->parent() == &callee) {
        i->ReplaceOperand(k, map.at(i->operand(k)));
      }
    }
    caller.AddInstruction(std::move(owned[i->scratch]));
  }
  HloInstruction* root = callee.root();
  return root->opcode() == HloOpcode::kParameter && root->parent() == &callee ? map.at(root) : root;
}

}  // namespace

absl::StatusOr<PassResult> RunInlineCalls(HloModule& module, NameUniquer* shared_names) {
  EffectAnalysis effects;
  std::optional<NameUniquer> own_names;
  NameUniquer& names = shared_names != nullptr ? *shared_names : own_names.emplace(module);
  // One sweep over the module counts call sites and finds, per computation,
  // its calls, the instructions that read a call, and what control edges
  // name; it numbers every list (for MoveAppendedBefore) and collects the
  // module's names for the uniquer where nobody has yet. (Calls added by
  // inlining are handled in the next round of the pipeline.)
  struct Caller {
    HloComputation* computation;
    std::vector<HloInstruction*> calls, readers;
    absl::flat_hash_set<const HloInstruction*> control;
  };
  std::vector<Caller> callers;
  absl::flat_hash_map<const HloComputation*, int64_t> call_sites;
  const bool collect = !names.collected();
  if (collect) names.BeginCollecting();
  for (const auto& c : module.computations()) {
    if (collect) names.Collect(c->name());
    Caller caller{c.get(), {}, {}, {}};
    const auto& list = c->instructions();
    for (size_t k = 0; k < list.size(); ++k) {
      PrefetchAhead(list, k);
      HloInstruction* i = list[k].get();
      i->scratch = static_cast<uint32_t>(k);
      if (collect) names.Collect(i->name());
      for (const HloComputation* callee : i->called_computations()) ++call_sites[callee];
      for (const HloInstruction* p : i->control_predecessors()) caller.control.insert(p);
      if (i->opcode() == HloOpcode::kCall && i->called_computations().size() == 1 &&
          i->control_predecessors().empty()) {
        caller.calls.push_back(i);
      }
      for (const HloInstruction* o : i->operands()) {
        if (o->opcode() == HloOpcode::kCall) {
          caller.readers.push_back(i);
          break;
        }
      }
    }
    if (!caller.calls.empty()) callers.push_back(std::move(caller));
  }
  if (collect) names.FinishCollecting();

  absl::flat_hash_set<const HloComputation*> emptied;
  int64_t inlined = 0;
  for (Caller& site : callers) {
    HloComputation* caller = site.computation;
    if (emptied.contains(caller)) continue;
    absl::flat_hash_map<const HloInstruction*, HloInstruction*> results;
    absl::flat_hash_set<const HloInstruction*> done;
    const size_t original_size = caller->instructions().size();
    std::vector<AppendedRange> copies;
    for (HloInstruction* call : site.calls) {
      HloComputation* callee = call->to_apply();
      if (callee == nullptr || callee == caller || callee == module.entry() ||
          callee->root() == nullptr || emptied.contains(callee) ||
          effects.ComputationHasEffect(*callee) || HasControlDependencies(*callee) ||
          callee->parameter_count() != call->operand_count()) {
        continue;
      }
      if (site.control.contains(call)) continue;
      absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
      for (int64_t p = 0; p < callee->parameter_count(); ++p) {
        // An operand that is itself an inlined call reads that call's result.
        HloInstruction* op = call->operand(p);
        auto it = results.find(op);
        map[callee->parameter(p)] = it == results.end() ? op : it->second;
      }
      const size_t begin = caller->instructions().size();
      if (call_sites.at(callee) == 1) {
        // Called here alone: the instructions move instead of being copied,
        // and the callee goes with its call.
        results[call] = MoveComputationInto(*callee, *caller, names, map);
        emptied.insert(callee);
      } else {
        results[call] = CopyComputationInto(*callee, *caller, names, map);
        // The copies call what the callee's instructions call.
        for (const auto& i : callee->instructions()) {
          for (const HloComputation* c : i->called_computations()) ++call_sites[c];
        }
      }
      copies.push_back({call, begin, caller->instructions().size()});
      done.insert(call);
      ++inlined;
    }
    if (done.empty()) continue;
    // The copies go where their call was, so the caller's users still
    // follow their operands in its list.
    MoveAppendedBefore(*caller, original_size, copies);
    // What read an inlined call reads its result.
    ReplaceUsesIn(*caller, site.readers, results);
    // Nothing reads an inlined call any more (calls named as control
    // predecessors are not inlined); the calls go now, so that none refers
    // to a callee removed below.
    RemoveInstructions(*caller, done);
  }
  RemoveComputations(module, emptied);
  PassResult result;
  result.changes = inlined;
  result.detail = absl::StrCat("inlined ", inlined, " calls");
  return result;
}

}  // namespace hlovm::passes
