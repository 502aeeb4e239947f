#include "ops/indexing/index_windows.h"

namespace hlovm {
namespace {

template <typename Reader>
void WidenWith(const uint8_t* indices, int64_t count, int64_t* out) {
  for (int64_t i = 0; i < count; ++i) out[i] = Reader::Read(indices, i);
}

}  // namespace

std::vector<int64_t> WidenIndices(const IndexWindowPlan& p, const uint8_t* indices) {
  using namespace index_windows_internal;  // NOLINT
  if (p.batch_count == 0) return {};
  // The largest element offset any position reads, plus one.
  int64_t count = 1;
  for (size_t j = 0; j < p.batch_size.size(); ++j) {
    count += (p.batch_size[j] - 1) * p.batch_idx_stride[j];
  }
  int64_t max_comp = 0;
  for (int64_t off : p.comp_idx_offset) max_comp = std::max(max_comp, off);
  count += max_comp;
  std::vector<int64_t> wide(count);
  switch (p.index_type) {
    case ElementType::kS8: WidenWith<PlainReader<int8_t>>(indices, count, wide.data()); break;
    case ElementType::kS16: WidenWith<PlainReader<int16_t>>(indices, count, wide.data()); break;
    case ElementType::kS32: WidenWith<PlainReader<int32_t>>(indices, count, wide.data()); break;
    case ElementType::kS64: WidenWith<PlainReader<int64_t>>(indices, count, wide.data()); break;
    case ElementType::kU8: WidenWith<PlainReader<uint8_t>>(indices, count, wide.data()); break;
    case ElementType::kU16: WidenWith<PlainReader<uint16_t>>(indices, count, wide.data()); break;
    case ElementType::kU32: WidenWith<PlainReader<uint32_t>>(indices, count, wide.data()); break;
    case ElementType::kU64: WidenWith<PlainReader<uint64_t>>(indices, count, wide.data()); break;
    case ElementType::kS2: WidenWith<SubByteReader<2, true>>(indices, count, wide.data()); break;
    case ElementType::kS4: WidenWith<SubByteReader<4, true>>(indices, count, wide.data()); break;
    case ElementType::kU2: WidenWith<SubByteReader<2, false>>(indices, count, wide.data()); break;
    case ElementType::kU4: WidenWith<SubByteReader<4, false>>(indices, count, wide.data()); break;
    default: break;  // rejected when the plan is made
  }
  return wide;
}

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

void SimplifyBatchLoop(IndexWindowPlan* plan) {
  IndexWindowPlan& p = *plan;
  if (p.batch_count == 0) return;
  std::vector<int64_t> size, is, ds, xs;
  for (size_t j = 0; j < p.batch_size.size(); ++j) {
    if (p.batch_size[j] == 1) continue;
    if (!size.empty() && is.back() == p.batch_idx_stride[j] * p.batch_size[j] &&
        ds.back() == p.batch_dense_stride[j] * p.batch_size[j] &&
        xs.back() == p.batch_indexed_stride[j] * p.batch_size[j]) {
      size.back() *= p.batch_size[j];
      is.back() = p.batch_idx_stride[j];
      ds.back() = p.batch_dense_stride[j];
      xs.back() = p.batch_indexed_stride[j];
      continue;
    }
    size.push_back(p.batch_size[j]);
    is.push_back(p.batch_idx_stride[j]);
    ds.push_back(p.batch_dense_stride[j]);
    xs.push_back(p.batch_indexed_stride[j]);
  }
  p.batch_size = std::move(size);
  p.batch_idx_stride = std::move(is);
  p.batch_dense_stride = std::move(ds);
  p.batch_indexed_stride = std::move(xs);
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
