// Element semantics of the unary elementwise ops (XLA's CPU backend rules),
// one struct per op: Apply<I, O>(x) maps I::Compute to O::Compute, where I and
// O are elementwise_internal::Traits of the operand and result types.
#ifndef HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_UNARY_OPS_H_
#define HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_UNARY_OPS_H_

#include <bit>
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "ops/elementwise/elementwise_hwy.h"
#include "ops/elementwise/elementwise_internal.h"

namespace hlovm {
namespace elementwise_internal {

template <class C>
using RealOf = std::conditional_t<kIsComplex<C>, typename C::value_type, C>;

// Declares an op whose result is f(x) for floats and complex numbers.
#define HLOVM_EW_FLOAT_UNARY_(Name, expr)          \
  struct Name {                                    \
    template <class I, class O>                    \
    static typename O::Compute Apply(typename I::Compute x) { \
      using std::abs;                              \
      return expr;                                 \
    }                                              \
  };

HLOVM_EW_FLOAT_UNARY_(CeilOp, std::ceil(x))
HLOVM_EW_FLOAT_UNARY_(FloorOp, std::floor(x))
HLOVM_EW_FLOAT_UNARY_(RoundAfzOp, std::round(x))
HLOVM_EW_FLOAT_UNARY_(RoundEvenOp, std::nearbyint(x))
HLOVM_EW_FLOAT_UNARY_(LogOp, std::log(x))
HLOVM_EW_FLOAT_UNARY_(SqrtOp, std::sqrt(x))
HLOVM_EW_FLOAT_UNARY_(SinOp, std::sin(x))
HLOVM_EW_FLOAT_UNARY_(CosOp, std::cos(x))
HLOVM_EW_FLOAT_UNARY_(TanOp, std::tan(x))
HLOVM_EW_FLOAT_UNARY_(TanhOp, std::tanh(x))
HLOVM_EW_FLOAT_UNARY_(ErfOp, std::erf(x))
HLOVM_EW_FLOAT_UNARY_(AcosOp, std::acos(x))
HLOVM_EW_FLOAT_UNARY_(AcoshOp, std::acosh(x))
HLOVM_EW_FLOAT_UNARY_(AsinOp, std::asin(x))
HLOVM_EW_FLOAT_UNARY_(AsinhOp, std::asinh(x))
HLOVM_EW_FLOAT_UNARY_(AtanOp, std::atan(x))
HLOVM_EW_FLOAT_UNARY_(AtanhOp, std::atanh(x))
HLOVM_EW_FLOAT_UNARY_(CoshOp, std::cosh(x))
HLOVM_EW_FLOAT_UNARY_(SinhOp, std::sinh(x))
#undef HLOVM_EW_FLOAT_UNARY_

// cbrt of f64 through long double: glibc's double cbrt is off by up to 3 ulp.
struct CbrtOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    using C = typename I::Compute;
    if constexpr (std::is_same_v<C, double>) {
      return static_cast<double>(std::cbrt(static_cast<long double>(x)));
    } else {
      return std::cbrt(x);
    }
  }
};

struct ExpOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    using C = typename I::Compute;
    if constexpr (kIsComplex<C>) {
      const auto e = std::exp(x.real());
      return {e * std::cos(x.imag()), e * std::sin(x.imag())};
    } else {
      return std::exp(x);
    }
  }
};

struct Expm1Op {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    using C = typename I::Compute;
    if constexpr (kIsComplex<C>) {
      const auto e = std::exp(x.real());
      return {e * std::cos(x.imag()) - 1, e * std::sin(x.imag())};
    } else {
      return std::expm1(x);
    }
  }
};

struct Log1pOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    using C = typename I::Compute;
    if constexpr (kIsComplex<C>) {
      // log(1 + z) = 0.5 * log1p(a*a + 2a + b*b) + i * atan2(b, a + 1), in
      // double for c64: the sum cancels badly near |1 + z| = 1.
      using F = typename C::value_type;
      const double a = x.real(), b = x.imag();
      return {static_cast<F>(0.5 * std::log1p(a * a + 2 * a + b * b)),
              static_cast<F>(std::atan2(b, a + 1))};
    } else {
      return std::log1p(x);
    }
  }
};

