#include "ops/shape/slice.h"

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace hlovm {
namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

template <typename T>
void StoreRow(const uint8_t* src, uint8_t* dst, int64_t n, int64_t stride) {
  const T* s = reinterpret_cast<const T*>(src);
  T* d = reinterpret_cast<T*>(dst);
  for (int64_t i = 0; i < n; ++i) std::memcpy(d + i * stride, s + i, sizeof(T));
}

void StoreRowAny(int es, const uint8_t* src, uint8_t* dst, int64_t n, int64_t stride) {
  if (stride == 1) {
    std::memmove(dst, src, static_cast<size_t>(n) * es);
    return;
  }
  switch (es) {
    case 1: return StoreRow<uint8_t>(src, dst, n, stride);
    case 2: return StoreRow<uint16_t>(src, dst, n, stride);
    case 4: return StoreRow<uint32_t>(src, dst, n, stride);
    case 8: return StoreRow<uint64_t>(src, dst, n, stride);
    case 16: return StoreRow<Bytes16>(src, dst, n, stride);
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * stride * es, src + i * es, es);
  }
}

}  // namespace

absl::StatusOr<OffsetCopyPlan> MakeSlicePlan(int elem_size, absl::Span<const int64_t> dims,
                                             absl::Span<const int64_t> starts,
                                             absl::Span<const int64_t> limits,
                                             absl::Span<const int64_t> strides) {
  const size_t rank = dims.size();
  if (starts.size() != rank || limits.size() != rank || strides.size() != rank) {
    return absl::InvalidArgumentError(absl::StrCat("slice has ", starts.size(), " starts, ",
                                                   limits.size(), " limits and ", strides.size(),
                                                   " strides for rank ", rank));
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(dims);
  std::vector<int64_t> out_dims(rank), src_strides(rank);
  OffsetCopyPlan plan;
  for (size_t k = 0; k < rank; ++k) {
    if (starts[k] < 0 || limits[k] < starts[k] || limits[k] > dims[k] || strides[k] <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("slice [", starts[k], ":", limits[k], ":",
                                                     strides[k], "] out of range for dimension ",
                                                     k, " of size ", dims[k]));
    }
    out_dims[k] = (limits[k] - starts[k] + strides[k] - 1) / strides[k];
    src_strides[k] = in_strides[k] * strides[k];
    plan.base += starts[k] * in_strides[k];
  }
  plan.copy = MakeStridedCopyPlan(elem_size, out_dims, src_strides);
  return plan;
}

void RunOffsetCopy(const OffsetCopyPlan& plan, const void* src, void* dst, int64_t row_begin,
                   int64_t row_end) {
  if (plan.copy.element_count == 0) return;
  RunStridedCopy(plan.copy, static_cast<const uint8_t*>(src) + plan.base * plan.copy.elem_size,
                 dst, row_begin, row_end);
}

StridedCopyPlan MakeStridedStorePlan(int elem_size, absl::Span<const int64_t> dims,
                                     absl::Span<const int64_t> dst_strides) {
  // Merging rules are symmetric: dimensions contiguous in both arrays merge.
  return MakeStridedCopyPlan(elem_size, dims, dst_strides);
}

void RunStridedStore(const StridedCopyPlan& plan, const void* src_v, void* dst_v,
                     int64_t row_begin, int64_t row_end) {
  const uint8_t* src = static_cast<const uint8_t*>(src_v);
  uint8_t* dst = static_cast<uint8_t*>(dst_v);
  if (plan.element_count == 0 || row_begin >= row_end) return;
  const int64_t rank = static_cast<int64_t>(plan.dims.size());
  const int64_t len = plan.row_length();
  const int64_t inner_stride = plan.src_strides.back();
  const int es = plan.elem_size;
  std::vector<int64_t> idx(rank > 1 ? rank - 1 : 1, 0);
  int64_t dst_offset = 0;
  int64_t r = row_begin;
  for (int64_t d = rank - 2; d >= 0; --d) {
    idx[d] = r % plan.dims[d];
    r /= plan.dims[d];
    dst_offset += idx[d] * plan.src_strides[d];
  }
  for (int64_t row = row_begin; row < row_end; ++row) {
    StoreRowAny(es, src + row * len * es, dst + dst_offset * es, len, inner_stride);
    for (int64_t d = rank - 2; d >= 0; --d) {
      ++idx[d];
      dst_offset += plan.src_strides[d];
      if (idx[d] < plan.dims[d]) break;
      dst_offset -= idx[d] * plan.src_strides[d];
      idx[d] = 0;
    }
  }
}

}  // namespace hlovm
