#include "passes/while_unroll.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "passes/ir_util.h"

namespace hlovm::passes {
namespace {

const HloInstruction* KnownConstant(const HloInstruction* i) {
  return i->opcode() == HloOpcode::kConstant && i->literal.has_value() && !i->literal->elided() &&
                 i->shape().IsArray() && i->shape().rank() == 0
             ? i
             : nullptr;
}

// `instr` evaluated with its operands replaced by the constants `a` and `b`.
std::optional<Literal> EvaluateWith(const HloInstruction& instr, const HloInstruction* a,
                                    const HloInstruction* b, const ConstantEvaluator& evaluate) {
  std::unique_ptr<HloInstruction> copy = CloneInstruction(instr, instr.name());
  copy->ReplaceOperand(0, const_cast<HloInstruction*>(a));
  copy->ReplaceOperand(1, const_cast<HloInstruction*>(b));
  absl::StatusOr<Literal> value = evaluate(*copy);
  if (!value.ok() || !value->shape().IsArray() || !value->shape().Compatible(instr.shape())) {
    return std::nullopt;
  }
  return std::move(*value);
}

std::optional<bool> IsTrue(const std::optional<Literal>& pred) {
  if (!pred.has_value() || pred->shape().element_type() != ElementType::kPred) return std::nullopt;
  return pred->untyped_data()[0] != 0;
}

// How many times the counted loop runs its body, when that is at most
// `max` trips.
std::optional<int64_t> TripCount(const HloInstruction& loop, const TupleLoop& parts,
                                 const ConstantEvaluator& evaluate, int64_t max) {
  const HloInstruction* test = parts.cond->root();
  const HloInstruction* init = loop.operand(0);
  if (!evaluate || test == nullptr || test->opcode() != HloOpcode::kCompare ||
      test->operand_count() != 2 || test->shape().rank() != 0 ||
      init->opcode() != HloOpcode::kTuple) {
    return std::nullopt;
  }
  // The counter: one side of the test reads state element k, the other is
  // a constant.
  const HloInstruction* cond_param = parts.cond->parameter(0);
  int side = -1;
  for (int s = 0; s < 2; ++s) {
    const HloInstruction* o = test->operand(s);
    if (o->opcode() == HloOpcode::kGetTupleElement && o->operand(0) == cond_param &&
        KnownConstant(test->operand(1 - s)) != nullptr) {
      side = s;
    }
  }
  if (side < 0) return std::nullopt;
  const int64_t k = test->operand(side)->tuple_index;
  const HloInstruction* limit = test->operand(1 - side);
  const HloInstruction* start = KnownConstant(init->operand(k));
  // The body's step: counter + c, c + counter or counter - c.
  const HloInstruction* next = parts.root->operand(k);
  if (start == nullptr || next->operand_count() != 2 ||
      (next->opcode() != HloOpcode::kAdd && next->opcode() != HloOpcode::kSubtract)) {
    return std::nullopt;
  }
  auto is_counter = [&](const HloInstruction* o) {
    return o->opcode() == HloOpcode::kGetTupleElement && o->operand(0) == parts.param &&
           o->tuple_index == k;
  };
  int counter_side = is_counter(next->operand(0)) ? 0 : is_counter(next->operand(1)) ? 1 : -1;
  if (counter_side < 0 || (next->opcode() == HloOpcode::kSubtract && counter_side != 0)) {
    return std::nullopt;
  }
  const HloInstruction* step = KnownConstant(next->operand(1 - counter_side));
  if (step == nullptr) return std::nullopt;

  // Trip by trip: the test on the counter, then the body's step.
  HloInstruction counter(HloOpcode::kConstant, "counter", start->shape());
  counter.literal = start->literal->Clone();
  for (int64_t trips = 0; trips <= max; ++trips) {
    const std::optional<bool> more =
        IsTrue(side == 0 ? EvaluateWith(*test, &counter, limit, evaluate)
                         : EvaluateWith(*test, limit, &counter, evaluate));
    if (!more.has_value()) return std::nullopt;
    if (!*more) return trips;
    std::optional<Literal> after = counter_side == 0 ? EvaluateWith(*next, &counter, step, evaluate)
                                                     : EvaluateWith(*next, step, &counter, evaluate);
    if (!after.has_value()) return std::nullopt;
    counter.literal = std::move(*after);
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<PassResult> RunWhileUnroll(HloModule& module, const ConstantEvaluator& evaluate,
                                          NameUniquer* shared_names) {
  EffectAnalysis effects;
  std::optional<NameUniquer> own_names;
  NameUniquer& names = shared_names != nullptr ? *shared_names : own_names.emplace(module);
  int64_t replaced_loops = 0, copies = 0;
  absl::flat_hash_map<const HloComputation*, int64_t> call_sites;
  ForEachWhileLoop(module, call_sites, [&](HloComputation* caller, HloInstruction* loop) {
    const std::optional<TupleLoop> parts = AsTupleLoop(loop, call_sites);
    if (!parts.has_value() || effects.ComputationHasEffect(*parts->cond)) return;
    const int64_t body_size = static_cast<int64_t>(parts->body->instructions().size());
    const int64_t max_trips =
        std::min<int64_t>(kMaxUnrollTrips, kMaxUnrolledInstructions / std::max<int64_t>(1, body_size));
    const std::optional<int64_t> trips = TripCount(*loop, *parts, evaluate, std::max<int64_t>(1, max_trips));
    // Zero trips are zerotrip's.
    if (!trips.has_value() || *trips < 1 || (*trips > 1 && *trips > max_trips)) return;
    for (const auto& i : caller->instructions()) {  // a control predecessor stays a loop
      for (const HloInstruction* p : i->control_predecessors()) {
        if (p == loop) return;
      }
    }
    // The body `trips` times, each copy on the last one's result, where the
    // loop was.
    const size_t begin = caller->instructions().size();
    HloInstruction* state = loop->operand(0);
    for (int64_t t = 0; t < *trips; ++t) {
      absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
      map[parts->param] = state;
      state = CopyComputationInto(*parts->body, *caller, names, map);
    }
    MoveAppendedBefore(*caller, begin, {{loop, begin, caller->instructions().size()}});
    ReplaceAllUses(*caller, loop, state);
    // The loop goes now: with a side effect in its body, dce would keep it.
    RemoveInstructions(*caller, {loop});
    ++replaced_loops;
    copies += *trips;
  });
  PassResult result;
  result.changes = replaced_loops;
  result.detail = absl::StrCat("unrolled ", replaced_loops, " loops of constant trip counts into ",
                               copies, " copies of their bodies");
  return result;
}

}  // namespace hlovm::passes
