// The iteration that gather and scatter share: for every position of an
// index space (the "batch" positions), read an index vector from the indices
// array, turn it into the start of a window in an "indexed" array (gather's
// operand, scatter's result), and visit the window's elements alongside a
// "dense" array (gather's result, scatter's updates).
//
// Everything that depends on shapes and dimension numbers is computed once
// into an IndexWindowPlan; ForEachIndexedWindow / ForEachWindowRun are
// templates so the per-window and per-run work the caller supplies is
// inlined (no per-element indirect calls).
#ifndef HLOVM_OPS_INDEXING_INDEX_WINDOWS_H_
#define HLOVM_OPS_INDEXING_INDEX_WINDOWS_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/types/span.h"
#include "core/element_type.h"

namespace hlovm {

struct IndexWindowPlan {
  // All strides and offsets below count elements, not bytes, so that one
  // plan serves arrays of different element types (variadic scatter).
  ElementType index_type = ElementType::kS32;

  // Batch dimensions, outermost first: their sizes, the stride of each in
  // the indices array, in the dense array and in the indexed array (nonzero for batching dimensions, whose
  // coordinate is the window start along an indexed-array dimension).
  std::vector<int64_t> batch_size, batch_idx_stride, batch_dense_stride, batch_indexed_stride;
  int64_t batch_count = 0;

  // Index vector components: element offset within the index vector, the
  // largest valid start (indexed dim size - window size; negative: never
  // valid), and the stride in the indexed array.
  std::vector<int64_t> comp_idx_offset, comp_max, comp_indexed_stride;
  // true: clamp starts into [0, max] (gather). false: skip windows whose
  // start is outside [0, max] (scatter).
  bool clamp = true;

  // Window loop, outermost first, after dropping size-1 dimensions and
  // merging contiguous ones; the innermost contiguous run (`run` elements,
  // equal strides of one element in both arrays) is not in the loop.
  std::vector<int64_t> win_size, win_indexed_stride, win_dense_stride;
  int64_t run = 1;
  int64_t window_elems = 0;  // elements per window
};

// Describes one window dimension before merging.
struct WindowDim {
  int64_t size;
  int64_t indexed_stride;
  int64_t dense_stride;
};

// Fills plan->win_* and plan->run from `dims` (outermost first).
void SetWindowLoop(std::vector<WindowDim> dims, IndexWindowPlan* plan);

// Drops batch dimensions of size 1 and merges a batch dimension into the one
// outside it when every stride allows (positions keep their order).
void SimplifyBatchLoop(IndexWindowPlan* plan);

// Helpers for reading dimension numbers while building plans.
namespace dimension_lists {

inline bool Contains(absl::Span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Position of `x` in `v`, or -1.
inline int64_t IndexOf(absl::Span<const int64_t> v, int64_t x) {
  auto it = std::find(v.begin(), v.end(), x);
  return it == v.end() ? -1 : static_cast<int64_t>(it - v.begin());
}

// True when every entry of `v` is a dimension number below `rank`.
inline bool AllInRange(absl::Span<const int64_t> v, int64_t rank) {
  for (int64_t x : v) {
    if (x < 0 || x >= rank) return false;
  }
  return true;
}

}  // namespace dimension_lists

// Row-major element strides of `dims`.
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims);

namespace index_windows_internal {

template <typename T>
struct PlainReader {
  static int64_t Read(const uint8_t* p, int64_t i) {
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof(T));
    if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
      return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                 ? std::numeric_limits<int64_t>::max()
                 : static_cast<int64_t>(v);
    } else {
      return static_cast<int64_t>(v);
    }
  }
};

// Sub-byte integers, one per byte in the low `Bits` bits.
template <int Bits, bool Signed>
struct SubByteReader {
  static int64_t Read(const uint8_t* p, int64_t i) {
    const uint8_t b = p[i] & ((1u << Bits) - 1);
    if (Signed && (b >> (Bits - 1)) != 0) return static_cast<int64_t>(b) - (int64_t{1} << Bits);
    return b;
  }
};

