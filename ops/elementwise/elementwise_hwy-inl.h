// Highway kernels of the hot elementwise cases (f32/f64 arithmetic and the
// common f32 transcendentals, f16/bf16/f64/s32 <-> f32 conversions), compiled
// once per SIMD target by elementwise_hwy.cc through foreach_target.h.
//
// Semantics follow XLA's CPU backend: max/min propagate NaN and order -0 below
// +0; exp overflows to inf; the f32 -> s32 conversion saturates and maps NaN
// to 0; f32 -> f16/bf16 rounds to nearest even.

// Per-target include guard (see hwy/examples/skeleton-inl.h).
#if defined(HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_HWY_INL_H_
#undef HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_HWY_INL_H_
#else
#define HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_HWY_INL_H_
#endif

#include <cmath>
#include <cstdint>
#include <cstring>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "ops/common/bf16_round.h"
#include "ops/common/float_minmax.h"
#include "ops/elementwise/erf_f32-inl.h"
#include "ops/elementwise/exp_f32-inl.h"
#include "ops/elementwise/log_f32-inl.h"
#include "ops/elementwise/tanh_f32-inl.h"
#include "ops/elementwise/tanh_f64-inl.h"

HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace elementwise_internal {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// Applies `op(d, v)` to n elements; the tail runs the same op one lane wide.
template <typename T, class Op>
HWY_INLINE void MapUnary(const T* in, T* out, int64_t n, Op op) {
  const hn::ScalableTag<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const auto v0 = hn::LoadU(d, in + i);
    const auto v1 = hn::LoadU(d, in + i + lanes);
    hn::StoreU(op(d, v0), d, out + i);
    hn::StoreU(op(d, v1), d, out + i + lanes);
  }
  for (; i + lanes <= n; i += lanes) hn::StoreU(op(d, hn::LoadU(d, in + i)), d, out + i);
  const hn::CappedTag<T, 1> d1;
  for (; i < n; ++i) hn::StoreU(op(d1, hn::LoadU(d1, in + i)), d1, out + i);
}

template <typename T, class Op>
HWY_INLINE void MapBinary(const T* a, const T* b, T* out, int64_t n, Op op) {
  const hn::ScalableTag<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const auto a0 = hn::LoadU(d, a + i), b0 = hn::LoadU(d, b + i);
    const auto a1 = hn::LoadU(d, a + i + lanes), b1 = hn::LoadU(d, b + i + lanes);
    hn::StoreU(op(d, a0, b0), d, out + i);
    hn::StoreU(op(d, a1, b1), d, out + i + lanes);
  }
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(op(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, out + i);
  }
  const hn::CappedTag<T, 1> d1;
  for (; i < n; ++i) hn::StoreU(op(d1, hn::LoadU(d1, a + i), hn::LoadU(d1, b + i)), d1, out + i);
}

//===----------------------------------------------------------------------===//
// Element ops
//===----------------------------------------------------------------------===//

struct AddOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const { return hn::Add(a, b); }
};
struct SubOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const { return hn::Sub(a, b); }
};
struct MulOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const { return hn::Mul(a, b); }
};
struct DivOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const { return hn::Div(a, b); }
};
// NaN-propagating; -0 orders below +0 (ops/common/float_minmax.h).
struct MaxOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hlovm::HWY_NAMESPACE::FloatMaxVec(a, b);
  }
};
struct MinOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hlovm::HWY_NAMESPACE::FloatMinVec(a, b);
  }
};

struct AbsOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V v) const { return hn::Abs(v); }
};
struct NegOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V v) const { return hn::Neg(v); }
};
struct SqrtOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V v) const { return hn::Sqrt(v); }
};
// 1 / sqrt(x), exactly rounded twice as XLA computes it (no estimate).
struct RsqrtOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V v) const { return hn::Div(hn::Set(d, 1), hn::Sqrt(v)); }
};
// floor, ceil and round give results with the operand's sign (-0.5 -> -0);
// the sign is restored because Highway's portable versions drop it for zero.
struct FloorOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V v) const { return hn::CopySign(hn::Floor(v), v); }
};
struct CeilOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V v) const { return hn::CopySign(hn::Ceil(v), v); }
};
struct RoundEvenOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V v) const { return hn::CopySign(hn::Round(v), v); }
};

