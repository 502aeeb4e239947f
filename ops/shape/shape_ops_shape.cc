#include "ops/shape/shape_ops_shape.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "ops/common/common_shape.h"

namespace hlovm {
namespace {

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

std::vector<bool> DynamicFlags(const Shape& s) {
  std::vector<bool> d(s.rank());
  for (int64_t i = 0; i < s.rank(); ++i) d[i] = s.is_dynamic_dimension(i);
  return d;
}

// Start indices of dynamic-slice/dynamic-update-slice: one integral scalar
// per operand dimension (or, in the old form, one rank-1 array).
absl::Status CheckStartIndices(std::string_view op, const Shape& operand,
                               absl::Span<const Shape* const> start_indices) {
  if (start_indices.size() == 1 && start_indices[0]->IsArray() &&
      start_indices[0]->rank() == 1 && operand.rank() != 1) {
    const Shape& s = *start_indices[0];
    if (s.dimensions(0) != operand.rank()) {
      return Invalid(absl::StrFormat(
          "%s start number of dimensions %d (%s) must match rank %d of %s input (%s).", op,
          s.dimensions(0), ShapeText(s), operand.rank(), op, ShapeText(operand)));
    }
    if (!IsInteger(s.element_type())) {
      return Invalid(absl::StrFormat("%s start indices must be of integral type.", op));
    }
    return absl::OkStatus();
  }
  if (static_cast<int64_t>(start_indices.size()) != operand.rank()) {
    return Invalid(absl::StrFormat("%s index count does not match argument rank: %u vs %d.",
                                   op, start_indices.size(), operand.rank()));
  }
  const Shape* first = nullptr;
  for (const Shape* s : start_indices) {
    if (!IsScalar(*s)) {
      return Invalid(absl::StrFormat("%s start indices must be scalars, got %s.", op,
                                     ShapeText(*s)));
    }
    if (!IsInteger(s->element_type())) {
      return Invalid(absl::StrFormat("%s start indices must be of integral type.", op));
    }
    if (first != nullptr && first->element_type() != s->element_type()) {
      return Invalid(absl::StrFormat(
          "%s start indices must all have the same element type, got %s and %s.", op,
          ShapeText(*first), ShapeText(*s)));
    }
    first = s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferBroadcastShape(const Shape& operand, const Shape& output,
                                          absl::Span<const int64_t> broadcast_dimensions) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, "operand of broadcast"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(output, "result of broadcast"));
  if (operand.rank() != static_cast<int64_t>(broadcast_dimensions.size())) {
    return Invalid(absl::StrFormat(
        "Size of broadcast_dimensions has to match operand's rank; operand rank: %d, size "
        "of broadcast_dimensions %u.",
        operand.rank(), broadcast_dimensions.size()));
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const int64_t d = broadcast_dimensions[i];
    if (d < 0 || d >= output.rank()) {
      return Invalid(absl::StrFormat("Broadcast dimension %d is out of bound", d));
    }
    // HLO's broadcast only adds dimensions (XLA's verifier): each operand
    // dimension keeps its size; a size-1 dimension is not stretched as in
    // StableHLO's broadcast_in_dim.
    if (operand.dimensions(i) != output.dimensions(d) &&
        operand.dimensions(i) != kUnboundedSize && output.dimensions(d) != kUnboundedSize) {
      return Invalid(absl::StrFormat(
          "operand dimension %d (size %d) maps to result dimension %d (size %d); broadcast "
          "keeps the size of every operand dimension (reshape a size-1 dimension away first)",
          i, operand.dimensions(i), d, output.dimensions(d)));
    }
    if (i > 0 && broadcast_dimensions[i - 1] >= d) {
      return Invalid(absl::StrFormat("Broadcast dimensions order is wrong: %d comes after %d.",
                                     d, broadcast_dimensions[i - 1]));
    }
  }
  return MakeArrayShape(operand.element_type(), output.dimensions(), DynamicFlags(output));
}

absl::StatusOr<Shape> InferReshapeShape(const Shape& operand, const Shape& output) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, "reshape"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(output, "result of reshape"));
  if (operand.is_static() && output.is_static() &&
      operand.element_count() != output.element_count()) {
    return Invalid(absl::StrFormat(
        "Reshape operation has mismatched element counts: from=%d (%s) to=%d (%s).",
        operand.element_count(), ShapeText(operand), output.element_count(),
        ShapeText(output)));
  }
  return MakeArrayShape(operand.element_type(), output.dimensions(), DynamicFlags(output));
}