// logistic(x) = 1 / (1 + exp(-x)), the expansion XLA's CPU backend uses.
struct LogisticOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    using C = typename I::Compute;
    if constexpr (kIsComplex<C>) {
      const C e = ExpOp::Apply<I, O>(-x);
      return ComplexDiv(C(1), C(1) + e);
    } else {
      return C(1) / (C(1) + std::exp(-x));
    }
  }
};

struct RsqrtOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    using C = typename I::Compute;
    if constexpr (kIsComplex<C>) {
      using F = typename C::value_type;
      const F a = x.real(), b = x.imag();
      const F inf = std::numeric_limits<F>::infinity();
      const F r = F(1) / std::sqrt(ComplexAbs(x));
      const F t = std::atan2(b, a) * F(-0.5);
      F re = r * std::cos(t), im = r * std::sin(t);
      if (a == 0 && b == 0) return {inf, std::numeric_limits<F>::quiet_NaN()};
      if ((std::isinf(b) && std::isnan(a)) || std::isinf(a)) {
        re = std::copysign(F(0), a);
        im = -std::copysign(F(0), b);
      }
      return {re, im};
    } else {
      return C(1) / std::sqrt(x);
    }
  }
};

struct ComplexSqrtOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    using C = typename I::Compute;
    using F = typename C::value_type;
    const F a = x.real(), b = x.imag();
    const F inf = std::numeric_limits<F>::infinity();
    const F abs_a = std::fabs(a), abs_b = std::fabs(b);
    const F mx = FloatMax(abs_a, abs_b), mn = FloatMin(abs_a, abs_b);
    const F div = mn / mx;
    F r = std::sqrt(mx) * std::pow(F(1) + div * div, F(0.25));
    if (std::isnan(r)) r = mn;
    if (r == 0) return {0, 0};
    const F t = std::atan2(b, a) * F(0.5);
    const F c = std::cos(t), s = std::sin(t);
    F re, im;
    if (abs_b == inf || a == inf) {
      re = inf;
    } else if (a == -inf && abs_b != inf) {
      re = 0;
    } else {
      re = r * c;
    }
    if (abs_b == inf || a == -inf) {
      im = std::copysign(inf, b);
    } else if (std::isnan(r)) {
      im = std::numeric_limits<F>::quiet_NaN();
    } else {
      im = s == 0 ? s : r * s;
    }
    return {re, im};
  }
};

struct ComplexCbrtOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    using C = typename I::Compute;
    using F = typename C::value_type;
    return ComplexPow(x, C(F(1.0 / 3.0), F(0)));
  }
};

struct ComplexLogOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    return ComplexLog(x);
  }
};

struct ComplexSinOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    using F = typename I::Compute::value_type;
    const F a = x.real(), b = x.imag();
    const F e = std::exp(b);
    const F half_e = F(0.5) * e, half_ie = F(0.5) / e;
    return {std::sin(a) * (half_e + half_ie), std::cos(a) * (half_e - half_ie)};
  }
};

struct ComplexCosOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    using F = typename I::Compute::value_type;
    const F a = x.real(), b = x.imag();
    const F e = std::exp(b);
    const F half_e = F(0.5) * e, half_ie = F(0.5) / e;
    return {std::cos(a) * (half_ie + half_e), std::sin(a) * (half_ie - half_e)};
  }
};

struct ComplexTanhOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    return ComplexTanh(x);
  }
};

// Functions XLA defines on complex numbers without a formula of its own.
#define HLOVM_EW_STD_COMPLEX_(Name, fn)                       \
  struct Name {                                               \
    template <class I, class O>                               \
    static typename O::Compute Apply(typename I::Compute x) { \
      return fn(x);                                           \
    }                                                         \
  };
