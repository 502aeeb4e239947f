#include "ops/dot/dot_conv_shape.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "ops/common/common_shape.h"
#include "ops/reduce/reduce_shape.h"

namespace hlovm {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

bool Contains(absl::Span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool DimsEqual(int64_t a, int64_t b) {
  return a == b || a == kUnboundedSize || b == kUnboundedSize;
}

std::string DotDimsText(const DotDimensionNumbers& d) {
  return absl::StrFormat(
      "lhs_batch_dims={%s}, lhs_contracting_dims={%s}, rhs_batch_dims={%s}, "
      "rhs_contracting_dims={%s}",
      absl::StrJoin(d.lhs_batch_dimensions, ","), absl::StrJoin(d.lhs_contracting_dimensions, ","),
      absl::StrJoin(d.rhs_batch_dimensions, ","), absl::StrJoin(d.rhs_contracting_dimensions, ","));
}

// The element type of a contraction's result: the inputs' (higher precision)
// type unless the instruction declares another one.
absl::StatusOr<ElementType> ResultType(const Shape& lhs, const Shape& rhs,
                                       std::optional<ElementType> preferred) {
  ElementType from = HigherPrecisionElementType(lhs, rhs);
  if (!preferred.has_value() || *preferred == from) return from;
  if (!IsFloatingPoint(from) && IsArrayType(*preferred) &&
      BitWidth(*preferred) < BitWidth(from)) {
    return Invalid("`preferred_element_type` must not be narrower than the original type.");
  }
  return *preferred;
}

absl::Status ValidateDotDims(const Shape& lhs, const Shape& rhs,
                             const DotDimensionNumbers& d) {
  if (!AllInRange(d.lhs_contracting_dimensions, lhs.rank()) ||
      !AllInRange(d.lhs_batch_dimensions, lhs.rank()) ||
      !AllInRange(d.rhs_contracting_dimensions, rhs.rank()) ||
      !AllInRange(d.rhs_batch_dimensions, rhs.rank())) {
    return Invalid(absl::StrFormat("A dimension number is out of range in Dot: %s.",
                                   DotDimsText(d)));
  }
  std::vector<int64_t> lhs_all = d.lhs_contracting_dimensions;
  lhs_all.insert(lhs_all.end(), d.lhs_batch_dimensions.begin(), d.lhs_batch_dimensions.end());
  std::vector<int64_t> rhs_all = d.rhs_contracting_dimensions;
  rhs_all.insert(rhs_all.end(), d.rhs_batch_dimensions.begin(), d.rhs_batch_dimensions.end());
  if (!AllUnique(lhs_all) || !AllUnique(rhs_all)) {
    return Invalid(absl::StrFormat("A dimension number is not unique in Dot: %s.",
                                   DotDimsText(d)));
  }
  return absl::OkStatus();
}

// Dimensions of dot(lhs, rhs): batch, lhs free, rhs free (rhs dims in
// `rhs_skip` are left out as well).
absl::StatusOr<std::vector<int64_t>> DotDims(const Shape& lhs, const Shape& rhs,
                                             const DotDimensionNumbers& d,
                                             absl::Span<const int64_t> rhs_skip) {
  auto fail = [&](std::string_view addendum) {
    return Invalid(absl::StrFormat("Cannot infer shape for dot operation: %s <dot> %s. %s",
                                   ShapeText(lhs), ShapeText(rhs), addendum));
  };
  HLOVM_RETURN_IF_ERROR(ValidateDotDims(lhs, rhs, d));
  if (d.lhs_contracting_dimensions.size() != d.rhs_contracting_dimensions.size()) {
    return fail("Must specify the same number of contracting dimensions for lhs and rhs.");
  }
  for (size_t i = 0; i < d.lhs_contracting_dimensions.size(); ++i) {
    if (!DimsEqual(lhs.dimensions(d.lhs_contracting_dimensions[i]),
                   rhs.dimensions(d.rhs_contracting_dimensions[i]))) {
      return fail("Contracting dimension sizes do not match.");
    }
  }
  if (d.lhs_batch_dimensions.size() != d.rhs_batch_dimensions.size()) {
    return fail("Must the same number of batch dimensions for lhs and rhs.");
  }
  for (size_t i = 0; i < d.lhs_batch_dimensions.size(); ++i) {
    if (!DimsEqual(lhs.dimensions(d.lhs_batch_dimensions[i]),
                   rhs.dimensions(d.rhs_batch_dimensions[i]))) {
      return fail("Batch dimension sizes must match for lhs/rhs.");
    }
  }
  std::vector<int64_t> dims;
  for (int64_t b : d.lhs_batch_dimensions) dims.push_back(lhs.dimensions(b));
  for (int64_t i = 0; i < lhs.rank(); ++i) {
    if (!Contains(d.lhs_contracting_dimensions, i) && !Contains(d.lhs_batch_dimensions, i)) {
      dims.push_back(lhs.dimensions(i));
    }
  }
  for (int64_t i = 0; i < rhs.rank(); ++i) {
    if (!Contains(d.rhs_contracting_dimensions, i) && !Contains(d.rhs_batch_dimensions, i) &&
        !Contains(rhs_skip, i)) {
      dims.push_back(rhs.dimensions(i));
    }
  }
  return dims;
}

}  // namespace

absl::StatusOr<Shape> InferDotShape(const Shape& lhs, const Shape& rhs,
                                    const DotDimensionNumbers& dnums,
                                    std::optional<ElementType> preferred_type) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(lhs, "lhs of dot"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(rhs, "rhs of dot"));
  HLOVM_ASSIGN_OR_RETURN(std::vector<int64_t> dims, DotDims(lhs, rhs, dnums, {}));
  HLOVM_ASSIGN_OR_RETURN(ElementType type, ResultType(lhs, rhs, preferred_type));
  return MakeArrayShape(type, dims);
}