absl::StatusOr<Shape> InferDynamicReshapeShape(const Shape& operand,
                                               absl::Span<const Shape* const> sizes,
                                               const Shape& output) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, "dynamic-reshape"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(output, "result of dynamic-reshape"));
  if (static_cast<int64_t>(sizes.size()) != output.rank()) {
    return Invalid(absl::StrFormat(
        "dynamic-reshape needs one size operand per result dimension: %u vs %d.",
        sizes.size(), output.rank()));
  }
  for (const Shape* s : sizes) {
    if (!IsScalar(*s) || s->element_type() != ElementType::kS32) {
      return Invalid(absl::StrFormat("dynamic-reshape sizes must be s32[] scalars, got %s.",
                                     ShapeText(*s)));
    }
  }
  if (operand.element_type() != output.element_type()) {
    return Invalid(absl::StrFormat("dynamic-reshape changes the element type: %s vs %s.",
                                   ShapeText(operand), ShapeText(output)));
  }
  return output;
}

absl::StatusOr<Shape> InferTransposeShape(const Shape& operand,
                                          absl::Span<const int64_t> permutation) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, "transpose"));
  if (!IsPermutation(permutation, operand.rank())) {
    return Invalid(absl::StrFormat(
        "Transpose dimensions [%s] are not a permutation of the operand dimensions "
        "(operand shape is %s).",
        absl::StrJoin(permutation, ","), ShapeText(operand)));
  }
  std::vector<int64_t> dims(operand.rank());
  std::vector<bool> dynamic(operand.rank());
  for (int64_t i = 0; i < operand.rank(); ++i) {
    dims[i] = operand.dimensions(permutation[i]);
    dynamic[i] = operand.is_dynamic_dimension(permutation[i]);
  }
  return MakeArrayShape(operand.element_type(), dims, dynamic);
}

absl::StatusOr<Shape> InferSliceShape(const Shape& operand, absl::Span<const int64_t> starts,
                                      absl::Span<const int64_t> limits,
                                      absl::Span<const int64_t> strides) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, "operand of slice"));
  if (starts.size() != limits.size() || starts.size() != strides.size()) {
    return Invalid(absl::StrFormat(
        "Slice start, limit and stride counts must match: %u, %u and %u.", starts.size(),
        limits.size(), strides.size()));
  }
  if (static_cast<int64_t>(starts.size()) != operand.rank()) {
    return Invalid(absl::StrFormat("Slice index count does not match argument rank: %u vs %d.",
                                   starts.size(), operand.rank()));
  }
  std::vector<int64_t> dims(operand.rank());
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const int64_t start = starts[i], limit = limits[i], stride = strides[i];
    if (start < 0) return Invalid(absl::StrFormat("Negative start index to slice: %d.", start));
    if (operand.dimensions(i) != kUnboundedSize && limit > operand.dimensions(i)) {
      return Invalid(absl::StrFormat(
          "Limit index (%d) must be less than or equal to dimension size (%d)", limit,
          operand.dimensions(i)));
    }
    if (stride <= 0) return Invalid(absl::StrFormat("Stride (%d) must be positive.", stride));
    if (limit < start) {
      return Invalid(absl::StrFormat(
          "Limit index (%d) must be greater or equal to start index (%d) in slice with "
          "positive stride.",
          limit, start));
    }
    const int64_t span = limit - start;
    dims[i] = span / stride + (span % stride != 0 ? 1 : 0);
  }
  return MakeArrayShape(operand.element_type(), dims, DynamicFlags(operand));
}

absl::StatusOr<Shape> InferDynamicSliceShape(const Shape& operand,
                                             absl::Span<const Shape* const> start_indices,
                                             absl::Span<const int64_t> slice_sizes) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, "operand of dynamic slice"));
  HLOVM_RETURN_IF_ERROR(CheckStartIndices("Dynamic slice", operand, start_indices));
  if (static_cast<int64_t>(slice_sizes.size()) != operand.rank()) {
    return Invalid(absl::StrFormat(
        "Dynamic slice index count does not match argument rank: %u vs %d.",
        slice_sizes.size(), operand.rank()));
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (slice_sizes[i] < 0) {
      return Invalid(absl::StrFormat("Negative size index to dynamic slice: %d.",
                                     slice_sizes[i]));
    }
    if (operand.dimensions(i) != kUnboundedSize && slice_sizes[i] > operand.dimensions(i)) {
      return Invalid(absl::StrFormat("Slice dim size %d greater than dynamic slice dimension: %d.",
                                     slice_sizes[i], operand.dimensions(i)));
    }
  }
  return MakeArrayShape(operand.element_type(), slice_sizes, DynamicFlags(operand));
}

