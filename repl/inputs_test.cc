#include "repl/inputs.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "core/float_format.h"
#include "core/literal.h"
#include "core/npy.h"
#include "core/npz.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace {

// Random bf16 inputs take the bits of rounding each draw to bf16 (the draws
// are those an f64 array of the same seed holds), across the blocks that
// fill in parallel.
TEST(InputsTest, RandomBf16IsEachDrawRounded) {
  const int64_t n = (int64_t{1} << 17) + 77;
  auto bf16 = Literal::Create(Shape(ElementType::kBF16, {n}));
  auto f64 = Literal::Create(Shape(ElementType::kF64, {n}));
  ASSERT_TRUE(bf16.ok() && f64.ok());
  ASSERT_TRUE(FillRandom(&*bf16, 42).ok());
  ASSERT_TRUE(FillRandom(&*f64, 42).ok());
  const auto* h = reinterpret_cast<const uint16_t*>(bf16->untyped_data());
  const auto* d = reinterpret_cast<const double*>(f64->untyped_data());
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i) mismatches += h[i] != EncodeNarrowFloat(ElementType::kBF16, d[i]);
  EXPECT_EQ(mismatches, 0);
  // The draws are spread over [-1, 1).
  double lo = 1, hi = -1;
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, d[i]);
    hi = std::max(hi, d[i]);
  }
  EXPECT_LT(lo, -0.99);
  EXPECT_GT(hi, 0.99);
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
}

using ::testing::HasSubstr;

std::string ErrorOf(const absl::StatusOr<Literal>& literal) {
  EXPECT_FALSE(literal.ok());
  return literal.ok() ? "" : std::string(literal.status().message());
}

TEST(InputsTest, NothingIsPadded) {
  const Shape f32x8(ElementType::kF32, {8});
  EXPECT_THAT(ErrorOf(ParseInput("5", f32x8)),
              HasSubstr("one value given for f32[8], which has 8 elements"));
  EXPECT_THAT(ErrorOf(ParseInput("f32[8] 5", f32x8)), HasSubstr("one value given for f32[8]"));
  EXPECT_THAT(ErrorOf(ParseInput("{...}", f32x8)), HasSubstr("gives none of the 8 elements"));
  EXPECT_THAT(ErrorOf(ParseInput("{1, 2}", f32x8)), HasSubstr("expects 8 elements"));
  EXPECT_THAT(ErrorOf(ParseInput("f32[2] {1, 2}", f32x8)),
              HasSubstr("is f32[2], but parameter 0 is f32[8]"));
  // Inside tuples too.
  const Shape tuple = Shape::Tuple({Shape(ElementType::kF32, {2}), Shape(ElementType::kS32, {})});
  EXPECT_THAT(ErrorOf(ParseInput("(1, 2)", tuple)), HasSubstr("one value given for f32[2]"));
  absl::StatusOr<Literal> ok = ParseInput("({1, 2}, 3)", tuple);
  ASSERT_TRUE(ok.ok()) << ok.status();
  // A scalar parameter takes a scalar.
  absl::StatusOr<Literal> scalar = ParseInput("5", Shape(ElementType::kF32, {}));
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(scalar->ToString(), "f32[] 5");
}

TEST(InputsTest, FillRepeatsOneValueOnPurpose) {
  absl::StatusOr<Literal> filled = ParseInput("fill(2.5)", Shape(ElementType::kBF16, {2, 2}));
  ASSERT_TRUE(filled.ok()) << filled.status();
  EXPECT_EQ(filled->ValueToString(), "{ { 2.5, 2.5 }, { 2.5, 2.5 } }");
  EXPECT_FALSE(ParseInput("fill({1, 2})", Shape(ElementType::kF32, {2})).ok());
  EXPECT_FALSE(ParseInput("fill(300)", Shape(ElementType::kS8, {2})).ok());
}

TEST(InputsTest, OtherElementTypesNeedConvert) {
  const Shape bf16(ElementType::kBF16, {2});
  EXPECT_THAT(ErrorOf(ParseInput("f32[2] {1, 1.00390625}", bf16)),
              HasSubstr("is f32[2], but parameter 0 is bf16[2]; --convert-inputs converts"));
  absl::StatusOr<Literal> rounded = ParseInput("f32[2] {1, 1.00390625}", bf16, /*convert=*/true);
  ASSERT_TRUE(rounded.ok()) << rounded.status();
  EXPECT_EQ(rounded->ToString(), "bf16[2] {1, 1}");  // a tie, to even
}

absl::StatusOr<Literal> Convert(const std::string& text, ElementType to) {
  absl::StatusOr<Literal> literal = ParseLiteral(text);
  if (!literal.ok()) return literal.status();
  return ConvertElementType(*literal, to);
}

