#include "core/element_type.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace hlovm {
namespace {

TEST(ElementTypeTest, NamesRoundTripAndAreUnique) {
  std::set<std::string> names;
  for (int i = 0; i < ElementTypeCount(); ++i) {
    ElementType type = static_cast<ElementType>(i);
    std::string_view name = ElementTypeName(type);
    EXPECT_TRUE(names.insert(std::string(name)).second) << name;
    ASSERT_TRUE(ElementTypeFromName(name).has_value()) << name;
    EXPECT_EQ(*ElementTypeFromName(name), type);
  }
  EXPECT_EQ(ElementTypeName(ElementType::kPred), "pred");
  EXPECT_EQ(ElementTypeName(ElementType::kBF16), "bf16");
  EXPECT_EQ(ElementTypeName(ElementType::kC128), "c128");
  EXPECT_EQ(ElementTypeName(ElementType::kF8E4M3B11FNUZ), "f8e4m3b11fnuz");
  EXPECT_EQ(ElementTypeName(ElementType::kF8E8M0FNU), "f8e8m0fnu");
  EXPECT_EQ(ElementTypeName(ElementType::kF4E2M1FN), "f4e2m1fn");
  EXPECT_FALSE(ElementTypeFromName("F32").has_value());
  EXPECT_FALSE(ElementTypeFromName("f31").has_value());
  EXPECT_FALSE(ElementTypeFromName("").has_value());
}

TEST(ElementTypeTest, Widths) {
  struct Case {
    ElementType type;
    int bits, bytes, packed_bits;
  };
  const Case kCases[] = {
      {ElementType::kPred, 8, 1, 8},      {ElementType::kS2, 2, 1, 2},
      {ElementType::kS4, 4, 1, 4},        {ElementType::kU2, 2, 1, 2},
      {ElementType::kU4, 4, 1, 4},        {ElementType::kS8, 8, 1, 8},
      {ElementType::kS16, 16, 2, 16},     {ElementType::kU32, 32, 4, 32},
      {ElementType::kS64, 64, 8, 64},     {ElementType::kF16, 16, 2, 16},
      {ElementType::kBF16, 16, 2, 16},    {ElementType::kF32, 32, 4, 32},
      {ElementType::kF64, 64, 8, 64},     {ElementType::kC64, 64, 8, 64},
      {ElementType::kC128, 128, 16, 128}, {ElementType::kF8E5M2, 8, 1, 8},
      {ElementType::kF8E8M0FNU, 8, 1, 8}, {ElementType::kF6E2M3FN, 6, 1, 8},
      {ElementType::kF6E3M2FN, 6, 1, 8},  {ElementType::kF4E2M1FN, 4, 1, 4},
      {ElementType::kToken, 0, 0, 0},     {ElementType::kTuple, 0, 0, 0},
      {ElementType::kOpaque, 0, 0, 0},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(BitWidth(c.type), c.bits) << ElementTypeName(c.type);
    EXPECT_EQ(ByteWidth(c.type), c.bytes) << ElementTypeName(c.type);
    EXPECT_EQ(PackedBitWidth(c.type), c.packed_bits) << ElementTypeName(c.type);
  }
}

TEST(ElementTypeTest, PackedByteSize) {
  EXPECT_EQ(PackedByteSize(ElementType::kS4, 0), 0);
  EXPECT_EQ(PackedByteSize(ElementType::kS4, 1), 1);
  EXPECT_EQ(PackedByteSize(ElementType::kS4, 2), 1);
  EXPECT_EQ(PackedByteSize(ElementType::kS4, 3), 2);
  EXPECT_EQ(PackedByteSize(ElementType::kU2, 5), 2);
  EXPECT_EQ(PackedByteSize(ElementType::kU2, 8), 2);
  EXPECT_EQ(PackedByteSize(ElementType::kF4E2M1FN, 7), 4);
  EXPECT_EQ(PackedByteSize(ElementType::kF6E2M3FN, 7), 7);
  EXPECT_EQ(PackedByteSize(ElementType::kF32, 7), 28);
  EXPECT_EQ(PackedByteSize(ElementType::kC128, 3), 48);
  EXPECT_EQ(PackedByteSize(ElementType::kPred, 9), 9);
  EXPECT_EQ(PackedByteSize(ElementType::kToken, 9), 0);
}

TEST(ElementTypeTest, Classification) {
  for (int i = 0; i < ElementTypeCount(); ++i) {
    ElementType t = static_cast<ElementType>(i);
    TypeKind kind = ElementTypeKind(t);
    EXPECT_EQ(IsArrayType(t),
              kind != TypeKind::kToken && kind != TypeKind::kTuple && kind != TypeKind::kOpaque);
    EXPECT_EQ(IsInteger(t), IsSignedInteger(t) || IsUnsignedInteger(t));
    // Exactly one of the array categories holds for an array type.
    if (IsArrayType(t)) {
      int categories = (t == ElementType::kPred) + IsInteger(t) + IsFloatingPoint(t) + IsComplex(t);
      EXPECT_EQ(categories, 1) << ElementTypeName(t);
    }
    if (IsSmallFloat(t)) {
      EXPECT_TRUE(IsFloatingPoint(t));
      EXPECT_LE(BitWidth(t), 8);
    }
  }
  EXPECT_TRUE(IsSignedInteger(ElementType::kS4));
  EXPECT_TRUE(IsUnsignedInteger(ElementType::kU64));
  EXPECT_FALSE(IsInteger(ElementType::kPred));
  EXPECT_TRUE(IsFloatingPoint(ElementType::kBF16));
  EXPECT_FALSE(IsSmallFloat(ElementType::kBF16));
  EXPECT_FALSE(IsSmallFloat(ElementType::kF16));
  EXPECT_TRUE(IsSmallFloat(ElementType::kF8E4M3FN));
  EXPECT_TRUE(IsSmallFloat(ElementType::kF4E2M1FN));
  EXPECT_TRUE(IsComplex(ElementType::kC64));
  EXPECT_FALSE(IsFloatingPoint(ElementType::kC64));
  EXPECT_TRUE(IsSubByte(ElementType::kS2));
  EXPECT_TRUE(IsSubByte(ElementType::kF6E3M2FN));
  EXPECT_FALSE(IsSubByte(ElementType::kPred));
  EXPECT_FALSE(IsSubByte(ElementType::kToken));
  EXPECT_FALSE(IsSubByte(ElementType::kS8));
  EXPECT_EQ(ComplexComponentType(ElementType::kC64), ElementType::kF32);
  EXPECT_EQ(ComplexComponentType(ElementType::kC128), ElementType::kF64);
  EXPECT_EQ(ComplexComponentType(ElementType::kS32), ElementType::kS32);
}

}  // namespace
}  // namespace hlovm
