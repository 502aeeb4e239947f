#include "core/shape.h"

#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"

namespace hlovm {
namespace {

// Deepest nesting of tuples (and physical shapes inside layouts) the parser
// accepts; keeps hostile input from exhausting the stack.
constexpr int kMaxShapeNesting = 512;

absl::string_view Absl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLower(char c) { return (c >= 'a' && c <= 'z') || IsDigit(c); }

// Parses a decimal integer (an optional '-' only when `allow_negative`).
absl::Status ParseInt(TextCursor& cursor, std::string_view what, bool allow_negative,
                      int64_t* value) {
  HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
  size_t start = cursor.pos;
  bool negative = false;
  if (allow_negative && cursor.Peek() == '-' && IsDigit(cursor.Peek(1))) {
    negative = true;
    ++cursor.pos;
  }
  if (!IsDigit(cursor.Peek())) {
    cursor.pos = start;
    return cursor.ErrorExpected(what);
  }
  uint64_t magnitude = 0;
  const uint64_t limit =
      negative ? uint64_t{1} << 63 : static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  while (IsDigit(cursor.Peek())) {
    uint64_t digit = static_cast<uint64_t>(cursor.Peek() - '0');
    if (magnitude > (limit - digit) / 10) {
      cursor.pos = start;
      return cursor.Error(absl::StrCat(Absl(what), " is out of range"));
    }
    magnitude = magnitude * 10 + digit;
    ++cursor.pos;
  }
  if (IsLower(cursor.Peek()) || cursor.Peek() == '_' || cursor.Peek() == '.') {
    return cursor.ErrorExpected(absl::StrCat("end of ", Absl(what)));
  }
  *value = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return absl::OkStatus();
}

absl::Status ExpectChar(TextCursor& cursor, char c) { return cursor.Expect(c); }

// Reads a lowercase word such as "f32" or "s4" without consuming it.
std::string_view PeekLowerWord(const TextCursor& cursor) {
  size_t end = cursor.pos;
  while (end < cursor.text.size() && IsLower(cursor.text[end])) ++end;
  return cursor.text.substr(cursor.pos, end - cursor.pos);
}

absl::Status ParseIntegerType(TextCursor& cursor, std::optional<ElementType>* type) {
  HLOVM_RETURN_IF_ERROR(ExpectChar(cursor, '('));
  HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
  std::string_view word = PeekLowerWord(cursor);
  std::optional<ElementType> parsed = ElementTypeFromName(word);
  if (word.empty() || !parsed.has_value() || !IsInteger(*parsed)) {
    return cursor.ErrorExpected("an integer type");
  }
  cursor.pos += word.size();
  *type = parsed;
  return ExpectChar(cursor, ')');
}

absl::Status ParseShapeImpl(TextCursor& cursor, Shape* shape, int depth);

absl::Status ParseLayoutImpl(TextCursor& cursor, Layout* layout, int depth) {
  *layout = Layout();
  HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
  if (cursor.Peek() != '{') return cursor.ErrorExpected("'{' to start a layout");
  ++cursor.pos;
  HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
  if (cursor.Peek() != ':' && cursor.Peek() != '}') {
    do {
      int64_t dim = 0;
      HLOVM_RETURN_IF_ERROR(ParseInt(cursor, "a dimension number", false, &dim));
      layout->minor_to_major.push_back(dim);
    } while (cursor.Consume(','));
  }
  if (cursor.Consume(':')) {
    // The attributes come in the order XLA prints them.
    if (cursor.ConsumeWord("D")) {
      HLOVM_RETURN_IF_ERROR(ExpectChar(cursor, '('));
      HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
      if (cursor.Peek() != ')') {
        do {
          HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
          char c = cursor.Peek();
          bool next_is_word = (cursor.Peek(1) >= 'A' && cursor.Peek(1) <= 'Z') ||
                              (cursor.Peek(1) >= 'a' && cursor.Peek(1) <= 'z') ||
                              IsDigit(cursor.Peek(1)) || cursor.Peek(1) == '_';
          if ((c != 'D' && c != 'C' && c != 'S' && c != 'H') || next_is_word) {
            return cursor.ErrorExpected("a DimLevelType abbreviation (D, C, S or H)");
          }
          std::string item(1, c);
          ++cursor.pos;
          if (cursor.Consume('+')) item.push_back('+');
          if (cursor.Consume('~')) item.push_back('~');
          layout->dim_level_types.push_back(std::move(item));
        } while (cursor.Consume(','));
      }
      HLOVM_RETURN_IF_ERROR(ExpectChar(cursor, ')'));
    }
    if (cursor.ConsumeWord("T")) {
      HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
      if (cursor.Peek() != '(') return cursor.ErrorExpected("'(' to start a tile");
      while (cursor.Consume('(')) {
        Tile tile;
        do {
          if (cursor.Consume('*')) {
            tile.dimensions.push_back(Tile::kCombineDimension);
          } else {
            int64_t size = 0;
            HLOVM_RETURN_IF_ERROR(ParseInt(cursor, "a tile dimension", false, &size));
            tile.dimensions.push_back(size);
          }
        } while (cursor.Consume(','));
        HLOVM_RETURN_IF_ERROR(ExpectChar(cursor, ')'));
        layout->tiles.push_back(std::move(tile));
      }
    }
    if (cursor.ConsumeWord("L")) {
      HLOVM_RETURN_IF_ERROR(ExpectChar(cursor, '('));
      HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
      size_t at = cursor.pos;
      int64_t value = 0;
      HLOVM_RETURN_IF_ERROR(ParseInt(cursor, "a tail padding alignment", false, &value));
      if (value < 1) {
        cursor.pos = at;
        return cursor.Error("tail padding alignment must be at least 1");
      }
      layout->tail_padding_alignment_in_elements = value;
      HLOVM_RETURN_IF_ERROR(ExpectChar(cursor, ')'));
    }
    if (cursor.Consume('#')) {
      HLOVM_RETURN_IF_ERROR(ParseIntegerType(cursor, &layout->index_primitive_type));
    }
    if (cursor.Consume('*')) {
      HLOVM_RETURN_IF_ERROR(ParseIntegerType(cursor, &layout->pointer_primitive_type));
    }
    if (cursor.ConsumeWord("E")) {
      HLOVM_RETURN_IF_ERROR(ExpectChar(cursor, '('));
      HLOVM_RETURN_IF_ERROR(
          ParseInt(cursor, "an element size in bits", false, &layout->element_size_in_bits));
      HLOVM_RETURN_IF_ERROR(ExpectChar(cursor, ')'));
    }
    if (cursor.ConsumeWord("S")) {
      HLOVM_RETURN_IF_ERROR(ExpectChar(cursor, '('));
      HLOVM_RETURN_IF_ERROR(ParseInt(cursor, "a memory space", true, &layout->memory_space));
      HLOVM_RETURN_IF_ERROR(ExpectChar(cursor, ')'));
    }
    if (cursor.ConsumeWord("SC")) {
      HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
      if (cursor.Peek() != '(') return cursor.ErrorExpected("'(' to start a split config");
      while (cursor.Consume('(')) {
        SplitConfig config;
        HLOVM_RETURN_IF_ERROR(ParseInt(cursor, "a split dimension", false, &config.dimension));
        HLOVM_RETURN_IF_ERROR(ExpectChar(cursor, ':'));
        do {
          int64_t index = 0;
          HLOVM_RETURN_IF_ERROR(ParseInt(cursor, "a split index", false, &index));
          config.split_indices.push_back(index);
        } while (cursor.Consume(','));
        HLOVM_RETURN_IF_ERROR(ExpectChar(cursor, ')'));
        layout->split_configs.push_back(std::move(config));
      }
    }
    if (cursor.ConsumeWord("P")) {
      HLOVM_RETURN_IF_ERROR(ExpectChar(cursor, '('));
      auto physical = std::make_shared<Shape>();
      HLOVM_RETURN_IF_ERROR(ParseShapeImpl(cursor, physical.get(), depth + 1));
      HLOVM_RETURN_IF_ERROR(ExpectChar(cursor, ')'));
      layout->physical_shape = std::move(physical);
    }
    if (cursor.ConsumeWord("M")) {
      HLOVM_RETURN_IF_ERROR(ExpectChar(cursor, '('));
      HLOVM_RETURN_IF_ERROR(ParseInt(cursor, "a dynamic shape metadata prefix size", false,
                                     &layout->dynamic_shape_metadata_prefix_bytes));
      HLOVM_RETURN_IF_ERROR(ExpectChar(cursor, ')'));
    }
  }
  HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
  if (cursor.Peek() != '}') return cursor.ErrorExpected("'}' to end the layout");
  ++cursor.pos;
  return absl::OkStatus();
}

// True if the cursor (after space) is at a '{' that starts a layout: one
// followed by a number, ':' or '}'. A '{' followed by anything else (such as
// a computation body after `-> f32[]`) is left alone.
bool AtLayoutStart(const TextCursor& cursor) {
  TextCursor probe = cursor;
  if (!probe.SkipSpace().ok() || probe.Peek() != '{') return false;
  ++probe.pos;
  if (!probe.SkipSpace().ok()) return false;
  char c = probe.Peek();
  return IsDigit(c) || c == ':' || c == '}';
}

absl::Status ParseShapeImpl(TextCursor& cursor, Shape* shape, int depth) {
  HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
  if (depth > kMaxShapeNesting) return cursor.Error("shape is nested too deeply");
  if (cursor.Peek() == '(') {
    ++cursor.pos;
    std::vector<Shape> elements;
    if (!cursor.Consume(')')) {
      while (true) {
        Shape element;
        HLOVM_RETURN_IF_ERROR(ParseShapeImpl(cursor, &element, depth + 1));
        elements.push_back(std::move(element));
        if (cursor.Consume(',')) continue;
        if (cursor.Consume(')')) break;
        HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
        return cursor.ErrorExpected("',' or ')' in a tuple shape");
      }
    }
    *shape = Shape::Tuple(std::move(elements));
    return absl::OkStatus();
  }
  std::string_view word = PeekLowerWord(cursor);
  std::optional<ElementType> type = ElementTypeFromName(word);
  if (word.empty() || !type.has_value() || *type == ElementType::kTuple) {
    if (word == "b" && cursor.Peek(1) == '(') {
      return absl::UnimplementedError("buffer shapes `b(...)` are not supported");
    }
    return cursor.ErrorExpected("a shape");
  }
  cursor.pos += word.size();
  std::vector<int64_t> dimensions;
  std::vector<bool> dynamic;
  HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
  if (cursor.Peek() != '[') return cursor.ErrorExpected("'[' after the element type");
  ++cursor.pos;
  HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
  if (cursor.Peek() != ']') {
    if (!IsArrayType(*type)) return cursor.ErrorExpected("']'");
    do {
      HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
      if (cursor.Consume('?')) {
        dimensions.push_back(kUnboundedSize);
        dynamic.push_back(true);
        continue;
      }
      bool bounded = cursor.ConsumeWord("<=");
      int64_t size = 0;
      HLOVM_RETURN_IF_ERROR(ParseInt(cursor, "a dimension size", false, &size));
      dimensions.push_back(size);
      dynamic.push_back(bounded);
    } while (cursor.Consume(','));
    HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
    if (cursor.Peek() != ']') return cursor.ErrorExpected("',' or ']' in the dimensions");
  }
  ++cursor.pos;
  if (!IsArrayType(*type)) {
    *shape = *type == ElementType::kToken ? Shape::Token() : Shape(*type, {});
    return absl::OkStatus();
  }
  Shape result(*type, std::move(dimensions));
  for (size_t i = 0; i < dynamic.size(); ++i) {
    if (dynamic[i]) result.set_dynamic_dimension(static_cast<int64_t>(i), true);
  }
  result.clear_layout();
  if (AtLayoutStart(cursor)) {
    HLOVM_RETURN_IF_ERROR(cursor.SkipSpace());
    size_t layout_start = cursor.pos;
    Layout layout;
    HLOVM_RETURN_IF_ERROR(ParseLayoutImpl(cursor, &layout, depth));
    int64_t rank = result.rank();
    if (static_cast<int64_t>(layout.minor_to_major.size()) != rank) {
      cursor.pos = layout_start;
      return cursor.Error(absl::StrCat("Dimensions size is ", rank, ", but minor to major size is ",
                                       layout.minor_to_major.size(), "."));
    }
    std::vector<bool> seen(rank, false);
    for (int64_t dim : layout.minor_to_major) {
      if (dim < 0 || dim >= rank || seen[dim]) {
        cursor.pos = layout_start;
        return cursor.Error(absl::StrCat("layout minor_to_major {",
                                         absl::StrJoin(layout.minor_to_major, ","),
                                         "} is not a permutation of the dimensions"));
      }
      seen[dim] = true;
    }
    result.set_layout(std::move(layout));
  }
  *shape = std::move(result);
  return absl::OkStatus();
}

void AppendTile(std::string* out, const Tile& tile) {
  out->push_back('(');
  for (size_t i = 0; i < tile.dimensions.size(); ++i) {
    if (i > 0) out->push_back(',');
    int64_t dim = tile.dimensions[i];
    if (dim == Tile::kCombineDimension) {
      out->push_back('*');
    } else {
      absl::StrAppend(out, dim);
    }
  }
  out->push_back(')');
}

void AppendShape(std::string* out, const Shape& shape, bool with_layout) {
  if (shape.IsTuple()) {
    out->push_back('(');
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      if (i > 0) out->append(", ");
      // XLA marks every fifth element of a tuple with its index.
      if (i > 0 && i % 5 == 0) absl::StrAppend(out, "/*index=", i, "*/");
      AppendShape(out, shape.tuple_shape(i), with_layout);
    }
    out->push_back(')');
    return;
  }
  out->append(ElementTypeName(shape.element_type()));
  out->push_back('[');
  if (shape.IsArray()) {
    for (int64_t i = 0; i < shape.rank(); ++i) {
      if (i > 0) out->push_back(',');
      if (shape.is_unbounded_dynamic_dimension(i)) {
        out->push_back('?');
      } else {
        if (shape.is_dynamic_dimension(i)) out->append("<=");
        absl::StrAppend(out, shape.dimensions(i));
      }
    }
  }
  out->push_back(']');
  if (with_layout && shape.IsArray() && shape.has_layout()) {
    std::string layout = shape.layout().ToString();
    // Scalars omit a layout with nothing in it.
    if (shape.rank() > 0 || layout != "{}") out->append(layout);
  }
}

}  // namespace

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

