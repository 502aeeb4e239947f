// Parsing HLO text: the per-opcode rules applied once an instruction has
// been read (required attributes, called computations in XLA's order,
// operand counts: the rows of frontend/op_spec.h), and the result shape
// where the text leaves it out, from the verifier's shape rules (see
// frontend/parser_internal.h).
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/element_type.h"
#include "core/hlo_ir.h"
#include "core/hlo_opcode.h"
#include "core/literal.h"
#include "core/shape.h"
#include "core/status_macros.h"
#include "core/text_cursor.h"
#include "frontend/parser_internal.h"
#include "frontend/shape_inference.h"

namespace hlovm {
namespace parser_internal {
namespace {

// Fixes an array shape to carry a layout (the default one when it has none).
Shape WithDefaultLayout(Shape shape) {
  if (shape.IsArray() && !shape.has_layout()) shape.set_layout(Layout::RowMajor(shape.rank()));
  return shape;
}

//===----------------------------------------------------------------------===//
// Per-opcode rules applied once an instruction's text has been read.
//===----------------------------------------------------------------------===//

// The form of the instruction that selects its row in frontend/op_spec.h.
OpForm FormOf(const HloInstruction& instr) {
  const HloOpcode op = instr.opcode();
  const auto& operands = instr.operands();
  if (op == HloOpcode::kBroadcast && !operands.empty() && operands[0]->shape().IsArray() &&
      operands[0]->shape().rank() == 0) {
    return OpForm::kScalarOperand;
  }
  if (op == HloOpcode::kConditional && !operands.empty() &&
      operands[0]->shape().element_type() == ElementType::kPred) {
    return OpForm::kPredicate;
  }
  if (op == HloOpcode::kAsyncStart && instr.attrs().async_wrapped_opcode.has_value()) {
    return OpForm::kShorthand;
  }
  return OpForm::kDefault;
}

}  // namespace

absl::Status Parser::FinishInstruction(Scope* scope, HloInstruction* instr, Called* called,
                                       const AttrSet& seen, size_t op_offset, size_t rhs_offset,
                                       size_t operands_offset, bool shape_given) {
  (void)scope;
  const HloOpcode op = instr->opcode();
  const auto& operands = instr->operands();
  const OpSpec& spec = GetOpSpec(op, FormOf(*instr));
  // Errors about the attributes as a whole point just past the last one,
  // on the instruction's own line.
  size_t attrs_end = pos_;
  while (attrs_end > 0 && IsSpace(s_[attrs_end - 1])) --attrs_end;
  for (Attr r : spec.required) {
    if (!seen.contains(r)) {
      return Error(attrs_end, Cat("attribute ", AttributeName(r), " is expected but not seen"));
    }
  }
  if (spec.one_dimension && instr->dimensions.size() != 1) {
    return Error(attrs_end, Cat("expects exactly one dimension for ", HloOpcodeName(op),
                                ", but has ", instr->dimensions.size()));
  }

  // Called computations, in the order of the opcode's row (XLA's order).
  if (op == HloOpcode::kCustomCall && called->Find(Attr::kToApply) != nullptr &&
      called->Find(Attr::kCalledComputations) != nullptr) {
    return Error(attrs_end, "A single instruction can't have both to_apply and calls field");
  }
  for (Attr slot : spec.computations) {
    if (const std::vector<HloComputation*>* list = called->Find(slot)) {
      for (HloComputation* c : *list) instr->AppendCalledComputation(c);
    }
  }

  // Operand counts beyond the opcode list's arity.
  const int64_t n = static_cast<int64_t>(operands.size());
  switch (spec.operands) {
    case OperandRule::kArity:
    case OperandRule::kAny:
      break;
    case OperandRule::kIndexAndBranches:
      if (instr->called_computations().empty() ||
          n != static_cast<int64_t>(instr->called_computations().size()) + 1) {
        return Error(operands_offset,
                     Cat("conditional has ", n - 1, " branch operands but ",
                         instr->called_computations().size(), " branch computations"));
      }
      break;
    case OperandRule::kInputsAndInits:
      if (n % 2 != 0 || n == 0) {
        return Error(operands_offset,
                     Cat("expects an even number of operands, but has ", n, " operands"));
      }
      break;
    case OperandRule::kOperandsIndicesUpdates:
      if (n % 2 == 0) {
        return Error(operands_offset,
                     Cat("expects an odd number of operands, but has ", n, " operands"));
      }
      break;
    case OperandRule::kAtLeastOne:
      if (n < 1) return Error(operands_offset, "Expected at least one operand.");
      break;
    case OperandRule::kAtLeastTwo:
      if (n < 2) return Error(operands_offset, "Expected at least two operands.");
      break;
    case OperandRule::kOnePerResultDimension:
      if (n < 1) return Error(operands_offset, "DynamicReshape requires at least one operand.");
      if (shape_given && n - 1 != instr->shape().rank()) {
        return Error(operands_offset,
                     Cat("expects one dim size operand per result dimension; got ", n - 1, " for ",
                         instr->shape().rank(), " result dimensions"));
      }
      break;
    case OperandRule::kFourWithSliceSizes:
      if (!instr->attrs().collective_slice_sizes.empty() && n != 4) {
        return Error(operands_offset,
                     "CollectivePermute and CollectivePermuteStart must have exactly four "
                     "operands for dynamic-slice and in-place update.");
      }
      break;
  }

  // A result shape left out: the verifier's shape rules give it (the same
  // that later check a written one).
  if (!shape_given) {
    bool needs_declared_shape = false;
    absl::StatusOr<Shape> inferred = InferInstructionShape(*instr, *module_, &needs_declared_shape);
    if (needs_declared_shape) {
      return Error(op_offset, Cat("cannot infer shape for opcode: ", HloOpcodeName(op)));
    }
    if (!inferred.ok()) {
      absl::string_view why = inferred.status().message();
      return Error(rhs_offset, Cat("failed to infer shape for opcode: ", HloOpcodeName(op),
                                   ", error: ", std::string_view(why.data(), why.size())));
    }
    *instr->mutable_shape() = WithDefaultLayout(*std::move(inferred));
  }

  // Checks of the result shape XLA's parser makes.
  switch (op) {
    case HloOpcode::kDynamicReshape:
    case HloOpcode::kReshape: {
      const Shape& from = operands[0]->shape();
      bool unbounded = false;
      for (const Shape* s : {&from, &instr->shape()}) {
        if (!s->IsArray()) continue;
        for (int64_t i = 0; i < s->rank(); ++i) unbounded |= s->is_unbounded_dynamic_dimension(i);
      }
      if (!unbounded && from.IsArray() && instr->shape().IsArray() &&
          from.element_count() != instr->shape().element_count()) {
        return Error(rhs_offset, Cat("expects the same number of elements in result shape ",
                                              Human(instr->shape()), " and operand shape ",
                                              Human(from)));
      }
      break;
    }
    case HloOpcode::kInfeed:
      if (!instr->shape().IsTuple() || instr->shape().tuple_size() == 0) {
        return Error(rhs_offset, "infeed must have a non-empty tuple shape");
      }
      break;
    case HloOpcode::kRecv:
      if (!instr->shape().IsTuple() || instr->shape().tuple_size() == 0) {
        return Error(rhs_offset, "recv must have a non-empty tuple shape");
      }
      break;
    case HloOpcode::kCustomCall:
      if (instr->attrs().operand_layout_constraints.has_value()) {
        const auto& constraints = *instr->attrs().operand_layout_constraints;
        if (static_cast<int64_t>(constraints.size()) != n) {
          return Error(attrs_end, Cat("Expected ", n, " operand layout constraints, ",
                                               constraints.size(), " given"));
        }
        for (int64_t i = 0; i < n; ++i) {
          if (!constraints[i].Compatible(operands[i]->shape())) {
            return Error(attrs_end,
                         Cat("Operand layout constraint shape ",
                                      HumanWithLayout(constraints[i]), " for operand ", i,
                                      " is not compatible with operand shape ",
                                      HumanWithLayout(operands[i]->shape())));
          }
        }
      }
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

}  // namespace parser_internal
}  // namespace hlovm
