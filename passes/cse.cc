#include "passes/cse.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "frontend/printer.h"
#include "passes/ir_util.h"

namespace hlovm::passes {
namespace {

PrintOptions KeyOptions() {
  PrintOptions o;
  o.print_percent = false;
  o.print_operand_shape = false;
  o.print_metadata = false;
  o.print_large_constants = true;
  o.operand_index_annotation_interval = 0;
  return o;
}

}  // namespace

absl::StatusOr<PassResult> RunCse(HloModule& module) {
  EffectAnalysis effects;
  const PrintOptions options = KeyOptions();
  int64_t merged = 0;
  for (const auto& computation : module.computations()) {
    absl::flat_hash_set<const HloInstruction*> control;
    for (const auto& i : computation->instructions()) {
      if (!i->control_predecessors().empty()) control.insert(i.get());
      for (const HloInstruction* p : i->control_predecessors()) control.insert(p);
    }
    absl::flat_hash_map<HloInstruction*, HloInstruction*> replaced;
    absl::flat_hash_map<std::string, HloInstruction*> seen;
    for (HloInstruction* i : PostOrder(*computation)) {
      for (int64_t k = 0; k < i->operand_count(); ++k) {
        auto it = replaced.find(i->operand(k));
        if (it != replaced.end()) i->ReplaceOperand(k, it->second);
      }
      if (i->opcode() == HloOpcode::kParameter || i->opcode() == HloOpcode::kCustomCall ||
          control.contains(i) || effects.HasEffect(*i)) {
        continue;
      }
      if (i->opcode() == HloOpcode::kConstant &&
          (!i->shape().IsArray() || i->shape().element_count() > 4096)) {
        continue;
      }
      std::string text = PrintInstruction(*i, options);
      // Drop the instruction's own name ("name = ...").
      const size_t eq = text.find(" = ");
      if (eq == std::string::npos) continue;
      text.erase(0, eq + 3);
      auto [it, inserted] = seen.try_emplace(std::move(text), i);
      if (!inserted && it->second->shape() == i->shape()) {
        replaced[i] = it->second;
        ++merged;
      }
    }
    if (HloInstruction* root = computation->root(); root != nullptr) {
      auto it = replaced.find(root);
      if (it != replaced.end()) computation->set_root(it->second);
    }
  }
  PassResult result;
  result.changes = merged;
  result.detail = absl::StrCat("merged ", merged, " instructions");
  return result;
}

}  // namespace hlovm::passes
