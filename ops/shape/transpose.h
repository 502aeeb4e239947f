// transpose: result dimension k is operand dimension permutation[k]. Works on
// element byte widths (1, 2, 4, 8, 16), never per element type. After size-1
// dimensions are dropped and dimensions that stay adjacent are merged, a
// transpose whose innermost dimension is unchanged is a strided row copy;
// any other is a batch of 2-D transposes done in L2-sized tiles of 8x8
// register blocks (4x4 vector shuffles for 4-byte elements). Work is split
// into fixed units (batch index, tile row, column panel) so that results
// never depend on the thread count.
#ifndef HLOVM_OPS_SHAPE_TRANSPOSE_H_
#define HLOVM_OPS_SHAPE_TRANSPOSE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ops/shape/strided_copy.h"

namespace hlovm {

struct TransposePlan {
  int elem_size = 0;
  int64_t element_count = 0;
  // Rows path: the innermost result dimension is contiguous in the operand.
  bool row_copy = false;
  StridedCopyPlan copy;
  // Tiled path: dst[x * dst_x + y] = src[x * src_x + y * src_y] for every
  // batch index, x < nx, y < ny.
  int64_t nx = 0, ny = 0, src_x = 0, src_y = 0, dst_x = 0;
  std::vector<int64_t> batch_dims, batch_src_strides, batch_dst_strides;
  int64_t batch_count = 1;
  int64_t tile_x = 0, tile_y = 0;  // elements per tile side
  int64_t panel = 0;        // columns (y) per work unit
  int64_t x_blocks = 0, y_panels = 0;
  // Units of work (rows for the row path, tiles rows x panels otherwise) and
  // the units one parallel chunk covers.
  int64_t units() const;
  int64_t units_per_chunk = 1;
};

// Validates `permutation` for `dims` and builds the plan.
absl::StatusOr<TransposePlan> MakeTransposePlan(int elem_size, absl::Span<const int64_t> dims,
                                                absl::Span<const int64_t> permutation);

// Runs units [unit_begin, unit_end) of the plan (see units()).
void RunTranspose(const TransposePlan& plan, const void* src, void* dst, int64_t unit_begin,
                  int64_t unit_end);

// One 2-D block in the tiled path's 8x8 register blocks: dst[x * dx + y] =
// src[x + y * sy] for x < nx, y < ny, strides in elements of `elem_size`
// bytes (1, 2, 4, 8 or 16).
void TransposeBlock(int elem_size, const void* src, void* dst, int64_t nx, int64_t ny,
                    int64_t sy, int64_t dx);

}  // namespace hlovm

#endif  // HLOVM_OPS_SHAPE_TRANSPOSE_H_
