// Internal to frontend/parser*.cc: the HLO text parser.
//
// The Parser class holds the parser's state and its token level, inline
// here because every rule calls it: lexing (spaces, comments, names),
// located errors, numbers, strings, integer lists, shapes and literals. The
// grammar rules are its other members, one file per concern:
//   parser.cc                   the module, its header attributes,
//                               computations, instructions and operands
//   parser_attributes.cc        the attributes of an instruction (their
//                               names: attribute_table.h), which opcodes
//                               take them, their fields
//   parser_attribute_values.cc  structured attribute values (window,
//                               dim_labels, padding, slice, replica_groups,
//                               result_accuracy, sharding, aliasing)
//   parser_rules.cc             per-opcode rules applied once an
//                               instruction has been read (the rows of
//                               op_spec.h), and the result shape where the
//                               text leaves it out (the verifier's rules)
#ifndef HLOVM_FRONTEND_PARSER_INTERNAL_H_
#define HLOVM_FRONTEND_PARSER_INTERNAL_H_

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/element_type.h"
#include "core/hlo_ir.h"
#include "core/hlo_opcode.h"
#include "core/literal.h"
#include "core/shape.h"
#include "core/status_macros.h"
#include "core/text_cursor.h"
#include "frontend/attribute_table.h"
#include "frontend/op_spec.h"
#include "frontend/parser.h"

namespace hlovm {
namespace parser_internal {

//===----------------------------------------------------------------------===//
// String helpers (Debian's Abseil has its own string_view type).
//===----------------------------------------------------------------------===//

inline absl::string_view AbslView(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}
inline absl::AlphaNum ToAlphaNum(std::string_view s) { return absl::AlphaNum(AbslView(s)); }
inline absl::AlphaNum ToAlphaNum(const std::string& s) { return absl::AlphaNum(s); }
inline absl::AlphaNum ToAlphaNum(const char* s) { return absl::AlphaNum(s); }
template <typename T>
const T& ToAlphaNum(const T& value) {
  return value;
}
template <typename... Args>
std::string Cat(const Args&... args) {
  return absl::StrCat(ToAlphaNum(args)...);
}
inline std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Hashes std::string_view keys with Abseil's hash.
struct ViewHash {
  size_t operator()(std::string_view s) const {
    return absl::Hash<absl::string_view>()(AbslView(s));
  }
};
template <typename V>
using ViewMap = absl::flat_hash_map<std::string_view, V, ViewHash>;
using ViewSet = absl::flat_hash_set<std::string_view, ViewHash>;

// The name in `names` nearest to `word` (see NearestOpcodeName in parser.h).
std::optional<std::string_view> NearestName(std::string_view word,
                                            const std::vector<std::string_view>& names);

//===----------------------------------------------------------------------===//
// Character classes.
//===----------------------------------------------------------------------===//

constexpr std::array<bool, 256> MakeNameCharTable() {
  std::array<bool, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = true;
  for (int c = '0'; c <= '9'; ++c) t[c] = true;
  t['_'] = t['.'] = t['-'] = t['$'] = true;
  return t;
}
inline constexpr std::array<bool, 256> kNameChar = MakeNameCharTable();

inline bool IsNameChar(char c) { return kNameChar[static_cast<unsigned char>(c)]; }
inline bool IsSpace(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

//===----------------------------------------------------------------------===//
// Attribute names.
//===----------------------------------------------------------------------===//

// The attributes of HLOVM_ATTRIBUTE_LIST (frontend/attribute_table.h).
using Attr = AttrId;
static_assert(static_cast<int>(Attr::kCount) <= 128, "AttrSet holds 128 bits");

// A set of Attr values (a bitset; no allocation).
class AttrSet {
 public:
  void insert(Attr a) {
    bits_[static_cast<size_t>(a) / 64] |= uint64_t{1} << (static_cast<size_t>(a) % 64);
  }
  bool contains(Attr a) const {
    return (bits_[static_cast<size_t>(a) / 64] >> (static_cast<size_t>(a) % 64)) & 1;
  }

 private:
  uint64_t bits_[2] = {0, 0};
};

// Shape text for messages: without layout, as XLA's HumanString.
inline std::string Human(const Shape& shape) { return shape.ToString(false); }
// With layout, filling in the default one as XLA's parser does.
inline std::string HumanWithLayout(const Shape& shape) {
  if (shape.IsArray() && !shape.has_layout()) {
    Shape copy = shape;
    copy.set_layout(Layout::RowMajor(copy.rank()));
    return copy.ToString(true);
  }
  return shape.ToString(true);
}

//===----------------------------------------------------------------------===//
// The parser.
//===----------------------------------------------------------------------===//

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options)
      : s_(text),
        n_(text.size()),
        options_(options),
        has_cr_(std::memchr(text.data(), '\r', text.size()) != nullptr) {}

