// The conformance checks, as custom-call targets (../shared/conformance/
// FORMAT.md, "Checks"):
//   check.expect_eq        every element equal (floats: IEEE ==, or both NaN)
//   check.expect_close     min_ulp_difference <= ulp(a, e) <= max_ulp_difference
//   check.expect_almost_eq |a - e| <= tolerance in binary64, NaN matches NaN
// Complex values are checked per part (ulp: the larger of the two).
#include <cinttypes>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/float_format.h"
#include "vm/check_failure.h"
#include "vm/custom_call.h"

namespace hlovm {
namespace vm {
namespace {

enum class CheckKind { kEq, kClose, kAlmostEq };

constexpr uint64_t kInfiniteUlp = std::numeric_limits<uint64_t>::max();

// One part (real, or real/imaginary of a complex) of an element.
struct Part {
  bool is_float = false;
  double value = 0;     // floats: the exact value
  int64_t sint = 0;     // signed integers and pred
  uint64_t uint = 0;    // unsigned integers
  bool is_unsigned = false;
  uint64_t bits = 0;    // floats: the bit pattern of the element type
};

// Reads element i (part `part`: 0 real, 1 imaginary) of an array of `type`.
Part ReadPart(ElementType type, const uint8_t* data, int64_t i, int part) {
  Part p;
  switch (ElementTypeKind(type)) {
    case TypeKind::kPred:
      p.sint = data[i] != 0;
      return p;
    case TypeKind::kSigned: {
      const int width = ByteWidth(type);
      int64_t v = 0;
      switch (width) {
        case 1: v = static_cast<int8_t>(data[i]); break;
        case 2: { int16_t x; std::memcpy(&x, data + 2 * i, 2); v = x; break; }
        case 4: { int32_t x; std::memcpy(&x, data + 4 * i, 4); v = x; break; }
        case 8: { int64_t x; std::memcpy(&x, data + 8 * i, 8); v = x; break; }
      }
      if (IsSubByte(type)) {
        const int bits = BitWidth(type);
        uint64_t low = static_cast<uint64_t>(v) & ((uint64_t{1} << bits) - 1);
        v = (low & (uint64_t{1} << (bits - 1))) ? static_cast<int64_t>(low) - (int64_t{1} << bits)
                                                : static_cast<int64_t>(low);
      }
      p.sint = v;
      return p;
    }
    case TypeKind::kUnsigned: {
      const int width = ByteWidth(type);
      uint64_t v = 0;
      std::memcpy(&v, data + width * i, width);
      if (IsSubByte(type)) v &= (uint64_t{1} << BitWidth(type)) - 1;
      p.uint = v;
      p.is_unsigned = true;
      return p;
    }
    case TypeKind::kComplex: {
      p.is_float = true;
      if (type == ElementType::kC64) {
        float x;
        uint32_t b;
        std::memcpy(&x, data + 8 * i + 4 * part, 4);
        std::memcpy(&b, data + 8 * i + 4 * part, 4);
        p.value = x;
        p.bits = b;
      } else {
        double x;
        std::memcpy(&x, data + 16 * i + 8 * part, 8);
        std::memcpy(&p.bits, data + 16 * i + 8 * part, 8);
        p.value = x;
      }
      return p;
    }
    case TypeKind::kFloat: {
      p.is_float = true;
      if (type == ElementType::kF32) {
        float x;
        uint32_t b;
        std::memcpy(&x, data + 4 * i, 4);
        std::memcpy(&b, data + 4 * i, 4);
        p.value = x;
        p.bits = b;
      } else if (type == ElementType::kF64) {
        std::memcpy(&p.value, data + 8 * i, 8);
        std::memcpy(&p.bits, data + 8 * i, 8);
      } else {
        const int width = ByteWidth(type);
        uint32_t b = 0;
        std::memcpy(&b, data + width * i, width);
        const SmallFloatFormat& f = NarrowFloatFormat(type);
        b &= (f.total_bits >= 32) ? 0xffffffffu : ((1u << f.total_bits) - 1);
        p.bits = b;
        p.value = DecodeNarrowFloat(type, b);
      }
      return p;
    }
    default:
      return p;
  }
}

// The sign bit of a float type's patterns (0 when there is none).
uint64_t SignMask(ElementType type) {
  const ElementType t = ComplexComponentType(type);
  if (t == ElementType::kF32) return uint64_t{1} << 31;
  if (t == ElementType::kF64) return uint64_t{1} << 63;
  const SmallFloatFormat& f = NarrowFloatFormat(t);
  return f.has_sign ? uint64_t{1} << (f.total_bits - 1) : 0;
}

uint64_t UlpDistance(const Part& a, const Part& e, uint64_t sign_mask) {
  if (a.bits == e.bits) return 0;
  const bool nan_a = std::isnan(a.value), nan_e = std::isnan(e.value);
  if (nan_a && nan_e) return 0;
  if (nan_a || nan_e || std::isinf(a.value) || std::isinf(e.value)) return kInfiniteUlp;
  const uint64_t A = a.bits & ~sign_mask, E = e.bits & ~sign_mask;
  if ((a.bits & sign_mask) != (e.bits & sign_mask)) return A + E;
  return A > E ? A - E : E - A;
}

bool PartsEqual(const Part& a, const Part& e) {
  if (a.is_float) return a.value == e.value || (std::isnan(a.value) && std::isnan(e.value));
  if (a.is_unsigned) return a.uint == e.uint;
  return a.sint == e.sint;
}

bool PartsAlmostEqual(const Part& a, const Part& e, double tolerance) {
  if (!a.is_float)
    return PartsEqual(a, e) ||
           std::fabs(static_cast<double>(a.is_unsigned ? a.uint : a.sint) -
                     static_cast<double>(e.is_unsigned ? e.uint : e.sint)) <= tolerance;
  if (a.value == e.value) return true;
  const bool nan_a = std::isnan(a.value), nan_e = std::isnan(e.value);
  if (nan_a && nan_e) return true;
  if (nan_a || nan_e || std::isinf(a.value) || std::isinf(e.value)) return false;
  return std::fabs(a.value - e.value) <= tolerance;
}

std::string PartText(ElementType type, const Part& p) {
  if (!p.is_float) {
    if (type == ElementType::kPred) return p.sint ? "true" : "false";
    return p.is_unsigned ? absl::StrCat(p.uint) : absl::StrCat(p.sint);
  }
  if (std::isnan(p.value)) return std::signbit(p.value) ? "-nan" : "nan";
  if (std::isinf(p.value)) return p.value < 0 ? "-inf" : "inf";
  const ElementType t = ComplexComponentType(type);
  return t == ElementType::kF64 ? absl::StrFormat("%.17g", p.value)
                                : absl::StrFormat("%.9g", p.value);
}

std::string ElementText(ElementType type, const uint8_t* data, int64_t i) {
  if (IsComplex(type)) {
    return absl::StrCat("(", PartText(type, ReadPart(type, data, i, 0)), ", ",
                        PartText(type, ReadPart(type, data, i, 1)), ")");
  }
  return PartText(type, ReadPart(type, data, i, 0));
}

// Reads the number after "key": in a flat JSON object; nullopt if absent.
std::optional<double> JsonNumber(const std::string& json, std::string_view key) {
  const std::string quoted = absl::StrCat("\"", std::string(key), "\"");
  size_t pos = json.find(quoted);
  if (pos == std::string::npos) return std::nullopt;
  pos = json.find(':', pos + quoted.size());
  if (pos == std::string::npos) return std::nullopt;
  const char* start = json.c_str() + pos + 1;
  char* end = nullptr;
  const double v = std::strtod(start, &end);
  if (end == start) return std::nullopt;
  return v;
}

class Check : public PreparedCustomCall {
 public:
  Check(CheckKind kind, std::string name, std::string check, ElementType type, uint64_t min_ulp,
        uint64_t max_ulp, double tolerance)
      : kind_(kind),
        name_(std::move(name)),
        check_(std::move(check)),
        type_(type),
        min_ulp_(min_ulp),
        max_ulp_(max_ulp),
        tolerance_(tolerance) {}

