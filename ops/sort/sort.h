// Sort kernels: the row geometry of a sort along one dimension, the fast
// path for comparators that are a single LT/GT compare of one operand pair
// (keys mapped to order-preserving unsigned integers, then an LSD radix
// sort; 64-bit keys with an index use Highway's vqsort),
// and helpers the compiled-comparator path uses (index permutation sorts and
// gathers). All kernels are pure functions on row-major buffers.
#ifndef HLOVM_OPS_SORT_SORT_H_
#define HLOVM_OPS_SORT_SORT_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/element_type.h"
#include "core/hlo_ir.h"
#include "core/shape.h"

namespace hlovm {

// A row-major array seen as [outer, n, inner]: `outer * inner` independent
// rows of `n` elements, each strided by `inner`.
struct SortGeometry {
  int64_t outer = 1;
  int64_t n = 1;
  int64_t inner = 1;
  int64_t rows() const { return outer * inner; }
  // Element offset of element 0 of row r.
  int64_t RowBase(int64_t r) const { return (r / inner) * n * inner + r % inner; }
};
SortGeometry MakeSortGeometry(const Shape& shape, int64_t dimension);

// The fast path: the comparator is `compare(p_{2k}, p_{2k+1})` with LT or GT
// on operand k.
struct FastSortPlan {
  SortGeometry geometry;
  int key_operand = 0;
  bool descending = false;
  // FLOAT comparisons (ties between -0 and +0; rows with NaN take the
  // native-comparator fallback); otherwise total order for floats.
  bool float_compare = false;
  // Total order after folding -0 onto +0 and every NaN onto one NaN (the
  // comparator JAX emits for floats: canonicalise both sides, then LT/GT
  // with TOTALORDER).
  bool canonical = false;
  bool is_stable = false;
  ElementType key_type = ElementType::kF32;
  std::vector<int> elem_size;  // of every operand
};

// True when the fast path handles keys of `type` compared with `cmp_type`
// (LT/GT assumed).
bool FastSortSupports(ElementType type, ComparisonType cmp_type);

// Scratch memory reused across the rows one thread sorts.
struct SortScratch {
  std::vector<uint64_t> keys;
  std::vector<uint64_t> keys_hi;  // 64-bit keys: (hi = key, lo = index) pairs
  std::vector<uint32_t> perm;
  std::vector<uint8_t> bytes;
  std::vector<uint8_t> tmp;
};

// Sorts rows [row_begin, row_end) of the operands `in` into `out` (which may
// alias `in`).
void FastSortRows(const FastSortPlan& plan, const uint8_t* const* in, uint8_t* const* out,
                  int64_t row_begin, int64_t row_end, SortScratch& scratch);

// Writes row `r` of every operand permuted: out[j] = in[perm[j]] along the
// row (in and out must not alias).
void GatherRow(const SortGeometry& g, const std::vector<int>& elem_size, const uint8_t* const* in,
               uint8_t* const* out, int64_t r, const uint32_t* perm, int num_operands);

// Order-preserving unsigned image of one element (total order for floats:
// -NaN < -inf < ... < -0 < +0 < ... < inf < NaN; two's complement order for
// signed integers). `bits` holds the element zero-extended.
uint64_t TotalOrderKey(ElementType type, uint64_t bits);
// Loads element i of `data` (of `type`) zero-extended to 64 bits.
uint64_t LoadBits(ElementType type, const uint8_t* data, int64_t i);
// True when the element bits are a NaN of floating `type`.
bool IsNaNBits(ElementType type, uint64_t bits);
// True when the element bits are -0 or +0 of floating `type`.
bool IsZeroBits(ElementType type, uint64_t bits);

}  // namespace hlovm

#endif  // HLOVM_OPS_SORT_SORT_H_
