// Internal to vm/fusion_*.cc: what the files of loop fusion share.
//
// vm/fusion.h is the entry. PlanFusion (vm/fusion_plan.cc) finds the
// regions; LowerFusedRegion (vm/fusion_lower.cc) compiles one to a
// FusedPlan, a micro-program over tile registers whose runs of f32
// micro-ops become register programs (vm/fusion_program.cc); the handlers
// of vm/fusion_run.cc run it tile by tile.
#ifndef HLOVM_VM_FUSION_INTERNAL_H_
#define HLOVM_VM_FUSION_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/hlo_ir.h"
#include "ops/dot/conv.h"
#include "ops/elementwise/elementwise_lower.h"
#include "ops/elementwise/f32_program.h"
#include "ops/reduce/reduce_lower.h"
#include "ops/shape/iota.h"
#include "vm/fusion.h"
#include "vm/lowering.h"

namespace hlovm {
namespace vm {
namespace fusion_internal {

// Transposes a region reads through, a run along the result's innermost
// dimension at a time: runs of at least kMinTransposeRun elements. One that
// keeps the innermost dimension innermost copies each run whole (a head
// shuffle [b,s,h,d] -> [b,h,s,d] moves runs of d). One that moves it has a
// `column` dimension, the result dimension the operand's innermost lands
// on, and `lines`, the elements of the result dimensions after it: each
// column's runs read one element of each of `lines` operand lines (a
// stride of pages apart), whose neighbours the next columns read. Such a
// region runs in bands (FusedPlan::bands): up to kBandLines lines, and per
// band a cache line's worth of columns gathered at once as 2-D register
// blocks into an L1/L2-sized block (GatherColumns), then the band computed
// column by column reading it. Measured on a 4096x4096 f32 transpose into
// two ops: 1.3x faster than op by op on one thread (gathering run by run
// with a stride, 5x slower). Below kMinBandLines lines the runs per column
// are too short for either (the transpose stays op by op). A row, column
// or window reduce takes the root in order, so it does not join a banded
// region.
constexpr int64_t kMinTransposeRun = 16;
constexpr int64_t kBandLines = 512;
constexpr int64_t kMinBandLines = 128;
constexpr int64_t kCacheLine = 64;  // bytes of operand a block of columns spans
constexpr int kMaxTransposeRank = 8;

// The result dimension a transpose's operand's innermost dimension lands on.
int TransposeColumn(const HloInstruction& transpose);

// The elements after a transpose's column dimension: the lines a column
// reads where it moves the innermost dimension.
int64_t TransposeLines(const HloInstruction& transpose);

// Whether a transpose moves the innermost dimension (its region then runs
// in bands).
bool MovesInnermost(const HloInstruction& transpose);

// For a broadcast whose operand dimensions of size > 1 land on a run of
// result dimensions with nothing but 1-sized ones between them: result
// element f reads operand element (f / repeat) % period. False otherwise.
bool BroadcastPattern(const HloInstruction& bcast, int64_t* repeat, int64_t* period);

// The reduce of the region's root `reduce` can take the root as the region
// computes it: a row reduce, or a column reduce over rows long enough.
std::optional<RowReduce> FusibleReduce(const HloInstruction& reduce);

// Row-wise regions (vm/fusion_rows.cc): the members of each, positions in
// `order` in schedule order, its last member the one it is emitted at; every
// use of a member outside its region comes after that last member. `users`
// are the positions of each instruction's users (order.size() for the
// computation's ROOT); `pinned` instructions stay out.
std::vector<std::vector<int64_t>> PlanRowRegions(absl::Span<const HloInstruction* const> order,
                                                 const std::vector<std::vector<int64_t>>& users,
                                                 const std::vector<bool>& pinned);

// The registers a fused region reads, each given the next input slot when
// first asked for (the instruction's operands, in that order).
class RegionInputs {
 public:
  explicit RegionInputs(const absl::flat_hash_map<const HloInstruction*, ValueDesc>& values)
      : values_(values) {}
  // The slot of `op`'s value; an error when it is not one array register.
  absl::StatusOr<uint32_t> SlotOf(const HloInstruction* op);
  // The slot register `r` was given (it must have one).
  uint32_t SlotOfRegister(Reg r) const { return slot_of_.at(r); }
  const std::vector<Reg>& regs() const { return regs_; }

