#include "core/literal.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/float_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace {

using ::testing::HasSubstr;

// Parses `value` as a literal of `shape_text`.
absl::StatusOr<Literal> ParseValue(std::string_view shape_text, std::string_view value) {
  absl::StatusOr<Shape> shape = ParseShape(shape_text);
  if (!shape.ok()) return shape.status();
  TextCursor cursor{value, 0};
  Literal literal;
  absl::Status status = ParseLiteralValue(cursor, *shape, &literal);
  if (!status.ok()) return status;
  status = cursor.SkipSpace();
  if (!status.ok()) return status;
  if (!cursor.AtEnd()) return absl::InvalidArgumentError("trailing text");
  return literal;
}

// The value printed back after parsing `value` as a `shape_text` literal.
std::string Reprint(std::string_view shape_text, std::string_view value) {
  absl::StatusOr<Literal> literal = ParseValue(shape_text, value);
  if (!literal.ok()) return std::string("error: ") + std::string(literal.status().message());
  return literal->ValueToString();
}

// One element of `type` given by its bit pattern, printed.
std::string PrintBits(ElementType type, uint64_t bits) {
  uint8_t bytes[16] = {};
  std::memcpy(bytes, &bits, 8);
  return ElementToString(type, bytes);
}

std::string PrintF32(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return PrintBits(ElementType::kF32, bits);
}

std::string PrintF64(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, 8);
  return PrintBits(ElementType::kF64, bits);
}

// Bit pattern of a scalar literal parsed from `value`.
uint64_t ParsedBits(std::string_view shape_text, std::string_view value) {
  absl::StatusOr<Literal> literal = ParseValue(shape_text, value);
  EXPECT_TRUE(literal.ok()) << shape_text << " " << value << ": " << literal.status();
  if (!literal.ok()) return ~uint64_t{0};
  uint64_t bits = 0;
  std::memcpy(&bits, literal->untyped_data(), std::min<int64_t>(8, literal->size_bytes()));
  return bits;
}

std::string ErrorOf(std::string_view text) {
  absl::StatusOr<Literal> literal = ParseLiteral(text);
  if (literal.ok()) return "ok";
  EXPECT_EQ(literal.status().code(), absl::StatusCode::kInvalidArgument) << literal.status();
  return std::string(literal.status().message());
}

//===----------------------------------------------------------------------===//
// Printing, as XLA prints constants.
//===----------------------------------------------------------------------===//

// Constants as they appear in XLA-printed HLO (xla/ tests and dumps).
TEST(LiteralStorageTest, ReusedMappingsAreZeroedForCreate) {
  // 4 MiB: mapped, and kept for reuse when freed.
  const Shape shape(ElementType::kF32, {1024, 1024});
  for (int round = 0; round < 3; ++round) {
    auto lit = Literal::Create(shape);
    ASSERT_TRUE(lit.ok()) << lit.status();
    const uint8_t* bytes = lit->untyped_data();
    int64_t nonzero = 0;
    for (int64_t i = 0; i < lit->size_bytes(); ++i) nonzero += bytes[i] != 0;
    EXPECT_EQ(nonzero, 0) << "round " << round;
    std::memset(lit->untyped_data(), 0xab, lit->size_bytes());
  }
  auto raw = Literal::CreateUninitialized(shape);
  ASSERT_TRUE(raw.ok()) << raw.status();
  EXPECT_EQ(raw->size_bytes(), 4 << 20);
  EXPECT_TRUE(raw->shape().Compatible(shape));
}

TEST(LiteralPrintTest, ConstantsFromXlaText) {
  struct Case {
    const char* shape;
    const char* value;
  };
  const Case cases[] = {
      {"s32[1,2,3]{2,1,0}", "{ { { 1, 2, 3 }, { 4, 5, 6 } } }"},
      {"f32[1,1,1,1]{3,2,1,0}", "{ { /*i0=0*/ { /*i1=0*/ {256} } } }"},
      {"f32[1,1,1,1]{3,2,1,0}", "{ { /*i0=0*/ { /*i1=0*/ {1e-06} } } }"},
      {"f32[3,2,1,1]{3,2,1,0}",
       "{ { /*i0=0*/ { /*i1=0*/ {-1} }, { /*i1=1*/ {4.1} } }, { /*i0=1*/ { /*i1=0*/ {2} }, { "
       "/*i1=1*/ {4.1} } }, { /*i0=2*/ { /*i1=0*/ {5} }, { /*i1=1*/ {4.4} } } }"},
      {"f32[2,0,4,3]{3,2,1,0}", "{ { /*i0=0*/ }, { /*i0=1*/ } }"},
      {"pred[2,3]{1,0}", "{ { 0, 1, 0 }, { 1, 0, 1 } }"},
      {"f32[0]{0}", "{}"},
      {"bf16[0]{0}", "{}"},
      {"s32[1,1]{1,0}", "{ {262144} }"},
      {"f32[1,1,1]{2,1,0}", "{ { {-0.5} } }"},
      {"f64[]", "-0"},
      {"f64[]", "-0.66666666666666663"},
      {"f64[]", "-0.69314718055994529"},
      {"f32[]", "-0.99999994"},
      {"f32[]", "-0.707106769"},
      {"f32[]", "-0.00125372503"},
      {"f32[]", "nan"},
      {"f32[]", "-nan"},
      {"bf16[]", "0.04468"},
      {"bf16[]", "0.7969"},
      {"bf16[]", "39.25"},
      {"bf16[]", "nan"},
      {"c64[]", "(0, 1)"},
      {"c64[]", "(nan, 0)"},
      {"pred[]", "true"},
      {"s32[3]{0}", "{1, 2, 3}"},
      {"f8e4m3b11fnuz[2]{0}", "{-nan, 7}"},
      {"f8e5m2fnuz[]", "-nan"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Reprint(c.shape, c.value), c.value) << c.shape;
  }
}

TEST(LiteralPrintTest, F32UsesSixDigitsWhenTheyReadBack) {
  EXPECT_EQ(PrintF32(0.1f), "0.1");
  EXPECT_EQ(PrintF32(1.5f), "1.5");
  EXPECT_EQ(PrintF32(1.0f / 3.0f), "0.333333343");
  EXPECT_EQ(PrintF32(16777216.0f), "16777216");
  EXPECT_EQ(PrintF32(1e10f), "1e+10");
  EXPECT_EQ(PrintF32(123456.0f), "123456");
  EXPECT_EQ(PrintF32(1234567.0f), "1234567");
  EXPECT_EQ(PrintF32(std::numeric_limits<float>::max()), "3.40282347e+38");
  EXPECT_EQ(PrintF32(std::numeric_limits<float>::denorm_min()), "1.4013e-45");
  EXPECT_EQ(PrintF32(-0.0f), "-0");
  EXPECT_EQ(PrintF32(0.0f), "0");
  EXPECT_EQ(PrintF32(INFINITY), "inf");
  EXPECT_EQ(PrintF32(-INFINITY), "-inf");
  EXPECT_EQ(PrintBits(ElementType::kF32, 0x7fc00000), "nan");
  EXPECT_EQ(PrintBits(ElementType::kF32, 0xffc00000), "-nan");
  EXPECT_EQ(PrintBits(ElementType::kF32, 0x7f800001), "nan(0x1)");
  EXPECT_EQ(PrintBits(ElementType::kF32, 0x7fc00001), "nan(0x400001)");
  EXPECT_EQ(PrintBits(ElementType::kF32, 0xffffffff), "-nan(0x7fffff)");
}