Layout Layout::RowMajor(int64_t rank) {
  Layout layout;
  layout.minor_to_major.reserve(rank > 0 ? rank : 0);
  for (int64_t i = rank - 1; i >= 0; --i) layout.minor_to_major.push_back(i);
  return layout;
}

bool Layout::IsRowMajor() const {
  int64_t rank = static_cast<int64_t>(minor_to_major.size());
  for (int64_t i = 0; i < rank; ++i) {
    if (minor_to_major[i] != rank - 1 - i) return false;
  }
  return true;
}

bool Layout::operator==(const Layout& other) const {
  if (minor_to_major != other.minor_to_major || dim_level_types != other.dim_level_types ||
      tiles != other.tiles ||
      tail_padding_alignment_in_elements != other.tail_padding_alignment_in_elements ||
      index_primitive_type != other.index_primitive_type ||
      pointer_primitive_type != other.pointer_primitive_type ||
      element_size_in_bits != other.element_size_in_bits || memory_space != other.memory_space ||
      split_configs != other.split_configs ||
      dynamic_shape_metadata_prefix_bytes != other.dynamic_shape_metadata_prefix_bytes) {
    return false;
  }
  if ((physical_shape == nullptr) != (other.physical_shape == nullptr)) return false;
  return physical_shape == nullptr || *physical_shape == *other.physical_shape;
}

