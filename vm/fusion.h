// Internal to vm/: loop fusion of elementwise regions.
//
// A region is a connected set of instructions of one computation, all with
// the same element count n: elementwise ops (unary, binary, compare, select,
// clamp, convert, reduce-precision), reshapes of region values, iotas, and
// broadcasts whose operand dimensions are a contiguous run of the result's
// (a scalar, a row, a column, a channel vector), read as they are needed,
// and transposes of arrays in memory (runs of at least 16 elements along
// the result's innermost dimension), gathered tile by tile where they keep
// the innermost dimension (a head shuffle). A transpose that moves it (a
// matrix's, NHWC -> NCHW) makes its region run in bands: the result seen
// as [outer, columns, lines] around the dimension the operand's innermost
// lands on, each band of up to 512 lines computed column by column, its
// transposed input gathered a cache line of columns at a time through the
// op-by-op transpose's register blocks (at least 128 lines; fewer, the
// transpose stays op by op). A reduce does not join a banded region.
// Regions of fewer than 1024 elements are not fused (a few dispatches cost
// less than starting a fused loop, and small arrays stay in cache anyway).
// A broadcast or iota read outside the region too is recomputed in it (and
// in any other region reading it); it is written to memory only if
// something outside the regions reads it.
// The region's ROOT is an elementwise op; any other member whose value is
// also used outside becomes a further output (multi-output), provided every
// such use comes after the ROOT in the schedule, which rules out cycles.
// A reduce of the ROOT over its innermost dimensions with a one-op reducer
// (a softmax's or a layer norm's row sum) joins the region: the rows are
// reduced as the region computes them, chunk by chunk, and the ROOT is
// written to memory only if something else reads it.
// A reduce that keeps the innermost dimension (a column reduce: a bias
// gradient's sum over the batch) joins too when its rows have at least 128
// elements: per output row and block of columns, the region computes the
// root's segment of each reduced row in turn and folds it into the column
// sums, in the op-by-op reduce's order (four rows a pass where the reducer
// has a four-row fold); blocks of columns run in parallel.
// A reduce-window of the ROOT that folds whole rows (unit windows on the
// trailing dimensions: pooling over NHWC; a one-op reducer) joins when it
// alone reads the ROOT and the ROOT is the region's only output: per band of
// output rows (those differing in their last leading dimension), the
// region computes the input rows the band reads and folds them in window
// order; rows two bands read are computed for each (at most 3x the
// operand in all, else the window stays op by op).
//
// Before these, row-wise regions are formed around row reduces (layer norm,
// softmax, RMS norm, log-softmax, mean and variance): on an array seen as
// [rows, inner], the reduces of its rows, the elementwise work on the array
// and on the row values, and the broadcasts of the row values back along
// the rows, run a block of a few rows at a time through every member while
// the block is in cache, so the input rows are read from memory once and
// two reduces of the same rows share the pass (vm/fusion_rows.cc). Each
// member calls its op-by-op kernel (the reduce, the op-by-op reduce's row
// fold), so the bits are those of op by op.
//
// A convolution that only a plain f32 region's elementwise ops read (a
// bias, a batch-norm scale, a residual, a relu after it) joins the region
// where its plan writes its result in units of runs of result elements
// (ops/dot/conv.h ConvHasUnitRuns: f32, the direct path or the GEMM path
// with features innermost): the region becomes one `convolution`
// instruction that runs the region over each unit's sums right after the
// unit, while they are in cache, so the result is written once. A region
// that is a chain of add, subtract, multiply, maximum and minimum with a
// per-feature vector, a scalar or an array runs as epilogue steps in the
// convolution's register tile (on the GEMM path, as its tile is written
// out); any other region runs its micro-program over the unit's sums. The
// same kernels' functions either way, so the bits are those of op by op.
//
// A region compiles to one `fusion` instruction whose plan is a
// micro-program over tile registers: the region runs as a loop over tiles of
// a few thousand elements sized so that the live tiles stay in L1/L2, each
// micro-op calling the same kernel as the op-by-op handler on one tile
// (ops/elementwise/elementwise_lower.h SelectElementwiseKernel), so a fused region computes the
// same bits; no intermediate array is written to memory. Micro-ops whose
// sources do not change from tile to tile (a broadcast scalar, a convert of
// one) run once per chunk. Chunks of tiles run in parallel. Runs of f32 and
// bf16 micro-ops whose kernels are (or widen to) Highway element functions
// become one register program (ops/elementwise/f32_program.h) that keeps
// its values in vector registers from op to op; a program reads a
// broadcast scalar as the scalar (the broadcast's tile is then dropped) and
// prefetches the region inputs it streams.
//
// Micro-program sources and destinations, as the disassembler prints them:
//   inK   region input K at the tile's offset     (an array of n elements)
//   sK    region input K, one element             (select/clamp scalars, splats)
//   outK  region output K at the tile's offset    (written, then readable)
//   tK    tile register K                         (scratch, L1-resident)
//   rows  the root's rows a fused reduce folds    (per-chunk scratch)
#ifndef HLOVM_VM_FUSION_H_
#define HLOVM_VM_FUSION_H_

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {

struct FusedRegion {
  const HloInstruction* root = nullptr;
  std::vector<const HloInstruction*> members;  // in schedule order, root last
  // Values written to memory: the root (unless only `reduce` reads it),
  // then members used outside.
  std::vector<const HloInstruction*> outputs;
  // A row or column reduce of the root computed in the same loop
  // (ops/reduce/reduce_lower.h SelectRowReduce, SelectColumnReduce), or a reduce-window
  // over whole rows (SelectWindowRows), or null.
  const HloInstruction* reduce = nullptr;
  // A row-wise region (vm/fusion_rows.cc): row reduces and the elementwise
  // work before and after them, run block of rows by block of rows; `root`
  // is its last member, `reduce` null.
  bool rows = false;
  // A convolution only members of the region read (elementwise ops, each
  // taking its whole result), computed by the region's instruction: each
  // unit of the convolution's output runs through the region's
  // micro-program right after the unit is summed, while it is in cache, and
  // the region's root is written over it (vm/fusion_run.cc
  // ConvEpilogueHandler). Null otherwise; a plain region (no reduce, no
  // bands, the root its only output) of f32 only. Where the convolution's
  // plan cannot name its units' outputs, it is emitted alone before the
  // region.
  const HloInstruction* conv = nullptr;
  // Where the region is emitted: its last instruction in the schedule.
  const HloInstruction* emit_at() const { return reduce != nullptr ? reduce : root; }
};

struct FusionPlan {
  std::vector<FusedRegion> regions;
  // Member -> region; a broadcast or iota that several regions (or a region
  // and instructions outside) read is a member of each region but in none
  // here: it is recomputed in each, and emitted itself unless `elided`
  // (read by members of regions holding it only).
  absl::flat_hash_map<const HloInstruction*, int> region_of;
  absl::flat_hash_set<const HloInstruction*> elided;
};

// Finds the regions of a computation scheduled as `order` (see
// ScheduleComputation); a region has at least two elementwise ops, or one
// elementwise op and a broadcast it reads.
FusionPlan PlanFusion(absl::Span<const HloInstruction* const> order,
                      const HloComputation& computation);

// Emits `region` as one instruction. `values` holds the registers of every
// value the region reads from outside; on return it holds the registers of
// the region's outputs.
absl::Status LowerFusedRegion(FunctionBuilder& b, const FusedRegion& region,
                              absl::flat_hash_map<const HloInstruction*, ValueDesc>* values);

}  // namespace vm
}  // namespace hlovm

#endif  // HLOVM_VM_FUSION_H_