TEST(InputsTest, ConvertElementType) {
  EXPECT_EQ(Convert("f64[3] {0.1, 1e300, -2}", ElementType::kF32)->ToString(),
            "f32[3] {0.1, inf, -2}");
  EXPECT_EQ(Convert("s64[2] {6, -7}", ElementType::kS32)->ToString(), "s32[2] {6, -7}");
  EXPECT_EQ(Convert("f64[2] {3, -4}", ElementType::kS8)->ToString(), "s8[2] {3, -4}");
  EXPECT_EQ(Convert("pred[2] {1, 0}", ElementType::kF32)->ToString(), "f32[2] {1, 0}");
  EXPECT_EQ(Convert("f32[2] {0, -0.5}", ElementType::kPred)->ToString(), "pred[2] {0, 1}");
  EXPECT_EQ(Convert("s32[2] {7, -8}", ElementType::kS4)->ToString(), "s4[2] {7, -8}");
  EXPECT_EQ(Convert("f32[1] {2}", ElementType::kC64)->ToString(), "c64[1] {(2, 0)}");
  EXPECT_EQ(Convert("c128[1] {(1.5, -2)}", ElementType::kC64)->ToString(), "c64[1] {(1.5, -2)}");
  // Integers above 2^53 round once, correctly: 2^62 + 2^54 + 1 is just above
  // the midpoint of two bf16 neighbours (a double would round it to the
  // midpoint, and then to even, down).
  const int64_t above_tie = (int64_t{1} << 62) + (int64_t{1} << 54) + 1;
  auto bf16_bits = [](const absl::StatusOr<Literal>& l) {
    return l.ok() ? l->data<uint16_t>()[0] : uint16_t{0};
  };
  EXPECT_EQ(bf16_bits(Convert(absl::StrCat("s64[1] {", above_tie, "}"), ElementType::kBF16)),
            0x5e81);  // 2^62 + 2^55
  EXPECT_EQ(bf16_bits(Convert(absl::StrCat("s64[1] {", above_tie - 1, "}"), ElementType::kBF16)),
            0x5e80);  // the tie, to even: 2^62
  EXPECT_THAT(ErrorOf(Convert("f64[2] {1, 2.5}", ElementType::kS32)),
              HasSubstr("element 1 (2.5) of f64[2] cannot become s32: it is not an integer"));
  EXPECT_THAT(ErrorOf(Convert("f32[1] {nan}", ElementType::kS32)), HasSubstr("not an integer"));
  EXPECT_THAT(ErrorOf(Convert("s32[1] {300}", ElementType::kU8)), HasSubstr("does not fit in u8"));
  EXPECT_THAT(ErrorOf(Convert("s32[1] {-1}", ElementType::kU32)), HasSubstr("does not fit in u32"));
  EXPECT_THAT(ErrorOf(Convert("s32[1] {8}", ElementType::kS4)), HasSubstr("does not fit in s4"));
  EXPECT_THAT(ErrorOf(Convert("c64[1] {(1, 0)}", ElementType::kF32)),
              HasSubstr("imaginary part would be lost"));
  EXPECT_EQ(Convert("u64[1] {18446744073709551615}", ElementType::kF64)->ToString(),
            "f64[1] {1.8446744073709552e+19}");
}

TEST(InputsTest, NpzArchivesMatchByNameOrOrder) {
  Literal x = Literal::CreateR1<float>({1, 2});
  Literal w = Literal::CreateR0<int32_t>(3);
  const std::string dir = ::testing::TempDir();
  const std::string named = dir + "/inputs_test_named.npz";
  const std::string ordered = dir + "/inputs_test_ordered.npz";
  ASSERT_TRUE(WriteNpz({{"w", &w}, {"x", &x}}, named).ok());
  ASSERT_TRUE(WriteNpz({{"arr_0", &x}, {"arr_1", &w}}, ordered).ok());
  const std::vector<Shape> parameters = {x.shape(), w.shape()};
  const std::vector<std::string> names = {"x", "w"};
  for (const std::string& file : {named, ordered}) {
    absl::StatusOr<std::vector<Literal>> arguments =
        MakeArguments(parameters, names, {file}, InputOptions{}, "m.hlo");
    ASSERT_TRUE(arguments.ok()) << arguments.status();
    ASSERT_EQ(arguments->size(), 2u);
    EXPECT_TRUE((*arguments)[0].BitwiseEqual(x)) << file;
    EXPECT_TRUE((*arguments)[1].BitwiseEqual(w)) << file;
  }
  // Too few arrays.
  absl::StatusOr<std::vector<Literal>> three =
      MakeArguments({x.shape(), w.shape(), w.shape()}, {}, {ordered}, InputOptions{}, "m.hlo");
  ASSERT_FALSE(three.ok());
  EXPECT_THAT(std::string(three.status().message()), HasSubstr("takes 3 inputs, 2 arrays given"));
  std::remove(named.c_str());
  std::remove(ordered.c_str());
}

TEST(InputsTest, SavedInputsReadBackExactly) {
  const std::vector<Shape> parameters = {Shape(ElementType::kBF16, {3}),
                                         Shape(ElementType::kF8E4M3FN, {2}),
                                         Shape(ElementType::kS4, {5})};
  const std::vector<std::string> names = {"a", "b", "c"};
  InputOptions random;
  random.random = true;
  random.seed = 11;
  absl::StatusOr<std::vector<Literal>> arguments =
      MakeArguments(parameters, names, {}, random, "m.hlo");
  ASSERT_TRUE(arguments.ok()) << arguments.status();
  const std::string dir = ::testing::TempDir() + "/inputs_test_saved";
  std::filesystem::remove_all(dir);
  for (const std::string& path : {dir, dir + ".npz"}) {
    absl::StatusOr<std::vector<std::string>> written = SaveInputs(*arguments, names, path);
    ASSERT_TRUE(written.ok()) << written.status();
    std::vector<std::string> inputs = path == dir ? *written : std::vector<std::string>{path};
    if (path == dir) {
      EXPECT_EQ((*written)[0], dir + "/0_a.npy");
    }
    absl::StatusOr<std::vector<Literal>> back =
        MakeArguments(parameters, names, inputs, InputOptions{}, "m.hlo");
    ASSERT_TRUE(back.ok()) << back.status();
    for (size_t i = 0; i < parameters.size(); ++i) {
      EXPECT_TRUE((*back)[i].BitwiseEqual((*arguments)[i])) << path << " " << i;
    }
  }
  std::filesystem::remove_all(dir);
  std::remove((dir + ".npz").c_str());
}

}  // namespace
}  // namespace hlovm