  bool is_check() const override { return true; }

  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    const ArrayView& actual = operands[0];
    const ArrayView& expected = operands[1];
    const int64_t n = actual.shape->element_count();
    const int parts = IsComplex(type_) ? 2 : 1;
    const uint64_t sign_mask = IsFloatingPoint(type_) || IsComplex(type_) ? SignMask(type_) : 0;
    int64_t mismatches = 0;
    int64_t first = -1;
    uint64_t first_ulp = 0;
    double first_diff = 0;
    for (int64_t i = 0; i < n; ++i) {
      bool ok = true;
      uint64_t ulp = 0;
      double diff = 0;
      for (int part = 0; part < parts; ++part) {
        const Part a = ReadPart(type_, actual.data, i, part);
        const Part e = ReadPart(type_, expected.data, i, part);
        switch (kind_) {
          case CheckKind::kEq:
            ok &= PartsEqual(a, e);
            break;
          case CheckKind::kClose:
            if (a.is_float) {
              ulp = std::max(ulp, UlpDistance(a, e, sign_mask));
            } else if (!PartsEqual(a, e)) {
              ulp = kInfiniteUlp;
            }
            break;
          case CheckKind::kAlmostEq:
            ok &= PartsAlmostEqual(a, e, tolerance_);
            if (a.is_float && !(std::isnan(a.value) && std::isnan(e.value)) && a.value != e.value) {
              const double d = std::fabs(a.value - e.value);
              diff = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(diff, d);
            }
            break;
        }
      }
      if (kind_ == CheckKind::kClose) ok = ulp >= min_ulp_ && ulp <= max_ulp_;
      if (!ok) {
        if (mismatches++ == 0) {
          first = i;
          first_ulp = ulp;
          first_diff = diff;
        }
      }
    }
    if (mismatches == 0) return absl::OkStatus();
    CheckFailure f;
    f.check = check_;
    f.kind = name_;
    int64_t linear = first;
    f.index.assign(actual.shape->rank(), 0);
    for (int64_t d = actual.shape->rank() - 1; d >= 0; --d) {
      const int64_t size = std::max<int64_t>(actual.shape->dimensions(d), 1);
      f.index[d] = linear % size;
      linear /= size;
    }
    f.actual = ElementText(type_, actual.data, first);
    f.expected = ElementText(type_, expected.data, first);
    f.mismatch_count = mismatches;
    f.element_count = n;
    switch (kind_) {
      case CheckKind::kEq:
        f.allowed = "exact";
        break;
      case CheckKind::kClose:
        f.ulp_difference = first_ulp == kInfiniteUlp ? std::numeric_limits<double>::infinity()
                                                     : static_cast<double>(first_ulp);
        f.allowed = min_ulp_ == 0 ? absl::StrCat("max_ulp_difference=", max_ulp_)
                                  : absl::StrCat("min_ulp_difference=", min_ulp_,
                                                 " max_ulp_difference=", max_ulp_);
        break;
      case CheckKind::kAlmostEq:
        f.abs_difference = first_diff;
        f.allowed = absl::StrCat("tolerance=", tolerance_);
        break;
    }
    return CheckFailureStatus(f);
  }

