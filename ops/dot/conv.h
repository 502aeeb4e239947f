// convolution: plan and kernel. Every convolution (any dim_labels, strides,
// padding, lhs/rhs dilation, window reversal, feature and batch groups)
// runs as an implicit GEMM (f32 convolutions with features innermost run a
// direct kernel instead, below): for each group and output batch, tiles of output
// positions gather their input windows into a row block (im2col in a
// cache-sized tile) that the GEMM of ops/dot/gemm.h multiplies by the
// kernel, packed once per call as [group][window x input feature, output
// feature]. Depthwise f32 convolutions (one input and one output feature
// per group, features innermost in input and result) run a direct kernel
// vectorised over the features instead, with the same summation order; f32
// convolutions with features innermost in input and result run a direct
// register-tiled kernel that reads the input rows in place (no im2col),
// again with the same summation order.
//
// Compute types are dot's (DotComputeType): integers wrap around in 32 or 64
// bits, f16/bf16 and the narrow floats accumulate in f32 and round the
// result (as XLA's CPU backend upcasts them), pred is an or of ands. Each
// output element is one sequential sum over (window position, input
// feature), so results do not depend on tiling or the thread count.
#ifndef HLOVM_OPS_DOT_CONV_H_
#define HLOVM_OPS_DOT_CONV_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "core/shape.h"
#include "ops/dot/gemm.h"
#include "ops/elementwise/elementwise.h"

namespace hlovm {

struct ConvPlan {
  ElementType compute_type = ElementType::kF32;
  ElementType result_type = ElementType::kF32;
  int csize = 0;  // bytes of one compute-type element
  UnaryKernel lhs_convert = nullptr, rhs_convert = nullptr, result_convert = nullptr;
  int64_t lhs_count = 0, rhs_count = 0, out_count = 0;

  int nsp = 0;  // spatial dimensions
  // Element strides of the row-major operands and result.
  int64_t in_batch_stride = 0, in_feat_stride = 0;
  std::vector<int64_t> in_sp_stride;
  int64_t k_in_stride = 0, k_out_stride = 0;
  std::vector<int64_t> k_sp_stride, k_sp_size;
  int64_t out_batch_stride = 0, out_feat_stride = 0;
  std::vector<int64_t> out_sp_stride, out_sp_size;
  // For spatial dimension d: in_index[d][o * K_d + k] is the input index
  // read by output position o at window position k, or -1 for padding and
  // dilation holes.
  std::vector<std::vector<int64_t>> in_index;
  // Window position k of dimension d reads kernel index k_index[d][k]
  // (reversed with window_reversal).
  std::vector<std::vector<int64_t>> k_index;

