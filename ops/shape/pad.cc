#include "ops/shape/pad.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "ops/shape/strided_copy.h"

namespace hlovm {
namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

template <typename T>
void FillT(uint8_t* dst, const void* value, int64_t n) {
  T v;
  std::memcpy(&v, value, sizeof(T));
  T* d = reinterpret_cast<T*>(dst);
  for (int64_t i = 0; i < n; ++i) d[i] = v;
}

void Fill(int es, uint8_t* dst, const void* value, int64_t n) {
  if (n <= 0) return;
  switch (es) {
    case 1: std::memset(dst, *static_cast<const uint8_t*>(value), n); return;
    case 2: return FillT<uint16_t>(dst, value, n);
    case 4: return FillT<uint32_t>(dst, value, n);
    case 8: return FillT<uint64_t>(dst, value, n);
    case 16: return FillT<Bytes16>(dst, value, n);
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * es, value, es);
  }
}

template <typename T>
void SpreadT(const uint8_t* src, uint8_t* dst, int64_t n, int64_t step) {
  const T* s = reinterpret_cast<const T*>(src);
  T* d = reinterpret_cast<T*>(dst);
  for (int64_t i = 0; i < n; ++i) std::memcpy(d + i * step, s + i, sizeof(T));
}

// dst[i * step] = src[i] for i < n.
void Spread(int es, const uint8_t* src, uint8_t* dst, int64_t n, int64_t step) {
  if (step == 1) {
    std::memcpy(dst, src, n * es);
    return;
  }
  switch (es) {
    case 1: return SpreadT<uint8_t>(src, dst, n, step);
    case 2: return SpreadT<uint16_t>(src, dst, n, step);
    case 4: return SpreadT<uint32_t>(src, dst, n, step);
    case 8: return SpreadT<uint64_t>(src, dst, n, step);
    case 16: return SpreadT<Bytes16>(src, dst, n, step);
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * step * es, src + i * es, es);
  }
}

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace

int64_t PadPlan::rows() const {
  if (out_count == 0) return 0;
  return out_dims.empty() ? 1 : out_count / out_dims.back();
}

int64_t PadPlan::row_length() const { return out_dims.empty() ? 1 : out_dims.back(); }

absl::StatusOr<PadPlan> MakePadPlan(int elem_size, absl::Span<const int64_t> in_dims,
                                    const PaddingConfig& padding) {
  const size_t rank = in_dims.size();
  if (padding.size() != rank) {
    return absl::InvalidArgumentError(absl::StrCat("pad has ", padding.size(),
                                                   " padding dimensions for rank ", rank));
  }
  PadPlan plan;
  plan.elem_size = elem_size;
  plan.in_dims.assign(in_dims.begin(), in_dims.end());
  plan.in_strides = RowMajorStrides(in_dims);
  plan.out_count = 1;
  for (size_t d = 0; d < rank; ++d) {
    const PaddingDimension& p = padding[d];
    if (p.interior < 0) {
      return absl::InvalidArgumentError(absl::StrCat("negative interior padding ", p.interior));
    }
    const int64_t n = in_dims[d];
    const int64_t spread = n == 0 ? 0 : n + (n - 1) * p.interior;
    const int64_t out = p.low + spread + p.high;
    if (out < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("pad leaves dimension ", d, " with negative size ", out));
    }
    plan.out_dims.push_back(out);
    plan.low.push_back(p.low);
    plan.step.push_back(p.interior + 1);
    plan.out_count *= out;
  }
  if (rank > 0) {
    const int64_t low = plan.low.back(), step = plan.step.back();
    const int64_t out = plan.out_dims.back(), n = in_dims.back();
    // Operand elements i with 0 <= low + i * step < out.
    plan.first = low >= 0 ? 0 : FloorDiv(-low + step - 1, step);
    plan.last = out == 0 ? 0 : std::min(n, FloorDiv(out - 1 - low, step) + 1);
    if (plan.last < plan.first) plan.last = plan.first;
  }
  return plan;
}

void RunPad(const PadPlan& plan, const void* src_v, const void* value, void* dst_v,
            int64_t row_begin, int64_t row_end) {
  const uint8_t* src = static_cast<const uint8_t*>(src_v);
  uint8_t* dst = static_cast<uint8_t*>(dst_v);
  const int es = plan.elem_size;
  const int64_t rank = static_cast<int64_t>(plan.out_dims.size());
  if (rank == 0) {
    if (row_begin < row_end) std::memcpy(dst, src, es);
    return;
  }
  const int64_t len = plan.row_length();
  const int64_t low = plan.low.back(), step = plan.step.back();
  const int64_t count = plan.last - plan.first;
  for (int64_t row = row_begin; row < row_end; ++row) {
    uint8_t* out = dst + row * len * es;
    // Which operand row (if any) this result row shows.
    int64_t r = row;
    int64_t src_off = 0;
    bool inside = count > 0;
    for (int64_t d = rank - 2; d >= 0 && inside; --d) {
      const int64_t o = r % plan.out_dims[d];
      r /= plan.out_dims[d];
      const int64_t t = o - plan.low[d];
      if (t < 0 || t % plan.step[d] != 0 || t / plan.step[d] >= plan.in_dims[d]) {
        inside = false;
        break;
      }
      src_off += (t / plan.step[d]) * plan.in_strides[d];
    }
    if (!inside) {
      Fill(es, out, value, len);
      continue;
    }
    const int64_t begin = low + plan.first * step;           // first written position
    const int64_t end = low + (plan.last - 1) * step + 1;    // one past the last
    Fill(es, out, value, begin);
    if (step > 1) Fill(es, out + begin * es, value, end - begin);
    Spread(es, src + (src_off + plan.first) * es, out + begin * es, count, step);
    Fill(es, out + end * es, value, len - end);
  }
}

}  // namespace hlovm
