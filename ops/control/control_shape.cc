#include "ops/control/control_shape.h"

#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"

namespace hlovm {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

absl::Status ExpectToken(const Shape& s, std::string_view what) {
  if (!s.IsToken()) {
    return Invalid(absl::StrFormat("Expected a token for %s, but got %s.", what, ShapeText(s)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferTupleShape(absl::Span<const Shape* const> operands) {
  std::vector<Shape> elements;
  elements.reserve(operands.size());
  for (const Shape* s : operands) elements.push_back(*s);
  return Shape::Tuple(std::move(elements));
}

absl::StatusOr<Shape> InferGetTupleElementShape(const Shape& tuple, int64_t index) {
  if (!tuple.IsTuple()) {
    return Invalid(absl::StrFormat(
        "Cannot infer shape: attempting to index into non-tuple: %s.", ShapeText(tuple)));
  }
  if (index < 0 || index >= tuple.tuple_size()) {
    return Invalid(absl::StrFormat(
        "Cannot infer shape: attempt to index out of tuple bounds: %d >= %d in shape %s.",
        index, tuple.tuple_size(), ShapeText(tuple)));
  }
  return tuple.tuple_shape(index);
}

absl::StatusOr<Shape> InferCallShape(std::string_view op, absl::Span<const Shape* const> operands,
                                     const ComputationSignature& callee) {
  if (operands.size() != callee.parameters.size()) {
    return Invalid(absl::StrFormat(
        "%s has %d operands but its computation takes %d parameters.", op, operands.size(),
        callee.parameters.size()));
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!ShapesCompatible(*operands[i], callee.parameters[i])) {
      return Invalid(absl::StrFormat(
          "%s operand %d has shape %s but the computation's parameter %d has shape %s.", op, i,
          ShapeText(*operands[i]), i, ShapeText(callee.parameters[i])));
    }
  }
  return callee.result;
}

absl::StatusOr<Shape> InferWhileShape(const ComputationSignature& condition,
                                      const ComputationSignature& body, const Shape& init) {
  if (condition.parameters.size() != 1) {
    return Invalid(absl::StrFormat("Condition must take 1 arguments; got %d.",
                                   condition.parameters.size()));
  }
  if (body.parameters.size() != 1) {
    return Invalid(absl::StrFormat("Body must take 1 arguments; got %d.",
                                   body.parameters.size()));
  }
  if (!IsScalar(condition.result) || condition.result.element_type() != ElementType::kPred) {
    return Invalid(absl::StrFormat("Condition must return a boolean; got %s.",
                                   ShapeText(condition.result)));
  }
  if (!ShapesCompatible(body.result, condition.parameters[0]) ||
      !ShapesCompatible(body.result, body.parameters[0]) ||
      !ShapesCompatible(body.result, init)) {
    return Invalid(absl::StrFormat(
        "The parameter of condition and body, the result of the body, and init must all have "
        "the same shape; got <condition: %s; body: %s; init: %s>.",
        condition.ToString(), body.ToString(), ShapeText(init)));
  }
  return init;
}

absl::StatusOr<Shape> InferConditionalShape(const Shape& branch_index,
                                            absl::Span<const ComputationSignature> branches,
                                            absl::Span<const Shape* const> branch_operands) {
  if (!IsScalar(branch_index) || (branch_index.element_type() != ElementType::kPred &&
                                  branch_index.element_type() != ElementType::kS32)) {
    return Invalid(absl::StrFormat(
        "branch_index must be bool or int32; got %s.", ShapeText(branch_index)));
  }
  if (branches.empty()) return Invalid("There must be at least one branch computation.");
  if (branch_index.element_type() == ElementType::kPred && branches.size() != 2) {
    return Invalid(absl::StrFormat(
        "branch_index is a pred, so there must be 2 branches; got %d.", branches.size()));
  }
  if (branches.size() != branch_operands.size()) {
    return Invalid(absl::StrFormat(
        "There must be one operand per branch computation: %d branches, %d operands.",
        branches.size(), branch_operands.size()));
  }
  for (size_t j = 0; j < branches.size(); ++j) {
    const ComputationSignature& b = branches[j];
    if (b.parameters.size() != 1) {
      return Invalid(absl::StrFormat("branch computation %d must take 1 argument; got %d.", j,
                                     b.parameters.size()));
    }
    if (!ShapesCompatible(*branch_operands[j], b.parameters[0])) {
      return Invalid(absl::StrFormat(
          "branch operand %d must match the shape of the only parameter of branch "
          "computation %d: got %s for branch operand and %s for branch computation "
          "parameter.",
          j, j, ShapeText(*branch_operands[j]), ShapeText(b.parameters[0])));
    }
    if (!ShapesCompatible(branches[0].result, b.result)) {
      return Invalid(absl::StrFormat(
          "the result of branch 0 computation and branch %d computation must have the same "
          "shape: got %s and %s.",
          j, ShapeText(branches[0].result), ShapeText(b.result)));
    }
  }
  return branches[0].result;
}

absl::StatusOr<Shape> InferAsyncStartShape(absl::Span<const Shape* const> operands,
                                           const ComputationSignature& callee,
                                           const Shape& declared) {
  HLOVM_ASSIGN_OR_RETURN(Shape result, InferCallShape("async-start", operands, callee));
  std::vector<Shape> elements;
  std::vector<Shape> operand_shapes;
  for (const Shape* s : operands) operand_shapes.push_back(*s);
  elements.push_back(Shape::Tuple(std::move(operand_shapes)));
  elements.push_back(std::move(result));
  if (declared.IsTuple()) {
    for (int64_t i = 2; i < declared.tuple_size(); ++i) elements.push_back(declared.tuple_shape(i));
  }
  return Shape::Tuple(std::move(elements));
}

absl::StatusOr<Shape> InferAsyncUpdateShape(const Shape& start) {
  if (!start.IsTuple() || start.tuple_size() < 2) {
    return Invalid(absl::StrFormat(
        "The operand of an async op must be an async-start tuple, got %s.", ShapeText(start)));
  }
  return start;
}

absl::StatusOr<Shape> InferAsyncDoneShape(const Shape& start) {
  HLOVM_RETURN_IF_ERROR(InferAsyncUpdateShape(start).status());
  return start.tuple_shape(1);
}

absl::StatusOr<Shape> InferAfterAllShape(absl::Span<const Shape* const> operands) {
  // Operands of any shape only order the token after themselves (XLA's
  // verifier accepts after-all(f32[], token[]) too).
  return Shape::Token();
}

absl::StatusOr<Shape> InferAddDependencyShape(const Shape& operand, const Shape& token) {
  if (!token.IsToken() && !token.IsArray() && !token.IsTuple()) {
    return Invalid(absl::StrFormat("add-dependency's second operand is invalid: %s.",
                                   ShapeText(token)));
  }
  return operand;
}

Shape InferDeviceIdShape() { return ScalarShape(ElementType::kU32); }

absl::StatusOr<Shape> InferInfeedShape(const Shape& token, const Shape& declared) {
  HLOVM_RETURN_IF_ERROR(ExpectToken(token, "the operand of infeed"));
  if (!declared.IsTuple() || declared.tuple_size() != 2 || !declared.tuple_shape(1).IsToken()) {
    return Invalid(absl::StrFormat("infeed returns a tuple (data, token), got %s.",
                                   ShapeText(declared)));
  }
  return declared;
}

absl::StatusOr<Shape> InferOutfeedShape(const Shape& data, const Shape& token) {
  HLOVM_RETURN_IF_ERROR(ExpectToken(token, "operand 1 of outfeed"));
  return Shape::Token();
}

absl::StatusOr<Shape> InferSendShape(const Shape& data, const Shape& token) {
  HLOVM_RETURN_IF_ERROR(ExpectToken(token, "operand 1 of send"));
  return Shape::Tuple({data, ScalarShape(ElementType::kU32), Shape::Token()});
}

absl::StatusOr<Shape> InferSendDoneShape(const Shape& send) {
  if (!send.IsTuple() || send.tuple_size() != 3) {
    return Invalid(absl::StrFormat("send-done's operand must be a send, got %s.",
                                   ShapeText(send)));
  }
  return Shape::Token();
}

absl::StatusOr<Shape> InferRecvShape(const Shape& token, const Shape& declared) {
  HLOVM_RETURN_IF_ERROR(ExpectToken(token, "the operand of recv"));
  if (!declared.IsTuple() || declared.tuple_size() != 3) {
    return Invalid(absl::StrFormat("recv returns a tuple (data, u32[], token), got %s.",
                                   ShapeText(declared)));
  }
  return Shape::Tuple(
      {declared.tuple_shape(0), ScalarShape(ElementType::kU32), Shape::Token()});
}

absl::StatusOr<Shape> InferRecvDoneShape(const Shape& recv) {
  if (!recv.IsTuple() || recv.tuple_size() != 3) {
    return Invalid(absl::StrFormat("recv-done's operand must be a recv, got %s.",
                                   ShapeText(recv)));
  }
  return Shape::Tuple({recv.tuple_shape(0), Shape::Token()});
}

}  // namespace hlovm
