// Parsing HLO text: the per-opcode rules applied once an instruction has
// been read (required attributes, called computations in XLA's order,
// operand counts: the rows of frontend/op_spec.h), and the result shape
// where the text leaves it out (see frontend/parser_internal.h).
#include <algorithm>
#include <array>
#include <charconv>
#include <cctype>
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

namespace hlovm {
namespace parser_internal {
namespace {

// Fixes an array shape to carry a layout (the default one when it has none).
Shape WithDefaultLayout(Shape shape) {
  if (shape.IsArray() && !shape.has_layout()) shape.set_layout(Layout::RowMajor(shape.rank()));
  return shape;
}

Shape ArrayLike(ElementType type, const Shape& dims_from) {
  std::vector<int64_t> dims(dims_from.dimensions().begin(), dims_from.dimensions().end());
  Shape s(type, std::move(dims));
  for (int64_t i = 0; i < dims_from.rank(); ++i) {
    s.set_dynamic_dimension(i, dims_from.is_dynamic_dimension(i));
  }
  if (dims_from.has_layout()) s.set_layout(dims_from.layout());
  return s;
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
                                       const AttrSet& seen, size_t rhs_offset,
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
      if (n - 1 != instr->shape().rank()) {
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
  if (!shape_given) HLOVM_RETURN_IF_ERROR(InferShape(instr, *called, rhs_offset));
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// Shape inference for instructions written without a shape.
//===----------------------------------------------------------------------===//

absl::Status Parser::InferShape(HloInstruction* instr, const Called& called, size_t offset) {
  const HloOpcode op = instr->opcode();
  const auto& ops = instr->operands();
  auto fail = [&](std::string_view why) {
    return Error(offset, Cat("failed to infer shape for opcode: ", HloOpcodeName(op),
                                      ", error: ", why));
  };
  auto need = [&](size_t count) { return ops.size() >= count; };
  Shape result;
  switch (HloOpcodeFamily(op)) {
    case OpFamily::kUnary: {
      if (!need(1) || !ops[0]->shape().IsArray()) return fail("expects an array operand");
      const Shape& s = ops[0]->shape();
      ElementType t = s.element_type();
      if (op == HloOpcode::kIsFinite) {
        t = ElementType::kPred;
      } else if (op == HloOpcode::kReal || op == HloOpcode::kImag || op == HloOpcode::kAbs) {
        t = ComplexComponentType(t);
      }
      result = ArrayLike(t, s);
      break;
    }
    case OpFamily::kBinary: {
      if (!need(2) || !ops[0]->shape().IsArray() || !ops[1]->shape().IsArray()) {
        return fail("expects array operands");
      }
      const Shape& a = ops[0]->shape();
      const Shape& b = ops[1]->shape();
      if (!a.Compatible(ArrayLike(a.element_type(), b)) &&
          !(a.rank() == 0 || b.rank() == 0)) {
        return fail(Cat("binary op with incompatible shapes: ", Human(a), " and ",
                                 Human(b)));
      }
      const Shape& dims = a.rank() == 0 ? b : a;
      ElementType t = a.element_type();
      if (op == HloOpcode::kCompare) {
        t = ElementType::kPred;
      } else if (op == HloOpcode::kComplex) {
        t = t == ElementType::kF64 ? ElementType::kC128 : ElementType::kC64;
      }
      result = ArrayLike(t, dims);
      break;
    }
    case OpFamily::kTernary: {
      if (!need(3)) return fail("expects three operands");
      result = ops[1]->shape();
      if (op == HloOpcode::kSelect && ops[0]->shape().IsArray() && ops[1]->shape().IsArray() &&
          ops[1]->shape().rank() == 0 && ops[0]->shape().rank() > 0) {
        result = ArrayLike(ops[1]->shape().element_type(), ops[0]->shape());
      }
      break;
    }
    default:
      switch (op) {
        case HloOpcode::kCopy:
        case HloOpcode::kOptimizationBarrier:
        case HloOpcode::kDomain:
        case HloOpcode::kAddDependency:
        case HloOpcode::kReverse:
          if (!need(1)) return fail("expects an operand");
          result = ops[0]->shape();
          break;
        case HloOpcode::kAfterAll:
          result = Shape::Token();
          break;
        case HloOpcode::kReplicaId:
        case HloOpcode::kPartitionId:
          result = Shape(ElementType::kU32, {});
          break;
        case HloOpcode::kGetDimensionSize:
          result = Shape(ElementType::kS32, {});
          break;
        case HloOpcode::kTuple: {
          std::vector<Shape> elements;
          for (HloInstruction* o : ops) elements.push_back(o->shape());
          result = Shape::Tuple(std::move(elements));
          break;
        }
        case HloOpcode::kGetTupleElement: {
          if (!need(1) || !ops[0]->shape().IsTuple()) return fail("operand is not a tuple");
          if (instr->tuple_index < 0 || instr->tuple_index >= ops[0]->shape().tuple_size()) {
            return fail("tuple index out of range");
          }
          result = ops[0]->shape().tuple_shape(instr->tuple_index);
          break;
        }
        case HloOpcode::kCall:
        case HloOpcode::kConditional: {
          HloComputation* c = instr->called_computations().empty()
                                  ? nullptr
                                  : instr->called_computations()[0];
          if (c == nullptr || c->root() == nullptr) return fail("no called computation");
          result = c->root()->shape();
          break;
        }
        case HloOpcode::kWhile:
          if (!need(1)) return fail("expects an operand");
          result = ops[0]->shape();
          break;
        case HloOpcode::kMap: {
          HloComputation* to_apply = called.First(Attr::kToApply);
          if (!need(1) || to_apply == nullptr) return fail("expects operands");
          result = ArrayLike(to_apply->root()->shape().element_type(), ops[0]->shape());
          break;
        }
        case HloOpcode::kSort: {
          if (ops.size() == 1) {
            result = ops[0]->shape();
          } else {
            std::vector<Shape> elements;
            for (HloInstruction* o : ops) elements.push_back(o->shape());
            result = Shape::Tuple(std::move(elements));
          }
          break;
        }
        case HloOpcode::kTranspose: {
          if (!need(1) || !ops[0]->shape().IsArray()) return fail("expects an array operand");
          const Shape& s = ops[0]->shape();
          if (static_cast<int64_t>(instr->dimensions.size()) != s.rank()) {
            return fail("dimensions do not match the operand rank");
          }
          std::vector<int64_t> dims;
          for (int64_t d : instr->dimensions) {
            if (d < 0 || d >= s.rank()) return fail("dimension out of range");
            dims.push_back(s.dimensions(d));
          }
          result = Shape(s.element_type(), std::move(dims));
          break;
        }
        case HloOpcode::kBroadcast: {
          if (!need(1) || !ops[0]->shape().IsArray()) return fail("expects an array operand");
          const Shape& s = ops[0]->shape();
          std::vector<int64_t> dims(instr->dimensions.begin(), instr->dimensions.end());
          for (int64_t d : s.dimensions()) dims.push_back(d);
          result = Shape(s.element_type(), std::move(dims));
          break;
        }
        case HloOpcode::kConcatenate: {
          if (!need(1) || instr->dimensions.size() != 1) return fail("expects operands");
          const Shape& s = ops[0]->shape();
          int64_t d = instr->dimensions[0];
          if (!s.IsArray() || d < 0 || d >= s.rank()) return fail("dimension out of range");
          std::vector<int64_t> dims(s.dimensions().begin(), s.dimensions().end());
          dims[d] = 0;
          for (HloInstruction* o : ops) {
            if (!o->shape().IsArray() || o->shape().rank() != s.rank()) {
              return fail("operands of different ranks");
            }
            dims[d] += o->shape().dimensions(d);
          }
          result = Shape(s.element_type(), std::move(dims));
          break;
        }
        case HloOpcode::kPad: {
          if (!need(2) || !ops[0]->shape().IsArray() || !instr->attrs().padding) {
            return fail("expects an array operand and padding");
          }
          const Shape& s = ops[0]->shape();
          if (static_cast<int64_t>(instr->attrs().padding->size()) != s.rank()) {
            return fail("padding does not match the operand rank");
          }
          std::vector<int64_t> dims;
          for (int64_t i = 0; i < s.rank(); ++i) {
            const PaddingDimension& p = (*instr->attrs().padding)[i];
            int64_t size = s.dimensions(i);
            dims.push_back(p.low + p.high + size + std::max<int64_t>(size - 1, 0) * p.interior);
          }
          result = Shape(s.element_type(), std::move(dims));
          break;
        }
        case HloOpcode::kReduce: {
          size_t inputs = ops.size() / 2;
          if (inputs == 0) return fail("expects operands");
          std::vector<Shape> elements;
          for (size_t i = 0; i < inputs; ++i) {
            const Shape& s = ops[i]->shape();
            if (!s.IsArray()) return fail("expects array operands");
            std::vector<int64_t> dims;
            for (int64_t d = 0; d < s.rank(); ++d) {
              if (std::find(instr->dimensions.begin(), instr->dimensions.end(), d) ==
                  instr->dimensions.end()) {
                dims.push_back(s.dimensions(d));
              }
            }
            elements.push_back(Shape(ops[inputs + i]->shape().element_type(), std::move(dims)));
          }
          result = inputs == 1 ? elements[0] : Shape::Tuple(std::move(elements));
          break;
        }
        case HloOpcode::kDot: {
          if (!need(2) || !ops[0]->shape().IsArray() || !ops[1]->shape().IsArray()) {
            return fail("expects array operands");
          }
          DotDimensionNumbers dn =
              instr->attrs().dot_dimension_numbers.value_or(DotDimensionNumbers{});
          const Shape& a = ops[0]->shape();
          const Shape& b = ops[1]->shape();
          auto in = [](const std::vector<int64_t>& v, int64_t d) {
            return std::find(v.begin(), v.end(), d) != v.end();
          };
          std::vector<int64_t> dims;
          for (int64_t d : dn.lhs_batch_dimensions) {
            if (d < 0 || d >= a.rank()) return fail("batch dimension out of range");
            dims.push_back(a.dimensions(d));
          }
          for (int64_t d = 0; d < a.rank(); ++d) {
            if (!in(dn.lhs_batch_dimensions, d) && !in(dn.lhs_contracting_dimensions, d)) {
              dims.push_back(a.dimensions(d));
            }
          }
          for (int64_t d = 0; d < b.rank(); ++d) {
            if (!in(dn.rhs_batch_dimensions, d) && !in(dn.rhs_contracting_dimensions, d)) {
              dims.push_back(b.dimensions(d));
            }
          }
          result = Shape(a.element_type(), std::move(dims));
          break;
        }
        default:
          return Error(offset, Cat("cannot infer shape for opcode: ", HloOpcodeName(op)));
      }
  }
  *instr->mutable_shape() = WithDefaultLayout(std::move(result));
  return absl::OkStatus();
}

}  // namespace parser_internal
}  // namespace hlovm
