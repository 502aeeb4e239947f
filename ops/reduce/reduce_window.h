// Window geometry shared by reduce-window and select-and-scatter: which
// operand elements each window covers (strides, padding, base and window
// dilation), in XLA's order (row-major over the window; padding and the holes
// of base dilation are skipped, which is the same as folding the init value
// for a reducer whose init is its identity). Also recognises the cumulative
// pattern JAX emits through reduce-window (a window the length of one
// dimension, padded low by length - 1), which runs as an O(N) prefix scan in
// the same order as the windows.
#ifndef HLOVM_OPS_REDUCE_REDUCE_WINDOW_H_
#define HLOVM_OPS_REDUCE_REDUCE_WINDOW_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"

namespace hlovm {

struct WindowGeometry {
  int rank = 0;
  std::vector<int64_t> in_dims, out_dims, in_strides;
  std::vector<int64_t> size, stride, pad_lo, base_dilation, window_dilation;
  int64_t out_count = 0;
  int64_t window_count = 1;
};

absl::StatusOr<WindowGeometry> MakeWindowGeometry(absl::Span<const int64_t> in_dims,
                                                  absl::Span<const int64_t> out_dims,
                                                  const Window& window);

// Scratch space for WindowOffsets (one per thread).
struct WindowScratch {
  std::vector<std::vector<int64_t>> per_dim;
  std::vector<int64_t> coords;
};

// Sets *offsets to the element offsets of the operand elements that window
// `out_index` covers, in row-major window order.
void WindowOffsets(const WindowGeometry& g, int64_t out_index, WindowScratch* scratch,
                   std::vector<int64_t>* offsets);

// Windows over whole rows: the trailing dimensions whose window is one
// element (unit stride, no padding or dilation) form rows of `row`
// elements, and `lead` dimensions come before them. An output row is
// folded from init through the input rows its window covers inside the
// operand, in row-major window order, with a vectorized binary kernel over
// whole rows: each element sees the same operations in the same order as
// one window at a time (pooling over NHWC).
struct WindowRowView {
  int lead = 0;
  int64_t row = 0;
  int64_t out_rows = 0;
};
// The rows view of `g`, when its trailing unit-window dimensions hold at
// least 8 elements (rank at most 8).
std::optional<WindowRowView> MatchWindowRows(const WindowGeometry& g);
// Output rows [begin, end) into `out` (the whole output); `in` holds the
// operand's rows from row `in_first` on (element e of the operand at
// in[(e - in_first * row) * elem_size]). `op` folds a row: op(acc, x, acc, n).
void FoldWindowRows(const WindowGeometry& g, const WindowRowView& w, int elem_size,
                    void (*op)(const void*, const void*, void*, int64_t), const uint8_t* in,
                    int64_t in_first, const uint8_t* init, uint8_t* out, int64_t begin,
                    int64_t end);
// The input rows output rows [begin, end) read: [*first, *last], or
// *first > *last when none.
void WindowRowSpan(const WindowGeometry& g, const WindowRowView& w, int64_t begin, int64_t end,
                   int64_t* first, int64_t* last);

// A prefix scan along one dimension: the operand viewed as [outer, n, inner].
struct ScanGeometry {
  int64_t outer = 1, n = 1, inner = 1;
};

// The forward cumulative pattern: one dimension d with window size N equal to
// its length, padding N-1 low and 0 high, everything else a unit window with
// unit strides and no padding or dilation. Window j then covers elements
// 0..j of the line in order, so out[j] = op(out[j-1], x[j]) with out[-1] =
// init reproduces every window's serial fold bit for bit.
std::optional<ScanGeometry> MatchCumulativeWindow(absl::Span<const int64_t> in_dims,
                                                  const Window& window);

// The cumulative pattern folded row by row with a vectorized binary kernel
// (op(a, b, out, n) over n elements): for lines [line_begin, line_end) of
// `s`, row j of `inner` elements is op(row j-1, x row j), row -1 being
// `init` (one element) repeated.
void ScanRows(const ScanGeometry& s, int elem_size,
              void (*op)(const void*, const void*, void*, int64_t), const uint8_t* in,
              const uint8_t* init, uint8_t* out, int64_t line_begin, int64_t line_end);

// Windows folded one at a time with a single-op reducer inlined into the
// loop: out[q] for outputs [begin, end) is `init` folded with the window's
// elements in order (XLA's semantics: integers wrap; float maximum and
// minimum propagate NaN and order -0 below +0).
using WindowFoldKernel = void (*)(const WindowGeometry& g, const uint8_t* in,
                                  const uint8_t* init, uint8_t* out, int64_t begin,
                                  int64_t end);
// The kernel for add, multiply, maximum or minimum on f32, f64, s32 or s64;
// null for any other opcode or type.
WindowFoldKernel SelectWindowFoldKernel(HloOpcode op, ElementType type);

// select-and-scatter whose select is compare(a, b) in `direction` and whose
// scatter is add, on windows `g` of the operand (one per source element):
// in window q the selected element starts as the first one and is replaced
// by each later element e for which compare(selected, e) is false; then
// out[selected] += source[q].
using SelectAndScatterAddKernel = void (*)(const WindowGeometry& g,
                                           ComparisonDirection direction,
                                           const uint8_t* operand, const uint8_t* source,
                                           uint8_t* out);
// The kernel for f32, f64, s32 or s64; null for any other type.
SelectAndScatterAddKernel SelectSelectAndScatterAddKernel(ElementType type);

}  // namespace hlovm

#endif  // HLOVM_OPS_REDUCE_REDUCE_WINDOW_H_
