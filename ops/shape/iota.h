// iota: fills an array with the index along one dimension, converted to the
// element type (row-major arrays).
#ifndef HLOVM_OPS_SHAPE_IOTA_H_
#define HLOVM_OPS_SHAPE_IOTA_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/element_type.h"

namespace hlovm {

// Writes elements [begin, end) of a row-major array where element l holds
// (l / inner) % dim_size, to out[0, end - begin) (the caller points `out`
// at element `begin`: a chunk of the array, or a tile of a fused region);
// `inner` is the product of the dimensions after the iota dimension.
using IotaKernel = void (*)(void* out, int64_t begin, int64_t end, int64_t dim_size,
                            int64_t inner);

absl::StatusOr<IotaKernel> SelectIotaKernel(ElementType type);

}  // namespace hlovm

#endif  // HLOVM_OPS_SHAPE_IOTA_H_
