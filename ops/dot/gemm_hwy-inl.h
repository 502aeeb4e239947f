// Highway micro-kernel and blocked driver of the f32/f64 GEMM, compiled once
// per SIMD target by gemm_hwy.cc.
//
// Register tile (kMr rows x kNv vectors of C, accumulators kept in
// registers): 6 x 2 on targets with 16 vector registers (AVX2: 6 x 16 f32,
// SSE2), 8 x 2 on AVX-512 (8 x 32 f32) and 8 x 3 on NEON.
//
// Per work unit (batch index, GemmDims::BlockM() rows, BlockN() columns of C) and
// per k block, the nr-wide column strips of C run outermost: each strip of B
// is packed (zero padded) just before its pass and stays in L1; the kMr-row
// strips of A are packed during the first pass and the packed A block stays
// in L2. While the micro-kernels run, the source lines of the next strips
// are prefetched into L2 (rows of a strip lie far apart, where the hardware
// prefetcher does not follow). C tiles are loaded back between k blocks, so
// each element sees its k terms in sequential order whatever the blocking.
// Small row-major operands skip packing: A is read in place when its block
// is small (its rows then share cache sets little), and so is B (full
// strips; a partial last strip is still packed). bf16 / f16 operands
// (GemmDims::Source) are converted to f32 as they are packed. Against a
// single strip of rows of A, a row-major B of any size is read in place too,
// converted as it is loaded, and a strip of 1 to 4 rows runs a micro-kernel
// of 1 or 4 rows rather than a full tile of zero rows. Up to four rows
// against a large row-major B run GemmAlongRows (below): B read a row at a
// time.
//
// A few rows of A against a B stored along k run GemmTransposedB (f32, up to
// 4 or 12 rows: 8x8 blocks of B transposed in registers) or GemmNarrowRows
// (A transposed into vectors of rows, each element of B broadcast against
// them) instead (below).

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
#include <type_traits>

#include "core/float_format.h"
#include "hwy/aligned_allocator.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "ops/dot/gemm.h"

HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace gemm_internal {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET <= HWY_AVX3
// 16 f32 lanes: 2 vectors (32 columns) fit the 64- and 128-wide shapes of
// batched and attention dots without partial strips.
constexpr int kMr = 8;
constexpr int kNv = 2;
#elif HWY_ARCH_ARM
constexpr int kMr = 8;
constexpr int kNv = 3;
#else
constexpr int kMr = 6;
constexpr int kNv = 2;
#endif

// The k block per element type: an A block of kGemmBlockM rows stays within
// a 512 KiB L2.
template <typename T>
constexpr int64_t BlockK() {
  return sizeof(T) == 4 ? kGemmBlockK : kGemmBlockK / 2;
}

// Operand storage read by the packing: the compute type itself, or bf16 /
// f16 bits converted to f32 as they are packed.
template <GemmDims::Source S, typename T>
using SourceType = std::conditional_t<S == GemmDims::Source::kCompute, T, uint16_t>;

template <GemmDims::Source S, class D, typename T = hn::TFromD<D>>
HWY_INLINE hn::Vec<D> LoadSource(D d, const SourceType<S, T>* HWY_RESTRICT p) {
  if constexpr (S == GemmDims::Source::kCompute) {
    return hn::LoadU(d, p);
  } else {
    const hn::Rebind<uint16_t, D> du;
    if constexpr (S == GemmDims::Source::kBF16) {
      return hn::PromoteTo(d, hn::BitCast(hn::Rebind<hwy::bfloat16_t, D>(), hn::LoadU(du, p)));
    } else {
      return hn::PromoteTo(d, hn::BitCast(hn::Rebind<hwy::float16_t, D>(), hn::LoadU(du, p)));
    }
  }
}

// c (ldc) = (first ? 0 : c) + sum over k < kc of A[r][k] * B[k][0..nr) for
// the first kM rows (1 <= kM <= kMr).
// A: with kRowsA, rows at a + r * lda with k contiguous (read in place, or
// a packed row strip); otherwise a k-major packed strip (element (r, k) at
// a[k * kMr + r]). B: rows of nr (or more) elements at b + k * ldb, stored
// as SB (a packed strip, or B itself read in place, converted as loaded).
template <bool kRowsA, int kM = kMr, GemmDims::Source SB = GemmDims::Source::kCompute, class D,
          typename T = hn::TFromD<D>>
HWY_INLINE void MicroKernel(D d, int64_t kc, const T* HWY_RESTRICT a, int64_t lda,
                            const SourceType<SB, T>* HWY_RESTRICT b, int64_t ldb, T* HWY_RESTRICT c,
                            int64_t ldc, bool first) {
  const size_t L = hn::Lanes(d);
  using V = decltype(hn::Zero(d));
  V acc[kM][kNv];
  if (first) {
    HWY_UNROLL(kMr) for (int r = 0; r < kM; ++r) {
      HWY_UNROLL(kNv) for (int v = 0; v < kNv; ++v) acc[r][v] = hn::Zero(d);
    }
  } else {
    HWY_UNROLL(kMr) for (int r = 0; r < kM; ++r) {
      HWY_UNROLL(kNv) for (int v = 0; v < kNv; ++v) {
        acc[r][v] = hn::LoadU(d, c + r * ldc + v * L);
      }
    }
  }
  HWY_UNROLL(4) for (int64_t k = 0; k < kc; ++k) {
    V bv[kNv];
    HWY_UNROLL(kNv) for (int v = 0; v < kNv; ++v) bv[v] = LoadSource<SB>(d, b + v * L);
    b += ldb;
    HWY_UNROLL(kMr) for (int r = 0; r < kM; ++r) {
      const V av = hn::Set(d, kRowsA ? a[r * lda + k] : a[r]);
      HWY_UNROLL(kNv) for (int v = 0; v < kNv; ++v) acc[r][v] = hn::MulAdd(av, bv[v], acc[r][v]);
    }
    if (!kRowsA) a += kMr;
  }
  HWY_UNROLL(kMr) for (int r = 0; r < kM; ++r) {
    HWY_UNROLL(kNv) for (int v = 0; v < kNv; ++v) hn::StoreU(acc[r][v], d, c + r * ldc + v * L);
  }
}

// Brings a line towards L2 but not L1, where it would evict the strips the
// micro-kernel works on.
HWY_INLINE void PrefetchL2(const void* p) {
#if HWY_COMPILER_GCC || HWY_COMPILER_CLANG
  __builtin_prefetch(p, 0, 2);
#else
  hwy::Prefetch(p);
#endif
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

template <GemmDims::Source S, typename T>
HWY_INLINE T FromSource(SourceType<S, T> x) {
  if constexpr (S == GemmDims::Source::kCompute) {
    return x;
  } else if constexpr (S == GemmDims::Source::kBF16) {
    return BFloat16ToFloat(x);
  } else {
    return HalfToFloat(x);
  }
}

// Packs B[k0:k0+kc, js:js+w) (element (k, j) at b[k * sk + j * sn]) into
// dst[k * nr + j], zero padding columns w..nr.
template <GemmDims::Source S, class D, typename T = hn::TFromD<D>>
HWY_INLINE void PackBStrip(D d, const SourceType<S, T>* HWY_RESTRICT b, int64_t sk, int64_t sn,
                           int64_t kc, int64_t w, int64_t nr, T* HWY_RESTRICT dst) {
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  if (sn == 1 && w == nr) {
    for (int64_t k = 0; k < kc; ++k) {
      HWY_UNROLL(kNv) for (int v = 0; v < kNv; ++v) {
        hn::Store(LoadSource<S>(d, b + k * sk + v * L), d, dst + k * nr + v * L);
      }
    }
    return;
  }
  if (sn == 1) {
    for (int64_t k = 0; k < kc; ++k) {
      for (int64_t j = 0; j < w; ++j) dst[k * nr + j] = FromSource<S, T>(b[k * sk + j]);
      for (int64_t j = w; j < nr; ++j) dst[k * nr + j] = T(0);
    }
    return;
  }
  if (sk == 1) {
    // Columns of B run along memory (a transposed operand read in place):
    // blocks of L values of k are loaded from each column into an L1 tile
    // (tile[j * L + t]), then each k's row of the strip is gathered from
    // it, so memory is read along its columns and the strip written along
    // its rows.
    constexpr int64_t kMaxL = HWY_MAX_BYTES / sizeof(T);
    HWY_ALIGN T tile[kNv * kMaxL * kMaxL];
    const hn::RebindToSigned<D> di;
    const auto column = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<hn::TFromD<decltype(di)>>(L)));
    std::fill(tile + w * L, tile + nr * L, T(0));
    int64_t k = 0;
    for (; k + L <= kc; k += L) {
      for (int64_t j = 0; j < w; ++j) hn::Store(LoadSource<S>(d, b + j * sn + k), d, tile + j * L);
      for (int64_t t = 0; t < L; ++t) {
        HWY_UNROLL(kNv) for (int v = 0; v < kNv; ++v) {
          hn::Store(hn::GatherIndex(d, tile + v * L * L + t, column), d, dst + (k + t) * nr + v * L);
        }
      }
    }
    for (; k < kc; ++k) {
      for (int64_t j = 0; j < w; ++j) dst[k * nr + j] = FromSource<S, T>(b[j * sn + k]);
      for (int64_t j = w; j < nr; ++j) dst[k * nr + j] = T(0);
    }
    return;
  }
  // Columns of B run along memory: read each column contiguously.
  for (int64_t j = 0; j < nr; ++j) {
    if (j < w) {
      const SourceType<S, T>* src = b + j * sn;
      for (int64_t k = 0; k < kc; ++k) dst[k * nr + j] = FromSource<S, T>(src[k * sk]);
    } else {
      for (int64_t k = 0; k < kc; ++k) dst[k * nr + j] = T(0);
    }
  }
}