  absl::StatusOr<std::unique_ptr<HloModule>> Run();

 private:
  // Per-computation name scope.
  struct Scope {
    HloComputation* computation = nullptr;
    ViewMap<HloInstruction*> names;
    // Compact GTE instructions made so far: (tuple, index) -> gte.
    absl::flat_hash_map<std::pair<HloInstruction*, int64_t>, HloInstruction*> gtes;
    HloInstruction* root = nullptr;
    // Lone-instruction mode: undefined operands become parameters.
    bool create_missing = false;
    int64_t next_parameter = 0;
  };

  // The computations each called-computation attribute named, put in the
  // order of the opcode's row (frontend/op_spec.h) once all attributes have
  // been read.
  struct Called {
    absl::InlinedVector<std::pair<Attr, std::vector<HloComputation*>>, 2> slots;

    void Set(Attr attr, std::vector<HloComputation*> computations) {
      for (auto& [a, list] : slots) {
        if (a == attr) {
          list = std::move(computations);
          return;
        }
      }
      slots.emplace_back(attr, std::move(computations));
    }
    const std::vector<HloComputation*>* Find(Attr attr) const {
      for (const auto& [a, list] : slots) {
        if (a == attr) return &list;
      }
      return nullptr;
    }
    // The first computation `attr` named, or null.
    HloComputation* First(Attr attr) const {
      const std::vector<HloComputation*>* list = Find(attr);
      return list == nullptr || list->empty() ? nullptr : list->front();
    }
  };

  class DepthGuard {
   public:
    explicit DepthGuard(Parser* p) : p_(p) { ++p_->depth_; }
    ~DepthGuard() { --p_->depth_; }
    bool exceeded() const { return p_->depth_ > p_->options_.max_recursion_depth; }

   private:
    Parser* p_;
  };

  //===--- Lexing -----------------------------------------------------===//

