// The fixed order of a float sum of one run (reduce_hwy.cc's SumRun), for
// code outside the reduce that must give its bits (a register program that
// sums rows, f32_program.h): element i of the run goes to class i mod W,
// where W is four times the lanes of the SIMD target's 128-bit vector of T
// (16 floats on every x86 vector target; 4 on HWY_SCALAR, whose vectors
// have one lane), each class sums its elements in index order starting
// from -0, and the classes combine in a pairwise tree in class order
// (SumClassTree).
#ifndef HLOVM_OPS_REDUCE_SUM_CLASSES_H_
#define HLOVM_OPS_REDUCE_SUM_CLASSES_H_

#include <cstdint>

namespace hlovm {

// The most classes of any target.
template <typename T>
inline constexpr int64_t kSumClasses = 4 * 16 / static_cast<int64_t>(sizeof(T));

// The sum of classes cls[0..width) in their tree order (may overwrite cls).
// One compiled copy for every caller: the compiler may order the operands
// of an add either way (the same sum, but of two NaNs the first is kept),
// so every sum that must give the reduce's bits, NaNs included, combines
// its classes here.
float SumClassTree(float* cls, int64_t width);
double SumClassTree(double* cls, int64_t width);

}  // namespace hlovm

#endif  // HLOVM_OPS_REDUCE_SUM_CLASSES_H_
