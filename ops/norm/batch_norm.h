// Kernels of batch-norm-training, batch-norm-inference and batch-norm-grad,
// with the arithmetic of XLA's BatchNormExpander (the CPU backend expands the
// three ops into elementwise operations and reductions):
//   training:  mean = sum(x)/N, var = sum(x*x)/N - mean*mean,
//              y = (x - mean) * rsqrt(var + eps) * scale + offset
//   inference: s = scale * rsqrt(var + eps), t = offset - mean * s,
//              y = x * s + t
//   grad:      sg = sum(gy), sgd = sum(gy * (x - mean)), r = rsqrt(var + eps),
//              grad_scale = sgd * r, grad_offset = sg,
//              gx = (scale * r / N) * ((gy * N - sg) - (sgd * (x - mean)) / (var + eps))
// N is the number of elements per feature. The operand is seen as
// [outer, features, inner] around feature_index. Work is split by feature
// ranges: each feature is always computed by one call in one order, so the
// results do not depend on how ranges are grouped or on the thread count.
// f16 and bf16 are computed in f32 and rounded once at the end.
#ifndef HLOVM_OPS_NORM_BATCH_NORM_H_
#define HLOVM_OPS_NORM_BATCH_NORM_H_

#include <cstdint>

#include "core/element_type.h"
#include "core/shape.h"

namespace hlovm {

struct BatchNormGeometry {
  int64_t outer = 1, features = 1, inner = 1;
  int64_t per_feature() const { return outer * inner; }
};

BatchNormGeometry MakeBatchNormGeometry(const Shape& operand, int64_t feature_index);
// True for f16, bf16, f32 and f64.
bool BatchNormSupports(ElementType type);

// Each runs features [f0, f1). Pointers are arrays of `type` (operand-shaped
// or [features]).
void BatchNormTraining(ElementType type, const BatchNormGeometry& g, const void* x,
                       const void* scale, const void* offset, float epsilon, void* y, void* mean,
                       void* var, int64_t f0, int64_t f1);
void BatchNormInference(ElementType type, const BatchNormGeometry& g, const void* x,
                        const void* scale, const void* offset, const void* mean, const void* var,
                        float epsilon, void* y, int64_t f0, int64_t f1);
void BatchNormGrad(ElementType type, const BatchNormGeometry& g, const void* x, const void* scale,
                   const void* mean, const void* var, const void* grad_y, float epsilon,
                   void* grad_x, void* grad_scale, void* grad_offset, int64_t f0, int64_t f1);

// Row mode, for f32/f64 operands whose feature dimension is the minor one
// (inner == 1, e.g. NHWC): splitting by features would make every task read
// the whole array, so the rows are split instead, in fixed chunks of
// `rows_per_chunk` rows. Sums are formed per chunk and added in chunk order,
// so they do not depend on the thread count either.
enum class BatchNormOp : uint8_t { kTraining, kInference, kGrad };
bool BatchNormRowModeSupports(ElementType type);
// Per-chunk partial sums for chunk `c` into partial[2*features] (element
// type): training sum(x), sum(x*x); grad sum(gy), sum(gy*(x-mean)).
void BatchNormRowPartials(ElementType type, BatchNormOp op, const BatchNormGeometry& g,
                          int64_t rows_per_chunk, int64_t c, const void* x, const void* grad_y,
                          const void* mean, void* partial);
// Adds the partials of `chunks` chunks in order, writes the per-feature
// results (training: mean, var; grad: grad_scale, grad_offset) and the
// per-feature constants of the elementwise pass into consts[4*features].
// Arguments an op does not have are null.
void BatchNormRowFinish(ElementType type, BatchNormOp op, const BatchNormGeometry& g,
                        int64_t chunks, const void* partials, const void* scale,
                        const void* offset, const void* mean, const void* var, float epsilon,
                        void* out1, void* out2, void* consts);
// The elementwise pass over the rows of chunks [c0, c1).
void BatchNormRowApply(ElementType type, BatchNormOp op, const BatchNormGeometry& g,
                       int64_t rows_per_chunk, int64_t c0, int64_t c1, const void* x,
                       const void* grad_y, const void* consts, const void* var, float epsilon,
                       void* out);

}  // namespace hlovm

#endif  // HLOVM_OPS_NORM_BATCH_NORM_H_
