#include "ops/rng/rng_shape.h"

#include <string>

#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "ops/common/common_shape.h"

namespace hlovm {
namespace {
absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }
}  // namespace

absl::StatusOr<Shape> InferRngShape(const Shape& a, const Shape& b,
                                    RandomDistribution distribution, const Shape& output) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(output, "result of rng"));
  for (const Shape* p : {&a, &b}) {
    if (!IsScalar(*p)) {
      return Invalid(absl::StrFormat("The parameters of rng must be scalars, got %s.",
                                     ShapeText(*p)));
    }
    if (p->element_type() != output.element_type()) {
      return Invalid(absl::StrFormat(
          "The parameters of rng must have the result's element type %s, got %s.",
          ElementTypeName(output.element_type()), ShapeText(*p)));
    }
  }
  if (distribution == RandomDistribution::kNormal &&
      !IsFloatingPoint(output.element_type())) {
    return Invalid(absl::StrFormat(
        "rng with a normal distribution needs a floating point result, got %s.",
        ShapeText(output)));
  }
  return output;
}

absl::StatusOr<Shape> InferRngBitGeneratorShape(const Shape& state, const Shape& output) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(state, "state of rng-bit-generator"));
  if (!output.IsTuple() || output.tuple_size() != 2 || !output.tuple_shape(1).IsArray()) {
    return Invalid(absl::StrFormat(
        "rng-bit-generator returns a tuple (state, bits), got %s.", ShapeText(output)));
  }
  if (state.rank() != 1) {
    return Invalid(absl::StrFormat("rng-bit-generator's state must be a vector, got %s.",
                                   ShapeText(state)));
  }
  return Shape::Tuple({state, output.tuple_shape(1)});
}

Shape InferRngGetAndUpdateStateShape() { return MakeArrayShape(ElementType::kU64, {2}); }

}  // namespace hlovm