  void Skip() {
    while (pos_ < n_) {
      char c = s_[pos_];
      if (IsSpace(c)) {
        ++pos_;
        continue;
      }
      if (c == '/' && pos_ + 1 < n_) {
        char d = s_[pos_ + 1];
        if (d == '/') {
          pos_ += 2;
          while (pos_ < n_ && s_[pos_] != '\n' && s_[pos_] != '\r') ++pos_;
          continue;
        }
        if (d == '*') {
          size_t end = s_.find("*/", pos_ + 2);
          if (end == std::string_view::npos) {
            if (!bad_comment_) bad_comment_ = pos_;
            pos_ = n_;
            return;
          }
          pos_ = end + 2;
          continue;
        }
      }
      break;
    }
  }
  char Peek() {
    Skip();
    return pos_ < n_ ? s_[pos_] : '\0';
  }
  char PeekAt(size_t p) const { return p < n_ ? s_[p] : '\0'; }
  bool AtEnd() {
    Skip();
    return pos_ >= n_;
  }
  bool Eat(char c) {
    if (Peek() == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  absl::Status Expect(char c, std::string_view message) {
    if (Eat(c)) return absl::OkStatus();
    return ErrorHere(message);
  }
  // Consumes `word` if it is the next token (not followed by a name char).
  bool EatWord(std::string_view word) {
    Skip();
    if (s_.substr(pos_, word.size()) != word) return false;
    if (IsNameChar(PeekAt(pos_ + word.size()))) return false;
    pos_ += word.size();
    return true;
  }
  bool PeekWord(std::string_view word) {
    size_t save = pos_;
    bool yes = EatWord(word);
    pos_ = save;
    return yes;
  }
  // A name: optional '%', then name characters. Returns it without the '%',
  // or empty (consuming nothing) when there is none.
  std::string_view LexName() {
    Skip();
    size_t p = pos_;
    if (PeekAt(p) == '%') ++p;
    size_t start = p;
    while (p < n_ && IsNameChar(s_[p])) ++p;
    if (p == start) return {};
    pos_ = p;
    return s_.substr(start, p - start);
  }
  // An identifier (letters, digits, '_', '-', '.'), without '%'.
  std::string_view LexIdent() {
    Skip();
    size_t p = pos_;
    while (p < n_ && IsNameChar(s_[p])) ++p;
    std::string_view id = s_.substr(pos_, p - pos_);
    pos_ = p;
    return id;
  }

  //===--- Errors -----------------------------------------------------===//

  std::string FormatAt(size_t offset, std::string_view message,
                       std::string_view severity = "error") const {
    if (offset > n_) offset = n_;
    LineColumn lc = GetLineColumn(s_, offset);
    return FormatSourceMessage(options_.file_name, lc.line + options_.first_line - 1, lc.column,
                               s_, offset, message, severity);
  }
  absl::Status Error(size_t offset, std::string_view message) {
    if (bad_comment_) {
      size_t at = *bad_comment_;
      bad_comment_.reset();
      return absl::InvalidArgumentError(FormatAt(at, "unterminated /* comment"));
    }
    return absl::InvalidArgumentError(FormatAt(offset, message));
  }
  absl::Status ErrorHere(std::string_view message) {
    Skip();
    return Error(pos_, message);
  }
  // Error with a second, located note.
  absl::Status ErrorWithNote(size_t offset, std::string_view message, size_t note_offset,
                             std::string_view note) {
    return absl::InvalidArgumentError(
        Cat(FormatAt(offset, message), "\n", FormatAt(note_offset, note, "note")));
  }
  // Errors from core/ parsers (unlocated) at the cursor position they left.
  absl::Status Relocate(const absl::Status& status, size_t offset) {
    absl::string_view m = status.message();
    return Error(offset, std::string_view(m.data(), m.size()));
  }

  SourceLocation Locate(size_t offset) {
    if (offset < loc_offset_) {
      loc_offset_ = 0;
      loc_line_ = 1;
      loc_line_start_ = 0;
    }
    if (!has_cr_) {
      const char* base = s_.data();
      const char* p = base + loc_offset_;
      const char* end = base + offset;
      while (p < end) {
        const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
        if (nl == nullptr) break;
        p = static_cast<const char*>(nl) + 1;
        ++loc_line_;
        loc_line_start_ = static_cast<size_t>(p - base);
      }
    } else {
      for (size_t i = loc_offset_; i < offset; ++i) {
        char c = s_[i];
        if (c == '\n' || (c == '\r' && PeekAt(i + 1) != '\n')) {
          ++loc_line_;
          loc_line_start_ = i + 1;
        }
      }
    }
    loc_offset_ = offset;
    return SourceLocation{offset, loc_line_ + options_.first_line - 1,
                          static_cast<int>(offset - loc_line_start_) + 1};
  }

  //===--- Scalars ----------------------------------------------------===//

  absl::Status ParseInt64(int64_t* out, std::string_view message = "expects integer") {
    Skip();
    size_t p = pos_;
    bool negative = false;
    if (PeekAt(p) == '-') {
      negative = true;
      ++p;
    } else if (PeekAt(p) == '+') {
      ++p;
    }
    if (!IsDigit(PeekAt(p))) return Error(pos_, message);
    uint64_t value = 0;
    while (p < n_ && IsDigit(s_[p])) {
      uint64_t digit = static_cast<uint64_t>(s_[p] - '0');
      if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
        return Error(pos_, "integer out of range");
      }
      value = value * 10 + digit;
      ++p;
    }
    if (IsLetter(PeekAt(p)) || PeekAt(p) == '.') return Error(pos_, message);
    uint64_t limit = negative ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1;
    if (value > limit) return Error(pos_, "integer out of range");
    *out = negative ? static_cast<int64_t>(0 - value) : static_cast<int64_t>(value);
    pos_ = p;
    return absl::OkStatus();
  }
  absl::Status ParseDouble(double* out) {
    Skip();
    size_t p = pos_;
    bool negative = false;
    if (PeekAt(p) == '-' || PeekAt(p) == '+') {
      negative = PeekAt(p) == '-';
      ++p;
    }
    if (s_.substr(p, 3) == "inf" && !IsNameChar(PeekAt(p + 3))) {
      *out = negative ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity();
      pos_ = p + 3;
      return absl::OkStatus();
    }
    if (s_.substr(p, 3) == "nan" && !IsNameChar(PeekAt(p + 3))) {
      *out = std::numeric_limits<double>::quiet_NaN();
      pos_ = p + 3;
      return absl::OkStatus();
    }
    size_t start = p;
    while (p < n_ && (IsDigit(s_[p]) || s_[p] == '.' || s_[p] == 'e' || s_[p] == 'E' ||
                      ((s_[p] == '-' || s_[p] == '+') && (s_[p - 1] == 'e' || s_[p - 1] == 'E')))) {
      ++p;
    }
    if (p == start) return Error(pos_, "expects decimal or integer");
    double value = 0;
    auto [ptr, ec] = std::from_chars(s_.data() + start, s_.data() + p, value);
    if (ec != std::errc() || ptr != s_.data() + p) {
      if (ec == std::errc::result_out_of_range) {
        return Error(pos_, "Constant is out of range for double and so is unparsable.");
      }
      return Error(pos_, "expects decimal or integer");
    }
    *out = negative ? -value : value;
    pos_ = p;
    return absl::OkStatus();
  }
  absl::Status ParseBool(bool* out) {
    if (EatWord("true")) {
      *out = true;
      return absl::OkStatus();
    }
    if (EatWord("false")) {
      *out = false;
      return absl::OkStatus();
    }
    return ErrorHere("expects true or false");
  }
  // A double-quoted string with C escapes.
  absl::Status ParseString(std::string* out) {
    if (Peek() != '"') return ErrorHere("expects string");
    size_t start = pos_ + 1;
    size_t p = start;
    bool escaped = false;
    while (p < n_ && s_[p] != '"') {
      if (s_[p] == '\\') {
        escaped = true;
        ++p;
      }
      ++p;
    }
    if (p >= n_) return Error(pos_, "unterminated string");
    std::string_view body = s_.substr(start, p - start);
    if (escaped) {
      std::string error;
      if (!absl::CUnescape(AbslView(body), out, &error))
        return Error(pos_, Cat("bad string: ", error));
    } else {
      out->assign(body);
    }
    pos_ = p + 1;
    return absl::OkStatus();
  }
  absl::Status ParseInt64List(std::vector<int64_t>* out, char open = '{', char close = '}') {
    out->clear();
    if (!Eat(open)) return ErrorHere(Cat("expects '", std::string(1, open), "'"));
    if (Eat(close)) return absl::OkStatus();
    do {
      int64_t v = 0;
      HLOVM_RETURN_IF_ERROR(ParseInt64(&v));
      out->push_back(v);
    } while (Eat(','));
    if (!Eat(close)) return ErrorHere(Cat("expects '", std::string(1, close), "'"));
    return absl::OkStatus();
  }
  absl::Status ParseInt64ListList(std::vector<std::vector<int64_t>>* out) {
    out->clear();
    HLOVM_RETURN_IF_ERROR(Expect('{', "expects '{'"));
    if (Eat('}')) return absl::OkStatus();
    do {
      std::vector<int64_t> inner;
      HLOVM_RETURN_IF_ERROR(ParseInt64List(&inner));
      out->push_back(std::move(inner));
    } while (Eat(','));
    return Expect('}', "expects '}'");
  }
  absl::Status ParseShapeIndex(ShapeIndex* out) {
    out->clear();
    HLOVM_RETURN_IF_ERROR(Expect('{', "Expects '{' at the start of ShapeIndex"));
    while (Peek() != '}') {
      int64_t v = 0;
      HLOVM_RETURN_IF_ERROR(ParseInt64(&v));
      out->push_back(v);
      if (!Eat(',')) break;
    }
    return Expect('}', "Expects '}' at the end of ShapeIndex");
  }

  // Skips one attribute value of any form: a bare token run, a string, or
  // bracketed text (brackets balanced, strings and comments respected).
  absl::Status SkipValue() {
    Skip();
    size_t start = pos_;
    int depth = 0;
    while (pos_ < n_) {
      char c = s_[pos_];
      if (c == '"') {
        size_t p = pos_ + 1;
        while (p < n_ && s_[p] != '"') p += (s_[p] == '\\') ? 2 : 1;
        if (p >= n_) return Error(pos_, "unterminated string");
        pos_ = p + 1;
        continue;
      }
      if (c == '{' || c == '(' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ')' || c == ']') {
        if (depth == 0) break;
        --depth;
      } else if (depth == 0 && (c == ',' || IsSpace(c))) {
        break;
      } else if (c == '/' && (PeekAt(pos_ + 1) == '*' || PeekAt(pos_ + 1) == '/')) {
        if (depth == 0) break;
        Skip();
        continue;
      }
      ++pos_;
    }
    if (depth != 0) return Error(start, "unbalanced brackets in attribute value");
    if (pos_ == start) return Error(start, "expects attribute value");
    return absl::OkStatus();
  }

  //===--- Shapes and literals ----------------------------------------===//

  // Whether a shape starts here: '(' or an element type name before '['.
  bool CanBeShape() {
    char c = Peek();
    if (c == '(') return true;
    if (c == 'b' && PeekAt(pos_ + 1) == '(') return true;  // buffer shape b(...)
    if (!IsLetter(c)) return false;
    size_t p = pos_;
    while (p < n_ && (IsLetter(s_[p]) || IsDigit(s_[p]))) ++p;
    if (PeekAt(p) != '[') return false;
    return ElementTypeFromName(s_.substr(pos_, p - pos_)).has_value();
  }
  // Tuple nesting of the shape or literal at the cursor, to refuse input
  // deeper than the recursion limit before handing it to core/ parsers.
  int ParenDepthAhead() const {
    int depth = 0, max_depth = 0;
    for (size_t p = pos_; p < n_; ++p) {
      char c = s_[p];
      if (c == '(') {
        max_depth = std::max(max_depth, ++depth);
      } else if (c == ')') {
        if (--depth <= 0) break;
      } else if (c == '"' || c == '\n') {
        break;
      }
    }
    return max_depth;
  }
  absl::Status ParseShapeHere(Shape* shape) {
    Skip();
    if (PeekAt(pos_) == 'b' && PeekAt(pos_ + 1) == '(') {
      // A buffer shape `b(f32[2])` is read as the shape it wraps.
      pos_ += 2;
      HLOVM_RETURN_IF_ERROR(ParseShapeHere(shape));
      return Expect(')', "expects ')' to end buffer shape");
    }
    if (PeekAt(pos_) == '(' && depth_ + ParenDepthAhead() > options_.max_recursion_depth) {
      return Error(pos_, "maximum recursion depth exceeded");
    }
    TextCursor cursor{s_, pos_};
    absl::Status status = ParseShape(cursor, shape);
    if (!status.ok()) return Relocate(status, cursor.pos);
    pos_ = cursor.pos;
    if (shape->IsArray() && shape->has_layout() &&
        shape->layout().physical_shape != nullptr) {
      return Error(pos_, Cat("Layout has physical shape, but is not for a sparse array: ",
                                      shape->layout().ToString()));
    }
    return absl::OkStatus();
  }
  // End of the shape text starting at `start` (one token run: `f32[2]{0}`
  // or a parenthesized tuple), or 0 when it cannot tell for sure.
  size_t ScanShapeEnd(size_t start) const {
    size_t p = start;
    if (PeekAt(p) == '(') {
      int depth = 0;
      do {
        if (p >= n_) return 0;
        char c = s_[p++];
        if (c == '(' || c == '[' || c == '{') {
          ++depth;
        } else if (c == ')' || c == ']' || c == '}') {
          --depth;
        } else if (c == '/' || c == '"') {
          return 0;
        }
      } while (depth > 0);
    } else {
      while (p < n_ && (IsLetter(s_[p]) || IsDigit(s_[p]))) ++p;
      if (PeekAt(p) != '[') return 0;
      while (p < n_ && s_[p] != ']') {
        if (s_[p] == '\n' || s_[p] == '/') return 0;
        ++p;
      }
      if (p >= n_) return 0;
      ++p;
      if (PeekAt(p) == '{') {
        int depth = 0;
        do {
          if (p >= n_) return 0;
          char c = s_[p++];
          if (c == '(' || c == '[' || c == '{') {
            ++depth;
          } else if (c == ')' || c == ']' || c == '}') {
            --depth;
          } else if (c == '/' || c == '"' || c == '\n') {
            return 0;
          }
        } while (depth > 0);
      }
    }
    // A layout after a space would belong to the shape too; not cached.
    size_t q = p;
    while (q < n_ && (s_[q] == ' ' || s_[q] == '\t')) ++q;
    if (q != p && PeekAt(q) == '{') return 0;
    return p;
  }
  // Parses a shape at the cursor, sharing the result with every identical
  // shape text in the module. The pointer lives as long as the parser.
  absl::Status ParseShapeRef(const Shape** out) {
    Skip();
    size_t start = pos_;
    size_t end = ScanShapeEnd(start);
    std::string_view key;
    if (end > start) {
      key = s_.substr(start, end - start);
      auto it = shape_cache_.find(key);
      if (it != shape_cache_.end()) {
        pos_ = end;
        *out = it->second.get();
        return absl::OkStatus();
      }
    }
    auto shape = std::make_unique<Shape>();
    HLOVM_RETURN_IF_ERROR(ParseShapeHere(shape.get()));
    *out = shape.get();
    if (end > start && pos_ == end) {
      shape_cache_.emplace(key, std::move(shape));
    } else {
      uncached_shapes_.push_back(std::move(shape));
    }
    return absl::OkStatus();
  }
  absl::Status ParseLiteralHere(const Shape& shape, Literal* literal) {
    Skip();
    if (depth_ + ParenDepthAhead() > options_.max_recursion_depth) {
      return Error(pos_, "maximum recursion depth exceeded");
    }
    TextCursor cursor{s_, pos_};
    absl::Status status = ParseLiteralValue(cursor, shape, literal);
    if (!status.ok()) return Relocate(status, cursor.pos);
    pos_ = cursor.pos;
    return absl::OkStatus();
  }
  // `(lit, lit)` or `shape value`, as in custom-call's literal=.
  absl::Status ParseTypedLiteral(Literal* literal) {
    DepthGuard guard(this);
    if (guard.exceeded()) return ErrorHere("maximum recursion depth exceeded");
    if (Eat('(')) {
      std::vector<Literal> elements;
      while (Peek() != ')') {
        Literal element;
        HLOVM_RETURN_IF_ERROR(ParseTypedLiteral(&element));
        elements.push_back(std::move(element));
        if (Peek() != ')')
          HLOVM_RETURN_IF_ERROR(Expect(',', "expects ',' to separate tuple elements"));
      }
      ++pos_;
      *literal = Literal::Tuple(std::move(elements));
      return absl::OkStatus();
    }
    Shape shape;
    HLOVM_RETURN_IF_ERROR(ParseShapeHere(&shape));
    return ParseLiteralHere(shape, literal);
  }

  //===--- Structure --------------------------------------------------===//

  absl::Status ParseModule(HloModule** module_out);
  absl::Status ParseHeaderAttributes(HloModule* module);
  absl::Status ParseComputation(bool* saw_entry, HloComputation** entry);
  absl::Status ParseInstructionList(HloComputation* computation, Scope* scope);
  absl::Status ParseInstruction(Scope* scope);
  absl::Status RecordAndRecover(const absl::Status& status, size_t start);
  // Whether a computation's header starts at the cursor (`ENTRY`, or a name
  // followed by its parameter list or body), where an instruction was due.
  bool AtComputationHeader();
  absl::Status ParseInstructionRhs(Scope* scope, std::string_view name, size_t name_offset,
                                   bool allow_attributes, HloInstruction** out);
  absl::Status ParseOperands(Scope* scope, std::vector<HloInstruction*>* operands);
  absl::Status ParseOperand(Scope* scope, HloInstruction** out);
  absl::Status ParseAttributes(Scope* scope, HloInstruction* instr, HloInstruction* async,
                               HloOpcode rule_opcode, Called* called,
                               AttrSet* seen);
  absl::Status ParseAttribute(Scope* scope, Attr attr, std::string_view name, size_t name_offset,
                              HloInstruction* instr, HloInstruction* async, Called* called);
  // Reads the value of an attribute whose row in frontend/attribute_table.h
  // has a plain kind into *storage() (or skips it, for kText).
  template <AttrKind kind, typename Storage>
  absl::Status ReadPlain(Storage storage);
  absl::Status ParseComputationRef(std::string_view attr_name, HloComputation** out);
  absl::Status ParseComputationList(std::string_view attr_name, std::vector<HloComputation*>* out);
  absl::Status ParseSingleInstruction(HloModule* module);
  absl::Status FinishInstruction(Scope* scope, HloInstruction* instr, Called* called,
                                 const AttrSet& seen, size_t op_offset, size_t rhs_offset,
                                 size_t operands_offset, bool shape_given);
  absl::Status BuildAsyncWrapped(Scope* scope, HloInstruction* start, HloOpcode wrapped,
                                 size_t offset, HloInstruction** root);

  absl::Status ParseWindow(Window* window);
  absl::Status ParseDimLabels(ConvolutionDimensionNumbers* dnums);
  absl::Status ParsePaddingConfig(PaddingConfig* padding);
  absl::Status ParseSliceRanges(SliceAttr* slice);
  absl::Status ParseReplicaGroups(ReplicaGroups* groups);
  absl::Status ParseResultAccuracy();
  absl::Status ValidateSharding(size_t start, size_t end);
  absl::Status ParseAliasing(HloModule* module);
  absl::Status ParseStackFrameIndex(HloModule* module);
  absl::Status ParseBufferDonor(HloModule* module);
  absl::Status ParseInstructionAliasing(std::vector<OutputOperandAlias>* out);

  HloComputation* NewComputation(std::string name) {
    auto c = std::make_unique<HloComputation>(std::move(name));
    return module_->AddComputation(std::move(c));
  }
  // A name not yet used by any instruction of the module.
  // The caller registers the name (RegisterName) once it is stored. The set
  // of used names is only built once a name has to be made up.
  std::string UniqueName(std::string_view base) {
    if (!track_names_) {
      track_names_ = true;
      for (const auto& c : module_->computations()) {
        for (const auto& i : c->instructions()) used_names_.insert(i->name());
      }
    }
    std::string name(base);
    if (used_names_.contains(name)) {
      int64_t& next = name_counters_[std::string(base)];
      do {
        name = Cat(base, ".", ++next);
      } while (used_names_.contains(name));
    }
    return name;
  }
  void RegisterName(const HloInstruction* instr) {
    if (track_names_) used_names_.insert(instr->name());
  }
  std::string UniqueComputationName(std::string_view base) {
    std::string name(base);
    int64_t& n = computation_counters_[name];
    while (computation_pool_.contains(name) || generated_computations_.contains(name)) {
      name = Cat(base, ".", ++n);
    }
    generated_computations_.insert(name);
    return name;
  }
  HloInstruction* AddToScope(Scope* scope, std::unique_ptr<HloInstruction> instr) {
    return scope->computation->AddInstruction(std::move(instr));
  }

  std::string_view s_;
  size_t n_;
  size_t pos_ = 0;
  const ParseOptions& options_;
  const bool has_cr_;
  int depth_ = 0;
  std::optional<size_t> bad_comment_;
  size_t loc_offset_ = 0;
  int loc_line_ = 1;
  size_t loc_line_start_ = 0;

  HloModule* module_ = nullptr;
  ViewMap<std::unique_ptr<Shape>> shape_cache_;
  std::vector<std::unique_ptr<Shape>> uncached_shapes_;
  ViewMap<std::pair<HloComputation*, size_t>> computation_pool_;
  absl::flat_hash_set<std::string> generated_computations_;
  absl::flat_hash_map<std::string, int64_t> computation_counters_;
  std::vector<std::string> errors_;
  ViewSet poisoned_;
  // Computations with an instruction that failed to parse: their root and
  // signature are unknown, so nothing is checked against them and
  // instructions calling them are skipped silently, as users of a failed
  // instruction are.
  absl::flat_hash_set<const HloComputation*> failed_computations_;
  bool track_names_ = false;
  ViewSet used_names_;
  absl::flat_hash_map<std::string, int64_t> name_counters_;
};

}  // namespace parser_internal
}  // namespace hlovm

#endif  // HLOVM_FRONTEND_PARSER_INTERNAL_H_
