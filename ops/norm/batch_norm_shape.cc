#include "ops/norm/batch_norm_shape.h"

#include <string>
#include <string_view>

#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "ops/common/common_shape.h"

namespace hlovm {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

// Checks shared by the three batch-norm ops. `vectors` are the per-feature
// inputs with their names.
absl::Status CheckBatchNorm(std::string_view op, const Shape& operand, int64_t feature_index,
                            std::initializer_list<std::pair<const char*, const Shape*>> vectors) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, absl::StrFormat("operand of %s", op)));
  if (feature_index >= operand.rank()) {
    return Invalid(absl::StrFormat(
        "Expected feature_index of %s to be smaller than the rank of operand_shape; got "
        "feature_index %d, and rank %d.",
        op, feature_index, operand.rank()));
  }
  if (feature_index < 0) {
    return Invalid(absl::StrFormat(
        "Expected feature_index of %s to be a non-negative number, got %d.", op,
        feature_index));
  }
  if (!IsFloatingPoint(operand.element_type())) {
    return Invalid(absl::StrFormat(
        "The operand to %s must have a floating point element type, but the shape is %s.", op,
        ElementTypeName(operand.element_type())));
  }
  const int64_t features = operand.dimensions(feature_index);
  for (const auto& [name, shape] : vectors) {
    HLOVM_RETURN_IF_ERROR(ExpectArray(*shape, absl::StrFormat("%s input of %s", name, op)));
    if (shape->rank() != 1) {
      return Invalid(absl::StrFormat("%s input of %s must have rank 1, but has rank %d.", name,
                                     op, shape->rank()));
    }
    if (!SameElementTypeIgnoringFp(*shape, operand)) {
      return Invalid(absl::StrFormat(
          "The inputs should have the same element type for %s, but the shape of %s is %s and "
          "the shape of operand is %s.",
          op, name, ElementTypeName(shape->element_type()),
          ElementTypeName(operand.element_type())));
    }
    if (shape->dimensions(0) != features) {
      return Invalid(absl::StrFormat(
          "The size of %s should be the same as feature count, but the size of %s is %d and "
          "the feature count is %d.",
          name, name, shape->dimensions(0), features));
    }
  }
  return absl::OkStatus();
}

Shape FeatureVector(const Shape& operand, int64_t feature_index) {
  return MakeArrayShape(operand.element_type(), {operand.dimensions(feature_index)});
}

}  // namespace

absl::StatusOr<Shape> InferBatchNormTrainingShape(const Shape& operand, const Shape& scale,
                                                  const Shape& offset, int64_t feature_index) {
  HLOVM_RETURN_IF_ERROR(CheckBatchNorm("batch-norm-training", operand, feature_index,
                                       {{"scale", &scale}, {"offset", &offset}}));
  Shape v = FeatureVector(operand, feature_index);
  return Shape::Tuple({operand, v, v});
}

absl::StatusOr<Shape> InferBatchNormInferenceShape(const Shape& operand, const Shape& scale,
                                                   const Shape& offset, const Shape& mean,
                                                   const Shape& variance,
                                                   int64_t feature_index) {
  HLOVM_RETURN_IF_ERROR(CheckBatchNorm(
      "batch-norm-inference", operand, feature_index,
      {{"scale", &scale}, {"offset", &offset}, {"mean", &mean}, {"variance", &variance}}));
  return operand;
}

absl::StatusOr<Shape> InferBatchNormGradShape(const Shape& operand, const Shape& scale,
                                              const Shape& mean, const Shape& variance,
                                              const Shape& grad_output, int64_t feature_index) {
  HLOVM_RETURN_IF_ERROR(CheckBatchNorm(
      "batch-norm-grad", operand, feature_index,
      {{"scale", &scale}, {"mean", &mean}, {"variance", &variance}}));
  HLOVM_RETURN_IF_ERROR(ExpectArray(grad_output, "output_grad input of batch-norm-grad"));
  if (!SameDimensions(grad_output, operand)) {
    return Invalid(absl::StrFormat(
        "Expected operand_shape of batch-norm-grad to match output_grad_shape; got %s and %s.",
        ShapeText(operand), ShapeText(grad_output)));
  }
  Shape v = FeatureVector(operand, feature_index);
  return Shape::Tuple({operand, v, v});
}

}  // namespace hlovm
