// convolution: plan and kernel. Every convolution (any dim_labels, strides,
// padding, lhs/rhs dilation, window reversal, feature and batch groups)
// runs as an implicit GEMM: for each group and output batch, tiles of output
// positions gather their input windows into a row block (im2col in a
// cache-sized tile) that the GEMM of ops/dot/gemm.h multiplies by the
// kernel, packed once per call as [group][window x input feature, output
// feature]. Depthwise f32 convolutions (one input and one output feature
// per group, features innermost in input and result) run a direct kernel
// vectorised over the features instead, with the same summation order.
//
// Compute types are dot's (DotComputeType): integers wrap around in 32 or 64
// bits, f16/bf16 and the narrow floats accumulate in f32 and round the
// result (as XLA's CPU backend upcasts them), pred is an or of ands. Each
// output element is one sequential sum over (window position, input
// feature), so results do not depend on tiling or the thread count.
#ifndef HLOVM_OPS_DOT_CONV_H_
#define HLOVM_OPS_DOT_CONV_H_

#include <cstdint>
#include <vector>

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
  int64_t units = 0;           // groups * tiles (depthwise: out_batch * tiles)
  GemmKernel gemm;
  // Depthwise direct path: units are (output batch, tile of positions) and
  // `packed` holds the kernel as [window position][feature] followed by a
  // row of zeros (the padding).
  bool depthwise = false;
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

// Three steps as for dot: prepare (convert operands, pack the kernel), units
// (may run in parallel, disjoint outputs), finish (convert the result).
struct ConvBuffers {
  const uint8_t* lhs = nullptr;  // compute type, row-major lhs
  const uint8_t* packed = nullptr;  // [groups][kdim][og] compute type
  uint8_t* out = nullptr;        // compute type, row-major result
};
ConvBuffers ConvPrepare(const ConvPlan& plan, const void* lhs, const void* rhs, void* out,
                        void* scratch);
void ConvUnits(const ConvPlan& plan, const ConvBuffers& bufs, int64_t unit_begin,
               int64_t unit_end);
void ConvFinish(const ConvPlan& plan, const ConvBuffers& bufs, void* out);

// All steps on the calling thread (tests).
absl::Status RunConv(const ConvPlan& plan, const void* lhs, const void* rhs, void* out);

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
}  // namespace conv_internal

}  // namespace hlovm

#endif  // HLOVM_OPS_DOT_CONV_H_