// One batch dimension (or none) and `kComps` index components (0: any
// number): the common case, kept short so that many positions (and their
// memory accesses) are in flight at once.
template <typename Reader, int kComps, typename Fn>
void ForEachIndexedWindowFlat(const IndexWindowPlan& p, const uint8_t* indices, int64_t begin,
                              int64_t end, Fn& fn) {
  const bool has_batch = !p.batch_size.empty();
  const int64_t bis = has_batch ? p.batch_idx_stride[0] : 0;
  const int64_t bds = has_batch ? p.batch_dense_stride[0] : 0;
  const int64_t bxs = has_batch ? p.batch_indexed_stride[0] : 0;
  const int nc = kComps > 0 ? kComps : static_cast<int>(p.comp_idx_offset.size());
  const int64_t* coff = p.comp_idx_offset.data();
  const int64_t* cmax = p.comp_max.data();
  const int64_t* cstride = p.comp_indexed_stride.data();
  const bool clamp = p.clamp;
  for (int64_t pos = begin; pos < end; ++pos) {
    const int64_t idx_off = pos * bis;
    int64_t start = pos * bxs;
    bool valid = true;
    for (int k = 0; k < nc; ++k) {
      int64_t v = Reader::Read(indices, idx_off + coff[k]);
      const int64_t max = cmax[k];
      if (clamp) {
        v = v < 0 ? 0 : (v > max ? max : v);
      } else if (v < 0 || v > max) {
        valid = false;
        break;
      }
      start += v * cstride[k];
    }
    if (valid) fn(start, pos * bds);
  }
}

template <typename Reader, typename Fn>
void ForEachIndexedWindowT(const IndexWindowPlan& p, const uint8_t* indices, int64_t begin,
                           int64_t end, Fn& fn) {
  const int nb = static_cast<int>(p.batch_size.size());
  const int nc = static_cast<int>(p.comp_idx_offset.size());
  if (nb <= 1) {
    if (nc == 1) return ForEachIndexedWindowFlat<Reader, 1>(p, indices, begin, end, fn);
    return ForEachIndexedWindowFlat<Reader, 0>(p, indices, begin, end, fn);
  }
  // Unravel `begin` into coordinates and offsets.
  std::vector<int64_t> coord(nb, 0);
  int64_t idx_off = 0, dense_off = 0, indexed_off = 0;
  {
    int64_t rest = begin;
    for (int j = nb - 1; j >= 0; --j) {
      const int64_t c = rest % p.batch_size[j];
      rest /= p.batch_size[j];
      coord[j] = c;
      idx_off += c * p.batch_idx_stride[j];
      dense_off += c * p.batch_dense_stride[j];
      indexed_off += c * p.batch_indexed_stride[j];
    }
  }
  for (int64_t pos = begin; pos < end; ++pos) {
    int64_t start = indexed_off;
    bool valid = true;
    for (int k = 0; k < nc; ++k) {
      int64_t v = Reader::Read(indices, idx_off + p.comp_idx_offset[k]);
      const int64_t max = p.comp_max[k];
      if (p.clamp) {
        v = std::min(std::max<int64_t>(v, 0), max);
      } else if (v < 0 || v > max) {
        valid = false;
        break;
      }
      start += v * p.comp_indexed_stride[k];
    }
    if (valid) fn(start, dense_off);
    // Advance the odometer.
    for (int j = nb - 1; j >= 0; --j) {
      idx_off += p.batch_idx_stride[j];
      dense_off += p.batch_dense_stride[j];
      indexed_off += p.batch_indexed_stride[j];
      if (++coord[j] < p.batch_size[j]) break;
      idx_off -= coord[j] * p.batch_idx_stride[j];
      dense_off -= coord[j] * p.batch_dense_stride[j];
      indexed_off -= coord[j] * p.batch_indexed_stride[j];
      coord[j] = 0;
    }
  }
}

}  // namespace index_windows_internal

