// Shapes and layouts of HLO values, printed and parsed exactly as XLA does
// (`f32[2,3]{1,0}`, `(s32[], f32[<=4]{0})`, `bf16[8,128]{1,0:T(8,128)(2,1)}`).
#ifndef HLOVM_CORE_SHAPE_H_
#define HLOVM_CORE_SHAPE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/element_type.h"
#include "core/text_cursor.h"

namespace hlovm {

// Size value of an unbounded dynamic dimension (printed `?`).
inline constexpr int64_t kUnboundedSize = INT64_MIN;

// A tile of a tiled layout: `T(8,128)`. A dimension of kCombineDimension is
// printed `*`.
struct Tile {
  static constexpr int64_t kCombineDimension = INT64_MIN;
  std::vector<int64_t> dimensions;
  bool operator==(const Tile&) const = default;
};

// Split configuration of a layout: `SC(dim:index,index...)`.
struct SplitConfig {
  int64_t dimension = 0;
  std::vector<int64_t> split_indices;
  bool operator==(const SplitConfig&) const = default;
};

class Shape;

// The physical arrangement of an array. Kernels need only minor_to_major;
// everything else is parsed, kept and printed back.
struct Layout {
  // Inline up to rank 6, as Shape's dimensions.
  absl::InlinedVector<int64_t, 6> minor_to_major;
  // Dim level types as printed inside `D(...)`, e.g. "X", "C", "S", "H+~".
  std::vector<std::string> dim_level_types;
  std::vector<Tile> tiles;
  int64_t tail_padding_alignment_in_elements = 1;     // L(n)
  std::optional<ElementType> index_primitive_type;    // #(s32)
  std::optional<ElementType> pointer_primitive_type;  // *(s32)
  int64_t element_size_in_bits = 0;                   // E(n)
  int64_t memory_space = 0;                           // S(n)
  std::vector<SplitConfig> split_configs;
  std::shared_ptr<Shape> physical_shape;            // P(shape)
  int64_t dynamic_shape_metadata_prefix_bytes = 0;  // M(n)

  // Row-major layout for `rank` dimensions: {rank-1, ..., 1, 0}.
  static Layout RowMajor(int64_t rank);
  // True if minor_to_major is {rank-1, ..., 0}; other attributes (tiles,
  // memory space, ...) are not looked at.
  bool IsRowMajor() const;
  bool operator==(const Layout& other) const;
  // Prints as XLA: "{1,0:T(8,128)E(4)}".
  std::string ToString() const;
};

// An HLO shape: an array (element type + dimensions + optional layout), a
// tuple of shapes, a token or an opaque value. Value type; cheap enough to
// copy for IR use (not in kernels).
class Shape {
 public:
  Shape() = default;  // the empty tuple
  // An array shape with the default row-major layout.
  Shape(ElementType type, std::vector<int64_t> dimensions);
  static Shape Tuple(std::vector<Shape> elements);
  static Shape Token();

  ElementType element_type() const { return element_type_; }
  bool IsArray() const;
  bool IsTuple() const { return element_type_ == ElementType::kTuple; }
  bool IsToken() const { return element_type_ == ElementType::kToken; }
  bool IsOpaque() const { return element_type_ == ElementType::kOpaque; }

  // Arrays.
  int64_t rank() const { return static_cast<int64_t>(dimensions_.size()); }
  absl::Span<const int64_t> dimensions() const { return dimensions_; }
  int64_t dimensions(int64_t i) const { return dimensions_[i]; }
  void set_dimension(int64_t i, int64_t size) { dimensions_[i] = size; }
  // True for `<=N` (bounded: dimensions(i) is the bound) and `?` dimensions.
  bool is_dynamic_dimension(int64_t i) const { return dynamic_[i]; }
  void set_dynamic_dimension(int64_t i, bool dynamic) { dynamic_[i] = dynamic; }
  bool is_unbounded_dynamic_dimension(int64_t i) const { return dimensions_[i] == kUnboundedSize; }
  bool is_static() const;  // no dynamic dimension anywhere (tuples: recursive)
  // Number of elements (product of dimensions; bounds for bounded dims).
  // -1 if a dimension is unbounded (`?`) or the product overflows int64; 0
  // for tuples, tokens and opaque values.
  int64_t element_count() const;
  // Bytes an array of this shape occupies in an hlovm buffer
  // (element_count * ByteWidth). For tuples: 0.
  int64_t byte_size() const;

