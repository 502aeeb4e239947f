// f32 tanh as an element function of Highway vectors, shared by the
// elementwise kernels and the fused-region interpreter (elementwise_hwy-inl.h,
// f32_program-inl.h) and by benchmarks that compare against them.

// Per-target include guard (see hwy/examples/skeleton-inl.h).
#if defined(HLOVM_OPS_ELEMENTWISE_TANH_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HLOVM_OPS_ELEMENTWISE_TANH_F32_INL_H_
#undef HLOVM_OPS_ELEMENTWISE_TANH_F32_INL_H_
#else
#define HLOVM_OPS_ELEMENTWISE_TANH_F32_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace elementwise_internal {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// tanh as XLA's CPU backend computes f32 tanh (its rational approximation
// after Eigen's, with fused multiply-adds): x itself where |x| < 0.0004;
// else x clamped to +-7.99881172... (where the quotient is exactly +-1),
// x * P(x^2) / Q(x^2) with P of degree 6 and Q of degree 3 in x^2, each in
// Horner form of one fused multiply-add a step; +-1 where |x| >= 20, which
// the clamp gives already. NaN passes the clamp and stays NaN.
template <class D, class V>
HWY_INLINE V TanhF32Rational(D d, V x) {
  const V bound = hn::Set(d, 7.99881172180175781f);
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
  // No fused multiply-add here (each step rounds twice, so the clamp need
  // not give exactly +-1), and Max/Min do not keep NaN: compare and select.
  V c = hn::IfThenElse(hn::Lt(x, hn::Neg(bound)), hn::Neg(bound), x);
  c = hn::IfThenElse(hn::Gt(c, bound), bound, c);
#else
  // x86 max(a, b) and min(a, b) give b where either is NaN: x (second)
  // passes through.
  const V c = hn::Min(bound, hn::Max(hn::Neg(bound), x));
#endif
  const V c2 = hn::Mul(c, c);
  V p = hn::MulAdd(c2, hn::Set(d, -2.76076847742355e-16f), hn::Set(d, 2.00018790482477e-13f));
  p = hn::MulAdd(c2, p, hn::Set(d, -8.60467152213735e-11f));
  p = hn::MulAdd(c2, p, hn::Set(d, 5.12229709037114e-08f));
  p = hn::MulAdd(c2, p, hn::Set(d, 1.48572235717979e-05f));
  p = hn::MulAdd(c2, p, hn::Set(d, 6.37261928875436e-04f));
  p = hn::MulAdd(c2, p, hn::Set(d, 4.89352455891786e-03f));
  p = hn::Mul(c, p);
  V q = hn::MulAdd(c2, hn::Set(d, 1.19825839466702e-06f), hn::Set(d, 1.18534705686654e-04f));
  q = hn::MulAdd(c2, q, hn::Set(d, 2.26843463243900e-03f));
  q = hn::MulAdd(c2, q, hn::Set(d, 4.89352518554385e-03f));
  const V r = hn::IfThenElse(hn::Lt(hn::Abs(x), hn::Set(d, 0.0004f)), x, hn::Div(p, q));
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
  return hn::IfThenElse(hn::Ge(hn::Abs(x), hn::Set(d, 20.0f)), hn::CopySign(hn::Set(d, 1.0f), x),
                        r);
#else
  return r;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace elementwise_internal
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#endif  // include guard
