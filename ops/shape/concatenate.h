// concatenate: operands joined along one dimension. Row-major arrays make
// this a sequence of contiguous segments: for each index over the dimensions
// before `dimension`, one run of bytes from each operand in turn. The work
// is split into fixed byte ranges of the result.
#ifndef HLOVM_OPS_SHAPE_CONCATENATE_H_
#define HLOVM_OPS_SHAPE_CONCATENATE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace hlovm {

struct ConcatenatePlan {
  int64_t outer = 0;                  // product of the dimensions before `dimension`
  std::vector<int64_t> run_bytes;     // bytes of one run of each operand
  std::vector<int64_t> run_offset;    // offset of operand k's run in a result row
  int64_t row_bytes = 0;              // bytes of one result row (sum of runs)
  int64_t total_bytes() const { return outer * row_bytes; }
};

// `operand_dims[k]` are the dimensions of operand k; all equal except at
// `dimension`.
absl::StatusOr<ConcatenatePlan> MakeConcatenatePlan(
    int elem_size, const std::vector<std::vector<int64_t>>& operand_dims, int64_t dimension);

// Writes result bytes [byte_begin, byte_end).
void RunConcatenate(const ConcatenatePlan& plan, const uint8_t* const* operands, uint8_t* dst,
                    int64_t byte_begin, int64_t byte_end);

}  // namespace hlovm

#endif  // HLOVM_OPS_SHAPE_CONCATENATE_H_
