#include "ops/shape/bitcast_convert.h"

#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"

namespace hlovm {
namespace {

bool ByteSized(ElementType t) { return BitWidth(t) == 8 * ByteWidth(t); }

inline uint64_t Mask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

inline uint64_t Load(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  std::memcpy(&v, p, bytes);  // little-endian host
  return v;
}

}  // namespace

bool BitcastConvertIsAlias(ElementType from, ElementType to) {
  return from == to || (ByteSized(from) && ByteSized(to));
}

absl::StatusOr<BitcastConvertPlan> MakeBitcastConvertPlan(ElementType from, ElementType to,
                                                          int64_t out_count) {
  BitcastConvertPlan plan;
  plan.in_bits = BitWidth(from);
  plan.out_bits = BitWidth(to);
  plan.in_bytes = ByteWidth(from);
  plan.out_bytes = ByteWidth(to);
  plan.out_signed = IsSignedInteger(to);
  plan.out_count = out_count;
  if (plan.in_bits <= 0 || plan.out_bits <= 0 || plan.in_bits > 64 || plan.out_bits > 64 ||
      (plan.in_bits > plan.out_bits ? plan.in_bits % plan.out_bits
                                    : plan.out_bits % plan.in_bits) != 0) {
    return absl::UnimplementedError(absl::StrCat("bitcast-convert from ",
                                                 std::string(ElementTypeName(from)), " to ",
                                                 std::string(ElementTypeName(to))));
  }
  return plan;
}

void RunBitcastConvert(const BitcastConvertPlan& p, const uint8_t* src, uint8_t* dst,
                       int64_t begin, int64_t end) {
  const uint64_t in_mask = Mask(p.in_bits), out_mask = Mask(p.out_bits);
  for (int64_t j = begin; j < end; ++j) {
    uint64_t v;
    if (p.in_bits >= p.out_bits) {
      const int64_t ratio = p.in_bits / p.out_bits;
      const int64_t i = j / ratio, part = j % ratio;
      v = ((Load(src + i * p.in_bytes, p.in_bytes) & in_mask) >> (part * p.out_bits)) & out_mask;
    } else {
      const int64_t ratio = p.out_bits / p.in_bits;
      v = 0;
      for (int64_t k = 0; k < ratio; ++k) {
        v |= (Load(src + (j * ratio + k) * p.in_bytes, p.in_bytes) & in_mask)
             << (k * p.in_bits);
      }
    }
    if (p.out_signed && p.out_bits < 64 && (v >> (p.out_bits - 1) & 1)) v |= ~out_mask;
    std::memcpy(dst + j * p.out_bytes, &v, p.out_bytes);
  }
}

}  // namespace hlovm
