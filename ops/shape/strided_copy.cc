#include "ops/shape/strided_copy.h"

#include <cstring>

namespace hlovm {
namespace {

template <typename T>
void CopyRow(const uint8_t* src, uint8_t* dst, int64_t n, int64_t stride) {
  const T* s = reinterpret_cast<const T*>(src);
  T* d = reinterpret_cast<T*>(dst);
  if (stride == 0) {
    T v;
    std::memcpy(&v, s, sizeof(T));
    for (int64_t i = 0; i < n; ++i) std::memcpy(d + i, &v, sizeof(T));
  } else {
    for (int64_t i = 0; i < n; ++i) std::memcpy(d + i, s + i * stride, sizeof(T));
  }
}

struct Bytes16 {
  uint8_t b[16];
};

void CopyRowAny(int elem_size, const uint8_t* src, uint8_t* dst, int64_t n, int64_t stride) {
  if (stride == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n) * elem_size);
    return;
  }
  switch (elem_size) {
    case 1: return CopyRow<uint8_t>(src, dst, n, stride);
    case 2: return CopyRow<uint16_t>(src, dst, n, stride);
    case 4: return CopyRow<uint32_t>(src, dst, n, stride);
    case 8: return CopyRow<uint64_t>(src, dst, n, stride);
    case 16: return CopyRow<Bytes16>(src, dst, n, stride);
    default:
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(dst + i * elem_size, src + i * stride * elem_size, elem_size);
      }
  }
}

}  // namespace

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size());
  int64_t s = 1;
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i) {
    strides[i] = s;
    s *= dims[i];
  }
  return strides;
}

StridedCopyPlan MakeStridedCopyPlan(int elem_size, absl::Span<const int64_t> dims,
                                    absl::Span<const int64_t> src_strides) {
  StridedCopyPlan plan;
  plan.elem_size = elem_size;
  plan.element_count = 1;
  for (int64_t d : dims) plan.element_count *= d;
  if (plan.element_count == 0) {
    plan.dims = {0};
    plan.src_strides = {1};
    return plan;
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1) continue;
    // Merge with the previous kept dimension when the source is contiguous
    // across both (the destination always is).
    if (!plan.dims.empty() && plan.src_strides.back() == src_strides[i] * dims[i]) {
      plan.dims.back() *= dims[i];
      plan.src_strides.back() = src_strides[i];
      continue;
    }
    plan.dims.push_back(dims[i]);
    plan.src_strides.push_back(src_strides[i]);
  }
  if (plan.dims.empty()) {
    plan.dims = {1};
    plan.src_strides = {1};
  }
  return plan;
}

void RunStridedCopy(const StridedCopyPlan& plan, const void* src_v, void* dst_v, int64_t row_begin,
                    int64_t row_end) {
  const uint8_t* src = static_cast<const uint8_t*>(src_v);
  uint8_t* dst = static_cast<uint8_t*>(dst_v);
  const int64_t rank = static_cast<int64_t>(plan.dims.size());
  const int64_t len = plan.row_length();
  const int64_t inner_stride = plan.src_strides.back();
  const int es = plan.elem_size;
  if (plan.element_count == 0) return;
  // Multi-index of row `row_begin` over dims [0, rank-1), all set below (not
  // zeroed first: that costs more than a small copy itself).
  int64_t index[16];
  std::vector<int64_t> big_index;
  int64_t* idx = index;
  if (rank > 16) {
    big_index.assign(rank, 0);
    idx = big_index.data();
  }
  int64_t src_offset = 0;
  {
    int64_t r = row_begin;
    for (int64_t d = rank - 2; d >= 0; --d) {
      idx[d] = r % plan.dims[d];
      r /= plan.dims[d];
      src_offset += idx[d] * plan.src_strides[d];
    }
  }
  for (int64_t row = row_begin; row < row_end; ++row) {
    CopyRowAny(es, src + src_offset * es, dst + row * len * es, len, inner_stride);
    // Advance the multi-index by one row.
    for (int64_t d = rank - 2; d >= 0; --d) {
      ++idx[d];
      src_offset += plan.src_strides[d];
      if (idx[d] < plan.dims[d]) break;
      src_offset -= idx[d] * plan.src_strides[d];
      idx[d] = 0;
    }
  }
}

StridedCopyPlan MakeToRowMajorPlan(int elem_size, absl::Span<const int64_t> dims,
                                   absl::Span<const int64_t> minor_to_major) {
  // Element stride of each logical dimension in the stored order.
  std::vector<int64_t> strides(dims.size(), 0);
  int64_t s = 1;
  for (int64_t d : minor_to_major) {
    strides[d] = s;
    s *= dims[d];
  }
  return MakeStridedCopyPlan(elem_size, dims, strides);
}

StridedCopyPlan MakeFromRowMajorPlan(int elem_size, absl::Span<const int64_t> dims,
                                     absl::Span<const int64_t> minor_to_major) {
  // The destination, in storage order, is a row-major array whose dimensions
  // are the logical ones from most major to most minor.
  std::vector<int64_t> rm = RowMajorStrides(dims);
  std::vector<int64_t> pdims, pstrides;
  for (auto it = minor_to_major.rbegin(); it != minor_to_major.rend(); ++it) {
    pdims.push_back(dims[*it]);
    pstrides.push_back(rm[*it]);
  }
  return MakeStridedCopyPlan(elem_size, pdims, pstrides);
}

}  // namespace hlovm
