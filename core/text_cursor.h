// A position in source text, shared by the small parsers in core/ (shapes,
// layouts, literals) and the HLO parser in frontend/. On error a parser
// returns an InvalidArgument status and leaves `pos` at the offending byte, so
// the caller can report a line and column.
#ifndef HLOVM_CORE_TEXT_CURSOR_H_
#define HLOVM_CORE_TEXT_CURSOR_H_

#include <cstddef>
#include <string_view>

#include "absl/status/status.h"

namespace hlovm {

struct TextCursor {
  std::string_view text;
  size_t pos = 0;

  bool AtEnd() const { return pos >= text.size(); }
  char Peek(size_t ahead = 0) const {
    return pos + ahead < text.size() ? text[pos + ahead] : '\0';
  }
  std::string_view Rest() const { return text.substr(pos); }

  // Skips whitespace, `// ...` line comments and `/* ... */` block comments.
  // Returns an error at the comment's start if a block comment is unterminated.
  absl::Status SkipSpace();
  // Skips space, then consumes `c` if it is next.
  bool Consume(char c);
  // Skips space, then consumes `word` if it is next. A word ending in a
  // letter, digit or '_' must not be followed by one ("S" does not match the
  // start of "SC(").
  bool ConsumeWord(std::string_view word);
  // Skips space, then consumes `c` or returns "expected 'c'" at the position.
  absl::Status Expect(char c);

  // Returns InvalidArgument("expected <what>, found <next token text>"),
  // leaving pos where it is.
  absl::Status ErrorExpected(std::string_view what) const;
  absl::Status Error(std::string_view message) const;
};

// 1-based line and column of byte `offset` in `text` (columns count bytes).
struct LineColumn {
  int line;
  int column;
};
LineColumn GetLineColumn(std::string_view text, size_t offset);

// Formats a parse error at `offset` as "line:col: error: message", followed by
// the source line and a caret under the column. `file` (if not empty) is
// prefixed as "file:". `status` keeps its code.
absl::Status LocateError(absl::Status status, std::string_view file,
                         std::string_view text, size_t offset);

// The one form of every located message (parser, verifier, compiler,
// executor): "file:line:col: error: message", then the line of `text` that
// holds byte `offset` and a caret under it. `line` and `column` are printed
// as given (a part of a larger file numbers its lines from where it starts);
// the source line and caret are left out when `offset` is past `text` (no
// text kept), and "file:" when `file` is empty. `line` <= 0: no position,
// "file: error: message". `severity` "note" marks a remark that belongs to
// the error before it.
std::string FormatSourceMessage(std::string_view file, int line, int column,
                                std::string_view text, size_t offset, std::string_view message,
                                std::string_view severity = "error");

}  // namespace hlovm

#endif  // HLOVM_CORE_TEXT_CURSOR_H_
