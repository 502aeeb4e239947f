// convert kernels from f32, f64, f16 and bf16 (vectorized between f32 and
// f16, bf16, f64 and s32), and from the complex types.
#include "ops/elementwise/elementwise_convert.h"
#include "ops/elementwise/elementwise_hwy.h"

namespace hlovm {
namespace elementwise_internal {

absl::StatusOr<UnaryKernel> SelectConvertFromFloat(ElementType from, ElementType to) {
  if (from == ET::kF32) {
    switch (to) {
      case ET::kF16:
        return &HwyF32ToF16;
      case ET::kBF16:
        return &HwyF32ToBF16;
      case ET::kF64:
        return &HwyF32ToF64;
      case ET::kS32:
        return &HwyF32ToS32;
      default:
        return SelectConvertTo<ET::kF32>(to);
    }
  }
  if (from == ET::kF64 && to == ET::kF32) return &HwyF64ToF32;
  if (from == ET::kF16 && to == ET::kF32) return &HwyF16ToF32;
  if (from == ET::kBF16 && to == ET::kF32) return &HwyBF16ToF32;
  switch (from) {
    case ET::kF64:
      return SelectConvertTo<ET::kF64>(to);
    case ET::kF16:
      return SelectConvertTo<ET::kF16>(to);
    case ET::kBF16:
      return SelectConvertTo<ET::kBF16>(to);
    default:
      return SelectConvertFromSmallFloat(from, to);
  }
}

absl::StatusOr<UnaryKernel> SelectConvertFromComplex(ElementType from, ElementType to) {
  if (from == ET::kC64 && to == ET::kC128) return &ConvertLoop<ET::kC64, ET::kC128>;
  if (from == ET::kC128 && to == ET::kC64) return &ConvertLoop<ET::kC128, ET::kC64>;
  return absl::UnimplementedError(absl::StrCat("Conversion from complex to real type ",
                                               TypeName(from), " => ",
                                               TypeName(to), " is not implemented."));
}

// Block converters used by the narrow-float kernels.
void DecodeF16Block(const void* in, float* out, int64_t n) { HwyF16ToF32(in, out, n); }
void EncodeF16Block(const float* in, void* out, int64_t n) { HwyF32ToF16(in, out, n); }
void DecodeBF16Block(const void* in, float* out, int64_t n) { HwyBF16ToF32(in, out, n); }
void EncodeBF16Block(const float* in, void* out, int64_t n) { HwyF32ToBF16(in, out, n); }

}  // namespace elementwise_internal
}  // namespace hlovm
