// Highway kernels of ops/norm/batch_norm_hwy.h, compiled once per SIMD target.
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/norm/batch_norm_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// clang-format on

#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace norm_internal {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

template <typename T>
HWY_INLINE void AccSumSqT(const T* HWY_RESTRICT x, T* HWY_RESTRICT s, T* HWY_RESTRICT q,
                          int64_t n) {
  const hn::ScalableTag<T> d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    const auto v = hn::LoadU(d, x + i);
    hn::StoreU(hn::Add(hn::LoadU(d, s + i), v), d, s + i);
    hn::StoreU(hn::Add(hn::LoadU(d, q + i), hn::Mul(v, v)), d, q + i);
  }
  for (; i < n; ++i) {
    s[i] += x[i];
    q[i] += x[i] * x[i];
  }
}

template <typename T>
HWY_INLINE void AccGradT(const T* HWY_RESTRICT gy, const T* HWY_RESTRICT x, const T* HWY_RESTRICT m,
                         T* HWY_RESTRICT s, T* HWY_RESTRICT q, int64_t n) {
  const hn::ScalableTag<T> d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    const auto g = hn::LoadU(d, gy + i);
    const auto dx = hn::Sub(hn::LoadU(d, x + i), hn::LoadU(d, m + i));
    hn::StoreU(hn::Add(hn::LoadU(d, s + i), g), d, s + i);
    hn::StoreU(hn::Add(hn::LoadU(d, q + i), hn::Mul(g, dx)), d, q + i);
  }
  for (; i < n; ++i) {
    s[i] += gy[i];
    q[i] += gy[i] * (x[i] - m[i]);
  }
}

template <typename T>
HWY_INLINE void ApplyTrainT(const T* HWY_RESTRICT x, const T* HWY_RESTRICT m,
                            const T* HWY_RESTRICT r, const T* HWY_RESTRICT sc,
                            const T* HWY_RESTRICT of, T* HWY_RESTRICT y, int64_t n) {
  const hn::ScalableTag<T> d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    auto v = hn::Sub(hn::LoadU(d, x + i), hn::LoadU(d, m + i));
    v = hn::Mul(hn::Mul(v, hn::LoadU(d, r + i)), hn::LoadU(d, sc + i));
    hn::StoreU(hn::Add(v, hn::LoadU(d, of + i)), d, y + i);
  }
  for (; i < n; ++i) y[i] = (x[i] - m[i]) * r[i] * sc[i] + of[i];
}

template <typename T>
HWY_INLINE void ApplyInferT(const T* HWY_RESTRICT x, const T* HWY_RESTRICT s,
                            const T* HWY_RESTRICT t, T* HWY_RESTRICT y, int64_t n) {
  const hn::ScalableTag<T> d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    const auto v = hn::Mul(hn::LoadU(d, x + i), hn::LoadU(d, s + i));
    hn::StoreU(hn::Add(v, hn::LoadU(d, t + i)), d, y + i);
  }
  for (; i < n; ++i) y[i] = x[i] * s[i] + t[i];
}

template <typename T>
HWY_INLINE void ApplyGradT(const T* HWY_RESTRICT x, const T* HWY_RESTRICT gy,
                           const T* HWY_RESTRICT m, const T* HWY_RESTRICT coef,
                           const T* HWY_RESTRICT sg, const T* HWY_RESTRICT sd,
                           const T* HWY_RESTRICT ve, T count, T* HWY_RESTRICT out, int64_t n) {
  const hn::ScalableTag<T> d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const auto vn = hn::Set(d, count);
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    const auto dx = hn::Sub(hn::LoadU(d, x + i), hn::LoadU(d, m + i));
    const auto i6 = hn::Sub(hn::Sub(hn::Mul(hn::LoadU(d, gy + i), vn), hn::LoadU(d, sg + i)),
                            hn::Div(hn::Mul(hn::LoadU(d, sd + i), dx), hn::LoadU(d, ve + i)));
    hn::StoreU(hn::Mul(hn::LoadU(d, coef + i), i6), d, out + i);
  }
  for (; i < n; ++i) {
    const T dx = x[i] - m[i];
    out[i] = coef[i] * ((gy[i] * count - sg[i]) - sd[i] * dx / ve[i]);
  }
}

