// Entry points of the Highway kernels (elementwise_hwy-inl.h). Each call
// dispatches once to the best SIMD target compiled in and supported by the
// CPU; the targets compiled are listed in elementwise_hwy_targets.h.
#ifndef HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_HWY_H_
#define HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_HWY_H_

#include <cstdint>

namespace hlovm {
namespace elementwise_internal {

#define HLOVM_EW_HWY_BINARY_KERNELS(V) \
  V(AddF32) V(SubF32) V(MulF32) V(DivF32) V(MaxF32) V(MinF32) \
  V(AddF64) V(SubF64) V(MulF64) V(DivF64) V(MaxF64) V(MinF64)
#define HLOVM_EW_HWY_UNARY_KERNELS(V)                                                           \
  V(AbsF32) V(NegF32) V(SqrtF32) V(RsqrtF32) V(FloorF32) V(CeilF32) V(RoundEvenF32)             \
  V(ExpF32K) V(LogisticF32) V(TanhF32) V(Expm1F32) V(LogF32) V(Log1pF32) V(ErfF32)              \
  V(SinF32) V(CosF32)                                                                           \
  V(AbsF64) V(NegF64) V(SqrtF64) V(RsqrtF64) V(FloorF64) V(CeilF64) V(RoundEvenF64) V(TanhF64)  \
  V(BF16ToF32) V(F32ToBF16) V(F32ToF64) V(F64ToF32) V(F32ToS32) V(S32ToF32)

// Hwy<Name>: e.g. HwyAddF32(lhs, rhs, out, n), HwyExpF32K(in, out, n).
#define HLOVM_EW_DECLARE_BINARY_(Name) void Hwy##Name(const void* a, const void* b, void* out, int64_t n);
#define HLOVM_EW_DECLARE_UNARY_(Name) void Hwy##Name(const void* in, void* out, int64_t n);
HLOVM_EW_HWY_BINARY_KERNELS(HLOVM_EW_DECLARE_BINARY_)
HLOVM_EW_HWY_UNARY_KERNELS(HLOVM_EW_DECLARE_UNARY_)
#undef HLOVM_EW_DECLARE_BINARY_
#undef HLOVM_EW_DECLARE_UNARY_

// f16 <-> f32 (round to nearest even), vectorized where the target has it.
void HwyF16ToF32(const void* in, void* out, int64_t n);
void HwyF32ToF16(const void* in, void* out, int64_t n);

// The Highway target (HWY_AVX2, ...) the kernels dispatch to right now.
int64_t HwyChosenTarget();

}  // namespace elementwise_internal
}  // namespace hlovm

#endif  // HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_HWY_H_
