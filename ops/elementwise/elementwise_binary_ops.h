// Element semantics of the binary elementwise ops and compare (XLA's CPU
// backend rules), one struct per op: Apply<I, O>(a, b) maps two I::Compute
// values to one O::Compute, I and O being elementwise_internal::Traits.
#ifndef HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_BINARY_OPS_H_
#define HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_BINARY_OPS_H_

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>

#include "ops/elementwise/elementwise_hwy.h"
#include "ops/elementwise/elementwise_internal.h"

namespace hlovm {
namespace elementwise_internal {

struct AddOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute a, typename I::Compute b) {
    using C = typename I::Compute;
    if constexpr (std::is_same_v<C, bool>) {
      return a || b;
    } else if constexpr (std::is_integral_v<C>) {
      return WrapAdd(a, b);
    } else {
      return a + b;
    }
  }
};
struct SubOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute a, typename I::Compute b) {
    using C = typename I::Compute;
    if constexpr (std::is_integral_v<C>) {
      return WrapSub(a, b);
    } else {
      return a - b;
    }
  }
};
struct MulOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute a, typename I::Compute b) {
    using C = typename I::Compute;
    if constexpr (std::is_same_v<C, bool>) {
      return a && b;
    } else if constexpr (std::is_integral_v<C>) {
      return WrapMul(a, b);
    } else if constexpr (kIsComplex<C>) {
      return ComplexMul(a, b);
    } else {
      return a * b;
    }
  }
};
// Integers: x / 0 = -1 (all bits set), INT_MIN / -1 = INT_MIN.
struct DivOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute a, typename I::Compute b) {
    using C = typename I::Compute;
    if constexpr (std::is_integral_v<C>) {
      if (b == 0) return static_cast<C>(-1);
      if constexpr (I::kSigned) {
        if (b == -1) return WrapSub(C(0), a);
      }
      return static_cast<C>(a / b);
    } else if constexpr (kIsComplex<C>) {
      return ComplexDiv(a, b);
    } else {
      return a / b;
    }
  }
};
// Sign of the dividend. Integers: x % 0 = x, INT_MIN % -1 = 0.
struct RemOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute a, typename I::Compute b) {
    using C = typename I::Compute;
    if constexpr (std::is_integral_v<C>) {
      if (b == 0) return a;
      if constexpr (I::kSigned) {
        if (b == -1) return 0;
      }
      return static_cast<C>(a % b);
    } else {
      return std::fmod(a, b);
    }
  }
};
// Complex max/min order lexicographically (real part, then imaginary part);
// a NaN part wins.
template <class C>
inline bool ComplexLess(C a, C b) {
  if (std::isnan(a.real()) || std::isnan(a.imag())) return false;
  if (std::isnan(b.real()) || std::isnan(b.imag())) return true;
  return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
}

struct MaxOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute a, typename I::Compute b) {
    using C = typename I::Compute;
    if constexpr (std::is_integral_v<C>) {
      return a >= b ? a : b;
    } else if constexpr (kIsComplex<C>) {
      return ComplexLess(a, b) ? b : a;
    } else {
      return FloatMax(a, b);
    }
  }
};
struct MinOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute a, typename I::Compute b) {
    using C = typename I::Compute;
    if constexpr (std::is_integral_v<C>) {
      return a <= b ? a : b;
    } else if constexpr (kIsComplex<C>) {
      return ComplexLess(b, a) ? b : a;
    } else {
      return FloatMin(a, b);
    }
  }
};
struct AndOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute a, typename I::Compute b) {
    return a & b;
  }
};
struct OrOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute a, typename I::Compute b) {
    return a | b;
  }
};
struct XorOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute a, typename I::Compute b) {
    return a ^ b;
  }
};

