// Vectorised depthwise convolution row kernel (Highway, dynamic dispatch):
// out[c] = sum over window positions w of rows[w][c] * kernel[w * channels + c],
// one fused multiply-add per term in window order (as the GEMM path sums),
// channels vectorised.
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/dot/conv_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// clang-format on

#include <cmath>
#include <cstdint>

#include "hwy/highway.h"
#include "ops/dot/conv.h"

HWY_BEFORE_NAMESPACE();
namespace hlovm {
namespace conv_internal {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void DepthwiseF32(const float* const* rows, const float* kernel, int64_t ksp,
                  int64_t channels, float* out) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t c = 0;
  for (; c + 4 * N <= channels; c += 4 * N) {
    auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    for (int64_t w = 0; w < ksp; ++w) {
      const float* r = rows[w] + c;
      const float* k = kernel + w * channels + c;
      a0 = hn::MulAdd(hn::LoadU(d, r), hn::LoadU(d, k), a0);
      a1 = hn::MulAdd(hn::LoadU(d, r + N), hn::LoadU(d, k + N), a1);
      a2 = hn::MulAdd(hn::LoadU(d, r + 2 * N), hn::LoadU(d, k + 2 * N), a2);
      a3 = hn::MulAdd(hn::LoadU(d, r + 3 * N), hn::LoadU(d, k + 3 * N), a3);
    }
    hn::StoreU(a0, d, out + c);
    hn::StoreU(a1, d, out + c + N);
    hn::StoreU(a2, d, out + c + 2 * N);
    hn::StoreU(a3, d, out + c + 3 * N);
  }
  for (; c + N <= channels; c += N) {
    auto a = hn::Zero(d);
    for (int64_t w = 0; w < ksp; ++w) {
      a = hn::MulAdd(hn::LoadU(d, rows[w] + c), hn::LoadU(d, kernel + w * channels + c), a);
    }
    hn::StoreU(a, d, out + c);
  }
  for (; c < channels; ++c) {
    float a = 0.0f;
    for (int64_t w = 0; w < ksp; ++w) a = std::fma(rows[w][c], kernel[w * channels + c], a);
    out[c] = a;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace conv_internal
}  // namespace hlovm
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hlovm {
namespace conv_internal {

HWY_EXPORT(DepthwiseF32);

void HwyDepthwiseF32(const float* const* rows, const float* kernel, int64_t ksp,
                     int64_t channels, float* out) {
  HWY_DYNAMIC_DISPATCH(DepthwiseF32)(rows, kernel, ksp, channels, out);
}

}  // namespace conv_internal
}  // namespace hlovm
#endif  // HWY_ONCE
