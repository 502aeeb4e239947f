#include "passes/constant_folding.h"

#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "passes/ir_util.h"

namespace hlovm::passes {
namespace {

bool Foldable(const HloInstruction& i, EffectAnalysis& effects) {
  if (i.operand_count() == 0) return false;
  switch (i.opcode()) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kCustomCall:
    case HloOpcode::kParameter:
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kSetDimensionSize:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kDynamicReshape:
      return false;
    default:
      break;
  }
  // Operands first: most instructions fail there, on fields they hold
  // themselves.
  for (const HloInstruction* o : i.operands()) {
    if (o->opcode() != HloOpcode::kConstant || !o->literal.has_value() || o->literal->elided() ||
        !o->shape().IsArray() || !o->shape().is_static()) {
      return false;
    }
  }
  return i.called_computations().empty() && i.control_predecessors().empty() &&
         i.shape().IsArray() && i.shape().is_static() && !effects.HasEffect(i);
}

}  // namespace

absl::StatusOr<PassResult> RunConstantFolding(HloModule& module,
                                              const ConstantFoldingOptions& options) {
  PassResult result;
  if (!options.evaluate) {
    result.detail = "no evaluator";
    return result;
  }
  EffectAnalysis effects;
  std::optional<NameUniquer> own_names;
  NameUniquer& names = options.names != nullptr ? *options.names : own_names.emplace(module);
  int64_t folded = 0;
  for (const auto& computation : module.computations()) {
    bool any = false;  // most computations have nothing to fold: skip them cheaply
    const auto& list = computation->instructions();
    for (size_t k = 0; k < list.size(); ++k) {
      PrefetchAhead(list, k);
      const auto& i = list[k];
      if (i->operand_count() > 0 && i->operand(0)->opcode() == HloOpcode::kConstant &&
          Foldable(*i, effects)) {
        any = true;
        break;
      }
    }
    if (!any) continue;
    // Folded values replace their instruction as operands of later ones
    // (operands come first in post order, so every use is forwarded).
    Replacements replaced(*computation);
    const size_t original_size = list.size();
    std::vector<AppendedRange> placed;
    ForEachInPostOrder(*computation, [&](HloInstruction* i, bool) {
      ForwardReplacedOperands(i, replaced);
      if (!Foldable(*i, effects)) return;
      // element_count is -1 for `?` and for counts past int64.
      const int64_t count = i->shape().element_count();
      int64_t bytes = 0;
      if (count < 0 ||
          __builtin_mul_overflow(count, int64_t{ByteWidth(i->shape().element_type())}, &bytes) ||
          bytes > options.max_result_bytes) {
        return;
      }
      absl::StatusOr<Literal> value = options.evaluate(*i);
      if (!value.ok() || !value->shape().Compatible(i->shape())) return;  // leave it to the run
      auto constant = std::make_unique<HloInstruction>(HloOpcode::kConstant,
                                                       names.Get(i->name() + ".folded"), i->shape());
      constant->literal = std::move(*value);
      const size_t at = list.size();
      HloInstruction* c = computation->AddInstruction(std::move(constant));
      placed.push_back({i, at, at + 1});
      replaced.Set(i, c);
      ++folded;
    });
    // (The folded instructions stay for dce: a control edge may name one.)
    if (HloInstruction* to = replaced.Find(computation->root()); to != nullptr) {
      computation->set_root(to);
    }
    // Each value goes where its instruction was, so that the list keeps its
    // operands first (and the next PostOrder is the list itself).
    MoveAppendedBefore(*computation, original_size, placed);
  }
  result.changes = folded;
  result.detail = absl::StrCat("folded ", folded, " instructions");
  return result;
}

}  // namespace hlovm::passes