absl::StatusOr<Shape> InferDynamicUpdateSliceShape(
    const Shape& operand, const Shape& update, absl::Span<const Shape* const> start_indices) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, "operand of dynamic update slice"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(update, "update of dynamic update slice"));
  HLOVM_RETURN_IF_ERROR(CheckStartIndices("Dynamic update slice", operand, start_indices));
  if (update.rank() != operand.rank()) {
    return Invalid(absl::StrFormat(
        "Dynamic update slice update rank does not match argument rank: %d vs %d.",
        update.rank(), operand.rank()));
  }
  if (!SameElementTypeIgnoringFp(operand, update)) {
    return Invalid(absl::StrFormat(
        "Dynamic update slice update element type does not match argument. "
        "operand.element_type: %s vs update.element_type: %s.",
        ElementTypeName(operand.element_type()), ElementTypeName(update.element_type())));
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (update.dimensions(i) < 0 && update.dimensions(i) != kUnboundedSize) {
      return Invalid(absl::StrFormat(
          "Size index %d to dynamic update slice must be >= 0.", update.dimensions(i)));
    }
    if (operand.dimensions(i) != kUnboundedSize && update.dimensions(i) != kUnboundedSize &&
        update.dimensions(i) > operand.dimensions(i)) {
      return Invalid(absl::StrFormat(
          "Size index %d to dynamic update slice must be <= dimension size %d.",
          update.dimensions(i), operand.dimensions(i)));
    }
  }
  return operand;
}

absl::StatusOr<Shape> InferConcatenateShape(absl::Span<const Shape* const> operands,
                                            int64_t dimension) {
  if (operands.empty()) {
    return Invalid("Concatenate expects at least one argument.");
  }
  HLOVM_RETURN_IF_ERROR(ExpectArray(*operands[0], "operand of concatenation"));
  if (dimension < 0 || dimension >= operands[0]->rank()) {
    return Invalid(absl::StrFormat("Concatenate dimension out of bounds: %d.", dimension));
  }
  const Shape& first = *operands[0];
  ElementType type = first.element_type();
  std::vector<int64_t> dims(first.dimensions().begin(), first.dimensions().end());
  std::vector<bool> dynamic = DynamicFlags(first);
  for (size_t k = 1; k < operands.size(); ++k) {
    const Shape& s = *operands[k];
    HLOVM_RETURN_IF_ERROR(ExpectArray(s, "operand of concatenation"));
    if (s.rank() != first.rank()) {
      return Invalid(absl::StrFormat(
          "Cannot concatenate arrays with different ranks: %d (%s) vs %d (%s).", first.rank(),
          ShapeText(first), s.rank(), ShapeText(s)));
    }
    if (!SameElementTypeIgnoringFp(first, s)) {
      return Invalid(absl::StrFormat(
          "Cannot concatenate arrays with different element types: %s vs %s.",
          ElementTypeName(first.element_type()), ElementTypeName(s.element_type())));
    }
    for (int64_t d = 0; d < first.rank(); ++d) {
      if (d == dimension) continue;
      if (first.dimensions(d) != s.dimensions(d) && first.dimensions(d) != kUnboundedSize &&
          s.dimensions(d) != kUnboundedSize) {
        return Invalid(absl::StrFormat(
            "Cannot concatenate arrays that differ in dimensions other than the one being "
            "concatenated. Dimension %d in both shapes must be equal: %s vs %s.",
            d, ShapeText(first), ShapeText(s)));
      }
    }
    if (dims[dimension] == kUnboundedSize || s.dimensions(dimension) == kUnboundedSize) {
      dims[dimension] = kUnboundedSize;
    } else if (!CheckedAdd(dims[dimension], s.dimensions(dimension), &dims[dimension])) {
      return DimensionOverflow("The concatenated dimension");
    }
    for (int64_t d = 0; d < s.rank(); ++d) dynamic[d] = dynamic[d] || s.is_dynamic_dimension(d);
    if (BitWidth(s.element_type()) > BitWidth(type)) type = s.element_type();
  }
  return MakeArrayShape(type, dims, dynamic);
}

