#include "ops/reduce/reduce_window.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "ops/common/float_minmax.h"

namespace hlovm {

absl::StatusOr<WindowGeometry> MakeWindowGeometry(absl::Span<const int64_t> in_dims,
                                                  absl::Span<const int64_t> out_dims,
                                                  const Window& window) {
  const int rank = static_cast<int>(in_dims.size());
  if (static_cast<int>(out_dims.size()) != rank || static_cast<int>(window.size()) != rank) {
    return absl::InvalidArgumentError("window rank does not match the operand");
  }
  WindowGeometry g;
  g.rank = rank;
  g.in_dims.assign(in_dims.begin(), in_dims.end());
  g.out_dims.assign(out_dims.begin(), out_dims.end());
  g.in_strides.assign(rank, 1);
  for (int d = rank - 2; d >= 0; --d) g.in_strides[d] = g.in_strides[d + 1] * in_dims[d + 1];
  g.out_count = 1;
  for (int d = 0; d < rank; ++d) {
    const WindowDimension& w = window[d];
    if (w.size < 0 || w.stride <= 0 || w.base_dilation <= 0 || w.window_dilation <= 0) {
      return absl::InvalidArgumentError("bad window dimension");
    }
    if (w.window_reversal) return absl::UnimplementedError("window reversal in a reduce window");
    g.size.push_back(w.size);
    g.stride.push_back(w.stride);
    g.pad_lo.push_back(w.padding_low);
    g.base_dilation.push_back(w.base_dilation);
    g.window_dilation.push_back(w.window_dilation);
    g.out_count *= out_dims[d];
    g.window_count *= w.size;
  }
  return g;
}

void WindowOffsets(const WindowGeometry& g, int64_t out_index, WindowScratch* s,
                   std::vector<int64_t>* offsets) {
  offsets->clear();
  const int rank = g.rank;
  s->per_dim.resize(rank);
  s->coords.assign(rank, 0);
  int64_t idx = out_index;
  for (int d = rank - 1; d >= 0; --d) {
    const int64_t o = idx % g.out_dims[d];
    idx /= g.out_dims[d];
    std::vector<int64_t>& v = s->per_dim[d];
    v.clear();
    for (int64_t w = 0; w < g.size[d]; ++w) {
      const int64_t p = o * g.stride[d] + w * g.window_dilation[d] - g.pad_lo[d];
      if (p < 0 || p % g.base_dilation[d] != 0) continue;
      const int64_t c = p / g.base_dilation[d];
      if (c >= g.in_dims[d]) continue;
      v.push_back(c * g.in_strides[d]);
    }
    if (v.empty()) return;
  }
  if (rank == 0) {
    offsets->push_back(0);
    return;
  }
  // Row-major product of the per-dimension lists.
  while (true) {
    int64_t off = 0;
    for (int d = 0; d < rank; ++d) off += s->per_dim[d][s->coords[d]];
    offsets->push_back(off);
    int d = rank - 1;
    for (; d >= 0; --d) {
      if (++s->coords[d] < static_cast<int64_t>(s->per_dim[d].size())) break;
      s->coords[d] = 0;
    }
    if (d < 0) break;
  }
}

std::optional<ScanGeometry> MatchCumulativeWindow(absl::Span<const int64_t> in_dims,
                                                  const Window& window) {
  const int rank = static_cast<int>(in_dims.size());
  if (static_cast<int>(window.size()) != rank) return std::nullopt;
  int axis = -1;
  for (int d = 0; d < rank; ++d) {
    const WindowDimension& w = window[d];
    if (w.stride != 1 || w.base_dilation != 1 || w.window_dilation != 1 || w.window_reversal ||
        w.padding_high != 0) {
      return std::nullopt;
    }
    if (w.size == 1 && w.padding_low == 0) continue;
    if (axis >= 0 || w.size != in_dims[d] || w.size < 2 || w.padding_low != w.size - 1) {
      return std::nullopt;
    }
    axis = d;
  }
  if (axis < 0) return std::nullopt;
  ScanGeometry s;
  for (int d = 0; d < axis; ++d) s.outer *= in_dims[d];
  s.n = in_dims[axis];
  for (int d = axis + 1; d < rank; ++d) s.inner *= in_dims[d];
  return s;
}

std::optional<WindowRowView> MatchWindowRows(const WindowGeometry& g) {
  if (g.rank > 8) return std::nullopt;
  int64_t row = 1;
  int d = g.rank;
  while (d > 0 && g.size[d - 1] == 1 && g.stride[d - 1] == 1 && g.pad_lo[d - 1] == 0 &&
         g.base_dilation[d - 1] == 1 && g.window_dilation[d - 1] == 1 &&
         g.in_dims[d - 1] == g.out_dims[d - 1]) {
    row *= g.in_dims[d - 1];
    --d;
  }
  if (d == g.rank || row < 8) return std::nullopt;
  WindowRowView w;
  w.lead = d;
  w.row = row;
  w.out_rows = g.out_count / row;
  return w;
}

namespace {

// Calls visit(input row) for each input row that output row q's window
// covers inside the operand, in row-major window order.
template <typename Visit>
void ForEachWindowRow(const WindowGeometry& g, const WindowRowView& w, int64_t q, Visit visit) {
  const int lead = w.lead;
  int64_t o[8], k[8];
  int64_t rest = q;
  for (int d = lead - 1; d >= 0; --d) {
    o[d] = rest % g.out_dims[d];
    rest /= g.out_dims[d];
  }
  std::fill(k, k + lead, 0);
  for (int64_t p = 0; p < g.window_count; ++p) {
    int64_t offset = 0;
    bool inside = true;
    for (int d = 0; d < lead && inside; ++d) {
      const int64_t x = o[d] * g.stride[d] + k[d] * g.window_dilation[d] - g.pad_lo[d];
      inside = x >= 0 && x % g.base_dilation[d] == 0 && x / g.base_dilation[d] < g.in_dims[d];
      offset += x / g.base_dilation[d] * g.in_strides[d];
    }
    if (inside) visit(offset / w.row);
    for (int d = lead - 1; d >= 0; --d) {
      if (++k[d] < g.size[d]) break;
      k[d] = 0;
    }
  }
}

}  // namespace

void FoldWindowRows(const WindowGeometry& g, const WindowRowView& w, int elem_size,
                    void (*op)(const void*, const void*, void*, int64_t), const uint8_t* in,
                    int64_t in_first, const uint8_t* init, uint8_t* out, int64_t begin,
                    int64_t end) {
  const int64_t row_bytes = w.row * elem_size;
  for (int64_t q = begin; q < end; ++q) {
    uint8_t* acc = out + q * row_bytes;
    for (int64_t i = 0; i < w.row; ++i) std::memcpy(acc + i * elem_size, init, elem_size);
    ForEachWindowRow(g, w, q, [&](int64_t r) {
      op(acc, in + (r - in_first) * row_bytes, acc, w.row);
    });
  }
}

void WindowRowSpan(const WindowGeometry& g, const WindowRowView& w, int64_t begin, int64_t end,
                   int64_t* first, int64_t* last) {
  *first = INT64_MAX;
  *last = -1;
  for (int64_t q = begin; q < end; ++q) {
    ForEachWindowRow(g, w, q, [&](int64_t r) {
      *first = std::min(*first, r);
      *last = std::max(*last, r);
    });
  }
}

//===----------------------------------------------------------------------===//
// Kernels: folds with a single-op reducer.
//===----------------------------------------------------------------------===//

namespace {

// Scalar single-op reducers on the common types, inlined into the window
// loops.
template <typename T, HloOpcode kOp>
inline T ApplyOp(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    if constexpr (kOp == HloOpcode::kAdd) return static_cast<T>(U(a) + U(b));
    if constexpr (kOp == HloOpcode::kMultiply) return static_cast<T>(U(a) * U(b));
    if constexpr (kOp == HloOpcode::kMaximum) return a > b ? a : b;
    if constexpr (kOp == HloOpcode::kMinimum) return a < b ? a : b;
  } else {
    if constexpr (kOp == HloOpcode::kAdd) return a + b;
    if constexpr (kOp == HloOpcode::kMultiply) return a * b;
    if constexpr (kOp == HloOpcode::kMaximum) return FloatMax(a, b);
    if constexpr (kOp == HloOpcode::kMinimum) return FloatMin(a, b);
  }
}

}  // namespace

