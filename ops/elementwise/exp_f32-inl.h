// f32 exp as an element function of Highway vectors, shared by the
// elementwise kernels (exp, and logistic and expm1 through it) and the
// fused-region interpreter (elementwise_hwy-inl.h, f32_program-inl.h).

// Per-target include guard (see hwy/examples/skeleton-inl.h).
#if defined(HLOVM_OPS_ELEMENTWISE_EXP_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HLOVM_OPS_ELEMENTWISE_EXP_F32_INL_H_
#undef HLOVM_OPS_ELEMENTWISE_EXP_F32_INL_H_
#else
#define HLOVM_OPS_ELEMENTWISE_EXP_F32_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace elementwise_internal {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// exp as XLA's CPU backend computes f32 exp (the Cephes polynomial, with
// fused multiply-adds):
//   n = floor(x * log2(e) + 0.5)                       (fused)
//   r = (x - n * ln2_hi) - n * ln2_lo                  (both steps fused)
//   z = 1 + (P(r) * r^2 + r)                           (the inner step fused)
//   exp(x) = z * 2^n
// with x clamped to [-104, 88.8] first, ln2_hi = 0x1.62e4p-1 (16 bits, so
// n * ln2_hi is exact), ln2_lo = 0x1.7f7d1cp-20 and P of degree 5 in Horner
// form of one fused multiply-add a step. 2^n is built from exponent bits in
// two factors: 2^clamp(n, -126, 127) and, added to z's exponent (exactly),
// the rest, from 2^-24 to 2^1. Above 88.72 the product overflows to +inf.
//
// XLA's CPU backend clamps x at -87.8 instead and flushes subnormal results
// to 0; here they are z * 2^n rounded once (0 from x < -103.97 on), and every
// normal result is XLA's bit for bit. NaN is passed through.
template <class D, class V>
HWY_INLINE V ExpF32Cephes(D d, V x) {
  const hn::RebindToSigned<D> di;
  const V c = hn::Min(hn::Max(x, hn::Set(d, -104.0f)), hn::Set(d, 88.8f));
  const V n = hn::Floor(hn::MulAdd(c, hn::Set(d, 1.44269504088896341f), hn::Set(d, 0.5f)));
  V r = hn::NegMulAdd(n, hn::Set(d, 0.693145751953125f), c);
  r = hn::NegMulAdd(n, hn::Set(d, 1.4286067653301877e-6f), r);
  V z = hn::MulAdd(r, hn::Set(d, 1.9875691500E-4f), hn::Set(d, 1.3981999507E-3f));
  z = hn::MulAdd(z, r, hn::Set(d, 8.3334519073E-3f));
  z = hn::MulAdd(z, r, hn::Set(d, 4.1665795894E-2f));
  z = hn::MulAdd(z, r, hn::Set(d, 1.6666665459E-1f));
  z = hn::MulAdd(z, r, hn::Set(d, 5.0000001201E-1f));
  z = hn::MulAdd(z, hn::Mul(r, r), r);
  z = hn::Add(z, hn::Set(d, 1.0f));
  // n is an integer in [-150, 128]; z is in [0.7, 1.5], so moving its
  // exponent by -24 .. 1 keeps it normal and exact.
  const auto ni = hn::ConvertTo(di, n);
  const auto e1 = hn::Min(hn::Max(ni, hn::Set(di, -126)), hn::Set(di, 127));
  const V pow2 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(e1, hn::Set(di, 127))));
  const V zs = hn::BitCast(d, hn::Add(hn::BitCast(di, z), hn::ShiftLeft<23>(hn::Sub(ni, e1))));
  return hn::IfThenElse(hn::IsNaN(x), x, hn::Mul(zs, pow2));
}

}  // namespace HWY_NAMESPACE
}  // namespace elementwise_internal
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#endif  // include guard
