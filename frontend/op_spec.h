// What HLO text must and may say for each opcode, beside the opcode list of
// core/hlo_opcode.h: the attributes an instruction must carry, the
// restricted attributes it may carry (called computations in their slots,
// result_accuracy, async_execution_thread), and the rule its operand count
// follows. The parser's per-opcode checks read these rows; the rows are in
// op_spec.cc, at most one per opcode and form.
#ifndef HLOVM_FRONTEND_OP_SPEC_H_
#define HLOVM_FRONTEND_OP_SPEC_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "absl/types/span.h"
#include "core/hlo_opcode.h"
#include "frontend/attribute_table.h"

namespace hlovm {

// A short list of attributes (a row's cell).
class AttrList {
 public:
  static constexpr size_t kCapacity = 6;
  constexpr AttrList() = default;
  constexpr AttrList(std::initializer_list<AttrId> ids) {
    for (AttrId id : ids) ids_[size_++] = id;
  }
  constexpr const AttrId* begin() const { return ids_; }
  constexpr const AttrId* end() const { return ids_ + size_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr bool contains(AttrId id) const {
    for (AttrId a : *this) {
      if (a == id) return true;
    }
    return false;
  }

 private:
  AttrId ids_[kCapacity] = {};
  uint8_t size_ = 0;
};

// The rule an instruction's operand count follows.
enum class OperandRule : uint8_t {
  kArity,                   // HloOpcodeArity operands (any number if kVariadic)
  kAny,                     // any number, whatever the opcode list's arity
  kInputsAndInits,          // an even number, at least two (reduce)
  kOperandsIndicesUpdates,  // an odd number (scatter: n operands, indices, n updates)
  kAtLeastOne,              // dynamic-slice: the operand, then start indices
  kAtLeastTwo,              // dynamic-update-slice: operand, update, indices
  kIndexAndBranches,        // conditional: the index, then one per branch
  kOnePerResultDimension,   // dynamic-reshape: the operand, then one size per
                            // result dimension
  kFourWithSliceSizes,      // collective-permute: four when slice_sizes= is given
};

// The form of an instruction, where it changes what the text must say.
enum class OpForm : uint8_t {
  kDefault,
  kScalarOperand,  // broadcast of a scalar: dimensions= may be left out
  kShorthand,      // `op-start(...)`: async-start builds its own computation
  kPredicate,      // conditional on a pred: true_/false_computation
};

struct OpSpec {
  HloOpcode opcode = HloOpcode::kAbs;
  OpForm form = OpForm::kDefault;
  // Attributes the text must carry.
  AttrList required;
  // The called-computation attributes it takes, in the order of its
  // called_computations() (XLA's order).
  AttrList computations;
  // The other restricted attributes it takes (see IsRestrictedAttribute).
  AttrList allowed;
  OperandRule operands = OperandRule::kArity;
  // dimensions= holds exactly one dimension.
  bool one_dimension = false;

  // Whether the text may carry `attr` on this opcode.
  constexpr bool Allows(AttrId attr) const;
};

// Attributes only the opcodes whose row lists them take (in computations or
// allowed); every other attribute is accepted on every opcode, as XLA does.
constexpr bool IsRestrictedAttribute(AttrId attr) {
  return IsComputationAttribute(attr) || attr == AttrId::kResultAccuracy ||
         attr == AttrId::kAsyncExecutionThread;
}

constexpr bool OpSpec::Allows(AttrId attr) const {
  return !IsRestrictedAttribute(attr) || computations.contains(attr) || allowed.contains(attr);
}

// The row for `opcode` in `form`; the opcode's default row when it has none
// for that form, and an empty row (nothing required, no restricted
// attributes, kArity) when it has none at all.
const OpSpec& GetOpSpec(HloOpcode opcode, OpForm form = OpForm::kDefault);

// Every row, for tests and tools.
absl::Span<const OpSpec> OpSpecRows();

}  // namespace hlovm

#endif  // HLOVM_FRONTEND_OP_SPEC_H_