 private:
  const absl::flat_hash_map<const HloInstruction*, ValueDesc>& values_;
  std::vector<Reg> regs_;
  absl::flat_hash_map<Reg, uint32_t> slot_of_;
};

// Emits a row-wise region (FusedRegion::rows) as one instruction.
absl::Status LowerRowRegion(FunctionBuilder& b, const FusedRegion& region,
                            absl::flat_hash_map<const HloInstruction*, ValueDesc>* values);

//===----------------------------------------------------------------------===//
// The micro-program.
//===----------------------------------------------------------------------===//

struct Src {
  // kRows: the root's rows a fused reduce reads, in a per-chunk scratch.
  enum Kind : uint8_t { kTile, kInput, kScalar, kOutput, kRows };
  Kind kind = kTile;
  uint8_t size = 0;     // element width in bytes
  uint32_t index = 0;   // tile value (then slot), input or output number
};

enum class MicroKind : uint8_t {
  kUnary, kBinary, kTernary, kReducePrecision, kBroadcast, kIota,
  kTranspose,  // gathers the tile from the whole operand (FusedPlan::transposes)
  kProgram,  // a register program over f32 streams
};

struct MicroOp {
  MicroKind kind = MicroKind::kUnary;
  UnaryKernel unary = nullptr;
  BinaryKernel binary = nullptr;
  TernaryKernel ternary = nullptr;
  ReducePrecisionKernel reduce_precision;
  unsigned scalar_mask = 0;
  int arity = 0;
  Src src[3];
  Src dst;
  int64_t repeat = 1, period = 1;  // broadcast: element f reads (f / repeat) % period
  IotaKernel iota = nullptr;       // kIota: element f is (f / repeat) % period
  int program = -1;                // kProgram: index into FusedPlan::programs
  int transpose = -1;              // kTranspose: index into FusedPlan::transposes
};

// A transpose read tile by tile: the result's dimensions and, per result
// dimension, the operand's stride in elements. The `banded` one, the
// transpose that gave its region FusedPlan::bands, is read a block of
// columns at a time (GatherColumns).
struct TransposeGather {
  int rank = 0;
  int64_t dims[kMaxTransposeRank];
  int64_t strides[kMaxTransposeRank];
  bool banded = false;
};

struct RegisterProgram {
  std::vector<F32ProgramOp> code;
  std::vector<Src> streams;  // stream k of the code
  F32Stream kinds[kF32ProgramMaxStreams];  // of stream k
  std::vector<const HloInstruction*> origin;  // per op of the code, for the listing
};

struct FusedPlan {
  std::vector<MicroOp> ops;  // the first `num_invariant` run once per chunk
  int num_invariant = 0;
  int64_t n = 0;
  int64_t tile = 0;   // elements per tile
  int64_t chunk = 0;  // elements per parallel chunk (a multiple of tile)
  int64_t slot_bytes = 0;
  int num_slots = 0;
  std::vector<RegisterProgram> programs;
  std::vector<TransposeGather> transposes;
  // A region reading a transpose that MovesInnermost: its result seen as
  // [outer, columns, lines] (the transpose's column dimension in the
  // middle), computed in units of one outer index and `band` lines, each
  // unit a run of the band per column in turn; units_per_task units a
  // parallel task. Absent, the region runs tile by tile in order.
  // The banded transpose is gathered `width` columns at a time (a cache
  // line of its operand) into a per-thread block of `width` runs; its tile
  // register `slot` is never given to another value, and a read of it
  // reads the column's run in the block.
  struct Bands {
    int64_t outer = 0, columns = 0, lines = 0, band = 0, units_per_task = 1;
    int width = 1;
    int size = 0;   // bytes an element
    int slot = -1;  // the banded transpose's tile register
    int64_t bands_per_outer() const { return (lines + band - 1) / band; }
    int64_t units() const { return outer * bands_per_outer(); }
  };
  std::optional<Bands> bands;
  // A fused row reduce of the root: output rows per chunk, where the rows
  // are (an output of the region, or -1: the scratch), the init's input
  // number and the reduce's output number.
  std::optional<RowReduce> reduce;
  // The reduce's geometry over a chunk's rows in the scratch (row q of the
  // chunk at q * inner): only the kept size differs.
  ReduceGeometry chunk_rows;
  int64_t rows_per_chunk = 0;
  // A column reduce: units of (output row, block of columns), col_block
  // columns a block, units_per_task units a parallel task.
  int64_t col_block = 0, col_blocks = 0, units_per_task = 1;
  int rows_output = -1;
  // A fused reduce-window: bands of unit_rows output rows, units_per_task
  // bands a parallel task.
  std::optional<WindowReduce> window;
  int64_t unit_rows = 0;
  uint32_t init_input = 0;
  uint32_t reduce_output = 0;
  int root_size = 0;
};

// The arrays a region's micro-program reads and writes: input k at in[k],
// output k at out[k].
struct RegionBuffers {
  RegionBuffers() = default;
  // The registers of the instruction: in[k] its in[k], out[k] its out[k].
  RegionBuffers(const Instr& instr, uint8_t* const* regs);
  RegionBuffers(const RegionBuffers&) = delete;
  RegionBuffers& operator=(const RegionBuffers&) = delete;
  const uint8_t* const* in = nullptr;
  uint8_t* const* out = nullptr;
  absl::InlinedVector<const uint8_t*, 8> in_ptrs;
  absl::InlinedVector<uint8_t*, 2> out_ptrs;
};

// Runs the region over its elements [begin, end) tile by tile, the
// invariant micro-ops first (over units [begin, end) of bands where it runs
// in bands); `rows` holds the root's elements from `rows_origin` on where
// a fused reduce reads them.
void RunTiles(const FusedPlan& p, const RegionBuffers& io, int64_t begin, int64_t end,
              uint8_t* rows = nullptr, int64_t rows_origin = 0);

// A convolution computed with its region (FusedRegion::conv): each unit of
// the convolution runs, then the region over the result elements the unit
// computed (ConvUnitsTo), while they are in cache, reading the sums where
// the unit left them (the result itself, which the region's root is
// written over, or the unit's tile buffer). The region's input
// `conv_input` is the convolution's sums, its output 0 the result; its
// other inputs are the instruction's in[2 + k] (skipping the
// convolution's), in[0] and in[1] are the convolution's operands.
// Where the region is a chain of f32 add, subtract, multiply, maximum and
// minimum from the convolution to the root, each with one other operand (a
// per-feature vector, a scalar, an array), the convolution applies it as
// epilogue steps instead (ConvUnitsWithEpilogue: in the register tile on
// the direct path); the region's micro-program is then for the listing.
struct ConvEpilogue {
  struct Step {
    ConvEpilogueStep::Op op = ConvEpilogueStep::kAdd;
    ConvEpilogueStep::Kind kind = ConvEpilogueStep::kScalar;
    bool reversed = false;
    uint32_t input = 0;  // the region input holding the operand's data
  };
  ConvPlan conv;
  const FusedPlan* region = nullptr;
  uint32_t conv_input = 0;
  std::vector<Step> steps;  // empty: the region runs over the unit's sums
};

// The handler of a convolution with its region (vm/fusion_run.cc).
bool ConvEpilogueHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx);

// The handlers of a region's `fusion` instruction (vm/fusion_run.cc), one
// per form: the region alone (chunks of tiles, or units of bands, in
// parallel), with a fused row reduce, with a fused column reduce, and with
// a fused reduce-window over whole rows.
bool FusedHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx);
bool FusedReduceHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx);
bool FusedColumnReduceHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx);
bool FusedWindowHandler(const Instr& instr, uint8_t* const* regs, ExecContext& ctx);