// Packs A[i:i+h, k0:k0+kc) (element (r, k) at a[r * sm + k * sk]) into a
// strip of kMr rows, zero padding rows h..kMr. With k contiguous (sk == 1)
// the strip keeps rows (element (r, k) at dst[r * kc + k]: plain copies);
// otherwise it is k-major (dst[k * kMr + r], read along memory when sm == 1).
template <GemmDims::Source S, class D, typename T = hn::TFromD<D>>
HWY_INLINE void PackAStrip(D d, const SourceType<S, T>* HWY_RESTRICT a, int64_t sm, int64_t sk,
                           int64_t kc, int64_t h, T* HWY_RESTRICT dst) {
  if (sk == 1) {
    const int64_t L = static_cast<int64_t>(hn::Lanes(d));
    for (int64_t r = 0; r < kMr; ++r) {
      if (r < h) {
        const SourceType<S, T>* src = a + r * sm;
        T* to = dst + r * kc;
        int64_t k = 0;
        for (; k + L <= kc; k += L) hn::StoreU(LoadSource<S>(d, src + k), d, to + k);
        for (; k < kc; ++k) to[k] = FromSource<S, T>(src[k]);
      } else {
        std::fill(dst + r * kc, dst + (r + 1) * kc, T(0));
      }
    }
    return;
  }
  for (int64_t k = 0; k < kc; ++k) {
    for (int64_t r = 0; r < h; ++r) dst[k * kMr + r] = FromSource<S, T>(a[r * sm + k * sk]);
    for (int64_t r = h; r < kMr; ++r) dst[k * kMr + r] = T(0);
  }
}

// Rows the micro-kernel computes for a strip of h rows: 1, 4 or kMr (the
// rows past h of a partial strip are zero padding; computing fewer of them
// saves their multiply-adds).
constexpr int KernelRows(int64_t h) { return h == 1 ? 1 : h <= 4 && 4 < kMr ? 4 : kMr; }

// MicroKernel for a strip of h rows, with B packed (b_packed, nr elements
// a row) or read in place (b_in_place, ldb elements a row, stored as SB).
template <bool kRowsA, GemmDims::Source SB, class D, typename T = hn::TFromD<D>>
HWY_INLINE void StripKernel(D d, int64_t h, int64_t kc, const T* HWY_RESTRICT a, int64_t lda,
                            const T* b_packed, const SourceType<SB, T>* b_in_place, int64_t ldb,
                            T* HWY_RESTRICT c, int64_t ldc, bool first) {
  const int64_t nr = kNv * static_cast<int64_t>(hn::Lanes(d));
  auto run = [&](auto rows) {
    constexpr int kM = decltype(rows)::value;
    if (b_in_place != nullptr) {
      MicroKernel<kRowsA, kM, SB>(d, kc, a, lda, b_in_place, ldb, c, ldc, first);
    } else {
      MicroKernel<kRowsA, kM>(d, kc, a, lda, b_packed, nr, c, ldc, first);
    }
  };
  switch (KernelRows(h)) {
    case 1:
      return run(std::integral_constant<int, 1>());
    case 4:
      return run(std::integral_constant<int, (4 < kMr ? 4 : kMr)>());
    default:
      return run(std::integral_constant<int, kMr>());
  }
}

// Which operands GemmBlocked reads in place for blocks of bm x bn: small
// row-major operands (see the file comment); converted ones are packed. So
// is a row-major B against one strip of rows of A (a matrix-vector product,
// a decode step), converted as it is loaded: each of its elements then
// meets all the rows it ever will in one pass, and packing would only copy
// it once more.
struct BlockedOperands {
  bool a = false;        // A read in place
  bool small_b = false;  // B read in place for being small
  bool b = false;        // B read in place (its full strips)
};
template <typename T>
BlockedOperands BlockedOperandsOf(const GemmDims& dims, int64_t bm, int64_t bn) {
  constexpr int64_t kDirectBytes = 64 * 1024;
  const int64_t M = dims.m, N = dims.n, K = dims.k, KC = BlockK<T>();
  const bool strided = dims.strided();
  const int64_t a_sk = strided ? dims.a_sk : 1, b_sn = strided ? dims.b_sn : 1;
  BlockedOperands r;
  r.a = dims.a_source == GemmDims::Source::kCompute && a_sk == 1 &&
        std::min(M, bm) * std::min(K, KC) * int64_t{sizeof(T)} <= kDirectBytes;
  r.small_b = dims.b_source == GemmDims::Source::kCompute && b_sn == 1 &&
              std::min(K, KC) * std::min(N, bn) * int64_t{sizeof(T)} <= kDirectBytes;
  r.b = r.small_b || (b_sn == 1 && M <= kMr);
  return r;
}

