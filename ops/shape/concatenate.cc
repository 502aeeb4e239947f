#include "ops/shape/concatenate.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace hlovm {

absl::StatusOr<ConcatenatePlan> MakeConcatenatePlan(
    int elem_size, const std::vector<std::vector<int64_t>>& operand_dims, int64_t dimension) {
  if (operand_dims.empty()) {
    return absl::InvalidArgumentError("concatenate needs at least one operand");
  }
  const size_t rank = operand_dims[0].size();
  if (dimension < 0 || dimension >= static_cast<int64_t>(rank)) {
    return absl::InvalidArgumentError(
        absl::StrCat("concatenate dimension ", dimension, " out of range for rank ", rank));
  }
  ConcatenatePlan plan;
  plan.outer = 1;
  for (int64_t d = 0; d < dimension; ++d) plan.outer *= operand_dims[0][d];
  for (const auto& dims : operand_dims) {
    if (dims.size() != rank) {
      return absl::InvalidArgumentError("concatenate operands differ in rank");
    }
    int64_t run = elem_size;
    for (size_t d = 0; d < rank; ++d) {
      if (static_cast<int64_t>(d) != dimension && dims[d] != operand_dims[0][d]) {
        return absl::InvalidArgumentError(
            absl::StrCat("concatenate operands differ in dimension ", d));
      }
      if (static_cast<int64_t>(d) >= dimension) run *= dims[d];
    }
    plan.run_offset.push_back(plan.row_bytes);
    plan.run_bytes.push_back(run);
    plan.row_bytes += run;
  }
  return plan;
}

void RunConcatenate(const ConcatenatePlan& plan, const uint8_t* const* operands, uint8_t* dst,
                    int64_t byte_begin, int64_t byte_end) {
  if (plan.row_bytes == 0 || byte_begin >= byte_end) return;
  const int64_t n = static_cast<int64_t>(plan.run_bytes.size());
  int64_t row = byte_begin / plan.row_bytes;
  int64_t in_row = byte_begin % plan.row_bytes;
  int64_t k = static_cast<int64_t>(
      std::upper_bound(plan.run_offset.begin(), plan.run_offset.end(), in_row) -
      plan.run_offset.begin() - 1);
  int64_t pos = byte_begin;
  while (pos < byte_end) {
    // Skip empty runs.
    while (k < n && plan.run_bytes[k] == 0) ++k;
    if (k == n) {
      k = 0;
      ++row;
      in_row = 0;
      continue;
    }
    const int64_t within = in_row - plan.run_offset[k];
    const int64_t take = std::min(plan.run_bytes[k] - within, byte_end - pos);
    std::memcpy(dst + pos, operands[k] + row * plan.run_bytes[k] + within, take);
    pos += take;
    in_row += take;
    if (within + take == plan.run_bytes[k]) {
      ++k;
      if (k == n) {
        k = 0;
        ++row;
        in_row = 0;
      }
    }
  }
}

}  // namespace hlovm
