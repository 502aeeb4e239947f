// f32 -> bf16 as XLA rounds it: to nearest even on the bit pattern, and a
// NaN keeps its sign and upper payload with the quiet bit set; and bf16 ->
// f32. The one Highway form that the conversion kernels, the fused f32
// programs and the kernels that read or store bf16 themselves (the
// depthwise convolution) use, so that their bits agree.
//
// The Highway part is compiled per target when this header is included
// after hwy/highway.h (see ops/common/float_minmax.h).
#ifndef HLOVM_OPS_COMMON_BF16_ROUND_H_
#define HLOVM_OPS_COMMON_BF16_ROUND_H_
#endif  // HLOVM_OPS_COMMON_BF16_ROUND_H_

#if defined(HWY_NAMESPACE)
// Per-target include guard.
#if defined(HLOVM_OPS_COMMON_BF16_ROUND_HWY_) == defined(HWY_TARGET_TOGGLE)
#ifdef HLOVM_OPS_COMMON_BF16_ROUND_HWY_
#undef HLOVM_OPS_COMMON_BF16_ROUND_HWY_
#else
#define HLOVM_OPS_COMMON_BF16_ROUND_HWY_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace HWY_NAMESPACE {

// Each lane's bf16 bits in the upper 16 bits of an int32 lane (the lower
// bits are left over from the rounding).
template <class DF>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::RebindToSigned<DF>> BF16InUpperHalf(
    DF df, hwy::HWY_NAMESPACE::Vec<DF> v) {
  namespace hn = hwy::HWY_NAMESPACE;
  const hn::RebindToSigned<DF> di32;
  const auto bits = hn::BitCast(di32, v);
  const auto lsb = hn::And(hn::ShiftRight<16>(bits), hn::Set(di32, 1));
  const auto rounded = hn::Add(bits, hn::Add(lsb, hn::Set(di32, 0x7fff)));
  const auto quiet = hn::Or(bits, hn::Set(di32, 0x400000));
  return hn::IfThenElse(hn::RebindMask(di32, hn::IsNaN(v)), quiet, rounded);
}

// The bf16 bits of each lane, as uint16 lanes (DU16 rebinds DF).
template <class DF, class DU16>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<DU16> BF16Bits(DF df, DU16 du16, hwy::HWY_NAMESPACE::Vec<DF> v) {
  namespace hn = hwy::HWY_NAMESPACE;
  const hn::RebindToUnsigned<DF> du32;
  const hn::RebindToSigned<DF> di32;
  const auto top = hn::ShiftRight<16>(hn::BitCast(du32, BF16InUpperHalf(df, v)));
  return hn::DemoteTo(du16, hn::BitCast(di32, top));
}

// bf16 bits (uint16 lanes that DF rebinds) widened to f32, exactly: the
// bits move up 16.
template <class DF>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<DF> WidenBF16(
    DF df, hwy::HWY_NAMESPACE::Vec<hwy::HWY_NAMESPACE::Rebind<uint16_t, DF>> bits) {
  namespace hn = hwy::HWY_NAMESPACE;
  const hn::RebindToUnsigned<DF> du32;
  return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, bits)));
}

}  // namespace HWY_NAMESPACE
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#endif  // per-target guard
#endif  // HWY_NAMESPACE
