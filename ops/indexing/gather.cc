#include "ops/indexing/gather.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace hlovm {
namespace {

using dimension_lists::AllInRange;
using dimension_lists::Contains;
using dimension_lists::IndexOf;

template <int kBytes>
void CopyRun(uint8_t* dst, const uint8_t* src, int64_t n) {
  if (n == 1) {
    std::memcpy(dst, src, kBytes);
  } else {
    std::memcpy(dst, src, kBytes * n);
  }
}

template <int kBytes>
void RunGatherT(const GatherPlan& plan, const uint8_t* operand, const uint8_t* indices,
                uint8_t* out, int64_t begin, int64_t end) {
  const IndexWindowPlan& p = plan.windows;
  const int64_t rows = WindowRows(p);
  if (p.win_size.empty()) {
    const int64_t run = p.run;
    if (run == 1) {
      ForEachIndexedWindow(p, indices, begin, end, [&](int64_t src, int64_t dst) {
        std::memcpy(out + dst * kBytes, operand + src * kBytes, kBytes);
      });
    } else {
      ForEachIndexedWindow(p, indices, begin, end, [&](int64_t src, int64_t dst) {
        std::memcpy(out + dst * kBytes, operand + src * kBytes, run * kBytes);
      });
    }
    return;
  }
  ForEachIndexedWindow(p, indices, begin, end, [&](int64_t src, int64_t dst) {
    ForEachWindowRun(p, src, dst, 0, rows, [&](int64_t s, int64_t d, int64_t n) {
      CopyRun<kBytes>(out + d * kBytes, operand + s * kBytes, n);
    });
  });
}

}  // namespace

absl::StatusOr<GatherPlan> MakeGatherPlan(const Shape& operand, const Shape& start_indices,
                                          const GatherDimensionNumbers& d,
                                          absl::Span<const int64_t> slice_sizes,
                                          const Shape& result) {
  if (!operand.IsArray() || !start_indices.IsArray() || !result.IsArray()) {
    return absl::InvalidArgumentError("gather operands and result must be arrays");
  }
  if (!IsSupportedIndexType(start_indices.element_type())) {
    return absl::InvalidArgumentError(
        absl::StrCat("gather start indices must be integers, got ", start_indices.ToString()));
  }
  const int64_t op_rank = operand.rank();
  const int64_t idx_rank = start_indices.rank();
  const int64_t out_rank = result.rank();
  if (static_cast<int64_t>(slice_sizes.size()) != op_rank || d.index_vector_dim < 0 ||
      d.index_vector_dim > idx_rank || !AllInRange(d.offset_dims, out_rank) ||
      !AllInRange(d.collapsed_slice_dims, op_rank) || !AllInRange(d.start_index_map, op_rank) ||
      !AllInRange(d.operand_batching_dims, op_rank) ||
      !AllInRange(d.start_indices_batching_dims, idx_rank) ||
      d.operand_batching_dims.size() != d.start_indices_batching_dims.size()) {
    return absl::InvalidArgumentError("gather dimension numbers do not match the shapes");
  }
  const int64_t batch_rank = out_rank - static_cast<int64_t>(d.offset_dims.size());
  const int64_t idx_batch_rank = idx_rank - (d.index_vector_dim < idx_rank ? 1 : 0);
  if (batch_rank != idx_batch_rank) {
    return absl::InvalidArgumentError("gather result rank does not match its operands");
  }
  const int64_t vec_size =
      d.index_vector_dim < idx_rank ? start_indices.dimensions(d.index_vector_dim) : 1;
  if (static_cast<int64_t>(d.start_index_map.size()) != vec_size) {
    return absl::InvalidArgumentError("gather start_index_map does not match the index vector");
  }
  const std::vector<int64_t> op_dims(operand.dimensions().begin(), operand.dimensions().end());
  const std::vector<int64_t> idx_dims(start_indices.dimensions().begin(),
                                      start_indices.dimensions().end());
  const std::vector<int64_t> out_dims(result.dimensions().begin(), result.dimensions().end());
  const std::vector<int64_t> op_stride = RowMajorStrides(op_dims);
  const std::vector<int64_t> idx_stride = RowMajorStrides(idx_dims);
  const std::vector<int64_t> out_stride = RowMajorStrides(out_dims);

  GatherPlan plan;
  plan.elem_size = ByteWidth(operand.element_type());
  IndexWindowPlan& p = plan.windows;
  p.index_type = start_indices.element_type();
  p.clamp = true;
  p.batch_count = 1;
  int64_t idx_dim = 0;
  for (int64_t od = 0; od < out_rank; ++od) {
    if (Contains(d.offset_dims, od)) continue;
    if (idx_dim == d.index_vector_dim) ++idx_dim;
    p.batch_size.push_back(out_dims[od]);
    p.batch_idx_stride.push_back(idx_stride[idx_dim]);
    p.batch_dense_stride.push_back(out_stride[od]);
    const int64_t bi = IndexOf(d.start_indices_batching_dims, idx_dim);
    p.batch_indexed_stride.push_back(bi < 0 ? 0 : op_stride[d.operand_batching_dims[bi]]);
    p.batch_count *= out_dims[od];
    ++idx_dim;
  }
  for (int64_t k = 0; k < vec_size; ++k) {
    const int64_t dim = d.start_index_map[k];
    p.comp_idx_offset.push_back(d.index_vector_dim < idx_rank ? k * idx_stride[d.index_vector_dim]
                                                              : 0);
    const int64_t max = op_dims[dim] - slice_sizes[dim];
    if (max < 0 || slice_sizes[dim] < 0) {
      return absl::InvalidArgumentError("gather slice size exceeds the operand");
    }
    p.comp_max.push_back(max);
    p.comp_indexed_stride.push_back(op_stride[dim]);
  }
  std::vector<WindowDim> window;
  size_t offset_i = 0;
  for (int64_t dim = 0; dim < op_rank; ++dim) {
    if (Contains(d.collapsed_slice_dims, dim) || Contains(d.operand_batching_dims, dim)) continue;
    if (offset_i >= d.offset_dims.size()) {
      return absl::InvalidArgumentError("gather offset_dims do not match slice_sizes");
    }
    const int64_t od = d.offset_dims[offset_i++];
    if (out_dims[od] != slice_sizes[dim]) {
      return absl::InvalidArgumentError("gather result does not match slice_sizes");
    }
    window.push_back(WindowDim{slice_sizes[dim], op_stride[dim], out_stride[od]});
  }
  if (offset_i != d.offset_dims.size()) {
    return absl::InvalidArgumentError("gather offset_dims do not match slice_sizes");
  }
  SetWindowLoop(std::move(window), &p);
  SimplifyBatchLoop(&p);
  return plan;
}

void RunGather(const GatherPlan& plan, const uint8_t* operand, const uint8_t* start_indices,
               uint8_t* out, int64_t begin, int64_t end) {
  if (plan.windows.window_elems == 0) return;
  switch (plan.elem_size) {
    case 1:
      return RunGatherT<1>(plan, operand, start_indices, out, begin, end);
    case 2:
      return RunGatherT<2>(plan, operand, start_indices, out, begin, end);
    case 4:
      return RunGatherT<4>(plan, operand, start_indices, out, begin, end);
    case 8:
      return RunGatherT<8>(plan, operand, start_indices, out, begin, end);
    case 16:
      return RunGatherT<16>(plan, operand, start_indices, out, begin, end);
    default:
      return;
  }
}

}  // namespace hlovm
