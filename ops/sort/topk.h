// TopK kernel: the k largest (or smallest) elements of every row along the
// last dimension, with their s32 indices. Floats are ordered totally
// (-NaN < -inf < ... < -0 < +0 < ... < inf < NaN) and equal elements come out
// lowest index first, as XLA's CPU backend orders them. Every real element
// type is supported; sub-byte integers and the 8-, 6- and 4-bit floats are
// ordered on their own bit width.
#ifndef HLOVM_OPS_SORT_TOPK_H_
#define HLOVM_OPS_SORT_TOPK_H_

#include <cstdint>

#include "core/element_type.h"

namespace hlovm {

struct TopKPlan {
  ElementType type = ElementType::kF32;
  int64_t rows = 1;
  int64_t n = 0;  // elements per row
  int64_t k = 0;
  bool largest = true;
};

// True when the kernel supports elements of `type`.
bool TopKSupports(ElementType type);

// Rows [row_begin, row_end): values (of plan.type) and s32 indices.
void TopKRows(const TopKPlan& plan, const uint8_t* in, uint8_t* values, int32_t* indices,
              int64_t row_begin, int64_t row_end);

}  // namespace hlovm

#endif  // HLOVM_OPS_SORT_TOPK_H_