template <typename T, GemmDims::Source SA, GemmDims::Source SB>
HWY_NOINLINE void GemmBlocked(const void* a_v, const void* b_v, T* HWY_RESTRICT c_all,
                              const GemmDims& dims, int64_t unit_begin, int64_t unit_end) {
  using TA = SourceType<SA, T>;
  using TB = SourceType<SB, T>;
  const TA* HWY_RESTRICT a_all = static_cast<const TA*>(a_v);
  const TB* HWY_RESTRICT b_all = static_cast<const TB*>(b_v);
  const hn::ScalableTag<T> d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const int64_t nr = kNv * L;
  const int64_t KC = BlockK<T>();
  const int64_t M = dims.m, N = dims.n, K = dims.k;
  const bool strided = dims.strided();
  const int64_t a_sb = strided ? dims.a_sb : M * K, a_sm = strided ? dims.a_sm : K;
  const int64_t a_sk = strided ? dims.a_sk : 1;
  const int64_t b_sb = strided ? dims.b_sb : K * N, b_sk = strided ? dims.b_sk : N;
  const int64_t b_sn = strided ? dims.b_sn : 1;
  const UnitGrid grid(dims);
  const int64_t BM = grid.block_m();
  constexpr bool kSameA = SA == GemmDims::Source::kCompute;
  const BlockedOperands in_place = BlockedOperandsOf<T>(dims, BM, grid.block_n());
  const bool direct_a = in_place.a, small_b = in_place.small_b, direct_b = in_place.b;
  thread_local PackBuffers<T> bufs;
  const int64_t max_mc = (BM + kMr - 1) / kMr * kMr;
  T* ap = bufs.A(static_cast<size_t>(max_mc * KC));
  T* bp = bufs.B(static_cast<size_t>(nr * KC));  // one strip
  constexpr int64_t kLine = 64 / sizeof(T);      // elements per cache line
  HWY_ALIGN T tile[kMr * kNv * HWY_MAX_BYTES / sizeof(T)];
  for (int64_t u = unit_begin; u < unit_end; ++u) {
    // Row blocks vary fastest: consecutive units share B's column block,
    // which then comes from L3 rather than memory.
    const UnitTile t = grid.Tile(u);
    const int64_t bi = t.bi, i0 = t.i0, j0 = t.j0, mc = t.mc, nc = t.nc;
    const TA* A = a_all + bi * a_sb;
    const TB* B = b_all + bi * b_sb;
    T* C = c_all + bi * M * N;
    const int64_t m_strips = (mc + kMr - 1) / kMr, n_strips = (nc + nr - 1) / nr;
    const int64_t full_n_strips = nc / nr;
    if (K == 0) {  // empty sums
      for (int64_t i = i0; i < i0 + mc; ++i) std::fill(C + i * N + j0, C + i * N + j0 + nc, T(0));
      continue;
    }
    for (int64_t k0 = 0; k0 < K; k0 += KC) {
      const int64_t kc = std::min(KC, K - k0);
      const bool first = k0 == 0;
      // Strips of A are packed during the first column strip's pass, those
      // of B just before their pass. The source lines of the next strip are
      // prefetched during the current one's micro-kernels: the rows of a
      // strip lie far apart in memory, where the hardware prefetcher does
      // not follow.
      for (int64_t sn = 0; sn < n_strips; ++sn) {
        const int64_t js = j0 + sn * nr, w = std::min(nr, j0 + nc - js);
        const bool b_in_place = direct_b && sn < full_n_strips;
        if (!b_in_place) {
          PackBStrip<SB>(d, B + k0 * b_sk + js * b_sn, b_sk, b_sn, kc, w, nr, bp);
        }
        const TB* b_src = b_in_place ? B + k0 * b_sk + js : nullptr;
        // The next strip of B to prefetch: this k block's next one, else
        // the next k block's first.
        int64_t next_k0 = k0, next_js = js + nr;
        if (sn + 1 == n_strips) next_k0 = k0 + KC, next_js = j0;
        const bool prefetch_b = b_sn == 1 && next_k0 < K && !small_b;
        const int64_t next_kc = std::min(KC, K - next_k0);
        const int64_t next_w = std::min(nr, j0 + nc - next_js);
        const int64_t rows_per_call = (next_kc + m_strips - 1) / m_strips;
        for (int64_t sm = 0; sm < m_strips; ++sm) {
          const int64_t is = i0 + sm * kMr, h = std::min<int64_t>(kMr, i0 + mc - is);
          if (prefetch_b) {
            const int64_t r1 = std::min(next_kc, (sm + 1) * rows_per_call);
            for (int64_t r = sm * rows_per_call; r < r1; ++r) {
              const TB* row = B + (next_k0 + r) * b_sk + next_js;
              for (int64_t j = 0; j < next_w; j += kLine) PrefetchL2(row + j);
              PrefetchL2(row + next_w - 1);
            }
          }
          T* a_strip = ap + sm * kc * kMr;
          if (sn == 0 && !direct_a) {
            PackAStrip<SA>(d, A + is * a_sm + k0 * a_sk, a_sm, a_sk, kc, h, a_strip);
            if (a_sk == 1 && sm + 1 < m_strips) {
              const int64_t rows = std::min<int64_t>(kMr, i0 + mc - is - kMr);
              for (int64_t r = 0; r < rows; ++r) {
                const TA* row = A + (is + kMr + r) * a_sm + k0;
                for (int64_t k = 0; k < kc; k += kLine) PrefetchL2(row + k);
                PrefetchL2(row + kc - 1);
              }
            }
          }
          T* c = C + is * N + js;
          // The next tile of C (usually far out of cache with long rows).
          if (sm + 1 < m_strips) {
            const T* next = c + kMr * N;
            const int64_t rows = std::min<int64_t>(kMr, i0 + mc - is - kMr);
            for (int64_t r = 0; r < rows; ++r) {
              for (int64_t j = 0; j < w; j += kLine) hwy::Prefetch(next + r * N + j);
              hwy::Prefetch(next + r * N + w - 1);
            }
          }
          const bool full = KernelRows(h) == h && w == nr;
          T* cc = full ? c : tile;
          const int64_t ldc = full ? N : nr;
          if (!full && !first) {
            for (int64_t r = 0; r < h; ++r) {
              std::memcpy(tile + r * nr, c + r * N, static_cast<size_t>(w) * sizeof(T));
            }
          }
          if (direct_a) {
            if constexpr (kSameA) {
              if (h == KernelRows(h)) {
                StripKernel<true, SB>(d, h, kc, A + is * a_sm + k0, a_sm, bp, b_src, b_sk, cc, ldc,
                                      first);
              } else {
                // A partial row strip read in place: pack it (zero padded).
                PackAStrip<SA>(d, A + is * a_sm + k0, a_sm, int64_t{1}, kc, h, ap);
                StripKernel<true, SB>(d, h, kc, ap, kc, bp, b_src, b_sk, cc, ldc, first);
              }
            }
          } else if (a_sk == 1) {
            StripKernel<true, SB>(d, h, kc, a_strip, kc, bp, b_src, b_sk, cc, ldc, first);
          } else {
            StripKernel<false, SB>(d, h, kc, a_strip, 0, bp, b_src, b_sk, cc, ldc, first);
          }
          if (!full) {
            for (int64_t r = 0; r < h; ++r) {
              std::memcpy(c + r * N, tile + r * nr, static_cast<size_t>(w) * sizeof(T));
            }
          }
        }
      }
    }
  }
}

