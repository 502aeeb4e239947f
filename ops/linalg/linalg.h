// triangular-solve and cholesky: plans and kernels. Both work on batches of
// row-major matrices (the innermost two dimensions) in a compute type: the
// element type itself for f32, f64, c64 and c128, f32 for f16, bf16 and the
// narrow floats (converted on the way in and rounded once on the way out).
//
// triangular-solve solves op(a) x = b (left_side) or x op(a) = b for x, with
// op the identity, the transpose or the adjoint. Only the triangle of `a`
// that `lower` names is read (the diagonal too unless unit_diagonal). Each
// batch matrix is split into fixed blocks of right-hand sides, the work
// units; a unit runs blocked forward or back substitution whose updates
// from finished row blocks are GEMMs (ops/dot/gemm.h) for f32 and f64. A
// zero on the diagonal gives infinities and NaNs, as division does.
//
// cholesky factors each batch matrix a = l l^H (lower) or a = u^H u
// (upper), reading only that triangle of `a` (for upper, the transpose of
// the upper triangle is factored as XLA's expander does) and writing zeros
// to the other one. Left-looking and blocked: the update of each column
// panel from the finished columns is a GEMM (f32, f64); the panel itself is
// factored column by column. As XLA's CPU backend does, a matrix whose
// factorisation meets a NaN square root (not positive definite, or NaN in
// the input) comes out entirely NaN; other batch matrices are unaffected.
// A batch matrix is one work unit.
//
// Results never depend on the thread count: units are fixed and every
// output element is computed by one unit in a fixed order.
#ifndef HLOVM_OPS_LINALG_LINALG_H_
#define HLOVM_OPS_LINALG_LINALG_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/hlo_ir.h"
#include "core/shape.h"
#include "ops/dot/gemm.h"
#include "ops/elementwise/elementwise.h"

namespace hlovm {

struct LinalgTypes {
  ElementType type = ElementType::kF32;     // of the operands and the result
  ElementType compute = ElementType::kF32;  // what the kernels compute in
  UnaryKernel to_compute = nullptr;         // both null when type == compute
  UnaryKernel from_compute = nullptr;
  // The GEMM for block updates (f32 and f64 compute types; else unused).
  bool use_gemm = false;
  GemmKernel gemm;
};

struct TriangularSolvePlan {
  LinalgTypes types;
  // a is [batch, m, m]; b and the result are [batch, m, n] (left_side) or
  // [batch, n, m].
  int64_t batch = 1, m = 0, n = 0;
  bool left_side = false, lower = false, unit_diagonal = false;
  TriangularSolveTranspose transpose_a = TriangularSolveTranspose::kNoTranspose;
  int64_t rhs_per_unit = 1;  // right-hand sides (columns of x) per unit
  int64_t units_per_matrix = 1;
  int64_t units() const { return batch * units_per_matrix; }
  // Floating-point operations (for the cost model and profiles).
  int64_t flops() const { return batch * m * m * n; }
};

absl::StatusOr<TriangularSolvePlan> MakeTriangularSolvePlan(const Shape& a, const Shape& b,
                                                            bool left_side, bool lower,
                                                            bool unit_diagonal,
                                                            TriangularSolveTranspose transpose_a);

// Runs units [unit_begin, unit_end): writes their columns of `x`.
void RunTriangularSolve(const TriangularSolvePlan& plan, const void* a, const void* b, void* x,
                        int64_t unit_begin, int64_t unit_end);

struct CholeskyPlan {
  LinalgTypes types;
  int64_t batch = 1, n = 0;  // a and the result are [batch, n, n]
  bool lower = true;
  int64_t units() const { return batch; }
  int64_t flops() const { return batch * n * n * n / 3; }
};

absl::StatusOr<CholeskyPlan> MakeCholeskyPlan(const Shape& a, bool lower);

// Factors batch matrices [unit_begin, unit_end) of `a` into `l`.
void RunCholesky(const CholeskyPlan& plan, const void* a, void* l, int64_t unit_begin,
                 int64_t unit_end);

}  // namespace hlovm

#endif  // HLOVM_OPS_LINALG_LINALG_H_
