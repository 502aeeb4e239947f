#include "ops/custom/ffi_attributes.h"

#include "gtest/gtest.h"

namespace hlovm {
namespace {

TEST(FfiAttributes, ParsesTheDictionaryXlaPrints) {
  auto a = FfiAttributes::Parse(
      "{diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 85 : ui8}");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(*a->Char("diag", "NU"), 'N');
  EXPECT_EQ(*a->Char("side", "LR"), 'L');
  EXPECT_EQ(*a->Char("trans_x", "NTC"), 'T');
  EXPECT_EQ(*a->Char("uplo", "LU"), 'U');
  EXPECT_EQ(a->values().at("uplo").text, "ui8");
}

TEST(FfiAttributes, IntegersBoolsFloatsStrings) {
  auto a = FfiAttributes::Parse(
      "{high = 4 : i32, low = -1 : i32, left = true, eps = 1.5e-3 : f32, name = \"a\\\"b\"}");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(*a->Integer("high"), 4);
  EXPECT_EQ(*a->Integer("low"), -1);
  EXPECT_EQ(*a->Integer("left"), 1);
  EXPECT_EQ(a->values().at("eps").kind, FfiAttribute::Kind::kFloat);
  EXPECT_DOUBLE_EQ(a->values().at("eps").number, 1.5e-3);
  EXPECT_EQ(a->values().at("name").text, "a\"b");
}

TEST(FfiAttributes, JsonObjectAndEmptyText) {
  auto a = FfiAttributes::Parse("{\"uplo\": 76, \"mode\": 86}");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(*a->Char("uplo", "LU"), 'L');
  EXPECT_EQ(*a->Char("mode", "VN"), 'V');
  auto empty = FfiAttributes::Parse("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->values().empty());
  auto braces = FfiAttributes::Parse(" {} ");
  ASSERT_TRUE(braces.ok());
  EXPECT_TRUE(braces->values().empty());
}

TEST(FfiAttributes, ErrorsNameTheProblem) {
  auto missing = FfiAttributes::Parse("{mode = 86 : ui8}");
  ASSERT_TRUE(missing.ok());
  EXPECT_NE(std::string(missing->Integer("uplo").status().message()).find("missing attribute 'uplo'"),
            std::string::npos);
  auto bad_char = FfiAttributes::Parse("{uplo = 88 : ui8}");
  ASSERT_TRUE(bad_char.ok());
  const std::string message(bad_char->Char("uplo", "LU").status().message());
  EXPECT_NE(message.find("uplo = 88 is not one of 76 ('L'), 85 ('U')"), std::string::npos)
      << message;
  auto not_int = FfiAttributes::Parse("{uplo = \"L\"}");
  ASSERT_TRUE(not_int.ok());
  EXPECT_FALSE(not_int->Integer("uplo").ok());
  EXPECT_FALSE(FfiAttributes::Parse("{uplo = 76, uplo = 85}").ok());
  EXPECT_FALSE(FfiAttributes::Parse("{uplo 76}").ok());
  EXPECT_FALSE(FfiAttributes::Parse("{uplo = 76").ok());
  EXPECT_FALSE(FfiAttributes::Parse("{uplo = 7x6}").ok());
  EXPECT_FALSE(FfiAttributes::Parse("{uplo = 76} extra").ok());
  EXPECT_FALSE(FfiAttributes::Parse("uplo = 76").ok());
}

}  // namespace
}  // namespace hlovm