TEST(LiteralPrintTest, F64UsesFifteenDigitsWhenTheyReadBack) {
  EXPECT_EQ(PrintF64(0.1), "0.1");
  EXPECT_EQ(PrintF64(1.0 / 3.0), "0.33333333333333331");
  EXPECT_EQ(PrintF64(1e300), "1e+300");
  EXPECT_EQ(PrintF64(-0.0), "-0");
  EXPECT_EQ(PrintF64(std::numeric_limits<double>::denorm_min()), "4.94065645841247e-324");
  EXPECT_EQ(PrintBits(ElementType::kF64, 0x7ff8000000000000), "nan");
  EXPECT_EQ(PrintBits(ElementType::kF64, 0x7ff0000000000001), "nan(0x1)");
  EXPECT_EQ(PrintBits(ElementType::kF64, 0xfff0000000000000), "-inf");
}

TEST(LiteralPrintTest, HalfAndBFloat16UseMaxDigits10) {
  EXPECT_EQ(PrintBits(ElementType::kF16, 0x3c00), "1");
  EXPECT_EQ(PrintBits(ElementType::kF16, 0x2e66), "0.099976");  // f16(0.1)
  EXPECT_EQ(PrintBits(ElementType::kF16, 0x7bff), "65504");
  EXPECT_EQ(PrintBits(ElementType::kF16, 0x0400), "6.1035e-05");
  EXPECT_EQ(PrintBits(ElementType::kF16, 0x0001), "5.9605e-08");
  EXPECT_EQ(PrintBits(ElementType::kF16, 0x8000), "-0");
  EXPECT_EQ(PrintBits(ElementType::kF16, 0x7c00), "inf");
  EXPECT_EQ(PrintBits(ElementType::kF16, 0x7e00), "nan");
  EXPECT_EQ(PrintBits(ElementType::kF16, 0xfe00), "-nan");
  EXPECT_EQ(PrintBits(ElementType::kF16, 0x7c01), "nan(0x1)");
  EXPECT_EQ(PrintBits(ElementType::kBF16, 0x3dcd), "0.1001");  // bf16(0.1)
  EXPECT_EQ(PrintBits(ElementType::kBF16, 0x4049), "3.141");   // 3.140625
  EXPECT_EQ(PrintBits(ElementType::kBF16, 0x7fc0), "nan");
  EXPECT_EQ(PrintBits(ElementType::kBF16, 0x7f81), "nan(0x1)");
  EXPECT_EQ(PrintBits(ElementType::kBF16, 0xff80), "-inf");
}

TEST(LiteralPrintTest, SmallFloats) {
  // f8e4m3fn: max 448, NaN only S.1111.111, printed without payload.
  EXPECT_EQ(PrintBits(ElementType::kF8E4M3FN, 0x7e), "448");
  EXPECT_EQ(PrintBits(ElementType::kF8E4M3FN, 0x7f), "nan");
  EXPECT_EQ(PrintBits(ElementType::kF8E4M3FN, 0xff), "-nan");
  EXPECT_EQ(PrintBits(ElementType::kF8E4M3FN, 0x1d), "0.102");  // 0.1015625, 3 digits
  EXPECT_EQ(PrintBits(ElementType::kF8E4M3FN, 0x80), "-0");
  // f8e5m2: IEEE-like, payload = the two mantissa bits, quiet bit 0x2.
  EXPECT_EQ(PrintBits(ElementType::kF8E5M2, 0x7b), "5.7e+04");  // 57344, 2 digits
  EXPECT_EQ(PrintBits(ElementType::kF8E5M2, 0x7c), "inf");
  EXPECT_EQ(PrintBits(ElementType::kF8E5M2, 0x7d), "nan(0x1)");
  EXPECT_EQ(PrintBits(ElementType::kF8E5M2, 0x7e), "nan");
  EXPECT_EQ(PrintBits(ElementType::kF8E5M2, 0xff), "-nan(0x3)");
  // f8e3m4 and f8e4m3: payload NaNs as FORMAT.md shows them.
  EXPECT_EQ(PrintBits(ElementType::kF8E3M4, 0x7f), "nan(0xf)");
  EXPECT_EQ(PrintBits(ElementType::kF8E3M4, 0xff), "-nan(0xf)");
  EXPECT_EQ(PrintBits(ElementType::kF8E3M4, 0x78), "nan");
  EXPECT_EQ(PrintBits(ElementType::kF8E3M4, 0x7c), "nan(0xc)");
  EXPECT_EQ(PrintBits(ElementType::kF8E3M4, 0x70), "inf");
  EXPECT_EQ(PrintBits(ElementType::kF8E4M3, 0x78), "inf");
  // The fnuz types have one NaN, 1.000...0, which XLA prints with its sign
  // (XLA's own text: `f8e5m2fnuz[] constant(-nan)`); f8e8m0fnu has no sign.
  EXPECT_EQ(PrintBits(ElementType::kF8E4M3FNUZ, 0x80), "-nan");
  EXPECT_EQ(PrintBits(ElementType::kF8E5M2FNUZ, 0x80), "-nan");
  EXPECT_EQ(PrintBits(ElementType::kF8E4M3B11FNUZ, 0x80), "-nan");
  EXPECT_EQ(PrintBits(ElementType::kF8E8M0FNU, 0xff), "nan");
  EXPECT_EQ(PrintBits(ElementType::kF8E8M0FNU, 0x7f), "1");
  EXPECT_EQ(PrintBits(ElementType::kF8E8M0FNU, 0x80), "2");
  EXPECT_EQ(PrintBits(ElementType::kF8E8M0FNU, 0x01), "1.2e-38");  // 2^-126
  // 2^-127: "5.9e-39" would read back as 2^-126, so all digits are printed.
  EXPECT_EQ(PrintBits(ElementType::kF8E8M0FNU, 0x00), "5.8774717541114375e-39");
  // 6- and 4-bit types.
  EXPECT_EQ(PrintBits(ElementType::kF4E2M1FN, 0x7), "6");
  EXPECT_EQ(PrintBits(ElementType::kF4E2M1FN, 0xf), "-6");
  EXPECT_EQ(PrintBits(ElementType::kF4E2M1FN, 0x1), "0.5");
  EXPECT_EQ(PrintBits(ElementType::kF6E2M3FN, 0x1f), "7.5");
  EXPECT_EQ(PrintBits(ElementType::kF6E3M2FN, 0x1f), "28");
  EXPECT_EQ(PrintBits(ElementType::kF6E3M2FN, 0x20), "-0");
}

