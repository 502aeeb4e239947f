// Element conversion rules of convert (XLA's CPU backend): integers wrap,
// floats saturate into integers with NaN -> 0, anything -> pred is x != 0,
// and every rounding into a float type is one round-to-nearest-even from the
// exact source value. Internal to the elementwise kernels.
#ifndef HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_CONVERT_H_
#define HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_CONVERT_H_

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/elementwise/elementwise_internal.h"

namespace hlovm {
namespace elementwise_internal {

// A 64-bit integer as a double rounded to odd, so that one more rounding to
// a narrower float type (at most 51 significand bits) is correctly rounded.
inline double RoundToOddDouble(uint64_t u) {
  if (u < (uint64_t{1} << 53)) return static_cast<double>(u);
  const int shift = 64 - std::countl_zero(u) - 53;
  const uint64_t sticky = (u & ((uint64_t{1} << shift) - 1)) != 0;
  return std::ldexp(static_cast<double>((u >> shift) | sticky), shift);
}
inline double RoundToOddDouble(int64_t v) {
  const uint64_t mag = v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  const double d = RoundToOddDouble(mag);
  return v < 0 ? -d : d;
}

// Saturating float -> integer of a kBits-wide type; NaN -> 0.
template <class O>
inline typename O::Compute FloatToInt(double v) {
  using C = typename O::Compute;
  if (std::isnan(v)) return 0;
  if constexpr (O::kSigned) {
    const int64_t max = O::kBits == 64 ? INT64_MAX : (int64_t{1} << (O::kBits - 1)) - 1;
    const int64_t min = -max - 1;
    if (v <= static_cast<double>(min)) return static_cast<C>(min);
    if (v >= static_cast<double>(max)) return static_cast<C>(max);
    return static_cast<C>(static_cast<int64_t>(v));
  } else {
    const uint64_t max = O::kBits == 64 ? UINT64_MAX : (uint64_t{1} << O::kBits) - 1;
    if (!(v > 0)) return 0;
    if (v >= static_cast<double>(max)) return static_cast<C>(max);
    return static_cast<C>(static_cast<uint64_t>(v));
  }
}

// The storage value of type kTo for one element of type kFrom.
template <ET kFrom, ET kTo>
inline typename Traits<kTo>::Storage ConvertOne(typename Traits<kFrom>::Storage s) {
  using I = Traits<kFrom>;
  using O = Traits<kTo>;
  using IC = typename I::Compute;
  using OC = typename O::Compute;
  using OS = typename O::Storage;
  const IC x = I::Load(s);
  constexpr bool kToComplex = kIsComplex<OC>;
  constexpr bool kToFloat = std::is_floating_point_v<OC>;
  constexpr bool kToNarrow = kToFloat && !std::is_same_v<OS, OC>;
  if constexpr (kIsComplex<IC>) {
    static_assert(kToComplex);
    using F = typename OC::value_type;
    return OS(static_cast<F>(x.real()), static_cast<F>(x.imag()));
  } else if constexpr (std::is_integral_v<IC>) {  // pred and integers
    if constexpr (kTo == ET::kPred) {
      return O::Store(x != 0);
    } else if constexpr (std::is_integral_v<OC>) {
      return O::Store(static_cast<OC>(x));
    } else if constexpr (kToComplex) {
      return OS(static_cast<typename OC::value_type>(x), 0);
    } else if constexpr (kToNarrow) {
      using Wide = std::conditional_t<std::is_signed_v<IC>, int64_t, uint64_t>;
      return static_cast<OS>(EncodeNarrowFloat(kTo, RoundToOddDouble(static_cast<Wide>(x))));
    } else {
      return static_cast<OC>(x);
    }
  } else {  // floating point
    if constexpr (kTo == ET::kPred) {
      return O::Store(x != 0);
    } else if constexpr (std::is_integral_v<OC>) {
      return O::Store(FloatToInt<O>(static_cast<double>(x)));
    } else if constexpr (kToComplex) {
      return OS(static_cast<typename OC::value_type>(x), 0);
    } else if constexpr (kTo == ET::kF16 && std::is_same_v<IC, float> && kFrom != ET::kF16) {
      // Narrow sources decode exactly to f32; one rounding.
      return FloatToHalf(x);
    } else if constexpr (kTo == ET::kBF16 && std::is_same_v<IC, float> && kFrom != ET::kBF16) {
      return FloatToBFloat16(x);
    } else if constexpr (kToNarrow) {
      return static_cast<OS>(EncodeNarrowFloat(kTo, static_cast<double>(x)));
    } else {
      return static_cast<OC>(x);
    }
  }
}

template <ET kFrom, ET kTo>
void ConvertLoop(const void* in, void* out, int64_t n) {
  const auto* x = static_cast<const typename Traits<kFrom>::Storage*>(in);
  auto* y = static_cast<typename Traits<kTo>::Storage*>(out);
  for (int64_t i = 0; i < n; ++i) y[i] = ConvertOne<kFrom, kTo>(x[i]);
}

// A kernel per destination type for a fixed source type.
template <ET kFrom>
absl::StatusOr<UnaryKernel> SelectConvertTo(ElementType to) {
  switch (to) {
#define HLOVM_EW_TYPE_(e) \
  case ET::e:             \
    return &ConvertLoop<kFrom, ET::e>;
    HLOVM_EW_TYPE_(kPred)
    HLOVM_EW_INT_TYPES(HLOVM_EW_TYPE_)
    HLOVM_EW_FLOAT_TYPES(HLOVM_EW_TYPE_)
    HLOVM_EW_COMPLEX_TYPES(HLOVM_EW_TYPE_)
#undef HLOVM_EW_TYPE_
    default:
      break;
  }
  return absl::UnimplementedError(absl::StrCat("No convert kernel from ", TypeName(kFrom),
                                               " to ", TypeName(to)));
}

}  // namespace elementwise_internal
}  // namespace hlovm

#endif  // HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_CONVERT_H_
