#include "ops/norm/batch_norm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/float_format.h"
#include "ops/norm/batch_norm_hwy.h"

namespace hlovm {
namespace {

constexpr int kLanes = 8;  // independent accumulators (vectorised by the compiler)

// s += sum(p[0..n)), q += sum(p*p).
template <typename T>
void SumAndSquares(const T* p, int64_t n, T& s, T& q) {
  T a[kLanes] = {}, b[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      a[l] += p[i + l];
      b[l] += p[i + l] * p[i + l];
    }
  }
  for (int l = 0; i < n; ++i, ++l) {
    a[l] += p[i];
    b[l] += p[i] * p[i];
  }
  for (int l = 0; l < kLanes; ++l) {
    s += a[l];
    q += b[l];
  }
}

// s += sum(gy), d += sum(gy * (x - m)).
template <typename T>
void GradSums(const T* gy, const T* x, T m, int64_t n, T& s, T& d) {
  T a[kLanes] = {}, b[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      a[l] += gy[i + l];
      b[l] += gy[i + l] * (x[i + l] - m);
    }
  }
  for (int l = 0; i < n; ++i, ++l) {
    a[l] += gy[i];
    b[l] += gy[i] * (x[i] - m);
  }
  for (int l = 0; l < kLanes; ++l) {
    s += a[l];
    d += b[l];
  }
}

template <typename T>
T Rsqrt(T v) {
  return T(1) / std::sqrt(v);
}

template <typename T>
void Training(const BatchNormGeometry& g, const T* x, const T* scale, const T* offset, T eps, T* y,
              T* mean, T* var, int64_t f0, int64_t f1) {
  const int64_t F = g.features, inner = g.inner, nf = f1 - f0;
  const T n = static_cast<T>(g.per_feature());
  std::vector<T> sum(nf, T(0)), sq(nf, T(0));
  if (inner == 1) {
    for (int64_t o = 0; o < g.outer; ++o) {
      norm_internal::AccSumSq(x + o * F + f0, sum.data(), sq.data(), nf);
    }
  } else {
    for (int64_t f = 0; f < nf; ++f) {
      for (int64_t o = 0; o < g.outer; ++o) {
        SumAndSquares(x + (o * F + f0 + f) * inner, inner, sum[f], sq[f]);
      }
    }
  }
  std::vector<T> m(nf), rs(nf), sc(nf), of(nf);
  for (int64_t f = 0; f < nf; ++f) {
    m[f] = sum[f] / n;
    const T v = sq[f] / n - m[f] * m[f];
    mean[f0 + f] = m[f];
    var[f0 + f] = v;
    rs[f] = Rsqrt(v + eps);
    sc[f] = scale[f0 + f];
    of[f] = offset[f0 + f];
  }
  for (int64_t o = 0; o < g.outer; ++o) {
    if (inner == 1) {
      norm_internal::ApplyTrain(x + o * F + f0, m.data(), rs.data(), sc.data(), of.data(),
                                y + o * F + f0, nf);
      continue;
    }
    for (int64_t f = 0; f < nf; ++f) {
      const T* xr = x + (o * F + f0 + f) * inner;
      T* yr = y + (o * F + f0 + f) * inner;
      const T mf = m[f], rf = rs[f], sf = sc[f], bf = of[f];
      for (int64_t i = 0; i < inner; ++i) yr[i] = (xr[i] - mf) * rf * sf + bf;
    }
  }
}

template <typename T>
void Inference(const BatchNormGeometry& g, const T* x, const T* scale, const T* offset,
               const T* mean, const T* var, T eps, T* y, int64_t f0, int64_t f1) {
  const int64_t F = g.features, inner = g.inner, nf = f1 - f0;
  std::vector<T> s(nf), t(nf);
  for (int64_t f = 0; f < nf; ++f) {
    s[f] = scale[f0 + f] * Rsqrt(var[f0 + f] + eps);
    t[f] = offset[f0 + f] - mean[f0 + f] * s[f];
  }
  for (int64_t o = 0; o < g.outer; ++o) {
    if (inner == 1) {
      norm_internal::ApplyInfer(x + o * F + f0, s.data(), t.data(), y + o * F + f0, nf);
      continue;
    }
    for (int64_t f = 0; f < nf; ++f) {
      const T* xr = x + (o * F + f0 + f) * inner;
      T* yr = y + (o * F + f0 + f) * inner;
      const T sf = s[f], tf = t[f];
      for (int64_t i = 0; i < inner; ++i) yr[i] = xr[i] * sf + tf;
    }
  }
}

