// Vectorised depthwise convolution kernel (Highway, dynamic dispatch): for
// each output position p,
// outs[p][c] = sum over window positions w of rows[p][w][c] * kernel[w * channels + c],
// one fused multiply-add per term in window order (as the GEMM path sums),
// channels vectorised. And the planar form's row update (FmaRowF32), a
// batch-group weight gradient's window row (BatchGroupRowF32), a whole
// padded plane of the planar form (PlanarPaddedPlaneF32) and the
// register tile of the direct convolution (DirectConvTileF32, and
// DirectConvTilesF32 for whole tiles, which can apply an elementwise
// epilogue to their sums before they store them), and that
// epilogue over a run of stored sums (ConvEpilogueF32).
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/dot/conv_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// clang-format on

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/highway.h"
#include "ops/common/bf16_round.h"
#include "ops/common/float_minmax.h"
#include "ops/dot/conv.h"

HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace conv_internal {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Channels [c, end) of one position; the kernel's rows are `stride` apart.
void DepthwiseOneTail(const float* const* rows, const float* kernel, int64_t ksp, int64_t stride,
                      int64_t c, int64_t end, float* out) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  for (; c + N <= end; c += N) {
    auto a = hn::Zero(d);
    for (int64_t w = 0; w < ksp; ++w) {
      a = hn::MulAdd(hn::LoadU(d, rows[w] + c), hn::LoadU(d, kernel + w * stride + c), a);
    }
    hn::StoreU(a, d, out + c);
  }
  for (; c < end; ++c) {
    float a = 0.0f;
    for (int64_t w = 0; w < ksp; ++w) a = std::fma(rows[w][c], kernel[w * stride + c], a);
    out[c] = a;
  }
}

// One output position.
void DepthwiseOne(const float* const* rows, const float* kernel, int64_t ksp, int64_t channels,
                  float* out) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t c = 0;
  for (; c + 2 * N <= channels; c += 2 * N) {
    auto a0 = hn::Zero(d), a1 = hn::Zero(d);
    for (int64_t w = 0; w < ksp; ++w) {
      const float* r = rows[w] + c;
      const float* k = kernel + w * channels + c;
      a0 = hn::MulAdd(hn::LoadU(d, r), hn::LoadU(d, k), a0);
      a1 = hn::MulAdd(hn::LoadU(d, r + N), hn::LoadU(d, k + N), a1);
    }
    hn::StoreU(a0, d, out + c);
    hn::StoreU(a1, d, out + c + N);
  }
  DepthwiseOneTail(rows, kernel, ksp, channels, c, channels, out);
}

// `npos` output positions: rows[p * ksp + w] is the input row of position p
// at window position w; outs[p] its output. Four positions share each kernel
// load.
void DepthwiseF32(const float* const* rows, const float* kernel, int64_t ksp, int64_t channels,
                  int64_t npos, float* const* outs) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t p = 0;
  for (; p + 4 <= npos; p += 4) {
    const float* const* r0 = rows + p * ksp;
    const float* const* r1 = r0 + ksp;
    const float* const* r2 = r1 + ksp;
    const float* const* r3 = r2 + ksp;
    int64_t c = 0;
    for (; c + 2 * N <= channels; c += 2 * N) {
      auto a00 = hn::Zero(d), a01 = hn::Zero(d), a10 = hn::Zero(d), a11 = hn::Zero(d);
      auto a20 = hn::Zero(d), a21 = hn::Zero(d), a30 = hn::Zero(d), a31 = hn::Zero(d);
      for (int64_t w = 0; w < ksp; ++w) {
        const float* k = kernel + w * channels + c;
        const auto k0 = hn::LoadU(d, k), k1 = hn::LoadU(d, k + N);
        a00 = hn::MulAdd(hn::LoadU(d, r0[w] + c), k0, a00);
        a01 = hn::MulAdd(hn::LoadU(d, r0[w] + c + N), k1, a01);
        a10 = hn::MulAdd(hn::LoadU(d, r1[w] + c), k0, a10);
        a11 = hn::MulAdd(hn::LoadU(d, r1[w] + c + N), k1, a11);
        a20 = hn::MulAdd(hn::LoadU(d, r2[w] + c), k0, a20);
        a21 = hn::MulAdd(hn::LoadU(d, r2[w] + c + N), k1, a21);
        a30 = hn::MulAdd(hn::LoadU(d, r3[w] + c), k0, a30);
        a31 = hn::MulAdd(hn::LoadU(d, r3[w] + c + N), k1, a31);
      }
      hn::StoreU(a00, d, outs[p] + c);
      hn::StoreU(a01, d, outs[p] + c + N);
      hn::StoreU(a10, d, outs[p + 1] + c);
      hn::StoreU(a11, d, outs[p + 1] + c + N);
      hn::StoreU(a20, d, outs[p + 2] + c);
      hn::StoreU(a21, d, outs[p + 2] + c + N);
      hn::StoreU(a30, d, outs[p + 3] + c);
      hn::StoreU(a31, d, outs[p + 3] + c + N);
    }
    if (c < channels) {
      // Remaining channels one position at a time (same order per element).
      for (int64_t q = 0; q < 4; ++q) {
        DepthwiseOneTail(rows + (p + q) * ksp, kernel, ksp, channels, c, channels, outs[p + q]);
      }
    }
  }
  for (; p < npos; ++p) DepthwiseOne(rows + p * ksp, kernel, ksp, channels, outs[p]);
}

// acc[i] = in[i] * k + acc[i] for i in [0, n), one fused multiply-add
// each (the planar depthwise path: one window position over an output row).
void FmaRowF32(const float* in, float k, float* acc, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const auto kv = hn::Set(d, k);
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    hn::StoreU(hn::MulAdd(hn::LoadU(d, in + i), kv, hn::LoadU(d, acc + i)), d, acc + i);
  }
  // The rest one lane at a time, with the same fused multiply-add.
  const hn::CappedTag<float, 1> d1;
  const auto k1 = hn::Set(d1, k);
  for (; i < n; ++i) {
    hn::StoreU(hn::MulAdd(hn::LoadU(d1, in + i), k1, hn::LoadU(d1, acc + i)), d1, acc + i);
  }
}