// Shift counts are read as unsigned kBits-wide values; counts >= kBits give 0
// (left, logical right) or the sign fill (arithmetic right).
template <class I>
inline uint64_t ShiftCount(typename I::Compute b) {
  using U = std::make_unsigned_t<typename I::Compute>;
  uint64_t count = static_cast<U>(b);
  if constexpr (I::kBits < 64) count &= (uint64_t{1} << I::kBits) - 1;
  return count;
}
struct ShlOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute a, typename I::Compute b) {
    using C = typename I::Compute;
    using U = std::make_unsigned_t<C>;
    const uint64_t count = ShiftCount<I>(b);
    if (count >= I::kBits) return 0;
    return static_cast<C>(static_cast<U>(static_cast<U>(a) << count));
  }
};
struct ShrlOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute a, typename I::Compute b) {
    using C = typename I::Compute;
    const uint64_t count = ShiftCount<I>(b);
    if (count >= I::kBits) return 0;
    uint64_t bits = static_cast<std::make_unsigned_t<C>>(a);
    if constexpr (I::kBits < 64) bits &= (uint64_t{1} << I::kBits) - 1;
    return static_cast<C>(bits >> count);
  }
};
struct ShraOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute a, typename I::Compute b) {
    using C = typename I::Compute;
    using S = std::make_signed_t<C>;
    // The value read as a signed kBits-wide number.
    int64_t v = static_cast<S>(a);
    if constexpr (!I::kSigned && I::kBits < 64) {
      const int64_t sign = int64_t{1} << (I::kBits - 1);
      v = (static_cast<int64_t>(static_cast<uint64_t>(a)) ^ sign) - sign;
    }
    const uint64_t count = ShiftCount<I>(b);
    if (count >= I::kBits) return static_cast<C>(v < 0 ? -1 : 0);
    return static_cast<C>(v >> count);
  }
};

// Integer power by squaring over the exponent's low 6 bits, as XLA's CPU
// backend does; a negative exponent gives 1 for base 1 and 0 otherwise.
struct PowOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute a, typename I::Compute b) {
    using C = typename I::Compute;
    if constexpr (kIsComplex<C>) {
      return ComplexPow(a, b);
    } else if constexpr (std::is_integral_v<C>) {
      using S = std::make_signed_t<C>;
      int64_t exponent_signed = static_cast<S>(b);
      if constexpr (!I::kSigned && I::kBits < 64) {
        const int64_t sign = int64_t{1} << (I::kBits - 1);
        exponent_signed = (static_cast<int64_t>(static_cast<uint64_t>(b)) ^ sign) - sign;
      }
      uint64_t e = ShiftCount<I>(b);
      C acc = 1, base = a;
      for (int i = 0; i < 6; ++i) {
        if (e & 1) acc = WrapMul(acc, base);
        base = WrapMul(base, base);
        e >>= 1;
      }
      if (exponent_signed >= 0) return acc;
      return a == 1 ? C(1) : C(0);
    } else {
      return std::pow(a, b);
    }
  }
};

struct Atan2Op {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute a, typename I::Compute b) {
    using C = typename I::Compute;
    if constexpr (kIsComplex<C>) {
      // atan2(y, x) = -i * log((x + i*y) / sqrt(x*x + y*y))
      const C y = a, x = b;
      const C s = ComplexMul(x, x) + ComplexMul(y, y);
      const C root = std::sqrt(s);
      const C q = ComplexDiv(x + ComplexMul(C(0, 1), y), root);
      return ComplexMul(C(0, -1), ComplexLog(q));
    } else {
      return std::atan2(a, b);
    }
  }
};

// High half of the double-width product.
struct MulhiOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute a, typename I::Compute b) {
    using C = typename I::Compute;
    if constexpr (I::kBits == 64) {
      if constexpr (I::kSigned) {
        return static_cast<C>((static_cast<__int128>(a) * b) >> 64);
      } else {
        return static_cast<C>((static_cast<unsigned __int128>(a) * b) >> 64);
      }
    } else if constexpr (I::kSigned) {
      return static_cast<C>((static_cast<int64_t>(a) * b) >> I::kBits);
    } else {
      return static_cast<C>((static_cast<uint64_t>(a) * b) >> I::kBits);
    }
  }
};

struct ComplexOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute a, typename I::Compute b) {
    return {a, b};
  }
};