TEST(LiteralPrintTest, IntegersAndPred) {
  EXPECT_EQ(PrintBits(ElementType::kS4, 0xf8), "-8");
  EXPECT_EQ(PrintBits(ElementType::kS4, 0x08), "-8");  // only the low bits count
  EXPECT_EQ(PrintBits(ElementType::kS4, 0x07), "7");
  EXPECT_EQ(PrintBits(ElementType::kU4, 0x0f), "15");
  EXPECT_EQ(PrintBits(ElementType::kS2, 0x02), "-2");
  EXPECT_EQ(PrintBits(ElementType::kU2, 0x03), "3");
  EXPECT_EQ(PrintBits(ElementType::kS64, 0x8000000000000000), "-9223372036854775808");
  EXPECT_EQ(PrintBits(ElementType::kU64, ~uint64_t{0}), "18446744073709551615");
  EXPECT_EQ(PrintBits(ElementType::kS16, 0xffff), "-1");
  EXPECT_EQ(PrintBits(ElementType::kPred, 1), "true");
  EXPECT_EQ(PrintBits(ElementType::kPred, 0), "false");
  EXPECT_EQ(Literal::CreateR1<bool>({true, false}).ValueToString(), "{1, 0}");
  EXPECT_EQ(Literal::CreateR0<bool>(false).ValueToString(), "false");
}

TEST(LiteralPrintTest, Complex) {
  EXPECT_EQ(Literal::CreateR0<std::complex<float>>({1.0f, -2.5f}).ValueToString(), "(1, -2.5)");
  EXPECT_EQ(Literal::CreateR0<std::complex<double>>({0.1, -INFINITY}).ValueToString(),
            "(0.1, -inf)");
  EXPECT_EQ(Reprint("c128[2]", "{(1, 2), (-nan(0x5), 0.33333333333333331)}"),
            "{(1, 2), (-nan(0x5), 0.33333333333333331)}");
}

TEST(LiteralPrintTest, ToStringIsMultiLineWithShape) {
  EXPECT_EQ(Literal::CreateR2<float>({{1, 2}, {3, 4}}).ToString(),
            "f32[2,2] {\n  { 1, 2 },\n  { 3, 4 }\n}");
  EXPECT_EQ(Literal::CreateR2<float>({{1, 2}, {3, 4}}).ValueToString(), "{ { 1, 2 }, { 3, 4 } }");
  EXPECT_EQ(Literal::CreateR1<int32_t>({1, 2, 3}).ToString(), "s32[3] {1, 2, 3}");
  EXPECT_EQ(Literal::CreateR1<int32_t>({1, 2, 3}).ToStringWithLayout(), "s32[3]{0} {1, 2, 3}");
  EXPECT_EQ(Literal::CreateR0<float>(1.5f).ToString(), "f32[] 1.5");
  EXPECT_EQ(Literal::CreateR2<int32_t>({{1}, {2}}).ToString(), "s32[2,1] {\n  {1},\n  {2}\n}");
  std::vector<Literal> elements;
  elements.push_back(Literal::CreateR0<float>(1.0f));
  elements.push_back(Literal::CreateR1<int32_t>({2, 3}));
  Literal tuple = Literal::Tuple(std::move(elements));
  EXPECT_EQ(tuple.ToString(), "(\nf32[] 1,\ns32[2] {2, 3}\n)");
  EXPECT_EQ(tuple.ValueToString(), "( 1, {2, 3} )");

  absl::StatusOr<Literal> r3 =
      ParseValue("s32[2,2,2]", "{ { { 1, 2 }, { 3, 4 } }, { { 5, 6 }, { 7, 8 } } }");
  ASSERT_TRUE(r3.ok()) << r3.status();
  EXPECT_EQ(r3->ToString(),
            "s32[2,2,2] {\n{\n  { 1, 2 },\n  { 3, 4 }\n},\n{\n  { 5, 6 },\n  { 7, 8 }\n}\n}");
  absl::StatusOr<Literal> r4 = ParseValue(
      "s32[2,1,1,2]", "{ { /*i0=0*/ { /*i1=0*/ { 1, 2 } } }, { /*i0=1*/ { /*i1=0*/ { 3, 4 } } } }");
  ASSERT_TRUE(r4.ok()) << r4.status();
  EXPECT_EQ(
      r4->ToString(),
      "s32[2,1,1,2] {\n{ /*i0=0*/\n{ /*i1=0*/\n  { 1, 2 }\n}\n},\n{ /*i0=1*/\n{ /*i1=0*/\n  { 3, "
      "4 }\n}\n}\n}");
  EXPECT_EQ(Reprint("f32[0,2]", "{  }"), "{  }");
  EXPECT_EQ(Reprint("f32[2,0]", "{ {}, {} }"), "{ {}, {} }");
}

