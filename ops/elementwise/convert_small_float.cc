// convert kernels from the 8-, 6- and 4-bit float types.
#include "ops/elementwise/elementwise_convert.h"

namespace hlovm {
namespace elementwise_internal {

absl::StatusOr<UnaryKernel> SelectConvertFromSmallFloat(ElementType from, ElementType to) {
  switch (from) {
#define HLOVM_EW_TYPE_(e) \
  case ET::e:             \
    return SelectConvertTo<ET::e>(to);
    HLOVM_EW_SMALL_FLOAT_TYPES(HLOVM_EW_TYPE_)
#undef HLOVM_EW_TYPE_
    default:
      return absl::UnimplementedError(
          absl::StrCat("No convert kernel from ", TypeName(from)));
  }
}

}  // namespace elementwise_internal
}  // namespace hlovm