// One window row of a batch-group weight gradient, 16 groups side by side
// in lanes: for window column kw, then input feature c,
//   acc[o][i] = fma(rows[oh(o)][(col[kw * ow + ow(o)] * cg + c) * 16 + i],
//                   kernel[(kw * cg + c) * 16 + i], acc[o][i])
// over output positions o = oh(o) * ow + ow(o) (a column of -1, or a row
// that is null, is padding: a zero term), so each output sums in window
// order, then input features.
void BatchGroupRowF32(const float* const* rows, const float* kernel, const int32_t* col,
                      int64_t oh, int64_t ow, int64_t kw, int64_t cg, float* acc) {
  const hn::ScalableTag<float> d;
  const int64_t N = std::min<int64_t>(16, static_cast<int64_t>(hn::Lanes(d)));
  const hn::CappedTag<float, 16> dc;
  const int64_t nout = oh * ow;
  const auto zero = hn::Zero(dc);
  for (int64_t v = 0; v < 16; v += N) {
    hn::Vec<decltype(dc)> a[16];
    for (int64_t o = 0; o < nout; ++o) a[o] = hn::LoadU(dc, acc + o * 16 + v);
    for (int64_t k = 0; k < kw; ++k) {
      const int32_t* cols = col + k * ow;
      for (int64_t c = 0; c < cg; ++c) {
        const auto kv = hn::LoadU(dc, kernel + (k * cg + c) * 16 + v);
        for (int64_t y = 0; y < oh; ++y) {
          const float* row = rows[y] == nullptr ? nullptr : rows[y] + c * 16 + v;
          for (int64_t x = 0; x < ow; ++x) {
            const int64_t o = y * ow + x;
            const auto in =
                row == nullptr || cols[x] < 0 ? zero : hn::LoadU(dc, row + cols[x] * cg * 16);
            a[o] = hn::MulAdd(in, kv, a[o]);
          }
        }
      }
    }
    for (int64_t o = 0; o < nout; ++o) hn::StoreU(a[o], dc, acc + o * 16 + v);
  }
}


// Rows of bf16 bits widened to f32 (exact: the bits move up 16), src rows
// src_stride elements apart, dst rows dst_stride apart.
void WidenBF16Rows(const uint16_t* src, int64_t src_stride, float* dst, int64_t dst_stride,
                   int64_t rows, int64_t cols) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  const int64_t n = static_cast<int64_t>(hn::Lanes(df));
  for (int64_t y = 0; y < rows; ++y) {
    const uint16_t* s = src + y * src_stride;
    float* d = dst + y * dst_stride;
    int64_t x = 0;
    for (; x + n <= cols; x += n) {
      hn::StoreU(hlovm::HWY_NAMESPACE::WidenBF16(df, hn::LoadU(du16, s + x)), df, d + x);
    }
    for (; x < cols; ++x) {
      const uint32_t bits = uint32_t{s[x]} << 16;
      std::memcpy(d + x, &bits, sizeof(bits));
    }
  }
}

// Stores the sums of a planar block (rows [y0, y0 + R), vectors of
// outputs from x0) but their lanes at or past `ow`.
template <int R, int V, class Vec>
HWY_INLINE void StorePlanarBlock(const Vec (&acc)[R][V], int64_t y0, int64_t x0, int64_t ow,
                                 float* out, int64_t out_stride) {
  const hn::DFromV<Vec> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  HWY_ALIGN float tail[HWY_MAX_BYTES / sizeof(float)];
  for (int r = 0; r < R; ++r) {
    float* o = out + (y0 + r) * out_stride + x0;
    for (int v = 0; v < V; ++v) {
      const int64_t left = ow - x0 - v * N;
      if (left >= N) {
        hn::StoreU(acc[r][v], d, o + v * N);
      } else if (left > 0) {
        hn::Store(acc[r][v], d, tail);
        std::copy(tail, tail + left, o + v * N);
      }
    }
  }
}

// Output rows [y0, y0 + R) x vectors of outputs [x0, x0 + V * N) of a
// planar padded plane at column stride 1 (see PlanarPaddedPlaneF32): R * V
// independent sums, so that the fused multiply-adds of one window position
// overlap instead of waiting on each other's results. Each output's terms
// still come in window order, one fused multiply-add each, from zero.
// Lanes at or past `ow` are computed from the plane's slack and dropped.
template <int R, int V>
HWY_INLINE void PlanarPaddedBlock(const float* padded, int64_t pw, int64_t y0, int64_t x0,
                                  int64_t ow, int64_t kh, int64_t kw, int64_t sh, int64_t dh,
                                  int64_t dw, const float* weights, float* out,
                                  int64_t out_stride) {
  const hn::ScalableTag<float> d;
  using Vec = hn::Vec<decltype(d)>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  Vec acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = hn::Zero(d);
  for (int64_t i = 0; i < kh; ++i) {
    const float* rows[R];
    for (int r = 0; r < R; ++r) rows[r] = padded + ((y0 + r) * sh + i * dh) * pw + x0;
    for (int64_t j = 0; j < kw; ++j) {
      const auto w = hn::Set(d, weights[i * kw + j]);
      for (int r = 0; r < R; ++r)
        for (int v = 0; v < V; ++v) {
          acc[r][v] = hn::MulAdd(hn::LoadU(d, rows[r] + j * dw + v * N), w, acc[r][v]);
        }
    }
  }
  StorePlanarBlock<R, V>(acc, y0, x0, ow, out, out_stride);
}

#if HWY_TARGET <= HWY_AVX3
// Lanes [j, j + 16) of the concatenation lo, hi (j in [1, 3], a constant
// once inlined): the input vector one to three columns on from lo, made
// from two loaded vectors (valignd) instead of loaded again across a cache
// line, which costs this core two loads.
template <class V>
HWY_INLINE V ShiftInLanes(int j, V hi, V lo) {
  const __m512i h = _mm512_castps_si512(hi.raw), l = _mm512_castps_si512(lo.raw);
  switch (j) {
    case 1:
      return V{_mm512_castsi512_ps(_mm512_alignr_epi32(h, l, 1))};
    case 2:
      return V{_mm512_castsi512_ps(_mm512_alignr_epi32(h, l, 2))};
    default:
      return V{_mm512_castsi512_ps(_mm512_alignr_epi32(h, l, 3))};
  }
}
constexpr bool kShiftInLanes = true;
#else
constexpr bool kShiftInLanes = false;
#endif

