#include "core/text_cursor.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace hlovm {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Characters that continue a token for the "found ..." part of error messages.
bool IsTokenChar(char c) { return IsWordChar(c) || c == '.' || c == '-' || c == '%'; }

absl::string_view Absl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

}  // namespace

absl::Status TextCursor::SkipSpace() {
  while (pos < text.size()) {
    char c = text[pos];
    if (IsSpace(c)) {
      ++pos;
      continue;
    }
    if (c == '/' && pos + 1 < text.size()) {
      char next = text[pos + 1];
      if (next == '/') {
        pos += 2;
        while (pos < text.size() && text[pos] != '\n' && text[pos] != '\r') ++pos;
        continue;
      }
      if (next == '*') {
        size_t end = text.find("*/", pos + 2);
        if (end == std::string_view::npos) {
          return absl::InvalidArgumentError("unterminated block comment");
        }
        pos = end + 2;
        continue;
      }
    }
    break;
  }
  return absl::OkStatus();
}

bool TextCursor::Consume(char c) {
  if (!SkipSpace().ok()) return false;
  if (pos < text.size() && text[pos] == c) {
    ++pos;
    return true;
  }
  return false;
}

bool TextCursor::ConsumeWord(std::string_view word) {
  if (!SkipSpace().ok()) return false;
  if (word.empty() || text.substr(pos, word.size()) != word) return false;
  size_t end = pos + word.size();
  // A word ending in an identifier character must not run into another one
  // ("S" does not match the start of "SC").
  if (IsWordChar(word.back()) && end < text.size() && IsWordChar(text[end])) return false;
  pos = end;
  return true;
}

absl::Status TextCursor::Expect(char c) {
  absl::Status status = SkipSpace();
  if (!status.ok()) return status;
  if (pos < text.size() && text[pos] == c) {
    ++pos;
    return absl::OkStatus();
  }
  return ErrorExpected(std::string("'") + c + "'");
}

absl::Status TextCursor::ErrorExpected(std::string_view what) const {
  size_t p = pos;
  while (p < text.size() && IsSpace(text[p])) ++p;
  std::string found;
  if (p >= text.size()) {
    found = "end of input";
  } else if (IsTokenChar(text[p])) {
    size_t end = p;
    while (end < text.size() && end - p < 40 && IsTokenChar(text[end])) ++end;
    found = absl::StrCat("'", Absl(text.substr(p, end - p)), "'");
  } else {
    found = absl::StrCat("'", Absl(text.substr(p, 1)), "'");
  }
  return absl::InvalidArgumentError(absl::StrCat("expected ", Absl(what), ", found ", found));
}

absl::Status TextCursor::Error(std::string_view message) const {
  return absl::InvalidArgumentError(Absl(message));
}

LineColumn GetLineColumn(std::string_view text, size_t offset) {
  if (offset > text.size()) offset = text.size();
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    } else if (c == '\r') {
      // In CRLF the LF ends the line.
      if (i + 1 < text.size() && text[i + 1] == '\n') continue;
      ++line;
      line_start = i + 1;
    }
  }
  return LineColumn{line, static_cast<int>(offset - line_start) + 1};
}

absl::Status LocateError(absl::Status status, std::string_view file, std::string_view text,
                         size_t offset) {
  if (offset > text.size()) offset = text.size();
  LineColumn lc = GetLineColumn(text, offset);
  absl::string_view message = status.message();
  return absl::Status(status.code(),
                      FormatSourceMessage(file, lc.line, lc.column, text, offset,
                                          std::string_view(message.data(), message.size())));
}

std::string FormatSourceMessage(std::string_view file, int line, int column,
                                std::string_view text, size_t offset, std::string_view message,
                                std::string_view severity) {
  std::string prefix = file.empty() ? std::string() : absl::StrCat(Absl(file), ":");
  if (line <= 0) {
    return absl::StrCat(prefix, file.empty() ? "" : " ", Absl(severity), ": ", Absl(message));
  }
  std::string out =
      absl::StrCat(prefix, line, ":", column, ": ", Absl(severity), ": ", Absl(message));
  if (offset > text.size()) return out;
  size_t line_start = offset;
  while (line_start > 0 && text[line_start - 1] != '\n' && text[line_start - 1] != '\r') {
    --line_start;
  }
  size_t line_end = offset;
  while (line_end < text.size() && text[line_end] != '\n' && text[line_end] != '\r') ++line_end;
  std::string caret;
  for (size_t i = line_start; i < offset; ++i) caret.push_back(text[i] == '\t' ? '\t' : ' ');
  caret.push_back('^');
  absl::StrAppend(&out, "\n", Absl(text.substr(line_start, line_end - line_start)), "\n", caret);
  return out;
}

}  // namespace hlovm