  int64_t groups = 1;          // feature_group_count * batch_group_count
  bool batch_groups = false;   // groups split the batch (else the features)
  int64_t out_batch = 0;       // output batch size
  int64_t cg = 0;              // input features per group
  int64_t og = 0;              // output features per group
  int64_t ksp = 1;             // window positions (product of kernel spatial sizes)
  int64_t kdim = 0;            // ksp * cg: the GEMM's k
  int64_t s_out = 1;           // output positions
  int64_t rows_per_tile = 1;   // rows (output batch x position) per unit
  int64_t tiles = 0;
  // GEMM path: each tile's output features in col_parts parts of
  // cols_per_part, a unit each (a layer of few rows and many features, as
  // ResNet's 7x7x2048, still spreads over threads).
  int64_t col_parts = 1, cols_per_part = 0;
  // GEMM path, one group, output rows consecutive and og apart: a tile of
  // all the features is written by the GEMM where it goes (no copy).
  bool tiles_in_place = false;
  // GEMM path, a 1x1 window reading input rows that follow each other
  // (stride 1, no padding, one group, features contiguous): the GEMM reads
  // a tile's rows where they are (no gathering copy).
  bool rows_in_place = false;
  int64_t units = 0;           // groups * col_parts * tiles (depthwise: out_batch * tiles)
  GemmKernel gemm;
  // Depthwise direct path: units are (output batch, tile of positions) and
  // `packed` holds the kernel as [window position][feature] followed by a
  // row of zeros (the padding).
  bool depthwise = false;
  // Depthwise by channel columns (two spatial dimensions without input
  // dilation, padding >= 0; f32 or bf16 in and out): units are (output
  // batch, block of column_lanes channels); each copies its block of the
  // input into an interleaved zero-padded plane (pad_h x pad_w positions of
  // column_lanes channels, widened from bf16 as it is copied) and sums each
  // output's window positions in window order from zero, as the depthwise
  // kernel does, eight positions of a row at a time from L1, storing
  // (rounded to bf16 where the result is) straight into the result
  // (convert_in_units: no whole-tensor conversions).
  // A unit takes column_blocks blocks (a cache line of a position's
  // channels).
  bool depthwise_columns = false;
  int64_t column_lanes = 0, column_blocks = 1;
  // Planar depthwise path (features outside the spatial dimensions, the
  // last spatial dimension contiguous: NCHW): units are (output batch,
  // feature) planes; each output row sums its window positions in window
  // order, a row at a time. Per window position k of the last dimension,
  // the outputs [row_x0[k], row_x1[k]) read input x + row_off[k]
  // contiguously (row_contig[k]); otherwise the row is gathered through
  // in_index. `packed` is as for `depthwise`.
  bool planar = false;
  std::vector<int64_t> row_x0, row_x1, row_off;
  std::vector<char> row_contig;
  // Two spatial dimensions without input dilation, padding >= 0 and rows
  // and planes contiguous: each plane is copied into a zero-padded buffer
  // of pad_h x pad_w (input at row pad_top, column pad_left) and one call
  // computes the whole output plane from it, with the same sums.
  // With convert_in_units (a planar_padded plane whose output plane is
  // contiguous), the units convert what they read and write themselves: an
  // input row as it is copied into the padded plane, the output plane as
  // it is stored (the same conversions, so the same bits, without the
  // whole-tensor passes on the calling thread).
  bool planar_padded = false;
  bool convert_in_units = false;
  // convert_in_units from bf16: input rows widen straight into the padded
  // plane (bf16 -> f32 is exact: the bits moved up), no call per row.
  bool widen_bf16_rows = false;
  int lhs_esize = 4, out_esize = 4;  // bytes of a stored input / result element
  int64_t pad_top = 0, pad_left = 0, pad_h = 0, pad_w = 0, in_h = 0;
  int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;

  // Batch-group weight gradient over two spatial dimensions (one output
  // batch, one output feature per group: a depthwise layer's kernel
  // gradient, an im2col GEMV of a few rows per group otherwise): units are
  // blocks of 16 groups computed side by side in vector lanes, a window row
  // at a time, each output summed over window positions then input features
  // as the GEMM path sums. window_cols[kw * out_w + x] is the input column
  // that window column kw of output column x reads (-1: padding).
  bool group_lanes = false;
  std::vector<int32_t> window_cols;
  int64_t in_width = 0;  // the input's last spatial dimension
  // GEMM path: the kernel is already the packed [window][input][output]
  // matrix (one group, HWIO row-major, no reversal, no conversion), so the
  // GEMM reads it where it is.
  bool kernel_as_is = false;

  // Direct path (f32, features innermost in the input, the result
  // [batch, positions..., features] row-major, no batch groups; a window of
  // several positions, at most 128 output features, or up to 512 over
  // strided rows (DirectApplies)): no im2col;
  // register tiles of tile_rows consecutive output rows (batch x position)
  // by tile_cols output features read the input rows in place (a row of
  // zeros for padding) and the kernel as [group][kdim][ldk] (packed with
  // zero columns past og, or read in place when it is that already). Units
  // are (group, column block, row block): rows_per_block rows (a multiple
  // of tile_rows) by cols_per_block features (a multiple of tile_cols,
  // sized so the block of kernel columns stays in L2). Within a unit the
  // terms run in blocks of k_block, each over every column strip and row
  // tile, the sums stored between blocks (tiles that are not whole go to a
  // thread buffer, copied out at the end); each strip's block of the kernel
  // is read in place (its first tile brings it into L1 for the others: a
  // contiguous copy of it measured 6-9% slower, ResNet's shapes).
  // Where every window of the last spatial dimension reads consecutive
  // input positions (no padding or dilation there, one group, features
  // innermost), a window row's positions and features lie in one run of
  // memory in the order of the terms: the tiles then see row_windows
  // window positions of row_features terms each (else ksp and cg).
  bool direct = false;
  int64_t tile_rows = 0, tile_cols = 0, ldk = 0, k_block = 0;
  int tile_shape = 0;  // the register tile (HwyDirectTileRows): 0 tall, 1 wide
  int64_t row_windows = 0, row_features = 0;
  // Direct path: window_offsets[w * s_out + o] is the element offset
  // (within a batch's input) of the window row w that output position o
  // reads, or -1 where it reads padding; empty where the table would be
  // too large (the offsets are then found per run).
  std::vector<int32_t> window_offsets;
  int64_t rows_per_block = 0, row_blocks = 0, cols_per_block = 0, col_blocks = 0;

