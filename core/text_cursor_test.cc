#include "core/text_cursor.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace {

TEST(TextCursorTest, SkipsWhitespaceAndComments) {
  std::string text = "  \t\n// line comment\r\n/* block\n comment */ x";
  TextCursor cursor{text, 0};
  ASSERT_TRUE(cursor.SkipSpace().ok());
  EXPECT_EQ(cursor.Peek(), 'x');
  EXPECT_EQ(cursor.pos, text.size() - 1);
}

TEST(TextCursorTest, LineCommentEndsAtAnyLineBreak) {
  for (std::string br : {"\n", "\r", "\r\n"}) {
    std::string text = "// c" + br + "y";
    TextCursor cursor{text, 0};
    ASSERT_TRUE(cursor.SkipSpace().ok());
    EXPECT_EQ(cursor.Peek(), 'y');
  }
  std::string text = "// comment to the end";
  TextCursor cursor{text, 0};
  ASSERT_TRUE(cursor.SkipSpace().ok());
  EXPECT_TRUE(cursor.AtEnd());
}

TEST(TextCursorTest, BlockCommentsDoNotNest) {
  std::string text = "/* a /* b */ c */";
  TextCursor cursor{text, 0};
  ASSERT_TRUE(cursor.SkipSpace().ok());
  EXPECT_EQ(cursor.Peek(), 'c');
}

TEST(TextCursorTest, UnterminatedBlockCommentIsAnError) {
  std::string text = "  /* never closed *";
  TextCursor cursor{text, 0};
  absl::Status status = cursor.SkipSpace();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), testing::HasSubstr("unterminated"));
  EXPECT_EQ(cursor.pos, 2u);
  EXPECT_FALSE(cursor.Consume('x'));
  EXPECT_FALSE(cursor.Expect('x').ok());
}

TEST(TextCursorTest, LoneSlashIsNotAComment) {
  std::string text = " /x";
  TextCursor cursor{text, 0};
  ASSERT_TRUE(cursor.SkipSpace().ok());
  EXPECT_EQ(cursor.Peek(), '/');
  std::string end = "/";
  TextCursor at_end{end, 0};
  ASSERT_TRUE(at_end.SkipSpace().ok());
  EXPECT_EQ(at_end.pos, 0u);
}

TEST(TextCursorTest, ConsumeAndExpect) {
  std::string text = " ( /*c*/ , x";
  TextCursor cursor{text, 0};
  EXPECT_FALSE(cursor.Consume(')'));
  EXPECT_TRUE(cursor.Consume('('));
  EXPECT_TRUE(cursor.Expect(',').ok());
  absl::Status status = cursor.Expect(']');
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "expected ']', found 'x'");
  EXPECT_EQ(cursor.Peek(), 'x');
}

TEST(TextCursorTest, ConsumeWordRespectsWordBoundaries) {
  std::string text = "SC(1) S(2) <=5";
  TextCursor cursor{text, 0};
  EXPECT_FALSE(cursor.ConsumeWord("S"));
  EXPECT_TRUE(cursor.ConsumeWord("SC"));
  EXPECT_TRUE(cursor.Consume('('));
  cursor.pos = 6;
  EXPECT_TRUE(cursor.ConsumeWord("S"));
  EXPECT_EQ(cursor.Peek(), '(');
  cursor.pos = 10;
  EXPECT_TRUE(cursor.ConsumeWord("<="));
  EXPECT_EQ(cursor.Peek(), '5');
  EXPECT_FALSE(cursor.ConsumeWord(""));
}

TEST(TextCursorTest, ErrorExpectedDescribesNextToken) {
  std::string text = "abc.def-1 rest";
  TextCursor cursor{text, 0};
  EXPECT_EQ(cursor.ErrorExpected("a number").message(), "expected a number, found 'abc.def-1'");
  EXPECT_EQ(cursor.pos, 0u);
  cursor.pos = text.size();
  EXPECT_EQ(cursor.ErrorExpected("x").message(), "expected x, found end of input");
  std::string punct = "{";
  TextCursor p{punct, 0};
  EXPECT_EQ(p.ErrorExpected("'('").message(), "expected '(', found '{'");
  EXPECT_EQ(p.Error("boom").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(p.Error("boom").message(), "boom");
}

TEST(TextCursorTest, PeekAndRest) {
  std::string text = "ab";
  TextCursor cursor{text, 0};
  EXPECT_EQ(cursor.Peek(), 'a');
  EXPECT_EQ(cursor.Peek(1), 'b');
  EXPECT_EQ(cursor.Peek(2), '\0');
  cursor.pos = 1;
  EXPECT_EQ(cursor.Rest(), "b");
}

TEST(LineColumnTest, CountsLinesForAllBreaks) {
  std::string text = "ab\ncd\r\nef\rgh";
  EXPECT_EQ(GetLineColumn(text, 0).line, 1);
  EXPECT_EQ(GetLineColumn(text, 0).column, 1);
  EXPECT_EQ(GetLineColumn(text, 1).column, 2);
  EXPECT_EQ(GetLineColumn(text, 3).line, 2);
  EXPECT_EQ(GetLineColumn(text, 3).column, 1);
  EXPECT_EQ(GetLineColumn(text, 7).line, 3);  // 'e' after CRLF
  EXPECT_EQ(GetLineColumn(text, 7).column, 1);
  EXPECT_EQ(GetLineColumn(text, 10).line, 4);  // 'g' after CR
  EXPECT_EQ(GetLineColumn(text, 11).column, 2);
  EXPECT_EQ(GetLineColumn(text, 1000).line, 4);  // clamped to the end
}

TEST(LocateErrorTest, FormatsFileLineColumnAndCaret) {
  std::string text = "HloModule m\n  %x = f32[2 parameter(0)\n";
  size_t offset = text.find(" parameter");
  absl::Status status =
      LocateError(absl::InvalidArgumentError("expected ']'"), "a.hlo", text, offset);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(status.message()),
            "a.hlo:2:13: error: expected ']'\n"
            "  %x = f32[2 parameter(0)\n"
            "            ^");
  absl::Status no_file = LocateError(absl::UnimplementedError("nope"), "", "abc", 1);
  EXPECT_EQ(no_file.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(no_file.message(), "1:2: error: nope\nabc\n ^");
}

TEST(LocateErrorTest, KeepsTabsForAlignmentAndHandlesEnd) {
  absl::Status status = LocateError(absl::InvalidArgumentError("m"), "", "\tx y", 3);
  EXPECT_EQ(status.message(), "1:4: error: m\n\tx y\n\t  ^");
  absl::Status at_end = LocateError(absl::InvalidArgumentError("m"), "f", "a\r\nb", 4);
  EXPECT_EQ(at_end.message(), "f:2:2: error: m\nb\n ^");
  absl::Status empty = LocateError(absl::InvalidArgumentError("m"), "", "", 0);
  EXPECT_EQ(empty.message(), "1:1: error: m\n\n^");
}

}  // namespace
}  // namespace hlovm