void ScanRows(const ScanGeometry& s, int elem_size,
              void (*op)(const void*, const void*, void*, int64_t), const uint8_t* in,
              const uint8_t* init, uint8_t* out, int64_t line_begin, int64_t line_end) {
  const int64_t es = elem_size;
  std::vector<uint8_t> init_row(s.inner * es);
  for (int64_t i = 0; i < s.inner; ++i) std::memcpy(init_row.data() + i * es, init, es);
  for (int64_t o = line_begin; o < line_end; ++o) {
    const uint8_t* prev = init_row.data();
    for (int64_t j = 0; j < s.n; ++j) {
      const int64_t off = (o * s.n + j) * s.inner * es;
      op(prev, in + off, out + off, s.inner);
      prev = out + off;
    }
  }
}

namespace {

template <typename T, HloOpcode kOp>
void WindowTyped(const WindowGeometry& g, const uint8_t* in, const uint8_t* init, uint8_t* out,
                 int64_t begin, int64_t end) {
  const T* x = reinterpret_cast<const T*>(in);
  T* o = reinterpret_cast<T*>(out);
  T init_value;
  std::memcpy(&init_value, init, sizeof(T));
  WindowScratch scratch;
  std::vector<int64_t> offsets;
  for (int64_t q = begin; q < end; ++q) {
    WindowOffsets(g, q, &scratch, &offsets);
    T acc = init_value;
    for (int64_t off : offsets) acc = ApplyOp<T, kOp>(acc, x[off]);
    o[q] = acc;
  }
}

template <typename T>
WindowFoldKernel WindowTypedFor(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAdd: return &WindowTyped<T, HloOpcode::kAdd>;
    case HloOpcode::kMultiply: return &WindowTyped<T, HloOpcode::kMultiply>;
    case HloOpcode::kMaximum: return &WindowTyped<T, HloOpcode::kMaximum>;
    case HloOpcode::kMinimum: return &WindowTyped<T, HloOpcode::kMinimum>;
    default: return nullptr;
  }
}

}  // namespace

