// Highway micro-kernel and blocked driver of the f32/f64 GEMM, compiled once
// per SIMD target by gemm_hwy.cc. Register tile: 6 rows x 2 vectors of C.
// A is packed in 6-row strips and B in 2-vector-wide column strips per
// (row block, column block, k block); C tiles are loaded back between k
// blocks, so each element sees its k terms in order.

// Per-target include guard (see hwy/examples/skeleton-inl.h).
#if defined(HLOVM_OPS_DOT_GEMM_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HLOVM_OPS_DOT_GEMM_HWY_INL_H_
#undef HLOVM_OPS_DOT_GEMM_HWY_INL_H_
#else
#define HLOVM_OPS_DOT_GEMM_HWY_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "hwy/aligned_allocator.h"
#include "hwy/highway.h"
#include "ops/dot/gemm.h"

HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace gemm_internal {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

constexpr int64_t kMr = 6;

// c (ldc) += sum over kc of ap[k][0..6) x bp[k][0..2L), starting from zero
// when `first`.
template <class D, typename T = hn::TFromD<D>>
HWY_INLINE void MicroKernel(D d, int64_t kc, const T* HWY_RESTRICT ap, const T* HWY_RESTRICT bp,
                            T* HWY_RESTRICT c, int64_t ldc, bool first) {
  const size_t L = hn::Lanes(d);
  using V = decltype(hn::Zero(d));
  V c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
  if (first) {
    c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = hn::Zero(d);
  } else {
    c00 = hn::LoadU(d, c + 0 * ldc), c01 = hn::LoadU(d, c + 0 * ldc + L);
    c10 = hn::LoadU(d, c + 1 * ldc), c11 = hn::LoadU(d, c + 1 * ldc + L);
    c20 = hn::LoadU(d, c + 2 * ldc), c21 = hn::LoadU(d, c + 2 * ldc + L);
    c30 = hn::LoadU(d, c + 3 * ldc), c31 = hn::LoadU(d, c + 3 * ldc + L);
    c40 = hn::LoadU(d, c + 4 * ldc), c41 = hn::LoadU(d, c + 4 * ldc + L);
    c50 = hn::LoadU(d, c + 5 * ldc), c51 = hn::LoadU(d, c + 5 * ldc + L);
  }
  for (int64_t k = 0; k < kc; ++k) {
    const V b0 = hn::Load(d, bp), b1 = hn::Load(d, bp + L);
    bp += 2 * L;
    V a = hn::Set(d, ap[0]);
    c00 = hn::MulAdd(a, b0, c00), c01 = hn::MulAdd(a, b1, c01);
    a = hn::Set(d, ap[1]);
    c10 = hn::MulAdd(a, b0, c10), c11 = hn::MulAdd(a, b1, c11);
    a = hn::Set(d, ap[2]);
    c20 = hn::MulAdd(a, b0, c20), c21 = hn::MulAdd(a, b1, c21);
    a = hn::Set(d, ap[3]);
    c30 = hn::MulAdd(a, b0, c30), c31 = hn::MulAdd(a, b1, c31);
    a = hn::Set(d, ap[4]);
    c40 = hn::MulAdd(a, b0, c40), c41 = hn::MulAdd(a, b1, c41);
    a = hn::Set(d, ap[5]);
    c50 = hn::MulAdd(a, b0, c50), c51 = hn::MulAdd(a, b1, c51);
    ap += kMr;
  }
  hn::StoreU(c00, d, c + 0 * ldc), hn::StoreU(c01, d, c + 0 * ldc + L);
  hn::StoreU(c10, d, c + 1 * ldc), hn::StoreU(c11, d, c + 1 * ldc + L);
  hn::StoreU(c20, d, c + 2 * ldc), hn::StoreU(c21, d, c + 2 * ldc + L);
  hn::StoreU(c30, d, c + 3 * ldc), hn::StoreU(c31, d, c + 3 * ldc + L);
  hn::StoreU(c40, d, c + 4 * ldc), hn::StoreU(c41, d, c + 4 * ldc + L);
  hn::StoreU(c50, d, c + 5 * ldc), hn::StoreU(c51, d, c + 5 * ldc + L);
}

template <typename T>
struct PackBuffers {
  hwy::AlignedFreeUniquePtr<T[]> a, b;
  size_t a_size = 0, b_size = 0;
  T* A(size_t n) {
    if (n > a_size) a = hwy::AllocateAligned<T>(a_size = n);
    return a.get();
  }
  T* B(size_t n) {
    if (n > b_size) b = hwy::AllocateAligned<T>(b_size = n);
    return b.get();
  }
};

template <typename T>
HWY_NOINLINE void GemmBlocked(const T* HWY_RESTRICT a_all, const T* HWY_RESTRICT b_all,
                              T* HWY_RESTRICT c_all, const GemmDims& dims, int64_t unit_begin,
                              int64_t unit_end) {
  const hn::ScalableTag<T> d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const int64_t nr = 2 * L;
  const int64_t M = dims.m, N = dims.n, K = dims.k;
  const bool strided = dims.strided();
  const int64_t a_sb = strided ? dims.a_sb : M * K, a_sm = strided ? dims.a_sm : K;
  const int64_t a_sk = strided ? dims.a_sk : 1;
  const int64_t b_sb = strided ? dims.b_sb : K * N, b_sk = strided ? dims.b_sk : N;
  const int64_t b_sn = strided ? dims.b_sn : 1;
  const int64_t mb = (M + kGemmBlockM - 1) / kGemmBlockM;
  const int64_t nb = (N + kGemmBlockN - 1) / kGemmBlockN;
  thread_local PackBuffers<T> bufs;
  const int64_t max_nc = (kGemmBlockN + nr - 1) / nr * nr;
  const int64_t max_mc = (kGemmBlockM + kMr - 1) / kMr * kMr;
  T* ap = bufs.A(static_cast<size_t>(max_mc * kGemmBlockK));
  T* bp = bufs.B(static_cast<size_t>(max_nc * kGemmBlockK));
  HWY_ALIGN T tile[kMr * 2 * HWY_MAX_BYTES / sizeof(T)] = {};
  for (int64_t u = unit_begin; u < unit_end; ++u) {
    const int64_t bi = u / (mb * nb);
    const int64_t rem = u % (mb * nb);
    const int64_t i0 = (rem / nb) * kGemmBlockM, j0 = (rem % nb) * kGemmBlockN;
    const int64_t mc = std::min(kGemmBlockM, M - i0), nc = std::min(kGemmBlockN, N - j0);
    const T* A = a_all + bi * a_sb;
    const T* B = b_all + bi * b_sb;
    T* C = c_all + bi * M * N;
    const int64_t m_strips = (mc + kMr - 1) / kMr, n_strips = (nc + nr - 1) / nr;
    for (int64_t k0 = 0; k0 < K; k0 += kGemmBlockK) {
      const int64_t kc = std::min(kGemmBlockK, K - k0);
      const bool first = k0 == 0;
      // Pack B[k0:k0+kc, j0:j0+nc] in nr-wide strips, zero padded.
      for (int64_t s = 0; s < n_strips; ++s) {
        const int64_t js = j0 + s * nr, w = std::min(nr, j0 + nc - js);
        T* dst = bp + s * kc * nr;
        if (b_sn == 1) {
          for (int64_t k = 0; k < kc; ++k) {
            const T* src = B + (k0 + k) * b_sk + js;
            std::memcpy(dst + k * nr, src, static_cast<size_t>(w) * sizeof(T));
            for (int64_t j = w; j < nr; ++j) dst[k * nr + j] = T(0);
          }
        } else {
          // Columns of B run along memory: read each column contiguously.
          for (int64_t j = 0; j < nr; ++j) {
            if (j < w) {
              const T* src = B + (js + j) * b_sn + k0 * b_sk;
              for (int64_t k = 0; k < kc; ++k) dst[k * nr + j] = src[k * b_sk];
            } else {
              for (int64_t k = 0; k < kc; ++k) dst[k * nr + j] = T(0);
            }
          }
        }
      }
      // Pack A[i0:i0+mc, k0:k0+kc] in 6-row strips, zero padded.
      for (int64_t s = 0; s < m_strips; ++s) {
        T* dst = ap + s * kc * kMr;
        for (int64_t r = 0; r < kMr; ++r) {
          const int64_t i = i0 + s * kMr + r;
          if (i < i0 + mc) {
            const T* src = A + i * a_sm + k0 * a_sk;
            if (a_sk == 1) {
              for (int64_t k = 0; k < kc; ++k) dst[k * kMr + r] = src[k];
            } else {
              for (int64_t k = 0; k < kc; ++k) dst[k * kMr + r] = src[k * a_sk];
            }
          } else {
            for (int64_t k = 0; k < kc; ++k) dst[k * kMr + r] = T(0);
          }
        }
      }
      for (int64_t sn = 0; sn < n_strips; ++sn) {
        const int64_t js = j0 + sn * nr, w = std::min(nr, j0 + nc - js);
        for (int64_t sm = 0; sm < m_strips; ++sm) {
          const int64_t is = i0 + sm * kMr, h = std::min(kMr, i0 + mc - is);
          T* c = C + is * N + js;
          if (h == kMr && w == nr) {
            MicroKernel(d, kc, ap + sm * kc * kMr, bp + sn * kc * nr, c, N, first);
          } else {
            if (!first) {
              for (int64_t r = 0; r < h; ++r) {
                std::memcpy(tile + r * nr, c + r * N, static_cast<size_t>(w) * sizeof(T));
              }
            }
            MicroKernel(d, kc, ap + sm * kc * kMr, bp + sn * kc * nr, tile, nr, first);
            for (int64_t r = 0; r < h; ++r) {
              std::memcpy(c + r * N, tile + r * nr, static_cast<size_t>(w) * sizeof(T));
            }
          }
        }
      }
    }
  }
}

void GemmF32(const void* a, const void* b, void* c, const GemmDims& dims, int64_t ub,
             int64_t ue) {
  GemmBlocked<float>(static_cast<const float*>(a), static_cast<const float*>(b),
                     static_cast<float*>(c), dims, ub, ue);
}
void GemmF64(const void* a, const void* b, void* c, const GemmDims& dims, int64_t ub,
             int64_t ue) {
  GemmBlocked<double>(static_cast<const double*>(a), static_cast<const double*>(b),
                      static_cast<double*>(c), dims, ub, ue);
}
const char* GemmTarget() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace gemm_internal
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
