#include "passes/algsimp.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "passes/ir_util.h"

namespace hlovm::passes {
namespace {

bool IsIdentityPermutation(const std::vector<int64_t>& dims) {
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] != static_cast<int64_t>(k)) return false;
  }
  return true;
}

// The instruction `i` equals, bit for bit, or nullptr.
HloInstruction* Simplified(HloInstruction* i) {
  if (i->operand_count() == 0) return nullptr;
  HloInstruction* x = i->operand(0);
  switch (i->opcode()) {
    case HloOpcode::kGetTupleElement:
      if (x->opcode() == HloOpcode::kTuple && i->tuple_index < x->operand_count()) {
        return x->operand(i->tuple_index);
      }
      return nullptr;
    case HloOpcode::kSelect: {
      if (i->operand_count() != 3) return nullptr;
      if (i->operand(1) == i->operand(2)) return i->operand(1);
      if (x->opcode() == HloOpcode::kConstant && x->shape().IsArray() &&
          x->shape().element_type() == ElementType::kPred && x->shape().rank() == 0 &&
          x->literal.has_value() && !x->literal->elided()) {
        return x->literal->untyped_data()[0] != 0 ? i->operand(1) : i->operand(2);
      }
      return nullptr;
    }
    case HloOpcode::kReshape:
    case HloOpcode::kCopy:
      return x;  // equal shapes (checked by the caller): the same values
    case HloOpcode::kConvert:
      return x->shape().IsArray() && x->shape().element_type() == i->shape().element_type()
                 ? x
                 : nullptr;
    case HloOpcode::kTranspose:
      return IsIdentityPermutation(i->dimensions) ? x : nullptr;
    case HloOpcode::kBroadcast:
      return x->shape().IsArray() && x->shape().rank() == i->shape().rank() &&
                     IsIdentityPermutation(i->dimensions)
                 ? x
                 : nullptr;
    case HloOpcode::kSlice: {
      if (!i->slice.has_value()) return nullptr;
      for (size_t d = 0; d < i->slice->starts.size(); ++d) {
        if (i->slice->starts[d] != 0 || i->slice->strides[d] != 1 ||
            i->slice->limits[d] != x->shape().dimensions(d)) {
          return nullptr;
        }
      }
      return x;
    }
    case HloOpcode::kPad: {
      if (!i->padding.has_value()) return nullptr;
      for (const PaddingDimension& p : *i->padding) {
        if (p.low != 0 || p.high != 0 || p.interior != 0) return nullptr;
      }
      return x;
    }
    case HloOpcode::kReverse:
      return i->dimensions.empty() ? x : nullptr;
    case HloOpcode::kConcatenate:
      return i->operand_count() == 1 ? x : nullptr;
    default:
      return nullptr;
  }
}

}  // namespace

absl::StatusOr<PassResult> RunAlgebraicSimplifier(HloModule& module) {
  int64_t rewrites = 0;
  for (const auto& computation : module.computations()) {
    absl::flat_hash_set<const HloInstruction*> control;
    for (const auto& i : computation->instructions()) {
      for (const HloInstruction* p : i->control_predecessors()) control.insert(p);
    }
    const std::vector<HloInstruction*> order = PostOrder(*computation);
    Replacements replaced(*computation);
    for (HloInstruction* i : order) {
      ForwardReplacedOperands(i, replaced);
      if (!i->control_predecessors().empty() || control.contains(i)) continue;
      if (HloInstruction* to = Simplified(i); to != nullptr && to != i && to->shape() == i->shape()) {
        replaced.Set(i, to);
        ++rewrites;
        continue;
      }
      // reshape(reshape(y)) reads y directly.
      if (i->opcode() == HloOpcode::kReshape && i->operand(0)->opcode() == HloOpcode::kReshape &&
          i->operand(0)->control_predecessors().empty() && !i->inferred_dimension.has_value()) {
        i->ReplaceOperand(0, i->operand(0)->operand(0));
        ++rewrites;
      }
    }
    // Every user now reads the replacement (users follow their operands in
    // post order), so the replaced instructions go.
    RemoveReplaced(*computation, replaced);
  }
  PassResult result;
  result.changes = rewrites;
  result.detail = absl::StrCat("simplified ", rewrites, " instructions");
  return result;
}

}  // namespace hlovm::passes
