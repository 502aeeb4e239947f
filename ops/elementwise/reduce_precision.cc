// reduce-precision: rounds to a float format with fewer exponent and
// mantissa bits (nearest even, overflow to inf, values below the smallest
// normal to zero) while keeping the operand's type, as XLA does.
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/elementwise/elementwise.h"
#include "ops/elementwise/elementwise_internal.h"

namespace hlovm {
namespace elementwise_internal {
namespace {

template <class U, int kSrcExp, int kSrcMant>
inline U ReduceBits(U x, int exponent_bits, int mantissa_bits) {
  constexpr int kBits = 8 * sizeof(U);
  constexpr U kSign = U{1} << (kBits - 1);
  constexpr U kExpMask = ((U{1} << kSrcExp) - 1) << kSrcMant;
  const U abs_bits = x & ~kSign;
  const bool is_nan = abs_bits > kExpMask;
  U r = x;
  if (mantissa_bits < kSrcMant) {
    const U last = U{1} << (kSrcMant - mantissa_bits);
    const U base_bias = (last >> 1) - 1;
    const U bias = ((r & last) >> (kSrcMant - mantissa_bits)) + base_bias;
    r = static_cast<U>((r + bias) & ~(last - 1));
  }
  if (exponent_bits < kSrcExp) {
    const U exp_bias = (U{1} << (kSrcExp - 1)) - 1;
    const U reduced_bias = (U{1} << (exponent_bits - 1)) - 1;
    const U max_exp = exp_bias + reduced_bias;
    const U min_exp = exp_bias - reduced_bias;
    const U e = r & kExpMask;
    if (e > (max_exp << kSrcMant)) {
      r = (r & kSign) | kExpMask;
    } else if (e <= (min_exp << kSrcMant)) {
      r = r & kSign;
    }
  }
  if (is_nan) r = mantissa_bits > 0 ? x : ((x & kSign) | kExpMask);
  return r;
}

template <class U, int kSrcExp, int kSrcMant>
void ReduceLoop(const void* in, void* out, int64_t n, int exponent_bits, int mantissa_bits) {
  const auto* x = static_cast<const U*>(in);
  auto* y = static_cast<U*>(out);
  for (int64_t i = 0; i < n; ++i) {
    y[i] = ReduceBits<U, kSrcExp, kSrcMant>(x[i], exponent_bits, mantissa_bits);
  }
}

// Small float types: through f32, whose bits hold every small-float value.
template <ET kType>
void ReduceSmall(const void* in, void* out, int64_t n, int exponent_bits, int mantissa_bits) {
  using T = Traits<kType>;
  const auto* x = static_cast<const uint8_t*>(in);
  auto* y = static_cast<uint8_t*>(out);
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits;
    const float f = T::Load(x[i]);
    std::memcpy(&bits, &f, 4);
    bits = ReduceBits<uint32_t, 8, 23>(bits, exponent_bits, mantissa_bits);
    float g;
    std::memcpy(&g, &bits, 4);
    y[i] = T::Store(g);
  }
}

}  // namespace
}  // namespace elementwise_internal

absl::StatusOr<ReducePrecisionKernel> SelectReducePrecisionKernel(ElementType type,
                                                                  int exponent_bits,
                                                                  int mantissa_bits) {
  using namespace elementwise_internal;  // NOLINT
  if (exponent_bits < 1 || mantissa_bits < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0; got ", exponent_bits,
        " and ", mantissa_bits));
  }
  ReducePrecisionKernel k;
  k.exponent_bits = exponent_bits;
  k.mantissa_bits = mantissa_bits;
  switch (type) {
    case ET::kF32:
      k.fn = &ReduceLoop<uint32_t, 8, 23>;
      return k;
    case ET::kF64:
      k.fn = &ReduceLoop<uint64_t, 11, 52>;
      return k;
    case ET::kF16:
      k.fn = &ReduceLoop<uint16_t, 5, 10>;
      return k;
    case ET::kBF16:
      k.fn = &ReduceLoop<uint16_t, 8, 7>;
      return k;
#define HLOVM_EW_TYPE_(e)      \
  case ET::e:                  \
    k.fn = &ReduceSmall<ET::e>; \
    return k;
      HLOVM_EW_SMALL_FLOAT_TYPES(HLOVM_EW_TYPE_)
#undef HLOVM_EW_TYPE_
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "reduce-precision needs a floating-point operand; got ", TypeName(type)));
  }
}

}  // namespace hlovm