// Whether B's columns run along k (b_sk == 1: a transposed weight matrix).
inline bool ColumnsAlongK(const GemmDims& dims) {
  return dims.strided() && dims.b_sk == 1 && dims.b_sn != 1;
}

// A's rows [0, m) transposed into a k-major strip of `width` rows (element
// (i, k) at at[k * width + i]; rows m..width are zero), converted from SA.
// Inlined, so that a width known at compile time unrolls the inner loop.
// Rows along k in the compute type, a whole number of vectors wide (`at`
// aligned), are gathered a vector of rows at a time: one element at a time,
// each row's next element lies a row away in memory.
template <GemmDims::Source SA, typename T>
HWY_INLINE void PackRowsKMajor(const SourceType<SA, T>* a, int64_t a_sm, int64_t a_sk, int64_t m,
                               int64_t k, int64_t width, T* HWY_RESTRICT at) {
#if HWY_TARGET != HWY_SCALAR
  if constexpr (SA == GemmDims::Source::kCompute) {
    const hn::ScalableTag<T> d;
    const hn::RebindToSigned<decltype(d)> di;
    using TI = hn::TFromD<decltype(di)>;
    const int64_t L = static_cast<int64_t>(hn::Lanes(d));
    if (a_sk == 1 && m > 0 && width % L == 0 &&
        (m - 1) * a_sm <= static_cast<int64_t>(hwy::HighestValue<TI>())) {
      for (int64_t i0 = 0; i0 < width; i0 += L) {
        // Rows past m read row 0 and store zeros.
        const auto rows = hn::Add(hn::Iota(di, 0), hn::Set(di, static_cast<TI>(i0)));
        const auto valid = hn::Lt(rows, hn::Set(di, static_cast<TI>(m)));
        const auto offsets =
            hn::Mul(hn::IfThenElseZero(valid, rows), hn::Set(di, static_cast<TI>(a_sm)));
        const auto keep = hn::RebindMask(d, valid);
        for (int64_t p = 0; p < k; ++p) {
          hn::Store(hn::IfThenElseZero(keep, hn::GatherIndex(d, a + p, offsets)), d,
                    at + p * width + i0);
        }
      }
      return;
    }
  }
#endif
  for (int64_t p = 0; p < k; ++p) {
    for (int64_t i = 0; i < width; ++i) {
      at[p * width + i] = i < m ? FromSource<SA, T>(a[i * a_sm + p * a_sk]) : T(0);
    }
  }
}

// Prefetches, a few lines at a time, `lines` lines from each of `columns`
// columns of B that start `stride` bytes apart at `first`: the columns the
// next group of a kernel will read, brought in while this group computes.
class ColumnPrefetch {
 public:
  ColumnPrefetch(const void* first, int64_t stride, int64_t columns, int64_t lines)
      : first_(static_cast<const char*>(first)),
        stride_(stride),
        columns_(columns),
        lines_(lines) {}
  HWY_INLINE void Next(int64_t count) {
    for (int64_t p = 0; p < count && column_ < columns_; ++p) {
      PrefetchL2(first_ + column_ * stride_ + line_ * 64);
      if (++line_ == lines_) line_ = 0, ++column_;
    }
  }

 private:
  const char* first_;
  int64_t stride_, columns_, lines_;
  int64_t column_ = 0, line_ = 0;
};

// Few rows of A (m <= kR lanes of kR vectors) against a B whose columns run
// along k (b_sk == 1: a transposed weight matrix, as in a matrix-vector
// product or a decode step's projections). Packing such a B transposes it,
// which costs more than the few multiply-adds each of its elements takes
// part in; here A is transposed instead (a k-major strip, element (i, k) at
// at[k * kR * L + i], once per call and batch index) and each element of B is
// broadcast against it, kG columns of C at a time (kR * kG accumulators
// in registers), so B is read once, along its columns. bf16 / f16 columns
// are converted a k block at a time into an L1 buffer first. Each element
// of C is still its k terms summed in sequential order with one fused
// multiply-add each: the same bits as GemmBlocked.
#if HWY_TARGET <= HWY_AVX3 || HWY_ARCH_ARM
constexpr int kNarrowColumns1 = 16;  // columns of C at a time with one vector of rows
constexpr int kNarrowColumns2 = 12;  // with two
#else
constexpr int kNarrowColumns1 = 12;
constexpr int kNarrowColumns2 = 6;
#endif
constexpr int64_t kNarrowBlockK = 256;
// At most this many multiply-adds in all (m * n * k), GemmNarrowRows forms
// each sum on its own instead of packing.
constexpr int64_t kNarrowTinyProducts = 256;
// Elements from one column's block to the next in the L1 buffer: a block
// and a cache line, so that the kG lines read at one k fall in different
// sets of L1 (power-of-two strides put them all in one).
template <typename T>
constexpr int64_t NarrowColumnStride() {
  return kNarrowBlockK + 64 / static_cast<int64_t>(sizeof(T));
}

// Whether GemmNarrowRows serves `dims` on this target.
template <typename T>
bool UseNarrowRows(const GemmDims& dims) {
  const int64_t L = static_cast<int64_t>(hn::Lanes(hn::ScalableTag<T>()));
  // A's k-major strip (k * 2 * L elements at most) stays within L2.
  return ColumnsAlongK(dims) && dims.m <= 2 * L && dims.k > 0 &&
         dims.k * 2 * L * static_cast<int64_t>(sizeof(T)) <= 512 * 1024;
}