TEST(LiteralPrintTest, PrintsLogicalOrderWhateverTheLayout) {
  absl::StatusOr<Literal> literal = ParseLiteral("f32[2,3]{0,1} { { 1, 2, 3 }, { 4, 5, 6 } }");
  ASSERT_TRUE(literal.ok()) << literal.status();
  EXPECT_EQ(literal->shape().ToString(), "f32[2,3]{0,1}");
  // Column-major storage.
  std::vector<float> stored(literal->data<float>().begin(), literal->data<float>().end());
  EXPECT_EQ(stored, (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(literal->ValueToString(), "{ { 1, 2, 3 }, { 4, 5, 6 } }");
  EXPECT_EQ(literal->Get<float>({1, 0}), 4.0f);
  absl::StatusOr<Literal> row_major = literal->Relayout(Layout::RowMajor(2));
  ASSERT_TRUE(row_major.ok());
  std::vector<float> row(row_major->data<float>().begin(), row_major->data<float>().end());
  EXPECT_EQ(row, (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(LiteralPrintTest, ElidedPrintsDots) {
  absl::StatusOr<Literal> literal = ParseValue("f32[4]", "{...}");
  ASSERT_TRUE(literal.ok()) << literal.status();
  EXPECT_TRUE(literal->elided());
  EXPECT_EQ(literal->ValueToString(), "{...}");
  for (float v : literal->data<float>()) EXPECT_EQ(v, 0.0f);
}

//===----------------------------------------------------------------------===//
// Parsing.
//===----------------------------------------------------------------------===//

TEST(LiteralParseTest, SpecialFloatValues) {
  EXPECT_EQ(ParsedBits("f32[]", "-0"), 0x80000000u);
  EXPECT_EQ(ParsedBits("f32[]", "-0.0"), 0x80000000u);
  EXPECT_EQ(ParsedBits("f32[]", "0"), 0u);
  EXPECT_EQ(ParsedBits("f32[]", "nan"), 0x7fc00000u);
  EXPECT_EQ(ParsedBits("f32[]", "-nan"), 0xffc00000u);
  EXPECT_EQ(ParsedBits("f32[]", "nan(0x1)"), 0x7f800001u);
  EXPECT_EQ(ParsedBits("f32[]", "-nan(0x7fffff)"), 0xffffffffu);
  EXPECT_EQ(ParsedBits("f32[]", "inf"), 0x7f800000u);
  EXPECT_EQ(ParsedBits("f32[]", "-inf"), 0xff800000u);
  EXPECT_EQ(ParsedBits("f64[]", "nan(0x1)"), 0x7ff0000000000001u);
  EXPECT_EQ(ParsedBits("f64[]", "-0"), 0x8000000000000000u);
  EXPECT_EQ(ParsedBits("f16[]", "nan(0x3ff)"), 0x7fffu);
  EXPECT_EQ(ParsedBits("f16[]", "-nan"), 0xfe00u);
  EXPECT_EQ(ParsedBits("bf16[]", "nan"), 0x7fc0u);
  EXPECT_EQ(ParsedBits("f8e4m3fn[]", "nan"), 0x7fu);
  EXPECT_EQ(ParsedBits("f8e4m3fn[]", "-nan"), 0xffu);
  EXPECT_EQ(ParsedBits("f8e4m3fnuz[]", "-nan"), 0x80u);
  EXPECT_EQ(ParsedBits("f8e5m2fnuz[]", "nan"), 0x80u);
  EXPECT_EQ(ParsedBits("f8e8m0fnu[]", "nan"), 0xffu);
  EXPECT_EQ(ParsedBits("f8e3m4[]", "nan(0xf)"), 0x7fu);
  EXPECT_EQ(ParsedBits("f8e3m4[]", "-nan(0xf)"), 0xffu);
  EXPECT_EQ(ParsedBits("f8e5m2[]", "nan"), 0x7eu);
  EXPECT_EQ(ParsedBits("f8e5m2[]", "-inf"), 0xfcu);
  EXPECT_EQ(ParsedBits("f6e2m3fn[]", "-0.0"), 0x20u);
  EXPECT_EQ(ParsedBits("f4e2m1fn[]", "-6"), 0xfu);
  EXPECT_EQ(ParsedBits("c64[]", "(-0, nan(0x2))"), 0x7f80000280000000u);
}

TEST(LiteralParseTest, DecimalsRoundToNearestEven) {
  EXPECT_EQ(ParsedBits("f32[]", "0.1"), 0x3dcccccdu);
  EXPECT_EQ(ParsedBits("f32[]", "1e-45"), 0x00000001u);
  EXPECT_EQ(ParsedBits("f32[]", "3.40282356e38"), 0x7f7fffffu);
  EXPECT_EQ(ParsedBits("f64[]", "2.2250738585072011e-308"), 0x000fffffffffffffu);
  EXPECT_EQ(ParsedBits("bf16[]", "1.00390625"), 0x3f80u);  // tie: even
  EXPECT_EQ(ParsedBits("bf16[]", "1.01171875"), 0x3f82u);  // tie: even
  EXPECT_EQ(ParsedBits("bf16[]", "1.0039063"), 0x3f81u);
  EXPECT_EQ(ParsedBits("f16[]", "65519"), 0x7bffu);
  EXPECT_EQ(ParsedBits("f16[]", "5.9604644775390625e-08"), 0x0001u);
  EXPECT_EQ(ParsedBits("f16[]", "2.98023223876953125e-08"), 0x0000u);  // tie: even (zero)
  EXPECT_EQ(ParsedBits("f16[]", "2.9802323e-08"), 0x0001u);
  EXPECT_EQ(ParsedBits("f8e4m3fn[]", "0.1015625"), 0x1du);
  EXPECT_EQ(ParsedBits("f8e4m3fn[]", "464"), 0x7eu);  // rounds down to 448
  EXPECT_EQ(ParsedBits("f8e5m2[]", "60000"), 0x7bu);
  EXPECT_EQ(ParsedBits("f32[]", "1E3"), 0x447a0000u);
  EXPECT_EQ(ParsedBits("f32[]", ".5"), 0x3f000000u);
  EXPECT_EQ(ParsedBits("f32[]", "-5."), 0xc0a00000u);
  EXPECT_EQ(ParsedBits("f32[]", "2e+0"), 0x40000000u);
  EXPECT_EQ(ParsedBits("f32[]", "16777217"), 0x4b800000u);  // integer text, rounded
  EXPECT_EQ(ParsedBits("f64[]", "18446744073709551615"), 0x43f0000000000000u);
}

TEST(LiteralParseTest, Integers) {
  EXPECT_EQ(ParsedBits("s8[]", "-128"), 0x80u);
  EXPECT_EQ(ParsedBits("s8[]", "127"), 0x7fu);
  EXPECT_EQ(ParsedBits("u8[]", "255"), 0xffu);
  EXPECT_EQ(ParsedBits("s4[]", "-8"), 0xf8u);  // sign-extended to the byte
  EXPECT_EQ(ParsedBits("s4[]", "7"), 0x07u);
  EXPECT_EQ(ParsedBits("u4[]", "15"), 0x0fu);
  EXPECT_EQ(ParsedBits("s2[]", "-2"), 0xfeu);
  EXPECT_EQ(ParsedBits("u2[]", "3"), 0x03u);
  EXPECT_EQ(ParsedBits("s64[]", "-9223372036854775808"), 0x8000000000000000u);
  EXPECT_EQ(ParsedBits("u64[]", "18446744073709551615"), ~uint64_t{0});
  EXPECT_EQ(ParsedBits("s32[]", "-0"), 0u);
  // As XLA: u64 takes negative values as their two's complement, and a
  // positive value above INT64_MAX wraps before the range check.
  EXPECT_EQ(ParsedBits("u64[]", "-1"), ~uint64_t{0});
  EXPECT_EQ(ParsedBits("s64[]", "18446744073709551615"), ~uint64_t{0});
  EXPECT_EQ(ParsedBits("s8[]", "18446744073709551615"), 0xffu);
  EXPECT_EQ(ParsedBits("pred[]", "true"), 1u);
  EXPECT_EQ(ParsedBits("pred[]", "false"), 0u);
  EXPECT_EQ(ParsedBits("pred[]", "1"), 1u);
  EXPECT_EQ(ParsedBits("pred[]", "0"), 0u);
  absl::StatusOr<Literal> preds = ParseValue("pred[3]", "{true, 0, 1}");
  ASSERT_TRUE(preds.ok());
  EXPECT_EQ(preds->ValueToString(), "{1, 0, 1}");
}

TEST(LiteralParseTest, BareValueForAnArraySetsTheFirstElement) {
  // As XLA's parser does with `f32[3] constant(1)`.
  absl::StatusOr<Literal> literal = ParseLiteral("f32[3] 1");
  ASSERT_TRUE(literal.ok()) << literal.status();
  EXPECT_EQ(literal->ValueToString(), "{1, 0, 0}");
  EXPECT_THAT(ErrorOf("f32[0] 1"), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf("f32[2] ,"), HasSubstr("column 8: expected '{'"));
}

TEST(LiteralParseTest, EveryElementRefusesPaddingAndElision) {
  const LiteralSyntax strict{/*every_element=*/true};
  absl::StatusOr<Literal> bare = ParseLiteral("f32[3] 1", strict);
  ASSERT_FALSE(bare.ok());
  EXPECT_THAT(std::string(bare.status().message()),
              HasSubstr("column 8: one value given for f32[3], which has 3 elements"));
  absl::StatusOr<Literal> elided = ParseLiteral("f32[3] {...}", strict);
  ASSERT_FALSE(elided.ok());
  EXPECT_THAT(std::string(elided.status().message()), HasSubstr("gives none of the 3 elements"));
  // Inside tuples too; scalars and whole arrays are unaffected.
  EXPECT_FALSE(ParseLiteral("(f32[], s32[2]) (1, 2)", strict).ok());
  absl::StatusOr<Literal> whole = ParseLiteral("(f32[], s32[2]) (1, {2, 3})", strict);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(whole->ValueToString(), "( 1, {2, 3} )");
}

TEST(LiteralParseTest, CommentsAndSpacing) {
  absl::StatusOr<Literal> literal =
      ParseLiteral("f32[2,2] /* a */ {\n  { /*i0=0*/ 1, // x\n 2 },\n{3,4}}");
  ASSERT_TRUE(literal.ok()) << literal.status();
  EXPECT_EQ(literal->ValueToString(), "{ { 1, 2 }, { 3, 4 } }");
}

TEST(LiteralParseTest, Tuples) {
  absl::StatusOr<Literal> a = ParseLiteral("(f32[], pred[2]) (1.5, {true, false})");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->ValueToString(), "( 1.5, {1, 0} )");
  absl::StatusOr<Literal> b = ParseLiteral("(\nf32[] 1.5,\npred[2] {1, 0}\n)");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(a->BitwiseEqual(*b));
  absl::StatusOr<Literal> empty = ParseLiteral("() ()");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape().tuple_size(), 0);
  absl::StatusOr<Literal> nested = ParseLiteral("((s32[], (f32[])), c64[]) ((1, (2)), (3, 4))");
  ASSERT_TRUE(nested.ok()) << nested.status();
  EXPECT_EQ(nested->ValueToString(), "( ( 1, ( 2 ) ), (3, 4) )");
  absl::StatusOr<Literal> reparsed = ParseLiteral(nested->ToString());
  ASSERT_TRUE(reparsed.ok()) << reparsed.status() << "\n" << nested->ToString();
  EXPECT_TRUE(nested->BitwiseEqual(*reparsed));
}

TEST(LiteralParseTest, ShapedLiteralAtACursor) {
  std::string text = "literal=f32[2] {1, 2}, x=(s32[], f32[1]{0}) (3, {4})";
  TextCursor cursor{text, 8};
  Literal literal;
  ASSERT_TRUE(ParseShapedLiteral(cursor, &literal).ok());
  EXPECT_EQ(literal.ToStringWithLayout(), "f32[2]{0} {1, 2}");
  EXPECT_EQ(cursor.Peek(), ',');
  cursor.pos = text.find('(');
  ASSERT_TRUE(ParseShapedLiteral(cursor, &literal).ok());
  EXPECT_EQ(literal.ValueToString(), "( 3, {4} )");
  EXPECT_TRUE(cursor.AtEnd());
  cursor.pos = 8;
  cursor.text = "literal=f32[2] {1, x}";
  EXPECT_FALSE(ParseShapedLiteral(cursor, &literal).ok());
  EXPECT_EQ(cursor.pos, 19u);
}

TEST(LiteralParseTest, ElidedOnlyAsTheWholeArray) {
  absl::StatusOr<Literal> literal = ParseValue("f32[2,3]", "{ /*c*/ ... }");
  ASSERT_TRUE(literal.ok()) << literal.status();
  EXPECT_TRUE(literal->elided());
  EXPECT_THAT(ErrorOf("f32[4] {1, ...}"), HasSubstr("`...`"));
  EXPECT_THAT(ErrorOf("f32[2,2] { {...}, {...} }"),
              HasSubstr("expects `...` at nest level 1, but sees it at nest level 2"));
  EXPECT_NE(ErrorOf("f32[] {...}"), "ok");
  EXPECT_NE(ErrorOf("(f32[2]) {...}"), "ok");
}

TEST(LiteralParseTest, Errors) {
  EXPECT_THAT(
      ErrorOf("f32[2] {1, 2, 3}"),
      HasSubstr("column 15: expects 2 elements on the minor-most dimension, but sees more"));
  EXPECT_THAT(ErrorOf("f32[2,2] {1, 2}"),
              HasSubstr("column 11: expects nested array in rank 2, but sees 1"));
  EXPECT_THAT(ErrorOf("f32[2] {{1}, {2}}"),
              HasSubstr("column 9: expects nested array in rank 1, but sees larger"));
  EXPECT_THAT(ErrorOf("f32[2,2] { { 1, 2 } }"),
              HasSubstr("column 21: expects 2 elements in the []th element, but sees 1"));
  EXPECT_THAT(ErrorOf("f32[2,2] { { 1, 2 }, { 3 } }"),
              HasSubstr("expects 2 elements in the [1]th element, but sees 1"));
  EXPECT_THAT(ErrorOf("f32[2,2] { { 1, 2 }, { 3, 4 }, { 5, 6 } }"),
              HasSubstr("expects 2 elements in the []th element, but sees more"));
  EXPECT_THAT(ErrorOf("f32[2] {1, 2"), HasSubstr("column 13"));
  EXPECT_THAT(ErrorOf("f32[2] {1 2}"), HasSubstr("column 11"));
  EXPECT_THAT(ErrorOf("f32[2] {1, }"), HasSubstr("column 12"));
  EXPECT_THAT(ErrorOf("f32[2] {, 1}"), HasSubstr("column 9"));
  EXPECT_THAT(ErrorOf("s32[] 1.5"), HasSubstr("expects integer for primitive type: S32"));
  EXPECT_THAT(ErrorOf("pred[] 1.0"), HasSubstr("expects integer for primitive type: PRED"));
  EXPECT_THAT(ErrorOf("f32[] true"),
              HasSubstr("expect floating point value for primitive type: F32"));
  EXPECT_THAT(ErrorOf("s8[] 128"),
              HasSubstr("value 128 is out of range for literal's primitive type S8 namely [-128, "
                        "127]."));
  EXPECT_THAT(
      ErrorOf("u8[] -1"),
      HasSubstr("value -1 is out of range for literal's primitive type U8 namely [0, 255]."));
  EXPECT_THAT(ErrorOf("s4[] 8"), HasSubstr("namely [-8, 7]"));
  EXPECT_THAT(ErrorOf("u2[2] {1, 4}"), HasSubstr("column 11: value 4 is out of range"));
  EXPECT_THAT(ErrorOf("u32[] -1"),
              HasSubstr("value -1 is out of range for literal's primitive type U32"));
  EXPECT_THAT(ErrorOf("f32[2,3] }{1, 2, 3}, {4, 5, 6}}"),
              HasSubstr("column 10: unexpected '}' token"));
  EXPECT_THAT(ErrorOf("u64[] 18446744073709551616"), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf("f16[] 65520"),
              HasSubstr("value 65520 is out of range for literal's primitive type F16 namely "
                        "[-65504, 65504]."));
  EXPECT_THAT(ErrorOf("f32[] 1e39"), HasSubstr("is out of range for literal's primitive type F32"));
  // Halfway between the largest float and 2^128 rounds to infinity.
  EXPECT_THAT(ErrorOf("f32[] 3.4028235677973366e38"), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf("f8e4m3fn[] 1000"), HasSubstr("namely [-448, 448]"));
  EXPECT_THAT(ErrorOf("f64[] 1e400"), HasSubstr("Constant is out of range for double"));
  EXPECT_THAT(ErrorOf("c64[] (1e39, 0)"),
              HasSubstr("real part 1e+39 is out of range for literal's primitive type C64"));
  EXPECT_THAT(ErrorOf("c64[] (1 2)"), HasSubstr("expect comma after real part of complex literal"));
  EXPECT_THAT(ErrorOf("c64[] (1, 2"), HasSubstr("expect ')' after complex number"));
  EXPECT_THAT(ErrorOf("c64[] 1"), HasSubstr("column 7"));
  EXPECT_THAT(ErrorOf("f32[] nan(0x800000)"), HasSubstr("NaN payload is out of range (0x7fffff)"));
  EXPECT_THAT(ErrorOf("f16[] nan(0x400)"), HasSubstr("NaN payload is out of range (0x3ff)"));
  EXPECT_THAT(ErrorOf("f8e4m3fn[] nan(0x1)"), HasSubstr("does not support payloads"));
  EXPECT_THAT(ErrorOf("f32[] nan(0x0)"), HasSubstr("NaN payload"));
  EXPECT_THAT(ErrorOf("f32[] nan(1)"), HasSubstr("NaN payload"));
  EXPECT_THAT(ErrorOf("f4e2m1fn[] nan"), HasSubstr("has no NaN"));
  EXPECT_THAT(ErrorOf("f4e2m1fn[] inf"), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf("s32[] 0x10"), HasSubstr("column 8"));
  EXPECT_THAT(ErrorOf("f32[] 1 2"), HasSubstr("column 9"));
  EXPECT_THAT(ErrorOf("f32[] abc"), HasSubstr("column 7"));
  EXPECT_THAT(ErrorOf("f32[] +1"), HasSubstr("column 7"));
  EXPECT_THAT(ErrorOf("f32[] {1}"), HasSubstr("expects nested array in rank 0, but sees larger"));
  EXPECT_THAT(ErrorOf("(f32[], s32[]) (1)"), HasSubstr("column 18"));
  EXPECT_THAT(ErrorOf("(f32[], s32[]) (1, 2, 3)"), HasSubstr("column 21"));
  EXPECT_THAT(ErrorOf("f32[2]\n{1,\n x}"), HasSubstr("line 3, column 2"));
  EXPECT_NE(ErrorOf("f32[2] {1, /* unterminated"), "ok");
  EXPECT_NE(ErrorOf(""), "ok");
  EXPECT_NE(ErrorOf("f32[2]"), "ok");
  EXPECT_NE(ErrorOf(std::string("f32[] 1\0", 8)), "ok");
  EXPECT_NE(ErrorOf(std::string(200, '(') + "f32[] 1" + std::string(200, ')')), "ok");
  EXPECT_NE(ErrorOf(std::string(5000, '{')), "ok");
}

TEST(LiteralParseTest, EveryPrefixIsAnError) {
  const char* texts[] = {
      "f32[2,2] { { 1.5, -2 }, { nan(0x3), -inf } }",
      "(f32[], s32[2], c64[]) (1.25e-3, {1, -2}, (nan, -0))",
      "(\nf32[] 1,\n(pred[2] {1, 0}, u4[] 15)\n)",
      "c128[] (-0.5, 1e+300)",
      "f8e4m3fn[3]{0} {0.102, -nan, 448}",
      "s4[2,1,1,2] { { /*i0=0*/ { /*i1=0*/ { -8, 7 } } }, { /*i0=1*/ { /*i1=0*/ { 0, 1 } } } }",
      "bf16[4] {...}",
  };
  for (const char* full : texts) {
    std::string text = full;
    ASSERT_TRUE(ParseLiteral(text).ok()) << text << ": " << ParseLiteral(text).status();
    for (size_t n = 0; n < text.size(); ++n) {
      std::string prefix = text.substr(0, n);
      EXPECT_FALSE(ParseLiteral(prefix).ok()) << "prefix parsed: [" << prefix << "]";
    }
  }
}

TEST(LiteralParseTest, MutatedTextNeverCrashes) {
  const std::string base =
      "(f32[2,2]{0,1}, c64[2], pred[3], s4[2], bf16[1,1,1,1]) ({ { 1.5, -2 }, { nan(0x3), -inf "
      "} }, {(1, 2), (-0, nan)}, {1, 0, 1}, {-8, 7}, { { /*i0=0*/ { /*i1=0*/ {0.5} } } })";
  ASSERT_TRUE(ParseLiteral(base).ok()) << ParseLiteral(base).status();
  const std::string alphabet = "{}(),.-+0123456789eEnaifx/* \n[]";
  std::mt19937_64 rng(1234);
  int parsed = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text = base;
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          text.erase(at, 1 + rng() % 3);
          break;
        default:
          text.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
      }
    }
    absl::StatusOr<Literal> literal = ParseLiteral(text);
    if (literal.ok()) {
      ++parsed;
      // Whatever parsed prints and reads back identically.
      absl::StatusOr<Literal> again = ParseLiteral(literal->ToStringWithLayout());
      ASSERT_TRUE(again.ok()) << text << "\n" << again.status();
      EXPECT_TRUE(literal->BitwiseEqual(*again)) << text;
    } else {
      EXPECT_EQ(literal.status().code(), absl::StatusCode::kInvalidArgument) << text;
      EXPECT_THAT(std::string(literal.status().message()), HasSubstr("column "));
    }
  }
  EXPECT_GT(parsed, 0);
}