HLOVM_EW_STD_COMPLEX_(ComplexTanOp, std::tan)
HLOVM_EW_STD_COMPLEX_(ComplexAcosOp, std::acos)
HLOVM_EW_STD_COMPLEX_(ComplexAcoshOp, std::acosh)
HLOVM_EW_STD_COMPLEX_(ComplexAsinOp, std::asin)
HLOVM_EW_STD_COMPLEX_(ComplexAsinhOp, std::asinh)
HLOVM_EW_STD_COMPLEX_(ComplexAtanOp, std::atan)
HLOVM_EW_STD_COMPLEX_(ComplexAtanhOp, std::atanh)
HLOVM_EW_STD_COMPLEX_(ComplexCoshOp, std::cosh)
HLOVM_EW_STD_COMPLEX_(ComplexSinhOp, std::sinh)
#undef HLOVM_EW_STD_COMPLEX_

struct NegateOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    using C = typename I::Compute;
    if constexpr (std::is_integral_v<C>) {
      return WrapSub(C(0), x);
    } else {
      return -x;
    }
  }
};

struct AbsOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    using C = typename I::Compute;
    if constexpr (kIsComplex<C>) {
      return ComplexAbs(x);
    } else if constexpr (std::is_integral_v<C>) {
      if constexpr (std::is_signed_v<C>) return x < 0 ? WrapSub(C(0), x) : x;
      return x;
    } else {
      return std::fabs(x);
    }
  }
};

// sign: -1, 0 or 1 for integers; for floats NaN stays NaN and zeros keep
// their sign; for complex numbers x / |x| (0 for 0).
struct SignOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    using C = typename I::Compute;
    if constexpr (kIsComplex<C>) {
      const auto r = ComplexAbs(x);
      if (r == 0) return C(0);
      return {x.real() / r, x.imag() / r};
    } else if constexpr (std::is_integral_v<C>) {
      if constexpr (std::is_signed_v<C>) return x < 0 ? C(-1) : (x == 0 ? C(0) : C(1));
      return x == 0 ? C(0) : C(1);
    } else {
      if (std::isnan(x)) return x;
      return std::copysign(x != 0 ? C(1) : C(0), x);
    }
  }
};

struct NotOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    using C = typename I::Compute;
    if constexpr (std::is_same_v<C, bool>) {
      return !x;
    } else {
      return static_cast<C>(~x);
    }
  }
};

// The kBits-wide pattern of an integer as an unsigned 64-bit value.
template <class I>
inline uint64_t Pattern(typename I::Compute x) {
  using U = std::make_unsigned_t<typename I::Compute>;
  const uint64_t bits = static_cast<U>(x);
  if constexpr (I::kBits == 64) {
    return bits;
  } else {
    return bits & ((uint64_t{1} << I::kBits) - 1);
  }
}

struct ClzOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    return static_cast<typename O::Compute>(std::countl_zero(Pattern<I>(x)) - (64 - I::kBits));
  }
};

struct PopcntOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    return static_cast<typename O::Compute>(std::popcount(Pattern<I>(x)));
  }
};

struct IsFiniteOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    return std::isfinite(x);
  }
};
struct RealOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    if constexpr (kIsComplex<typename I::Compute>) {
      return x.real();
    } else {
      return x;
    }
  }
};
struct ImagOp {
  template <class I, class O>
  static typename O::Compute Apply(typename I::Compute x) {
    if constexpr (kIsComplex<typename I::Compute>) {
      return x.imag();
    } else {
      return 0;
    }
  }
};

//===----------------------------------------------------------------------===//
// f32 kernels per op: the Highway kernel where there is one, else the loop.
//===----------------------------------------------------------------------===//

