#include "ops/shape/transpose.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "ops/shape/shape_test_ref.h"

namespace hlovm {
namespace {

using shape_test::Count;
using shape_test::CopyElem;
using shape_test::Ravel;
using shape_test::Unravel;

std::vector<uint8_t> Reference(const std::vector<uint8_t>& src, const std::vector<int64_t>& dims,
                               const std::vector<int64_t>& perm, int es) {
  std::vector<int64_t> out_dims(dims.size());
  for (size_t k = 0; k < dims.size(); ++k) out_dims[k] = dims[perm[k]];
  std::vector<uint8_t> dst(src.size());
  for (int64_t i = 0; i < Count(out_dims); ++i) {
    const std::vector<int64_t> o = Unravel(i, out_dims);
    std::vector<int64_t> in(dims.size());
    for (size_t k = 0; k < dims.size(); ++k) in[perm[k]] = o[k];
    CopyElem(src, Ravel(in, dims), dst, i, es);
  }
  return dst;
}

// Runs the plan in pieces of random sizes (as parallel chunks would).
std::vector<uint8_t> RunInPieces(const TransposePlan& plan, const std::vector<uint8_t>& src,
                                 std::mt19937_64& rng) {
  std::vector<uint8_t> dst(src.size(), 0xAB);
  const int64_t units = plan.units();
  for (int64_t u = 0; u < units;) {
    const int64_t step = 1 + static_cast<int64_t>(rng() % 5);
    const int64_t e = std::min(units, u + step);
    RunTranspose(plan, src.data(), dst.data(), u, e);
    u = e;
  }
  return dst;
}

void Check(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm, int es,
           std::mt19937_64& rng) {
  const std::vector<uint8_t> src = shape_test::RandomBytes(Count(dims) * es, rng);
  auto plan = MakeTransposePlan(es, dims, perm);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(RunInPieces(*plan, src, rng), Reference(src, dims, perm, es))
      << "es=" << es << " dims=" << ::testing::PrintToString(dims)
      << " perm=" << ::testing::PrintToString(perm);
}

TEST(TransposeTest, TwoDimensionalAllWidths) {
  std::mt19937_64 rng(1);
  for (int es : {1, 2, 4, 8, 16}) {
    Check({3, 5}, {1, 0}, es, rng);
    Check({8, 8}, {1, 0}, es, rng);
    Check({300, 270}, {1, 0}, es, rng);  // partial tiles and blocks
    Check({1, 17}, {1, 0}, es, rng);
    Check({0, 4}, {1, 0}, es, rng);
  }
}

TEST(TransposeTest, LargeSquareF32) {
  std::mt19937_64 rng(2);
  Check({1030, 1030}, {1, 0}, 4, rng);
}

TEST(TransposeTest, RandomRanksAndPermutations) {
  std::mt19937_64 rng(3);
  for (int iter = 0; iter < 200; ++iter) {
    const int rank = static_cast<int>(rng() % 5);
    std::vector<int64_t> dims(rank);
    for (auto& d : dims) d = 1 + static_cast<int64_t>(rng() % 13);
    std::vector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const int widths[] = {1, 2, 4, 8, 16};
    Check(dims, perm, widths[rng() % 5], rng);
  }
}

TEST(TransposeTest, IdentityAndMergedDimensionsAreRowCopies) {
  auto plan = MakeTransposePlan(4, std::vector<int64_t>{2, 3, 4}, std::vector<int64_t>{0, 1, 2});
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->row_copy);
  plan = MakeTransposePlan(4, std::vector<int64_t>{2, 3, 4}, std::vector<int64_t>{1, 0, 2});
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->row_copy);
  plan = MakeTransposePlan(4, std::vector<int64_t>{2, 3, 4}, std::vector<int64_t>{2, 0, 1});
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->row_copy);
}

TEST(TransposeTest, RejectsBadPermutations) {
  const std::vector<int64_t> dims = {2, 3};
  EXPECT_FALSE(MakeTransposePlan(4, dims, std::vector<int64_t>{0}).ok());
  EXPECT_FALSE(MakeTransposePlan(4, dims, std::vector<int64_t>{0, 0}).ok());
  EXPECT_FALSE(MakeTransposePlan(4, dims, std::vector<int64_t>{0, 2}).ok());
  EXPECT_FALSE(MakeTransposePlan(3, dims, std::vector<int64_t>{1, 0}).ok());
}

}  // namespace
}  // namespace hlovm
