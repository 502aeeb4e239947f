#include "ops/reduce/sum_classes.h"

namespace hlovm {
namespace {

template <typename T>
T Tree(T* cls, int64_t width) {
  for (int64_t s = 1; s < width; s *= 2) {
    for (int64_t c = 0; c + s < width; c += 2 * s) cls[c] += cls[c + s];
  }
  return cls[0];
}

// Tree(c, 2n) written out, in registers: a program's sum of a row ends
// here, and the loop's adds would wait on its stores.
template <typename T>
T Tree4(const T* c) {
  return (c[0] + c[1]) + (c[2] + c[3]);
}
template <typename T>
T Tree8(const T* c) {
  return Tree4(c) + Tree4(c + 4);
}
template <typename T>
T Tree16(const T* c) {
  return Tree8(c) + Tree8(c + 8);
}

}  // namespace

float SumClassTree(float* cls, int64_t width) {
  if (width == 16) return Tree16(cls);
  if (width == 4) return Tree4(cls);
  return Tree(cls, width);
}

double SumClassTree(double* cls, int64_t width) {
  if (width == 8) return Tree8(cls);
  if (width == 2) return cls[0] + cls[1];
  return Tree(cls, width);
}

}  // namespace hlovm