// d: the vectors of rows (kR of them, Lanes(d) rows each).
template <int kR, int kG, GemmDims::Source SB, class D, typename T = hn::TFromD<D>>
HWY_INLINE void NarrowRowsColumns(D d, const T* HWY_RESTRICT at, const SourceType<SB, T>* b,
                                  int64_t b_sn, int64_t K, int64_t w, int64_t M, T* c, int64_t N,
                                  T* HWY_RESTRICT cols) {
  const hn::ScalableTag<T> df;  // converts the columns
  const int64_t Lf = static_cast<int64_t>(hn::Lanes(df));
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  using V = hn::Vec<D>;
  V acc[kR][kG];
  HWY_UNROLL(2) for (int r = 0; r < kR; ++r) {
    HWY_UNROLL(16) for (int g = 0; g < kG; ++g) acc[r][g] = hn::Zero(d);
  }
  using S = SourceType<SB, T>;
  for (int64_t k0 = 0; k0 < K; k0 += kNarrowBlockK) {
    const int64_t kb = std::min(kNarrowBlockK, K - k0);
    // The source lines of the next block (this group's next k block, else
    // the next group's first), prefetched a line or two at each k below:
    // the conversion then finds them in cache instead of waiting on memory
    // between blocks of multiply-adds.
    const int64_t next_k0 = k0 + kb < K ? k0 + kb : 0;
    ColumnPrefetch prefetch(b + (next_k0 == 0 ? kG * b_sn : next_k0), b_sn * int64_t{sizeof(S)}, kG,
                            (std::min(kNarrowBlockK, K - next_k0) * int64_t{sizeof(S)} + 63) / 64);
    // This k block of each column, in the compute type, at cols[g * stride]
    // (fixed offsets: no pointer a column in the loop below). Columns past w
    // are left as they were; their sums are not stored.
    for (int64_t g = 0; g < w; ++g) {
      const S* from = b + g * b_sn + k0;
      T* to = cols + g * NarrowColumnStride<T>();
      int64_t k = 0;
      for (; k + Lf <= kb; k += Lf) hn::Store(LoadSource<SB>(df, from + k), df, to + k);
      for (; k < kb; ++k) to[k] = FromSource<SB, T>(from[k]);
    }
    const T* a = at + k0 * kR * L;
    for (int64_t k = 0; k < kb; ++k) {
      V av[kR];
      HWY_UNROLL(2) for (int r = 0; r < kR; ++r) av[r] = hn::Load(d, a + r * L);
      a += kR * L;
      HWY_UNROLL(16) for (int g = 0; g < kG; ++g) {
        const V bv = hn::Set(d, cols[g * NarrowColumnStride<T>() + k]);
        HWY_UNROLL(2) for (int r = 0; r < kR; ++r) acc[r][g] = hn::MulAdd(av[r], bv, acc[r][g]);
      }
      prefetch.Next(2);
    }
  }
  HWY_ALIGN T sums[kG * kR * HWY_MAX_BYTES / sizeof(T)];
  HWY_UNROLL(16) for (int g = 0; g < kG; ++g) {
    HWY_UNROLL(2) for (int r = 0; r < kR; ++r) hn::Store(acc[r][g], d, sums + (g * kR + r) * L);
  }
  for (int64_t g = 0; g < w; ++g) {
    for (int64_t i = 0; i < M; ++i) c[i * N + g] = sums[g * kR * L + i];
  }
}

template <int kR, GemmDims::Source SA, GemmDims::Source SB, class D, typename T = hn::TFromD<D>>
HWY_NOINLINE void GemmNarrowRows(D d, const void* a_v, const void* b_v, T* HWY_RESTRICT c_all,
                                 const GemmDims& dims, int64_t unit_begin, int64_t unit_end) {
  constexpr int kG = kR == 1 ? kNarrowColumns1 : kNarrowColumns2;
  const SourceType<SA, T>* a_all = static_cast<const SourceType<SA, T>*>(a_v);
  const SourceType<SB, T>* b_all = static_cast<const SourceType<SB, T>*>(b_v);
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const int64_t M = dims.m, N = dims.n, K = dims.k;
  const UnitGrid grid(dims);
  if (M * N * K <= kNarrowTinyProducts) {
    // A handful of products in all (a dot of two short vectors in a loop
    // body): each sum on its own, the same multiply-adds in the same order
    // as the blocks below, with no packing and no columns to clear.
    const hn::CappedTag<T, 1> d1;
    for (int64_t u = unit_begin; u < unit_end; ++u) {
      const UnitTile t = grid.Tile(u);
      const SourceType<SA, T>* A = a_all + t.bi * dims.a_sb;
      const SourceType<SB, T>* B = b_all + t.bi * dims.b_sb;
      T* C = c_all + t.bi * M * N;
      for (int64_t i = t.i0; i < t.i0 + t.mc; ++i) {
        for (int64_t j = t.j0; j < t.j0 + t.nc; ++j) {
          auto acc = hn::Zero(d1);
          for (int64_t k = 0; k < K; ++k) {
            acc = hn::MulAdd(hn::Set(d1, FromSource<SA, T>(A[i * dims.a_sm + k * dims.a_sk])),
                             hn::Set(d1, FromSource<SB, T>(B[j * dims.b_sn + k])), acc);
          }
          C[i * N + j] = hn::GetLane(acc);
        }
      }
    }
    return;
  }
  thread_local PackBuffers<T> bufs;
  T* at = bufs.A(static_cast<size_t>(K * kR * L));
  // Columns past a partial group's end are read (as zeros), not stored:
  // only the first min(K, kNarrowBlockK) values of a column are ever read,
  // so only those are cleared (a small dot in a loop would otherwise clear
  // kG whole columns, some 17 kB, on every call).
  T* cols = bufs.B(static_cast<size_t>(kG * NarrowColumnStride<T>()));
  const int64_t read_k = std::min(K, kNarrowBlockK);
  for (int g = 0; g < kG; ++g) {
    std::fill(cols + g * NarrowColumnStride<T>(), cols + g * NarrowColumnStride<T>() + read_k, T(0));
  }
  // The rows of A in `at`: (batch index, first row).
  int64_t packed_bi = -1, packed_i0 = -1;
  for (int64_t u = unit_begin; u < unit_end; ++u) {
    const UnitTile t = grid.Tile(u);
    if (t.bi != packed_bi || t.i0 != packed_i0) {
      PackRowsKMajor<SA>(a_all + t.bi * dims.a_sb + t.i0 * dims.a_sm, dims.a_sm, dims.a_sk, t.mc, K,
                         kR * L, at);
      packed_bi = t.bi, packed_i0 = t.i0;
    }
    const SourceType<SB, T>* B = b_all + t.bi * dims.b_sb;
    T* C = c_all + t.bi * M * N + t.i0 * N;
    for (int64_t j = t.j0; j < t.j0 + t.nc; j += kG) {
      NarrowRowsColumns<kR, kG, SB>(d, at, B + j * dims.b_sn, dims.b_sn, K,
                                    std::min<int64_t>(kG, t.j0 + t.nc - j), t.mc, C + j, N, cols);
    }
  }
}

