#include "ops/shape/pad.h"

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

// Reference straight from the definition: interior padding first, then the
// edges (negative edges cut).
std::vector<uint8_t> Reference(const std::vector<uint8_t>& src, const std::vector<int64_t>& dims,
                               const PaddingConfig& cfg, const std::vector<uint8_t>& value,
                               std::vector<int64_t>* out_dims) {
  const int es = static_cast<int>(value.size());
  out_dims->clear();
  for (size_t d = 0; d < dims.size(); ++d) {
    const int64_t spread = dims[d] == 0 ? 0 : dims[d] + (dims[d] - 1) * cfg[d].interior;
    out_dims->push_back(cfg[d].low + spread + cfg[d].high);
  }
  std::vector<uint8_t> dst(Count(*out_dims) * es);
  for (int64_t i = 0; i < Count(*out_dims); ++i) std::memcpy(dst.data() + i * es, value.data(), es);
  for (int64_t i = 0; i < Count(dims); ++i) {
    std::vector<int64_t> idx = Unravel(i, dims);
    bool inside = true;
    for (size_t d = 0; d < dims.size(); ++d) {
      idx[d] = cfg[d].low + idx[d] * (cfg[d].interior + 1);
      inside = inside && idx[d] >= 0 && idx[d] < (*out_dims)[d];
    }
    if (inside) CopyElem(src, i, dst, Ravel(idx, *out_dims), es);
  }
  return dst;
}

TEST(PadTest, RandomConfigsMatchReference) {
  std::mt19937_64 rng(11);
  int checked = 0;
  for (int iter = 0; iter < 600; ++iter) {
    const int rank = static_cast<int>(rng() % 4);
    const int es = std::vector<int>{1, 2, 4, 8, 16}[rng() % 5];
    std::vector<int64_t> dims(rank);
    PaddingConfig cfg(rank);
    bool valid = true;
    for (int d = 0; d < rank; ++d) {
      dims[d] = static_cast<int64_t>(rng() % 6);
      cfg[d].low = static_cast<int64_t>(rng() % 7) - 3;
      cfg[d].high = static_cast<int64_t>(rng() % 7) - 3;
      cfg[d].interior = static_cast<int64_t>(rng() % 3);
      const int64_t spread = dims[d] == 0 ? 0 : dims[d] + (dims[d] - 1) * cfg[d].interior;
      valid = valid && cfg[d].low + spread + cfg[d].high >= 0;
    }
    auto plan = MakePadPlan(es, dims, cfg);
    if (!valid) {
      EXPECT_FALSE(plan.ok());
      continue;
    }
    ASSERT_TRUE(plan.ok()) << plan.status();
    const std::vector<uint8_t> src = shape_test::RandomBytes(Count(dims) * es, rng);
    const std::vector<uint8_t> value = shape_test::RandomBytes(es, rng);
    std::vector<int64_t> out_dims;
    const std::vector<uint8_t> want = Reference(src, dims, cfg, value, &out_dims);
    EXPECT_EQ(plan->out_dims, out_dims);
    std::vector<uint8_t> dst(want.size() + 1, 0xEE);
    for (int64_t r = 0; r < plan->rows(); ++r) RunPad(*plan, src.data(), value.data(), dst.data(), r, r + 1);
    EXPECT_EQ(dst.back(), 0xEE) << "wrote past the result";
    dst.pop_back();
    EXPECT_EQ(dst, want);
    ++checked;
  }
  EXPECT_GT(checked, 300);
}

TEST(PadTest, SeedStyleExample) {
  // {1, 2, 3} with low 1, high 2, interior 1 and value 0 -> {0,1,0,2,0,3,0,0}.
  const std::vector<int32_t> src = {1, 2, 3};
  const int32_t zero = 0;
  auto plan = MakePadPlan(4, std::vector<int64_t>{3}, PaddingConfig{{1, 2, 1}});
  ASSERT_TRUE(plan.ok());
  std::vector<int32_t> dst(8, -1);
  RunPad(*plan, src.data(), &zero, dst.data(), 0, plan->rows());
  EXPECT_EQ(dst, (std::vector<int32_t>{0, 1, 0, 2, 0, 3, 0, 0}));
}

TEST(PadTest, RejectsNegativeInteriorAndNegativeSize) {
  EXPECT_FALSE(MakePadPlan(4, std::vector<int64_t>{3}, PaddingConfig{{0, 0, -1}}).ok());
  EXPECT_FALSE(MakePadPlan(4, std::vector<int64_t>{3}, PaddingConfig{{-2, -2, 0}}).ok());
  EXPECT_FALSE(MakePadPlan(4, std::vector<int64_t>{3}, PaddingConfig{}).ok());
}

}  // namespace
}  // namespace hlovm