std::string Layout::ToString() const {
  std::string out = "{";
  out.append(absl::StrJoin(minor_to_major, ","));
  bool colon = false;
  auto attribute = [&](std::string_view name) {
    if (!colon) {
      out.push_back(':');
      colon = true;
    }
    out.append(name);
  };
  if (!dim_level_types.empty()) {
    attribute("D(");
    out.append(absl::StrJoin(dim_level_types, ","));
    out.push_back(')');
  }
  if (!tiles.empty()) {
    attribute("T");
    for (const Tile& tile : tiles) AppendTile(&out, tile);
  }
  if (tail_padding_alignment_in_elements != 1) {
    attribute("L(");
    absl::StrAppend(&out, tail_padding_alignment_in_elements, ")");
  }
  if (index_primitive_type.has_value()) {
    attribute("#(");
    absl::StrAppend(&out,
                    Absl(IsInteger(*index_primitive_type) ? ElementTypeName(*index_primitive_type)
                                                          : std::string_view("invalid")),
                    ")");
  }
  if (pointer_primitive_type.has_value()) {
    attribute("*(");
    absl::StrAppend(
        &out,
        Absl(IsInteger(*pointer_primitive_type) ? ElementTypeName(*pointer_primitive_type)
                                                : std::string_view("invalid")),
        ")");
  }
  if (element_size_in_bits != 0) {
    attribute("E(");
    absl::StrAppend(&out, element_size_in_bits, ")");
  }
  if (memory_space != 0) {
    attribute("S(");
    absl::StrAppend(&out, memory_space, ")");
  }
  if (!split_configs.empty()) {
    attribute("SC");
    for (const SplitConfig& config : split_configs) {
      absl::StrAppend(&out, "(", config.dimension, ":", absl::StrJoin(config.split_indices, ","),
                      ")");
    }
  }
  if (physical_shape != nullptr) {
    attribute("P(");
    AppendShape(&out, *physical_shape, /*with_layout=*/true);
    out.push_back(')');
  }
  if (dynamic_shape_metadata_prefix_bytes > 0) {
    attribute("M(");
    absl::StrAppend(&out, dynamic_shape_metadata_prefix_bytes, ")");
  }
  out.push_back('}');
  return out;
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

Shape::Shape(ElementType type, std::vector<int64_t> dimensions)
    : element_type_(type), dimensions_(dimensions.begin(), dimensions.end()) {
  if (!IsArrayType(type)) {
    dimensions_.clear();
    return;
  }
  dynamic_.assign(dimensions_.size(), false);
  layout_ = Layout::RowMajor(static_cast<int64_t>(dimensions_.size()));
}

Shape Shape::Tuple(std::vector<Shape> elements) {
  Shape shape;
  shape.tuple_shapes_ = std::move(elements);
  return shape;
}

Shape Shape::Token() {
  Shape shape;
  shape.element_type_ = ElementType::kToken;
  return shape;
}

bool Shape::IsArray() const { return IsArrayType(element_type_); }

bool Shape::is_static() const {
  if (IsTuple()) {
    for (const Shape& element : tuple_shapes_) {
      if (!element.is_static()) return false;
    }
    return true;
  }
  for (bool d : dynamic_) {
    if (d) return false;
  }
  return true;
}

int64_t Shape::element_count() const {
  if (!IsArray()) return 0;
  int64_t count = 1;
  for (int64_t d : dimensions_) {
    if (d < 0) return -1;  // unbounded: no element count
    if (__builtin_mul_overflow(count, d, &count)) return -1;
  }
  return count;
}

int64_t Shape::byte_size() const {
  int64_t count = element_count();
  int64_t bytes = 0;
  if (count <= 0 || __builtin_mul_overflow(count, ByteWidth(element_type_), &bytes)) return 0;
  return bytes;
}

namespace {

constexpr int kMaxValidateDepth = 2 * kMaxShapeNesting + 2;

absl::Status ValidateShapeImpl(const Shape& shape, int depth) {
  if (depth > kMaxValidateDepth) {
    return absl::InvalidArgumentError("shape is nested too deeply");
  }
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      HLOVM_RETURN_IF_ERROR(ValidateShapeImpl(element, depth + 1));
    }
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return absl::OkStatus();  // token, opaque
  bool has_zero = false;
  bool overflow = false;
  int64_t product = 1;  // of the dimensions other than 0 and `?`
  for (int64_t i = 0; i < shape.rank(); ++i) {
    const int64_t d = shape.dimensions(i);
    if (d == kUnboundedSize && shape.is_dynamic_dimension(i)) continue;
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat("shape ", shape.ToString(false),
                                                     ": dimension ", i, " is negative (", d,
                                                     ")"));
    }
    if (d == 0) {
      has_zero = true;
    } else if (!overflow && __builtin_mul_overflow(product, d, &product)) {
      overflow = true;
    }
  }
  const int64_t width = ByteWidth(shape.element_type());
  int64_t bytes = 0;
  const bool bytes_overflow = overflow || __builtin_mul_overflow(product, width, &bytes);
  if (has_zero && bytes_overflow) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape ", shape.ToString(false), " has no elements, but its non-zero dimensions times its ",
        width, "-byte element width exceed 2^63 - 1, so the strides of its dimensions would "
        "overflow int64"));
  }
  if (overflow) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape ", shape.ToString(false), " has more than 2^63 - 1 elements"));
  }
  if (bytes_overflow) {
    return absl::InvalidArgumentError(absl::StrCat("shape ", shape.ToString(false),
                                                   " needs more than 2^63 - 1 bytes (", width,
                                                   " per element)"));
  }
  if (shape.has_layout() && shape.layout().physical_shape != nullptr) {
    HLOVM_RETURN_IF_ERROR(ValidateShapeImpl(*shape.layout().physical_shape, depth + 1));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateShape(const Shape& shape) { return ValidateShapeImpl(shape, 0); }

absl::Status CheckNoUnboundedDimension(const Shape& shape) {
  for (const Shape& element : shape.tuple_shapes()) {
    HLOVM_RETURN_IF_ERROR(CheckNoUnboundedDimension(element));
  }
  if (!shape.IsArray()) return absl::OkStatus();
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (shape.is_unbounded_dynamic_dimension(i)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape ", shape.ToString(false), " has an unbounded dynamic dimension `?` (dimension ",
          i, "); hlovm runs only static and bounded (<=N) dimensions"));
    }
  }
  return absl::OkStatus();
}

