#include "ops/shape/bitcast_convert.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace hlovm {
namespace {

TEST(BitcastConvertTest, ByteSizedTypesAreAliases) {
  EXPECT_TRUE(BitcastConvertIsAlias(ElementType::kF32, ElementType::kU8));
  EXPECT_TRUE(BitcastConvertIsAlias(ElementType::kC128, ElementType::kC64));
  EXPECT_TRUE(BitcastConvertIsAlias(ElementType::kS4, ElementType::kS4));
  EXPECT_FALSE(BitcastConvertIsAlias(ElementType::kS8, ElementType::kS4));
  EXPECT_FALSE(BitcastConvertIsAlias(ElementType::kS4, ElementType::kU4));
}

TEST(BitcastConvertTest, ByteSplitsIntoNibblesLowFirst) {
  // 0xA7 -> s4 {7, -6}: low nibble first, each sign-extended.
  const std::vector<uint8_t> src = {0xA7, 0x18};
  auto plan = MakeBitcastConvertPlan(ElementType::kU8, ElementType::kS4, 4);
  ASSERT_TRUE(plan.ok());
  std::vector<uint8_t> dst(4);
  RunBitcastConvert(*plan, src.data(), dst.data(), 0, 4);
  EXPECT_EQ(dst, (std::vector<uint8_t>{0x07, 0xFA, 0x08 | 0xF0, 0x01}));
}

TEST(BitcastConvertTest, NibblesJoinIntoWiderTypes) {
  // u4 {1, 2, 3, 4} -> u16 0x4321.
  const std::vector<uint8_t> src = {1, 2, 3, 4};
  auto plan = MakeBitcastConvertPlan(ElementType::kU4, ElementType::kU16, 1);
  ASSERT_TRUE(plan.ok());
  uint16_t out = 0;
  RunBitcastConvert(*plan, src.data(), reinterpret_cast<uint8_t*>(&out), 0, 1);
  EXPECT_EQ(out, 0x4321);
  // s4 -1 (held sign-extended) -> u4 15.
  const uint8_t minus_one = 0xFF;
  plan = MakeBitcastConvertPlan(ElementType::kS4, ElementType::kU4, 1);
  ASSERT_TRUE(plan.ok());
  uint8_t u = 0;
  RunBitcastConvert(*plan, &minus_one, &u, 0, 1);
  EXPECT_EQ(u, 15);
}

TEST(BitcastConvertTest, RoundTripsThroughTwoBitTypes) {
  const std::vector<uint8_t> src = {0x00, 0x1B, 0xE4, 0xFF};
  auto down = MakeBitcastConvertPlan(ElementType::kU8, ElementType::kS2, 16);
  auto up = MakeBitcastConvertPlan(ElementType::kS2, ElementType::kU8, 4);
  ASSERT_TRUE(down.ok() && up.ok());
  std::vector<uint8_t> mid(16), back(4);
  RunBitcastConvert(*down, src.data(), mid.data(), 0, 16);
  RunBitcastConvert(*up, mid.data(), back.data(), 0, 4);
  EXPECT_EQ(back, src);
  // 0x1B = 0b00011011 -> s2 {-1, -2, 1, 0}.
  EXPECT_EQ(static_cast<int8_t>(mid[4]), -1);
  EXPECT_EQ(static_cast<int8_t>(mid[5]), -2);
  EXPECT_EQ(static_cast<int8_t>(mid[6]), 1);
  EXPECT_EQ(static_cast<int8_t>(mid[7]), 0);
}

}  // namespace
}  // namespace hlovm