// PlanarPaddedBlock for a KH x KW window at stride 1 without dilation: the
// weights stay in registers, and each loaded input vector serves every
// output row of the block that reads it (an input row is read by KH output
// rows), so a block of R rows loads R + KH - 1 rows rather than R * KH.
// Each output's terms still come in window order (rows, then columns).
template <int KH, int KW, int R, int V>
HWY_INLINE void PlanarPaddedSmallBlock(const float* padded, int64_t pw, int64_t y0, int64_t x0,
                                       int64_t ow, const hn::Vec<hn::ScalableTag<float>>* w,
                                       float* out, int64_t out_stride) {
  const hn::ScalableTag<float> d;
  using Vec = hn::Vec<decltype(d)>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  Vec acc[R][V];
  HWY_UNROLL(16) for (int r = 0; r < R; ++r) {
    HWY_UNROLL(16) for (int v = 0; v < V; ++v) acc[r][v] = hn::Zero(d);
  }
  static_assert(KW <= 4, "ShiftInLanes moves by at most three lanes");
  const float* top = padded + y0 * pw + x0;
  HWY_UNROLL(16) for (int t = 0; t < R + KH - 1; ++t) {
    Vec row[V + 1];
    HWY_UNROLL(16) for (int v = 0; v < V + (kShiftInLanes ? 1 : 0); ++v) {
      row[v] = hn::LoadU(d, top + t * pw + v * N);
    }
    HWY_UNROLL(16) for (int j = 0; j < KW; ++j) {
      HWY_UNROLL(16) for (int v = 0; v < V; ++v) {
#if HWY_TARGET <= HWY_AVX3
        const Vec in = j == 0 ? row[v] : ShiftInLanes(j, row[v + 1], row[v]);
#else
        const Vec in = j == 0 ? row[v] : hn::LoadU(d, top + t * pw + j + v * N);
#endif
        HWY_UNROLL(16) for (int r = 0; r < R; ++r) {
          const int i = t - r;
          if (i >= 0 && i < KH) acc[r][v] = hn::MulAdd(in, w[i * KW + j], acc[r][v]);
        }
      }
    }
  }
  StorePlanarBlock<R, V>(acc, y0, x0, ow, out, out_stride);
}

// Rows [y0, y0 + oh) of a KH x KW window's plane at stride 1 without
// dilation: R rows at a time, two vectors of outputs, then one.
template <int KH, int KW, int R>
HWY_INLINE int64_t PlanarPaddedSmallRows(const float* padded, int64_t pw, int64_t oh, int64_t ow,
                                         const float* weights, float* out, int64_t out_stride) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  hn::Vec<decltype(d)> w[KH * KW];
  for (int k = 0; k < KH * KW; ++k) w[k] = hn::Set(d, weights[k]);
  int64_t y = 0;
  for (; y + R <= oh; y += R) {
    int64_t x = 0;
    for (; x + N < ow; x += 2 * N) {
      PlanarPaddedSmallBlock<KH, KW, R, 2>(padded, pw, y, x, ow, w, out, out_stride);
    }
    if (x < ow) PlanarPaddedSmallBlock<KH, KW, R, 1>(padded, pw, y, x, ow, w, out, out_stride);
  }
  return y;
}

// Output rows [y0, y0 + R) of a planar padded plane at column stride 1,
// two vectors of outputs at a time, then one.
template <int R>
HWY_INLINE void PlanarPaddedRows(const float* padded, int64_t pw, int64_t y0, int64_t ow,
                                 int64_t kh, int64_t kw, int64_t sh, int64_t dh, int64_t dw,
                                 const float* weights, float* out, int64_t out_stride) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t x = 0;
  for (; x + N < ow; x += 2 * N) {
    PlanarPaddedBlock<R, 2>(padded, pw, y0, x, ow, kh, kw, sh, dh, dw, weights, out, out_stride);
  }
  if (x < ow) {
    PlanarPaddedBlock<R, 1>(padded, pw, y0, x, ow, kh, kw, sh, dh, dw, weights, out, out_stride);
  }
}

// One plane of a planar depthwise convolution over a zero-padded copy of
// its input (ConvPlan::planar_padded): out[y * out_stride + x] = sum over
// window rows i, then columns j, of
// padded[(y * sh + i * dh) * pw + x * sw + j * dw] * weights[i * kw + j],
// one fused multiply-add per term from zero (padding terms read zeros), as
// the row-at-a-time planar path sums. With sw = 1 the outputs of a row are
// vectorised, four rows of two vectors at a time (a single sum's chain of
// dependent multiply-adds ran at a quarter of the core's rate); `padded`
// has a vector of slack past its last row.
void PlanarPaddedPlaneF32(const float* padded, int64_t pw, int64_t oh, int64_t ow, int64_t kh,
                          int64_t kw, int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                          const float* weights, float* out, int64_t out_stride) {
  if (sw != 1) {
    for (int64_t y = 0; y < oh; ++y) {
      const float* top = padded + y * sh * pw;
      float* o = out + y * out_stride;
      for (int64_t x = 0; x < ow; ++x) {
        float acc = 0.0f;
        for (int64_t i = 0; i < kh; ++i) {
          const float* row = top + i * dh * pw + x * sw;
          for (int64_t j = 0; j < kw; ++j) acc = std::fma(row[j * dw], weights[i * kw + j], acc);
        }
        o[x] = acc;
      }
    }
    return;
  }
  int64_t y = 0;
  if (sh == 1 && dh == 1 && dw == 1 && kh == 3 && kw == 3) {
    y = PlanarPaddedSmallRows<3, 3, 4>(padded, pw, oh, ow, weights, out, out_stride);
  }
  for (; y + 4 <= oh; y += 4) {
    PlanarPaddedRows<4>(padded, pw, y, ow, kh, kw, sh, dh, dw, weights, out, out_stride);
  }
  for (; y < oh; ++y) {
    PlanarPaddedRows<1>(padded, pw, y, ow, kh, kw, sh, dh, dw, weights, out, out_stride);
  }
}

// Depthwise by channel columns (ConvPlan::depthwise_columns).
int64_t DepthwiseColumnLanes() {
  const hn::ScalableTag<float> d;
  return static_cast<int64_t>(hn::Lanes(d));
}

