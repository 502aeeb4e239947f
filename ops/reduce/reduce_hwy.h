// Entry points of the Highway folds in reduce_hwy.cc (dynamic dispatch).
#ifndef HLOVM_OPS_REDUCE_REDUCE_HWY_H_
#define HLOVM_OPS_REDUCE_REDUCE_HWY_H_

#include <cstdint>

namespace hlovm {
namespace reduce_internal {

// Fold of x[0..n) in the fixed vector order; max/min need n > 0.
float HwySumF32(const float* x, int64_t n);
double HwySumF64(const double* x, int64_t n);
// HwySumF32 of four runs x[0..3][0..n) at once, bitwise the same sums
// (faster on runs in cache, slower streaming from memory).
void HwySum4F32(const float* const* x, int64_t n, float* out);
float HwyMaxF32(const float* x, int64_t n);
float HwyMinF32(const float* x, int64_t n);
double HwyMaxF64(const double* x, int64_t n);
double HwyMinF64(const double* x, int64_t n);
// Name of the SIMD target the folds run on here.
const char* ReduceSimdTarget();

}  // namespace reduce_internal
}  // namespace hlovm

#endif  // HLOVM_OPS_REDUCE_REDUCE_HWY_H_
