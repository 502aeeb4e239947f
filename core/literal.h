// Literals: owned values of any shape, and XLA's literal text syntax.
//
// An array literal holds its elements in the physical order of its shape's
// layout (row-major when the layout is {n-1,...,0}), ByteWidth() bytes each
// (sub-byte types one per byte, in the low bits), 64-byte aligned. A tuple
// literal holds one literal per element. Not thread-safe for mutation.
#ifndef HLOVM_CORE_LITERAL_H_
#define HLOVM_CORE_LITERAL_H_

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/shape.h"
#include "core/text_cursor.h"

namespace hlovm {

// 64-byte aligned, zero-initialised byte storage.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  // Returns ResourceExhausted instead of throwing when `size` cannot be had.
  static absl::StatusOr<AlignedBuffer> Allocate(int64_t size);
  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  int64_t size() const { return size_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const;
  };
  std::unique_ptr<uint8_t, Free> data_;
  int64_t size_ = 0;
};

class Literal {
 public:
  Literal() = default;  // the empty tuple
  // A zero-filled literal of `shape`. An array shape without a layout gets
  // the row-major one. Fails when the storage cannot be allocated.
  static absl::StatusOr<Literal> Create(const Shape& shape);
  static Literal Tuple(std::vector<Literal> elements);

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

  // Tuples.
  std::vector<Literal>& tuple_elements() { return elements_; }
  const std::vector<Literal>& tuple_elements() const { return elements_; }

  // True for a constant written `{...}`: its values were not given and must
  // be filled by whoever loads the module.
  bool elided() const { return elided_; }
  void set_elided(bool elided) { elided_ = elided; }

  // Same shape (layouts included) and identical bytes, recursively.
  bool BitwiseEqual(const Literal& other) const;

  // Prints the value only, as XLA prints it inside `constant(...)`:
  // "{ {1, 2}, {3, 4} }", "1.5", "(1, 2)".
  std::string ValueToString() const;
  // Prints shape and value as XLA's Literal::ToString: "f32[2]{0} {1, 2}".
  std::string ToString() const;

 private:
  Shape shape_;
  AlignedBuffer buffer_;
  std::vector<Literal> elements_;
  bool elided_ = false;
};

// Parses a literal value for `shape` at the cursor: the text XLA prints inside
// `constant(...)` (nested braces, scalars, true/false, nan/-nan/nan(0x..),
// inf/-inf, complex (re, im), tuples in parentheses, and the elided `{...}`).
absl::Status ParseLiteralValue(TextCursor& cursor, const Shape& shape, Literal* literal);
// Parses "shape value" (e.g. "f32[2] {1, 2}", "s32[] 5", "(f32[], pred[]) (1, true)")
// as one whole text; errors name the column.
absl::StatusOr<Literal> ParseLiteral(std::string_view text);

}  // namespace hlovm

#endif  // HLOVM_CORE_LITERAL_H_