template <class Op>
inline constexpr UnaryKernel kF32Unary = &UnaryLoop<ET::kF32, ET::kF32, Op>;
template <>
inline constexpr UnaryKernel kF32Unary<AbsOp> = &HwyAbsF32;
template <>
inline constexpr UnaryKernel kF32Unary<NegateOp> = &HwyNegF32;
template <>
inline constexpr UnaryKernel kF32Unary<SqrtOp> = &HwySqrtF32;
template <>
inline constexpr UnaryKernel kF32Unary<RsqrtOp> = &HwyRsqrtF32;
template <>
inline constexpr UnaryKernel kF32Unary<FloorOp> = &HwyFloorF32;
template <>
inline constexpr UnaryKernel kF32Unary<CeilOp> = &HwyCeilF32;
template <>
inline constexpr UnaryKernel kF32Unary<RoundEvenOp> = &HwyRoundEvenF32;
template <>
inline constexpr UnaryKernel kF32Unary<ExpOp> = &HwyExpF32K;
template <>
inline constexpr UnaryKernel kF32Unary<LogisticOp> = &HwyLogisticF32;
template <>
inline constexpr UnaryKernel kF32Unary<TanhOp> = &HwyTanhF32;
template <>
inline constexpr UnaryKernel kF32Unary<LogOp> = &HwyLogF32;
template <>
inline constexpr UnaryKernel kF32Unary<Log1pOp> = &HwyLog1pF32;
template <>
inline constexpr UnaryKernel kF32Unary<Expm1Op> = &HwyExpm1F32;
template <>
inline constexpr UnaryKernel kF32Unary<ErfOp> = &HwyErfF32;
template <>
inline constexpr UnaryKernel kF32Unary<SinOp> = &HwySinF32;
template <>
inline constexpr UnaryKernel kF32Unary<CosOp> = &HwyCosF32;

template <class Op>
inline constexpr UnaryKernel kF64Unary = &UnaryLoop<ET::kF64, ET::kF64, Op>;
template <>
inline constexpr UnaryKernel kF64Unary<AbsOp> = &HwyAbsF64;
template <>
inline constexpr UnaryKernel kF64Unary<NegateOp> = &HwyNegF64;
template <>
inline constexpr UnaryKernel kF64Unary<SqrtOp> = &HwySqrtF64;
template <>
inline constexpr UnaryKernel kF64Unary<RsqrtOp> = &HwyRsqrtF64;
template <>
inline constexpr UnaryKernel kF64Unary<FloorOp> = &HwyFloorF64;
template <>
inline constexpr UnaryKernel kF64Unary<CeilOp> = &HwyCeilF64;
template <>
inline constexpr UnaryKernel kF64Unary<RoundEvenOp> = &HwyRoundEvenF64;
template <>
inline constexpr UnaryKernel kF64Unary<TanhOp> = &HwyTanhF64;

// The float unary ops: V(opcode, op struct).
#define HLOVM_EW_FLOAT_UNARY_OPS(V)                                                      \
  V(kAbs, AbsOp) V(kCeil, CeilOp) V(kFloor, FloorOp) V(kRoundNearestAfz, RoundAfzOp)     \
  V(kRoundNearestEven, RoundEvenOp) V(kSign, SignOp) V(kNegate, NegateOp) V(kExp, ExpOp) \
  V(kExpm1, Expm1Op) V(kLog, LogOp) V(kLog1p, Log1pOp) V(kLogistic, LogisticOp)          \
  V(kSqrt, SqrtOp) V(kRsqrt, RsqrtOp) V(kCbrt, CbrtOp) V(kSin, SinOp) V(kCos, CosOp)     \
  V(kTan, TanOp) V(kTanh, TanhOp) V(kErf, ErfOp) V(kAcos, AcosOp) V(kAcosh, AcoshOp)     \
  V(kAsin, AsinOp) V(kAsinh, AsinhOp) V(kAtan, AtanOp) V(kAtanh, AtanhOp)                \
  V(kCosh, CoshOp) V(kSinh, SinhOp)

}  // namespace elementwise_internal
}  // namespace hlovm

#endif  // HLOVM_OPS_ELEMENTWISE_ELEMENTWISE_UNARY_OPS_H_
