#include "ops/shape/dynamic_slice.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace hlovm {
namespace {

TEST(DynamicSliceTest, SeedExamplesAndClamping) {
  // b = {{0,1,2},{3,4,5},{6,7,8},{9,10,11}}, sizes {2,2}.
  std::vector<float> b(12);
  for (int i = 0; i < 12; ++i) b[i] = static_cast<float>(i);
  auto plan = MakeDynamicSlicePlan(4, std::vector<int64_t>{4, 3}, std::vector<int64_t>{2, 2},
                                   ElementType::kS32, false);
  ASSERT_TRUE(plan.ok()) << plan.status();
  auto run = [&](int32_t s0, int32_t s1) {
    const uint8_t* starts[] = {reinterpret_cast<const uint8_t*>(&s0),
                               reinterpret_cast<const uint8_t*>(&s1)};
    const int64_t base = DynamicSliceBase(*plan, starts, true);
    std::vector<float> out(4, -1);
    RunDynamicSlice(*plan, reinterpret_cast<const uint8_t*>(b.data()), base,
                    reinterpret_cast<uint8_t*>(out.data()), 0, plan->copy.rows());
    return out;
  };
  EXPECT_EQ(run(2, 1), (std::vector<float>{7, 8, 10, 11}));
  EXPECT_EQ(run(5, 7), (std::vector<float>{7, 8, 10, 11}));   // clamped high
  EXPECT_EQ(run(-3, -1), (std::vector<float>{0, 1, 3, 4}));   // clamped low
}

TEST(DynamicSliceTest, IndexTypesReadAsTheirType) {
  const uint8_t u8 = 200;
  const int8_t s8 = -5;
  const uint64_t u64 = std::numeric_limits<uint64_t>::max();
  const uint8_t s4 = 0x0F;  // -1 in the low four bits
  EXPECT_EQ((*SelectIndexReader(ElementType::kU8))(&u8), 200);
  EXPECT_EQ((*SelectIndexReader(ElementType::kS8))(reinterpret_cast<const uint8_t*>(&s8)), -5);
  EXPECT_EQ((*SelectIndexReader(ElementType::kU64))(reinterpret_cast<const uint8_t*>(&u64)),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ((*SelectIndexReader(ElementType::kS4))(&s4), -1);
  EXPECT_EQ((*SelectIndexReader(ElementType::kU4))(&s4), 15);
  EXPECT_FALSE(SelectIndexReader(ElementType::kF32).ok());
}

TEST(DynamicUpdateSliceTest, SeedExampleWithVectorIndices) {
  std::vector<float> b(12);
  for (int i = 0; i < 12; ++i) b[i] = static_cast<float>(i);
  const std::vector<float> u = {12, 13, 14, 15, 16, 17};
  auto plan = MakeDynamicSlicePlan(4, std::vector<int64_t>{4, 3}, std::vector<int64_t>{3, 2},
                                   ElementType::kS64, true);
  ASSERT_TRUE(plan.ok());
  const int64_t starts[] = {1, 1};
  const uint8_t* ptr[] = {reinterpret_cast<const uint8_t*>(starts)};
  const int64_t base = DynamicSliceBase(*plan, ptr, false);
  RunDynamicUpdateSlice(*plan, reinterpret_cast<const uint8_t*>(u.data()), base,
                        reinterpret_cast<uint8_t*>(b.data()), 0, plan->copy.rows());
  EXPECT_EQ(b, (std::vector<float>{0, 1, 2, 3, 12, 13, 6, 14, 15, 9, 16, 17}));
}

TEST(DynamicSliceTest, RejectsSizesLargerThanTheOperand) {
  EXPECT_FALSE(MakeDynamicSlicePlan(4, std::vector<int64_t>{4}, std::vector<int64_t>{5},
                                    ElementType::kS32, false).ok());
  EXPECT_FALSE(MakeDynamicSlicePlan(4, std::vector<int64_t>{4}, std::vector<int64_t>{1, 1},
                                    ElementType::kS32, false).ok());
}

}  // namespace
}  // namespace hlovm
