// Reduce kernels over row-major buffers. A reduction is first brought to a
// canonical form (adjacent operand dimensions of the same kind merged): either
// the innermost dimension is kept ("rows": every output row folds whole input
// rows with an elementwise kernel, element by element in XLA's serial order)
// or it is reduced ("runs": each output element folds contiguous runs).
// Single-op reducers over the common types fold runs with vectorised kernels;
// everything else folds through a BinaryKernel or a compiled computation
// called by the VM.
#ifndef HLOVM_OPS_REDUCE_REDUCE_H_
#define HLOVM_OPS_REDUCE_REDUCE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/element_type.h"
#include "core/hlo_opcode.h"
#include "ops/elementwise/elementwise.h"

namespace hlovm {

struct ReduceGeometry {
  // Kept dimensions in output order (merged), with operand strides in
  // elements. `rows`: the innermost kept group is excluded (it is `inner`).
  std::vector<int64_t> kept_sizes, kept_strides;
  // Reduced dimensions in operand order (merged). `runs`: the innermost
  // reduced group is excluded (it is `inner`).
  std::vector<int64_t> red_sizes, red_strides;
  bool runs = false;
  int64_t inner = 1;      // contiguous length of the innermost group
  int64_t outer = 1;      // product of kept_sizes
  int64_t red_count = 1;  // product of red_sizes
  int64_t out_count = 0;  // output elements
};

// `dims`: the operand's dimensions; `reduced`: the dimensions reduced.
absl::StatusOr<ReduceGeometry> MakeReduceGeometry(absl::Span<const int64_t> dims,
                                                  absl::Span<const int64_t> reduced);

// Offset in elements of multi-index `index` (row-major over `sizes`).
inline int64_t OffsetOf(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                        int64_t index) {
  int64_t off = 0;
  for (int k = static_cast<int>(sizes.size()) - 1; k >= 0; --k) {
    const int64_t s = sizes[k];
    off += (index % s) * strides[k];
    index /= s;
  }
  return off;
}

// *acc = op(*acc, fold of x[0..n)) for a single-op reducer on one type.
using RunFoldKernel = void (*)(void* acc, const void* x, int64_t n);

// A run fold for `op` (add, multiply, maximum, minimum, and, or, xor) on
// `type`, or nullptr where none exists (then callers fold element by element
// through the BinaryKernel). Float adds fold in a fixed vector order.
RunFoldKernel SelectRunFoldKernel(HloOpcode op, ElementType type);

// The identity of `op` on `type` (written to `out`, ByteWidth(type) bytes);
// false where there is none known (then a run is never split).
bool ReduceIdentity(HloOpcode op, ElementType type, void* out);

// acc[i] = op(op(op(op(acc[i], r0[i]), r1[i]), r2[i]), r3[i]) for i < n:
// four input rows folded in one pass, in the same order per element as four
// single-row passes.
using RowFold4Kernel = void (*)(void* acc, const void* const* rows, int64_t n);
// One for `op` on `type`, or nullptr.
RowFold4Kernel SelectRowFold4Kernel(HloOpcode op, ElementType type);

// Output rows [row_begin, row_end) x columns [col_begin, col_end) of a rows
// reduction: out = init, then out = op(out, in row) for each reduced index
// (four rows per pass through `fold4` when given).
void ReduceRowsBlock(const ReduceGeometry& g, int elem_size, BinaryKernel op, const uint8_t* in,
                     const uint8_t* init, uint8_t* out, int64_t row_begin, int64_t row_end,
                     int64_t col_begin, int64_t col_end, RowFold4Kernel fold4 = nullptr);

// Output elements [begin, end) of a runs reduction. With `cached` (the
// operand is in cache: a fused region's block buffer), f32 sums of one run
// an element take four elements' runs at a time (HwySum4F32), bitwise the
// same.
void ReduceRunsBlock(const ReduceGeometry& g, int elem_size, BinaryKernel op, RunFoldKernel fold,
                     const uint8_t* in, const uint8_t* init, uint8_t* out, int64_t begin,
                     int64_t end,
                     bool cached = false);

// Elements per block when a single long run is split (fixed: results never
// depend on the thread count).
inline constexpr int64_t kReduceSplitBlock = 1 << 16;

// Folds x[0..n) of a single run in blocks of kReduceSplitBlock: block b's
// partial goes to partials + b * elem_size (starting from `identity`).
void ReduceRunBlockPartial(int elem_size, BinaryKernel op, RunFoldKernel fold,
                           const uint8_t* identity, const uint8_t* x, int64_t n, int64_t block,
                           uint8_t* partials);
// Combines `count` partials pairwise in a fixed tree (in place) and folds
// the total into *acc.
void CombinePartials(int elem_size, BinaryKernel op, uint8_t* partials, int64_t count,
                     uint8_t* acc);

}  // namespace hlovm

#endif  // HLOVM_OPS_REDUCE_REDUCE_H_
