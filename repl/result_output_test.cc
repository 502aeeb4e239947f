#include "repl/result_output.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/literal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace {

Literal Iota(int64_t n) {
  std::vector<float> values(n);
  for (int64_t i = 0; i < n; ++i) values[i] = static_cast<float>(i);
  return Literal::CreateR1<float>(values);
}

TEST(ResultOutputTest, SummarizesAsNumpyDoes) {
  // 1000 elements print in full; 1001 are summarized.
  Literal small = Iota(1000);
  EXPECT_EQ(FormatResult(small, PrintMode::kSummary), small.ToString());
  EXPECT_FALSE(IsSummarized(small));
  Literal large = Iota(1001);
  EXPECT_EQ(FormatResult(large, PrintMode::kSummary), "f32[1001] {0, 1, 2, ..., 998, 999, 1000}");
  EXPECT_TRUE(IsSummarized(large));
  EXPECT_EQ(FormatResult(large, PrintMode::kFull), large.ToString());
  // A matrix: first and last three rows, each summarized.
  absl::StatusOr<Literal> matrix = Literal::Create(Shape(ElementType::kS32, {40, 40}));
  ASSERT_TRUE(matrix.ok());
  for (int64_t i = 0; i < 1600; ++i) matrix->data<int32_t>()[i] = static_cast<int32_t>(i);
  EXPECT_EQ(FormatResult(*matrix, PrintMode::kSummary),
            "s32[40,40] {\n"
            "  { 0, 1, 2, ..., 37, 38, 39 },\n"
            "  { 40, 41, 42, ..., 77, 78, 79 },\n"
            "  { 80, 81, 82, ..., 117, 118, 119 },\n"
            "  ...,\n"
            "  { 1480, 1481, 1482, ..., 1517, 1518, 1519 },\n"
            "  { 1520, 1521, 1522, ..., 1557, 1558, 1559 },\n"
            "  { 1560, 1561, 1562, ..., 1597, 1598, 1599 }\n"
            "}");
  // A short dimension of a large array is shown whole.
  absl::StatusOr<Literal> tall = Literal::Create(Shape(ElementType::kS32, {2000, 2}));
  ASSERT_TRUE(tall.ok());
  EXPECT_THAT(FormatResult(*tall, PrintMode::kSummary), ::testing::HasSubstr("  { 0, 0 },\n  ...,\n"));
}

TEST(ResultOutputTest, Json) {
  Literal v = Literal::CreateR1<float>({1.5f, -std::numeric_limits<float>::infinity(),
                                        std::numeric_limits<float>::quiet_NaN()});
  EXPECT_EQ(ResultsJson({RunResult{-1, -1, &v}}),
            "{\"result\": {\"dtype\": \"f32\", \"shape\": [3], \"data\": [1.5, \"-Infinity\", "
            "\"NaN\"]}}\n");
  Literal m = Literal::CreateR2<int32_t>({{1, 2}, {3, 4}});
  Literal b = Literal::CreateR0<bool>(true);
  Literal t = Literal::Tuple({});
  std::vector<Literal> parts;
  parts.push_back(m.Clone());
  parts.push_back(b.Clone());
  t = Literal::Tuple(std::move(parts));
  EXPECT_EQ(ResultsJson({RunResult{0, -1, &t}, RunResult{1, -1, &b}}),
            "{\"instances\": [\n"
            "  {\"replica\": 0, \"partition\": -1, \"result\": {\"tuple\": [{\"dtype\": \"s32\", "
            "\"shape\": [2, 2], \"data\": [[1, 2], [3, 4]]}, {\"dtype\": \"pred\", \"shape\": [], "
            "\"data\": true}]}},\n"
            "  {\"replica\": 1, \"partition\": -1, \"result\": {\"dtype\": \"pred\", \"shape\": [], "
            "\"data\": true}}\n"
            "]}\n");
  EXPECT_FALSE(ParsePrintMode("fancy").ok());
  EXPECT_EQ(*ParsePrintMode("json"), PrintMode::kJson);
}

}  // namespace
}  // namespace hlovm