WindowFoldKernel SelectWindowFoldKernel(HloOpcode op, ElementType type) {
  switch (type) {
    case ElementType::kF32: return WindowTypedFor<float>(op);
    case ElementType::kF64: return WindowTypedFor<double>(op);
    case ElementType::kS32: return WindowTypedFor<int32_t>(op);
    case ElementType::kS64: return WindowTypedFor<int64_t>(op);
    default: return nullptr;
  }
}

namespace {

template <typename T>
inline bool CompareTyped(ComparisonDirection dir, T a, T b) {
  switch (dir) {
    case ComparisonDirection::kGe: return a >= b;
    case ComparisonDirection::kGt: return a > b;
    case ComparisonDirection::kLe: return a <= b;
    case ComparisonDirection::kLt: return a < b;
    case ComparisonDirection::kEq: return a == b;
    case ComparisonDirection::kNe: return a != b;
  }
  return false;
}

template <typename T>
void SelectScatterAddTyped(const WindowGeometry& g, ComparisonDirection direction,
                           const uint8_t* operand_bytes, const uint8_t* source_bytes,
                           uint8_t* out_bytes) {
  const T* operand = reinterpret_cast<const T*>(operand_bytes);
  const T* source = reinterpret_cast<const T*>(source_bytes);
  T* out = reinterpret_cast<T*>(out_bytes);
  WindowScratch scratch;
  std::vector<int64_t> offsets;
  for (int64_t q = 0; q < g.out_count; ++q) {
    WindowOffsets(g, q, &scratch, &offsets);
    if (offsets.empty()) continue;
    int64_t sel = offsets[0];
    for (size_t k = 1; k < offsets.size(); ++k) {
      if (!CompareTyped(direction, operand[sel], operand[offsets[k]])) sel = offsets[k];
    }
    out[sel] = ApplyOp<T, HloOpcode::kAdd>(out[sel], source[q]);
  }
}

}  // namespace

SelectAndScatterAddKernel SelectSelectAndScatterAddKernel(ElementType type) {
  switch (type) {
    case ElementType::kF32: return &SelectScatterAddTyped<float>;
    case ElementType::kF64: return &SelectScatterAddTyped<double>;
    case ElementType::kS32: return &SelectScatterAddTyped<int32_t>;
    case ElementType::kS64: return &SelectScatterAddTyped<int64_t>;
    default: return nullptr;
  }
}

}  // namespace hlovm