// An element op that applies one element function of the headers above.
#define HLOVM_EW_FUNCTION_OP_(Op, Function)   \
  struct Op {                                 \
    template <class D, class V>               \
    HWY_INLINE V operator()(D d, V x) const { \
      return Function(d, x);                  \
    }                                         \
  };

// exp, tanh, log, log1p and erf as XLA's CPU backend computes them
// (exp_f32-inl.h, tanh_f32-inl.h, tanh_f64-inl.h, log_f32-inl.h,
// erf_f32-inl.h).
HLOVM_EW_FUNCTION_OP_(ExpF32Op, ExpF32Cephes)
HLOVM_EW_FUNCTION_OP_(TanhF32Op, TanhF32Rational)
HLOVM_EW_FUNCTION_OP_(TanhF64Op, TanhF64Rational)
HLOVM_EW_FUNCTION_OP_(LogF32Op, LogF32Cephes)
HLOVM_EW_FUNCTION_OP_(Log1pF32Op, Log1pF32Cephes)
HLOVM_EW_FUNCTION_OP_(ErfF32Op, ErfF32Rational)
#undef HLOVM_EW_FUNCTION_OP_

// logistic(x) = 1 / (1 + exp(-x)), the expansion XLA's CPU backend uses.
struct LogisticF32Op {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V v) const {
    const auto one = hn::Set(d, 1.0f);
    return hn::Div(one, hn::Add(one, ExpF32Cephes(d, hn::Neg(v))));
  }
};
// expm1 as XLA's CPU backend computes f32 expm1: tanh(x / 2) * (exp(x) + 1)
// where |x| <= 0.5 (with its tanh and exp), exp(x) - 1 above, and x itself
// where x / 2 is 0. Up to 6 ulp from expm1.
struct Expm1F32Op {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    const V one = hn::Set(d, 1.0f);
    const V half_x = hn::Mul(x, hn::Set(d, 0.5f));
    const V e = ExpF32Cephes(d, x);
    V r = hn::Mul(TanhF32Rational(d, half_x), hn::Add(e, one));
    r = hn::IfThenElse(hn::Gt(hn::Abs(x), hn::Set(d, 0.5f)), hn::Sub(e, one), r);
    return hn::IfThenElse(hn::Eq(half_x, hn::Zero(d)), x, r);
  }
};

// f32 sin and cos through f64: Highway's f64 polynomials are off by a few
// f64 ulp, so the result rounds to the correctly rounded f32 in nearly every
// case (the f32 polynomials are off by up to 4 f32 ulp, beyond XLA's usual
// 3-ulp tolerance). The portable targets use the C library instead (their
// f64 -> f32 demotion clamps infinities).
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
constexpr bool kPortable = true;
#else
constexpr bool kPortable = false;
#endif

template <class Op64, class Scalar>
HWY_INLINE void F32ViaF64(const float* in, float* out, int64_t n, Op64 op, Scalar scalar) {
  int64_t i = 0;
  if (!kPortable) {
    const hn::ScalableTag<double> dd;
    const hn::Rebind<float, decltype(dd)> df;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(dd));
    for (; i + lanes <= n; i += lanes) {
      const auto x = hn::PromoteTo(dd, hn::LoadU(df, in + i));
      hn::StoreU(hn::DemoteTo(df, op(dd, x, in + i, lanes)), df, out + i);
    }
  }
  for (; i < n; ++i) out[i] = scalar(in[i]);
}

// Beyond |x| = 39000 (and for inf/NaN) Highway's range reduction is not
// valid: such vectors use the C library lane by lane.
template <bool kSin>
struct SinCosF64Op {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x, const float* in, int64_t lanes) const {
    if (!hn::AllTrue(d, hn::Le(hn::Abs(x), hn::Set(d, 39000.0)))) {
      HWY_ALIGN double buf[hn::MaxLanes(d)];
      for (int64_t j = 0; j < lanes; ++j) {
        buf[j] = kSin ? std::sin(static_cast<double>(in[j])) : std::cos(static_cast<double>(in[j]));
      }
      return hn::Load(d, buf);
    }
    return kSin ? hn::Sin(d, x) : hn::Cos(d, x);
  }
};