template <typename T>
void Grad(const BatchNormGeometry& g, const T* x, const T* scale, const T* mean, const T* var,
          const T* gy, T eps, T* gx, T* gscale, T* goffset, int64_t f0, int64_t f1) {
  const int64_t F = g.features, inner = g.inner, nf = f1 - f0;
  const T n = static_cast<T>(g.per_feature());
  std::vector<T> sg(nf, T(0)), sd(nf, T(0)), m(nf);
  for (int64_t f = 0; f < nf; ++f) m[f] = mean[f0 + f];
  if (inner == 1) {
    for (int64_t o = 0; o < g.outer; ++o) {
      norm_internal::AccGrad(gy + o * F + f0, x + o * F + f0, m.data(), sg.data(), sd.data(), nf);
    }
  } else {
    for (int64_t f = 0; f < nf; ++f) {
      for (int64_t o = 0; o < g.outer; ++o) {
        const int64_t at = (o * F + f0 + f) * inner;
        GradSums(gy + at, x + at, m[f], inner, sg[f], sd[f]);
      }
    }
  }
  // coef = scale * rsqrt(var + eps) / N; ve = var + eps.
  std::vector<T> coef(nf), ve(nf);
  for (int64_t f = 0; f < nf; ++f) {
    ve[f] = var[f0 + f] + eps;
    const T r = Rsqrt(ve[f]);
    gscale[f0 + f] = sd[f] * r;
    goffset[f0 + f] = sg[f];
    coef[f] = scale[f0 + f] * r / n;
  }
  for (int64_t o = 0; o < g.outer; ++o) {
    if (inner == 1) {
      const int64_t at = o * F + f0;
      norm_internal::ApplyGrad(x + at, gy + at, m.data(), coef.data(), sg.data(), sd.data(),
                               ve.data(), n, gx + at, nf);
      continue;
    }
    for (int64_t f = 0; f < nf; ++f) {
      const int64_t at = (o * F + f0 + f) * inner;
      const T mf = m[f], cf = coef[f], sgf = sg[f], sdf = sd[f], vf = ve[f];
      for (int64_t i = 0; i < inner; ++i) {
        const T d = x[at + i] - mf;
        gx[at + i] = cf * ((gy[at + i] * n - sgf) - sdf * d / vf);
      }
    }
  }
}

// 16-bit floats: the features [f0, f1) are copied to f32, computed, rounded.
float Load16(ElementType t, uint16_t b) { return t == ElementType::kF16 ? HalfToFloat(b) : BFloat16ToFloat(b); }
uint16_t Store16(ElementType t, float v) { return t == ElementType::kF16 ? FloatToHalf(v) : FloatToBFloat16(v); }

// Gathers the [outer, f0..f1, inner] slab of a 16-bit operand as f32.
std::vector<float> Gather16(ElementType t, const BatchNormGeometry& g, const void* p, int64_t f0,
                            int64_t f1) {
  const uint16_t* s = static_cast<const uint16_t*>(p);
  const int64_t nf = f1 - f0, run = nf * g.inner;
  std::vector<float> out(g.outer * run);
  for (int64_t o = 0; o < g.outer; ++o) {
    const uint16_t* src = s + (o * g.features + f0) * g.inner;
    for (int64_t i = 0; i < run; ++i) out[o * run + i] = Load16(t, src[i]);
  }
  return out;
}
void Scatter16(ElementType t, const BatchNormGeometry& g, const std::vector<float>& v, void* p,
               int64_t f0, int64_t f1) {
  uint16_t* d = static_cast<uint16_t*>(p);
  const int64_t nf = f1 - f0, run = nf * g.inner;
  for (int64_t o = 0; o < g.outer; ++o) {
    uint16_t* dst = d + (o * g.features + f0) * g.inner;
    for (int64_t i = 0; i < run; ++i) dst[i] = Store16(t, v[o * run + i]);
  }
}
std::vector<float> Features16(ElementType t, const void* p, int64_t f0, int64_t f1) {
  const uint16_t* s = static_cast<const uint16_t*>(p);
  std::vector<float> out(f1 - f0);
  for (int64_t f = f0; f < f1; ++f) out[f - f0] = Load16(t, s[f]);
  return out;
}
void StoreFeatures16(ElementType t, const std::vector<float>& v, void* p, int64_t f0) {
  uint16_t* d = static_cast<uint16_t*>(p);
  for (size_t f = 0; f < v.size(); ++f) d[f0 + f] = Store16(t, v[f]);
}
// epsilon as the element type holds it (XLA converts the attribute).
float Epsilon16(ElementType t, float eps) { return Load16(t, Store16(t, eps)); }

}  // namespace

