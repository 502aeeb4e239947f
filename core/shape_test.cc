#include "core/shape.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hlovm {

// Readable test failure messages.
void PrintTo(const Shape& shape, std::ostream* os) { *os << shape.ToString(); }

namespace {

using ::testing::HasSubstr;

Shape MustParse(std::string_view text) {
  absl::StatusOr<Shape> shape = ParseShape(text);
  EXPECT_TRUE(shape.ok()) << text << ": " << shape.status();
  return shape.ok() ? *shape : Shape();
}

TEST(ShapeTest, PrintsArrays) {
  Shape shape(ElementType::kF32, {2, 3});
  EXPECT_EQ(shape.ToString(), "f32[2,3]{1,0}");
  EXPECT_EQ(shape.ToString(/*with_layout=*/false), "f32[2,3]");
  EXPECT_EQ(Shape(ElementType::kBF16, {7}).ToString(), "bf16[7]{0}");
  EXPECT_EQ(Shape(ElementType::kPred, {0}).ToString(), "pred[0]{0}");
  EXPECT_EQ(Shape(ElementType::kF32, {2, 0, 4, 3}).ToString(), "f32[2,0,4,3]{3,2,1,0}");
  EXPECT_EQ(Shape(ElementType::kF8E4M3FN, {1, 2, 3}).ToString(), "f8e4m3fn[1,2,3]{2,1,0}");
}

TEST(ShapeTest, ScalarsPrintNoEmptyLayout) {
  Shape scalar(ElementType::kF32, {});
  ASSERT_TRUE(scalar.has_layout());
  EXPECT_EQ(scalar.ToString(), "f32[]");
  Layout layout;
  layout.memory_space = 1;
  scalar.set_layout(layout);
  EXPECT_EQ(scalar.ToString(), "f32[]{:S(1)}");
  EXPECT_EQ(scalar.ToString(false), "f32[]");
}

TEST(ShapeTest, PrintsTuplesTokensOpaque) {
  Shape tuple = Shape::Tuple({Shape(ElementType::kF32, {2}), Shape(ElementType::kS32, {})});
  EXPECT_EQ(tuple.ToString(), "(f32[2]{0}, s32[])");
  EXPECT_EQ(tuple.ToString(false), "(f32[2], s32[])");
  EXPECT_EQ(Shape().ToString(), "()");
  EXPECT_TRUE(Shape().IsTuple());
  EXPECT_EQ(Shape::Token().ToString(), "token[]");
  EXPECT_EQ(Shape(ElementType::kOpaque, {}).ToString(), "opaque[]");
  Shape nested = Shape::Tuple({tuple, Shape(), Shape::Token()});
  EXPECT_EQ(nested.ToString(), "((f32[2]{0}, s32[]), (), token[])");
}

TEST(ShapeTest, LongTuplesCarryIndexComments) {
  std::vector<Shape> elements;
  for (int i = 0; i < 11; ++i) elements.push_back(Shape(ElementType::kS32, {}));
  elements[5] = Shape(ElementType::kF32, {2});
  Shape tuple = Shape::Tuple(elements);
  const std::string expected =
      "(s32[], s32[], s32[], s32[], s32[], /*index=5*/f32[2]{0}, s32[], s32[], s32[], s32[], "
      "/*index=10*/s32[])";
  EXPECT_EQ(tuple.ToString(), expected);
  EXPECT_EQ(tuple.ToString(false),
            "(s32[], s32[], s32[], s32[], s32[], /*index=5*/f32[2], s32[], s32[], s32[], s32[], "
            "/*index=10*/s32[])");
  // The comments are skipped when parsing.
  EXPECT_TRUE(MustParse(expected).Compatible(tuple));
  EXPECT_EQ(MustParse(expected).ToString(), expected);
}

TEST(ShapeTest, PrintsDynamicDimensions) {
  Shape shape(ElementType::kF32, {10, 3});
  shape.set_dynamic_dimension(0, true);
  EXPECT_EQ(shape.ToString(), "f32[<=10,3]{1,0}");
  EXPECT_FALSE(shape.is_static());
  shape.set_dimension(0, kUnboundedSize);
  EXPECT_TRUE(shape.is_unbounded_dynamic_dimension(0));
  shape.clear_layout();
  EXPECT_EQ(shape.ToString(), "f32[?,3]");
  EXPECT_FALSE(Shape::Tuple({Shape(ElementType::kS32, {}), shape}).is_static());
  EXPECT_TRUE(Shape::Tuple({Shape(ElementType::kS32, {2})}).is_static());
}

TEST(ShapeTest, LayoutToString) {
  Layout layout = Layout::RowMajor(2);
  EXPECT_EQ(layout.ToString(), "{1,0}");
  layout.dim_level_types = {"D", "C+~"};
  layout.tiles = {Tile{{8, 128}}, Tile{{2, Tile::kCombineDimension}}};
  layout.tail_padding_alignment_in_elements = 4;
  layout.index_primitive_type = ElementType::kS32;
  layout.pointer_primitive_type = ElementType::kU64;
  layout.element_size_in_bits = 4;
  layout.memory_space = 2;
  layout.split_configs = {SplitConfig{0, {10}}, SplitConfig{1, {4, 5}}};
  layout.physical_shape = std::make_shared<Shape>(ElementType::kF32, std::vector<int64_t>{10});
  layout.dynamic_shape_metadata_prefix_bytes = 1024;
  EXPECT_EQ(
      layout.ToString(),
      "{1,0:D(D,C+~)T(8,128)(2,*)L(4)#(s32)*(u64)E(4)S(2)SC(0:10)(1:4,5)P(f32[10]{0})M(1024)}");
  Layout empty;
  EXPECT_EQ(empty.ToString(), "{}");
  empty.tiles = {Tile{{256}}};
  EXPECT_EQ(empty.ToString(), "{:T(256)}");
}

TEST(ShapeTest, RoundTripsXlaSpellings) {
  const char* kCases[] = {
      "f32[2,3]{1,0}",
      "f32[123,456]{0,1}",
      "f32[]",
      "f32[]{:S(1)}",
      "u32[]{:S(2)}",
      "f16[]{:T(256)}",
      "(f32[2]{0}, s32[])",
      "()",
      "(())",
      "((), ((f32[1]{0})))",
      "token[]",
      "opaque[]",
      "f32[<=10,3]{1,0}",
      "f32[?,3]",
      "f32[?,784]",
      "f32[123,<=456]",
      "(f32[42], u32[<=123,<=456])",
      "(f32[1], (f32[2], token[]), opaque[], f32[3])",
      "pred[0]{0}",
      "f32[2,0,4,3]{3,2,1,0}",
      "f32[123,456]{0,1:T(2,128)}",
      "bf16[123,456,789]{2,1,0:T(2,*,128)(2,1)}",
      "bf16[8,128]{1,0:T(8,128)(2,1)}",
      "s4[123,456]{1,0:T(2,128)E(4)}",
      "pred[123,456]{1,0:T(2,128)S(3)}",
      "pred[123,456]{1,0:S(3)}",
      "f32[123,456]{1,0:T(16,128)M(1024)}",
      "pred[123,456]{1,0:T(2,128)S(3)SC(1:200)}",
      "pred[123,456]{1,0:S(3)SC(0:10)(1:4,5)}",
      "pred[123,456]{1,0:SC(1:50,200)}",
      "f32[10,10]{1,0:D(D,C)}",
      "f32[10,10]{1,0:D(D,C+~)T(128,8)P(f32[10,10]{0,1})}",
      "f32[10]{0:L(8)}",
      "s32[10]{0:#(s32)*(u16)}",
      "f32[4]{0:T(128)(2)}",
      "s2[4]{0:E(2)}",
      "f8e5m2[1]{0}",
      "f8e4m3[1]{0}",
      "f8e4m3fn[1]{0}",
      "f8e4m3fnuz[1]{0}",
      "f8e4m3b11fnuz[1]{0}",
      "f8e5m2fnuz[1]{0}",
      "f8e3m4[1]{0}",
      "f8e8m0fnu[1]{0}",
      "f6e2m3fn[1]{0}",
      "f6e3m2fn[1]{0}",
      "f4e2m1fn[1]{0}",
      "c64[2]{0}",
      "c128[2]{0}",
      "u2[3]{0}",
      "f32[1,2,3]{0,2,1:S(5)}",
  };
  for (const char* text : kCases) {
    Shape shape = MustParse(text);
    EXPECT_EQ(shape.ToString(), text);
    // Parsing the printed text gives an equal shape.
    EXPECT_EQ(MustParse(shape.ToString()), shape) << text;
  }
}

TEST(ShapeTest, ParsesSpacesAndNormalizesThem) {
  EXPECT_EQ(MustParse("f32[123,456,789]{0,1,2:T(2, * , 128)}").ToString(),
            "f32[123,456,789]{0,1,2:T(2,*,128)}");
  EXPECT_EQ(MustParse("(f32[1572864],s8[5120,1024])").ToString(), "(f32[1572864], s8[5120,1024])");
  EXPECT_EQ(MustParse("  f32 [ 2 , 3 ] { 1 , 0 }  ").ToString(), "f32[2,3]{1,0}");
  EXPECT_EQ(MustParse("f32[]{}").ToString(), "f32[]");
  EXPECT_EQ(MustParse("/* c */ f32[2] // tail\n").ToString(), "f32[2]");
}

TEST(ShapeTest, ParsedShapesWithoutLayoutHaveNone) {
  Shape shape = MustParse("f32[2,3]");
  EXPECT_FALSE(shape.has_layout());
  EXPECT_EQ(shape.minor_to_major(), (std::vector<int64_t>{1, 0}));
  Shape with = MustParse("f32[2,3]{0,1}");
  ASSERT_TRUE(with.has_layout());
  EXPECT_EQ(with.layout().minor_to_major, (absl::InlinedVector<int64_t, 6>{0, 1}));
  EXPECT_FALSE(with.layout().IsRowMajor());
  EXPECT_TRUE(MustParse("f32[2,3]{1,0}").layout().IsRowMajor());
  Shape tuple = MustParse("(f32[2], s32[3]{0})");
  EXPECT_FALSE(tuple.tuple_shape(0).has_layout());
  EXPECT_TRUE(tuple.tuple_shape(1).has_layout());
}

TEST(ShapeTest, ParsedFieldsAreStored) {
  Shape shape = MustParse("bf16[8,128,4]{2,1,0:T(2,*,128)(2,1)E(16)S(3)M(64)}");
  EXPECT_EQ(shape.element_type(), ElementType::kBF16);
  EXPECT_EQ(shape.dimensions(), (std::vector<int64_t>{8, 128, 4}));
  const Layout& layout = shape.layout();
  ASSERT_EQ(layout.tiles.size(), 2u);
  EXPECT_EQ(layout.tiles[0].dimensions, (std::vector<int64_t>{2, Tile::kCombineDimension, 128}));
  EXPECT_EQ(layout.tiles[1].dimensions, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(layout.element_size_in_bits, 16);
  EXPECT_EQ(layout.memory_space, 3);
  EXPECT_EQ(layout.dynamic_shape_metadata_prefix_bytes, 64);
  Shape dyn = MustParse("u32[<=123,?,7]");
  EXPECT_TRUE(dyn.is_dynamic_dimension(0));
  EXPECT_EQ(dyn.dimensions(0), 123);
  EXPECT_TRUE(dyn.is_dynamic_dimension(1));
  EXPECT_TRUE(dyn.is_unbounded_dynamic_dimension(1));
  EXPECT_FALSE(dyn.is_dynamic_dimension(2));
}

TEST(ShapeTest, LeavesNonLayoutBraceAlone) {
  // A computation header: `-> f32[2] {` followed by the body.
  std::string text = "f32[2] {\n  ROOT %x = f32[2] parameter(0)\n}";
  TextCursor cursor{text, 0};
  Shape shape;
  ASSERT_TRUE(ParseShape(cursor, &shape).ok());
  EXPECT_EQ(shape.ToString(), "f32[2]");
  EXPECT_EQ(cursor.pos, 6u);
}

TEST(ShapeTest, ParseErrors) {
  struct Case {
    const char* text;
    const char* message;
    size_t column;
  };
  const Case kCases[] = {
      {"f32[123,456,789]{1:T(2, * , 128)}", "Dimensions size is 3, but minor to major size is 1.",
       17},
      {"f32[123,456]foobar{0,1}", "expected end of shape, found 'foobar'", 13},
      {"f32[123,456]{foo}", "expected end of shape", 13},
      {"f32[2,3]{1,1}", "is not a permutation", 9},
      {"f32[2,3]{1,2}", "is not a permutation", 9},
      {"g32[]", "expected a shape, found 'g32'", 1},
      {"tuple[]", "expected a shape", 1},
      {"f32", "expected '[' after the element type, found end of input", 4},
      {"f32[2", "expected ',' or ']' in the dimensions", 6},
      {"f32[2,]", "expected a dimension size, found ']'", 7},
      {"f32[-1]", "expected a dimension size, found '-1'", 5},
      {"f32[99999999999999999999]", "a dimension size is out of range", 5},
      {"(f32[2] s32[])", "expected ',' or ')' in a tuple shape, found 's32'", 9},
      {"(f32[2],", "expected a shape, found end of input", 9},
      {"token[1]", "expected ']'", 7},
      {"f32[2]{0:T(}", "expected a tile dimension, found '}'", 12},
      {"f32[2]{0:T}", "expected '(' to start a tile", 11},
      {"f32[2]{0:Q(1)}", "expected '}' to end the layout, found 'Q'", 10},
      {"f32[2]{0:E(4)T(2)}", "expected '}' to end the layout", 14},
      {"f32[10,10]{1,0:D(X,C)}", "expected a DimLevelType abbreviation", 18},
      {"f32[2]{0:#(f32)}", "expected an integer type, found 'f32'", 12},
      {"f32[2]{0:L(0)}", "tail padding alignment must be at least 1", 12},
      {"f32[2]{0:SC(1)}", "expected ':'", 14},
      {"f32[2] /* open", "unterminated block comment", 8},
  };
  for (const Case& c : kCases) {
    absl::StatusOr<Shape> shape = ParseShape(c.text);
    ASSERT_FALSE(shape.ok()) << c.text;
    EXPECT_EQ(shape.status().code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_THAT(std::string(shape.status().message()), HasSubstr(c.message)) << c.text;
    EXPECT_THAT(std::string(shape.status().message()),
                HasSubstr("column " + std::to_string(c.column) + ": "))
        << c.text << " -> " << shape.status();
  }
}

TEST(ShapeTest, CursorStopsAtOffendingByte) {
  std::string text = "(f32[2], f32[3]{0:T(x)})";
  TextCursor cursor{text, 0};
  Shape shape;
  absl::Status status = ParseShape(cursor, &shape);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(cursor.pos, text.find('x'));
}

TEST(ShapeTest, BufferShapesAreUnimplemented) {
  absl::StatusOr<Shape> shape = ParseShape("b(s32[])");
  ASSERT_FALSE(shape.ok());
  EXPECT_EQ(shape.status().code(), absl::StatusCode::kUnimplemented);
}

TEST(ShapeTest, DeepNestingIsAnErrorNotACrash) {
  std::string text(100000, '(');
  EXPECT_FALSE(ParseShape(text).ok());
  std::string physical;
  for (int i = 0; i < 20000; ++i) physical += "f32[1]{0:P(";
  EXPECT_FALSE(ParseShape(physical).ok());
  std::string ok = std::string(100, '(') + std::string(100, ')');
  EXPECT_TRUE(ParseShape(ok).ok());
}

TEST(ShapeTest, RandomInputNeverCrashes) {
  std::mt19937 rng(1234);
  const std::string alphabet = "f32su8bpredtokn[](){},:<=?*#TLESCPMD0123456789 /-+~\n";
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    int length = static_cast<int>(rng() % 40);
    for (int j = 0; j < length; ++j) text.push_back(alphabet[rng() % alphabet.size()]);
    absl::StatusOr<Shape> shape = ParseShape(text);
    if (shape.ok()) {
      // Anything accepted prints to text that parses and prints the same.
      absl::StatusOr<Shape> again = ParseShape(shape->ToString());
      ASSERT_TRUE(again.ok()) << text;
      EXPECT_EQ(again->ToString(), shape->ToString()) << text;
    }
  }
  const std::string valid =
      "(f32[<=10,3]{1,0:D(D,C+~)T(8,128)(2,*)L(4)#(s32)*(u64)E(4)S(2)SC(0:10)(1:4,5)"
      "P(f32[10]{0})M(1024)}, token[], (), bf16[?,2], pred[]{:S(1)})";
  ASSERT_TRUE(ParseShape(valid).ok());
  EXPECT_EQ(ParseShape(valid)->ToString(), valid);
  for (size_t n = 0; n < valid.size(); ++n) {
    absl::StatusOr<Shape> shape = ParseShape(valid.substr(0, n));
    // Only a few prefixes are complete shapes on their own.
    if (shape.ok()) ADD_FAILURE() << "prefix parsed: " << valid.substr(0, n);
  }
  // Random byte flips of a valid shape.
  for (int i = 0; i < 20000; ++i) {
    std::string text = valid;
    int flips = 1 + static_cast<int>(rng() % 3);
    for (int j = 0; j < flips; ++j) text[rng() % text.size()] = static_cast<char>(rng() % 256);
    absl::StatusOr<Shape> shape = ParseShape(text);
    if (shape.ok()) {
      absl::StatusOr<Shape> again = ParseShape(shape->ToString());
      ASSERT_TRUE(again.ok()) << text;
      EXPECT_EQ(again->ToString(), shape->ToString());
    }
  }
}

// Every shape with a layout in the corpus of real XLA text prints back as it
// was written (modulo spaces inside tiles).
TEST(ShapeTest, CorpusLayoutsRoundTrip) {
  const std::filesystem::path root = "/work/shared/corpus";
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "corpus not present";
  std::set<std::string> seen;
  int checked = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".hlo") continue;
    if (entry.path().string().find("/invalid") != std::string::npos) continue;
    std::ifstream in(entry.path());
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string text = buffer.str();
    for (size_t pos = text.find(']'); pos != std::string::npos; pos = text.find(']', pos + 1)) {
      // Find "<type>[dims]{layout}" ending at this ']' with a layout after it.
      if (pos + 1 >= text.size() || text[pos + 1] != '{') continue;
      size_t open = text.rfind('[', pos);
      if (open == std::string::npos || open == 0) continue;
      size_t start = open;
      while (start > 0 && ((text[start - 1] >= 'a' && text[start - 1] <= 'z') ||
                           (text[start - 1] >= '0' && text[start - 1] <= '9'))) {
        --start;
      }
      if (start == open) continue;
      size_t close = text.find('}', pos);
      if (close == std::string::npos) continue;
      std::string candidate = text.substr(start, close + 1 - start);
      // Skip FileCheck patterns ("{{.*}}") and physical shapes (nested braces).
      if (candidate.find('\n') != std::string::npos || candidate.find('P') != std::string::npos ||
          candidate.find("{{") != std::string::npos) {
        continue;
      }
      if (!ElementTypeFromName(text.substr(start, open - start)).has_value()) continue;
      if (!seen.insert(candidate).second) continue;
      absl::StatusOr<Shape> shape = ParseShape(candidate);
      std::string expected = candidate;
      std::erase(expected, ' ');
      if (expected.ends_with("[]{}")) expected.resize(expected.size() - 2);
      if (!shape.ok()) {
        ADD_FAILURE() << candidate << ": " << shape.status();
        continue;
      }
      EXPECT_EQ(shape->ToString(), expected);
      ++checked;
    }
  }
  EXPECT_GT(checked, 50);
  std::printf("checked %d distinct corpus shapes\n", checked);
}

