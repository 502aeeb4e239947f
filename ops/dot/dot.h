// dot (DotGeneral): plan and kernel. Each operand is rearranged into
// row-major [batch, m, k] (lhs) and [batch, k, n] (rhs) with the transpose
// kernel, converted to the compute type, multiplied by a GEMM kernel
// (ops/dot/gemm.h) and, when the result type differs from the compute type,
// converted back. The result's dimensions are the batch dimensions, then
// the lhs free ones, then the rhs free ones, as XLA orders them.
//
// Compute types follow XLA's CPU backend: integers are multiplied and summed
// with wrap-around in 32 or 64 bits (truncated to the result width), f16,
// bf16 and the 8/6/4-bit floats accumulate in f32 and round the result,
// pred computes an or of ands; operands are first converted to the compute
// type (e.g. s8 x s8 -> s32), except bf16 and f16 operands of an f32 dot,
// which the GEMM converts while packing them (GemmDims::Source).
#ifndef HLOVM_OPS_DOT_DOT_H_
#define HLOVM_OPS_DOT_DOT_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "core/shape.h"
#include "ops/dot/gemm.h"
#include "ops/elementwise/elementwise.h"
#include "ops/shape/transpose.h"

namespace hlovm {

// Below this many flops a dot runs on the calling thread (dot_lower.cc).
inline constexpr int64_t kParallelDotFlops = 4 * 1024 * 1024;
// A dot of at least kParallelDotFlops is split into at least this many GEMM
// units (GemmKernel::SplitUnits: smaller row or column blocks) while each
// keeps at least kDotMinUnitFlops: several units a thread for a few threads,
// even for a dot of a few rows or columns (whose default blocks make one
// unit). The units never depend on the thread count.
inline constexpr int64_t kDotWantedUnits = 8;
inline constexpr int64_t kDotMinUnitFlops = 1024 * 1024;

struct DotOperandPlan {
  ElementType type = ElementType::kF32;
  int elem_size = 0;
  int64_t element_count = 0;
  std::optional<TransposePlan> transpose;  // none when already in order
  // or read through strides (see GemmDims)
  UnaryKernel convert = nullptr;           // none when already the compute type
};

struct DotPlan {
  GemmDims dims;
  ElementType compute_type = ElementType::kF32;
  ElementType result_type = ElementType::kF32;
  int compute_size = 0;
  DotOperandPlan lhs, rhs;
  UnaryKernel result_convert = nullptr;  // compute type -> result type
  GemmKernel gemm;
  int64_t units = 0;  // GEMM work units (see GemmKernel)
  // Scratch bytes RunDot* needs (see DotScratch).
  int64_t scratch_bytes = 0;
  int64_t flops() const { return 2 * dims.batch * dims.m * dims.n * dims.k; }
};

// How an operand is rearranged into `order` (a transpose, unless already in
// that order or, with `strided`, read through strides) and converted to
// `compute` (unless the GEMM converts it while packing and not
// `always_convert`).
absl::StatusOr<DotOperandPlan> MakeDotOperandPlan(const Shape& shape,
                                                  const std::vector<int64_t>& order,
                                                  ElementType compute, bool strided,
                                                  bool always_convert = false);
// Runs the operand's steps (into `t_buf`, element_count * elem_size bytes,
// and `c_buf`, element_count compute elements); returns where its data in
// the new order lives (`src` itself when there was nothing to do).
const void* PrepareDotOperand(const DotOperandPlan& p, const void* src, uint8_t* t_buf,
                              uint8_t* c_buf);

// The element type dot computes in for a `result` type.
ElementType DotComputeType(ElementType result);

// `result` is the instruction's (already verified) shape; operands and result
// are row-major.
absl::StatusOr<DotPlan> MakeDotPlan(const Shape& lhs, const Shape& rhs, const Shape& result,
                                    const DotDimensionNumbers& dnums);

// Three steps: prepare operands, GEMM units (may run in parallel), finish.
// `scratch` holds plan.scratch_bytes bytes (16-byte aligned).
struct DotBuffers {
  const void* a = nullptr;  // [batch, m, k] in the compute type (or see dims.a_source)
  const void* b = nullptr;  // [batch, k, n]
  void* c = nullptr;        // [batch, m, n] in the compute type
};
DotBuffers DotPrepare(const DotPlan& plan, const void* lhs, const void* rhs, void* out,
                      void* scratch);
void DotGemmUnits(const DotPlan& plan, const DotBuffers& bufs, int64_t unit_begin,
                  int64_t unit_end);
void DotFinish(const DotPlan& plan, const DotBuffers& bufs, void* out);

// All three steps on one thread (tests, small dots).
void RunDot(const DotPlan& plan, const void* lhs, const void* rhs, void* out, void* scratch);

}  // namespace hlovm

#endif  // HLOVM_OPS_DOT_DOT_H_
