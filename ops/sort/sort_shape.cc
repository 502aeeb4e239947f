#include "ops/sort/sort_shape.h"

#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/status_macros.h"

namespace hlovm {
namespace {
absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }
}  // namespace

absl::StatusOr<Shape> InferSortShape(absl::Span<const Shape* const> operands,
                                     int64_t dimension, const ComputationSignature& comparator) {
  if (operands.empty()) return Invalid("Sort expects at least one operand.");
  for (const Shape* s : operands) HLOVM_RETURN_IF_ERROR(ExpectArray(*s, "operand of sort"));
  const Shape& keys = *operands[0];
  if (dimension < 0 || dimension >= keys.rank()) {
    return Invalid(absl::StrFormat(
        "Expected the dimension to sort (%d) to be smaller than the rank of operand 0 (%d).",
        dimension, keys.rank()));
  }
  for (size_t i = 1; i < operands.size(); ++i) {
    if (!SameDimensions(keys, *operands[i])) {
      return Invalid(absl::StrFormat(
          "Sort keys and values dimensions must match. Keys shape is: %s, Values shape "
          "(operand index %d) is: %s",
          ShapeText(keys), i, ShapeText(*operands[i])));
    }
  }
  if (!IsScalar(comparator.result) || comparator.result.element_type() != ElementType::kPred) {
    return Invalid(absl::StrFormat(
        "The Sort compare computation shape does not lead to a scalar predicate shape: %s",
        ShapeText(comparator.result)));
  }
  if (comparator.parameters.size() != 2 * operands.size()) {
    return Invalid(absl::StrFormat(
        "Expected Sort compare computation to take %d parameters, but got %d",
        2 * operands.size(), comparator.parameters.size()));
  }
  for (size_t i = 0; i < comparator.parameters.size(); ++i) {
    const Shape& p = comparator.parameters[i];
    const Shape& operand = *operands[i / 2];
    if (!IsScalar(p)) {
      return Invalid(absl::StrFormat(
          "Expected the %d-th parameter of the Sort compare computation to be scalar, but got "
          "%s",
          i, ShapeText(p)));
    }
    if (p.element_type() != operand.element_type()) {
      return Invalid(absl::StrFormat(
          "Expected the %d-th parameter of the Sort compare computation to have element type "
          "%s (of operand %d), but got %s",
          i, ElementTypeName(operand.element_type()), i / 2, ShapeText(p)));
    }
  }
  if (operands.size() == 1) return keys;
  std::vector<Shape> results;
  for (const Shape* s : operands) results.push_back(*s);
  return Shape::Tuple(std::move(results));
}

absl::StatusOr<Shape> InferTopKShape(const Shape& operand, int64_t k) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, "operand of topk"));
  if (operand.rank() < 1) {
    return Invalid(absl::StrFormat("The input to TopK must have rank >= 1, got %s.",
                                   ShapeText(operand)));
  }
  const int64_t last = operand.rank() - 1;
  if (k < 0 || (operand.dimensions(last) != kUnboundedSize && k > operand.dimensions(last))) {
    return Invalid(absl::StrFormat(
        "k=%d is out of range for the last dimension (%d) of the TopK input %s.", k,
        operand.dimensions(last), ShapeText(operand)));
  }
  std::vector<int64_t> dims(operand.dimensions().begin(), operand.dimensions().end());
  dims[last] = k;
  return Shape::Tuple({MakeArrayShape(operand.element_type(), dims),
                       MakeArrayShape(ElementType::kS32, dims)});
}

}  // namespace hlovm
