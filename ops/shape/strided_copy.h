// Strided copies: the one kernel behind broadcast, layout changes (relayout)
// and, later, transpose. The destination is always contiguous; the source is
// read through per-dimension strides (0 repeats an element, as broadcast
// does). The plan is built once at compile time; running it does no
// allocation and never dispatches per element.
#ifndef HLOVM_OPS_SHAPE_STRIDED_COPY_H_
#define HLOVM_OPS_SHAPE_STRIDED_COPY_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace hlovm {

struct StridedCopyPlan {
  int elem_size = 0;                  // bytes per element
  std::vector<int64_t> dims;          // destination dims after simplification
  std::vector<int64_t> src_strides;   // source stride per dim, in elements
  int64_t element_count = 0;
  // Destination rows (all dims but the last) and the length of one row.
  int64_t rows() const { return dims.size() <= 1 ? 1 : element_count / dims.back(); }
  int64_t row_length() const { return dims.empty() ? 1 : dims.back(); }
};

// Builds a plan that fills a row-major destination of `dims` with
// dst[i0,...,in] = src[sum(ik * src_strides[k])]. Dimensions of size 1 are
// dropped and dimensions that are contiguous in both arrays are merged.
StridedCopyPlan MakeStridedCopyPlan(int elem_size, absl::Span<const int64_t> dims,
                                    absl::Span<const int64_t> src_strides);

// Writes destination rows [row_begin, row_end) (see rows()). Rows are
// independent, so callers may split the range across threads.
void RunStridedCopy(const StridedCopyPlan& plan, const void* src, void* dst, int64_t row_begin,
                    int64_t row_end);

// Element strides of a row-major array of `dims`.
std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims);

// Plan that turns an array stored with `minor_to_major` into row-major order.
StridedCopyPlan MakeToRowMajorPlan(int elem_size, absl::Span<const int64_t> dims,
                                   absl::Span<const int64_t> minor_to_major);
// Plan that turns a row-major array into storage order `minor_to_major`.
StridedCopyPlan MakeFromRowMajorPlan(int elem_size, absl::Span<const int64_t> dims,
                                     absl::Span<const int64_t> minor_to_major);

}  // namespace hlovm

#endif  // HLOVM_OPS_SHAPE_STRIDED_COPY_H_
