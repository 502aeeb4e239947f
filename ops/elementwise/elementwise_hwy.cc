// Compiles elementwise_hwy-inl.h once per SIMD target and exports the
// dispatching entry points declared in elementwise_hwy.h.
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/elementwise/elementwise_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// clang-format on

#include "hwy/highway.h"
#include "ops/elementwise/elementwise_hwy-inl.h"
#include "ops/elementwise/f32_program-inl.h"

#if HWY_ONCE
#include "core/float_format.h"
#include "ops/elementwise/elementwise_hwy.h"
#include "ops/elementwise/f32_program.h"

namespace hlovm {
namespace elementwise_internal {

#define HLOVM_EW_EXPORT_(Name) HWY_EXPORT(Name);
HLOVM_EW_HWY_BINARY_KERNELS(HLOVM_EW_EXPORT_)
HLOVM_EW_HWY_UNARY_KERNELS(HLOVM_EW_EXPORT_)
HWY_EXPORT(F32ToF16);
HWY_EXPORT(F16ToF32);
HWY_EXPORT(TargetId);
HWY_EXPORT(RunF32ProgramImpl);
#undef HLOVM_EW_EXPORT_

#define HLOVM_EW_DEFINE_BINARY_(Name)                                   \
  void Hwy##Name(const void* a, const void* b, void* out, int64_t n) { \
    HWY_DYNAMIC_DISPATCH(Name)(a, b, out, n);                          \
  }
#define HLOVM_EW_DEFINE_UNARY_(Name)                          \
  void Hwy##Name(const void* in, void* out, int64_t n) {     \
    HWY_DYNAMIC_DISPATCH(Name)(in, out, n);                  \
  }
HLOVM_EW_HWY_BINARY_KERNELS(HLOVM_EW_DEFINE_BINARY_)
HLOVM_EW_HWY_UNARY_KERNELS(HLOVM_EW_DEFINE_UNARY_)
#undef HLOVM_EW_DEFINE_BINARY_
#undef HLOVM_EW_DEFINE_UNARY_

void HwyF32ToF16(const void* in, void* out, int64_t n) {
  const int64_t done = HWY_DYNAMIC_DISPATCH(F32ToF16)(in, out, n);
  const auto* x = static_cast<const float*>(in);
  auto* y = static_cast<uint16_t*>(out);
  for (int64_t i = done; i < n; ++i) y[i] = FloatToHalf(x[i]);
}

void HwyF16ToF32(const void* in, void* out, int64_t n) {
  const int64_t done = HWY_DYNAMIC_DISPATCH(F16ToF32)(in, out, n);
  const auto* x = static_cast<const uint16_t*>(in);
  auto* y = static_cast<float*>(out);
  for (int64_t i = done; i < n; ++i) y[i] = HalfToFloat(x[i]);
}

int64_t HwyChosenTarget() { return HWY_DYNAMIC_DISPATCH(TargetId)(); }

}  // namespace elementwise_internal

void RunF32Program(const F32ProgramOp* code, int num_ops, void* const* streams,
                   const F32Stream* kinds, int num_streams, int64_t offset, int64_t len) {
  HWY_DYNAMIC_DISPATCH(elementwise_internal::RunF32ProgramImpl)(code, num_ops, streams, kinds,
                                                                num_streams, offset, len);
}
}  // namespace hlovm
#endif  // HWY_ONCE