void SinF32(const void* in, void* out, int64_t n) {
  F32ViaF64(static_cast<const float*>(in), static_cast<float*>(out), n, SinCosF64Op<true>(),
            [](float x) { return std::sin(x); });
}
void CosF32(const void* in, void* out, int64_t n) {
  F32ViaF64(static_cast<const float*>(in), static_cast<float*>(out), n, SinCosF64Op<false>(),
            [](float x) { return std::cos(x); });
}

//===----------------------------------------------------------------------===//
// Entry points (exported by elementwise_hwy.cc)
//===----------------------------------------------------------------------===//

#define HLOVM_EW_HWY_BINARY_(Name, T, Op)                                              \
  void Name(const void* a, const void* b, void* out, int64_t n) {                     \
    MapBinary(static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), \
              n, Op());                                                                \
  }
#define HLOVM_EW_HWY_UNARY_(Name, T, Op) \
  void Name(const void* in, void* out, int64_t n) { \
    MapUnary(static_cast<const T*>(in), static_cast<T*>(out), n, Op()); \
  }

HLOVM_EW_HWY_BINARY_(AddF32, float, AddOp)
HLOVM_EW_HWY_BINARY_(SubF32, float, SubOp)
HLOVM_EW_HWY_BINARY_(MulF32, float, MulOp)
HLOVM_EW_HWY_BINARY_(DivF32, float, DivOp)
HLOVM_EW_HWY_BINARY_(MaxF32, float, MaxOp)
HLOVM_EW_HWY_BINARY_(MinF32, float, MinOp)
HLOVM_EW_HWY_BINARY_(AddF64, double, AddOp)
HLOVM_EW_HWY_BINARY_(SubF64, double, SubOp)
HLOVM_EW_HWY_BINARY_(MulF64, double, MulOp)
HLOVM_EW_HWY_BINARY_(DivF64, double, DivOp)
HLOVM_EW_HWY_BINARY_(MaxF64, double, MaxOp)
HLOVM_EW_HWY_BINARY_(MinF64, double, MinOp)

HLOVM_EW_HWY_UNARY_(AbsF32, float, AbsOp)
HLOVM_EW_HWY_UNARY_(NegF32, float, NegOp)
HLOVM_EW_HWY_UNARY_(SqrtF32, float, SqrtOp)
HLOVM_EW_HWY_UNARY_(RsqrtF32, float, RsqrtOp)
HLOVM_EW_HWY_UNARY_(FloorF32, float, FloorOp)
HLOVM_EW_HWY_UNARY_(CeilF32, float, CeilOp)
HLOVM_EW_HWY_UNARY_(RoundEvenF32, float, RoundEvenOp)
HLOVM_EW_HWY_UNARY_(ExpF32K, float, ExpF32Op)
HLOVM_EW_HWY_UNARY_(LogisticF32, float, LogisticF32Op)
HLOVM_EW_HWY_UNARY_(TanhF32, float, TanhF32Op)
HLOVM_EW_HWY_UNARY_(Expm1F32, float, Expm1F32Op)
HLOVM_EW_HWY_UNARY_(LogF32, float, LogF32Op)
HLOVM_EW_HWY_UNARY_(Log1pF32, float, Log1pF32Op)
HLOVM_EW_HWY_UNARY_(ErfF32, float, ErfF32Op)
HLOVM_EW_HWY_UNARY_(AbsF64, double, AbsOp)
HLOVM_EW_HWY_UNARY_(NegF64, double, NegOp)
HLOVM_EW_HWY_UNARY_(SqrtF64, double, SqrtOp)
HLOVM_EW_HWY_UNARY_(RsqrtF64, double, RsqrtOp)
HLOVM_EW_HWY_UNARY_(FloorF64, double, FloorOp)
HLOVM_EW_HWY_UNARY_(CeilF64, double, CeilOp)
HLOVM_EW_HWY_UNARY_(RoundEvenF64, double, RoundEvenOp)
HLOVM_EW_HWY_UNARY_(TanhF64, double, TanhF64Op)

