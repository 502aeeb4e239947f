#include "ops/shape/reverse.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace hlovm {

absl::StatusOr<OffsetCopyPlan> MakeReversePlan(int elem_size, absl::Span<const int64_t> dims,
                                               absl::Span<const int64_t> reversed) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<bool> seen(rank, false);
  OffsetCopyPlan plan;
  for (int64_t d : reversed) {
    if (d < 0 || d >= rank || seen[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat("reverse dimension ", d, " is out of range or repeated for rank ", rank));
    }
    seen[d] = true;
    if (dims[d] > 0) plan.base += (dims[d] - 1) * strides[d];
    strides[d] = -strides[d];
  }
  plan.copy = MakeStridedCopyPlan(elem_size, dims, strides);
  return plan;
}

}  // namespace hlovm
