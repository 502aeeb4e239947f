// Vectorised horizontal folds of one contiguous run (f32/f64 add, max, min),
// compiled once per SIMD target through foreach_target.h and dispatched at
// run time. Several vector accumulators keep the adds independent so a fold
// runs at memory speed; the lanes and accumulators combine in a fixed order,
// so a given target always gives the same bits.
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/reduce/reduce_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// clang-format on

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "hwy/highway.h"
#include "ops/common/float_minmax.h"
#include "ops/reduce/sum_classes.h"

HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace reduce_internal {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// Sum of x[0..n) with aligned loads (unaligned 64-byte loads split cache
// lines and cost a fifth of the bandwidth) but an order that does not depend
// on the address: element i always goes to slot (i - p) mod 4L of four vector
// accumulators (p: elements before the first aligned vector, L: lanes), so
// each residue class i mod 4L is summed in index order; head and tail
// elements join their class scalarly, and the classes are combined in a
// fixed pairwise tree in class order. The vectors are 128 bits wide on every
// target: on the project's machines 512- and 256-bit loads stream from DRAM
// about a quarter slower than 128-bit ones in this loop.
//
// SumRunHead is p (n when x's elements are misaligned: all scalar), and
// SumRunClasses the end: `acc` holds the classes by slot, `p` the head.
template <typename T>
HWY_INLINE int64_t SumRunHead(const T* x, int64_t n) {
  const hn::CappedTag<T, 16 / sizeof(T)> d;
  const int64_t vbytes = static_cast<int64_t>(hn::Lanes(d) * sizeof(T));
  const uintptr_t addr = reinterpret_cast<uintptr_t>(x);
  if (addr % sizeof(T) != 0) return n;
  const int64_t p = static_cast<int64_t>(((vbytes - static_cast<int64_t>(addr % vbytes)) % vbytes) /
                                         static_cast<int64_t>(sizeof(T)));
  return std::min(p, n);
}
template <typename T>
HWY_INLINE T SumRunClasses(const T* acc, int64_t width, int64_t p) {
  // Classes in index order, then a pairwise tree.
  HWY_ALIGN T cls[kSumClasses<T>];
  for (int64_t c = 0; c < width; ++c) cls[c] = acc[((c - p) % width + width) % width];
  return SumClassTree(cls, width);
}

template <typename T>
HWY_INLINE T SumRun(const T* HWY_RESTRICT x, int64_t n) {
  const hn::CappedTag<T, 16 / sizeof(T)> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t width = 4 * lanes;
  HWY_ALIGN T acc[kSumClasses<T>];
  const T zero = T(-0.0);  // exact identity of addition
  for (int64_t k = 0; k < width; ++k) acc[k] = zero;
  const int64_t p = SumRunHead(x, n);
  auto slot = [&](int64_t i) { return ((i - p) % width + width) % width; };
  for (int64_t i = 0; i < p; ++i) acc[slot(i)] += x[i];
  int64_t i = p;
  if (n - p >= width) {
    auto a0 = hn::Load(d, acc), a1 = hn::Load(d, acc + lanes);
    auto a2 = hn::Load(d, acc + 2 * lanes), a3 = hn::Load(d, acc + 3 * lanes);
    for (; i + width <= n; i += width) {
      a0 = hn::Add(a0, hn::Load(d, x + i));
      a1 = hn::Add(a1, hn::Load(d, x + i + lanes));
      a2 = hn::Add(a2, hn::Load(d, x + i + 2 * lanes));
      a3 = hn::Add(a3, hn::Load(d, x + i + 3 * lanes));
    }
    hn::Store(a0, d, acc);
    hn::Store(a1, d, acc + lanes);
    hn::Store(a2, d, acc + 2 * lanes);
    hn::Store(a3, d, acc + 3 * lanes);
  }
  for (; i < n; ++i) acc[slot(i)] += x[i];
  return SumRunClasses(acc, width, p);
}

// SumRun of four runs of n elements at once, each result bitwise SumRun's,
// for runs in cache: one run's classes are chains of adds that wait on each
// other's latency (a row of 768 floats in cache sums at a third of the
// load rate); four runs' chains keep the adder busy. The 4L classes of a
// run are lanes of the widest vectors here (one 512-bit vector of floats on
// AVX-512), element i still going to class (i - p) mod 4L. (From memory,
// SumRun's 128-bit loads stream faster: reduce_bench's row sums were 17%
// slower this way.) Runs whose first aligned 16 bytes are not at the same
// index are summed one by one.
template <typename T>
HWY_INLINE void SumRun4(const T* const* xs, int64_t n, T* out) {
  const hn::CappedTag<T, 16 / sizeof(T)> d128;
  const int64_t width = 4 * static_cast<int64_t>(hn::Lanes(d128));  // classes
  const hn::CappedTag<T, 64 / sizeof(T)> d;  // at most the classes
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t nv = width / lanes;          // vectors per run (1, 2 or 4)
  const int64_t p = SumRunHead(xs[0], n);
  if (SumRunHead(xs[1], n) != p || SumRunHead(xs[2], n) != p || SumRunHead(xs[3], n) != p ||
      n - p < width) {
    for (int r = 0; r < 4; ++r) out[r] = SumRun(xs[r], n);
    return;
  }
  HWY_ALIGN T acc[4][kSumClasses<T>];
  const T zero = T(-0.0);  // exact identity of addition
  auto slot = [&](int64_t i) { return ((i - p) % width + width) % width; };
  for (int r = 0; r < 4; ++r) {
    for (int64_t k = 0; k < width; ++k) acc[r][k] = zero;
    for (int64_t i = 0; i < p; ++i) acc[r][slot(i)] += xs[r][i];
  }
  using V = hn::Vec<decltype(d)>;
  V a[4][4];
  for (int r = 0; r < 4; ++r) {
    for (int64_t v = 0; v < nv; ++v) a[r][v] = hn::Load(d, acc[r] + v * lanes);
  }
  int64_t i = p;
  for (; i + width <= n; i += width) {
    HWY_UNROLL(4) for (int r = 0; r < 4; ++r) {
      for (int64_t v = 0; v < nv; ++v) {
        a[r][v] = hn::Add(a[r][v], hn::LoadU(d, xs[r] + i + v * lanes));
      }
    }
  }
  for (int r = 0; r < 4; ++r) {
    for (int64_t v = 0; v < nv; ++v) hn::Store(a[r][v], d, acc[r] + v * lanes);
    for (int64_t j = i; j < n; ++j) acc[r][slot(j)] += xs[r][j];
    out[r] = SumRunClasses(acc[r], width, p);
  }
}

float SumF32(const float* x, int64_t n) { return SumRun(x, n); }
void Sum4F32(const float* const* x, int64_t n, float* out) { SumRun4(x, n, out); }
double SumF64(const double* x, int64_t n) { return SumRun(x, n); }

// NaN-propagating max/min of x[0..n) (n > 0); -0 orders below +0, in the
// vector lanes as in the scalar tail (FloatMaxVec / FloatMax). A NaN
// anywhere gives the canonical quiet NaN.
template <typename T, bool kMax>
HWY_INLINE T MaxMinRun(const T* HWY_RESTRICT x, int64_t n) {
  const hn::ScalableTag<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  T r = x[0];
  int64_t i = 0;
  if (n >= 2 * lanes) {
    auto a0 = hn::LoadU(d, x), a1 = hn::LoadU(d, x + lanes);
    auto nan0 = hn::IsNaN(a0), nan1 = hn::IsNaN(a1);
    for (i = 2 * lanes; i + 2 * lanes <= n; i += 2 * lanes) {
      const auto v0 = hn::LoadU(d, x + i), v1 = hn::LoadU(d, x + i + lanes);
      nan0 = hn::Or(nan0, hn::IsNaN(v0));
      nan1 = hn::Or(nan1, hn::IsNaN(v1));
      if constexpr (kMax) {
        a0 = hlovm::HWY_NAMESPACE::FloatMaxVec(a0, v0);
        a1 = hlovm::HWY_NAMESPACE::FloatMaxVec(a1, v1);
      } else {
        a0 = hlovm::HWY_NAMESPACE::FloatMinVec(a0, v0);
        a1 = hlovm::HWY_NAMESPACE::FloatMinVec(a1, v1);
      }
    }
    if (!hn::AllFalse(d, hn::Or(nan0, nan1))) return std::numeric_limits<T>::quiet_NaN();
    // With no NaN left, and -0 ordered below +0, the result is the same
    // whatever order the lanes fold in: the two accumulators, then 128-bit
    // pieces of the result, then its lanes (a row of 128 floats spent more
    // time folding 32 lanes one by one than in its loop).
    const auto both = kMax ? hlovm::HWY_NAMESPACE::FloatMaxVec(a0, a1)
                           : hlovm::HWY_NAMESPACE::FloatMinVec(a0, a1);
    alignas(64) T buf[HWY_MAX_BYTES / sizeof(T)];
    hn::Store(both, d, buf);
    const hn::CappedTag<T, 16 / sizeof(T)> d128;
    const int64_t lanes128 = static_cast<int64_t>(hn::Lanes(d128));
    auto piece = hn::Load(d128, buf);
    for (int64_t k = lanes128; k < lanes; k += lanes128) {
      piece = kMax ? hlovm::HWY_NAMESPACE::FloatMaxVec(piece, hn::Load(d128, buf + k))
                   : hlovm::HWY_NAMESPACE::FloatMinVec(piece, hn::Load(d128, buf + k));
    }
    hn::Store(piece, d128, buf);
    r = buf[0];
    for (int64_t k = 1; k < lanes128; ++k) {
      const T v = buf[k];
      r = kMax ? FloatMax(r, v) : FloatMin(r, v);
    }
  }
  for (; i < n; ++i) {
    const T v = x[i];
    if (std::isnan(v)) return v;
    r = kMax ? FloatMax(r, v) : FloatMin(r, v);
  }
  return r;
}

float MaxF32(const float* x, int64_t n) { return MaxMinRun<float, true>(x, n); }
float MinF32(const float* x, int64_t n) { return MaxMinRun<float, false>(x, n); }
double MaxF64(const double* x, int64_t n) { return MaxMinRun<double, true>(x, n); }
double MinF64(const double* x, int64_t n) { return MaxMinRun<double, false>(x, n); }
int64_t ReduceTargetId() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace reduce_internal
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "ops/reduce/reduce_hwy.h"

namespace hlovm {
namespace reduce_internal {

HWY_EXPORT(SumF32);
HWY_EXPORT(Sum4F32);
HWY_EXPORT(SumF64);
HWY_EXPORT(MaxF32);
HWY_EXPORT(MinF32);
HWY_EXPORT(MaxF64);
HWY_EXPORT(MinF64);
HWY_EXPORT(ReduceTargetId);

float HwySumF32(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(SumF32)(x, n); }
void HwySum4F32(const float* const* x, int64_t n, float* out) {
  HWY_DYNAMIC_DISPATCH(Sum4F32)(x, n, out);
}
double HwySumF64(const double* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(SumF64)(x, n); }
float HwyMaxF32(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(MaxF32)(x, n); }
float HwyMinF32(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(MinF32)(x, n); }
double HwyMaxF64(const double* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(MaxF64)(x, n); }
double HwyMinF64(const double* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(MinF64)(x, n); }
const char* ReduceSimdTarget() {
  return hwy::TargetName(HWY_DYNAMIC_DISPATCH(ReduceTargetId)());
}

}  // namespace reduce_internal
}  // namespace hlovm
#endif  // HWY_ONCE
