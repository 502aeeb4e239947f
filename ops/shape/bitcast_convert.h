// bitcast-convert where the element bits are not simply the same bytes:
// when a 2- or 4-bit type (held one per byte in hlovm buffers) or another
// type narrower than its byte width is involved. Element bits are read as
// one little-endian bit stream: a wider element splits into consecutive
// narrower ones (the new minor dimension, lowest bits first) and narrower
// ones join into a wider one. Byte-sized types need no kernel: the lowering
// makes those an alias of the operand's buffer.
#ifndef HLOVM_OPS_SHAPE_BITCAST_CONVERT_H_
#define HLOVM_OPS_SHAPE_BITCAST_CONVERT_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/element_type.h"

namespace hlovm {

struct BitcastConvertPlan {
  int in_bits = 0, out_bits = 0, in_bytes = 0, out_bytes = 0;
  bool out_signed = false;
  int64_t out_count = 0;
};

// True when the result's bytes equal the operand's (no kernel needed).
bool BitcastConvertIsAlias(ElementType from, ElementType to);

absl::StatusOr<BitcastConvertPlan> MakeBitcastConvertPlan(ElementType from, ElementType to,
                                                          int64_t out_count);

// Writes result elements [begin, end).
void RunBitcastConvert(const BitcastConvertPlan& plan, const uint8_t* src, uint8_t* dst,
                       int64_t begin, int64_t end);

}  // namespace hlovm

#endif  // HLOVM_OPS_SHAPE_BITCAST_CONVERT_H_