// Copies the block's input into the interleaved plane, lanes past
// `lanes` and the padding zero.
void FillColumnPlane(const DepthwiseColumnArgs& a) {
  const hn::ScalableTag<float> d;
  const hn::Rebind<uint16_t, decltype(d)> du16;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const size_t lanes = static_cast<size_t>(a.lanes);
  const int64_t copy_h = std::min(a.in_h, a.pad_h - a.pad_top);
  const int64_t copy_w = std::min(a.in_w, a.pad_w - a.pad_left);
  const auto zero = hn::Zero(d);
  auto zero_run = [&](float* at, int64_t positions) {
    for (int64_t x = 0; x < positions; ++x) hn::StoreU(zero, d, at + x * N);
  };
  zero_run(a.plane, a.pad_top * a.pad_w);
  for (int64_t y = 0; y < copy_h; ++y) {
    float* row = a.plane + (a.pad_top + y) * a.pad_w * N;
    zero_run(row, a.pad_left);
    float* dst = row + a.pad_left * N;
    // A block of fewer lanes (the last channels) loads through `part`,
    // zero past them: a masked load may read the whole vector (and, for
    // 16-bit lanes on some targets, require it aligned).
    const auto copy_row = [&](const auto* src, auto load) {
      using T = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
      HWY_ALIGN T part[HWY_MAX_BYTES / sizeof(float)] = {};
      for (int64_t x = 0; x < copy_w; ++x) {
        const T* at = src + x * a.in_col;
        if (lanes != static_cast<size_t>(N)) {
          std::memcpy(part, at, lanes * sizeof(T));
          at = part;
        }
        hn::StoreU(load(at), d, dst + x * N);
      }
    };
    if (a.in_bf16) {
      copy_row(static_cast<const uint16_t*>(a.in) + y * a.in_row, [&](const uint16_t* at) {
        return hlovm::HWY_NAMESPACE::WidenBF16(d, hn::LoadU(du16, at));
      });
    } else {
      copy_row(static_cast<const float*>(a.in) + y * a.in_row,
               [&](const float* at) { return hn::LoadU(d, at); });
    }
    zero_run(dst + copy_w * N, a.pad_w - a.pad_left - copy_w);
  }
  zero_run(a.plane + (a.pad_top + copy_h) * a.pad_w * N, (a.pad_h - a.pad_top - copy_h) * a.pad_w);
}

// Stores the sums of output positions [x0, x0 + np) of row y (all `lanes`
// channels of each; rounded to bf16 where the result is).
template <class V>
HWY_INLINE void StoreColumnSums(const DepthwiseColumnArgs& a, const V* acc, int64_t y, int64_t x0,
                                int64_t np) {
  const hn::DFromV<V> d;
  const hn::Rebind<uint16_t, decltype(d)> du16;
  const size_t lanes = static_cast<size_t>(a.lanes);
  const bool full = lanes == hn::Lanes(d);
  // A block of fewer lanes stores through `part`: a blended store may write
  // the whole vector back, over channels that another unit writes.
  HWY_ALIGN float part[HWY_MAX_BYTES / sizeof(float)];
  for (int64_t p = 0; p < np; ++p) {
    const int64_t at = y * a.out_row + (x0 + p) * a.out_col;
    if (a.out_bf16) {
      uint16_t* o = static_cast<uint16_t*>(a.out) + at;
      const auto bits = hlovm::HWY_NAMESPACE::BF16Bits(d, du16, acc[p]);
      if (full) {
        hn::StoreU(bits, du16, o);
      } else {
        hn::StoreU(bits, du16, reinterpret_cast<uint16_t*>(part));
        std::memcpy(o, part, lanes * sizeof(uint16_t));
      }
    } else {
      float* o = static_cast<float*>(a.out) + at;
      if (full) {
        hn::StoreU(acc[p], d, o);
      } else {
        hn::Store(acc[p], d, part);
        std::memcpy(o, part, lanes * sizeof(float));
      }
    }
  }
}

// Eight output positions of a row at a time, each its own sum: positions
// past the row's end repeat its last one (computed, not stored), so that
// every read lies within the plane.
constexpr int kColumnPositions = 8;

// Output positions [x0, x0 + 8) of row y, any window.
HWY_INLINE void ColumnBlockAnyWindow(const DepthwiseColumnArgs& a, int64_t y, int64_t x0) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const int64_t np = std::min<int64_t>(kColumnPositions, a.ow - x0);
  const float* at[kColumnPositions];
  for (int p = 0; p < kColumnPositions; ++p) {
    const int64_t x = std::min<int64_t>(x0 + p, a.ow - 1);
    at[p] = a.plane + (y * a.sh * a.pad_w + x * a.sw) * N;
  }
  V acc[kColumnPositions];
  HWY_UNROLL(8) for (int p = 0; p < kColumnPositions; ++p) acc[p] = hn::Zero(d);
  for (int64_t i = 0; i < a.kh; ++i) {
    for (int64_t j = 0; j < a.kw; ++j) {
      const V w = hn::LoadU(d, a.weights + (i * a.kw + j) * N);
      const int64_t off = (i * a.dh * a.pad_w + j * a.dw) * N;
      HWY_UNROLL(8) for (int p = 0; p < kColumnPositions; ++p) {
        acc[p] = hn::MulAdd(hn::LoadU(d, at[p] + off), w, acc[p]);
      }
    }
  }
  StoreColumnSums(a, acc, y, x0, np);
}

// Output positions [x0, x0 + 8) of row y (all within the row) for a 3x3
// window at column stride 1 without column dilation: the weights in
// registers, and each input vector of a window row loaded once for the
// (up to three) positions that read it; each sum still takes its terms in
// window order.
template <class V>
HWY_INLINE void ColumnBlock3x3(const DepthwiseColumnArgs& a, const V* w, int64_t y, int64_t x0) {
  const hn::DFromV<V> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  V acc[kColumnPositions];
  HWY_UNROLL(8) for (int p = 0; p < kColumnPositions; ++p) acc[p] = hn::Zero(d);
  HWY_UNROLL(3) for (int i = 0; i < 3; ++i) {
    const float* row = a.plane + ((y * a.sh + i * a.dh) * a.pad_w + x0) * N;
    HWY_UNROLL(10) for (int t = 0; t < kColumnPositions + 2; ++t) {
      V in = hn::LoadU(d, row + t * N);
#if HWY_TARGET <= HWY_AVX3 && defined(__GNUC__)
      // Held in a register for its three uses (GCC otherwise folds a load
      // into each multiply-add, three loads where one does).
      asm("" : "+v"(in.raw));
#endif
      HWY_UNROLL(8) for (int p = 0; p < kColumnPositions; ++p) {
        const int j = t - p;
        if (j >= 0 && j < 3) acc[p] = hn::MulAdd(in, w[i * 3 + j], acc[p]);
      }
    }
  }
  StoreColumnSums(a, acc, y, x0, kColumnPositions);
}