  bool has_layout() const { return layout_.has_value(); }
  const Layout& layout() const { return *layout_; }
  Layout* mutable_layout() { return &*layout_; }
  void set_layout(Layout layout) { layout_ = std::move(layout); }
  void clear_layout() { layout_.reset(); }
  // minor_to_major of the layout, or the row-major order if there is none.
  std::vector<int64_t> minor_to_major() const;

  // Tuples.
  int64_t tuple_size() const { return static_cast<int64_t>(tuple_shapes_.size()); }
  const Shape& tuple_shape(int64_t i) const { return tuple_shapes_[i]; }
  Shape* mutable_tuple_shape(int64_t i) { return &tuple_shapes_[i]; }
  const std::vector<Shape>& tuple_shapes() const { return tuple_shapes_; }

  // Equality including layouts.
  bool operator==(const Shape& other) const;
  // Same element types and dimensions (recursively for tuples); layouts ignored.
  bool Compatible(const Shape& other) const;

  // Prints as XLA: "f32[2,3]{1,0}" (with_layout) or "f32[2,3]".
  std::string ToString(bool with_layout = true) const;

 private:
  ElementType element_type_ = ElementType::kTuple;
  // Inline up to rank 6: a shape copies without allocating its dimensions,
  // and reading them costs no second cache miss.
  absl::InlinedVector<int64_t, 6> dimensions_;
  absl::InlinedVector<bool, 8> dynamic_;
  std::vector<Shape> tuple_shapes_;
  std::optional<Layout> layout_;
};

// Checks that a shape can be held and indexed with int64 arithmetic, as
// XLA's ShapeUtil::ValidateShape and ValidateShapeSize do, and stricter:
//  - every dimension is at least 0, or `?` (kUnboundedSize, dynamic);
//  - the product of the array's dimensions other than 0 and `?`, times the
//    element's byte width, is at most INT64_MAX. This bounds the element
//    count and the byte size, and also every stride (a product of some of
//    the dimensions) under any layout, even for arrays with a zero
//    dimension: f32[0,4611686018427387904,4] holds no elements, but the
//    stride of its first dimension would be 2^64 elements, so it is
//    refused;
//  - elements of tuples, recursively, and the physical shape of a layout.
// Every shape made from outside (the parser through the verifier, literal
// text, .npy files, shapes the REPL infers) passes here once, so that the
// shape rules, plans and kernels after it can multiply dimensions without
// checking for overflow. Layouts are checked where they are parsed.
// InvalidArgument naming the shape and the rule it breaks.
absl::Status ValidateShape(const Shape& shape);

// OK unless an array in `shape` (or in one of its tuple elements) has an
// unbounded dynamic dimension `?`. hlovm allocates every value at its size
// or its bound (`<=N`), so no op it runs can take one; the verifier refuses
// them with this message in every instruction's shape.
absl::Status CheckNoUnboundedDimension(const Shape& shape);

// Parses a shape at the cursor (after skipping space and comments), including
// an optional layout. Arrays parsed without a layout get none.
absl::Status ParseShape(TextCursor& cursor, Shape* shape);
// Parses `text` as one whole shape; errors name the column.
absl::StatusOr<Shape> ParseShape(std::string_view text);
// Parses a layout `{...}` at the cursor. It does not know the rank: ParseShape
// checks that minor_to_major is a permutation of the shape's dimensions.
absl::Status ParseLayout(TextCursor& cursor, Layout* layout);

//===----------------------------------------------------------------------===//
// Index arithmetic (seed 004: minor_to_major and linear offsets).
//===----------------------------------------------------------------------===//

// Strides, in elements, of each logical dimension of an array with the given
// dimensions laid out per `minor_to_major` (densely, tiles ignored).
std::vector<int64_t> StridesForLayout(absl::Span<const int64_t> dimensions,
                                      absl::Span<const int64_t> minor_to_major);
// Linear element offset of `index` in an array of `shape` (under its layout).
int64_t LinearIndex(const Shape& shape, absl::Span<const int64_t> index);
// Inverse of LinearIndex.
std::vector<int64_t> MultiIndex(const Shape& shape, int64_t linear);

}  // namespace hlovm

#endif  // HLOVM_CORE_SHAPE_H_
