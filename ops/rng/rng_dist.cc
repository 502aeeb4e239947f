#include "ops/rng/rng_dist.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "core/float_format.h"
#include "ops/rng/rng_bits.h"

namespace hlovm {
namespace {

bool IsHalfWidthFloat(ElementType t) { return t == ElementType::kF16 || t == ElementType::kBF16; }

// Philox bits for `n` elements of `bytes` (4 or 8) as rng-bit-generator
// lays them out, counter (lo, hi).
void PhiloxBits(uint64_t key, uint64_t lo, uint64_t hi, int bytes, int64_t n, uint8_t* out) {
  const int64_t dims[1] = {n};
  RngBitsPlan p = MakeRngBitsPlan(RngBitsAlgorithm::kPhilox, bytes, dims, 3).value();
  const uint64_t state[3] = {key, lo, hi};
  RunRngBits(p, state, out, 0, p.blocks);
}

template <typename F, typename U>
F UnitFromBits(U bits) {
  constexpr int kMantissa = std::numeric_limits<F>::digits - 1;
  constexpr int kShift = static_cast<int>(sizeof(U) * 8) - kMantissa;
  return static_cast<F>(bits >> kShift) * static_cast<F>(std::ldexp(1.0, -kMantissa));
}

template <typename F, typename U>
void UniformFloat(uint64_t key, uint64_t lo, uint64_t hi, int64_t n, F a, F b, F* out) {
  std::vector<U> bits(n);
  PhiloxBits(key, lo, hi, sizeof(U), n, reinterpret_cast<uint8_t*>(bits.data()));
  const F range = b - a;
  for (int64_t i = 0; i < n; ++i) {
    const F u = UnitFromBits<F>(bits[i]);
    const F scaled = u * range;
    out[i] = scaled + a;
  }
}

template <typename T, typename U>
void UniformInt(uint64_t key, uint64_t lo, uint64_t hi, int64_t n, T a, T b, T* out) {
  std::vector<U> bits(n);
  PhiloxBits(key, lo, hi, sizeof(U), n, reinterpret_cast<uint8_t*>(bits.data()));
  const U range = static_cast<U>(static_cast<U>(b) - static_cast<U>(a));
  for (int64_t i = 0; i < n; ++i) {
    const U d = range == 0 ? bits[i] : static_cast<U>(bits[i] % range);
    const U half = d >> 1;
    out[i] = static_cast<T>(static_cast<U>(static_cast<U>(a) + half + static_cast<U>(d - half)));
  }
}

template <typename F, typename U>
void Normal(const RngDistPlan& p, uint64_t key, uint64_t lo, uint64_t hi, F mean, F sigma, F* out) {
  const int64_t half = (p.dim + 1) / 2;
  const int64_t m = p.outer * half * 2 * p.inner;  // the split shape [outer, half, 2, inner]
  std::vector<U> bits(m);
  PhiloxBits(key, lo, hi, sizeof(U), m, reinterpret_cast<uint8_t*>(bits.data()));
  const F floor_u = static_cast<F>(1.0e-7f);
  const F two_pi = static_cast<F>(2.0f * M_PI);
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t j = 0; j < half; ++j) {
      for (int64_t k = 0; k < p.inner; ++k) {
        const int64_t src = ((o * half + j) * 2) * p.inner + k;
        const F x0 = UnitFromBits<F>(bits[src]);
        const F x1 = UnitFromBits<F>(bits[src + p.inner]);
        const F u1 = std::max(x0, floor_u);
        const F v1 = two_pi * x1;
        const F u2 = std::sqrt(static_cast<F>(-2) * std::log(u1));
        const int64_t dst = (o * p.dim + 2 * j) * p.inner + k;
        out[dst] = mean + sigma * (std::sin(v1) * u2);
        if (2 * j + 1 < p.dim) out[dst + p.inner] = mean + sigma * (std::cos(v1) * u2);
      }
    }
  }
}

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

float LoadNarrowAsFloat(ElementType t, const uint8_t* p) {
  const uint16_t bits = Load<uint16_t>(p);
  return t == ElementType::kF16 ? HalfToFloat(bits) : BFloat16ToFloat(bits);
}

}  // namespace

