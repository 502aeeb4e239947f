// Floating-point maximum and minimum as XLA's CPU backend computes them
// (llvm.maximum / llvm.minimum): a NaN operand wins, and -0 orders below +0.
// The one scalar form (FloatMax, FloatMin) and the one Highway form
// (FloatMaxVec, FloatMinVec) that every kernel uses: elementwise maximum and
// minimum, reduce and reduce-window folds, fused regions.
//
// The scalar form returns the first NaN operand as it is. The vector form
// returns the first NaN operand quieted (x + x), chosen explicitly, because
// which operand an addition of two NaNs returns depends on the order the
// compiler happens to give the (commutative) instruction, which may differ
// between kernels.
//
// The Highway part is compiled per target when this header is included
// after hwy/highway.h (from a -inl.h or a foreach_target.h translation
// unit; see hwy/examples/skeleton-inl.h for the per-target guard).
#ifndef HLOVM_OPS_COMMON_FLOAT_MINMAX_H_
#define HLOVM_OPS_COMMON_FLOAT_MINMAX_H_

#include <cmath>

namespace hlovm {

template <class F>
inline F FloatMax(F a, F b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

template <class F>
inline F FloatMin(F a, F b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

}  // namespace hlovm

#endif  // HLOVM_OPS_COMMON_FLOAT_MINMAX_H_

#if defined(HWY_NAMESPACE)
// Per-target include guard.
#if defined(HLOVM_OPS_COMMON_FLOAT_MINMAX_HWY_) == defined(HWY_TARGET_TOGGLE)
#ifdef HLOVM_OPS_COMMON_FLOAT_MINMAX_HWY_
#undef HLOVM_OPS_COMMON_FLOAT_MINMAX_HWY_
#else
#define HLOVM_OPS_COMMON_FLOAT_MINMAX_HWY_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace HWY_NAMESPACE {

// The first NaN of a and b, lane by lane, quieted.
template <class V>
HWY_INLINE V FirstNaNVec(V a, V b) {
  namespace hn = hwy::HWY_NAMESPACE;
  return hn::IfThenElse(hn::IsNaN(a), hn::Add(a, a), hn::Add(b, b));
}

// Among equal operands (+0 and -0) the one with the clear sign bit.
template <class V>
HWY_INLINE V FloatMaxVec(V a, V b) {
  namespace hn = hwy::HWY_NAMESPACE;
  const V r = hn::IfThenElse(hn::Eq(a, b), hn::And(a, b), hn::Max(a, b));
  return hn::IfThenElse(hn::Or(hn::IsNaN(a), hn::IsNaN(b)), FirstNaNVec(a, b), r);
}

// Among equal operands (+0 and -0) the one with the set sign bit.
template <class V>
HWY_INLINE V FloatMinVec(V a, V b) {
  namespace hn = hwy::HWY_NAMESPACE;
  const V r = hn::IfThenElse(hn::Eq(a, b), hn::Or(a, b), hn::Min(a, b));
  return hn::IfThenElse(hn::Or(hn::IsNaN(a), hn::IsNaN(b)), FirstNaNVec(a, b), r);
}

}  // namespace HWY_NAMESPACE
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#endif  // per-target guard
#endif  // HWY_NAMESPACE