#undef HLOVM_EW_HWY_BINARY_
#undef HLOVM_EW_HWY_UNARY_

// Conversions. Each loop runs full vectors, then a one-lane tail.

// f16 <-> f32 in hardware (F16C: exact widening, round-to-nearest-even
// narrowing, NaN kept) exists on AVX2 and above. Highway's portable
// emulation of these conversions mishandles NaN, so elsewhere the functions
// convert nothing and the caller's scalar loop does the work.
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
constexpr bool kHasF16Convert = true;
#else
constexpr bool kHasF16Convert = false;
#endif

int64_t F16ToF32(const void* in, void* out, int64_t n) {
  if (!kHasF16Convert) return 0;
  const auto* x = static_cast<const hwy::float16_t*>(in);
  auto* y = static_cast<float*>(out);
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(hn::PromoteTo(df, hn::LoadU(dh, x + i)), df, y + i);
  return i;  // the caller converts the rest
}

int64_t F32ToF16(const void* in, void* out, int64_t n) {
  if (!kHasF16Convert) return 0;
  const auto* x = static_cast<const float*>(in);
  auto* y = static_cast<hwy::float16_t*>(out);
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(hn::DemoteTo(dh, hn::LoadU(df, x + i)), dh, y + i);
  return i;  // the caller converts the rest
}

template <class DF, class DU16>
HWY_INLINE void BF16ToF32Impl(DF df, DU16 du16, const uint16_t* in, float* out, int64_t& i,
                              int64_t n) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(hlovm::HWY_NAMESPACE::WidenBF16(df, hn::LoadU(du16, in + i)), df, out + i);
  }
}

void BF16ToF32(const void* in, void* out, int64_t n) {
  const auto* x = static_cast<const uint16_t*>(in);
  auto* y = static_cast<float*>(out);
  int64_t i = 0;
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  BF16ToF32Impl(df, du16, x, y, i, n);
  const hn::CappedTag<float, 1> df1;
  const hn::Rebind<uint16_t, decltype(df1)> du161;
  BF16ToF32Impl(df1, du161, x, y, i, n);
}

// Round to nearest even on the bit pattern; NaNs stay NaN (quiet bit set):
// ops/common/bf16_round.h.
template <class DF, class DU16>
HWY_INLINE void F32ToBF16Impl(DF df, DU16 du16, const float* in, uint16_t* out, int64_t& i,
                              int64_t n) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(hlovm::HWY_NAMESPACE::BF16Bits(df, du16, hn::LoadU(df, in + i)), du16, out + i);
  }
}

#if HWY_TARGET <= HWY_AVX3
// F32ToBF16Impl's rounding, 32 floats at a time: each lane's result is left
// in its upper 16 bits (BF16InUpperHalf), and one two-source word permute
// gathers the upper halves of two vectors, where the shift and demotion of
// each vector took three shuffles more.
HWY_INLINE void F32ToBF16Pairs(const float* in, uint16_t* out, int64_t& i, int64_t n) {
  alignas(64) static constexpr uint16_t kUpper[32] = {1,  3,  5,  7,  9,  11, 13, 15, 17, 19, 21,
                                                      23, 25, 27, 29, 31, 33, 35, 37, 39, 41, 43,
                                                      45, 47, 49, 51, 53, 55, 57, 59, 61, 63};
  const hn::Full512<float> df;
  const __m512i upper = _mm512_load_si512(kUpper);
  for (; i + 32 <= n; i += 32) {
    const auto a = hlovm::HWY_NAMESPACE::BF16InUpperHalf(df, hn::LoadU(df, in + i));
    const auto b = hlovm::HWY_NAMESPACE::BF16InUpperHalf(df, hn::LoadU(df, in + i + 16));
    _mm512_storeu_si512(out + i, _mm512_permutex2var_epi16(a.raw, upper, b.raw));
  }
}
#endif

void F32ToBF16(const void* in, void* out, int64_t n) {
  const auto* x = static_cast<const float*>(in);
  auto* y = static_cast<uint16_t*>(out);
  int64_t i = 0;
#if HWY_TARGET <= HWY_AVX3
  F32ToBF16Pairs(x, y, i, n);
#endif
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  F32ToBF16Impl(df, du16, x, y, i, n);
  const hn::CappedTag<float, 1> df1;
  const hn::Rebind<uint16_t, decltype(df1)> du161;
  F32ToBF16Impl(df1, du161, x, y, i, n);
}

