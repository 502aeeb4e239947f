// f64 tanh as an element function of Highway vectors, used by the f64 tanh
// kernel (elementwise_hwy-inl.h); the f64 counterpart of tanh_f32-inl.h.

// Per-target include guard (see hwy/examples/skeleton-inl.h).
#if defined(HLOVM_OPS_ELEMENTWISE_TANH_F64_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HLOVM_OPS_ELEMENTWISE_TANH_F64_INL_H_
#undef HLOVM_OPS_ELEMENTWISE_TANH_F64_INL_H_
#else
#define HLOVM_OPS_ELEMENTWISE_TANH_F64_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace elementwise_internal {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// tanh as XLA's CPU backend computes f64 tanh (the rational approximation of
// Eigen's double tanh, its multiply-adds fused): x clamped to
// +-17.714196154005176, then x * P(x^2) / Q(x^2) with P and Q of degree 9 in
// x^2 (odd degree 19 over even degree 18), each in Horner form of one fused
// multiply-add a step from the leading coefficient; +-1 where |x| >= 20.
// There is no small-x shortcut: x * P(x^2) with P(0) = 1 keeps subnormals.
// The clamp bound was chosen for unfused steps, so the fused quotient at it
// is 1 - 7 ulp, not 1: results between the bound and 20 are just below 1.
// NaN passes the clamp and stays NaN.
template <class D, class V>
HWY_INLINE V TanhF64Rational(D d, V x) {
  const V bound = hn::Set(d, 17.714196154005176);
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
  // No fused multiply-add here, and Max/Min do not keep NaN: compare and
  // select.
  V c = hn::IfThenElse(hn::Lt(x, hn::Neg(bound)), hn::Neg(bound), x);
  c = hn::IfThenElse(hn::Gt(c, bound), bound, c);
#else
  // x86 max(a, b) and min(a, b) give b where either is NaN: x (second)
  // passes through.
  const V c = hn::Min(bound, hn::Max(hn::Neg(bound), x));
#endif
  const V c2 = hn::Mul(c, c);
  V p = hn::MulAdd(c2, hn::Set(d, 2.6158007860482230e-23), hn::Set(d, 7.6534862268749319e-19));
  p = hn::MulAdd(c2, p, hn::Set(d, 3.1309488231386680e-15));
  p = hn::MulAdd(c2, p, hn::Set(d, 4.2303918148209176e-12));
  p = hn::MulAdd(c2, p, hn::Set(d, 2.4618379131293676e-09));
  p = hn::MulAdd(c2, p, hn::Set(d, 6.8644367682497074e-07));
  p = hn::MulAdd(c2, p, hn::Set(d, 9.3839087674268880e-05));
  p = hn::MulAdd(c2, p, hn::Set(d, 5.9809711724441161e-03));
  p = hn::MulAdd(c2, p, hn::Set(d, 1.5184719640284322e-01));
  p = hn::MulAdd(c2, p, hn::Set(d, 1.0));
  p = hn::Mul(c, p);
  V q = hn::MulAdd(c2, hn::Set(d, 6.463747022670968018e-21), hn::Set(d, 5.782506856739003571e-17));
  q = hn::MulAdd(c2, q, hn::Set(d, 1.293019623712687916e-13));
  q = hn::MulAdd(c2, q, hn::Set(d, 1.123643448069621992e-10));
  q = hn::MulAdd(c2, q, hn::Set(d, 4.492975677839633985e-08));
  q = hn::MulAdd(c2, q, hn::Set(d, 8.785185266237658698e-06));
  q = hn::MulAdd(c2, q, hn::Set(d, 8.295161192716231542e-04));
  q = hn::MulAdd(c2, q, hn::Set(d, 3.437448108450402717e-02));
  q = hn::MulAdd(c2, q, hn::Set(d, 4.851805297361760360e-01));
  q = hn::MulAdd(c2, q, hn::Set(d, 1.0));
  return hn::IfThenElse(hn::Ge(hn::Abs(x), hn::Set(d, 20.0)), hn::CopySign(hn::Set(d, 1.0), x),
                        hn::Div(p, q));
}

}  // namespace HWY_NAMESPACE
}  // namespace elementwise_internal
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#endif  // include guard
