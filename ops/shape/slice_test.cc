#include "ops/shape/slice.h"

#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "ops/shape/reverse.h"
#include "ops/shape/shape_test_ref.h"

namespace hlovm {
namespace {

using shape_test::Count;
using shape_test::CopyElem;
using shape_test::Ravel;
using shape_test::Unravel;

std::vector<uint8_t> RunCopy(const OffsetCopyPlan& plan, const std::vector<uint8_t>& src,
                             int64_t out_bytes) {
  std::vector<uint8_t> dst(out_bytes, 0xCD);
  // One row at a time, as the smallest parallel chunks would.
  const int64_t rows = plan.copy.element_count == 0 ? 0 : plan.copy.rows();
  for (int64_t r = 0; r < rows; ++r) RunOffsetCopy(plan, src.data(), dst.data(), r, r + 1);
  return dst;
}

TEST(SliceTest, RandomSlicesMatchReference) {
  std::mt19937_64 rng(7);
  for (int iter = 0; iter < 300; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    const int es = std::vector<int>{1, 2, 4, 8, 16}[rng() % 5];
    std::vector<int64_t> dims(rank), starts(rank), limits(rank), strides(rank), out(rank);
    for (int d = 0; d < rank; ++d) {
      dims[d] = 1 + static_cast<int64_t>(rng() % 9);
      starts[d] = static_cast<int64_t>(rng() % (dims[d] + 1));
      limits[d] = starts[d] + static_cast<int64_t>(rng() % (dims[d] - starts[d] + 1));
      strides[d] = 1 + static_cast<int64_t>(rng() % 3);
      out[d] = (limits[d] - starts[d] + strides[d] - 1) / strides[d];
    }
    const std::vector<uint8_t> src = shape_test::RandomBytes(Count(dims) * es, rng);
    std::vector<uint8_t> want(Count(out) * es);
    for (int64_t i = 0; i < Count(out); ++i) {
      std::vector<int64_t> idx = Unravel(i, out);
      for (int d = 0; d < rank; ++d) idx[d] = starts[d] + idx[d] * strides[d];
      CopyElem(src, Ravel(idx, dims), want, i, es);
    }
    auto plan = MakeSlicePlan(es, dims, starts, limits, strides);
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_EQ(RunCopy(*plan, src, want.size()), want);
  }
}

TEST(SliceTest, RejectsOutOfRange) {
  const std::vector<int64_t> dims = {4};
  EXPECT_FALSE(MakeSlicePlan(4, dims, std::vector<int64_t>{3}, std::vector<int64_t>{5},
                             std::vector<int64_t>{1}).ok());
  EXPECT_FALSE(MakeSlicePlan(4, dims, std::vector<int64_t>{2}, std::vector<int64_t>{1},
                             std::vector<int64_t>{1}).ok());
  EXPECT_FALSE(MakeSlicePlan(4, dims, std::vector<int64_t>{0}, std::vector<int64_t>{4},
                             std::vector<int64_t>{0}).ok());
}

TEST(ReverseTest, RandomReversalsMatchReference) {
  std::mt19937_64 rng(8);
  for (int iter = 0; iter < 300; ++iter) {
    const int rank = static_cast<int>(rng() % 5);
    const int es = std::vector<int>{1, 2, 4, 8, 16}[rng() % 5];
    std::vector<int64_t> dims(rank), rev;
    for (int d = 0; d < rank; ++d) {
      dims[d] = 1 + static_cast<int64_t>(rng() % 7);
      if (rng() % 2) rev.push_back(d);
    }
    const std::vector<uint8_t> src = shape_test::RandomBytes(Count(dims) * es, rng);
    std::vector<uint8_t> want(src.size());
    for (int64_t i = 0; i < Count(dims); ++i) {
      std::vector<int64_t> idx = Unravel(i, dims);
      for (int64_t d : rev) idx[d] = dims[d] - 1 - idx[d];
      CopyElem(src, Ravel(idx, dims), want, i, es);
    }
    auto plan = MakeReversePlan(es, dims, rev);
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_EQ(RunCopy(*plan, src, want.size()), want);
  }
  EXPECT_FALSE(MakeReversePlan(4, std::vector<int64_t>{2}, std::vector<int64_t>{1}).ok());
  EXPECT_FALSE(MakeReversePlan(4, std::vector<int64_t>{2, 2}, std::vector<int64_t>{0, 0}).ok());
}

TEST(StridedStoreTest, WritesIntoAStridedDestination) {
  std::mt19937_64 rng(9);
  for (int iter = 0; iter < 200; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    const int es = std::vector<int>{1, 2, 4, 8, 16}[rng() % 5];
    std::vector<int64_t> dims(rank), sub(rank), offset(rank);
    for (int d = 0; d < rank; ++d) {
      dims[d] = 1 + static_cast<int64_t>(rng() % 8);
      sub[d] = static_cast<int64_t>(rng() % (dims[d] + 1));
      offset[d] = static_cast<int64_t>(rng() % (dims[d] - sub[d] + 1));
    }
    const std::vector<uint8_t> update = shape_test::RandomBytes(Count(sub) * es, rng);
    std::vector<uint8_t> dst = shape_test::RandomBytes(Count(dims) * es, rng);
    std::vector<uint8_t> want = dst;
    for (int64_t i = 0; i < Count(sub); ++i) {
      std::vector<int64_t> idx = Unravel(i, sub);
      for (int d = 0; d < rank; ++d) idx[d] += offset[d];
      CopyElem(update, i, want, Ravel(idx, dims), es);
    }
    const std::vector<int64_t> strides = RowMajorStrides(dims);
    const StridedCopyPlan plan = MakeStridedStorePlan(es, sub, strides);
    const int64_t base = Ravel(offset, dims);
    const int64_t rows = plan.element_count == 0 ? 0 : plan.rows();
    for (int64_t r = 0; r < rows; ++r) {
      RunStridedStore(plan, update.data(), dst.data() + base * es, r, r + 1);
    }
    EXPECT_EQ(dst, want);
  }
}

}  // namespace
}  // namespace hlovm
