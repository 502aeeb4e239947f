#include "ops/shape/broadcast.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace hlovm {

absl::StatusOr<StridedCopyPlan> MakeBroadcastPlan(const Shape& operand, const Shape& result,
                                                  absl::Span<const int64_t> dimensions) {
  if (!operand.IsArray() || !result.IsArray()) {
    return absl::InvalidArgumentError("broadcast needs array operand and result");
  }
  if (static_cast<int64_t>(dimensions.size()) != operand.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("broadcast: dimensions has ", dimensions.size(),
                                                   " entries for an operand of rank ",
                                                   operand.rank()));
  }
  std::vector<int64_t> operand_strides = RowMajorStrides(operand.dimensions());
  std::vector<int64_t> strides(result.rank(), 0);
  for (size_t k = 0; k < dimensions.size(); ++k) {
    const int64_t d = dimensions[k];
    if (d < 0 || d >= result.rank() || result.dimensions(d) != operand.dimensions(k)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "broadcast: operand dimension ", k, " (size ", operand.dimensions(k),
          ") does not match result dimension ", d, " of ", result.ToString(false)));
    }
    strides[d] = operand_strides[k];
  }
  return MakeStridedCopyPlan(ByteWidth(result.element_type()), result.dimensions(), strides);
}

}  // namespace hlovm
