// Vectorised loops of batch norm's row mode (feature dimension minor): each
// works across the features of one row, lane by lane, with separate multiplies
// and adds (no fused multiply-add), so every SIMD target and the scalar tail
// give the same bits. Dispatched at run time (Highway).
#ifndef HLOVM_OPS_NORM_BATCH_NORM_HWY_H_
#define HLOVM_OPS_NORM_BATCH_NORM_HWY_H_

#include <cstdint>

namespace hlovm {
namespace norm_internal {

// s[i] += x[i]; q[i] += x[i] * x[i].
void AccSumSq(const float* x, float* s, float* q, int64_t n);
void AccSumSq(const double* x, double* s, double* q, int64_t n);
// s[i] += gy[i]; q[i] += gy[i] * (x[i] - m[i]).
void AccGrad(const float* gy, const float* x, const float* m, float* s, float* q, int64_t n);
void AccGrad(const double* gy, const double* x, const double* m, double* s, double* q, int64_t n);
// y[i] = (x[i] - m[i]) * r[i] * sc[i] + of[i].
void ApplyTrain(const float* x, const float* m, const float* r, const float* sc, const float* of,
                float* y, int64_t n);
void ApplyTrain(const double* x, const double* m, const double* r, const double* sc,
                const double* of, double* y, int64_t n);
// y[i] = x[i] * s[i] + t[i].
void ApplyInfer(const float* x, const float* s, const float* t, float* y, int64_t n);
void ApplyInfer(const double* x, const double* s, const double* t, double* y, int64_t n);
// out[i] = coef[i] * ((gy[i] * count - sg[i]) - sd[i] * (x[i] - m[i]) / ve[i]).
void ApplyGrad(const float* x, const float* gy, const float* m, const float* coef, const float* sg,
               const float* sd, const float* ve, float count, float* out, int64_t n);
void ApplyGrad(const double* x, const double* gy, const double* m, const double* coef,
               const double* sg, const double* sd, const double* ve, double count, double* out,
               int64_t n);
// The SIMD target the dispatch picked, e.g. "AVX2".
const char* BatchNormSimdTarget();

}  // namespace norm_internal
}  // namespace hlovm

#endif  // HLOVM_OPS_NORM_BATCH_NORM_HWY_H_
