// slice (with strides) and the strided store that dynamic-update-slice uses.
// Arrays are row-major; both kernels work on element byte widths and run a
// range of rows so that callers can split the work into fixed chunks.
#ifndef HLOVM_OPS_SHAPE_SLICE_H_
#define HLOVM_OPS_SHAPE_SLICE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ops/shape/strided_copy.h"

namespace hlovm {

// A strided copy that starts `base` elements into the source.
struct OffsetCopyPlan {
  StridedCopyPlan copy;
  int64_t base = 0;  // elements
};

// result[i] = operand[starts + i * strides] for every index i of the result.
absl::StatusOr<OffsetCopyPlan> MakeSlicePlan(int elem_size, absl::Span<const int64_t> dims,
                                             absl::Span<const int64_t> starts,
                                             absl::Span<const int64_t> limits,
                                             absl::Span<const int64_t> strides);

// Copies destination rows [row_begin, row_end) (see StridedCopyPlan::rows()).
void RunOffsetCopy(const OffsetCopyPlan& plan, const void* src, void* dst, int64_t row_begin,
                   int64_t row_end);

// The mirror of a strided copy: a contiguous source of `dims` is written into
// a destination read through `dst_strides` (elements). The plan reuses
// StridedCopyPlan, whose `src_strides` then are destination strides.
StridedCopyPlan MakeStridedStorePlan(int elem_size, absl::Span<const int64_t> dims,
                                     absl::Span<const int64_t> dst_strides);
// dst[sum(i_k * dst_strides[k])] = src[i] for source rows [row_begin, row_end).
void RunStridedStore(const StridedCopyPlan& plan, const void* src, void* dst, int64_t row_begin,
                     int64_t row_end);

}  // namespace hlovm

#endif  // HLOVM_OPS_SHAPE_SLICE_H_