BatchNormGeometry MakeBatchNormGeometry(const Shape& operand, int64_t feature_index) {
  BatchNormGeometry g;
  const auto dims = operand.dimensions();
  g.features = dims[feature_index];
  for (int64_t i = 0; i < feature_index; ++i) g.outer *= dims[i];
  for (int64_t i = feature_index + 1; i < static_cast<int64_t>(dims.size()); ++i) g.inner *= dims[i];
  return g;
}

bool BatchNormSupports(ElementType type) {
  return type == ElementType::kF32 || type == ElementType::kF64 || type == ElementType::kF16 ||
         type == ElementType::kBF16;
}

void BatchNormTraining(ElementType type, const BatchNormGeometry& g, const void* x,
                       const void* scale, const void* offset, float epsilon, void* y, void* mean,
                       void* var, int64_t f0, int64_t f1) {
  if (f1 <= f0) return;
  if (type == ElementType::kF32) {
    Training<float>(g, static_cast<const float*>(x), static_cast<const float*>(scale),
                    static_cast<const float*>(offset), epsilon, static_cast<float*>(y),
                    static_cast<float*>(mean), static_cast<float*>(var), f0, f1);
  } else if (type == ElementType::kF64) {
    Training<double>(g, static_cast<const double*>(x), static_cast<const double*>(scale),
                     static_cast<const double*>(offset), epsilon, static_cast<double*>(y),
                     static_cast<double*>(mean), static_cast<double*>(var), f0, f1);
  } else {
    const BatchNormGeometry s{g.outer, f1 - f0, g.inner};
    std::vector<float> xs = Gather16(type, g, x, f0, f1), ys(xs.size());
    std::vector<float> sc = Features16(type, scale, f0, f1), of = Features16(type, offset, f0, f1);
    std::vector<float> m(f1 - f0), v(f1 - f0);
    Training<float>(s, xs.data(), sc.data(), of.data(), Epsilon16(type, epsilon), ys.data(),
                    m.data(), v.data(), 0, f1 - f0);
    Scatter16(type, g, ys, y, f0, f1);
    StoreFeatures16(type, m, mean, f0);
    StoreFeatures16(type, v, var, f0);
  }
}

void BatchNormInference(ElementType type, const BatchNormGeometry& g, const void* x,
                        const void* scale, const void* offset, const void* mean, const void* var,
                        float epsilon, void* y, int64_t f0, int64_t f1) {
  if (f1 <= f0) return;
  if (type == ElementType::kF32) {
    Inference<float>(g, static_cast<const float*>(x), static_cast<const float*>(scale),
                     static_cast<const float*>(offset), static_cast<const float*>(mean),
                     static_cast<const float*>(var), epsilon, static_cast<float*>(y), f0, f1);
  } else if (type == ElementType::kF64) {
    Inference<double>(g, static_cast<const double*>(x), static_cast<const double*>(scale),
                      static_cast<const double*>(offset), static_cast<const double*>(mean),
                      static_cast<const double*>(var), epsilon, static_cast<double*>(y), f0, f1);
  } else {
    const BatchNormGeometry s{g.outer, f1 - f0, g.inner};
    std::vector<float> xs = Gather16(type, g, x, f0, f1), ys(xs.size());
    std::vector<float> sc = Features16(type, scale, f0, f1), of = Features16(type, offset, f0, f1);
    std::vector<float> m = Features16(type, mean, f0, f1), v = Features16(type, var, f0, f1);
    Inference<float>(s, xs.data(), sc.data(), of.data(), m.data(), v.data(),
                     Epsilon16(type, epsilon), ys.data(), 0, f1 - f0);
    Scatter16(type, g, ys, y, f0, f1);
  }
}