// A few rows of A (up to 4, or 12 where there are 32 vector registers)
// against a B whose columns run along k, f32 compute (x . E^T: a decode
// step's logits and projections), on targets with 8-lane f32 vectors.
// Eight columns of B are loaded 8 values of k at a time and transposed in
// registers, so that one multiply-add covers 8 columns of a row at one k;
// kGroups such groups run side by side. A is transposed once per call and
// batch index (at[k * kM + i], zero rows past m). GemmNarrowRows would broadcast each
// element of B against the rows instead: one multiply-add an element. The
// same sequential sums.
#if HWY_TARGET != HWY_SCALAR
template <class D>
HWY_INLINE void Transpose8(D d, hn::Vec<D> (&r)[8]) {
  const hn::Repartition<uint64_t, D> du;
  using V = hn::Vec<D>;
  V t[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = hn::InterleaveLower(d, r[i], r[i + 1]);      // k 0 1 | 4 5 of rows i, i+1
    t[i + 1] = hn::InterleaveUpper(d, r[i], r[i + 1]);  // k 2 3 | 6 7
  }
  // u: k 0|4, 1|5 from t[i], t[i+2]; k 2|6, 3|7 from t[i+1], t[i+3].
  V u[8];
  for (int i = 0; i < 8; i += 4) {
    for (int h = 0; h < 2; ++h) {
      const auto lo = hn::BitCast(du, t[i + h]), hi = hn::BitCast(du, t[i + h + 2]);
      u[i + 2 * h] = hn::BitCast(d, hn::InterleaveLower(du, lo, hi));
      u[i + 2 * h + 1] = hn::BitCast(d, hn::InterleaveUpper(du, lo, hi));
    }
  }
  // u[0..3]: k 0|4, 1|5, 2|6, 3|7 of rows 0-3; u[4..7] the same of rows 4-7.
  for (int k = 0; k < 4; ++k) {
    r[k] = hn::ConcatLowerLower(d, u[k + 4], u[k]);
    r[k + 4] = hn::ConcatUpperUpper(d, u[k + 4], u[k]);
  }
}

#if HWY_TARGET <= HWY_AVX3 || HWY_ARCH_ARM
constexpr int64_t kTransposedMaxM = 12;
#else
constexpr int64_t kTransposedMaxM = 4;
#endif

template <typename T>
bool UseTransposedB(const GemmDims& dims) {
  const hn::CappedTag<float, 8> d8;
  return std::is_same_v<T, float> && hn::MaxLanes(d8) == 8 && ColumnsAlongK(dims) &&
         dims.m <= kTransposedMaxM && dims.k >= 8 &&
         dims.k * kTransposedMaxM * int64_t{sizeof(float)} <= 512 * 1024;
}

// Columns [j, j1) of C (at most 8 * kGroups) from A's k-major strip `at`.
template <int kM, int kGroups, GemmDims::Source SB>
HWY_INLINE void TransposedBColumns(const float* HWY_RESTRICT at, const SourceType<SB, float>* B,
                                   int64_t b_sn, int64_t K, int64_t M, int64_t N, int64_t j,
                                   int64_t j1, float* C) {
  using TB = SourceType<SB, float>;
  const hn::CappedTag<float, 8> d;
  using V = hn::Vec<decltype(d)>;
  const int64_t whole_k = K / 8 * 8;
  // Columns past j1 repeat the last one; their sums are not stored.
  const TB* col[8 * kGroups];
  for (int64_t g = 0; g < 8 * kGroups; ++g) col[g] = B + std::min(j + g, j1 - 1) * b_sn;
  V acc[kM][kGroups];
  for (int i = 0; i < kM; ++i) {
    for (int g = 0; g < kGroups; ++g) acc[i][g] = hn::Zero(d);
  }
  // The next columns (K elements each, along memory), spread over the steps.
  const int64_t column_lines = (K * int64_t{sizeof(TB)} + 63) / 64;
  const int64_t per_step = (8 * kGroups * column_lines + whole_k / 8 - 1) / (whole_k / 8);
  ColumnPrefetch prefetch(B + (j + 8 * kGroups) * b_sn, b_sn * int64_t{sizeof(TB)}, 8 * kGroups,
                          column_lines);
  for (int64_t k = 0; k < whole_k; k += 8) {
    prefetch.Next(per_step);
    HWY_UNROLL(4) for (int g = 0; g < kGroups; ++g) {
      V r[8];
      HWY_UNROLL(8) for (int c = 0; c < 8; ++c) r[c] = LoadSource<SB>(d, col[g * 8 + c] + k);
      Transpose8(d, r);
      HWY_UNROLL(8) for (int kk = 0; kk < 8; ++kk) {
        HWY_UNROLL(12) for (int i = 0; i < kM; ++i) {
          acc[i][g] = hn::MulAdd(hn::Set(d, at[(k + kk) * kM + i]), r[kk], acc[i][g]);
        }
      }
    }
  }
  HWY_ALIGN float lanes[8];
  for (int64_t k = whole_k; k < K; ++k) {
    for (int g = 0; g < kGroups; ++g) {
      for (int c = 0; c < 8; ++c) lanes[c] = FromSource<SB, float>(col[g * 8 + c][k]);
      const V v = hn::Load(d, lanes);
      for (int i = 0; i < kM; ++i) acc[i][g] = hn::MulAdd(hn::Set(d, at[k * kM + i]), v, acc[i][g]);
    }
  }
  HWY_ALIGN float sums[8 * kGroups];
  const int64_t w = std::min<int64_t>(8 * kGroups, j1 - j);
  for (int64_t i = 0; i < M; ++i) {
    for (int g = 0; g < kGroups; ++g) hn::Store(acc[i][g], d, sums + 8 * g);
    std::copy(sums, sums + w, C + i * N + j);
  }
}

template <int kM, int kGroups, GemmDims::Source SA, GemmDims::Source SB>
HWY_NOINLINE void GemmTransposedB(const void* a_v, const void* b_v, float* HWY_RESTRICT c_all,
                                  const GemmDims& dims, int64_t unit_begin, int64_t unit_end) {
  using TB = SourceType<SB, float>;
  const SourceType<SA, float>* a_all = static_cast<const SourceType<SA, float>*>(a_v);
  const TB* b_all = static_cast<const TB*>(b_v);
  const int64_t M = dims.m, N = dims.n, K = dims.k;
  const UnitGrid grid(dims);
  thread_local PackBuffers<float> bufs;
  float* at = bufs.A(static_cast<size_t>(K * kM));
  // The rows of A in `at`: (batch index, first row).
  int64_t packed_bi = -1, packed_i0 = -1;
  for (int64_t u = unit_begin; u < unit_end; ++u) {
    const UnitTile t = grid.Tile(u);
    const int64_t j1 = t.j0 + t.nc;
    if (t.bi != packed_bi || t.i0 != packed_i0) {
      PackRowsKMajor<SA>(a_all + t.bi * dims.a_sb + t.i0 * dims.a_sm, dims.a_sm, dims.a_sk, t.mc, K,
                         int64_t{kM}, at);
      packed_bi = t.bi, packed_i0 = t.i0;
    }
    for (int64_t j = t.j0; j < j1; j += 8 * kGroups) {
      TransposedBColumns<kM, kGroups, SB>(at, b_all + t.bi * dims.b_sb, dims.b_sn, K, t.mc, N, j,
                                          j1, c_all + t.bi * M * N + t.i0 * N);
    }
  }
}

#endif  // HWY_TARGET != HWY_SCALAR