absl::StatusOr<RngDistPlan> MakeRngDistPlan(RandomDistribution distribution, ElementType type,
                                            absl::Span<const int64_t> dims) {
  RngDistPlan p;
  p.distribution = distribution;
  p.type = type;
  p.elements = 1;
  for (int64_t d : dims) p.elements *= d;
  const bool is_float =
      type == ElementType::kF32 || type == ElementType::kF64 || IsHalfWidthFloat(type);
  const bool is_int = type == ElementType::kS32 || type == ElementType::kU32 ||
                      type == ElementType::kS64 || type == ElementType::kU64;
  if (distribution == RandomDistribution::kNormal ? !is_float : !(is_float || is_int)) {
    return absl::UnimplementedError(absl::StrFormat(
        "rng with %s supports %s, not %s (as XLA's CPU backend).",
        distribution == RandomDistribution::kNormal ? "rng_normal" : "rng_uniform",
        distribution == RandomDistribution::kNormal ? "f16, bf16, f32 and f64"
                                                    : "f16, bf16, f32, f64, s32, u32, s64 and u64",
        ElementTypeName(type)));
  }
  const int width = IsHalfWidthFloat(type) ? 4 : ByteWidth(type);
  p.delta = static_cast<uint64_t>(p.elements) * (width / 4);
  if (distribution == RandomDistribution::kNormal) SplitForPairs(dims, &p.outer, &p.dim, &p.inner);
  return p;
}

void RunRngDist(const RngDistPlan& p, uint64_t key, uint64_t lo, uint64_t hi, const uint8_t* a,
                const uint8_t* b, uint8_t* out, int64_t begin, int64_t end) {
  const bool normal = p.distribution == RandomDistribution::kNormal;
  if (normal) {
    begin = 0;
    end = p.elements;
  }
  if (end <= begin) return;
  // Elements [begin, end): begin is a multiple of 4, so it starts a Philox
  // block for 32-bit and 64-bit elements alike.
  const int elem_width =
      (p.type == ElementType::kF64 || p.type == ElementType::kS64 || p.type == ElementType::kU64)
          ? 8
          : 4;
  const uint64_t first_block = static_cast<uint64_t>(begin) / (16 / elem_width);
  const uint64_t old_lo = lo;
  lo += first_block;
  if (lo < old_lo) ++hi;
  out += begin * ByteWidth(p.type);
  const int64_t n = end - begin;
  switch (p.type) {
    case ElementType::kF32: {
      float* o = reinterpret_cast<float*>(out);
      const float fa = Load<float>(a), fb = Load<float>(b);
      if (normal) return Normal<float, uint32_t>(p, key, lo, hi, fa, fb, o);
      return UniformFloat<float, uint32_t>(key, lo, hi, n, fa, fb, o);
    }
    case ElementType::kF64: {
      double* o = reinterpret_cast<double*>(out);
      const double fa = Load<double>(a), fb = Load<double>(b);
      if (normal) return Normal<double, uint64_t>(p, key, lo, hi, fa, fb, o);
      return UniformFloat<double, uint64_t>(key, lo, hi, n, fa, fb, o);
    }
    case ElementType::kF16:
    case ElementType::kBF16: {
      // As XLA: computed in f32 from the converted parameters, then rounded.
      std::vector<float> tmp(n);
      const float fa = LoadNarrowAsFloat(p.type, a), fb = LoadNarrowAsFloat(p.type, b);
      if (normal) {
        Normal<float, uint32_t>(p, key, lo, hi, fa, fb, tmp.data());
      } else {
        UniformFloat<float, uint32_t>(key, lo, hi, n, fa, fb, tmp.data());
      }
      uint16_t* o = reinterpret_cast<uint16_t*>(out);
      for (int64_t i = 0; i < n; ++i) {
        o[i] = p.type == ElementType::kF16 ? FloatToHalf(tmp[i]) : FloatToBFloat16(tmp[i]);
      }
      return;
    }
    case ElementType::kS32:
      return UniformInt<int32_t, uint32_t>(key, lo, hi, n, Load<int32_t>(a), Load<int32_t>(b),
                                           reinterpret_cast<int32_t*>(out));
    case ElementType::kU32:
      return UniformInt<uint32_t, uint32_t>(key, lo, hi, n, Load<uint32_t>(a), Load<uint32_t>(b),
                                            reinterpret_cast<uint32_t*>(out));
    case ElementType::kS64:
      return UniformInt<int64_t, uint64_t>(key, lo, hi, n, Load<int64_t>(a), Load<int64_t>(b),
                                           reinterpret_cast<int64_t*>(out));
    case ElementType::kU64:
      return UniformInt<uint64_t, uint64_t>(key, lo, hi, n, Load<uint64_t>(a), Load<uint64_t>(b),
                                            reinterpret_cast<uint64_t*>(out));
    default:
      return;
  }
}

}  // namespace hlovm
