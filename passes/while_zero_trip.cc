#include "passes/while_zero_trip.h"

#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "passes/ir_util.h"

namespace hlovm::passes {
namespace {

bool IsScalarPredConstant(const HloInstruction& i) {
  return i.opcode() == HloOpcode::kConstant && i.literal.has_value() && !i.literal->elided() &&
         i.shape().IsArray() && i.shape().element_type() == ElementType::kPred &&
         i.shape().rank() == 0;
}

// The constant that `value` (an instruction of the condition) has on the
// loop's first test, or nullptr when unknown.
const HloInstruction* ConstantOnEntry(const HloInstruction* value, const HloInstruction* param,
                                      const HloInstruction* init) {
  if (value->opcode() == HloOpcode::kConstant) return value;
  if (value->opcode() == HloOpcode::kGetTupleElement && value->operand(0) == param &&
      init->opcode() == HloOpcode::kTuple && value->tuple_index < init->operand_count()) {
    const HloInstruction* e = init->operand(value->tuple_index);
    if (e->opcode() == HloOpcode::kConstant) return e;
  }
  return nullptr;
}

// Whether the loop's condition is false on its initial value.
bool NeverRuns(const HloInstruction& loop, const ConstantEvaluator& evaluate) {
  const HloComputation* cond = loop.called_computations()[0];
  const HloInstruction* root = cond->root();
  if (root == nullptr || cond->parameter_count() != 1) return false;
  std::optional<bool> value;
  if (IsScalarPredConstant(*root)) {
    value = root->literal->untyped_data()[0] != 0;
  } else if (root->opcode() == HloOpcode::kCompare && root->operand_count() == 2 &&
             root->shape().rank() == 0 && evaluate) {
    const HloInstruction* a = ConstantOnEntry(root->operand(0), cond->parameter(0), loop.operand(0));
    const HloInstruction* b = ConstantOnEntry(root->operand(1), cond->parameter(0), loop.operand(0));
    if (a == nullptr || b == nullptr || !a->literal.has_value() || !b->literal.has_value() ||
        a->literal->elided() || b->literal->elided()) {
      return false;
    }
    std::unique_ptr<HloInstruction> test = CloneInstruction(*root, root->name());
    test->ReplaceOperand(0, const_cast<HloInstruction*>(a));
    test->ReplaceOperand(1, const_cast<HloInstruction*>(b));
    absl::StatusOr<Literal> result = evaluate(*test);
    if (!result.ok() || !result->shape().IsArray() ||
        result->shape().element_type() != ElementType::kPred) {
      return false;
    }
    value = result->untyped_data()[0] != 0;
  }
  return value.has_value() && !*value;
}

}  // namespace

absl::StatusOr<PassResult> RunWhileZeroTrip(HloModule& module, const ConstantEvaluator& evaluate) {
  EffectAnalysis effects;
  int64_t removed = 0;
  for (const auto& computation : module.computations()) {
    absl::flat_hash_map<const HloInstruction*, HloInstruction*> replaced;
    for (const auto& i : computation->instructions()) {
      if (i->opcode() != HloOpcode::kWhile || i->called_computations().size() != 2 ||
          i->operand_count() != 1 || !i->control_predecessors().empty() ||
          effects.ComputationHasEffect(*i->called_computations()[0]) ||
          !(i->operand(0)->shape() == i->shape())) {
        continue;
      }
      if (NeverRuns(*i, evaluate)) {
        replaced[i.get()] = i->operand(0);
        ++removed;
      }
    }
    if (replaced.empty()) continue;
    // A loop that is a control predecessor stays (as a dead instruction).
    ReplaceUses(*computation, replaced);
  }
  PassResult result;
  result.changes = removed;
  result.detail = absl::StrCat("removed ", removed, " loops that never run");
  return result;
}

}  // namespace hlovm::passes