// A few rows of A (m <= 4) against a B stored by rows (b_sn == 1: x @ W with
// W [in, out], as a decode step computes it). Each row of B, over the work
// unit's columns, is read once and in order, and added into the rows of C,
// which stay in L1 (sums[r * kGemmBlockN + j]: a unit has at most
// kGemmBlockN columns, GemmDims::BlockN()); the rows of B follow one
// another in k. (GemmBlocked walks B a strip of columns at a time, down all
// its rows: a line or two of each row, then the next row.) The same
// sequential sums: sums start at zero and each k adds a[r][k] * b[k][j] with
// one fused multiply-add.
constexpr int64_t kAlongRowsMaxM = 4;

// Where B is small (in cache, its reading order matters little),
// GemmBlocked reads it in place with less work around each row.
template <typename T>
bool UseAlongRows(const GemmDims& dims) {
  const int64_t b_sn = dims.strided() ? dims.b_sn : 1;
  return b_sn == 1 && dims.m <= kAlongRowsMaxM && dims.k > 0 &&
         dims.k * dims.n * static_cast<int64_t>(sizeof(T)) >= 256 * 1024;
}

template <int kM, GemmDims::Source SA, GemmDims::Source SB, typename T>
HWY_NOINLINE void GemmAlongRows(const void* a_v, const void* b_v, T* HWY_RESTRICT c_all,
                                const GemmDims& dims, int64_t unit_begin, int64_t unit_end) {
  using TA = SourceType<SA, T>;
  using TB = SourceType<SB, T>;
  const TA* a_all = static_cast<const TA*>(a_v);
  const TB* b_all = static_cast<const TB*>(b_v);
  const hn::ScalableTag<T> d;
  const hn::CappedTag<T, 1> d1;  // the columns past the last whole vector
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const int64_t M = dims.m, N = dims.n, K = dims.k;
  const bool strided = dims.strided();
  const int64_t a_sb = strided ? dims.a_sb : M * K, a_sm = strided ? dims.a_sm : K;
  const int64_t a_sk = strided ? dims.a_sk : 1;
  const int64_t b_sb = strided ? dims.b_sb : K * N, b_sk = strided ? dims.b_sk : N;
  const UnitGrid grid(dims);
  constexpr int64_t kAhead = 8;  // rows of B prefetched ahead
  constexpr int64_t kLine = 64 / static_cast<int64_t>(sizeof(TB));
  HWY_ALIGN T sums[kM * kGemmBlockN];
  for (int64_t u = unit_begin; u < unit_end; ++u) {
    const UnitTile t = grid.Tile(u);
    const int64_t j0 = t.j0, nc = t.nc, mc = t.mc, whole = nc / L * L;
    const TA* A = a_all + t.bi * a_sb + t.i0 * a_sm;
    const TB* B = b_all + t.bi * b_sb + j0;
    for (int r = 0; r < kM; ++r)
      std::fill(sums + r * kGemmBlockN, sums + r * kGemmBlockN + nc, T(0));
    for (int64_t k = 0; k < K; ++k) {
      const TB* row = B + k * b_sk;
      if (k + kAhead < K) {
        const TB* ahead = row + kAhead * b_sk;
        for (int64_t j = 0; j < nc; j += kLine) PrefetchL2(ahead + j);
      }
      // Rows past the unit's multiply zero; their sums are not stored.
      hn::Vec<decltype(d)> av[kM];
      for (int r = 0; r < kM; ++r) {
        av[r] = hn::Set(d, r < mc ? FromSource<SA, T>(A[r * a_sm + k * a_sk]) : T(0));
      }
      for (int64_t j = 0; j < whole; j += L) {
        const auto bv = LoadSource<SB>(d, row + j);
        HWY_UNROLL(4) for (int r = 0; r < kM; ++r) {
          T* s = sums + r * kGemmBlockN + j;
          hn::Store(hn::MulAdd(av[r], bv, hn::Load(d, s)), d, s);
        }
      }
      for (int64_t j = whole; j < nc; ++j) {
        const auto bv = LoadSource<SB>(d1, row + j);
        for (int r = 0; r < kM; ++r) {
          T* s = sums + r * kGemmBlockN + j;
          hn::StoreU(hn::MulAdd(hn::Set(d1, hn::GetLane(av[r])), bv, hn::LoadU(d1, s)), d1, s);
        }
      }
    }
    T* C = c_all + t.bi * M * N + t.i0 * N + j0;
    for (int64_t r = 0; r < mc; ++r) {
      std::copy(sums + r * kGemmBlockN, sums + r * kGemmBlockN + nc, C + r * N);
    }
  }
}

// The kernel that serves `dims`, in order of preference; GemmAny runs it and
// GemmPath names it (the disassembly shows the name).
enum class GemmPathKind { kTransposedB, kNarrowRows, kAlongRows, kBlocked };

template <typename T>
GemmPathKind ChooseGemmPath(const GemmDims& dims) {
#if HWY_TARGET != HWY_SCALAR
  if (UseTransposedB<T>(dims)) return GemmPathKind::kTransposedB;
#endif
  if (UseNarrowRows<T>(dims)) return GemmPathKind::kNarrowRows;
  if (UseAlongRows<T>(dims)) return GemmPathKind::kAlongRows;
  return GemmPathKind::kBlocked;
}

// GemmNarrowRows puts the rows in the narrowest vectors that hold them: a
// multiply-add of a 128- or 256-bit vector costs no more than one of a full
// one (less on cores that split 512-bit operations in two), and each
// handles one element of B.
template <typename T, GemmDims::Source SA, GemmDims::Source SB>
void GemmAny(const void* a, const void* b, void* c_v, const GemmDims& dims, int64_t ub,
             int64_t ue) {
  T* c = static_cast<T*>(c_v);
  switch (ChooseGemmPath<T>(dims)) {
    case GemmPathKind::kTransposedB:
#if HWY_TARGET != HWY_SCALAR
      if constexpr (std::is_same_v<T, float>) {
        // Accumulators: kM rows x kGroups vectors of 8 columns.
        if (dims.m == 1) return GemmTransposedB<1, 4, SA, SB>(a, b, c, dims, ub, ue);
        if (dims.m <= 4) return GemmTransposedB<4, 2, SA, SB>(a, b, c, dims, ub, ue);
        if constexpr (kTransposedMaxM > 4) {
          return GemmTransposedB<kTransposedMaxM, 1, SA, SB>(a, b, c, dims, ub, ue);
        }
      }
#endif
      break;
    case GemmPathKind::kNarrowRows: {
      const hn::ScalableTag<T> d;
      const int64_t L = static_cast<int64_t>(hn::Lanes(d));
      constexpr size_t k128 = 16 / sizeof(T), k256 = 32 / sizeof(T);
      if (dims.m <= static_cast<int64_t>(std::min<size_t>(k128, L))) {
        return GemmNarrowRows<1, SA, SB>(hn::CappedTag<T, k128>(), a, b, c, dims, ub, ue);
      }
      if (dims.m <= static_cast<int64_t>(std::min<size_t>(k256, L))) {
        return GemmNarrowRows<1, SA, SB>(hn::CappedTag<T, k256>(), a, b, c, dims, ub, ue);
      }
      if (dims.m <= L) return GemmNarrowRows<1, SA, SB>(d, a, b, c, dims, ub, ue);
      return GemmNarrowRows<2, SA, SB>(d, a, b, c, dims, ub, ue);
    }
    case GemmPathKind::kAlongRows:
      if (dims.m == 1) return GemmAlongRows<1, SA, SB>(a, b, c, dims, ub, ue);
      return GemmAlongRows<kAlongRowsMaxM, SA, SB>(a, b, c, dims, ub, ue);
    case GemmPathKind::kBlocked:
      break;
  }
  GemmBlocked<T, SA, SB>(a, b, c, dims, ub, ue);
}