void AccSumSqF32(const float* x, float* s, float* q, int64_t n) { AccSumSqT(x, s, q, n); }
void AccSumSqF64(const double* x, double* s, double* q, int64_t n) { AccSumSqT(x, s, q, n); }
void AccGradF32(const float* gy, const float* x, const float* m, float* s, float* q, int64_t n) {
  AccGradT(gy, x, m, s, q, n);
}
void AccGradF64(const double* gy, const double* x, const double* m, double* s, double* q,
                int64_t n) {
  AccGradT(gy, x, m, s, q, n);
}
void ApplyTrainF32(const float* x, const float* m, const float* r, const float* sc,
                   const float* of, float* y, int64_t n) {
  ApplyTrainT(x, m, r, sc, of, y, n);
}
void ApplyTrainF64(const double* x, const double* m, const double* r, const double* sc,
                   const double* of, double* y, int64_t n) {
  ApplyTrainT(x, m, r, sc, of, y, n);
}
void ApplyInferF32(const float* x, const float* s, const float* t, float* y, int64_t n) {
  ApplyInferT(x, s, t, y, n);
}
void ApplyInferF64(const double* x, const double* s, const double* t, double* y, int64_t n) {
  ApplyInferT(x, s, t, y, n);
}
void ApplyGradF32(const float* x, const float* gy, const float* m, const float* coef,
                  const float* sg, const float* sd, const float* ve, float count, float* out,
                  int64_t n) {
  ApplyGradT(x, gy, m, coef, sg, sd, ve, count, out, n);
}
void ApplyGradF64(const double* x, const double* gy, const double* m, const double* coef,
                  const double* sg, const double* sd, const double* ve, double count, double* out,
                  int64_t n) {
  ApplyGradT(x, gy, m, coef, sg, sd, ve, count, out, n);
}
int64_t NormTargetId() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace norm_internal
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "ops/norm/batch_norm_hwy.h"

namespace hlovm {
namespace norm_internal {

HWY_EXPORT(AccSumSqF32);
HWY_EXPORT(AccSumSqF64);
HWY_EXPORT(AccGradF32);
HWY_EXPORT(AccGradF64);
HWY_EXPORT(ApplyTrainF32);
HWY_EXPORT(ApplyTrainF64);
HWY_EXPORT(ApplyInferF32);
HWY_EXPORT(ApplyInferF64);
HWY_EXPORT(ApplyGradF32);
HWY_EXPORT(ApplyGradF64);
HWY_EXPORT(NormTargetId);

void AccSumSq(const float* x, float* s, float* q, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccSumSqF32)(x, s, q, n);
}
void AccSumSq(const double* x, double* s, double* q, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccSumSqF64)(x, s, q, n);
}
void AccGrad(const float* gy, const float* x, const float* m, float* s, float* q, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccGradF32)(gy, x, m, s, q, n);
}
void AccGrad(const double* gy, const double* x, const double* m, double* s, double* q, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccGradF64)(gy, x, m, s, q, n);
}
void ApplyTrain(const float* x, const float* m, const float* r, const float* sc, const float* of,
                float* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ApplyTrainF32)(x, m, r, sc, of, y, n);
}
void ApplyTrain(const double* x, const double* m, const double* r, const double* sc,
                const double* of, double* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ApplyTrainF64)(x, m, r, sc, of, y, n);
}
void ApplyInfer(const float* x, const float* s, const float* t, float* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ApplyInferF32)(x, s, t, y, n);
}
void ApplyInfer(const double* x, const double* s, const double* t, double* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ApplyInferF64)(x, s, t, y, n);
}
void ApplyGrad(const float* x, const float* gy, const float* m, const float* coef, const float* sg,
               const float* sd, const float* ve, float count, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ApplyGradF32)(x, gy, m, coef, sg, sd, ve, count, out, n);
}
void ApplyGrad(const double* x, const double* gy, const double* m, const double* coef,
               const double* sg, const double* sd, const double* ve, double count, double* out,
               int64_t n) {
  HWY_DYNAMIC_DISPATCH(ApplyGradF64)(x, gy, m, coef, sg, sd, ve, count, out, n);
}
const char* BatchNormSimdTarget() { return hwy::TargetName(HWY_DYNAMIC_DISPATCH(NormTargetId)()); }

}  // namespace norm_internal
}  // namespace hlovm
#endif  // HWY_ONCE
