// pad: low/high edge padding (negative removes elements) and interior
// padding between elements, with a runtime padding value. Each result row
// (all dimensions but the last) is either all padding or one operand row
// spread out with the interior padding and cut by the edges. Works on
// element byte widths; runs a range of result rows.
#ifndef HLOVM_OPS_SHAPE_PAD_H_
#define HLOVM_OPS_SHAPE_PAD_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"

namespace hlovm {

struct PadPlan {
  int elem_size = 0;
  std::vector<int64_t> in_dims, out_dims, low, step;  // step = interior + 1
  std::vector<int64_t> in_strides;                    // row-major, elements
  int64_t out_count = 0;
  // Along the last dimension: the operand elements [first, last) that land
  // in the result.
  int64_t first = 0, last = 0;
  int64_t rows() const;       // result rows
  int64_t row_length() const; // elements per result row
};

absl::StatusOr<PadPlan> MakePadPlan(int elem_size, absl::Span<const int64_t> in_dims,
                                    const PaddingConfig& padding);

// Writes result rows [row_begin, row_end); `value` points at one element.
void RunPad(const PadPlan& plan, const void* src, const void* value, void* dst,
            int64_t row_begin, int64_t row_end);

}  // namespace hlovm

#endif  // HLOVM_OPS_SHAPE_PAD_H_
