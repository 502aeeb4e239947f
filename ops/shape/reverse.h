// reverse: result[i] = operand[i with every listed dimension k read as
// dims[k] - 1 - i_k]. A strided copy with negative strides that starts at
// the far end of the reversed dimensions (see ops/shape/slice.h).
#ifndef HLOVM_OPS_SHAPE_REVERSE_H_
#define HLOVM_OPS_SHAPE_REVERSE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ops/shape/slice.h"

namespace hlovm {

absl::StatusOr<OffsetCopyPlan> MakeReversePlan(int elem_size, absl::Span<const int64_t> dims,
                                               absl::Span<const int64_t> reversed);

}  // namespace hlovm

#endif  // HLOVM_OPS_SHAPE_REVERSE_H_
