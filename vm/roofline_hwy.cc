// The peak-FMA loop of the roofline, compiled once per SIMD target.
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "vm/roofline_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// clang-format on

#include <chrono>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace roofline_internal {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Ten independent multiply-add chains hide the FMA latency (4 cycles) on two
// FMA pipes. Returns the sum so the work is not optimised away.
HWY_NOINLINE float FmaChains(int64_t iterations) {
  const hn::ScalableTag<float> d;
  const auto m = hn::Set(d, 0.99999994f);
  const auto c = hn::Set(d, 1e-7f);
  auto a0 = hn::Set(d, 0.1f), a1 = hn::Set(d, 0.2f), a2 = hn::Set(d, 0.3f), a3 = hn::Set(d, 0.4f);
  auto a4 = hn::Set(d, 0.5f), a5 = hn::Set(d, 0.6f), a6 = hn::Set(d, 0.7f), a7 = hn::Set(d, 0.8f);
  auto a8 = hn::Set(d, 0.9f), a9 = hn::Set(d, 1.0f);
  for (int64_t i = 0; i < iterations; ++i) {
    a0 = hn::MulAdd(a0, m, c);
    a1 = hn::MulAdd(a1, m, c);
    a2 = hn::MulAdd(a2, m, c);
    a3 = hn::MulAdd(a3, m, c);
    a4 = hn::MulAdd(a4, m, c);
    a5 = hn::MulAdd(a5, m, c);
    a6 = hn::MulAdd(a6, m, c);
    a7 = hn::MulAdd(a7, m, c);
    a8 = hn::MulAdd(a8, m, c);
    a9 = hn::MulAdd(a9, m, c);
  }
  auto s = hn::Add(hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)),
                   hn::Add(hn::Add(hn::Add(a4, a5), hn::Add(a6, a7)), hn::Add(a8, a9)));
  return hn::GetLane(hn::SumOfLanes(d, s));
}

double FmaGflops(double ms) {
  const hn::ScalableTag<float> d;
  const double flops_per_iteration = 10.0 * 2.0 * static_cast<double>(hn::Lanes(d));
  int64_t iterations = 1 << 16;
  volatile float sink = 0;
  double best = 0;
  double spent_ms = 0;
  while (spent_ms < ms) {
    const auto t0 = std::chrono::steady_clock::now();
    sink = sink + FmaChains(iterations);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    spent_ms += s * 1e3;
    if (s > 0) best = std::max(best, flops_per_iteration * static_cast<double>(iterations) / s);
    if (s < 2e-3) iterations *= 2;
  }
  return best * 1e-9;
}

const char* Target() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace roofline_internal
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "vm/roofline.h"

namespace hlovm {
namespace roofline_internal {

HWY_EXPORT(FmaGflops);
HWY_EXPORT(Target);

double FmaGflopsOneThread(double ms) { return HWY_DYNAMIC_DISPATCH(FmaGflops)(ms); }
const char* FmaTarget() { return HWY_DYNAMIC_DISPATCH(Target)(); }

}  // namespace roofline_internal
}  // namespace hlovm
#endif  // HWY_ONCE
