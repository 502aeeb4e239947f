#include "ops/elementwise/stochastic_convert.h"

#include <cmath>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/float_format.h"

namespace hlovm {
namespace {

uint64_t LoadBits(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  std::memcpy(&v, p, bytes);
  return v;
}

double ToDouble(ElementType type, uint64_t bits) {
  switch (type) {
    case ElementType::kF32: {
      float f;
      uint32_t b = static_cast<uint32_t>(bits);
      std::memcpy(&f, &b, 4);
      return f;
    }
    case ElementType::kF64: {
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
    default:
      return DecodeNarrowFloat(type, static_cast<uint32_t>(bits));
  }
}

// `value` rounded to the float type `type` (round to nearest even).
double RoundTo(ElementType type, double value) {
  switch (type) {
    case ElementType::kF32: return static_cast<float>(value);
    case ElementType::kF64: return value;
    default: return DecodeNarrowFloat(type, EncodeNarrowFloat(type, value));
  }
}

}  // namespace

absl::StatusOr<StochasticConvertPlan> MakeStochasticConvertPlan(ElementType from,
                                                                ElementType random,
                                                                ElementType to) {
  if (!IsFloatingPoint(from) || !IsUnsignedInteger(random) ||
      BitWidth(random) != BitWidth(from)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stochastic-convert needs a float operand and unsigned random bits of its width, got ",
        std::string(ElementTypeName(from)), " and ", std::string(ElementTypeName(random))));
  }
  if (!IsSignedInteger(to)) {
    return absl::UnimplementedError(absl::StrCat("stochastic-convert from ",
                                                 std::string(ElementTypeName(from)), " to ",
                                                 std::string(ElementTypeName(to))));
  }
  StochasticConvertPlan p;
  p.from = from;
  p.random = random;
  p.to = to;
  p.from_bytes = ByteWidth(from);
  p.random_bytes = ByteWidth(random);
  p.random_bits = BitWidth(random);
  p.to_bytes = ByteWidth(to);
  p.to_bits = BitWidth(to);
  const double min = -std::ldexp(1.0, p.to_bits - 1);
  // 2^(n-1) - 1 as the nearest double first (exact below 2^53), then the
  // float type.
  const double max = static_cast<double>(
      static_cast<int64_t>((uint64_t{1} << (p.to_bits - 1)) - 1));
  p.min_threshold = RoundTo(from, min);
  p.max_threshold = RoundTo(from, max);
  return p;
}

void RunStochasticConvert(const StochasticConvertPlan& p, const uint8_t* operand,
                          const uint8_t* random, uint8_t* dst, int64_t begin, int64_t end) {
  const uint64_t to_mask = p.to_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << p.to_bits) - 1;
  const int64_t to_max = static_cast<int64_t>((uint64_t{1} << (p.to_bits - 1)) - 1);
  const int64_t to_min = -to_max - 1;
  const double scale = std::ldexp(1.0, p.random_bits);
  // The scaled fraction is computed in f32 for f16 operands (XLA widens them
  // so that 2^16 fits), otherwise in the operand's type.
  const ElementType scale_type = p.from == ElementType::kF16 ? ElementType::kF32 : p.from;
  const uint64_t random_max = p.random_bits >= 64 ? ~uint64_t{0}
                                                  : (uint64_t{1} << p.random_bits) - 1;
  for (int64_t i = begin; i < end; ++i) {
    const double x = ToDouble(p.from, LoadBits(operand + i * p.from_bytes, p.from_bytes));
    const uint64_t r = LoadBits(random + i * p.random_bytes, p.random_bytes);
    const bool negative = x < 0;
    const double magnitude = std::fabs(x);
    const double whole = std::floor(magnitude);
    const double fraction = magnitude - whole;  // exact
    const double scaled = RoundTo(scale_type, fraction * scale);
    uint64_t fixed;  // float -> unsigned: NaN gives 0, saturating
    if (!(scaled > 0)) {
      fixed = 0;
    } else if (scaled >= std::ldexp(1.0, p.random_bits)) {
      fixed = random_max;
    } else {
      fixed = static_cast<uint64_t>(scaled);
    }
    int64_t v;  // float -> signed: NaN gives 0, saturating
    if (std::isnan(whole)) {
      v = 0;
    } else if (whole >= static_cast<double>(to_max)) {
      v = to_max;
    } else {
      v = static_cast<int64_t>(whole);
    }
    uint64_t bits = static_cast<uint64_t>(v);
    if (r < fixed) bits += 1;
    if (negative) bits = ~bits + 1;
    bits &= to_mask;
    if (x <= p.min_threshold) bits = static_cast<uint64_t>(to_min) & to_mask;
    if (x >= p.max_threshold) bits = static_cast<uint64_t>(to_max) & to_mask;
    // Sign-extend into the stored bytes (sub-byte types hold the low bits).
    if (p.to_bits < 64 && (bits >> (p.to_bits - 1) & 1)) bits |= ~to_mask;
    std::memcpy(dst + i * p.to_bytes, &bits, p.to_bytes);
  }
}

}  // namespace hlovm
