// stochastic-convert: float -> signed integer, rounding the magnitude up when
// the unsigned random operand (same bit width as the float) is below the
// fraction scaled to 2^bits, as XLA decomposes the op: sign and magnitude are
// handled apart, the integer part converts with saturation, and operands at
// or beyond the integer type's range give its minimum / maximum. XLA supports
// no other result types.
#ifndef HLOVM_OPS_ELEMENTWISE_STOCHASTIC_CONVERT_H_
#define HLOVM_OPS_ELEMENTWISE_STOCHASTIC_CONVERT_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/element_type.h"

namespace hlovm {

struct StochasticConvertPlan {
  ElementType from = ElementType::kF32, random = ElementType::kU32, to = ElementType::kS32;
  int from_bytes = 0, random_bytes = 0, random_bits = 0, to_bytes = 0, to_bits = 0;
  double min_threshold = 0, max_threshold = 0;  // the integer limits in the float type
};

absl::StatusOr<StochasticConvertPlan> MakeStochasticConvertPlan(ElementType from,
                                                                ElementType random,
                                                                ElementType to);

// Converts elements [begin, end).
void RunStochasticConvert(const StochasticConvertPlan& plan, const uint8_t* operand,
                          const uint8_t* random, uint8_t* dst, int64_t begin, int64_t end);

}  // namespace hlovm

#endif  // HLOVM_OPS_ELEMENTWISE_STOCHASTIC_CONVERT_H_
