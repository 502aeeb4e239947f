// Shape rules of the contractions: dot, ragged-dot, scaled-dot and
// convolution. `preferred_type`, when given, is the element type the
// instruction declares for its result (XLA lets a dot or convolution widen
// its result, e.g. bf16 x bf16 -> f32).
#ifndef HLOVM_OPS_DOT_DOT_CONV_SHAPE_H_
#define HLOVM_OPS_DOT_DOT_CONV_SHAPE_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "core/shape.h"

namespace hlovm {

absl::StatusOr<Shape> InferDotShape(const Shape& lhs, const Shape& rhs,
                                    const DotDimensionNumbers& dnums,
                                    std::optional<ElementType> preferred_type = std::nullopt);

// ragged-dot(lhs, rhs, group_sizes).
absl::StatusOr<Shape> InferRaggedDotShape(
    const Shape& lhs, const Shape& rhs, const Shape& group_sizes,
    const DotDimensionNumbers& dnums, std::optional<ElementType> preferred_type = std::nullopt);

// scaled-dot(lhs, rhs, lhs_scale, rhs_scale): a dot of lhs and rhs, each
// scaled blockwise by a scale array of its rank.
absl::StatusOr<Shape> InferScaledDotShape(
    const Shape& lhs, const Shape& rhs, const Shape& lhs_scale, const Shape& rhs_scale,
    const DotDimensionNumbers& dnums, std::optional<ElementType> preferred_type = std::nullopt);

absl::StatusOr<Shape> InferConvolutionShape(
    const Shape& lhs, const Shape& rhs, int64_t feature_group_count,
    int64_t batch_group_count, const Window& window,
    const ConvolutionDimensionNumbers& dnums,
    std::optional<ElementType> preferred_type = std::nullopt);

}  // namespace hlovm

#endif  // HLOVM_OPS_DOT_DOT_CONV_SHAPE_H_