void DepthwiseColumnsF32(const DepthwiseColumnArgs& args) {
  // A copy of its own, which the stores cannot alias (the compiler reloaded
  // the caller's fields after every store).
  const DepthwiseColumnArgs a = args;
  FillColumnPlane(a);
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const bool three = a.kh == 3 && a.kw == 3 && a.sw == 1 && a.dw == 1;
  V w[9];
  if (three) {
    for (int k = 0; k < 9; ++k) w[k] = hn::LoadU(d, a.weights + k * N);
  }
  for (int64_t y = 0; y < a.oh; ++y) {
    int64_t x0 = 0;
    if (three) {
      for (; x0 + kColumnPositions <= a.ow; x0 += kColumnPositions) ColumnBlock3x3(a, w, y, x0);
    }
    for (; x0 < a.ow; x0 += kColumnPositions) ColumnBlockAnyWindow(a, y, x0);
  }
}

// Direct convolution register tile (ConvPlan::direct): up to kTileRows
// output rows x kTileVecs vectors of output features held in registers
// while a range of (window position, input feature) terms is folded in, one
// fused multiply-add per term in that order, starting from zero or from the
// partial sums stored by the previous range, as the GEMM sums the im2col
// matrix. Two shapes (ConvPlan::tile_shape): 0, tall, and 1, wide, which
// reads each kernel row's terms for more columns at once.
#if HWY_TARGET <= HWY_AVX3
// 8 rows: their input pointers fit in the general registers. The wide tile
// is 4 rows by 4 vectors (16 sums either way), reading 256 bytes of each
// kernel row a term rather than 128: where kernel rows lie 1 KiB apart or
// more (256 output features and up) it was faster on every ResNet layer
// (one thread: 14x14 3x3 3%, 7x7 3x3 5% or more, the strided 1x1s 1-3%),
// and 2-4% slower on the 64- and 128-feature layers.
constexpr int kTileRowsOf[2] = {8, 4};
constexpr int kTileVecsOf[2] = {2, 4};
#elif HWY_ARCH_ARM
constexpr int kTileRowsOf[2] = {8, 8};
constexpr int kTileVecsOf[2] = {3, 3};
#else
constexpr int kTileRowsOf[2] = {6, 6};
constexpr int kTileVecsOf[2] = {2, 2};
#endif

int64_t DirectTileRows(int shape) { return kTileRowsOf[shape != 0]; }
int64_t DirectTileCols(int shape) {
  const hn::ScalableTag<float> d;
  return kTileVecsOf[shape != 0] * static_cast<int64_t>(hn::Lanes(d));
}

// r = a OP b for a commutative OP, with the NaN of two NaN operands the
// first's (quieted), as the elementwise kernel's instruction returns it
// (its first source operand): which order the compiler gives a commutative
// instruction is otherwise its choice, and may differ from the kernel's.
template <class V>
HWY_INLINE V FirstOperandNaN(V a, V b, V r) {
  return hn::IfThenElse(hn::And(hn::IsNaN(a), hn::IsNaN(b)), hn::Add(a, a), r);
}

// Calls fn(op) with op(a, b) the elementwise kernel's function of `code`
// and the operand order of the step (`reversed`: the operand first), so
// that the loops fn runs have no branches.
template <class Fn>
HWY_INLINE void WithEpilogueOp(ConvEpilogueStep::Op code, bool reversed, Fn&& fn) {
  auto order = [&](auto op) {
    if (reversed) {
      fn([op](auto x, auto y) { return op(y, x); });
    } else {
      fn(op);
    }
  };
  switch (code) {
    case ConvEpilogueStep::kAdd:
      order([](auto a, auto b) { return FirstOperandNaN(a, b, hn::Add(a, b)); });
      break;
    case ConvEpilogueStep::kSub: order([](auto a, auto b) { return hn::Sub(a, b); }); break;
    case ConvEpilogueStep::kMul:
      order([](auto a, auto b) { return FirstOperandNaN(a, b, hn::Mul(a, b)); });
      break;
    case ConvEpilogueStep::kMax:
      order([](auto a, auto b) { return hlovm::HWY_NAMESPACE::FloatMaxVec(a, b); });
      break;
    case ConvEpilogueStep::kMin:
      order([](auto a, auto b) { return hlovm::HWY_NAMESPACE::FloatMinVec(a, b); });
      break;
  }
}

// One step over elements [0, n) of a run within one row of features:
// out[j] = op(in[j], operand of result element index0 + j, feature
// feature0 + j), full vectors then one lane at a time.
template <class Op>
HWY_INLINE void EpilogueRun(const ConvEpilogueStep& s, Op op, const float* in, float* out,
                            int64_t index0, int64_t feature0, int64_t n) {
  const hn::ScalableTag<float> d;
  const hn::CappedTag<float, 1> d1;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t j = 0;
  if (s.kind == ConvEpilogueStep::kScalar) {
    const auto y = hn::Set(d, s.data[0]);
    const auto y1 = hn::Set(d1, s.data[0]);
    for (; j + N <= n; j += N) hn::StoreU(op(hn::LoadU(d, in + j), y), d, out + j);
    for (; j < n; ++j) hn::StoreU(op(hn::LoadU(d1, in + j), y1), d1, out + j);
    return;
  }
  const float* y = s.kind == ConvEpilogueStep::kChannels ? s.data + feature0 : s.data + index0;
  for (; j + N <= n; j += N) {
    hn::StoreU(op(hn::LoadU(d, in + j), hn::LoadU(d, y + j)), d, out + j);
  }
  for (; j < n; ++j) hn::StoreU(op(hn::LoadU(d1, in + j), hn::LoadU(d1, y + j)), d1, out + j);
}

void ConvEpilogueF32(const ConvEpilogueStep* steps, int nsteps, const float* sums, float* out,
                     int64_t index0, int64_t n, int64_t channels) {
  int64_t i = 0;
  while (i < n) {
    // A run within one row of features, step by step.
    const int64_t feature = (index0 + i) % channels;
    const int64_t len = std::min(n - i, channels - feature);
    for (int s = 0; s < nsteps; ++s) {
      WithEpilogueOp(steps[s].op, steps[s].reversed, [&](auto op) {
        EpilogueRun(steps[s], op, s == 0 ? sums + i : out + i, out + i, index0 + i, feature, len);
      });
    }
    if (nsteps == 0 && sums != out) std::copy(sums + i, sums + i + len, out + i);
    i += len;
  }
}

