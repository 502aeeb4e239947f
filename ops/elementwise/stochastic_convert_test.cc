#include "ops/elementwise/stochastic_convert.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace hlovm {
namespace {

std::vector<int8_t> RunS8(const std::vector<float>& x, const std::vector<uint32_t>& r) {
  auto plan = MakeStochasticConvertPlan(ElementType::kF32, ElementType::kU32, ElementType::kS8);
  EXPECT_TRUE(plan.ok()) << plan.status();
  std::vector<int8_t> out(x.size());
  RunStochasticConvert(*plan, reinterpret_cast<const uint8_t*>(x.data()),
                       reinterpret_cast<const uint8_t*>(r.data()),
                       reinterpret_cast<uint8_t*>(out.data()), 0, x.size());
  return out;
}

TEST(StochasticConvertTest, RoundsUpWhenRandomIsBelowTheFraction) {
  // 2.25: fraction 0.25 scales to 2^30; random below rounds up, else down.
  const uint32_t quarter = 1u << 30;
  EXPECT_EQ(RunS8({2.25f, 2.25f, 2.25f}, {0, quarter - 1, quarter}),
            (std::vector<int8_t>{3, 3, 2}));
  // Negative values round their magnitude the same way.
  EXPECT_EQ(RunS8({-2.25f, -2.25f}, {0, quarter}), (std::vector<int8_t>{-3, -2}));
  // Whole numbers never round.
  EXPECT_EQ(RunS8({5.0f, -0.0f}, {0, 0}), (std::vector<int8_t>{5, 0}));
}

TEST(StochasticConvertTest, SaturatesAndMapsNaNToZero) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(RunS8({300.0f, -300.0f, 127.5f, -128.0f, nan, inf, -inf}, {0, 0, 0, 0, 0, 0, 0}),
            (std::vector<int8_t>{127, -128, 127, -128, 0, 127, -128}));
  // 126.5 rounds up to 127 without wrapping; -127.5 rounds to -128.
  EXPECT_EQ(RunS8({126.5f, -127.5f}, {0, 0}), (std::vector<int8_t>{127, -128}));
}

TEST(StochasticConvertTest, RejectsOtherTypes) {
  EXPECT_FALSE(MakeStochasticConvertPlan(ElementType::kF32, ElementType::kU16,
                                         ElementType::kS8).ok());
  EXPECT_FALSE(MakeStochasticConvertPlan(ElementType::kF32, ElementType::kU32,
                                         ElementType::kU8).ok());
  EXPECT_FALSE(MakeStochasticConvertPlan(ElementType::kS32, ElementType::kU32,
                                         ElementType::kS8).ok());
}

}  // namespace
}  // namespace hlovm
