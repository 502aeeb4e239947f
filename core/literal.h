// Literals: owned values of any shape, and XLA's literal text syntax.
//
// An array literal holds its elements in the physical order of its shape's
// layout (row-major when the layout is {n-1,...,0}), ByteWidth() bytes each
// (sub-byte types one per byte, in the low bits), 64-byte aligned. A tuple
// literal holds one literal per element. Not thread-safe for mutation.
//
// An array literal made by View borrows the caller's memory instead (any
// alignment the element type allows); moving it keeps it a view, and Clone
// copies it into storage of its own.
#ifndef HLOVM_CORE_LITERAL_H_
#define HLOVM_CORE_LITERAL_H_

#include <complex>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/aligned_buffer.h"
#include "core/element_type.h"
#include "core/shape.h"
#include "core/text_cursor.h"

namespace hlovm {

// The element type that stores the C++ type T in a literal (bool: pred,
// int8_t..uint64_t: s8..u64, float: f32, double: f64, std::complex: c64/c128).
template <typename T>
constexpr ElementType NativeToElementType();

class Literal {
 public:
  Literal() = default;  // the empty tuple
  // A zero-filled literal of `shape`. An array shape without a layout gets
  // the row-major one. Fails when the storage cannot be allocated.
  static absl::StatusOr<Literal> Create(const Shape& shape);
  // As Create, with storage the caller overwrites entirely (arrays only).
  static absl::StatusOr<Literal> CreateUninitialized(const Shape& shape);
  static Literal Tuple(std::vector<Literal> elements);
  // An array literal of `shape` (row-major when it has no layout) whose
  // elements are the bytes at `data`, in the layout's physical order,
  // ByteWidth() bytes each: no copy is made and nothing is freed. The caller
  // keeps the memory valid while the literal lives; writes through the
  // literal change it. Fails for tuples and malformed shapes, and for
  // `data` null with elements.
  static absl::StatusOr<Literal> View(const Shape& shape, void* data);
  // False for a View (its tuple elements are asked one by one).
  bool owns_data() const { return buffer_.owned(); }
  // Scalars and row-major arrays of native C++ values (see
  // NativeToElementType).
  template <typename T>
  static Literal CreateR0(T value);
  template <typename T>
  static Literal CreateR1(absl::Span<const T> values);
  template <typename T>
  static Literal CreateR2(std::initializer_list<std::initializer_list<T>> rows);

  Literal(Literal&&) = default;
  Literal& operator=(Literal&&) = default;
  Literal Clone() const;

  const Shape& shape() const { return shape_; }

  // Arrays: the raw element bytes in physical (layout) order.
  uint8_t* untyped_data() { return buffer_.data(); }
  const uint8_t* untyped_data() const { return buffer_.data(); }
  int64_t size_bytes() const { return buffer_.size(); }
  template <typename T>
  absl::Span<T> data() {
    return {reinterpret_cast<T*>(buffer_.data()), static_cast<size_t>(shape_.element_count())};
  }
  template <typename T>
  absl::Span<const T> data() const {
    return {reinterpret_cast<const T*>(buffer_.data()),
            static_cast<size_t>(shape_.element_count())};
  }

  // Arrays: the position in data<T>() of the element at the logical
  // multi-index `index` (under the shape's layout).
  int64_t PhysicalIndex(absl::Span<const int64_t> index) const;
  template <typename T>
  T Get(absl::Span<const int64_t> index) const {
    return data<T>()[PhysicalIndex(index)];
  }
  template <typename T>
  void Set(absl::Span<const int64_t> index, T value) {
    data<T>()[PhysicalIndex(index)] = value;
  }
  // Element `physical_index` of a real (non-complex) array as a double:
  // pred as 0/1, integers exactly when they fit, floats exactly.
  double GetAsDouble(int64_t physical_index) const;
  // Stores `value` rounded to the element type as the text parser does
  // (round-to-nearest-even for floats; integers must be integral and in
  // range). Fails for values the type cannot hold.
  absl::Status SetFromDouble(int64_t physical_index, double value);
  // One element printed as XLA prints it ("1.5", "true", "(1, 2)", "nan").
  std::string GetAsString(int64_t physical_index) const;
  // The same values with the array laid out per `layout`.
  absl::StatusOr<Literal> Relayout(const Layout& layout) const;

  // Tuples.
  std::vector<Literal>& tuple_elements() { return elements_; }
  const std::vector<Literal>& tuple_elements() const { return elements_; }

  // True for a constant written `{...}`: its values were not given and must
  // be filled by whoever loads the module.
  bool elided() const { return elided_; }
  void set_elided(bool elided) { elided_ = elided; }

  // Same shape (layouts included) and identical bytes, recursively.
  bool BitwiseEqual(const Literal& other) const;

  // Prints the value only, as XLA prints it inside `constant(...)` (its
  // PrintWithoutShapeOneline): "{ { 1, 2 }, { 3, 4 } }", "1.5", "(1, 2)",
  // "{ 1, 0 }" for pred arrays, "( 1, 2 )" for tuples, "{...}" when elided.
  std::string ValueToString() const;
  // Prints shape and value as XLA's Literal::ToString (no layout, one
  // innermost row per line): "f32[2] {1, 2}", "f32[2,2] {\n  { 1, 2 },\n  { 3, 4 }\n}".
  std::string ToString() const;
  // As ToString, with layouts: "f32[2]{0} {1, 2}".
  std::string ToStringWithLayout() const;

