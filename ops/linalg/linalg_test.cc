#include "ops/linalg/linalg.h"

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "ops/common/common_shape.h"

namespace hlovm {
namespace {

Shape F64(std::vector<int64_t> dims) { return MakeArrayShape(ElementType::kF64, dims); }

// A well-conditioned lower-triangular matrix (row-major, m x m).
std::vector<double> LowerMatrix(int64_t m, std::mt19937& gen) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> a(m * m, 0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < i; ++j) a[i * m + j] = u(gen) / std::sqrt(static_cast<double>(m));
    a[i * m + i] = 2 + std::abs(u(gen));
  }
  return a;
}

// Blocked substitution (several row blocks, several units) solves the system:
// the residual a x - b is at rounding level.
TEST(TriangularSolve, BlockedSolveHasSmallResidual) {
  const int64_t m = 200, n = 300;
  std::mt19937 gen(1);
  std::vector<double> a = LowerMatrix(m, gen), b(m * n), x(m * n);
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& v : b) v = u(gen);
  auto plan = MakeTriangularSolvePlan(F64({m, m}), F64({m, n}), /*left_side=*/true, /*lower=*/true,
                                      /*unit_diagonal=*/false, TriangularSolveTranspose::kNoTranspose);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->units(), 2);  // 256 right-hand sides per unit
  RunTriangularSolve(*plan, a.data(), b.data(), x.data(), 0, plan->units());
  double worst = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t c = 0; c < n; ++c) {
      double s = 0;
      for (int64_t j = 0; j <= i; ++j) s += a[i * m + j] * x[j * n + c];
      worst = std::max(worst, std::abs(s - b[i * n + c]));
    }
  }
  EXPECT_LT(worst, 1e-12);
}

// Units write disjoint columns, so running them one at a time, in any order,
// gives the bits of one call over all of them.
TEST(TriangularSolve, UnitsAreIndependent) {
  const int64_t m = 70, n = 600;
  std::mt19937 gen(2);
  std::vector<double> a = LowerMatrix(m, gen), b(n * m), x1(n * m), x2(n * m);
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& v : b) v = u(gen);
  auto plan = MakeTriangularSolvePlan(F64({m, m}), F64({n, m}), /*left_side=*/false, /*lower=*/true,
                                      /*unit_diagonal=*/false, TriangularSolveTranspose::kTranspose);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->units(), 3);
  RunTriangularSolve(*plan, a.data(), b.data(), x1.data(), 0, 3);
  for (int64_t unit : {2, 0, 1}) RunTriangularSolve(*plan, a.data(), b.data(), x2.data(), unit, unit + 1);
  EXPECT_EQ(std::memcmp(x1.data(), x2.data(), x1.size() * sizeof(double)), 0);
}

// a = l l^T for a known l: the blocked factorisation (three panels) finds it.
TEST(Cholesky, BlockedFactorRecoversTheFactor) {
  const int64_t n = 150;
  std::mt19937 gen(3);
  std::vector<double> l = LowerMatrix(n, gen), a(n * n, 0), out(n * n);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t k = 0; k <= std::min(i, j); ++k) s += l[i * n + k] * l[j * n + k];
      a[i * n + j] = s;
    }
  }
  auto plan = MakeCholeskyPlan(F64({n, n}), /*lower=*/true);
  ASSERT_TRUE(plan.ok());
  RunCholesky(*plan, a.data(), out.data(), 0, 1);
  double worst = 0;
  for (int64_t i = 0; i < n * n; ++i) worst = std::max(worst, std::abs(out[i] - l[i]));
  EXPECT_LT(worst, 1e-10);
}

// A matrix that is not positive definite comes out all NaN; its neighbour
// in the batch does not.
TEST(Cholesky, IndefiniteMatrixIsAllNan) {
  const std::vector<double> a = {4, 0, 2, 5,     // positive definite
                                 1, 0, 0, -1};   // indefinite
  std::vector<double> out(8);
  auto plan = MakeCholeskyPlan(F64({2, 2, 2}), /*lower=*/true);
  ASSERT_TRUE(plan.ok());
  RunCholesky(*plan, a.data(), out.data(), 0, 2);
  EXPECT_DOUBLE_EQ(out[0], 2);
  EXPECT_DOUBLE_EQ(out[1], 0);
  EXPECT_DOUBLE_EQ(out[2], 1);
  EXPECT_DOUBLE_EQ(out[3], 2);
  for (int i = 4; i < 8; ++i) EXPECT_TRUE(std::isnan(out[i])) << i;
}

TEST(Linalg, IntegerTypesAreRejected) {
  const Shape s = MakeArrayShape(ElementType::kS32, {2, 2});
  EXPECT_FALSE(MakeCholeskyPlan(s, true).ok());
}

}  // namespace
}  // namespace hlovm