 private:
  CheckKind kind_;
  std::string name_;
  std::string check_;  // the instruction's name
  ElementType type_;
  uint64_t min_ulp_, max_ulp_;
  double tolerance_;
};

absl::StatusOr<std::unique_ptr<PreparedCustomCall>> MakeCheck(const HloInstruction& instr,
                                                              CheckKind kind) {
  const std::string& name = instr.attrs().custom_call_target;
  if (instr.operand_count() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " takes two operands (actual, expected), has ", instr.operand_count()));
  }
  const Shape& a = instr.operand(0)->shape();
  const Shape& e = instr.operand(1)->shape();
  if (!a.IsArray() || !e.IsArray() || !a.Compatible(e)) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " needs two arrays of the same shape, has ", a.ToString(), " and ", e.ToString()));
  }
  uint64_t min_ulp = 0, max_ulp = 0;
  double tolerance = 0;
  if (kind == CheckKind::kClose) {
    auto max = JsonNumber(instr.attrs().backend_config, "max_ulp_difference");
    auto min = JsonNumber(instr.attrs().backend_config, "min_ulp_difference");
    if (!max.has_value() || *max < 0 || (min.has_value() && *min < 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " needs backend_config {\"max_ulp_difference\":M,\"min_ulp_difference\":m}, has \"",
          instr.attrs().backend_config, "\""));
    }
    max_ulp = static_cast<uint64_t>(*max);
    min_ulp = min.has_value() ? static_cast<uint64_t>(*min) : 0;
  } else if (kind == CheckKind::kAlmostEq) {
    auto t = JsonNumber(instr.attrs().backend_config, "tolerance");
    if (!t.has_value() || !(*t >= 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " needs backend_config {\"tolerance\":t}, has \"",
                       instr.attrs().backend_config, "\""));
    }
    tolerance = *t;
  }
  return std::make_unique<Check>(kind, name, instr.name(), a.element_type(), min_ulp, max_ulp,
                                 tolerance);
}

}  // namespace

void RegisterCheckTargets() {
  RegisterCustomCallTarget("check.expect_eq", [](const HloInstruction& i) {
    return MakeCheck(i, CheckKind::kEq);
  });
  RegisterCustomCallTarget("check.expect_close", [](const HloInstruction& i) {
    return MakeCheck(i, CheckKind::kClose);
  });
  RegisterCustomCallTarget("check.expect_almost_eq", [](const HloInstruction& i) {
    return MakeCheck(i, CheckKind::kAlmostEq);
  });
}

}  // namespace vm
}  // namespace hlovm
