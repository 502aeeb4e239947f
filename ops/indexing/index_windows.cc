#include "ops/indexing/index_windows.h"

namespace hlovm {

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

void SetWindowLoop(std::vector<WindowDim> dims, IndexWindowPlan* plan) {
  plan->win_size.clear();
  plan->win_indexed_stride.clear();
  plan->win_dense_stride.clear();
  plan->run = 1;
  int64_t elems = 1;
  for (const WindowDim& d : dims) elems *= d.size;
  plan->window_elems = elems;
  if (elems == 0) return;
  // Drop size-1 dimensions, then merge a dimension into the one outside it
  // when both arrays step over it contiguously.
  std::vector<WindowDim> kept;
  for (const WindowDim& d : dims) {
    if (d.size == 1) continue;
    if (!kept.empty()) {
      WindowDim& outer = kept.back();
      if (outer.indexed_stride == d.indexed_stride * d.size &&
          outer.dense_stride == d.dense_stride * d.size) {
        outer.size *= d.size;
        outer.indexed_stride = d.indexed_stride;
        outer.dense_stride = d.dense_stride;
        continue;
      }
    }
    kept.push_back(d);
  }
  if (!kept.empty() && kept.back().indexed_stride == 1 &&
      kept.back().dense_stride == 1) {
    plan->run = kept.back().size;
    kept.pop_back();
  }
  for (const WindowDim& d : kept) {
    plan->win_size.push_back(d.size);
    plan->win_indexed_stride.push_back(d.indexed_stride);
    plan->win_dense_stride.push_back(d.dense_stride);
  }
}

bool IsSupportedIndexType(ElementType type) {
  switch (type) {
    case ElementType::kS8:
    case ElementType::kS16:
    case ElementType::kS32:
    case ElementType::kS64:
    case ElementType::kU8:
    case ElementType::kU16:
    case ElementType::kU32:
    case ElementType::kU64:
    case ElementType::kS2:
    case ElementType::kS4:
    case ElementType::kU2:
    case ElementType::kU4:
      return true;
    default:
      return false;
  }
}

}  // namespace hlovm