absl::StatusOr<Shape> InferPadShape(const Shape& operand, const Shape& padding_value,
                                    const PaddingConfig& padding) {
  if (!operand.IsArray()) {
    return Invalid("Pad operation does not support tuple-shape operands.");
  }
  if (!IsScalar(padding_value)) {
    return Invalid("Pad operation does not support non-scalar padding values.");
  }
  if (operand.rank() != static_cast<int64_t>(padding.size())) {
    return Invalid(absl::StrFormat(
        "The rank of the operand and the padding configuration do not match: %s vs %d "
        "dimensions.",
        ShapeText(operand), padding.size()));
  }
  if (!SameElementTypeIgnoringFp(operand, padding_value)) {
    return Invalid("The element types of the operands to Pad do not match.");
  }
  std::vector<int64_t> dims(operand.rank());
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const PaddingDimension& p = padding[i];
    if (p.interior < 0) {
      return Invalid(absl::StrFormat("Interior padding cannot be negative: %d", p.interior));
    }
    if (operand.dimensions(i) == kUnboundedSize) {
      dims[i] = kUnboundedSize;
      continue;
    }
    int64_t interior = 0;
    if (!CheckedMul(std::max<int64_t>(operand.dimensions(i) - 1, 0), p.interior, &interior) ||
        !CheckedAdd(operand.dimensions(i), interior, &dims[i]) ||
        !CheckedAdd(dims[i], p.low, &dims[i]) || !CheckedAdd(dims[i], p.high, &dims[i])) {
      return DimensionOverflow("The padded dimension");
    }
    if (dims[i] < 0) {
      return Invalid(absl::StrFormat("Padding result in negative size for dimension %d", i));
    }
  }
  return MakeArrayShape(HigherPrecisionElementType(operand, padding_value), dims,
                        DynamicFlags(operand));
}

absl::StatusOr<Shape> InferReverseShape(const Shape& operand,
                                        absl::Span<const int64_t> dimensions) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, "operand of reverse"));
  if (!AllUnique(dimensions)) return Invalid("Reverse dimensions must be unique.");
  if (!AllInRange(dimensions, operand.rank())) {
    return Invalid(absl::StrFormat(
        "One of the reverse dimensions (%s) is out-of-bounds in shape %s.",
        absl::StrJoin(dimensions, ","), ShapeText(operand)));
  }
  return operand;
}

absl::StatusOr<Shape> InferIotaShape(const Shape& output, int64_t iota_dimension) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(output, "iota"));
  if (output.rank() == 0) return Invalid("Iota does not support scalars.");
  if (iota_dimension < 0 || iota_dimension >= output.rank()) {
    return Invalid(absl::StrFormat(
        "The iota dimension cannot go beyond the operation rank: %d vs rank %d.",
        iota_dimension, output.rank()));
  }
  return output;
}

absl::StatusOr<Shape> InferBitcastShape(const Shape& operand, const Shape& output) {
  if (operand.IsArray() && output.IsArray() && operand.is_static() && output.is_static()) {
    int64_t in_bits = 0, out_bits = 0;
    if (!CheckedMul(operand.element_count(), BitWidth(operand.element_type()), &in_bits) ||
        !CheckedMul(output.element_count(), BitWidth(output.element_type()), &out_bits)) {
      return DimensionOverflow("The bitcast's size in bits");
    }
    if (in_bits != out_bits) {
      return Invalid(absl::StrFormat(
          "Bitcast cannot have different shape sizes of output (%d bits, %s) and operand "
          "(%d bits, %s).",
          out_bits, ShapeText(output), in_bits, ShapeText(operand)));
    }
  }
  return output;
}

absl::StatusOr<Shape> InferGetDimensionSizeShape(const Shape& operand, int64_t dimension) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, "operand of get-dimension-size"));
  if (dimension < 0 || dimension >= operand.rank()) {
    return Invalid(absl::StrFormat("GetDimensionSize dimension out of bounds: %d.", dimension));
  }
  return ScalarShape(ElementType::kS32);
}

absl::StatusOr<Shape> InferSetDimensionSizeShape(const Shape& operand, const Shape& size,
                                                 int64_t dimension) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(operand, "operand of set-dimension-size"));
  if (dimension < 0 || dimension >= operand.rank()) {
    return Invalid(absl::StrFormat("SetDimensionSize dimension out of bounds: %d.", dimension));
  }
  if (!IsScalar(size)) {
    return Invalid(absl::StrFormat("SetDimensionSize's value has to be S32 scalar, got %s",
                                   ShapeText(size)));
  }
  if (size.element_type() != ElementType::kS32) {
    return Invalid(absl::StrFormat("SetDimensionSize's value has to be S32 scalar, got %s",
                                   ShapeText(size)));
  }
  std::vector<bool> dynamic = DynamicFlags(operand);
  dynamic[dimension] = true;
  return MakeArrayShape(operand.element_type(), operand.dimensions(), dynamic);
}

absl::StatusOr<Shape> InferCopyStartShape(const Shape& operand) {
  return Shape::Tuple({operand, operand, ScalarShape(ElementType::kU32)});
}

absl::StatusOr<Shape> InferCopyDoneShape(const Shape& start) {
  if (!start.IsTuple() || start.tuple_size() < 1) {
    return Invalid(absl::StrFormat("copy-done expects the tuple of a copy-start, got %s.",
                                   ShapeText(start)));
  }
  return start.tuple_shape(0);
}

}  // namespace hlovm