// Calls fn(indexed_offset, dense_offset) (in elements) for every batch position
// in [begin, end) whose window is valid (every one when clamping), in
// row-major order of the batch space.
// Reads the whole indices array of `p` (every element an index vector of the
// batch space can touch) as int64 values, the way the index type's reader
// gives them (u64 beyond INT64_MAX saturates; s2/s4 sign-extend).
std::vector<int64_t> WidenIndices(const IndexWindowPlan& p, const uint8_t* indices);

// Calls fn(indexed_offset, dense_offset) (in elements) for every batch position
// in [begin, end) whose window is valid (every one when clamping), in
// row-major order of the batch space. s32 and s64 indices are read in place;
// the other index types are widened to s64 first, so each caller's loop is
// instantiated for two readers only (this keeps compile times down).
template <typename Fn>
void ForEachIndexedWindow(const IndexWindowPlan& p, const uint8_t* indices, int64_t begin,
                          int64_t end, Fn&& fn) {
  using namespace index_windows_internal;  // NOLINT
  if (begin >= end) return;
  switch (p.index_type) {
    case ElementType::kS32:
      return ForEachIndexedWindowT<PlainReader<int32_t>>(p, indices, begin, end, fn);
    case ElementType::kS64:
      return ForEachIndexedWindowT<PlainReader<int64_t>>(p, indices, begin, end, fn);
    default: {
      const std::vector<int64_t> wide = WidenIndices(p, indices);
      return ForEachIndexedWindowT<PlainReader<int64_t>>(
          p, reinterpret_cast<const uint8_t*>(wide.data()), begin, end, fn);
    }
  }
}

// True for the index element types ForEachIndexedWindow reads.
bool IsSupportedIndexType(ElementType type);

// Calls fn(indexed_offset, dense_offset, run_elements) for every
// contiguous run of the window that starts at the given offsets, in
// row-major order of the window. Windows rows [row_begin, row_end) only
// (rows: positions of the window loop, win_size's product).
template <typename Fn>
void ForEachWindowRun(const IndexWindowPlan& p, int64_t indexed_off, int64_t dense_off,
                      int64_t row_begin, int64_t row_end, Fn&& fn) {
  const int nw = static_cast<int>(p.win_size.size());
  if (nw == 0) {
    if (row_begin < row_end) fn(indexed_off, dense_off, p.run);
    return;
  }
  if (nw == 1) {
    const int64_t is = p.win_indexed_stride[0], ds = p.win_dense_stride[0];
    for (int64_t r = row_begin; r < row_end; ++r) fn(indexed_off + r * is, dense_off + r * ds, p.run);
    return;
  }
  int64_t coord[16];
  std::vector<int64_t> big;
  int64_t* c = coord;
  if (nw > 16) {
    big.assign(nw, 0);
    c = big.data();
  }
  int64_t rest = row_begin;
  for (int j = nw - 1; j >= 0; --j) {
    c[j] = rest % p.win_size[j];
    rest /= p.win_size[j];
    indexed_off += c[j] * p.win_indexed_stride[j];
    dense_off += c[j] * p.win_dense_stride[j];
  }
  for (int64_t r = row_begin; r < row_end; ++r) {
    fn(indexed_off, dense_off, p.run);
    for (int j = nw - 1; j >= 0; --j) {
      indexed_off += p.win_indexed_stride[j];
      dense_off += p.win_dense_stride[j];
      if (++c[j] < p.win_size[j]) break;
      indexed_off -= c[j] * p.win_indexed_stride[j];
      dense_off -= c[j] * p.win_dense_stride[j];
      c[j] = 0;
    }
  }
}

// Rows of the window loop (the product of win_size; 1 when empty).
inline int64_t WindowRows(const IndexWindowPlan& p) {
  int64_t rows = 1;
  for (int64_t s : p.win_size) rows *= s;
  return rows;
}

}  // namespace hlovm

#endif  // HLOVM_OPS_INDEXING_INDEX_WINDOWS_H_