absl::StatusOr<Shape> InferRaggedDotShape(const Shape& lhs, const Shape& rhs,
                                          const Shape& group_sizes,
                                          const DotDimensionNumbers& dnums,
                                          std::optional<ElementType> preferred_type) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(lhs, "lhs of ragged-dot"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(rhs, "rhs of ragged-dot"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(group_sizes, "group_sizes of ragged-dot"));
  if (!IsInteger(group_sizes.element_type())) {
    return Invalid(absl::StrFormat("ragged-dot group_sizes must be integral, got %s.",
                                   ShapeText(group_sizes)));
  }
  if (dnums.lhs_ragged_dimensions.size() != 1) {
    return Invalid(absl::StrFormat(
        "ragged-dot needs exactly one lhs ragged dimension, got %d.",
        dnums.lhs_ragged_dimensions.size()));
  }
  const int64_t ragged = dnums.lhs_ragged_dimensions[0];
  if (ragged < 0 || ragged >= lhs.rank()) {
    return Invalid(absl::StrFormat("ragged-dot lhs ragged dimension %d is out of range for %s.",
                                   ragged, ShapeText(lhs)));
  }
  if (!AllInRange(dnums.rhs_group_dimensions, rhs.rank()) ||
      dnums.rhs_group_dimensions.size() > 1) {
    return Invalid(absl::StrFormat("ragged-dot rhs group dimensions {%s} are invalid for %s.",
                                   absl::StrJoin(dnums.rhs_group_dimensions, ","),
                                   ShapeText(rhs)));
  }
  HLOVM_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                         DotDims(lhs, rhs, dnums, dnums.rhs_group_dimensions));
  if (Contains(dnums.lhs_contracting_dimensions, ragged)) {
    // Ragged contracting dimension: one result per group, in front.
    const int64_t groups =
        group_sizes.rank() == 0 ? 1 : group_sizes.dimensions(group_sizes.rank() - 1);
    dims.insert(dims.begin(), groups);
  } else if (!Contains(dnums.lhs_batch_dimensions, ragged) &&
             dnums.rhs_group_dimensions.empty()) {
    return Invalid(
        "ragged-dot with a ragged non-contracting dimension needs an rhs group dimension.");
  }
  HLOVM_ASSIGN_OR_RETURN(ElementType type, ResultType(lhs, rhs, preferred_type));
  return MakeArrayShape(type, dims);
}