template <class DD, class DF>
HWY_INLINE void F32ToF64Impl(DD dd, DF df, const float* in, double* out, int64_t& i, int64_t n) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(dd));
  for (; i + lanes <= n; i += lanes) hn::StoreU(hn::PromoteTo(dd, hn::LoadU(df, in + i)), dd, out + i);
}
void F32ToF64(const void* in, void* out, int64_t n) {
  int64_t i = 0;
  const auto* x = static_cast<const float*>(in);
  auto* y = static_cast<double*>(out);
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  F32ToF64Impl(dd, df, x, y, i, n);
  const hn::CappedTag<double, 1> dd1;
  const hn::Rebind<float, decltype(dd1)> df1;
  F32ToF64Impl(dd1, df1, x, y, i, n);
}

template <class DD, class DF>
HWY_INLINE void F64ToF32Impl(DD dd, DF df, const double* in, float* out, int64_t& i, int64_t n) {
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(dd));
  for (; i + lanes <= n; i += lanes) hn::StoreU(hn::DemoteTo(df, hn::LoadU(dd, in + i)), df, out + i);
}
void F64ToF32(const void* in, void* out, int64_t n) {
  int64_t i = 0;
  const auto* x = static_cast<const double*>(in);
  auto* y = static_cast<float*>(out);
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
  // The portable DemoteTo clamps infinities to the largest finite f32.
  for (; i < n; ++i) y[i] = static_cast<float>(x[i]);
  return;
#endif
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  F64ToF32Impl(dd, df, x, y, i, n);
  const hn::CappedTag<double, 1> dd1;
  const hn::Rebind<float, decltype(dd1)> df1;
  F64ToF32Impl(dd1, df1, x, y, i, n);
}

// Saturating, NaN -> 0 (XLA's float -> int rule).
struct F32ToS32Op {
  template <class D, class V>
  HWY_INLINE auto operator()(D d, V v) const {
    const hn::RebindToSigned<D> di;
    const auto lo = hn::Set(d, -2147483648.0f);
    const auto hi = hn::Set(d, 2147483648.0f);
    auto r = hn::ConvertTo(di, hn::Max(v, lo));
    r = hn::IfThenElse(hn::RebindMask(di, hn::Ge(v, hi)), hn::Set(di, 0x7fffffff), r);
    return hn::IfThenZeroElse(hn::RebindMask(di, hn::IsNaN(v)), r);
  }
};
template <class D>
HWY_INLINE void F32ToS32Impl(D d, const float* in, int32_t* out, int64_t& i, int64_t n) {
  const hn::RebindToSigned<D> di;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  for (; i + lanes <= n; i += lanes) hn::StoreU(F32ToS32Op()(d, hn::LoadU(d, in + i)), di, out + i);
}
void F32ToS32(const void* in, void* out, int64_t n) {
  int64_t i = 0;
  F32ToS32Impl(hn::ScalableTag<float>(), static_cast<const float*>(in), static_cast<int32_t*>(out), i, n);
  F32ToS32Impl(hn::CappedTag<float, 1>(), static_cast<const float*>(in), static_cast<int32_t*>(out), i, n);
}

template <class D>
HWY_INLINE void S32ToF32Impl(D d, const int32_t* in, float* out, int64_t& i, int64_t n) {
  const hn::RebindToSigned<D> di;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  for (; i + lanes <= n; i += lanes) hn::StoreU(hn::ConvertTo(d, hn::LoadU(di, in + i)), d, out + i);
}
void S32ToF32(const void* in, void* out, int64_t n) {
  int64_t i = 0;
  S32ToF32Impl(hn::ScalableTag<float>(), static_cast<const int32_t*>(in), static_cast<float*>(out), i, n);
  S32ToF32Impl(hn::CappedTag<float, 1>(), static_cast<const int32_t*>(in), static_cast<float*>(out), i, n);
}

int64_t TargetId() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace elementwise_internal
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
