// f32 log and log1p as element functions of Highway vectors, used by the f32
// log and log1p kernels (elementwise_hwy-inl.h).

// Per-target include guard (see hwy/examples/skeleton-inl.h).
#if defined(HLOVM_OPS_ELEMENTWISE_LOG_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HLOVM_OPS_ELEMENTWISE_LOG_F32_INL_H_
#undef HLOVM_OPS_ELEMENTWISE_LOG_F32_INL_H_
#else
#define HLOVM_OPS_ELEMENTWISE_LOG_F32_INL_H_
#endif

#include <cmath>
#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace elementwise_internal {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// log as XLA's CPU backend computes f32 log (the Cephes polynomial of Eigen's
// plog, with fused multiply-adds). x = m * 2^e with m in [0.5, 1); where
// m < sqrt(1/2), m is doubled and e decremented; with t = m - 1 (exact),
//   y = ((P0(t) * t^3 + P1(t)) * t^3 + P2(t)) * t^3 + q1 * e   (last step fused)
//   log(x) = ((t - 0.5 * t^2) + y) + q2 * e   (the first and last steps fused)
// where P0, P1, P2 have degree 2 (two fused steps each) and q1 + q2 = ln 2
// split in two. 0 gives -inf, +inf gives +inf, negative numbers and NaN -NaN.
// XLA's CPU backend flushes subnormal inputs to 0 (so -inf); here they are
// scaled into the normal range first, which gives their logarithm.
template <class D, class V>
HWY_INLINE V LogF32Cephes(D d, V x) {
  const hn::RebindToSigned<D> di;
  const V zero = hn::Zero(d);
  const V one = hn::Set(d, 1.0f);
  const auto subnormal = hn::Lt(x, hn::Set(d, 1.17549435e-38f));                   // 2^-126
  const V xs = hn::IfThenElse(subnormal, hn::Mul(x, hn::Set(d, 16777216.0f)), x);  // * 2^24
  const auto bits = hn::BitCast(di, xs);
  // The mantissa with exponent -1: m in [0.5, 1).
  const V m =
      hn::BitCast(d, hn::Or(hn::And(bits, hn::Set(di, 0x807fffff)), hn::Set(di, 0x3f000000)));
  const auto small = hn::Lt(m, hn::Set(d, 0.707106781186547524f));
  // e = biased exponent - 126, less one where m is doubled and 24 where x
  // was scaled; every step is exact in integers.
  auto ei = hn::Sub(hn::ShiftRight<23>(hn::And(bits, hn::Set(di, 0x7fffffff))), hn::Set(di, 126));
  ei = hn::Sub(ei, hn::IfThenElseZero(hn::RebindMask(di, small), hn::Set(di, 1)));
  ei = hn::Sub(ei, hn::IfThenElseZero(hn::RebindMask(di, subnormal), hn::Set(di, 24)));
  const V e = hn::ConvertTo(d, ei);
  const V t = hn::Add(hn::Sub(m, one), hn::IfThenElseZero(small, m));
  const V t2 = hn::Mul(t, t);
  const V t3 = hn::Mul(t2, t);
  V y = hn::MulAdd(t, hn::Set(d, 7.0376836292E-2f), hn::Set(d, -1.1514610310E-1f));
  V y1 = hn::MulAdd(t, hn::Set(d, -1.2420140846E-1f), hn::Set(d, +1.4249322787E-1f));
  V y2 = hn::MulAdd(t, hn::Set(d, +2.0000714765E-1f), hn::Set(d, -2.4999993993E-1f));
  y = hn::MulAdd(y, t, hn::Set(d, 1.1676998740E-1f));
  y1 = hn::MulAdd(y1, t, hn::Set(d, -1.6668057665E-1f));
  y2 = hn::MulAdd(y2, t, hn::Set(d, +3.3333331174E-1f));
  y = hn::MulAdd(y, t3, y1);
  y = hn::MulAdd(y, t3, y2);
  y = hn::MulAdd(y, t3, hn::Mul(hn::Set(d, -2.12194440e-4f), e));
  V r = hn::NegMulAdd(hn::Set(d, 0.5f), t2, t);
  r = hn::Add(r, y);
  r = hn::MulAdd(hn::Set(d, 0.693359375f), e, r);
  // Not greater than 0 (NaN included): x86's default NaN (XLA sets every
  // bit; payloads are not kept either way); then 0 and +inf.
  r = hn::IfThenElse(hn::Gt(x, zero), r,
                     hn::BitCast(d, hn::Set(di, static_cast<int32_t>(0xffc00000u))));
  r = hn::IfThenElse(hn::Eq(x, zero), hn::Set(d, -HUGE_VALF), r);
  return hn::IfThenElse(hn::Eq(x, hn::Set(d, HUGE_VALF)), x, r);
}

// log1p as XLA's CPU backend computes f32 log1p: log(x + 1) (LogF32Cephes)
// where |x| >= sqrt(2) - 1; below, Cephes' rational approximation
//   x + (-0.5 * x^2 + x^3 * N(x) / D(x))   (the inner step fused)
// with N and D of degree 6 in Horner form of one fused multiply-add a step.
// The coefficients are the f32 roundings of Cephes' double ones.
template <class D, class V>
HWY_INLINE V Log1pF32Cephes(D d, V x) {
  const V large = LogF32Cephes(d, hn::Add(x, hn::Set(d, 1.0f)));
  const auto k = [d](double c) { return hn::Set(d, static_cast<float>(c)); };
  V n = hn::MulAdd(k(4.5270000862445199635215E-5), x, k(4.9854102823193375972212E-1));
  n = hn::MulAdd(n, x, k(6.5787325942061044846969E0));
  n = hn::MulAdd(n, x, k(2.9911919328553073277375E1));
  n = hn::MulAdd(n, x, k(6.0949667980987787057556E1));
  n = hn::MulAdd(n, x, k(5.7112963590585538103336E1));
  n = hn::MulAdd(n, x, k(2.0039553499201281259648E1));
  V q = hn::Add(x, k(1.5062909083469192043167E1));  // leading coefficient 1
  q = hn::MulAdd(q, x, k(8.3047565967967209469434E1));
  q = hn::MulAdd(q, x, k(2.2176239823732856465394E2));
  q = hn::MulAdd(q, x, k(3.0909872225312059774938E2));
  q = hn::MulAdd(q, x, k(2.1642788614495947685003E2));
  q = hn::MulAdd(q, x, k(6.0118660497603843919306E1));
  const V x2 = hn::Mul(x, x);
  const V tail = hn::Mul(hn::Mul(x, x2), hn::Div(n, q));
  const V small = hn::Add(x, hn::NegMulAdd(hn::Set(d, 0.5f), x2, tail));
  return hn::IfThenElse(hn::Lt(hn::Abs(x), k(0.41421356237309504880)), small, large);
}

}  // namespace HWY_NAMESPACE
}  // namespace elementwise_internal
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#endif  // include guard