  int64_t scratch_bytes = 0;  // converted operands, packed kernel, compute-type result
  int64_t tile_bytes = 0;     // per-thread im2col + result tile

  int64_t flops() const { return 2 * groups * out_batch * s_out * og * kdim; }
  int64_t channels() const { return groups * og; }
};

// `lhs`, `rhs` and `result` are the instruction's verified shapes (arrays
// held row-major).
absl::StatusOr<ConvPlan> MakeConvPlan(const Shape& lhs, const Shape& rhs, const Shape& result,
                                      const Window& window,
                                      const ConvolutionDimensionNumbers& dnums,
                                      int64_t feature_group_count, int64_t batch_group_count);

// One step of an elementwise epilogue a convolution applies to its sums
// (vm/fusion.h FusedRegion::conv): value = op(value, operand), or
// op(operand, value) where `reversed`; result element f's operand is
// data[f % channels()] (kChannels: a per-feature vector, the result's
// features innermost), data[f] (kArray: an array of the result's shape) or
// data[0] (kScalar). The ops are the elementwise kernels' Highway functions
// (add, subtract, multiply; maximum and minimum as
// ops/common/float_minmax.h), lane by lane, so the bits are theirs.
struct ConvEpilogueStep {
  enum Op : uint8_t { kAdd, kSub, kMul, kMax, kMin };
  enum Kind : uint8_t { kChannels, kArray, kScalar };
  Op op = kAdd;
  Kind kind = kScalar;
  bool reversed = false;
  const float* data = nullptr;
};
constexpr int kMaxConvEpilogueSteps = 8;

// Three steps as for dot: prepare (convert operands, pack the kernel), units
// (may run in parallel, disjoint outputs), finish (convert the result).
struct ConvBuffers {
  const uint8_t* lhs = nullptr;  // compute type, row-major lhs
  const uint8_t* packed = nullptr;  // [groups][kdim][og] compute type
  uint8_t* out = nullptr;        // compute type, row-major result
  const float* zeros = nullptr;  // direct path: row_features zeros (padding rows)
  // Direct path: per group, strip of tile_cols columns and block of terms,
  // the window positions (bits) whose kernel rows there are known to be
  // finite, then those known (FiniteWordIndex), found once a call by the
  // first unit that asks (PaddingTermsVanish).
  uint64_t* finite = nullptr;
};
ConvBuffers ConvPrepare(const ConvPlan& plan, const void* lhs, const void* rhs, void* out,
                        void* scratch);
void ConvUnits(const ConvPlan& plan, const ConvBuffers& bufs, int64_t unit_begin,
               int64_t unit_end);
void ConvFinish(const ConvPlan& plan, const ConvBuffers& bufs, void* out);

// All steps on the calling thread (tests).
absl::Status RunConv(const ConvPlan& plan, const void* lhs, const void* rhs, void* out);

// Below this many flops a convolution runs on the calling thread.
constexpr int64_t kParallelConvFlops = 2 * 1024 * 1024;

// Whether every unit writes its outputs straight into the result, final
// once the unit has run, as runs of row-major result elements that
// ConvUnitRuns can name: f32 computed in f32 (no conversion), on the direct
// path, or on the GEMM path with the result [batch, positions...,
// features] row-major. An elementwise epilogue can then run over each
// unit's runs while they are in cache.
bool ConvHasUnitRuns(const ConvPlan& plan);

// Calls fn(begin, end) for the runs [begin, end) of row-major result
// elements unit `u` writes (ConvHasUnitRuns), in increasing order. Each
// result element lies in the runs of exactly one unit.
void ConvUnitRuns(const ConvPlan& plan, int64_t u,
                  absl::FunctionRef<void(int64_t begin, int64_t end)> fn);

// Runs units [unit_begin, unit_end) as ConvUnits does (ConvHasUnitRuns),
// handing each unit's sums to `sink` as soon as they are final:
// sink(sums, begin, end) gets result elements [begin, end) at sums[0, end -
// begin) and must leave them in the result. Where the sums are in the
// result already, sums is the result at `begin`; on the GEMM path with one
// group, they are the unit's thread buffer, which is then not copied into
// the result (the sink writes it).
void ConvUnitsTo(const ConvPlan& plan, const ConvBuffers& bufs, int64_t unit_begin,
                 int64_t unit_end,
                 absl::FunctionRef<void(const float* sums, int64_t begin, int64_t end)> sink);

// Runs units [unit_begin, unit_end) as ConvUnits does (ConvHasUnitRuns),
// applying the `count` epilogue steps to every sum before it is left in
// the result: on the direct path in the register tile as the last block of
// terms is stored (tiles summed in the thread buffer: once copied out), on
// the GEMM path as the tile buffer is written to the result.
void ConvUnitsWithEpilogue(const ConvPlan& plan, const ConvBuffers& bufs, int64_t unit_begin,
                           int64_t unit_end, const ConvEpilogueStep* steps, int count);

// The disassembler's summary of a plan: types, GEMM sizes, path.
std::string ConvPlanText(const ConvPlan& plan, ElementType lhs, ElementType rhs);

// Whether the lowering runs `instr`, a convolution, as a dot instead of a
// ConvPlan: its window covers its whole (unpadded, undilated) input, so it
// has one output position (ops/dot/conv_lower.cc).
bool ConvRunsAsDot(const HloInstruction& instr);

namespace conv_internal {
// For each of `npos` positions p: outs[p][c] = sum_w rows[p * ksp + w][c] *
// kernel[w * channels + c], one fused multiply-add per term in window order
// (conv_hwy.cc).
void HwyDepthwiseF32(const float* const* rows, const float* kernel, int64_t ksp,
                     int64_t channels, int64_t npos, float* const* outs);
// acc[i] = fma(in[i], k, acc[i]) for i in [0, n).
void HwyFmaRowF32(const float* in, float k, float* acc, int64_t n);
// One window row of 16 groups of a batch-group weight gradient
// (ConvPlan::group_lanes; conv_hwy.cc): rows[y] the input row output row y
// reads, [width][cg][16] (null: padding), kernel [kw][cg][16], col [kw][ow]
// (input column or -1), acc [oh * ow][16].
void HwyBatchGroupRowF32(const float* const* rows, const float* kernel, const int32_t* col,
                         int64_t oh, int64_t ow, int64_t kw, int64_t cg, float* acc);
// Rows of bf16 bits widened to f32 (exact), src rows src_stride elements
// apart, dst rows dst_stride apart.
void HwyWidenBF16Rows(const uint16_t* src, int64_t src_stride, float* dst, int64_t dst_stride,
                      int64_t rows, int64_t cols);
// Depthwise by channel columns (ConvPlan::depthwise_columns): one batch
// element's block of `lanes` (<= HwyDepthwiseColumnLanes()) channels.
struct DepthwiseColumnArgs {
  const void* in = nullptr;  // channel c0 of the batch element (f32 or bf16)
  bool in_bf16 = false;
  int64_t in_row = 0, in_col = 0;  // element strides of input rows and columns
  int64_t in_h = 0, in_w = 0;
  // The interleaved plane (pad_h x pad_w positions of HwyDepthwiseColumnLanes()
  // floats; input position (y, x) at (pad_top + y, pad_left + x)).
  float* plane = nullptr;
  int64_t pad_h = 0, pad_w = 0, pad_top = 0, pad_left = 0;
  const float* weights = nullptr;  // [window position][lane]: the block's kernel
  int64_t kh = 0, kw = 0, sh = 1, sw = 1, dh = 1, dw = 1, oh = 0, ow = 0;
  void* out = nullptr;  // channel c0 of the batch element's result (f32 or bf16)
  bool out_bf16 = false;
  int64_t out_row = 0, out_col = 0;  // element strides of result rows and columns
  int64_t lanes = 0;
};
int64_t HwyDepthwiseColumnLanes();
// Fills the plane, then out(y, x)[l] = sum over window rows i, then columns
// j, of plane((y * sh + i * dh), (x * sw + j * dw))[l] *
// weights[(i * kw + j)][l], one fused multiply-add per term from zero.
void HwyDepthwiseColumnsF32(const DepthwiseColumnArgs& args);
// A planar depthwise plane over its zero-padded copy (ConvPlan::planar_padded):
// out[y * out_stride + x] = sum over (i, j) in window order of
// padded[(y * sh + i * dh) * pw + x * sw + j * dw] * weights[i * kw + j],
// fused multiply-adds from zero; `padded` readable a vector past its end.
void HwyPlanarPaddedPlaneF32(const float* padded, int64_t pw, int64_t oh, int64_t ow,
                             int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dh,
                             int64_t dw, const float* weights, float* out, int64_t out_stride);
// Direct path (ConvPlan::direct): the rows and columns of register tile
// `shape` (ConvPlan::tile_shape: 0 tall, 1 wide) on this machine, and one
// tile of nrows (1..HwyDirectTileRows(shape)) rows by
// HwyDirectTileCols(shape) columns: rows[w * HwyDirectTileRows(shape) + r]
// holds the cg input features that output row r reads at window position w
// (rows past nrows may be computed too: they must point at readable rows),
// the kernel's element (k, j) is kernel[(k - k0) * ldk + j], and the sums of
// terms k = w * cg + c in [k0, k1) go to out + r * ldo, continuing the sums
// stored there unless `first`: one fused multiply-add per term in k order.
// At the window positions w whose bit is set in `skip`, the rows that read
// `zeros` may be left out: the caller sets one only where the kernel's rows
// of w are finite (those terms add exactly nothing), and only for w < 64;
// for the tall tile (shape 0) only where every row reads zeros at w, for
// the wide tile where some row does. A window position where every row
// reads zeros is left out; in a whole wide tile, so is the one row that
// does (where one does).
int64_t HwyDirectTileRows(int shape);
int64_t HwyDirectTileCols(int shape);
void HwyDirectConvTileF32(int shape, const float* const* rows, int64_t nrows, int64_t cg,
                          int64_t k0, int64_t k1, const float* kernel, int64_t ldk, bool first,
                          float* out, int64_t ldo, uint64_t skip = 0, const float* zeros = nullptr);
// `tiles` whole tiles (HwyDirectTileRows(shape) rows each) one after
// another: tile t as HwyDirectConvTileF32 with rows + t * rows_stride,
// out + t * HwyDirectTileRows(shape) * ldo and skip[t] (none when skip is
// null), `zeros` as there. With `nsteps` epilogue steps, the sums go
// through them before they are stored; out[0] is result element `index0`
// and ldo the result's features (channels()).
void HwyDirectConvTilesF32(int shape, const float* const* rows, int64_t tiles, int64_t rows_stride,
                           int64_t cg, int64_t k0, int64_t k1, const float* kernel, int64_t ldk,
                           bool first, float* out, int64_t ldo, const uint64_t* skip = nullptr,
                           const float* zeros = nullptr, const ConvEpilogueStep* steps = nullptr,
                           int nsteps = 0, int64_t index0 = 0);
// The input rows of n rows of a tile from the offset table
// (ConvPlan::window_offsets at the first row's position): rows[w * ld + r]
// = base + offs[w * stride + r], or `zeros` where that offset is negative
// (padding), for r < n and window positions w < windows. Returns the
// window positions (bit w, for w < 64) at which some row reads input, and
// adds those at which some row reads padding to `pads`.
uint64_t HwyDirectTileInputs(const int32_t* offs, int64_t stride, int64_t windows, int64_t n,
                             int64_t ld, const float* base, const float* zeros, const float** rows,
                             uint64_t* pads);
// Whether every element of rows [0, nrows) x columns [0, ncols) at
// p + row * ld is finite.
bool HwyAllFiniteF32(const float* p, int64_t nrows, int64_t ncols, int64_t ld);
// out[i] = the epilogue steps applied to sums[i] for result elements
// index0 + i, i in [0, n), of a result with `channels` features innermost
// (sums may be out).
void HwyConvEpilogueF32(const ConvEpilogueStep* steps, int nsteps, const float* sums,
                        float* out, int64_t index0, int64_t n, int64_t channels);
}  // namespace conv_internal

}  // namespace hlovm

#endif  // HLOVM_OPS_DOT_CONV_H_