// Drops spaces, `/*...*/` comments and empty scalar layouts.
std::string Normalize(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ' ') continue;
    if (text.compare(i, 2, "/*") == 0) {
      size_t end = text.find("*/", i + 2);
      if (end == std::string_view::npos) break;
      i = end + 1;
      continue;
    }
    out.push_back(text[i]);
  }
  for (size_t at; (at = out.find("[]{}")) != std::string::npos;) out.erase(at + 2, 2);
  return out;
}

// The result shape of every instruction in the corpus (`name = SHAPE op(`)
// prints back exactly as XLA wrote it.
TEST(ShapeTest, CorpusInstructionShapesPrintIdentically) {
  const std::filesystem::path root = "/work/shared/corpus";
  if (!std::filesystem::exists(root)) GTEST_SKIP() << "corpus not present";
  int checked = 0;
  int exact = 0;
  int failures = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".hlo") continue;
    if (entry.path().string().find("/invalid") != std::string::npos) continue;
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      size_t eq = line.find(" = ");
      if (eq == std::string::npos) continue;
      size_t name_start = line.find_first_not_of(' ');
      if (line.compare(name_start, 5, "ROOT ") == 0) name_start += 5;
      if (line[name_start] == '/' || line.find(' ', name_start) != eq) continue;
      std::string_view view(line);
      TextCursor cursor{view, eq + 3};
      Shape shape;
      if (!ParseShape(cursor, &shape).ok()) continue;  // not a shape (e.g. a literal)
      std::string_view source = view.substr(eq + 3, cursor.pos - eq - 3);
      const std::string printed = shape.ToString();
      ++checked;
      if (printed == source) {
        ++exact;
        continue;
      }
      // Hand-written text may space or comment differently, and `f32[]{}`
      // prints as `f32[]`; apart from that the text must agree.
      if (Normalize(printed) == Normalize(source)) continue;
      if (++failures <= 10) {
        ADD_FAILURE() << entry.path() << "\n  source: " << source << "\n  printed: " << printed;
      }
    }
  }
  std::printf("%d instruction shapes, %d printed exactly as written\n", checked, exact);
  EXPECT_EQ(failures, 0);
  EXPECT_GT(checked, 1000);
  EXPECT_GT(exact, checked * 99 / 100);
}

