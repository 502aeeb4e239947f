#include "ops/indexing/scatter.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace hlovm {
namespace {

using dimension_lists::AllInRange;
using dimension_lists::Contains;
using dimension_lists::IndexOf;

}  // namespace

absl::StatusOr<ScatterPlan> MakeScatterPlan(const Shape& operand, const Shape& scatter_indices,
                                            const Shape& updates,
                                            const ScatterDimensionNumbers& d) {
  if (!operand.IsArray() || !scatter_indices.IsArray() || !updates.IsArray()) {
    return absl::InvalidArgumentError("scatter operands must be arrays");
  }
  if (!IsSupportedIndexType(scatter_indices.element_type())) {
    return absl::InvalidArgumentError(absl::StrCat("scatter indices must be integers, got ",
                                                   scatter_indices.ToString()));
  }
  const int64_t op_rank = operand.rank();
  const int64_t idx_rank = scatter_indices.rank();
  const int64_t upd_rank = updates.rank();
  if (d.index_vector_dim < 0 || d.index_vector_dim > idx_rank ||
      !AllInRange(d.update_window_dims, upd_rank) ||
      !AllInRange(d.inserted_window_dims, op_rank) ||
      !AllInRange(d.scatter_dims_to_operand_dims, op_rank) ||
      !AllInRange(d.input_batching_dims, op_rank) ||
      !AllInRange(d.scatter_indices_batching_dims, idx_rank) ||
      d.input_batching_dims.size() != d.scatter_indices_batching_dims.size()) {
    return absl::InvalidArgumentError("scatter dimension numbers do not match the shapes");
  }
  const int64_t batch_rank = upd_rank - static_cast<int64_t>(d.update_window_dims.size());
  const int64_t idx_batch_rank = idx_rank - (d.index_vector_dim < idx_rank ? 1 : 0);
  if (batch_rank != idx_batch_rank) {
    return absl::InvalidArgumentError("scatter updates rank does not match the indices");
  }
  const int64_t vec_size =
      d.index_vector_dim < idx_rank ? scatter_indices.dimensions(d.index_vector_dim) : 1;
  if (static_cast<int64_t>(d.scatter_dims_to_operand_dims.size()) != vec_size) {
    return absl::InvalidArgumentError(
        "scatter_dims_to_operand_dims does not match the index vector");
  }
  const std::vector<int64_t> op_dims(operand.dimensions().begin(), operand.dimensions().end());
  const std::vector<int64_t> idx_dims(scatter_indices.dimensions().begin(),
                                      scatter_indices.dimensions().end());
  const std::vector<int64_t> upd_dims(updates.dimensions().begin(), updates.dimensions().end());
  const std::vector<int64_t> op_stride = RowMajorStrides(op_dims);
  const std::vector<int64_t> idx_stride = RowMajorStrides(idx_dims);
  const std::vector<int64_t> upd_stride = RowMajorStrides(upd_dims);

  ScatterPlan plan;
  IndexWindowPlan& p = plan.windows;
  p.index_type = scatter_indices.element_type();
  p.clamp = false;
  p.batch_count = 1;
  int64_t idx_dim = 0;
  for (int64_t ud = 0; ud < upd_rank; ++ud) {
    if (Contains(d.update_window_dims, ud)) continue;
    if (idx_dim == d.index_vector_dim) ++idx_dim;
    if (idx_dims[idx_dim] != upd_dims[ud]) {
      return absl::InvalidArgumentError("scatter updates do not match the indices");
    }
    p.batch_size.push_back(upd_dims[ud]);
    p.batch_idx_stride.push_back(idx_stride[idx_dim]);
    p.batch_dense_stride.push_back(upd_stride[ud]);
    const int64_t bi = IndexOf(d.scatter_indices_batching_dims, idx_dim);
    p.batch_indexed_stride.push_back(bi < 0 ? 0 : op_stride[d.input_batching_dims[bi]]);
    p.batch_count *= upd_dims[ud];
    ++idx_dim;
  }
  // Window dimensions: operand dimensions that are neither inserted nor
  // batching, matched in order with update_window_dims.
  std::vector<int64_t> window_size(op_rank, 1);
  std::vector<WindowDim> window;
  size_t wi = 0;
  for (int64_t dim = 0; dim < op_rank; ++dim) {
    if (Contains(d.inserted_window_dims, dim) || Contains(d.input_batching_dims, dim)) continue;
    if (wi >= d.update_window_dims.size()) {
      return absl::InvalidArgumentError("scatter update_window_dims do not match the operand");
    }
    const int64_t ud = d.update_window_dims[wi++];
    if (upd_dims[ud] > op_dims[dim]) {
      return absl::InvalidArgumentError("scatter update window exceeds the operand");
    }
    window_size[dim] = upd_dims[ud];
    window.push_back(WindowDim{upd_dims[ud], op_stride[dim], upd_stride[ud]});
  }
  if (wi != d.update_window_dims.size()) {
    return absl::InvalidArgumentError("scatter update_window_dims do not match the operand");
  }
  for (int64_t k = 0; k < vec_size; ++k) {
    const int64_t dim = d.scatter_dims_to_operand_dims[k];
    p.comp_idx_offset.push_back(d.index_vector_dim < idx_rank ? k * idx_stride[d.index_vector_dim]
                                                              : 0);
    p.comp_max.push_back(op_dims[dim] - window_size[dim]);
    p.comp_indexed_stride.push_back(op_stride[dim]);
  }
  SetWindowLoop(std::move(window), &p);
  SimplifyBatchLoop(&p);
  return plan;
}