absl::StatusOr<Shape> InferScaledDotShape(const Shape& lhs, const Shape& rhs,
                                          const Shape& lhs_scale, const Shape& rhs_scale,
                                          const DotDimensionNumbers& dnums,
                                          std::optional<ElementType> preferred_type) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(lhs, "lhs of scaled-dot"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(rhs, "rhs of scaled-dot"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(lhs_scale, "lhs scale of scaled-dot"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(rhs_scale, "rhs scale of scaled-dot"));
  for (const auto& [x, scale] : {std::pair{&lhs, &lhs_scale}, std::pair{&rhs, &rhs_scale}}) {
    if (scale->rank() != 0 && scale->rank() != x->rank()) {
      return Invalid(absl::StrFormat("scaled-dot scale %s does not fit operand %s.",
                                     ShapeText(*scale), ShapeText(*x)));
    }
  }
  HLOVM_ASSIGN_OR_RETURN(std::vector<int64_t> dims, DotDims(lhs, rhs, dnums, {}));
  ElementType type = preferred_type.value_or(HigherPrecisionElementType(lhs, rhs));
  return MakeArrayShape(type, dims);
}

absl::StatusOr<Shape> InferConvolutionShape(const Shape& lhs, const Shape& rhs,
                                            int64_t feature_group_count,
                                            int64_t batch_group_count, const Window& window,
                                            const ConvolutionDimensionNumbers& dnums,
                                            std::optional<ElementType> preferred_type) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(lhs, "lhs of convolution"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(rhs, "rhs of convolution"));
  if (feature_group_count <= 0) {
    return Invalid(absl::StrFormat(
        "feature_group_count must be a positive number, got %d", feature_group_count));
  }
  if (batch_group_count <= 0) {
    return Invalid(absl::StrFormat(
        "batch_group_count must be a positive number, got %d", batch_group_count));
  }
  if (batch_group_count > 1 && feature_group_count > 1) {
    return Invalid(absl::StrFormat(
        "both batch_group_count %d and feature_group_count %d cannot be greater than 1",
        batch_group_count, feature_group_count));
  }
  if (!SameElementTypeIgnoringFp(lhs, rhs)) {
    return Invalid(absl::StrFormat(
        "Convolution with different element types: %s and %s.", ShapeText(lhs),
        ShapeText(rhs)));
  }
  const size_t spatial = dnums.input_spatial_dimensions.size();
  if (window.size() != spatial) {
    return Invalid(absl::StrFormat(
        "Window must have same number of dimensions as dimension numbers.\nWindow: %d\n"
        "Dimension numbers: %d.",
        window.size(), spatial));
  }
  if (dnums.kernel_spatial_dimensions.size() != spatial ||
      dnums.output_spatial_dimensions.size() != spatial) {
    return Invalid("Convolution dimension numbers have different spatial dimension counts.");
  }
  const int64_t num_dims = static_cast<int64_t>(spatial) + 2;
  if (lhs.rank() != num_dims) {
    return Invalid(absl::StrFormat(
        "The LHS argument to a convolution should have rank %d; lhs: %s.", num_dims,
        ShapeText(lhs)));
  }
  if (rhs.rank() != num_dims) {
    return Invalid(absl::StrFormat(
        "The RHS argument to a convolution should have rank %d; rhs: %s.", num_dims,
        ShapeText(rhs)));
  }
  std::vector<int64_t> input_dims = dnums.input_spatial_dimensions;
  input_dims.push_back(dnums.input_batch_dimension);
  input_dims.push_back(dnums.input_feature_dimension);
  std::vector<int64_t> kernel_dims = dnums.kernel_spatial_dimensions;
  kernel_dims.push_back(dnums.kernel_input_feature_dimension);
  kernel_dims.push_back(dnums.kernel_output_feature_dimension);
  std::vector<int64_t> output_dims = dnums.output_spatial_dimensions;
  output_dims.push_back(dnums.output_batch_dimension);
  output_dims.push_back(dnums.output_feature_dimension);
  if (!IsPermutation(input_dims, num_dims) || !IsPermutation(kernel_dims, num_dims) ||
      !IsPermutation(output_dims, num_dims)) {
    return Invalid(
        "Convolution dimension numbers must each name every dimension exactly once.");
  }
  const int64_t input_batch = lhs.dimensions(dnums.input_batch_dimension);
  const int64_t input_features = lhs.dimensions(dnums.input_feature_dimension);
  const int64_t kernel_input_features = rhs.dimensions(dnums.kernel_input_feature_dimension);
  const int64_t kernel_output_features = rhs.dimensions(dnums.kernel_output_feature_dimension);
  if (input_batch != kUnboundedSize && input_batch % batch_group_count != 0) {
    return Invalid(absl::StrFormat(
        "Expected input batch dimension (value %d) to be divisible by batch_group_count "
        "(value %d); got <conv>(%s, %s)",
        input_batch, batch_group_count, ShapeText(lhs), ShapeText(rhs)));
  }
  if (input_features != kUnboundedSize &&
      (input_features % feature_group_count != 0 ||
       input_features / feature_group_count != kernel_input_features)) {
    return Invalid(absl::StrFormat(
        "Expected LHS feature dimension (value %d) to be a multiple of feature_group_count "
        "(value %d), and LHS feature dimension / feature_group_count = RHS feature dimension "
        "(value %d); got <conv>(%s, %s)",
        input_features, feature_group_count, kernel_input_features, ShapeText(lhs),
        ShapeText(rhs)));
  }
  if (kernel_output_features % feature_group_count != 0) {
    return Invalid(absl::StrFormat(
        "Expected output feature dimension (value %d) to be a multiple of "
        "feature_group_count (value %d); got <conv>(%s, %s)",
        kernel_output_features, feature_group_count, ShapeText(lhs), ShapeText(rhs)));
  }
  if (kernel_output_features % batch_group_count != 0) {
    return Invalid(absl::StrFormat(
        "Expected output feature dimension size (value %d) to be a multiple of "
        "batch_group_count (value %d); got <conv>(%s, %s)",
        kernel_output_features, batch_group_count, ShapeText(lhs), ShapeText(rhs)));
  }
  std::vector<int64_t> input_spatial(spatial);
  for (size_t i = 0; i < spatial; ++i) {
    input_spatial[i] = lhs.dimensions(dnums.input_spatial_dimensions[i]);
    if (window[i].size != rhs.dimensions(dnums.kernel_spatial_dimensions[i])) {
      return Invalid(absl::StrFormat(
          "Window dimensions do not match RHS shape:\n\tRHS shape: %s\n\tWindow: size=%d at "
          "spatial dimension %d",
          ShapeText(rhs), window[i].size, i));
    }
  }
  HLOVM_ASSIGN_OR_RETURN(
      Shape spatial_out,
      InferWindowOutputShape(MakeArrayShape(lhs.element_type(), input_spatial), window,
                             lhs.element_type()));
  std::vector<int64_t> dims(num_dims);
  dims[dnums.output_batch_dimension] =
      input_batch == kUnboundedSize ? input_batch : input_batch / batch_group_count;
  dims[dnums.output_feature_dimension] = kernel_output_features;
  for (size_t i = 0; i < spatial; ++i) {
    dims[dnums.output_spatial_dimensions[i]] = spatial_out.dimensions(i);
  }
  HLOVM_ASSIGN_OR_RETURN(ElementType type, ResultType(lhs, rhs, preferred_type));
  return MakeArrayShape(type, dims);
}

}  // namespace hlovm
