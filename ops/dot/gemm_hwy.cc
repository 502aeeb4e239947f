// Compiles gemm_hwy-inl.h once per SIMD target and exports the dispatching
// entry points declared in gemm.h.
// The register tile keeps arrays of vectors, which scalable vectors (SVE,
// RVV) cannot form; those machines run the NEON or baseline target.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS \
  (HWY_SSSE3 | HWY_SSE4 | HWY_AVX3_DL | HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128 | HWY_RVV)
#endif
#include "ops/elementwise/elementwise_hwy_targets.h"  // must precede Highway

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/dot/gemm_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// clang-format on

#include "hwy/highway.h"
#include "ops/dot/gemm_hwy-inl.h"

#if HWY_ONCE
namespace hlovm {
namespace gemm_internal {

HWY_EXPORT(GemmF32);
HWY_EXPORT(GemmF64);
HWY_EXPORT(GemmTarget);
HWY_EXPORT(SplitUnitsF32);
HWY_EXPORT(SplitUnitsF64);
HWY_EXPORT(GemmPathF32);
HWY_EXPORT(GemmPathF64);

void HwyGemmF32(const void* a, const void* b, void* c, const GemmDims& dims, int64_t ub,
                int64_t ue) {
  HWY_DYNAMIC_DISPATCH(GemmF32)(a, b, c, dims, ub, ue);
}
void HwyGemmF64(const void* a, const void* b, void* c, const GemmDims& dims, int64_t ub,
                int64_t ue) {
  HWY_DYNAMIC_DISPATCH(GemmF64)(a, b, c, dims, ub, ue);
}
const char* HwyGemmTarget() { return HWY_DYNAMIC_DISPATCH(GemmTarget)(); }
void HwyGemmSplitUnits(bool f64, GemmDims* dims, int64_t want_units, int64_t min_unit_flops) {
  if (f64) {
    HWY_DYNAMIC_DISPATCH(SplitUnitsF64)(dims, want_units, min_unit_flops);
  } else {
    HWY_DYNAMIC_DISPATCH(SplitUnitsF32)(dims, want_units, min_unit_flops);
  }
}
const char* HwyGemmPath(bool f64, const GemmDims& dims) {
  return f64 ? HWY_DYNAMIC_DISPATCH(GemmPathF64)(dims) : HWY_DYNAMIC_DISPATCH(GemmPathF32)(dims);
}

}  // namespace gemm_internal
}  // namespace hlovm
#endif  // HWY_ONCE
