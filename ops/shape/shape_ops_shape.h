// Shape rules of the data-movement ops: broadcast, reshape, transpose, slice,
// dynamic-slice, dynamic-update-slice, concatenate, pad, reverse, iota,
// bitcast, copy-start/-done and the dynamic-dimension ops. Ops whose result
// dimensions are not determined by their operands (broadcast, reshape, iota,
// bitcast, dynamic-reshape) take the declared result and check it.
#ifndef HLOVM_OPS_SHAPE_SHAPE_OPS_SHAPE_H_
#define HLOVM_OPS_SHAPE_SHAPE_OPS_SHAPE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"
#include "core/shape.h"

namespace hlovm {

// broadcast(operand), dimensions=`broadcast_dimensions`, into an array of
// `output` dimensions: operand dimension i becomes output dimension
// broadcast_dimensions[i].
absl::StatusOr<Shape> InferBroadcastShape(const Shape& operand, const Shape& output,
                                          absl::Span<const int64_t> broadcast_dimensions);
// reshape(operand) to `output`'s dimensions; element counts must agree.
absl::StatusOr<Shape> InferReshapeShape(const Shape& operand, const Shape& output);
// dynamic-reshape(operand, sizes...) to `output`.
absl::StatusOr<Shape> InferDynamicReshapeShape(const Shape& operand,
                                               absl::Span<const Shape* const> sizes,
                                               const Shape& output);
absl::StatusOr<Shape> InferTransposeShape(const Shape& operand,
                                          absl::Span<const int64_t> permutation);
absl::StatusOr<Shape> InferSliceShape(const Shape& operand, absl::Span<const int64_t> starts,
                                      absl::Span<const int64_t> limits,
                                      absl::Span<const int64_t> strides);
absl::StatusOr<Shape> InferDynamicSliceShape(const Shape& operand,
                                             absl::Span<const Shape* const> start_indices,
                                             absl::Span<const int64_t> slice_sizes);
absl::StatusOr<Shape> InferDynamicUpdateSliceShape(
    const Shape& operand, const Shape& update, absl::Span<const Shape* const> start_indices);
absl::StatusOr<Shape> InferConcatenateShape(absl::Span<const Shape* const> operands,
                                            int64_t dimension);
absl::StatusOr<Shape> InferPadShape(const Shape& operand, const Shape& padding_value,
                                    const PaddingConfig& padding);
absl::StatusOr<Shape> InferReverseShape(const Shape& operand,
                                        absl::Span<const int64_t> dimensions);
// iota into `output`, counting along `iota_dimension`.
absl::StatusOr<Shape> InferIotaShape(const Shape& output, int64_t iota_dimension);
// bitcast(operand) to `output`: any array of the same size in bits.
absl::StatusOr<Shape> InferBitcastShape(const Shape& operand, const Shape& output);
// get-dimension-size(operand), dimensions={d} -> s32[].
absl::StatusOr<Shape> InferGetDimensionSizeShape(const Shape& operand, int64_t dimension);
// set-dimension-size(operand, size), dimensions={d}: `d` becomes dynamic.
absl::StatusOr<Shape> InferSetDimensionSizeShape(const Shape& operand, const Shape& size,
                                                 int64_t dimension);
// copy-start(operand) -> (operand, operand, u32[]).
absl::StatusOr<Shape> InferCopyStartShape(const Shape& operand);
// copy-done(copy-start) -> element 0 of the start's tuple.
absl::StatusOr<Shape> InferCopyDoneShape(const Shape& start);

}  // namespace hlovm

#endif  // HLOVM_OPS_SHAPE_SHAPE_OPS_SHAPE_H_