// Terms [c0, c1) of one window position (input rows a, kernel rows from
// b, ldk apart) folded into the sums of rows [0, kM), but for row kOut
// (none where kOut is -1), which reads padding there and is left out.
template <int kOut, int kM, int kVecs, class D, class V>
HWY_INLINE void WindowTerms(D d, const float* const (&a)[kM], const float* HWY_RESTRICT b,
                            int64_t ldk, int64_t c0, int64_t c1, V (&acc)[kM][kVecs]) {
  const size_t L = hn::Lanes(d);
  HWY_UNROLL(2) for (int64_t c = c0; c < c1; ++c) {
    V bv[kVecs];
    HWY_UNROLL(4) for (int v = 0; v < kVecs; ++v) bv[v] = hn::LoadU(d, b + v * L);
    b += ldk;
    HWY_UNROLL(8) for (int r = 0; r < kM; ++r) {
      if (r == kOut) continue;
      const V av = hn::Set(d, a[r][c]);
      HWY_UNROLL(4) for (int v = 0; v < kVecs; ++v) acc[r][v] = hn::MulAdd(av, bv[v], acc[r][v]);
    }
  }
}

// WindowTerms leaving out row `out` (-1: none), one loop for each.
template <int kOut, int kM, int kVecs, class D, class V>
HWY_INLINE void WindowTermsLeavingOut(int out, D d, const float* const (&a)[kM],
                                      const float* HWY_RESTRICT b, int64_t ldk, int64_t c0,
                                      int64_t c1, V (&acc)[kM][kVecs]) {
  if constexpr (kOut < kM) {
    if (out == kOut) {
      WindowTerms<kOut>(d, a, b, ldk, c0, c1, acc);
    } else {
      WindowTermsLeavingOut<kOut + 1>(out, d, a, b, ldk, c0, c1, acc);
    }
  } else {
    WindowTerms<-1>(d, a, b, ldk, c0, c1, acc);
  }
}

// The first kM rows of a tile: rows[w * kTileRows + r] holds the cg input
// features row r reads at window position w; terms k in [k0, k1) with
// k = w * cg + c; kernel element (k, j) at kernel[(k - k0) * ldk + j]; sums at
// out + r * ldo (read back unless `first`).
// At the window positions w whose bit is set in `skip` (then every w < 64)
// some row reads `zeros` (the tall tile: every row) and the kernel's rows
// are finite, so that those rows' terms would add exactly nothing (a sum
// started from +0 is never -0): a window position where every row reads
// zeros is left out, and in a full wide tile, where one row does, that
// row's terms are (where several do, their terms are summed).
// Without kSkips, `skip` is 0 and its code is left out (the wide tile's
// loop for a window with a padding row cost the tiles without any ~1%).
// A full tile (kM == kTileRows) with epilogue steps puts the sums through
// them before it stores them (out[0] is result element index0, ldo the
// result's features); narrower tiles take none.
template <int kShape, int kM, bool kSkips = true, class D>
HWY_INLINE void DirectTile(D d, const float* const* HWY_RESTRICT rows, int64_t cg, int64_t k0,
                           int64_t k1, const float* HWY_RESTRICT kernel, int64_t ldk, bool first,
                           float* out, int64_t ldo, uint64_t skip, const float* zeros,
                           const ConvEpilogueStep* steps, int nsteps, int64_t index0) {
  using V = hn::Vec<D>;
  constexpr int kTileRows = kTileRowsOf[kShape];
  constexpr int kTileVecs = kTileVecsOf[kShape];
  const size_t L = hn::Lanes(d);
  V acc[kM][kTileVecs];
  HWY_UNROLL(8) for (int r = 0; r < kM; ++r) {
    HWY_UNROLL(4) for (int v = 0; v < kTileVecs; ++v) {
      acc[r][v] = first ? hn::Zero(d) : hn::LoadU(d, out + r * ldo + v * L);
    }
  }
  // Window position w, its features [c0, c1).
  int64_t w = k0 / cg;
  for (int64_t k = k0, c0 = k0 - w * cg; k < k1; ++w, c0 = 0) {
    const int64_t c1 = std::min(cg, c0 + (k1 - k));
    const float* const* rw = rows + w * kTileRows;
    int out_row = -1;  // the one row that reads zeros here, left out
    if (kSkips && skip != 0 && (skip >> w & 1) != 0) {
      if constexpr (kShape == 0) {
        // The tall tile's bits mark only window positions where every row
        // reads zeros (telling the rows apart here cost the tiles of other
        // layers 2-4%, from the registers the loop gave up).
        k += c1 - c0;
        continue;
      }
      int padded = 0;
      for (int r = 0; r < kM; ++r) {
        if (rw[r] == zeros) {
          ++padded;
          out_row = r;
        }
      }
      if (padded == kM) {
        k += c1 - c0;
        continue;
      }
      if (padded != 1) out_row = -1;
    }
    const float* a[kM];
    HWY_UNROLL(8) for (int r = 0; r < kM; ++r) a[r] = rw[r];
    const float* b = kernel + (k - k0) * ldk;
    if constexpr (kShape == 1 && kM == kTileRows && kSkips) {
      if (out_row >= 0) {
        WindowTermsLeavingOut<0>(out_row, d, a, b, ldk, c0, c1, acc);
      } else {
        WindowTerms<-1>(d, a, b, ldk, c0, c1, acc);
      }
    } else {
      WindowTerms<-1>(d, a, b, ldk, c0, c1, acc);
    }
    k += c1 - c0;
  }
  // Only full tiles take epilogue steps (the narrower ones, partial row
  // tiles, are summed in a buffer and the epilogue runs as it is copied
  // out): where the narrower instantiations applied it too, GCC kept their
  // accumulators in memory, stored at every term (ResNet's 14x14 3x3 layer
  // was 2-7% slower for it).
  if constexpr (kM == kTileRows) {
    const int64_t feature = nsteps > 0 ? index0 % ldo : 0;
    for (int s = 0; s < nsteps; ++s) {
      const ConvEpilogueStep& step = steps[s];
      WithEpilogueOp(step.op, step.reversed, [&](auto op) {
        if (step.kind == ConvEpilogueStep::kArray) {
          const float* y = step.data + index0;
          HWY_UNROLL(8) for (int r = 0; r < kM; ++r) {
            HWY_UNROLL(4) for (int v = 0; v < kTileVecs; ++v) {
              acc[r][v] = op(acc[r][v], hn::LoadU(d, y + r * ldo + v * L));
            }
          }
          return;
        }
        V y[kTileVecs];
        HWY_UNROLL(4) for (int v = 0; v < kTileVecs; ++v) {
          y[v] = step.kind == ConvEpilogueStep::kScalar ? hn::Set(d, step.data[0])
                                                        : hn::LoadU(d, step.data + feature + v * L);
        }
        HWY_UNROLL(8) for (int r = 0; r < kM; ++r) {
          HWY_UNROLL(4) for (int v = 0; v < kTileVecs; ++v) { acc[r][v] = op(acc[r][v], y[v]); }
        }
      });
    }
  }
  HWY_UNROLL(8) for (int r = 0; r < kM; ++r) {
    HWY_UNROLL(4) for (int v = 0; v < kTileVecs; ++v) {
      hn::StoreU(acc[r][v], d, out + r * ldo + v * L);
    }
  }
}

