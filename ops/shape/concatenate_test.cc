#include "ops/shape/concatenate.h"

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

TEST(ConcatenateTest, RandomOperandsMatchReference) {
  std::mt19937_64 rng(21);
  for (int iter = 0; iter < 300; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    const int es = std::vector<int>{1, 2, 4, 8, 16}[rng() % 5];
    const int64_t dim = static_cast<int64_t>(rng() % rank);
    std::vector<int64_t> base(rank);
    for (auto& d : base) d = 1 + static_cast<int64_t>(rng() % 5);
    const int n = 1 + static_cast<int>(rng() % 4);
    std::vector<std::vector<int64_t>> dims(n, base);
    std::vector<std::vector<uint8_t>> srcs;
    std::vector<int64_t> out = base;
    out[dim] = 0;
    for (int k = 0; k < n; ++k) {
      dims[k][dim] = static_cast<int64_t>(rng() % 4);  // empty operands too
      out[dim] += dims[k][dim];
      srcs.push_back(shape_test::RandomBytes(Count(dims[k]) * es, rng));
    }
    std::vector<uint8_t> want(Count(out) * es);
    int64_t offset = 0;
    for (int k = 0; k < n; ++k) {
      for (int64_t i = 0; i < Count(dims[k]); ++i) {
        std::vector<int64_t> idx = Unravel(i, dims[k]);
        idx[dim] += offset;
        CopyElem(srcs[k], i, want, Ravel(idx, out), es);
      }
      offset += dims[k][dim];
    }
    auto plan = MakeConcatenatePlan(es, dims, dim);
    ASSERT_TRUE(plan.ok()) << plan.status();
    ASSERT_EQ(plan->total_bytes(), static_cast<int64_t>(want.size()));
    std::vector<const uint8_t*> ptrs;
    for (const auto& s : srcs) ptrs.push_back(s.data());
    std::vector<uint8_t> dst(want.size(), 0xCD);
    // Byte ranges of random length, as fixed chunks would cut them.
    for (int64_t b = 0; b < plan->total_bytes();) {
      const int64_t e = std::min(plan->total_bytes(), b + 1 + static_cast<int64_t>(rng() % 37));
      RunConcatenate(*plan, ptrs.data(), dst.data(), b, e);
      b = e;
    }
    EXPECT_EQ(dst, want);
  }
}

TEST(ConcatenateTest, SeedExample) {
  // Concat({{2, 3}, {4, 5}, {6, 7}}, 0) -> {2, 3, 4, 5, 6, 7}.
  const std::vector<int32_t> a = {2, 3}, b = {4, 5}, c = {6, 7};
  auto plan = MakeConcatenatePlan(4, {{2}, {2}, {2}}, 0);
  ASSERT_TRUE(plan.ok());
  const uint8_t* ptrs[] = {reinterpret_cast<const uint8_t*>(a.data()),
                           reinterpret_cast<const uint8_t*>(b.data()),
                           reinterpret_cast<const uint8_t*>(c.data())};
  std::vector<int32_t> dst(6);
  RunConcatenate(*plan, ptrs, reinterpret_cast<uint8_t*>(dst.data()), 0, plan->total_bytes());
  EXPECT_EQ(dst, (std::vector<int32_t>{2, 3, 4, 5, 6, 7}));
}

TEST(ConcatenateTest, RejectsMismatchedOperands) {
  EXPECT_FALSE(MakeConcatenatePlan(4, {{2, 3}, {2, 4}}, 0).ok());
  EXPECT_FALSE(MakeConcatenatePlan(4, {{2, 3}, {2}}, 0).ok());
  EXPECT_FALSE(MakeConcatenatePlan(4, {{2, 3}}, 2).ok());
  EXPECT_FALSE(MakeConcatenatePlan(4, {}, 0).ok());
}

}  // namespace
}  // namespace hlovm
