// convert kernels from pred and the integer types.
#include "ops/elementwise/elementwise_convert.h"
#include "ops/elementwise/elementwise_hwy.h"

namespace hlovm {
namespace elementwise_internal {

absl::StatusOr<UnaryKernel> SelectConvertFromInt(ElementType from, ElementType to) {
  if (from == ET::kS32 && to == ET::kF32) return &HwyS32ToF32;
  switch (from) {
#define HLOVM_EW_TYPE_(e) \
  case ET::e:             \
    return SelectConvertTo<ET::e>(to);
    HLOVM_EW_TYPE_(kPred)
    HLOVM_EW_INT_TYPES(HLOVM_EW_TYPE_)
#undef HLOVM_EW_TYPE_
    default:
      return absl::UnimplementedError(
          absl::StrCat("No convert kernel from ", TypeName(from)));
  }
}

}  // namespace elementwise_internal
}  // namespace hlovm