TEST(LayoutTest, ParseLayoutAtCursor) {
  std::string text = "  {1,0:T(8,128)(2,1)E(4)} rest";
  TextCursor cursor{text, 0};
  Layout layout;
  ASSERT_TRUE(ParseLayout(cursor, &layout).ok());
  EXPECT_EQ(cursor.Rest(), " rest");
  EXPECT_EQ(layout.minor_to_major, (absl::InlinedVector<int64_t, 6>{1, 0}));
  EXPECT_EQ(layout.tiles.size(), 2u);
  EXPECT_EQ(layout.element_size_in_bits, 4);
  EXPECT_EQ(layout.ToString(), "{1,0:T(8,128)(2,1)E(4)}");
  std::string bad = "{1,0:T(8,128}";
  TextCursor bad_cursor{bad, 0};
  absl::Status status = ParseLayout(bad_cursor, &layout);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad_cursor.pos, bad.find('}'));
  std::string not_layout = "(1)";
  TextCursor not_cursor{not_layout, 0};
  EXPECT_FALSE(ParseLayout(not_cursor, &layout).ok());
}

// Random layouts with every attribute print and parse back to equal values.
TEST(LayoutTest, RandomLayoutsRoundTrip) {
  std::mt19937 rng(99);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  const ElementType kIndexTypes[] = {ElementType::kS32, ElementType::kU8, ElementType::kS64,
                                     ElementType::kU16};
  for (int trial = 0; trial < 2000; ++trial) {
    int rank = pick(5);
    std::vector<int64_t> dims(rank);
    for (int64_t& d : dims) d = pick(4) == 0 ? 0 : 1 + pick(300);
    Shape shape(ElementType::kBF16, dims);
    Layout layout;
    for (int i = 0; i < rank; ++i) layout.minor_to_major.push_back(i);
    std::shuffle(layout.minor_to_major.begin(), layout.minor_to_major.end(), rng);
    if (pick(4) == 0) {
      for (int i = 0; i < rank; ++i) {
        std::string dlt(1, "DCSH"[pick(4)]);
        if (pick(2)) dlt += "+";
        if (pick(2)) dlt += "~";
        layout.dim_level_types.push_back(dlt);
      }
    }
    for (int t = pick(3); t > 0; --t) {
      Tile tile;
      for (int k = 1 + pick(3); k > 0; --k) {
        tile.dimensions.push_back(pick(5) == 0 ? Tile::kCombineDimension : 1 + pick(256));
      }
      layout.tiles.push_back(tile);
    }
    if (pick(4) == 0) layout.tail_padding_alignment_in_elements = 2 + pick(100);
    if (pick(4) == 0) layout.index_primitive_type = kIndexTypes[pick(4)];
    if (pick(4) == 0) layout.pointer_primitive_type = kIndexTypes[pick(4)];
    if (pick(3) == 0) layout.element_size_in_bits = 1 + pick(64);
    if (pick(3) == 0) layout.memory_space = pick(2) ? 1 + pick(6) : -1 - pick(3);
    for (int c = pick(3); c > 0; --c) {
      SplitConfig config{pick(4), {}};
      for (int k = 1 + pick(3); k > 0; --k) config.split_indices.push_back(pick(1000));
      layout.split_configs.push_back(config);
    }
    if (pick(6) == 0) {
      // A scalar's empty layout does not print, so give the scalar none.
      Shape scalar(ElementType::kF32, {});
      scalar.clear_layout();
      layout.physical_shape =
          std::make_shared<Shape>(Shape::Tuple({Shape(ElementType::kS32, {4}), scalar}));
    }
    if (pick(4) == 0) layout.dynamic_shape_metadata_prefix_bytes = 1 + pick(4096);
    shape.set_layout(layout);
    if (layout.ToString() == "{}" && rank == 0) continue;  // printed without a layout
    const std::string text = shape.ToString();
    absl::StatusOr<Shape> parsed = ParseShape(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status();
    EXPECT_EQ(*parsed, shape) << text;
    EXPECT_EQ(parsed->ToString(), text);
    TextCursor cursor{text, text.find('{')};
    Layout alone;
    ASSERT_TRUE(ParseLayout(cursor, &alone).ok()) << text;
    EXPECT_EQ(alone, layout) << text;
    EXPECT_TRUE(cursor.AtEnd());
  }
}

TEST(ShapeTest, EqualityAndCompatibility) {
  Shape a = MustParse("f32[2,3]{1,0}");
  Shape b = MustParse("f32[2,3]{0,1}");
  Shape c = MustParse("f32[2,3]");
  EXPECT_FALSE(a == b);
  EXPECT_FALSE(a == c);
  EXPECT_TRUE(a.Compatible(b));
  EXPECT_TRUE(a.Compatible(c));
  EXPECT_FALSE(a.Compatible(MustParse("f32[3,2]")));
  EXPECT_FALSE(a.Compatible(MustParse("s32[2,3]")));
  EXPECT_TRUE(MustParse("(f32[2], s32[])").Compatible(MustParse("(f32[2]{0}, s32[])")));
  EXPECT_FALSE(MustParse("(f32[2], s32[])").Compatible(MustParse("(f32[2])")));
  EXPECT_FALSE(MustParse("f32[2]{0:S(1)}") == MustParse("f32[2]{0}"));
  EXPECT_FALSE(MustParse("f32[2]{0:T(2)P(f32[2]{0})}") == MustParse("f32[2]{0:T(2)}"));
  EXPECT_TRUE(MustParse("f32[2]{0:T(2)P(f32[2]{0})}") == MustParse("f32[2]{0:T(2)P(f32[2]{0})}"));
  EXPECT_FALSE(MustParse("f32[<=2]") == MustParse("f32[2]"));
}

TEST(ShapeTest, ElementCountAndByteSize) {
  EXPECT_EQ(MustParse("f32[2,3]").element_count(), 6);
  EXPECT_EQ(MustParse("f32[2,3]").byte_size(), 24);
  EXPECT_EQ(MustParse("f32[]").element_count(), 1);
  EXPECT_EQ(MustParse("c128[]").byte_size(), 16);
  EXPECT_EQ(MustParse("s4[5]").byte_size(), 5);
  EXPECT_EQ(MustParse("f32[2,0]").element_count(), 0);
  EXPECT_EQ(MustParse("f32[<=4,2]").element_count(), 8);
  EXPECT_EQ(MustParse("(f32[2])").byte_size(), 0);
  EXPECT_EQ(MustParse("s8[9223372036854775807]").element_count(), INT64_MAX);
  EXPECT_EQ(MustParse("f32[?,3]").element_count(), -1);
  // Sizes beyond int64 parse (ValidateShape refuses them) but have no
  // element count.
  Shape huge = MustParse("f32[4294967296,4294967296]");
  EXPECT_EQ(huge.element_count(), -1);
  EXPECT_EQ(huge.byte_size(), 0);
  EXPECT_EQ(MustParse("f32[9223372036854775807]").byte_size(), 0);
}

TEST(ValidateShapeTest, AcceptsWhatFitsInt64) {
  for (const char* text :
       {"f32[]", "f32[2,3]", "f32[0]", "f32[0,5,4]", "pred[9223372036854775807]",
        "f32[2305843009213693951]", "f32[<=4,2]", "f32[?,3]", "(f32[2], (s8[], token[]))",
        "f32[0,1152921504606846975,2]", "c128[0,576460752303423487]", "token[]", "()"}) {
    EXPECT_TRUE(ValidateShape(MustParse(text)).ok()) << text << ": "
                                                     << ValidateShape(MustParse(text));
  }
}

TEST(ValidateShapeTest, RefusesElementCountsBeyondInt64) {
  absl::Status s = ValidateShape(MustParse("f32[3,4611686018427387904]"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "shape f32[3,4611686018427387904] has more than 2^63 - 1 elements");
  EXPECT_FALSE(ValidateShape(MustParse("s8[4294967296,4294967296]")).ok());
  // Inside a tuple, and in a layout's physical shape.
  EXPECT_THAT(ValidateShape(MustParse("(f32[2], (f32[3,4611686018427387904]))")).message(),
              HasSubstr("f32[3,4611686018427387904]"));
  EXPECT_FALSE(ValidateShape(MustParse("f32[2]{0:P(f32[3,4611686018427387904]{1,0})}")).ok());
}

TEST(ValidateShapeTest, RefusesByteSizesBeyondInt64) {
  EXPECT_EQ(ValidateShape(MustParse("f32[2305843009213693952]")).message(),
            "shape f32[2305843009213693952] needs more than 2^63 - 1 bytes (4 per element)");
  EXPECT_FALSE(ValidateShape(MustParse("c128[1000000,1000000,1000000]")).ok());
  EXPECT_TRUE(ValidateShape(MustParse("s8[1000000,1000000,1000000]")).ok());
}

TEST(ValidateShapeTest, RefusesZeroSizeArraysWhoseStridesOverflow) {
  // No elements, but the stride of dimension 0 would be 2^64 elements.
  absl::Status s = ValidateShape(MustParse("f32[0,4611686018427387904,4]"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("shape f32[0,4611686018427387904,4] has no elements, but"));
  EXPECT_THAT(s.message(), HasSubstr("strides"));
  // The byte width counts: 2^61 * 2 elements of 4 bytes are 2^64 bytes.
  EXPECT_FALSE(ValidateShape(MustParse("f32[2305843009213693952,0,2]")).ok());
  EXPECT_TRUE(ValidateShape(MustParse("s8[2305843009213693952,0,2]")).ok());
  // Whatever the layout.
  EXPECT_FALSE(ValidateShape(MustParse("f32[4611686018427387904,4,0]{0,1,2}")).ok());
}

TEST(ValidateShapeTest, RefusesNegativeDimensions) {
  Shape shape(ElementType::kF32, {2, -3});
  EXPECT_EQ(ValidateShape(shape).message(), "shape f32[2,-3]: dimension 1 is negative (-3)");
  // kUnboundedSize only stands for `?` on a dynamic dimension.
  Shape fake(ElementType::kF32, {kUnboundedSize});
  EXPECT_FALSE(ValidateShape(fake).ok());
}

//===----------------------------------------------------------------------===//
// Index arithmetic (seed 004).
//===----------------------------------------------------------------------===//

TEST(IndexTest, SeedTwoByThreeExamples) {
  // The [2 x 3] array  a b c / d e f.
  const char kValues[2][3] = {{'a', 'b', 'c'}, {'d', 'e', 'f'}};
  // minor_to_major {0,1}: memory holds a d b e c f.
  Shape col = MustParse("f32[2,3]{0,1}");
  std::string memory(6, '?');
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) memory[LinearIndex(col, {i, j})] = kValues[i][j];
  }
  EXPECT_EQ(memory, "adbecf");
  // minor_to_major {1,0}: memory holds a b c d e f.
  Shape row = MustParse("f32[2,3]{1,0}");
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) memory[LinearIndex(row, {i, j})] = kValues[i][j];
  }
  EXPECT_EQ(memory, "abcdef");
  // No layout means the default row-major order.
  EXPECT_EQ(LinearIndex(MustParse("f32[2,3]"), {1, 0}), 3);
  EXPECT_EQ(StridesForLayout({2, 3}, {0, 1}), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(StridesForLayout({2, 3}, {1, 0}), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(StridesForLayout({4, 5, 6}, {1, 2, 0}), (std::vector<int64_t>{30, 1, 5}));
  EXPECT_EQ(MultiIndex(col, 3), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(MultiIndex(row, 3), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(LinearIndex(MustParse("f32[]"), {}), 0);
  EXPECT_TRUE(MultiIndex(MustParse("f32[]"), 0).empty());
}

TEST(IndexTest, RandomLayoutsAreBijective) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 300; ++trial) {
    int rank = 1 + static_cast<int>(rng() % 5);
    std::vector<int64_t> dims(rank);
    for (int64_t& d : dims) d = 1 + static_cast<int64_t>(rng() % 5);
    Shape shape(ElementType::kF32, dims);
    Layout layout;
    for (int i = 0; i < rank; ++i) layout.minor_to_major.push_back(i);
    std::shuffle(layout.minor_to_major.begin(), layout.minor_to_major.end(), rng);
    shape.set_layout(layout);
    std::vector<int64_t> strides = StridesForLayout(dims, layout.minor_to_major);
    int64_t count = shape.element_count();
    std::vector<bool> hit(count, false);
    for (int64_t linear = 0; linear < count; ++linear) {
      std::vector<int64_t> index = MultiIndex(shape, linear);
      int64_t via_strides = 0;
      for (int i = 0; i < rank; ++i) {
        ASSERT_GE(index[i], 0);
        ASSERT_LT(index[i], dims[i]);
        via_strides += index[i] * strides[i];
      }
      ASSERT_EQ(LinearIndex(shape, index), linear);
      ASSERT_EQ(via_strides, linear);
      hit[linear] = true;
    }
    // The most minor dimension has stride 1.
    EXPECT_EQ(strides[layout.minor_to_major[0]], 1);
  }
}

}  // namespace
}  // namespace hlovm