void BatchNormGrad(ElementType type, const BatchNormGeometry& g, const void* x, const void* scale,
                   const void* mean, const void* var, const void* grad_y, float epsilon,
                   void* grad_x, void* grad_scale, void* grad_offset, int64_t f0, int64_t f1) {
  if (f1 <= f0) return;
  if (type == ElementType::kF32) {
    Grad<float>(g, static_cast<const float*>(x), static_cast<const float*>(scale),
                static_cast<const float*>(mean), static_cast<const float*>(var),
                static_cast<const float*>(grad_y), epsilon, static_cast<float*>(grad_x),
                static_cast<float*>(grad_scale), static_cast<float*>(grad_offset), f0, f1);
  } else if (type == ElementType::kF64) {
    Grad<double>(g, static_cast<const double*>(x), static_cast<const double*>(scale),
                 static_cast<const double*>(mean), static_cast<const double*>(var),
                 static_cast<const double*>(grad_y), epsilon, static_cast<double*>(grad_x),
                 static_cast<double*>(grad_scale), static_cast<double*>(grad_offset), f0, f1);
  } else {
    const BatchNormGeometry s{g.outer, f1 - f0, g.inner};
    std::vector<float> xs = Gather16(type, g, x, f0, f1), gys = Gather16(type, g, grad_y, f0, f1);
    std::vector<float> gxs(xs.size());
    std::vector<float> sc = Features16(type, scale, f0, f1), m = Features16(type, mean, f0, f1),
                       v = Features16(type, var, f0, f1);
    std::vector<float> gs(f1 - f0), go(f1 - f0);
    Grad<float>(s, xs.data(), sc.data(), m.data(), v.data(), gys.data(), Epsilon16(type, epsilon),
                gxs.data(), gs.data(), go.data(), 0, f1 - f0);
    Scatter16(type, g, gxs, grad_x, f0, f1);
    StoreFeatures16(type, gs, grad_scale, f0);
    StoreFeatures16(type, go, grad_offset, f0);
  }
}

namespace {

template <typename T>
void RowPartials(BatchNormOp op, const BatchNormGeometry& g, int64_t rows_per_chunk, int64_t c,
                 const T* x, const T* gy, const T* mean, T* partial) {
  const int64_t F = g.features;
  const int64_t r0 = c * rows_per_chunk, r1 = std::min(g.outer, r0 + rows_per_chunk);
  T* s = partial;
  T* q = partial + F;
  std::fill(partial, partial + 2 * F, T(0));
  if (op == BatchNormOp::kTraining) {
    for (int64_t r = r0; r < r1; ++r) norm_internal::AccSumSq(x + r * F, s, q, F);
  } else {
    for (int64_t r = r0; r < r1; ++r) norm_internal::AccGrad(gy + r * F, x + r * F, mean, s, q, F);
  }
}

// consts: training {mean, rsqrt(var + eps), scale, offset}; inference
// {s, t}; grad {mean, scale * rsqrt(var + eps) / N, sum(gy), sum(gy*(x-mean))}.
template <typename T>
void RowFinish(BatchNormOp op, const BatchNormGeometry& g, int64_t chunks, const T* partials,
               const T* scale, const T* offset, const T* mean, const T* var, T eps, T* out1,
               T* out2, T* consts) {
  const int64_t F = g.features;
  const T n = static_cast<T>(g.per_feature());
  T* c0 = consts;
  T* c1 = consts + F;
  T* c2 = consts + 2 * F;
  T* c3 = consts + 3 * F;
  if (op == BatchNormOp::kInference) {
    for (int64_t f = 0; f < F; ++f) {
      c0[f] = scale[f] * Rsqrt(var[f] + eps);
      c1[f] = offset[f] - mean[f] * c0[f];
    }
    return;
  }
  std::vector<T> s(F, T(0)), q(F, T(0));
  for (int64_t c = 0; c < chunks; ++c) {
    const T* p = partials + c * 2 * F;
    for (int64_t f = 0; f < F; ++f) {
      s[f] += p[f];
      q[f] += p[F + f];
    }
  }
  if (op == BatchNormOp::kTraining) {
    for (int64_t f = 0; f < F; ++f) {
      const T m = s[f] / n;
      const T v = q[f] / n - m * m;
      out1[f] = m;
      out2[f] = v;
      c0[f] = m;
      c1[f] = Rsqrt(v + eps);
      c2[f] = scale[f];
      c3[f] = offset[f];
    }
    return;
  }
  for (int64_t f = 0; f < F; ++f) {  // grad
    const T ve = var[f] + eps;
    const T r = Rsqrt(ve);
    out1[f] = q[f] * r;
    out2[f] = s[f];
    c0[f] = mean[f];
    c1[f] = scale[f] * r / n;
    c2[f] = s[f];
    c3[f] = q[f];
  }
}

template <typename T>
// Rows [r0, r1) of a [rows, F] operand; n: elements per feature.
void RowApply(BatchNormOp op, int64_t F, T n, int64_t r0, int64_t r1, const T* x, const T* gy,
              const T* consts, const T* var, T eps, T* out) {
  const T* c0 = consts;
  const T* c1 = consts + F;
  const T* c2 = consts + 2 * F;
  const T* c3 = consts + 3 * F;
  std::vector<T> ve;
  if (op == BatchNormOp::kGrad) {
    ve.resize(F);
    for (int64_t f = 0; f < F; ++f) ve[f] = var[f] + eps;
  }
  for (int64_t r = r0; r < r1; ++r) {
    if (op == BatchNormOp::kTraining) {
      norm_internal::ApplyTrain(x + r * F, c0, c1, c2, c3, out + r * F, F);
    } else if (op == BatchNormOp::kInference) {
      norm_internal::ApplyInfer(x + r * F, c0, c1, out + r * F, F);
    } else {
      norm_internal::ApplyGrad(x + r * F, gy + r * F, c0, c1, c2, c3, ve.data(), n, out + r * F, F);
    }
  }
}

}  // namespace