void RunScatterAssign(const ScatterPlan& plan, absl::Span<const int> elem_size,
                      uint8_t* const* results, const uint8_t* scatter_indices,
                      const uint8_t* const* updates) {
  const IndexWindowPlan& p = plan.windows;
  if (p.window_elems == 0) return;
  const int64_t rows = WindowRows(p);
  ForEachIndexedWindow(p, scatter_indices, 0, p.batch_count, [&](int64_t dst, int64_t src) {
    ForEachWindowRun(p, dst, src, 0, rows, [&](int64_t r, int64_t u, int64_t n) {
      for (size_t i = 0; i < elem_size.size(); ++i) {
        const int64_t es = elem_size[i];
        std::memcpy(results[i] + r * es, updates[i] + u * es, n * es);
      }
    });
  });
}

void RunScatterBinary(const ScatterPlan& plan, int elem_size, BinaryKernel kernel,
                      uint8_t* result, const uint8_t* scatter_indices, const uint8_t* updates) {
  const IndexWindowPlan& p = plan.windows;
  if (p.window_elems == 0) return;
  const int64_t rows = WindowRows(p);
  const int64_t es = elem_size;
  ForEachIndexedWindow(p, scatter_indices, 0, p.batch_count, [&](int64_t dst, int64_t src) {
    ForEachWindowRun(p, dst, src, 0, rows, [&](int64_t r, int64_t u, int64_t n) {
      uint8_t* out = result + r * es;
      kernel(out, updates + u * es, out, n);
    });
  });
}

namespace {

struct AddOp {
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }
};
struct MulOp {
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      // Promote so that narrow types do not multiply as (signed) int.
      using U = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
      return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    } else {
      return a * b;
    }
  }
};
struct MaxOp {
  template <typename T>
  static T Apply(T a, T b) { return a < b ? b : a; }
};
struct MinOp {
  template <typename T>
  static T Apply(T a, T b) { return b < a ? b : a; }
};
struct AndOp {
  template <typename T>
  static T Apply(T a, T b) { return static_cast<T>(a & b); }
};
struct OrOp {
  template <typename T>
  static T Apply(T a, T b) { return static_cast<T>(a | b); }
};
struct XorOp {
  template <typename T>
  static T Apply(T a, T b) { return static_cast<T>(a ^ b); }
};

template <typename T, typename Op>
void RunScatterTyped(const ScatterPlan& plan, uint8_t* result, const uint8_t* scatter_indices,
                     const uint8_t* updates) {
  const IndexWindowPlan& p = plan.windows;
  if (p.window_elems == 0) return;
  T* out = reinterpret_cast<T*>(result);
  const T* upd = reinterpret_cast<const T*>(updates);
  const int64_t rows = WindowRows(p);
  if (p.win_size.empty()) {
    if (p.run == 1) {
      ForEachIndexedWindow(p, scatter_indices, 0, p.batch_count,
                           [&](int64_t r, int64_t u) { out[r] = Op::Apply(out[r], upd[u]); });
    } else {
      const int64_t n = p.run;
      ForEachIndexedWindow(p, scatter_indices, 0, p.batch_count, [&](int64_t r, int64_t u) {
        T* o = out + r;
        const T* v = upd + u;
        for (int64_t e = 0; e < n; ++e) o[e] = Op::Apply(o[e], v[e]);
      });
    }
    return;
  }
  ForEachIndexedWindow(p, scatter_indices, 0, p.batch_count, [&](int64_t dst, int64_t src) {
    ForEachWindowRun(p, dst, src, 0, rows, [&](int64_t r, int64_t u, int64_t n) {
      T* o = out + r;
      const T* v = upd + u;
      for (int64_t e = 0; e < n; ++e) o[e] = Op::Apply(o[e], v[e]);
    });
  });
}

template <typename Op>
ScatterTypedKernel ForType(ElementType type, bool floats) {
  switch (type) {
    case ElementType::kS8:
      return &RunScatterTyped<int8_t, Op>;
    case ElementType::kS16:
      return &RunScatterTyped<int16_t, Op>;
    case ElementType::kS32:
      return &RunScatterTyped<int32_t, Op>;
    case ElementType::kS64:
      return &RunScatterTyped<int64_t, Op>;
    case ElementType::kU8:
      return &RunScatterTyped<uint8_t, Op>;
    case ElementType::kU16:
      return &RunScatterTyped<uint16_t, Op>;
    case ElementType::kU32:
      return &RunScatterTyped<uint32_t, Op>;
    case ElementType::kU64:
      return &RunScatterTyped<uint64_t, Op>;
    case ElementType::kF32:
      if constexpr (std::is_same_v<Op, AddOp> || std::is_same_v<Op, MulOp>) {
        return floats ? &RunScatterTyped<float, Op> : nullptr;
      }
      return nullptr;
    case ElementType::kF64:
      if constexpr (std::is_same_v<Op, AddOp> || std::is_same_v<Op, MulOp>) {
        return floats ? &RunScatterTyped<double, Op> : nullptr;
      }
      return nullptr;
    default:
      return nullptr;
  }
}

}  // namespace

ScatterTypedKernel SelectScatterTypedKernel(HloOpcode opcode, ElementType type) {
  switch (opcode) {
    case HloOpcode::kAdd:
      return ForType<AddOp>(type, true);
    case HloOpcode::kMultiply:
      return ForType<MulOp>(type, true);
    case HloOpcode::kMaximum:
      return ForType<MaxOp>(type, false);
    case HloOpcode::kMinimum:
      return ForType<MinOp>(type, false);
    case HloOpcode::kAnd:
      return ForType<AndOp>(type, false);
    case HloOpcode::kOr:
      return ForType<OrOp>(type, false);
    case HloOpcode::kXor:
      return ForType<XorOp>(type, false);
    default:
      return nullptr;
  }
}

}  // namespace hlovm
