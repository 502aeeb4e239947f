#include "core/elided_fill.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/literal.h"
#include "core/shape.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace {

Literal Make(const Shape& shape) {
  auto literal = Literal::Create(shape);
  EXPECT_TRUE(literal.ok()) << literal.status();
  return std::move(literal).value();
}

std::vector<uint8_t> Bytes(const Literal& literal) {
  return std::vector<uint8_t>(literal.untyped_data(), literal.untyped_data() + literal.size_bytes());
}

TEST(ElidedFillTest, WordsCountUpAcrossConstants) {
  ElidedFiller filler;
  Literal a = Make(Shape(ElementType::kF32, {5}));
  filler.FillLikeXla(&a);
  std::vector<uint32_t> words(5);
  std::memcpy(words.data(), a.untyped_data(), 20);
  EXPECT_EQ(words, (std::vector<uint32_t>{0, 1, 2, 3, 4}));

  Literal b = Make(Shape(ElementType::kS32, {2, 2}));
  filler.FillLikeXla(&b);
  auto values = b.data<int32_t>();
  EXPECT_EQ(std::vector<int32_t>(values.begin(), values.end()), (std::vector<int32_t>{5, 6, 7, 8}));
  EXPECT_EQ(filler.word_counter(), 9u);
  EXPECT_EQ(filler.byte_counter(), 0u);
}

TEST(ElidedFillTest, SixtyFourBitElementsTakeTwoWords) {
  ElidedFiller filler;
  Literal a = Make(Shape(ElementType::kS64, {2}));
  filler.FillLikeXla(&a);
  auto values = a.data<int64_t>();
  // Little-endian: element 0 is words (0, 1), element 1 is words (2, 3).
  EXPECT_EQ(values[0], int64_t{1} << 32);
  EXPECT_EQ(values[1], (int64_t{3} << 32) | 2);
}

TEST(ElidedFillTest, TailBytesUseTheByteCounterAtXlasOffset) {
  ElidedFiller filler;
  Literal a = Make(Shape(ElementType::kU8, {3}));  // no whole word
  filler.FillLikeXla(&a);
  EXPECT_EQ(Bytes(a), (std::vector<uint8_t>{0, 1, 2}));

  // 7 bytes: one word (counter 0 -> bytes 0..3 = 0), then 3 tail bytes from
  // the byte counter (3, 4, 5) written at offsets 7/4 = 1, 2, 3.
  Literal b = Make(Shape(ElementType::kU8, {7}));
  filler.FillLikeXla(&b);
  EXPECT_EQ(Bytes(b), (std::vector<uint8_t>{0, 3, 4, 5, 0, 0, 0}));
  EXPECT_EQ(filler.word_counter(), 1u);
  EXPECT_EQ(filler.byte_counter(), 6u);
}

TEST(ElidedFillTest, PredIsMaskedToZeroOrOne) {
  ElidedFiller filler;
  Literal a = Make(Shape(ElementType::kPred, {4}));
  filler.FillLikeXla(&a);  // word 0
  EXPECT_EQ(Bytes(a), (std::vector<uint8_t>{0, 0, 0, 0}));
  Literal b = Make(Shape(ElementType::kPred, {6}));
  // word 1 -> {1,0,0,0}; tail bytes 0 & 1 = 0, 1 & 1 = 1 at offsets 1 and 2.
  filler.FillLikeXla(&b);
  EXPECT_EQ(Bytes(b), (std::vector<uint8_t>{1, 0, 1, 0, 0, 0}));
  Literal c = Make(Shape(ElementType::kPred, {8}));
  // words 2 and 3: 2 & 0x01010101 = 0, 3 & 0x01010101 = 1.
  filler.FillLikeXla(&c);
  EXPECT_EQ(Bytes(c), (std::vector<uint8_t>{0, 0, 0, 0, 1, 0, 0, 0}));
}

TEST(ElidedFillTest, NonDefaultLayoutIsFilledInLogicalRowMajorOrder) {
  ElidedFiller filler;
  Shape shape(ElementType::kS32, {2, 3});
  Layout layout;
  layout.minor_to_major = {0, 1};  // column-major
  shape.set_layout(layout);
  Literal a = Make(shape);
  filler.FillLikeXla(&a);
  // Logical (i, j) holds 3*i + j; physically column-major.
  auto values = a.data<int32_t>();
  EXPECT_EQ(std::vector<int32_t>(values.begin(), values.end()),
            (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
}

TEST(ElidedFillTest, SubByteTypesKeepTheirBits) {
  ElidedFiller filler;
  Literal skip = Make(Shape(ElementType::kU8, {4}));
  filler.FillLikeXla(&skip);  // word 0
  Literal a = Make(Shape(ElementType::kU4, {4}));
  // word 1 = bytes {1, 0, 0, 0}.
  filler.FillLikeXla(&a);
  EXPECT_EQ(Bytes(a), (std::vector<uint8_t>{1, 0, 0, 0}));
  for (int i = 0; i < 13; ++i) filler.FillLikeXla(&skip);  // words 2..14
  Literal b = Make(Shape(ElementType::kU4, {4}));
  filler.FillLikeXla(&b);  // word 15 -> low bits 15
  EXPECT_EQ(Bytes(b)[0], 15);
  Literal c = Make(Shape(ElementType::kU2, {4}));
  filler.FillLikeXla(&c);  // word 16 -> 16 & 3 = 0
  EXPECT_EQ(Bytes(c)[0], 0);
}

TEST(ElidedFillTest, EmptyArraysAndTuplesConsumeOnlyWhatTheyHold) {
  ElidedFiller filler;
  Literal empty = Make(Shape(ElementType::kF32, {0, 4}));
  filler.FillLikeXla(&empty);
  EXPECT_EQ(filler.word_counter(), 0u);
  std::vector<Literal> elements;
  elements.push_back(Make(Shape(ElementType::kS32, {2})));
  elements.push_back(Make(Shape(ElementType::kS32, {1})));
  Literal tuple = Literal::Tuple(std::move(elements));
  filler.FillLikeXla(&tuple);
  EXPECT_EQ(tuple.tuple_elements()[0].data<int32_t>()[1], 1);
  EXPECT_EQ(tuple.tuple_elements()[1].data<int32_t>()[0], 2);
}

TEST(ElidedFillTest, ZerosFillClearsEverything) {
  ElidedFiller filler;
  Literal a = Make(Shape(ElementType::kF64, {3}));
  filler.FillLikeXla(&a);
  FillElidedWithZeros(&a);
  EXPECT_EQ(Bytes(a), std::vector<uint8_t>(24, 0));
}

}  // namespace
}  // namespace hlovm
