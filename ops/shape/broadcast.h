// broadcast: expands an operand into a larger array; operand dimension k maps
// to result dimension dimensions[k]. Arrays are row-major here (the VM relays
// other layouts at its boundaries); the kernel is a StridedCopy whose
// broadcast dimensions have stride 0.
#ifndef HLOVM_OPS_SHAPE_BROADCAST_H_
#define HLOVM_OPS_SHAPE_BROADCAST_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/shape.h"
#include "ops/shape/strided_copy.h"

namespace hlovm {

// Validates the broadcast and returns its copy plan.
absl::StatusOr<StridedCopyPlan> MakeBroadcastPlan(const Shape& operand, const Shape& result,
                                                  absl::Span<const int64_t> dimensions);

}  // namespace hlovm

#endif  // HLOVM_OPS_SHAPE_BROADCAST_H_
