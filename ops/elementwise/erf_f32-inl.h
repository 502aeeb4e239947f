// f32 erf as an element function of Highway vectors, used by the f32 erf
// kernel (elementwise_hwy-inl.h).

// Per-target include guard (see hwy/examples/skeleton-inl.h).
#if defined(HLOVM_OPS_ELEMENTWISE_ERF_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HLOVM_OPS_ELEMENTWISE_ERF_F32_INL_H_
#undef HLOVM_OPS_ELEMENTWISE_ERF_F32_INL_H_
#else
#define HLOVM_OPS_ELEMENTWISE_ERF_F32_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace elementwise_internal {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// erf as XLA's CPU backend computes f32 erf (Eigen's rational interpolant,
// with fused multiply-adds): x * P(x^2) / Q(x^2), P of degree 4 and Q of
// degree 6 in x^2, each in Horner form of one fused multiply-add a step from
// the leading coefficient; +-1 where |x| >= 3.8325068 (where erf rounds to 1
// within half an ulp), infinities included. x is not clamped, so NaN stays
// NaN. Up to 7 ulp from erf (just below the cut-off).
template <class D, class V>
HWY_INLINE V ErfF32Rational(D d, V x) {
  const V x2 = hn::Mul(x, x);
  V p = hn::MulAdd(x2, hn::Set(d, 0.00022905065861350646f), hn::Set(d, 0.0034082910107109506f));
  p = hn::MulAdd(x2, p, hn::Set(d, 0.050955695062380861f));
  p = hn::MulAdd(x2, p, hn::Set(d, 0.18520832239976145f));
  p = hn::MulAdd(x2, p, hn::Set(d, 1.128379143519084f));
  p = hn::Mul(x, p);
  V q = hn::MulAdd(x2, hn::Set(d, -1.1791602954361697e-7f), hn::Set(d, 0.000023547966471313185f));
  q = hn::MulAdd(x2, q, hn::Set(d, 0.0010179625278914885f));
  q = hn::MulAdd(x2, q, hn::Set(d, 0.014070470171167667f));
  q = hn::MulAdd(x2, q, hn::Set(d, 0.11098505178285362f));
  q = hn::MulAdd(x2, q, hn::Set(d, 0.49746925110067538f));
  q = hn::MulAdd(x2, q, hn::Set(d, 1.0f));
  return hn::IfThenElse(hn::Ge(hn::Abs(x), hn::Set(d, 3.832506856900711f)),
                        hn::CopySign(hn::Set(d, 1.0f), x), hn::Div(p, q));
}

}  // namespace HWY_NAMESPACE
}  // namespace elementwise_internal
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#endif  // include guard