// `nrows` (1..kTileRows) rows by DirectTileCols(kShape) columns, without
// an epilogue: the narrowest register tile that covers the rows (rows past
// nrows are computed too and must be readable: they point at any row).
template <int kShape>
void DirectConvTileOf(const float* const* rows, int64_t nrows, int64_t cg, int64_t k0, int64_t k1,
                      const float* kernel, int64_t ldk, bool first, float* out, int64_t ldo,
                      uint64_t skip, const float* zeros) {
  const hn::ScalableTag<float> d;
  constexpr int kRows = kTileRowsOf[kShape];
  constexpr int kThird = (kRows + 2) / 3;
  if (nrows > 2 * kThird) {
    DirectTile<kShape, kRows>(d, rows, cg, k0, k1, kernel, ldk, first, out, ldo, skip, zeros,
                              nullptr, 0, 0);
  } else if (nrows > kThird) {
    DirectTile<kShape, 2 * kThird>(d, rows, cg, k0, k1, kernel, ldk, first, out, ldo, skip, zeros,
                                   nullptr, 0, 0);
  } else {
    DirectTile<kShape, kThird>(d, rows, cg, k0, k1, kernel, ldk, first, out, ldo, skip, zeros,
                               nullptr, 0, 0);
  }
}

void DirectConvTileF32(int shape, const float* const* rows, int64_t nrows, int64_t cg, int64_t k0,
                       int64_t k1, const float* kernel, int64_t ldk, bool first, float* out,
                       int64_t ldo, uint64_t skip, const float* zeros) {
  if (shape != 0) {
    DirectConvTileOf<1>(rows, nrows, cg, k0, k1, kernel, ldk, first, out, ldo, skip, zeros);
  } else {
    DirectConvTileOf<0>(rows, nrows, cg, k0, k1, kernel, ldk, first, out, ldo, skip, zeros);
  }
}

// `tiles` whole tiles one after another: tile t reads the rows at
// rows + t * rows_stride and stores at out + t * kTileRows * ldo (result
// element index0 + t * kTileRows * ldo).
template <int kShape>
void DirectConvTilesOf(const float* const* rows, int64_t tiles, int64_t rows_stride, int64_t cg,
                       int64_t k0, int64_t k1, const float* kernel, int64_t ldk, bool first,
                       float* out, int64_t ldo, const uint64_t* skip, const float* zeros,
                       const ConvEpilogueStep* steps, int nsteps, int64_t index0) {
  const hn::ScalableTag<float> d;
  constexpr int kRows = kTileRowsOf[kShape];
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t shift = t * kRows * ldo;
    if (skip == nullptr) {
      DirectTile<kShape, kRows, false>(d, rows + t * rows_stride, cg, k0, k1, kernel, ldk, first,
                                       out + shift, ldo, 0, zeros, steps, nsteps, index0 + shift);
    } else {
      DirectTile<kShape, kRows>(d, rows + t * rows_stride, cg, k0, k1, kernel, ldk, first,
                                out + shift, ldo, skip[t], zeros, steps, nsteps, index0 + shift);
    }
  }
}

void DirectConvTilesF32(int shape, const float* const* rows, int64_t tiles, int64_t rows_stride,
                        int64_t cg, int64_t k0, int64_t k1, const float* kernel, int64_t ldk,
                        bool first, float* out, int64_t ldo, const uint64_t* skip,
                        const float* zeros, const ConvEpilogueStep* steps, int nsteps,
                        int64_t index0) {
  if (shape != 0) {
    DirectConvTilesOf<1>(rows, tiles, rows_stride, cg, k0, k1, kernel, ldk, first, out, ldo, skip,
                         zeros, steps, nsteps, index0);
  } else {
    DirectConvTilesOf<0>(rows, tiles, rows_stride, cg, k0, k1, kernel, ldk, first, out, ldo, skip,
                         zeros, steps, nsteps, index0);
  }
}

uint64_t DirectTileInputs(const int32_t* offs, int64_t stride, int64_t windows, int64_t n,
                          int64_t ld, const float* base, const float* zeros, const float** rows,
                          uint64_t* pads) {
  const hn::ScalableTag<int64_t> d64;
  const hn::Rebind<int32_t, decltype(d64)> d32;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d64));
  const auto vbase = hn::Set(d64, static_cast<int64_t>(reinterpret_cast<uintptr_t>(base)));
  const auto vzeros = hn::Set(d64, static_cast<int64_t>(reinterpret_cast<uintptr_t>(zeros)));
  uint64_t reads = 0, padded = 0;
  for (int64_t w = 0; w < windows; ++w) {
    const int32_t* o = offs + w * stride;
    int64_t* dst = reinterpret_cast<int64_t*>(rows + w * ld);
    bool any = false, some_pad = false;
    int64_t r = 0;
    for (; r + N <= n; r += N) {
      const auto off = hn::PromoteTo(d64, hn::LoadU(d32, o + r));
      const auto pad = hn::Lt(off, hn::Zero(d64));
      hn::StoreU(hn::IfThenElse(pad, vzeros, hn::Add(vbase, hn::ShiftLeft<2>(off))), d64, dst + r);
      any = any || !hn::AllTrue(d64, pad);
      some_pad = some_pad || !hn::AllFalse(d64, pad);
    }
    for (; r < n; ++r) {
      rows[w * ld + r] = o[r] >= 0 ? base + o[r] : zeros;
      any = any || o[r] >= 0;
      some_pad = some_pad || o[r] < 0;
    }
    reads |= static_cast<uint64_t>(any) << (w & 63);
    padded |= static_cast<uint64_t>(some_pad) << (w & 63);
  }
  *pads |= padded;
  return reads;
}