//===----------------------------------------------------------------------===//
// Round trips.
//===----------------------------------------------------------------------===//

// Random bits for one element of `type`, favouring special values.
void RandomElement(ElementType type, std::mt19937_64& rng, uint8_t* p) {
  uint64_t r = rng();
  const int width = ByteWidth(type);
  switch (ElementTypeKind(type)) {
    case TypeKind::kPred:
      p[0] = r & 1;
      return;
    case TypeKind::kSigned:
    case TypeKind::kUnsigned:
      if (IsSubByte(type)) {
        int bits = BitWidth(type);
        uint8_t v = r & ((1u << bits) - 1);
        if (ElementTypeKind(type) == TypeKind::kSigned && (v >> (bits - 1))) {
          v |= static_cast<uint8_t>(0xff << bits);  // stored sign-extended
        }
        p[0] = v;
      } else {
        std::memcpy(p, &r, width);
      }
      return;
    case TypeKind::kComplex: {
      ElementType part = ComplexComponentType(type);
      RandomElement(part, rng, p);
      RandomElement(part, rng, p + ByteWidth(part));
      return;
    }
    default:
      break;
  }
  // Floats: random patterns, or a special value built from the fields.
  const int bits = type == ElementType::kF32   ? 32
                   : type == ElementType::kF64 ? 64
                                               : NarrowFloatFormat(type).total_bits;
  const int mantissa_bits = type == ElementType::kF32   ? 23
                            : type == ElementType::kF64 ? 52
                                                        : NarrowFloatFormat(type).mantissa_bits;
  const uint64_t all = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t mantissa_mask = (uint64_t{1} << mantissa_bits) - 1;
  const bool has_sign = bits >= 16 || NarrowFloatFormat(type).has_sign;
  const uint64_t sign = has_sign ? uint64_t{1} << (bits - 1) : 0;
  const uint64_t exponent = all & ~sign & ~mantissa_mask;
  uint64_t v = rng() & all;
  switch (r % 8) {
    case 0:  // all-ones exponent: inf or NaN with a random payload
      v = (v & (sign | mantissa_mask)) | exponent;
      break;
    case 1:  // zero exponent: zeros and subnormals
      v = v & (sign | (r % 3 == 0 ? 0 : mantissa_mask));
      break;
    case 2:  // near the largest values
      v = (v & (sign | mantissa_mask)) | (exponent - (mantissa_mask + 1));
      break;
    default:
      break;
  }
  std::memcpy(p, &v, width);
}

