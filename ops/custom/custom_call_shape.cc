#include "ops/custom/custom_call_shape.h"

#include <string>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "ops/common/common_shape.h"

namespace hlovm {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

// The subshape of `shape` at `index`, or null if there is none.
const Shape* Subshape(const Shape& shape, const ShapeIndex& index) {
  const Shape* s = &shape;
  for (int64_t i : index) {
    if (!s->IsTuple() || i < 0 || i >= s->tuple_size()) return nullptr;
    s = &s->tuple_shape(i);
  }
  return s;
}

}  // namespace

absl::Status CheckOutputOperandAliasing(const Shape& result,
                                        absl::Span<const Shape* const> operands,
                                        absl::Span<const OutputOperandAlias> aliasing) {
  for (const OutputOperandAlias& a : aliasing) {
    const Shape* out = Subshape(result, a.output_index);
    if (out == nullptr) {
      return Invalid(absl::StrFormat(
          "output_to_operand_aliasing names output index {%s}, which %s does not have.",
          absl::StrJoin(a.output_index, ","), ShapeText(result)));
    }
    if (a.operand < 0 || a.operand >= static_cast<int64_t>(operands.size())) {
      return Invalid(absl::StrFormat(
          "output_to_operand_aliasing names operand %d, but there are %d operands.", a.operand,
          operands.size()));
    }
    const Shape* in = Subshape(*operands[a.operand], a.operand_index);
    if (in == nullptr) {
      return Invalid(absl::StrFormat(
          "output_to_operand_aliasing names index {%s} of operand %d, which %s does not have.",
          absl::StrJoin(a.operand_index, ","), a.operand, ShapeText(*operands[a.operand])));
    }
    if (!ShapesCompatible(*out, *in)) {
      return Invalid(absl::StrFormat(
          "Shapes aliased by output_to_operand_aliasing must agree: output {%s} is %s but "
          "operand %d {%s} is %s.",
          absl::StrJoin(a.output_index, ","), ShapeText(*out), a.operand,
          absl::StrJoin(a.operand_index, ","), ShapeText(*in)));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferCustomCallShape(
    absl::Span<const Shape* const> operands, const Shape& declared,
    const std::optional<std::vector<Shape>>& operand_layout_constraints,
    absl::Span<const OutputOperandAlias> aliasing) {
  if (operand_layout_constraints.has_value()) {
    const std::vector<Shape>& c = *operand_layout_constraints;
    if (c.size() != operands.size()) {
      return Invalid(absl::StrFormat(
          "operand_layout_constraints gives %d shapes for %d operands.", c.size(),
          operands.size()));
    }
    for (size_t i = 0; i < c.size(); ++i) {
      if (!ShapesCompatible(c[i], *operands[i])) {
        return Invalid(absl::StrFormat(
            "operand_layout_constraints gives operand %d the shape %s but the operand is %s.",
            i, ShapeText(c[i]), ShapeText(*operands[i])));
      }
    }
  }
  HLOVM_RETURN_IF_ERROR(CheckOutputOperandAliasing(declared, operands, aliasing));
  return declared;
}

}  // namespace hlovm