// Whether every element of rows [0, nrows) x columns [0, ncols) at
// p + row * ld is finite.
bool AllFiniteF32(const float* p, int64_t nrows, int64_t ncols, int64_t ld) {
  const hn::ScalableTag<float> d;
  const hn::CappedTag<float, 1> d1;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t r = 0; r < nrows; ++r) {
    const float* row = p + r * ld;
    int64_t j = 0;
    for (; j + N <= ncols; j += N) {
      if (!hn::AllTrue(d, hn::IsFinite(hn::LoadU(d, row + j)))) return false;
    }
    for (; j < ncols; ++j) {
      if (!hn::AllTrue(d1, hn::IsFinite(hn::LoadU(d1, row + j)))) return false;
    }
  }
  return true;
}

}  // namespace HWY_NAMESPACE
}  // namespace conv_internal
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hlovm {
namespace conv_internal {

HWY_EXPORT(DepthwiseF32);
HWY_EXPORT(FmaRowF32);
HWY_EXPORT(BatchGroupRowF32);
HWY_EXPORT(DirectConvTileF32);
HWY_EXPORT(DirectConvTilesF32);
HWY_EXPORT(PlanarPaddedPlaneF32);
HWY_EXPORT(WidenBF16Rows);
void HwyWidenBF16Rows(const uint16_t* src, int64_t src_stride, float* dst, int64_t dst_stride,
                      int64_t rows, int64_t cols) {
  HWY_DYNAMIC_DISPATCH(WidenBF16Rows)(src, src_stride, dst, dst_stride, rows, cols);
}
void HwyPlanarPaddedPlaneF32(const float* padded, int64_t pw, int64_t oh, int64_t ow,
                             int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dh,
                             int64_t dw, const float* weights, float* out, int64_t out_stride) {
  HWY_DYNAMIC_DISPATCH(PlanarPaddedPlaneF32)(padded, pw, oh, ow, kh, kw, sh, sw, dh, dw,
                                             weights, out, out_stride);
}
HWY_EXPORT(DepthwiseColumnLanes);
HWY_EXPORT(DepthwiseColumnsF32);
int64_t HwyDepthwiseColumnLanes() { return HWY_DYNAMIC_DISPATCH(DepthwiseColumnLanes)(); }
void HwyDepthwiseColumnsF32(const DepthwiseColumnArgs& args) {
  HWY_DYNAMIC_DISPATCH(DepthwiseColumnsF32)(args);
}
HWY_EXPORT(DirectTileRows);
HWY_EXPORT(DirectTileCols);
int64_t HwyDirectTileRows(int shape) { return HWY_DYNAMIC_DISPATCH(DirectTileRows)(shape); }
int64_t HwyDirectTileCols(int shape) { return HWY_DYNAMIC_DISPATCH(DirectTileCols)(shape); }
void HwyDirectConvTileF32(int shape, const float* const* rows, int64_t nrows, int64_t cg,
                          int64_t k0, int64_t k1, const float* kernel, int64_t ldk, bool first,
                          float* out, int64_t ldo, uint64_t skip, const float* zeros) {
  HWY_DYNAMIC_DISPATCH(DirectConvTileF32)
  (shape, rows, nrows, cg, k0, k1, kernel, ldk, first, out, ldo, skip, zeros);
}
void HwyDirectConvTilesF32(int shape, const float* const* rows, int64_t tiles, int64_t rows_stride,
                           int64_t cg, int64_t k0, int64_t k1, const float* kernel, int64_t ldk,
                           bool first, float* out, int64_t ldo, const uint64_t* skip,
                           const float* zeros, const ConvEpilogueStep* steps, int nsteps,
                           int64_t index0) {
  HWY_DYNAMIC_DISPATCH(DirectConvTilesF32)
  (shape, rows, tiles, rows_stride, cg, k0, k1, kernel, ldk, first, out, ldo, skip, zeros, steps,
   nsteps, index0);
}
HWY_EXPORT(AllFiniteF32);
HWY_EXPORT(DirectTileInputs);
uint64_t HwyDirectTileInputs(const int32_t* offs, int64_t stride, int64_t windows, int64_t n,
                             int64_t ld, const float* base, const float* zeros, const float** rows,
                             uint64_t* pads) {
  return HWY_DYNAMIC_DISPATCH(DirectTileInputs)(offs, stride, windows, n, ld, base, zeros, rows,
                                                pads);
}
bool HwyAllFiniteF32(const float* p, int64_t nrows, int64_t ncols, int64_t ld) {
  return HWY_DYNAMIC_DISPATCH(AllFiniteF32)(p, nrows, ncols, ld);
}
HWY_EXPORT(ConvEpilogueF32);
void HwyConvEpilogueF32(const ConvEpilogueStep* steps, int nsteps, const float* sums,
                        float* out, int64_t index0, int64_t n, int64_t channels) {
  HWY_DYNAMIC_DISPATCH(ConvEpilogueF32)(steps, nsteps, sums, out, index0, n, channels);
}
void HwyFmaRowF32(const float* in, float k, float* acc, int64_t n) {
  HWY_DYNAMIC_DISPATCH(FmaRowF32)(in, k, acc, n);
}

void HwyBatchGroupRowF32(const float* const* rows, const float* kernel, const int32_t* col,
                         int64_t oh, int64_t ow, int64_t kw, int64_t cg, float* acc) {
  HWY_DYNAMIC_DISPATCH(BatchGroupRowF32)(rows, kernel, col, oh, ow, kw, cg, acc);
}

void HwyDepthwiseF32(const float* const* rows, const float* kernel, int64_t ksp,
                     int64_t channels, int64_t npos, float* const* outs) {
  HWY_DYNAMIC_DISPATCH(DepthwiseF32)(rows, kernel, ksp, channels, npos, outs);
}

}  // namespace conv_internal
}  // namespace hlovm
#endif  // HWY_ONCE