std::vector<ElementType> ArrayTypes() {
  std::vector<ElementType> types;
  for (int i = 0; i < ElementTypeCount(); ++i) {
    ElementType type = static_cast<ElementType>(i);
    if (IsArrayType(type)) types.push_back(type);
  }
  return types;
}

Shape RandomArrayShape(ElementType type, std::mt19937_64& rng) {
  int rank = static_cast<int>(rng() % 5);
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) dims.push_back(static_cast<int64_t>(rng() % (rank > 2 ? 3 : 5)));
  Shape shape(type, dims);
  std::vector<int64_t> order(rank);
  for (int i = 0; i < rank; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  Layout layout = Layout::RowMajor(rank);
  layout.minor_to_major.assign(order.begin(), order.end());
  shape.set_layout(layout);
  return shape;
}

Literal RandomArray(ElementType type, std::mt19937_64& rng) {
  Literal literal = std::move(Literal::Create(RandomArrayShape(type, rng))).value();
  const int width = ByteWidth(type);
  for (int64_t i = 0; i < literal.shape().element_count(); ++i) {
    RandomElement(type, rng, literal.untyped_data() + i * width);
  }
  return literal;
}

Literal RandomLiteral(std::mt19937_64& rng, int depth) {
  const std::vector<ElementType> types = ArrayTypes();
  if (depth < 3 && rng() % 4 == 0) {
    std::vector<Literal> elements;
    int n = static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i) elements.push_back(RandomLiteral(rng, depth + 1));
    return Literal::Tuple(std::move(elements));
  }
  return RandomArray(types[rng() % types.size()], rng);
}

