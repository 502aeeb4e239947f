// Shape rules of the linear-algebra ops: cholesky and triangular-solve.
#ifndef HLOVM_OPS_LINALG_LINALG_SHAPE_H_
#define HLOVM_OPS_LINALG_LINALG_SHAPE_H_

#include "absl/status/statusor.h"
#include "core/shape.h"

namespace hlovm {

absl::StatusOr<Shape> InferCholeskyShape(const Shape& a);
// triangular-solve(a, b), left_side=: a is [..., m, m]; b is [..., m, n]
// when left_side, else [..., n, m]. The result has b's shape.
absl::StatusOr<Shape> InferTriangularSolveShape(const Shape& a, const Shape& b,
                                                bool left_side);

}  // namespace hlovm

#endif  // HLOVM_OPS_LINALG_LINALG_SHAPE_H_
