#include "passes/algsimp.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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
      if (!i->attrs().padding.has_value()) return nullptr;
      for (const PaddingDimension& p : *i->attrs().padding) {
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

std::string BracedDims(const std::vector<int64_t>& dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

// dot(transpose(x), y) and dot(x, transpose(y)) read x and y with the
// dimension numbers mapped through the permutation: the f32/f64 GEMM reads
// the operand through strides (other compute types rearrange it inside the
// dot as the transpose would have), and every output element is summed
// over k in the same order, so the bits are the same without the
// transposed copy. Only where the transposed operand's free dimensions keep
// their order, which the result's dimensions follow. Returns whether it
// folded one.
bool FoldTransposeIntoDot(HloInstruction* dot) {
  if (dot->opcode() != HloOpcode::kDot || !dot->attrs().dot_dimension_numbers.has_value() ||
      dot->operand_count() != 2) {
    return false;
  }
  // A transposed operand first: most dots have none, and their attributes
  // need not be read.
  if (dot->operand(0)->opcode() != HloOpcode::kTranspose &&
      dot->operand(1)->opcode() != HloOpcode::kTranspose) {
    return false;
  }
  if (dot->FindRawAttribute("sparsity").has_value()) return false;
  bool folded = false;
  for (int64_t side = 0; side < 2; ++side) {
    HloInstruction* t = dot->operand(side);
    if (t->opcode() != HloOpcode::kTranspose || !t->control_predecessors().empty()) continue;
    const std::vector<int64_t>& perm = t->dimensions;
    DotDimensionNumbers& dn = *dot->mutable_attrs().dot_dimension_numbers;
    std::vector<int64_t>& batch = side == 0 ? dn.lhs_batch_dimensions : dn.rhs_batch_dimensions;
    std::vector<int64_t>& contract =
        side == 0 ? dn.lhs_contracting_dimensions : dn.rhs_contracting_dimensions;
    const int64_t rank = static_cast<int64_t>(perm.size());
    std::vector<bool> bound(rank, false);
    bool valid = t->shape().IsArray() && t->shape().rank() == rank;
    for (const std::vector<int64_t>* dims : {&batch, &contract}) {
      for (int64_t d : *dims) {
        if (d < 0 || d >= rank || bound[d]) valid = false;
        if (valid) bound[d] = true;
      }
    }
    if (!valid) continue;
    int64_t last = -1;
    bool ordered = true;
    for (int64_t d = 0; d < rank; ++d) {
      if (bound[d]) continue;
      ordered &= perm[d] > last;
      last = perm[d];
    }
    if (!ordered) continue;
    for (int64_t& d : batch) d = perm[d];
    for (int64_t& d : contract) d = perm[d];
    const char* prefix = side == 0 ? "lhs" : "rhs";
    if (!batch.empty())
      SetRawAttribute(dot, absl::StrCat(prefix, "_batch_dims"), BracedDims(batch));
    SetRawAttribute(dot, absl::StrCat(prefix, "_contracting_dims"), BracedDims(contract));
    dot->ReplaceOperand(side, t->operand(0));
    folded = true;
  }
  return folded;
}

}  // namespace

absl::StatusOr<PassResult> RunAlgebraicSimplifier(HloModule& module) {
  int64_t rewrites = 0;
  for (const auto& computation : module.computations()) {
    Replacements replaced(*computation);
    ForEachInPostOrder(*computation, [&](HloInstruction* i, bool on_control_edge) {
      ForwardReplacedOperands(i, replaced);
      if (on_control_edge) return;
      if (HloInstruction* to = Simplified(i);
          to != nullptr && to != i && to->shape() == i->shape()) {
        replaced.Set(i, to);
        ++rewrites;
        return;
      }
      if (FoldTransposeIntoDot(i)) {
        ++rewrites;
        return;
      }
      // reshape(reshape(y)) reads y directly.
      if (i->opcode() == HloOpcode::kReshape && i->operand(0)->opcode() == HloOpcode::kReshape &&
          i->operand(0)->control_predecessors().empty() &&
          !i->attrs().inferred_dimension.has_value()) {
        i->ReplaceOperand(0, i->operand(0)->operand(0));
        ++rewrites;
      }
    });
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