// A micro-op's source or destination as the listing names it: "t3", "in0",
// "s1", "out0", "rows".
std::string SrcText(const Src& s);

//===----------------------------------------------------------------------===//
// Register programs: runs of f32 micro-ops with their values in registers.
//===----------------------------------------------------------------------===//

// The register-program op of an elementwise instruction, when its op-by-op
// kernel is that same f32 Highway function (or the f32 compare/select), or
// the bf16 kernel that widens to it (then the result rounds to bf16).
struct ProgramCode {
  F32Code code;
  bool round_bf16 = false;
};

std::optional<ProgramCode> F32CodeOf(const HloInstruction& instr, const ElementwiseKernel& k);

// A run of micro-ops that runs as one register program.
struct Segment {
  std::vector<int> ops;  // micro-ops (indices into the op list), in order
  std::vector<uint32_t> tile_reads, tile_writes;
  RegisterProgram program;
};

// Groups the runs of register-program micro-ops among the non-invariant ones
// of `sequence` into segments, each translated (one micro-op alone only
// where WorthAlone); a run that needs more spill slots than there are is
// split. A compare and the selects reading its mask must land in one
// segment; otherwise they run as micro-ops of their own.
std::vector<Segment> FindSegments(const std::vector<MicroOp>& ops,
                                  const std::vector<std::optional<ProgramCode>>& codes,
                                  const std::vector<const HloInstruction*>& origin,
                                  const std::vector<size_t>& sequence, int num_invariant);

// One op of a register program as the listing prints it ("acc = add acc, in0").
std::string ProgramOpText(const F32ProgramOp& op, const std::vector<Src>& streams);

}  // namespace fusion_internal
}  // namespace vm
}  // namespace hlovm

#endif  // HLOVM_VM_FUSION_INTERNAL_H_
