// ThreeFry-2x32 and Philox-4x32 over whole vectors of counters, compiled once
// per SIMD target through foreach_target.h. Tails shorter than a vector run
// the same code on a padded copy.
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/rng/rng_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// clang-format on

#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "ops/rng/rng_hwy.h"

HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace rng_internal {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

template <int R, class V>
HWY_INLINE V Rotl(V v) {
  return hn::RotateRight<32 - R>(v);
}

template <int R0, int R1, int R2, int R3, class V>
HWY_INLINE void FourRounds(V& a, V& b) {
  a = hn::Add(a, b);
  b = hn::Xor(Rotl<R0>(b), a);
  a = hn::Add(a, b);
  b = hn::Xor(Rotl<R1>(b), a);
  a = hn::Add(a, b);
  b = hn::Xor(Rotl<R2>(b), a);
  a = hn::Add(a, b);
  b = hn::Xor(Rotl<R3>(b), a);
}

template <class D>
HWY_INLINE void ThreeFryVec(D d, uint32_t k0, uint32_t k1, uint32_t* HWY_RESTRICT x0,
                            uint32_t* HWY_RESTRICT x1) {
  const uint32_t k2 = 0x1BD11BDAu ^ k0 ^ k1;
  const auto ks0 = hn::Set(d, k0), ks1 = hn::Set(d, k1), ks2 = hn::Set(d, k2);
  auto a = hn::Add(hn::LoadU(d, x0), ks0);
  auto b = hn::Add(hn::LoadU(d, x1), ks1);
  FourRounds<13, 15, 26, 6>(a, b);
  a = hn::Add(a, ks1);
  b = hn::Add(b, hn::Set(d, k2 + 1));
  FourRounds<17, 29, 16, 24>(a, b);
  a = hn::Add(a, ks2);
  b = hn::Add(b, hn::Set(d, k0 + 2));
  FourRounds<13, 15, 26, 6>(a, b);
  a = hn::Add(a, ks0);
  b = hn::Add(b, hn::Set(d, k1 + 3));
  FourRounds<17, 29, 16, 24>(a, b);
  a = hn::Add(a, ks1);
  b = hn::Add(b, hn::Set(d, k2 + 4));
  FourRounds<13, 15, 26, 6>(a, b);
  a = hn::Add(a, ks2);
  b = hn::Add(b, hn::Set(d, k0 + 5));
  hn::StoreU(a, d, x0);
  hn::StoreU(b, d, x1);
}

void ThreeFry2x32(uint32_t k0, uint32_t k1, uint32_t* x0, uint32_t* x1, int64_t n) {
  const hn::ScalableTag<uint32_t> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) ThreeFryVec(d, k0, k1, x0 + i, x1 + i);
  if (i < n) {
    HWY_ALIGN uint32_t t0[hn::MaxLanes(d)] = {}, t1[hn::MaxLanes(d)] = {};
    std::memcpy(t0, x0 + i, (n - i) * sizeof(uint32_t));
    std::memcpy(t1, x1 + i, (n - i) * sizeof(uint32_t));
    ThreeFryVec(d, k0, k1, t0, t1);
    std::memcpy(x0 + i, t0, (n - i) * sizeof(uint32_t));
    std::memcpy(x1 + i, t1, (n - i) * sizeof(uint32_t));
  }
}

// High and low 32 bits of x * m in every lane.
template <class D, class V>
HWY_INLINE void MulHiLo(D d, V x, V m, V& hi, V& lo) {
#if HWY_TARGET == HWY_SCALAR
  const uint64_t p = static_cast<uint64_t>(hn::GetLane(x)) * hn::GetLane(m);
  hi = hn::Set(d, static_cast<uint32_t>(p >> 32));
  lo = hn::Set(d, static_cast<uint32_t>(p));
#else
  const hn::Repartition<uint64_t, D> d64;
  const auto even = hn::MulEven(x, m);
  const auto x_odd = hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(d64, x)));
  const auto odd = hn::MulEven(x_odd, m);
  hi = hn::OddEven(hn::BitCast(d, odd), hn::BitCast(d, hn::ShiftRight<32>(even)));
  lo = hn::Mul(x, m);
#endif
}

template <class D>
HWY_INLINE void PhiloxVec(D d, uint32_t k0, uint32_t k1, uint32_t* HWY_RESTRICT p0,
                          uint32_t* HWY_RESTRICT p1, uint32_t* HWY_RESTRICT p2,
                          uint32_t* HWY_RESTRICT p3) {
  auto x0 = hn::LoadU(d, p0), x1 = hn::LoadU(d, p1), x2 = hn::LoadU(d, p2), x3 = hn::LoadU(d, p3);
  const auto m0 = hn::Set(d, 0xD2511F53u), m1 = hn::Set(d, 0xCD9E8D57u);
  for (int round = 0; round < 10; ++round) {
    decltype(x0) hi0, lo0, hi1, lo1;
    MulHiLo(d, x0, m0, hi0, lo0);
    MulHiLo(d, x2, m1, hi1, lo1);
    x0 = hn::Xor(hn::Xor(hi1, x1), hn::Set(d, k0));
    x1 = lo1;
    x2 = hn::Xor(hn::Xor(hi0, x3), hn::Set(d, k1));
    x3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  hn::StoreU(x0, d, p0);
  hn::StoreU(x1, d, p1);
  hn::StoreU(x2, d, p2);
  hn::StoreU(x3, d, p3);
}

void Philox4x32(uint32_t k0, uint32_t k1, uint32_t* x0, uint32_t* x1, uint32_t* x2, uint32_t* x3,
                int64_t n) {
  const hn::ScalableTag<uint32_t> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) PhiloxVec(d, k0, k1, x0 + i, x1 + i, x2 + i, x3 + i);
  if (i < n) {
    HWY_ALIGN uint32_t t[4][hn::MaxLanes(d)] = {};
    uint32_t* xs[4] = {x0, x1, x2, x3};
    for (int w = 0; w < 4; ++w) std::memcpy(t[w], xs[w] + i, (n - i) * sizeof(uint32_t));
    PhiloxVec(d, k0, k1, t[0], t[1], t[2], t[3]);
    for (int w = 0; w < 4; ++w) std::memcpy(xs[w] + i, t[w], (n - i) * sizeof(uint32_t));
  }
}

const char* Target() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace rng_internal
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hlovm {
namespace rng_internal {

HWY_EXPORT(ThreeFry2x32);
HWY_EXPORT(Philox4x32);
HWY_EXPORT(Target);

void HwyThreeFry2x32(uint32_t k0, uint32_t k1, uint32_t* x0, uint32_t* x1, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ThreeFry2x32)(k0, k1, x0, x1, n);
}
void HwyPhilox4x32(uint32_t k0, uint32_t k1, uint32_t* x0, uint32_t* x1, uint32_t* x2, uint32_t* x3,
                   int64_t n) {
  HWY_DYNAMIC_DISPATCH(Philox4x32)(k0, k1, x0, x1, x2, x3, n);
}
const char* HwyRngTarget() { return HWY_DYNAMIC_DISPATCH(Target)(); }

}  // namespace rng_internal
}  // namespace hlovm
#endif  // HWY_ONCE
