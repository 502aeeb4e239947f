#include "ops/custom/ffi_attributes.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hlovm {
namespace {

class AttributeParser {
 public:
  explicit AttributeParser(std::string_view text) : s_(text) {}

  absl::Status Parse(std::map<std::string, FfiAttribute>* out) {
    SkipSpace();
    if (AtEnd()) return absl::OkStatus();
    if (!Consume('{')) return Error("expected '{'");
    SkipSpace();
    if (Consume('}')) return Trailing();
    while (true) {
      std::string name;
      if (auto s = ParseName(&name); !s.ok()) return s;
      SkipSpace();
      if (!Consume('=') && !Consume(':')) return Error("expected '=' after the attribute name");
      SkipSpace();
      FfiAttribute value;
      if (auto s = ParseValue(&value); !s.ok()) return s;
      if (!out->emplace(name, std::move(value)).second) {
        return Error(absl::StrCat("attribute '", name, "' is given twice"));
      }
      SkipSpace();
      if (Consume('}')) return Trailing();
      if (!Consume(',')) return Error("expected ',' or '}'");
      SkipSpace();
    }
  }

 private:
  bool AtEnd() const { return pos_ >= s_.size(); }
  char Peek() const { return AtEnd() ? '\0' : s_[pos_]; }
  bool Consume(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  void SkipSpace() {
    while (!AtEnd() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  absl::Status Error(std::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrFormat("backend_config: %s at offset %d of \"%s\"", std::string(what), pos_, std::string(s_)));
  }
  absl::Status Trailing() {
    SkipSpace();
    return AtEnd() ? absl::OkStatus() : Error("unexpected text after '}'");
  }
  static bool IsNameChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$';
  }
  absl::Status ParseString(std::string* out) {
    if (!Consume('"')) return Error("expected '\"'");
    while (!AtEnd() && Peek() != '"') {
      char c = s_[pos_++];
      if (c == '\\' && !AtEnd()) c = s_[pos_++];
      out->push_back(c);
    }
    if (!Consume('"')) return Error("unterminated string");
    return absl::OkStatus();
  }
  absl::Status ParseName(std::string* out) {
    if (Peek() == '"') return ParseString(out);
    while (!AtEnd() && IsNameChar(Peek())) out->push_back(s_[pos_++]);
    if (out->empty()) return Error("expected an attribute name");
    return absl::OkStatus();
  }
  absl::Status ParseValue(FfiAttribute* v) {
    if (Peek() == '"') {
      v->kind = FfiAttribute::Kind::kString;
      return ParseString(&v->text);
    }
    std::string word;
    while (!AtEnd() && (IsNameChar(Peek()) || Peek() == '-' || Peek() == '+')) {
      word.push_back(s_[pos_++]);
    }
    if (word == "true" || word == "false") {
      v->kind = FfiAttribute::Kind::kBool;
      v->integer = word == "true";
      return SkipType(v);
    }
    if (word.empty()) return Error("expected a value");
    const bool is_float = word.find_first_of(".eE") != std::string::npos &&
                          word.rfind("0x", 0) == std::string::npos;
    char* end = nullptr;
    if (is_float) {
      v->kind = FfiAttribute::Kind::kFloat;
      v->number = std::strtod(word.c_str(), &end);
    } else {
      v->kind = FfiAttribute::Kind::kInteger;
      errno = 0;
      v->integer = std::strtoll(word.c_str(), &end, 0);
      if (errno == ERANGE) return Error(absl::StrCat("integer out of range: ", word));
    }
    if (end == nullptr || *end != '\0') return Error(absl::StrCat("malformed value '", word, "'"));
    return SkipType(v);
  }
  // `: ui8` after a value (MLIR's typed attribute).
  absl::Status SkipType(FfiAttribute* v) {
    SkipSpace();
    if (!Consume(':')) return absl::OkStatus();
    SkipSpace();
    std::string type;
    while (!AtEnd() && IsNameChar(Peek())) type.push_back(s_[pos_++]);
    if (type.empty()) return Error("expected a type after ':'");
    if (v->kind == FfiAttribute::Kind::kInteger) v->text = type;
    return absl::OkStatus();
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<FfiAttributes> FfiAttributes::Parse(std::string_view backend_config) {
  FfiAttributes attrs;
  AttributeParser parser(backend_config);
  if (absl::Status s = parser.Parse(&attrs.values_); !s.ok()) return s;
  return attrs;
}

absl::StatusOr<int64_t> FfiAttributes::Integer(std::string_view name) const {
  auto it = values_.find(std::string(name));
  if (it == values_.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("missing attribute '", std::string(name), "' in backend_config"));
  }
  const FfiAttribute& a = it->second;
  if (a.kind != FfiAttribute::Kind::kInteger && a.kind != FfiAttribute::Kind::kBool) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute '", std::string(name), "' in backend_config must be an integer"));
  }
  return a.integer;
}

absl::StatusOr<char> FfiAttributes::Char(std::string_view name, std::string_view allowed) const {
  absl::StatusOr<int64_t> v = Integer(name);
  if (!v.ok()) return v.status();
  const bool ok = *v > 0 && *v < 128 && allowed.find(static_cast<char>(*v)) != std::string_view::npos;
  if (!ok) {
    std::string options;
    for (char c : allowed) {
      absl::StrAppend(&options, options.empty() ? "" : ", ", static_cast<int>(c), " ('",
                      std::string(1, c), "')");
    }
    return absl::InvalidArgumentError(absl::StrCat("attribute ", std::string(name), " = ", *v,
                                                   " is not one of ", options));
  }
  return static_cast<char>(*v);
}

}  // namespace hlovm