namespace {

// 16-bit row mode: rows are widened to f32, computed, and rounded back.
bool Is16(ElementType t) { return t == ElementType::kF16 || t == ElementType::kBF16; }

void Widen(ElementType t, const void* p, int64_t at, int64_t n, float* out) {
  const uint16_t* s = static_cast<const uint16_t*>(p) + at;
  for (int64_t i = 0; i < n; ++i) out[i] = Load16(t, s[i]);
}
void Narrow(ElementType t, const float* v, int64_t n, void* p, int64_t at) {
  uint16_t* d = static_cast<uint16_t*>(p) + at;
  for (int64_t i = 0; i < n; ++i) d[i] = Store16(t, v[i]);
}

void RowPartials16(ElementType t, BatchNormOp op, const BatchNormGeometry& g,
                   int64_t rows_per_chunk, int64_t c, const void* x, const void* gy,
                   const void* mean, float* partial) {
  const int64_t F = g.features;
  const int64_t r0 = c * rows_per_chunk, r1 = std::min(g.outer, r0 + rows_per_chunk);
  std::fill(partial, partial + 2 * F, 0.f);
  std::vector<float> xr(F), gr(F), m(F);
  if (op == BatchNormOp::kGrad) Widen(t, mean, 0, F, m.data());
  for (int64_t r = r0; r < r1; ++r) {
    Widen(t, x, r * F, F, xr.data());
    if (op == BatchNormOp::kTraining) {
      norm_internal::AccSumSq(xr.data(), partial, partial + F, F);
    } else {
      Widen(t, gy, r * F, F, gr.data());
      norm_internal::AccGrad(gr.data(), xr.data(), m.data(), partial, partial + F, F);
    }
  }
}

}  // namespace

bool BatchNormRowModeSupports(ElementType type) {
  return type == ElementType::kF32 || type == ElementType::kF64 || Is16(type);
}

