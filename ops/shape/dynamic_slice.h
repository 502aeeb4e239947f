// dynamic-slice and dynamic-update-slice with runtime start indices of any
// integer type. Each start index is clamped to [0, operand_dim - size] (XLA's
// rule; unsigned indices are read as unsigned). The copy plans are fixed at
// compile time; only the base offset is computed when the op runs.
#ifndef HLOVM_OPS_SHAPE_DYNAMIC_SLICE_H_
#define HLOVM_OPS_SHAPE_DYNAMIC_SLICE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/element_type.h"
#include "ops/shape/strided_copy.h"

namespace hlovm {

// Reads one start index of type `type` at `p` as an int64 (unsigned values
// above INT64_MAX read as INT64_MAX, which every clamp handles the same).
using IndexReader = int64_t (*)(const uint8_t* p);
absl::StatusOr<IndexReader> SelectIndexReader(ElementType type);

struct DynamicSlicePlan {
  int elem_size = 0;
  std::vector<int64_t> operand_dims, sizes, operand_strides;
  IndexReader read_index = nullptr;
  int index_bytes = 0;
  // dynamic-slice: copy of `sizes` out of the operand (source strides are the
  // operand's); dynamic-update-slice: store of the update into the result.
  StridedCopyPlan copy;
  int64_t operand_bytes = 0;
};

// `sizes` are the slice sizes (dynamic-slice) or the update's dimensions.
absl::StatusOr<DynamicSlicePlan> MakeDynamicSlicePlan(int elem_size,
                                                      absl::Span<const int64_t> operand_dims,
                                                      absl::Span<const int64_t> sizes,
                                                      ElementType index_type, bool update);

// The clamped base offset (elements) from start indices: either one pointer
// per dimension (`per_dim`), or one pointer to a rank-1 array of indices.
int64_t DynamicSliceBase(const DynamicSlicePlan& plan, const uint8_t* const* starts,
                         bool per_dim);

// dynamic-slice: result rows [row_begin, row_end) from the operand at `base`.
void RunDynamicSlice(const DynamicSlicePlan& plan, const uint8_t* operand, int64_t base,
                     uint8_t* dst, int64_t row_begin, int64_t row_end);
// dynamic-update-slice: writes update rows [row_begin, row_end) into `dst`
// (which already holds the operand) at `base`.
void RunDynamicUpdateSlice(const DynamicSlicePlan& plan, const uint8_t* update, int64_t base,
                           uint8_t* dst, int64_t row_begin, int64_t row_end);

}  // namespace hlovm

#endif  // HLOVM_OPS_SHAPE_DYNAMIC_SLICE_H_
