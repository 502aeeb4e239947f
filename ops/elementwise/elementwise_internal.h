// Internals of the elementwise kernels: how each element type is stored and
// computed on (Traits), the element semantics of every op (XLA's CPU rules),
// and the plain loops that apply them. Kernels for rare types are these loops
// instantiated per type; hot types use the Highway kernels of
// elementwise_hwy.h. Not part of the public interface (see elementwise.h).
#ifndef HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_INTERNAL_H_
#define HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_INTERNAL_H_

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/element_type.h"
#include "core/float_format.h"
#include "core/hlo_ir.h"
#include "core/hlo_opcode.h"
#include "ops/common/float_minmax.h"
#include "ops/elementwise/elementwise.h"

namespace hlovm {
namespace elementwise_internal {

using ET = ElementType;

// Names as absl::string_view for absl::StrCat (this Abseil's string_view is
// its own type).
inline absl::string_view OpName(HloOpcode opcode) {
  const std::string_view s = HloOpcodeName(opcode);
  return absl::string_view(s.data(), s.size());
}
inline absl::string_view TypeName(ElementType type) {
  const std::string_view s = ElementTypeName(type);
  return absl::string_view(s.data(), s.size());
}

template <class T>
struct IsComplexT : std::false_type {};
template <class T>
struct IsComplexT<std::complex<T>> : std::true_type {};
template <class T>
inline constexpr bool kIsComplex = IsComplexT<T>::value;

//===----------------------------------------------------------------------===//
// Storage and compute types
//===----------------------------------------------------------------------===//

// Traits<T>: Storage is how one element sits in a buffer; Compute is the type
// ops work on (f32 for the narrow floats, as XLA's CPU backend upcasts them;
// int8/uint8 for the sub-byte integers, wrapped back to kBits on Store).
template <ET kType>
struct Traits;

template <>
struct Traits<ET::kPred> {
  using Storage = uint8_t;
  using Compute = bool;
  static constexpr int kBits = 1;
  static constexpr bool kSigned = false;
  static Compute Load(Storage x) { return x != 0; }
  static Storage Store(Compute x) { return x ? 1 : 0; }
};

template <class S, int kB, bool kS>
struct IntTraits {
  using Storage = S;
  using Compute = S;
  static constexpr int kBits = kB;
  static constexpr bool kSigned = kS;
  // Sub-byte values are kept in the low bits; signed ones sign-extended.
  static Compute Wrap(Compute x) {
    if constexpr (kB == 8 * sizeof(S)) {
      return x;
    } else if constexpr (kS) {
      return static_cast<S>(static_cast<S>(static_cast<uint8_t>(x) << (8 - kB)) >> (8 - kB));
    } else {
      return static_cast<S>(x & ((1u << kB) - 1));
    }
  }
  static Compute Load(Storage x) { return Wrap(x); }
  static Storage Store(Compute x) { return Wrap(x); }
};

template <>
struct Traits<ET::kS2> : IntTraits<int8_t, 2, true> {};
template <>
struct Traits<ET::kS4> : IntTraits<int8_t, 4, true> {};
template <>
struct Traits<ET::kS8> : IntTraits<int8_t, 8, true> {};
template <>
struct Traits<ET::kS16> : IntTraits<int16_t, 16, true> {};
template <>
struct Traits<ET::kS32> : IntTraits<int32_t, 32, true> {};
template <>
struct Traits<ET::kS64> : IntTraits<int64_t, 64, true> {};
template <>
struct Traits<ET::kU2> : IntTraits<uint8_t, 2, false> {};
template <>
struct Traits<ET::kU4> : IntTraits<uint8_t, 4, false> {};
template <>
struct Traits<ET::kU8> : IntTraits<uint8_t, 8, false> {};
template <>
struct Traits<ET::kU16> : IntTraits<uint16_t, 16, false> {};
template <>
struct Traits<ET::kU32> : IntTraits<uint32_t, 32, false> {};
template <>
struct Traits<ET::kU64> : IntTraits<uint64_t, 64, false> {};

template <class F>
struct WideFloatTraits {
  using Storage = F;
  using Compute = F;
  static constexpr int kBits = 8 * sizeof(F);
  static constexpr bool kSigned = true;
  static Compute Load(Storage x) { return x; }
  static Storage Store(Compute x) { return x; }
};
template <>
struct Traits<ET::kF32> : WideFloatTraits<float> {};
template <>
struct Traits<ET::kF64> : WideFloatTraits<double> {};

template <>
struct Traits<ET::kF16> {
  using Storage = uint16_t;
  using Compute = float;
  static constexpr int kBits = 16;
  static constexpr bool kSigned = true;
  static Compute Load(Storage x) { return HalfToFloat(x); }
  static Storage Store(Compute x) { return FloatToHalf(x); }
};
template <>
struct Traits<ET::kBF16> {
  using Storage = uint16_t;
  using Compute = float;
  static constexpr int kBits = 16;
  static constexpr bool kSigned = true;
  static Compute Load(Storage x) { return BFloat16ToFloat(x); }
  static Storage Store(Compute x) { return FloatToBFloat16(x); }
};

// Decoded values of every bit pattern of a small float type (built once).
template <ET kType>
const float* SmallFloatTable() {
  static const float* table = [] {
    static float values[256];
    const int bits = BitWidth(kType);
    for (int i = 0; i < 256; ++i) {
      values[i] = static_cast<float>(DecodeNarrowFloat(kType, static_cast<uint32_t>(i) & ((1u << bits) - 1)));
    }
    return values;
  }();
  return table;
}

template <ET kType>
struct SmallFloatTraits {
  using Storage = uint8_t;
  using Compute = float;
  static constexpr int kBits = 8;
  static constexpr bool kSigned = true;
  static Compute Load(Storage x) { return SmallFloatTable<kType>()[x]; }
  static Storage Store(Compute x) {
    return static_cast<Storage>(EncodeNarrowFloat(kType, static_cast<double>(x)));
  }
};
#define HLOVM_SMALL_FLOAT_TRAITS_(e) \
  template <>                        \
  struct Traits<ET::e> : SmallFloatTraits<ET::e> {};
HLOVM_SMALL_FLOAT_TRAITS_(kF8E5M2)
HLOVM_SMALL_FLOAT_TRAITS_(kF8E4M3)
HLOVM_SMALL_FLOAT_TRAITS_(kF8E4M3FN)
HLOVM_SMALL_FLOAT_TRAITS_(kF8E4M3FNUZ)
HLOVM_SMALL_FLOAT_TRAITS_(kF8E4M3B11FNUZ)
HLOVM_SMALL_FLOAT_TRAITS_(kF8E5M2FNUZ)
HLOVM_SMALL_FLOAT_TRAITS_(kF8E3M4)
HLOVM_SMALL_FLOAT_TRAITS_(kF8E8M0FNU)
HLOVM_SMALL_FLOAT_TRAITS_(kF6E2M3FN)
HLOVM_SMALL_FLOAT_TRAITS_(kF6E3M2FN)
HLOVM_SMALL_FLOAT_TRAITS_(kF4E2M1FN)
#undef HLOVM_SMALL_FLOAT_TRAITS_

template <class F>
struct ComplexTraits {
  using Storage = std::complex<F>;
  using Compute = std::complex<F>;
  static constexpr int kBits = 16 * sizeof(F);
  static constexpr bool kSigned = true;
  static Compute Load(Storage x) { return x; }
  static Storage Store(Compute x) { return x; }
};
template <>
struct Traits<ET::kC64> : ComplexTraits<float> {};
template <>
struct Traits<ET::kC128> : ComplexTraits<double> {};

// Invokes MACRO(e) for each type group.
#define HLOVM_EW_SIGNED_TYPES(V) V(kS2) V(kS4) V(kS8) V(kS16) V(kS32) V(kS64)
#define HLOVM_EW_UNSIGNED_TYPES(V) V(kU2) V(kU4) V(kU8) V(kU16) V(kU32) V(kU64)
#define HLOVM_EW_INT_TYPES(V) HLOVM_EW_SIGNED_TYPES(V) HLOVM_EW_UNSIGNED_TYPES(V)
#define HLOVM_EW_SMALL_FLOAT_TYPES(V)                                                    \
  V(kF8E5M2) V(kF8E4M3) V(kF8E4M3FN) V(kF8E4M3FNUZ) V(kF8E4M3B11FNUZ) V(kF8E5M2FNUZ) \
  V(kF8E3M4) V(kF8E8M0FNU) V(kF6E2M3FN) V(kF6E3M2FN) V(kF4E2M1FN)
#define HLOVM_EW_NARROW_FLOAT_TYPES(V) V(kF16) V(kBF16) HLOVM_EW_SMALL_FLOAT_TYPES(V)
#define HLOVM_EW_FLOAT_TYPES(V) V(kF32) V(kF64) HLOVM_EW_NARROW_FLOAT_TYPES(V)
#define HLOVM_EW_COMPLEX_TYPES(V) V(kC64) V(kC128)
#define HLOVM_EW_ALL_TYPES(V) \
  V(kPred) HLOVM_EW_INT_TYPES(V) HLOVM_EW_FLOAT_TYPES(V) HLOVM_EW_COMPLEX_TYPES(V)

//===----------------------------------------------------------------------===//
// Element semantics shared by several ops
//===----------------------------------------------------------------------===//

// |a + bi| without overflow, as XLA computes it.
template <class F>
inline F ComplexAbs(std::complex<F> z) {
  F a = std::fabs(z.real()), b = std::fabs(z.imag());
  F mx = FloatMax(a, b), mn = FloatMin(a, b);
  F div = mn / mx;
  F result = mx * std::sqrt(F(1) + div * div);
  return std::isnan(result) ? mn : result;
}

// Plain (a*c - b*d, a*d + b*c), as XLA multiplies complex numbers.
template <class F>
inline std::complex<F> ComplexMul(std::complex<F> x, std::complex<F> y) {
  return {x.real() * y.real() - x.imag() * y.imag(), x.real() * y.imag() + x.imag() * y.real()};
}

// Smith's algorithm with XLA's handling of zero and infinite operands.
template <class F>
inline std::complex<F> ComplexDiv(std::complex<F> x, std::complex<F> y) {
  const F ar = x.real(), ai = x.imag(), br = y.real(), bi = y.imag();
  F cr, ci;
  if (std::fabs(br) < std::fabs(bi)) {
    F ratio = br / bi, denom = bi + br * ratio;
    cr = (ratio * ar + ai) / denom;
    ci = (ratio * ai - ar) / denom;
  } else {
    F ratio = bi / br, denom = br + bi * ratio;
    cr = (ratio * ai + ar) / denom;
    ci = (ai - ratio * ar) / denom;
  }
  if (!(std::isnan(cr) && std::isnan(ci))) return {cr, ci};
  const F inf = std::numeric_limits<F>::infinity();
  if (br == 0 && bi == 0 && (!std::isnan(ar) || !std::isnan(ai))) {
    F s = std::copysign(inf, br);
    return {s * ar, s * ai};
  }
  const bool a_inf = std::isinf(ar) || std::isinf(ai);
  const bool b_finite = std::isfinite(br) && std::isfinite(bi);
  if (a_inf && b_finite) {
    F rr = std::copysign(std::isinf(ar) ? F(1) : F(0), ar);
    F ri = std::copysign(std::isinf(ai) ? F(1) : F(0), ai);
    return {inf * (rr * br + ri * bi), inf * (ri * br - rr * bi)};
  }
  const bool b_inf = std::isinf(br) || std::isinf(bi);
  const bool a_finite = std::isfinite(ar) && std::isfinite(ai);
  if (b_inf && a_finite) {
    F rr = std::copysign(std::isinf(br) ? F(1) : F(0), br);
    F ri = std::copysign(std::isinf(bi) ? F(1) : F(0), bi);
    return {F(0) * (ar * rr + ai * ri), F(0) * (ai * rr - ar * ri)};
  }
  return {cr, ci};
}

// Integer ops in the unsigned domain so that wrap-around is defined.
template <class T>
using UnsignedOf = std::make_unsigned_t<T>;

template <class T>
inline T WrapAdd(T a, T b) {
  return static_cast<T>(static_cast<UnsignedOf<T>>(a) + static_cast<UnsignedOf<T>>(b));
}
template <class T>
inline T WrapSub(T a, T b) {
  return static_cast<T>(static_cast<UnsignedOf<T>>(a) - static_cast<UnsignedOf<T>>(b));
}
template <class T>
inline T WrapMul(T a, T b) {
  // Promote to at least unsigned int so that uint16*uint16 cannot overflow int.
  using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, UnsignedOf<T>>;
  return static_cast<T>(static_cast<U>(static_cast<UnsignedOf<T>>(a)) *
                        static_cast<U>(static_cast<UnsignedOf<T>>(b)));
}

// Complex transcendental helpers (XLA's formulas where they matter).
template <class F>
inline std::complex<F> ComplexLog(std::complex<F> z) {
  return {std::log(ComplexAbs(z)), std::atan2(z.imag(), z.real())};
}

template <class F>
inline std::complex<F> ComplexPow(std::complex<F> x, std::complex<F> y) {
  const F a = x.real(), b = x.imag(), c = y.real(), d = y.imag();
  const F aa_p_bb = a * a + b * b;
  if (aa_p_bb == 0 && d == 0 && c >= 0) return {c == 0 ? F(1) : F(0), F(0)};
  const F arg = std::atan2(b, a);
  const F coeff = std::pow(aa_p_bb, F(0.5) * c) * std::exp(-d * arg);
  const F q = c * arg + F(0.5) * d * std::log(aa_p_bb);
  return {coeff * std::cos(q), coeff * std::sin(q)};
}

template <class F>
inline std::complex<F> ComplexTanh(std::complex<F> z) {
  const F a = z.real(), b = z.imag();
  const F exp_2a_m1 = std::expm1(a + a), exp_neg_2a_m1 = std::expm1(-(a + a));
  const F real_num = exp_2a_m1 - exp_neg_2a_m1;
  const F cos_b = std::cos(b), sin_b = std::sin(b);
  const F two_cos_2b_p2 = cos_b * cos_b * F(4);
  const F imag_num = F(4) * (cos_b * sin_b);
  const F a_sq = a * a;
  const F exp_sum_m2 = a_sq < F(1e-8) ? a_sq : exp_2a_m1 + exp_neg_2a_m1;
  const F denom = exp_sum_m2 + two_cos_2b_p2;
  F real = std::isinf(exp_sum_m2) && exp_sum_m2 > 0 ? std::copysign(F(1), a) : real_num / denom;
  F imag = imag_num / denom;
  const bool a_inf = std::isinf(a);
  const bool sin_nan = std::isnan(imag_num);
  if (sin_nan && !a_inf) real = std::numeric_limits<F>::quiet_NaN();
  if (b == 0 || (a_inf && sin_nan)) imag = 0;
  return {real, imag};
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

// Op::Apply<I, O>(x) maps one I::Compute to one O::Compute.
template <ET kIn, ET kOut, class Op>
void UnaryLoop(const void* in, void* out, int64_t n) {
  using I = Traits<kIn>;
  using O = Traits<kOut>;
  const auto* x = static_cast<const typename I::Storage*>(in);
  auto* y = static_cast<typename O::Storage*>(out);
  for (int64_t i = 0; i < n; ++i) y[i] = O::Store(Op::template Apply<I, O>(I::Load(x[i])));
}

template <ET kIn, ET kOut, class Op>
void BinaryLoop(const void* lhs, const void* rhs, void* out, int64_t n) {
  using I = Traits<kIn>;
  using O = Traits<kOut>;
  const auto* a = static_cast<const typename I::Storage*>(lhs);
  const auto* b = static_cast<const typename I::Storage*>(rhs);
  auto* y = static_cast<typename O::Storage*>(out);
  for (int64_t i = 0; i < n; ++i) {
    y[i] = O::Store(Op::template Apply<I, O>(I::Load(a[i]), I::Load(b[i])));
  }
}

// Narrow float types computed through an f32 kernel, a block at a time: XLA's
// CPU backend upcasts f16, bf16 and the small floats to f32 per op and rounds
// the result back.
inline constexpr int64_t kWidenBlock = 256;

template <ET kType>
void DecodeBlock(const void* in, float* out, int64_t n) {
  using T = Traits<kType>;
  const auto* x = static_cast<const typename T::Storage*>(in);
  for (int64_t i = 0; i < n; ++i) out[i] = T::Load(x[i]);
}
template <ET kType>
void EncodeBlock(const float* in, void* out, int64_t n) {
  using T = Traits<kType>;
  auto* y = static_cast<typename T::Storage*>(out);
  for (int64_t i = 0; i < n; ++i) y[i] = T::Store(in[i]);
}

// Block converters between a narrow type and f32 (vectorized for f16/bf16).
void DecodeF16Block(const void* in, float* out, int64_t n);
void EncodeF16Block(const float* in, void* out, int64_t n);
void DecodeBF16Block(const void* in, float* out, int64_t n);
void EncodeBF16Block(const float* in, void* out, int64_t n);

template <ET kType>
inline void Decode(const void* in, float* out, int64_t n) {
  if constexpr (kType == ET::kF16) {
    DecodeF16Block(in, out, n);
  } else if constexpr (kType == ET::kBF16) {
    DecodeBF16Block(in, out, n);
  } else {
    DecodeBlock<kType>(in, out, n);
  }
}
template <ET kType>
inline void Encode(const float* in, void* out, int64_t n) {
  if constexpr (kType == ET::kF16) {
    EncodeF16Block(in, out, n);
  } else if constexpr (kType == ET::kBF16) {
    EncodeBF16Block(in, out, n);
  } else {
    EncodeBlock<kType>(in, out, n);
  }
}

template <ET kType, UnaryKernel kF32Kernel>
void WidenUnary(const void* in, void* out, int64_t n) {
  const int64_t size = ByteWidth(kType);
  float buf[kWidenBlock];
  for (int64_t i = 0; i < n; i += kWidenBlock) {
    const int64_t m = std::min(kWidenBlock, n - i);
    Decode<kType>(static_cast<const char*>(in) + i * size, buf, m);
    kF32Kernel(buf, buf, m);
    Encode<kType>(buf, static_cast<char*>(out) + i * size, m);
  }
}

template <ET kType, BinaryKernel kF32Kernel>
void WidenBinary(const void* lhs, const void* rhs, void* out, int64_t n) {
  const int64_t size = ByteWidth(kType);
  float a[kWidenBlock], b[kWidenBlock];
  for (int64_t i = 0; i < n; i += kWidenBlock) {
    const int64_t m = std::min(kWidenBlock, n - i);
    Decode<kType>(static_cast<const char*>(lhs) + i * size, a, m);
    Decode<kType>(static_cast<const char*>(rhs) + i * size, b, m);
    kF32Kernel(a, b, a, m);
    Encode<kType>(a, static_cast<char*>(out) + i * size, m);
  }
}

//===----------------------------------------------------------------------===//
// Per-family selectors (one small .cc file each)
//===----------------------------------------------------------------------===//

absl::StatusOr<UnaryKernel> SelectUnaryF32(HloOpcode opcode);
absl::StatusOr<UnaryKernel> SelectUnaryF64(HloOpcode opcode);
absl::StatusOr<UnaryKernel> SelectUnaryNarrowFloat(HloOpcode opcode, ElementType type);
absl::StatusOr<UnaryKernel> SelectUnaryInt(HloOpcode opcode, ElementType type);
absl::StatusOr<UnaryKernel> SelectUnaryComplex(HloOpcode opcode, ElementType type,
                                               ElementType result);
// is-finite, real, imag, abs of complex: ops whose result type differs.
absl::StatusOr<UnaryKernel> SelectUnaryMixed(HloOpcode opcode, ElementType operand,
                                             ElementType result);

absl::StatusOr<BinaryKernel> SelectBinaryFloat(HloOpcode opcode, ElementType type);
absl::StatusOr<BinaryKernel> SelectBinaryInt(HloOpcode opcode, ElementType type);
absl::StatusOr<BinaryKernel> SelectBinaryComplex(HloOpcode opcode, ElementType type);
absl::StatusOr<BinaryKernel> SelectComplexConstruct(ElementType component);
absl::StatusOr<BinaryKernel> SelectCompare(ElementType type, ComparisonDirection direction,
                                           ComparisonType comparison_type);

absl::StatusOr<UnaryKernel> SelectConvertFromInt(ElementType from, ElementType to);
absl::StatusOr<UnaryKernel> SelectConvertFromFloat(ElementType from, ElementType to);
absl::StatusOr<UnaryKernel> SelectConvertFromSmallFloat(ElementType from, ElementType to);
absl::StatusOr<UnaryKernel> SelectConvertFromComplex(ElementType from, ElementType to);

}  // namespace elementwise_internal
}  // namespace hlovm

#endif  // HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_INTERNAL_H_