// Total order of floats: -NaN < -inf < ... < -0 < +0 < ... < inf < +NaN.
template <class F>
inline auto TotalOrderKey(F x) {
  using S = std::conditional_t<sizeof(F) == 4, int32_t, int64_t>;
  const S bits = std::bit_cast<S>(x);
  return bits < 0 ? static_cast<S>(bits ^ std::numeric_limits<S>::max()) : bits;
}

template <ComparisonDirection kDir, bool kTotalOrder>
struct CompareOp {
  template <class I, class O>
  static bool Apply(typename I::Compute a, typename I::Compute b) {
    using C = typename I::Compute;
    if constexpr (kIsComplex<C>) {
      if constexpr (kDir == ComparisonDirection::kEq) return a.real() == b.real() && a.imag() == b.imag();
      return a.real() != b.real() || a.imag() != b.imag();
    } else if constexpr (kTotalOrder && std::is_floating_point_v<C>) {
      return Compare(TotalOrderKey(a), TotalOrderKey(b));
    } else {
      return Compare(a, b);
    }
  }
  template <class T>
  static bool Compare(T a, T b) {
    switch (kDir) {
      case ComparisonDirection::kEq:
        return a == b;
      case ComparisonDirection::kNe:
        return a != b;
      case ComparisonDirection::kGe:
        return a >= b;
      case ComparisonDirection::kGt:
        return a > b;
      case ComparisonDirection::kLe:
        return a <= b;
      case ComparisonDirection::kLt:
        return a < b;
    }
    return false;
  }
};

// f32/f64 kernels per op: Highway where there is one, else the loop.
template <class Op>
inline constexpr BinaryKernel kF32Binary = &BinaryLoop<ET::kF32, ET::kF32, Op>;
template <>
inline constexpr BinaryKernel kF32Binary<AddOp> = &HwyAddF32;
template <>
inline constexpr BinaryKernel kF32Binary<SubOp> = &HwySubF32;
template <>
inline constexpr BinaryKernel kF32Binary<MulOp> = &HwyMulF32;
template <>
inline constexpr BinaryKernel kF32Binary<DivOp> = &HwyDivF32;
template <>
inline constexpr BinaryKernel kF32Binary<MaxOp> = &HwyMaxF32;
template <>
inline constexpr BinaryKernel kF32Binary<MinOp> = &HwyMinF32;

template <class Op>
inline constexpr BinaryKernel kF64Binary = &BinaryLoop<ET::kF64, ET::kF64, Op>;
template <>
inline constexpr BinaryKernel kF64Binary<AddOp> = &HwyAddF64;
template <>
inline constexpr BinaryKernel kF64Binary<SubOp> = &HwySubF64;
template <>
inline constexpr BinaryKernel kF64Binary<MulOp> = &HwyMulF64;
template <>
inline constexpr BinaryKernel kF64Binary<DivOp> = &HwyDivF64;
template <>
inline constexpr BinaryKernel kF64Binary<MaxOp> = &HwyMaxF64;
template <>
inline constexpr BinaryKernel kF64Binary<MinOp> = &HwyMinF64;

#define HLOVM_EW_FLOAT_BINARY_OPS(V)                                                         \
  V(kAdd, AddOp) V(kSubtract, SubOp) V(kMultiply, MulOp) V(kDivide, DivOp)                   \
  V(kRemainder, RemOp) V(kMaximum, MaxOp) V(kMinimum, MinOp) V(kPower, PowOp)                \
  V(kAtan2, Atan2Op)
#define HLOVM_EW_INT_BINARY_OPS(V)                                                           \
  V(kAdd, AddOp) V(kSubtract, SubOp) V(kMultiply, MulOp) V(kDivide, DivOp)                   \
  V(kRemainder, RemOp) V(kMaximum, MaxOp) V(kMinimum, MinOp) V(kPower, PowOp)                \
  V(kAnd, AndOp) V(kOr, OrOp) V(kXor, XorOp) V(kShiftLeft, ShlOp)                            \
  V(kShiftRightLogical, ShrlOp) V(kShiftRightArithmetic, ShraOp) V(kMulhi, MulhiOp)

}  // namespace elementwise_internal
}  // namespace hlovm

#endif  // HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_BINARY_OPS_H_