TEST(LiteralRoundTripTest, EveryElementTypeBitwise) {
  std::mt19937_64 rng(42);
  for (ElementType type : ArrayTypes()) {
    SCOPED_TRACE(std::string(ElementTypeName(type)));
    for (int round = 0; round < 200; ++round) {
      Literal literal = RandomArray(type, rng);
      // The value as printed in HLO, read back with the same shape.
      std::string value = literal.ValueToString();
      TextCursor cursor{value, 0};
      Literal parsed;
      absl::Status status = ParseLiteralValue(cursor, literal.shape(), &parsed);
      ASSERT_TRUE(status.ok()) << literal.shape().ToString() << " " << value << ": " << status;
      EXPECT_TRUE(cursor.AtEnd()) << value;
      ASSERT_TRUE(literal.BitwiseEqual(parsed))
          << literal.shape().ToString() << " " << value << " vs " << parsed.ValueToString();
      // The multi-line form with shape and layout.
      std::string text = literal.ToStringWithLayout();
      absl::StatusOr<Literal> reparsed = ParseLiteral(text);
      ASSERT_TRUE(reparsed.ok()) << text << ": " << reparsed.status();
      ASSERT_TRUE(literal.BitwiseEqual(*reparsed)) << text;
    }
  }
}

TEST(LiteralRoundTripTest, EveryBitPatternOfNarrowTypes) {
  for (ElementType type : ArrayTypes()) {
    if (ByteWidth(type) > 2 || ElementTypeKind(type) == TypeKind::kComplex) continue;
    SCOPED_TRACE(std::string(ElementTypeName(type)));
    const bool sub_byte = IsSubByte(type);
    const uint32_t count = ElementTypeKind(type) == TypeKind::kPred ? 2
                           : sub_byte                               ? 1u << BitWidth(type)
                                                                    : 1u << (8 * ByteWidth(type));
    Literal literal =
        std::move(Literal::Create(Shape(type, {static_cast<int64_t>(count)}))).value();
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t bits = i;
      if (ElementTypeKind(type) == TypeKind::kSigned && sub_byte &&
          (bits >> (BitWidth(type) - 1))) {
        bits |= 0xffu << BitWidth(type);
      }
      if (ByteWidth(type) == 2) {
        uint16_t v = static_cast<uint16_t>(bits);
        std::memcpy(literal.untyped_data() + 2 * i, &v, 2);
      } else {
        literal.untyped_data()[i] = static_cast<uint8_t>(bits);
      }
    }
    absl::StatusOr<Literal> parsed = ParseLiteral(literal.ToString());
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_TRUE(literal.BitwiseEqual(*parsed));
    // Printed values read as doubles are the decoded values.
    if (ElementTypeKind(type) == TypeKind::kFloat) {
      for (uint32_t i = 0; i < count; ++i) {
        double expected = DecodeNarrowFloat(type, i);
        std::string text = literal.GetAsString(i);
        if (std::isnan(expected)) {
          EXPECT_THAT(text, HasSubstr("nan"));
        } else if (std::isfinite(expected)) {
          double printed = std::strtod(text.c_str(), nullptr);
          EXPECT_EQ(EncodeNarrowFloat(type, printed), EncodeNarrowFloat(type, expected)) << text;
        }
      }
    }
  }
}

TEST(LiteralRoundTripTest, NestedTuples) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; ++round) {
    Literal literal = RandomLiteral(rng, 0);
    std::string value = literal.ValueToString();
    TextCursor cursor{value, 0};
    Literal parsed;
    absl::Status status = ParseLiteralValue(cursor, literal.shape(), &parsed);
    ASSERT_TRUE(status.ok()) << literal.shape().ToString() << " " << value << ": " << status;
    ASSERT_TRUE(literal.BitwiseEqual(parsed)) << value;
    std::string text = literal.ToStringWithLayout();
    absl::StatusOr<Literal> reparsed = ParseLiteral(text);
    ASSERT_TRUE(reparsed.ok()) << text << ": " << reparsed.status();
    ASSERT_TRUE(literal.BitwiseEqual(*reparsed)) << text;
    ASSERT_TRUE(literal.BitwiseEqual(literal.Clone()));
  }
}

//===----------------------------------------------------------------------===//
// Storage.
//===----------------------------------------------------------------------===//

TEST(LiteralCreateTest, ZeroFilledAligned) {
  absl::StatusOr<Literal> literal = Literal::Create(Shape(ElementType::kC64, {3, 5}));
  ASSERT_TRUE(literal.ok());
  EXPECT_EQ(literal->size_bytes(), 3 * 5 * 8);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(literal->untyped_data()) % 64, 0u);
  for (int64_t i = 0; i < literal->size_bytes(); ++i) EXPECT_EQ(literal->untyped_data()[i], 0);
  EXPECT_EQ(literal->shape().ToString(), "c64[3,5]{1,0}");
  absl::StatusOr<Literal> big = Literal::Create(Shape(ElementType::kF32, {1 << 20}));
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big->untyped_data()) % 64, 0u);
  EXPECT_EQ(big->data<float>()[(1 << 20) - 1], 0.0f);
}

TEST(LiteralCreateTest, HugeShapesFailCleanly) {
  for (const char* text : {"f32[100000000000]", "f32[4294967296,4294967296]",
                           "s64[3000000000000000000]", "c128[1000000,1000000,1000000]"}) {
    absl::StatusOr<Shape> shape = ParseShape(text);
    ASSERT_TRUE(shape.ok()) << text;
    absl::StatusOr<Literal> literal = Literal::Create(*shape);
    ASSERT_FALSE(literal.ok()) << text;
    EXPECT_EQ(literal.status().code(), absl::StatusCode::kResourceExhausted) << text;
    EXPECT_NE(ParseLiteral(absl::StrCat(text, " {...}")).status().code(), absl::StatusCode::kOk);
  }
}