std::vector<int64_t> Shape::minor_to_major() const {
  if (layout_.has_value()) {
    return std::vector<int64_t>(layout_->minor_to_major.begin(), layout_->minor_to_major.end());
  }
  const Layout row_major = Layout::RowMajor(rank());
  return std::vector<int64_t>(row_major.minor_to_major.begin(), row_major.minor_to_major.end());
}

bool Shape::operator==(const Shape& other) const {
  if (element_type_ != other.element_type_ || dimensions_ != other.dimensions_ ||
      dynamic_ != other.dynamic_ || tuple_shapes_ != other.tuple_shapes_) {
    return false;
  }
  return layout_ == other.layout_;
}

bool Shape::Compatible(const Shape& other) const {
  if (element_type_ != other.element_type_) return false;
  if (IsTuple()) {
    if (tuple_shapes_.size() != other.tuple_shapes_.size()) return false;
    for (size_t i = 0; i < tuple_shapes_.size(); ++i) {
      if (!tuple_shapes_[i].Compatible(other.tuple_shapes_[i])) return false;
    }
    return true;
  }
  return dimensions_ == other.dimensions_;
}

std::string Shape::ToString(bool with_layout) const {
  std::string out;
  AppendShape(&out, *this, with_layout);
  return out;
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

absl::Status ParseShape(TextCursor& cursor, Shape* shape) {
  return ParseShapeImpl(cursor, shape, 0);
}

absl::StatusOr<Shape> ParseShape(std::string_view text) {
  TextCursor cursor{text, 0};
  Shape shape;
  absl::Status status = ParseShape(cursor, &shape);
  if (status.ok()) {
    status = cursor.SkipSpace();
    if (status.ok() && !cursor.AtEnd()) status = cursor.ErrorExpected("end of shape");
  }
  if (!status.ok()) {
    return absl::Status(status.code(),
                        absl::StrCat("column ", cursor.pos + 1, ": ", status.message()));
  }
  return shape;
}

absl::Status ParseLayout(TextCursor& cursor, Layout* layout) {
  return ParseLayoutImpl(cursor, layout, 0);
}

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

namespace {

// Calls fn(dim) for each dimension from minor to major; falls back to
// row-major order when `minor_to_major` does not fit `rank`.
template <typename Fn>
void ForEachMinorToMajor(const Shape& shape, Fn fn) {
  int64_t rank = shape.rank();
  if (shape.has_layout() && static_cast<int64_t>(shape.layout().minor_to_major.size()) == rank) {
    for (int64_t dim : shape.layout().minor_to_major) {
      if (dim >= 0 && dim < rank) fn(dim);
    }
    return;
  }
  for (int64_t dim = rank - 1; dim >= 0; --dim) fn(dim);
}

}  // namespace

std::vector<int64_t> StridesForLayout(absl::Span<const int64_t> dimensions,
                                      absl::Span<const int64_t> minor_to_major) {
  int64_t rank = static_cast<int64_t>(dimensions.size());
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  if (static_cast<int64_t>(minor_to_major.size()) == rank) {
    for (int64_t dim : minor_to_major) {
      if (dim < 0 || dim >= rank) continue;
      strides[dim] = stride;
      stride *= dimensions[dim];
    }
  } else {
    for (int64_t dim = rank - 1; dim >= 0; --dim) {
      strides[dim] = stride;
      stride *= dimensions[dim];
    }
  }
  return strides;
}

int64_t LinearIndex(const Shape& shape, absl::Span<const int64_t> index) {
  int64_t linear = 0;
  int64_t scale = 1;
  ForEachMinorToMajor(shape, [&](int64_t dim) {
    if (dim < static_cast<int64_t>(index.size())) linear += index[dim] * scale;
    scale *= shape.dimensions(dim);
  });
  return linear;
}

std::vector<int64_t> MultiIndex(const Shape& shape, int64_t linear) {
  std::vector<int64_t> index(shape.rank(), 0);
  ForEachMinorToMajor(shape, [&](int64_t dim) {
    int64_t size = shape.dimensions(dim);
    if (size <= 0) return;
    index[dim] = linear % size;
    linear /= size;
  });
  return index;
}

}  // namespace hlovm