void BatchNormRowPartials(ElementType type, BatchNormOp op, const BatchNormGeometry& g,
                          int64_t rows_per_chunk, int64_t c, const void* x, const void* grad_y,
                          const void* mean, void* partial) {
  if (Is16(type)) {
    RowPartials16(type, op, g, rows_per_chunk, c, x, grad_y, mean, static_cast<float*>(partial));
  } else if (type == ElementType::kF32) {
    RowPartials<float>(op, g, rows_per_chunk, c, static_cast<const float*>(x),
                       static_cast<const float*>(grad_y), static_cast<const float*>(mean),
                       static_cast<float*>(partial));
  } else {
    RowPartials<double>(op, g, rows_per_chunk, c, static_cast<const double*>(x),
                        static_cast<const double*>(grad_y), static_cast<const double*>(mean),
                        static_cast<double*>(partial));
  }
}

void BatchNormRowFinish(ElementType type, BatchNormOp op, const BatchNormGeometry& g,
                        int64_t chunks, const void* partials, const void* scale,
                        const void* offset, const void* mean, const void* var, float epsilon,
                        void* out1, void* out2, void* consts) {
  if (Is16(type)) {
    const int64_t F = g.features;
    std::vector<float> sc(F), of(F), m(F), v(F), o1(F), o2(F);
    if (scale != nullptr) Widen(type, scale, 0, F, sc.data());
    if (offset != nullptr) Widen(type, offset, 0, F, of.data());
    if (mean != nullptr) Widen(type, mean, 0, F, m.data());
    if (var != nullptr) Widen(type, var, 0, F, v.data());
    RowFinish<float>(op, g, chunks, static_cast<const float*>(partials), sc.data(), of.data(),
                     m.data(), v.data(), Epsilon16(type, epsilon), o1.data(), o2.data(),
                     static_cast<float*>(consts));
    if (out1 != nullptr) Narrow(type, o1.data(), F, out1, 0);
    if (out2 != nullptr) Narrow(type, o2.data(), F, out2, 0);
  } else if (type == ElementType::kF32) {
    RowFinish<float>(op, g, chunks, static_cast<const float*>(partials),
                     static_cast<const float*>(scale), static_cast<const float*>(offset),
                     static_cast<const float*>(mean), static_cast<const float*>(var), epsilon,
                     static_cast<float*>(out1), static_cast<float*>(out2),
                     static_cast<float*>(consts));
  } else {
    RowFinish<double>(op, g, chunks, static_cast<const double*>(partials),
                      static_cast<const double*>(scale), static_cast<const double*>(offset),
                      static_cast<const double*>(mean), static_cast<const double*>(var), epsilon,
                      static_cast<double*>(out1), static_cast<double*>(out2),
                      static_cast<double*>(consts));
  }
}

void BatchNormRowApply(ElementType type, BatchNormOp op, const BatchNormGeometry& g,
                       int64_t rows_per_chunk, int64_t c0, int64_t c1, const void* x,
                       const void* grad_y, const void* consts, const void* var, float epsilon,
                       void* out) {
  if (Is16(type)) {
    const int64_t F = g.features;
    std::vector<float> v(F), xr(F), gr(F), yr(F);
    if (var != nullptr) Widen(type, var, 0, F, v.data());
    const float n = static_cast<float>(g.per_feature());
    for (int64_t r = c0 * rows_per_chunk; r < std::min(g.outer, c1 * rows_per_chunk); ++r) {
      Widen(type, x, r * F, F, xr.data());
      if (grad_y != nullptr) Widen(type, grad_y, r * F, F, gr.data());
      RowApply<float>(op, F, n, 0, 1, xr.data(), gr.data(), static_cast<const float*>(consts),
                      v.data(), Epsilon16(type, epsilon), yr.data());
      Narrow(type, yr.data(), F, out, r * F);
    }
  } else if (type == ElementType::kF32) {
    RowApply<float>(op, g.features, static_cast<float>(g.per_feature()), c0 * rows_per_chunk,
                    std::min(g.outer, c1 * rows_per_chunk), static_cast<const float*>(x),
                    static_cast<const float*>(grad_y), static_cast<const float*>(consts),
                    static_cast<const float*>(var), epsilon, static_cast<float*>(out));
  } else {
    RowApply<double>(op, g.features, static_cast<double>(g.per_feature()), c0 * rows_per_chunk,
                     std::min(g.outer, c1 * rows_per_chunk), static_cast<const double*>(x),
                     static_cast<const double*>(grad_y), static_cast<const double*>(consts),
                     static_cast<const double*>(var), epsilon, static_cast<double*>(out));
  }
}

}  // namespace hlovm