// Each unit packs its own rows of A and strips of B, so a split repacks an
// operand that GemmBlocked does not read in place: splitting columns
// repacks A's rows, splitting rows repacks B's strips. Blocks split that way
// keep at least this many columns (rows): a [256, 256] x [256, 256] dot,
// both operands packed, stays one unit (split in four, it took some 2% more
// time on one thread).
constexpr int64_t kPackedMinUnitExtent = 256;
// The kernels for a few rows transpose A's rows for every unit (a gather,
// cheaper than packing a block): units of at least this many columns.
constexpr int64_t kNarrowMinUnitColumns = 128;

// GemmKernel::SplitUnits for this target's kernels: blocks of whole
// register tiles (or column groups), split where the split costs least:
// columns first unless that repacks A where splitting rows would not
// repack B (or would repack less of it). The kernels for a few rows split
// only columns.
template <typename T>
void SplitUnitsOf(GemmDims* dims, int64_t want_units, int64_t min_unit_flops) {
  const int64_t L = static_cast<int64_t>(hn::Lanes(hn::ScalableTag<T>()));
  const int64_t M = dims->m, N = dims->n;
  int64_t col_align = kNv * L;
  bool split_rows = true;
  int64_t min_cols = col_align;
  const GemmPathKind path = ChooseGemmPath<T>(*dims);
  switch (path) {
    case GemmPathKind::kTransposedB:
      // Columns at a time: 8 * kGroups (GemmAny).
      col_align = M == 1 ? 32 : M <= 4 ? 16 : 8;
      min_cols = kNarrowMinUnitColumns, split_rows = false;
      break;
    case GemmPathKind::kNarrowRows:
      col_align = M <= L ? kNarrowColumns1 : kNarrowColumns2;
      min_cols = kNarrowMinUnitColumns, split_rows = false;
      break;
    case GemmPathKind::kAlongRows:
      col_align = L, split_rows = false;
      break;
    case GemmPathKind::kBlocked:
      break;
  }
  // A block of `size` split into twice as many blocks over `extent`, each
  // a whole number of `align` (`size` itself when that is no smaller).
  auto halve = [](int64_t extent, int64_t size, int64_t align) {
    const int64_t blocks = 2 * ((extent + size - 1) / size);
    const int64_t half = ((extent + blocks - 1) / blocks + align - 1) / align * align;
    return std::min(half, size);
  };
  auto unit_flops = [dims](int64_t rows, int64_t cols) {
    return 2 * std::min(dims->m, rows) * std::min(dims->n, cols) * dims->k;
  };
  auto units = [dims] {
    const int64_t bm = dims->BlockM(), bn = dims->BlockN();
    return dims->batch * ((dims->m + bm - 1) / bm) * ((dims->n + bn - 1) / bn);
  };
  while (units() < want_units) {
    const int64_t bm = dims->BlockM(), bn = dims->BlockN();
    bool rows_first = false;
    int64_t unit_cols = min_cols, unit_rows = kGemmMinSplitRows;
    if (path == GemmPathKind::kBlocked) {
      const BlockedOperands in_place = BlockedOperandsOf<T>(*dims, bm, bn);
      if (!in_place.a) unit_cols = std::max(unit_cols, kPackedMinUnitExtent);
      if (!in_place.b) unit_rows = std::max(unit_rows, kPackedMinUnitExtent);
      rows_first = !in_place.a && (in_place.b || std::min(M, bm) > std::min(N, bn));
    }
    const int64_t n_half = std::max(halve(N, bn, col_align), unit_cols);
    const bool cols_ok = n_half < bn && n_half < N && unit_flops(bm, n_half) >= min_unit_flops;
    const int64_t m_half = std::max(halve(M, bm, kMr), unit_rows);
    const bool rows_ok =
        split_rows && m_half < bm && m_half < M && unit_flops(m_half, bn) >= min_unit_flops;
    if (rows_ok && (rows_first || !cols_ok)) {
      dims->block_m = m_half;
    } else if (cols_ok) {
      dims->block_n = n_half;
    } else {
      break;
    }
  }
}
void SplitUnitsF32(GemmDims* dims, int64_t want_units, int64_t min_unit_flops) {
  SplitUnitsOf<float>(dims, want_units, min_unit_flops);
}
void SplitUnitsF64(GemmDims* dims, int64_t want_units, int64_t min_unit_flops) {
  SplitUnitsOf<double>(dims, want_units, min_unit_flops);
}

template <typename T>
const char* GemmPathOf(const GemmDims& dims) {
  switch (ChooseGemmPath<T>(dims)) {
    case GemmPathKind::kTransposedB:
      return "transposed-b";
    case GemmPathKind::kNarrowRows:
      return "narrow-rows";
    case GemmPathKind::kAlongRows:
      return "along-rows";
    case GemmPathKind::kBlocked:
      break;
  }
  return "blocked";
}
const char* GemmPathF32(const GemmDims& dims) { return GemmPathOf<float>(dims); }
const char* GemmPathF64(const GemmDims& dims) { return GemmPathOf<double>(dims); }

template <typename T, GemmDims::Source SA>
void GemmWithA(const void* a, const void* b, void* c, const GemmDims& dims, int64_t ub,
               int64_t ue) {
  switch (dims.b_source) {
    case GemmDims::Source::kBF16:
      return GemmAny<T, SA, GemmDims::Source::kBF16>(a, b, c, dims, ub, ue);
    case GemmDims::Source::kF16:
      return GemmAny<T, SA, GemmDims::Source::kF16>(a, b, c, dims, ub, ue);
    default:
      return GemmAny<T, SA, GemmDims::Source::kCompute>(a, b, c, dims, ub, ue);
  }
}

void GemmF32(const void* a, const void* b, void* c, const GemmDims& dims, int64_t ub, int64_t ue) {
  switch (dims.a_source) {
    case GemmDims::Source::kBF16:
      return GemmWithA<float, GemmDims::Source::kBF16>(a, b, c, dims, ub, ue);
    case GemmDims::Source::kF16:
      return GemmWithA<float, GemmDims::Source::kF16>(a, b, c, dims, ub, ue);
    default:
      return GemmWithA<float, GemmDims::Source::kCompute>(a, b, c, dims, ub, ue);
  }
}
void GemmF64(const void* a, const void* b, void* c, const GemmDims& dims, int64_t ub, int64_t ue) {
  GemmAny<double, GemmDims::Source::kCompute, GemmDims::Source::kCompute>(a, b, c, dims, ub, ue);
}
const char* GemmTarget() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace gemm_internal
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
