// gather: plan and kernel. The plan (an IndexWindowPlan with clamping) is
// computed once from the shapes and dimension numbers; RunGather copies the
// slices of a range of batch positions, so callers can split the batch space
// into fixed chunks and run them in parallel (each output element is written
// by exactly one position).
//
// Semantics (XLA): each start index is clamped so that the whole slice lies
// inside the operand; operand batching dimensions take the coordinate of the
// matching start_indices batching dimension.
#ifndef HLOVM_OPS_INDEXING_GATHER_H_
#define HLOVM_OPS_INDEXING_GATHER_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"
#include "core/shape.h"
#include "ops/indexing/index_windows.h"

namespace hlovm {

struct GatherPlan {
  IndexWindowPlan windows;
  int64_t elem_size = 0;  // bytes per element of operand and result
};

// `result` is the gather's (verified) result shape; all arrays row-major.
absl::StatusOr<GatherPlan> MakeGatherPlan(const Shape& operand, const Shape& start_indices,
                                          const GatherDimensionNumbers& dnums,
                                          absl::Span<const int64_t> slice_sizes,
                                          const Shape& result);

// Writes the slices of batch positions [begin, end) into `out`.
void RunGather(const GatherPlan& plan, const uint8_t* operand, const uint8_t* start_indices,
               uint8_t* out, int64_t begin, int64_t end);

}  // namespace hlovm

#endif  // HLOVM_OPS_INDEXING_GATHER_H_