TEST(LiteralCreateTest, TupleAndAccessors) {
  absl::StatusOr<Shape> shape = ParseShape("(f32[2], (s8[], pred[]))");
  ASSERT_TRUE(shape.ok());
  absl::StatusOr<Literal> literal = Literal::Create(*shape);
  ASSERT_TRUE(literal.ok());
  ASSERT_EQ(literal->tuple_elements().size(), 2u);
  EXPECT_EQ(literal->tuple_elements()[1].tuple_elements().size(), 2u);
  Literal& array = literal->tuple_elements()[0];
  ASSERT_TRUE(array.SetFromDouble(1, 2.5).ok());
  EXPECT_EQ(array.GetAsDouble(1), 2.5);
  EXPECT_EQ(array.ValueToString(), "{0, 2.5}");
  Literal& s8 = literal->tuple_elements()[1].tuple_elements()[0];
  EXPECT_TRUE(s8.SetFromDouble(0, -128).ok());
  EXPECT_FALSE(s8.SetFromDouble(0, 128).ok());
  EXPECT_FALSE(s8.SetFromDouble(0, 1.5).ok());
  EXPECT_EQ(s8.GetAsString(0), "-128");
  Literal half = std::move(Literal::Create(Shape(ElementType::kF16, {1}))).value();
  EXPECT_TRUE(half.SetFromDouble(0, 0.1).ok());
  EXPECT_EQ(half.data<uint16_t>()[0], 0x2e66);
  EXPECT_FALSE(half.SetFromDouble(0, 1e6).ok());
  Literal r2 = Literal::CreateR2<int32_t>({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(r2.Get<int32_t>({1, 2}), 6);
  r2.Set<int32_t>({0, 1}, 9);
  EXPECT_EQ(r2.ValueToString(), "{ { 1, 9, 3 }, { 4, 5, 6 } }");
}

//===----------------------------------------------------------------------===//
// The conformance cases and the XLA corpus.
//===----------------------------------------------------------------------===//

// Every `SHAPE constant(VALUE)` in `text`, as (shape, value) pairs.
std::vector<std::pair<std::string, std::string>> FindConstants(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> found;
  size_t at = 0;
  while ((at = text.find(" constant(", at)) != std::string::npos) {
    size_t value_begin = at + 10;
    size_t line_begin = text.rfind('\n', at);
    line_begin = line_begin == std::string::npos ? 0 : line_begin + 1;
    size_t eq = text.find(" = ", line_begin);
    at = value_begin;
    if (eq == std::string::npos || eq > value_begin) continue;
    std::string shape = text.substr(eq + 3, value_begin - 10 - eq - 3);
    int depth = 1;
    size_t i = value_begin;
    for (; i < text.size() && depth > 0; ++i) {
      if (text[i] == '(') ++depth;
      if (text[i] == ')') --depth;
    }
    if (depth != 0) continue;
    found.emplace_back(shape, text.substr(value_begin, i - 1 - value_begin));
  }
  return found;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST(LiteralCorpusTest, ConformanceConstantsParseAndRoundTrip) {
  const std::filesystem::path dir = "/work/shared/conformance/stablehlo";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no conformance cases here";
  int constants = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".hlo") continue;
    std::string text = ReadFile(entry.path());
    for (const auto& [shape_text, value] : FindConstants(text)) {
      absl::StatusOr<Literal> literal = ParseLiteral(shape_text + " " + value);
      ASSERT_TRUE(literal.ok()) << entry.path() << ": " << shape_text << " " << value.substr(0, 200)
                                << "\n"
                                << literal.status();
      ++constants;
      absl::StatusOr<Literal> again = ParseLiteral(literal->ToStringWithLayout());
      ASSERT_TRUE(again.ok()) << entry.path() << " " << again.status();
      ASSERT_TRUE(literal->BitwiseEqual(*again)) << entry.path();
    }
  }
  EXPECT_GT(constants, 3000);
}

TEST(LiteralCorpusTest, XlaPrintedConstantsPrintBackIdentically) {
  const std::filesystem::path dir = "/work/shared/corpus";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no corpus here";
  int constants = 0, identical = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".hlo") continue;
    std::string text = ReadFile(entry.path());
    for (const auto& [shape_text, value] : FindConstants(text)) {
      absl::StatusOr<Shape> shape = ParseShape(shape_text);
      if (!shape.ok()) continue;  // not a plain shape: operand lists, templates
      TextCursor cursor{value, 0};
      Literal literal;
      if (!ParseLiteralValue(cursor, *shape, &literal).ok()) continue;
      ++constants;
      // XLA prints its constants in this form; hand-written test texts may
      // differ in spacing or digits, but they must read back identically.
      if (literal.ValueToString() == value) ++identical;
      std::string printed = literal.ValueToString();
      TextCursor again_cursor{printed, 0};
      Literal again;
      ASSERT_TRUE(ParseLiteralValue(again_cursor, *shape, &again).ok()) << printed;
      ASSERT_TRUE(literal.BitwiseEqual(again)) << printed;
    }
  }
  EXPECT_GT(constants, 1000);
  // Most constants in the corpus were printed by XLA.
  EXPECT_GT(identical, constants * 9 / 10) << identical << " of " << constants;
  std::printf("corpus constants: %d, printed back identically: %d\n", constants, identical);
}

TEST(LiteralViewTest, BorrowsTheCallersMemoryAndClonesIntoItsOwn) {
  alignas(16) float values[6] = {1, 2, 3, 4, 5, 6};
  absl::StatusOr<Literal> view = Literal::View(Shape(ElementType::kF32, {2, 3}), values);
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_FALSE(view->owns_data());
  EXPECT_EQ(view->untyped_data(), reinterpret_cast<uint8_t*>(values));
  EXPECT_EQ(view->size_bytes(), 24);
  EXPECT_TRUE(view->shape().has_layout());
  EXPECT_EQ(view->Get<float>({1, 2}), 6.0f);
  // Moving keeps the view; writes reach the caller's array.
  Literal moved = std::move(view).value();
  moved.Set<float>({0, 0}, 9.0f);
  EXPECT_EQ(values[0], 9.0f);
  Literal copy = moved.Clone();
  EXPECT_TRUE(copy.owns_data());
  EXPECT_NE(copy.untyped_data(), moved.untyped_data());
  EXPECT_TRUE(copy.BitwiseEqual(moved));
  EXPECT_TRUE(Literal::CreateR0<float>(1).owns_data());
}

TEST(LiteralViewTest, RefusesTuplesMissingMemoryAndBadLayouts) {
  float value = 0;
  EXPECT_FALSE(Literal::View(Shape::Tuple({Shape(ElementType::kF32, {})}), &value).ok());
  EXPECT_FALSE(Literal::View(Shape(ElementType::kF32, {2}), nullptr).ok());
  Shape bad(ElementType::kF32, {2, 2});
  bad.set_layout(Layout{.minor_to_major = {0, 0}});
  EXPECT_FALSE(Literal::View(bad, &value).ok());
  // An empty array needs no memory.
  absl::StatusOr<Literal> empty = Literal::View(Shape(ElementType::kF32, {0, 3}), nullptr);
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->size_bytes(), 0);
}

}  // namespace
}  // namespace hlovm