 private:
  static absl::StatusOr<Literal> Make(const Shape& shape, AlignedBuffer::Init init);
  // Checks an array shape for storage and gives `literal` that shape (with
  // the row-major layout when it has none); returns its size in bytes.
  static absl::StatusOr<int64_t> PrepareArray(const Shape& shape, Literal& literal);

  Shape shape_;
  AlignedBuffer buffer_;
  std::vector<Literal> elements_;
  bool elided_ = false;
};

// What literal text may leave unwritten. HLO text follows XLA's parser: a
// bare value given for an array (`f32[3] constant(1)`) sets its first
// element and leaves the others zero, and `{...}` stands for values that are
// filled in later. With `every_element` both are errors, so that nothing is
// padded silently: every element must be written (for inputs of a run).
struct LiteralSyntax {
  bool every_element = false;
};
// Parses a literal value for `shape` at the cursor: the text XLA prints inside
// `constant(...)` (nested braces, scalars, true/false, nan/-nan/nan(0x..),
// inf/-inf, complex (re, im), tuples in parentheses, and the elided `{...}`).
absl::Status ParseLiteralValue(TextCursor& cursor, const Shape& shape, Literal* literal,
                               LiteralSyntax syntax = {});
// Parses "shape value" (e.g. "f32[2] {1, 2}", "s32[] 5", "(f32[], pred[]) (1, true)")
// as one whole text; errors name the column. Also accepts the tuple form that
// ToString prints, each element with its own shape: "(f32[] 1, pred[] true)".
absl::StatusOr<Literal> ParseLiteral(std::string_view text, LiteralSyntax syntax = {});
// As ParseLiteral, at the cursor, leaving it after the literal (or at the bad
// byte). An array shape followed by braces, "f32[2] {1, 2}", takes the braces
// as the value unless they can only be a layout ("f32[2]{0} {1, 2}").
absl::Status ParseShapedLiteral(TextCursor& cursor, Literal* literal, LiteralSyntax syntax = {});

// As Literal::ToString, but summarized as NumPy prints large arrays: in an
// array of more than `threshold` elements, every dimension longer than
// 2 * `edge_items` shows only its first and last `edge_items` entries, with
// "..." between ("f32[2000] {0, 1, 2, ..., 1997, 1998, 1999}").
std::string SummaryString(const Literal& literal, int64_t threshold = 1000,
                          int64_t edge_items = 3);
// Whether SummaryString leaves out any element of `literal`.
bool IsSummarized(const Literal& literal, int64_t threshold = 1000, int64_t edge_items = 3);

// One element of type `type` stored at `element` (ByteWidth(type) bytes),
// printed as XLA prints it; `pred_as_digit` prints pred as 0/1 (as XLA does
// inside arrays).
std::string ElementToString(ElementType type, const uint8_t* element, bool pred_as_digit = false);

//===----------------------------------------------------------------------===//
// Implementation details of the templates above.
//===----------------------------------------------------------------------===//

template <typename T>
constexpr ElementType NativeToElementType() {
  if constexpr (std::is_same_v<T, bool>) return ElementType::kPred;
  if constexpr (std::is_same_v<T, int8_t>) return ElementType::kS8;
  if constexpr (std::is_same_v<T, int16_t>) return ElementType::kS16;
  if constexpr (std::is_same_v<T, int32_t>) return ElementType::kS32;
  if constexpr (std::is_same_v<T, int64_t>) return ElementType::kS64;
  if constexpr (std::is_same_v<T, uint8_t>) return ElementType::kU8;
  if constexpr (std::is_same_v<T, uint16_t>) return ElementType::kU16;
  if constexpr (std::is_same_v<T, uint32_t>) return ElementType::kU32;
  if constexpr (std::is_same_v<T, uint64_t>) return ElementType::kU64;
  if constexpr (std::is_same_v<T, float>) return ElementType::kF32;
  if constexpr (std::is_same_v<T, double>) return ElementType::kF64;
  if constexpr (std::is_same_v<T, std::complex<float>>) return ElementType::kC64;
  if constexpr (std::is_same_v<T, std::complex<double>>) return ElementType::kC128;
  return ElementType::kOpaque;
}

template <typename T>
Literal Literal::CreateR0(T value) {
  static_assert(NativeToElementType<T>() != ElementType::kOpaque, "unsupported type");
  Literal literal = std::move(Create(Shape(NativeToElementType<T>(), {}))).value();
  literal.data<T>()[0] = value;
  return literal;
}

template <typename T>
Literal Literal::CreateR1(absl::Span<const T> values) {
  static_assert(NativeToElementType<T>() != ElementType::kOpaque, "unsupported type");
  Literal literal =
      std::move(Create(Shape(NativeToElementType<T>(), {static_cast<int64_t>(values.size())})))
          .value();
  for (size_t i = 0; i < values.size(); ++i) literal.data<T>()[i] = values[i];
  return literal;
}

template <typename T>
Literal Literal::CreateR2(std::initializer_list<std::initializer_list<T>> rows) {
  static_assert(NativeToElementType<T>() != ElementType::kOpaque, "unsupported type");
  int64_t columns = rows.size() == 0 ? 0 : static_cast<int64_t>(rows.begin()->size());
  Literal literal = std::move(Create(Shape(NativeToElementType<T>(),
                                           {static_cast<int64_t>(rows.size()), columns})))
                        .value();
  int64_t i = 0;
  for (const auto& row : rows) {
    int64_t j = 0;
    for (const T& value : row) {
      if (j < columns) literal.data<T>()[i * columns + j] = value;
      ++j;
    }
    ++i;
  }
  return literal;
}

}  // namespace hlovm

#endif  // HLOVM_CORE_LITERAL_H_
