// Helpers shared by the shape rules of every op family (ops/*/*_shape.cc):
// argument checks, dimension-list formatting and shape comparison that
// ignores layouts. Nothing here knows about a particular opcode.
#ifndef HLOVM_OPS_COMMON_COMMON_SHAPE_H_
#define HLOVM_OPS_COMMON_COMMON_SHAPE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/shape.h"

namespace hlovm {

// The parameter and result shapes of a called computation (to_apply, body,
// comparator, ...), as the shape rules of ops that call one need them.
struct ComputationSignature {
  std::vector<Shape> parameters;
  Shape result;
  std::string ToString() const;  // "(f32[], f32[]) -> f32[]"
};

// Returns InvalidArgument("Expected array argument for <what>, but got S.")
// unless `shape` is an array.
absl::Status ExpectArray(const Shape& shape, std::string_view what);

// Prints a shape without its layout, as XLA's messages do.
std::string ShapeText(const Shape& shape);
// Prints "{1,2,3}".
std::string DimsText(absl::Span<const int64_t> dims);

// True if `dims` holds each of 0..rank-1 exactly once.
bool IsPermutation(absl::Span<const int64_t> dims, int64_t rank);
// True if no value occurs twice.
bool AllUnique(absl::Span<const int64_t> dims);
// True if every value is in [0, rank).
bool AllInRange(absl::Span<const int64_t> dims, int64_t rank);

// Element types equal, or both floating point.
bool SameElementTypeIgnoringFp(const Shape& a, const Shape& b);
// The more precise of two element types (floating point types only differ).
ElementType HigherPrecisionElementType(const Shape& a, const Shape& b);

// Same kind, element types and dimensions, recursively for tuples. Layouts and
// the dynamic-dimension flags are ignored; an unbounded `?` dimension matches
// any size. With `ignore_fp_precision`, any two floating point types match.
bool ShapesCompatible(const Shape& a, const Shape& b,
                      bool ignore_fp_precision = false);
// Same dimensions (arrays only), element types ignored.
bool SameDimensions(const Shape& a, const Shape& b);

// An array shape with no layout; `dynamic` (if not empty) marks dynamic dims.
Shape MakeArrayShape(ElementType type, absl::Span<const int64_t> dims,
                     const std::vector<bool>& dynamic = {});
// `shape` with its element type replaced (arrays), layout dropped.
Shape ChangeElementType(const Shape& shape, ElementType type);
// A scalar of `type`.
Shape ScalarShape(ElementType type);
bool IsScalar(const Shape& shape);

// Overflow-checked arithmetic for dimension sizes that come from untrusted
// text: false (and *out unspecified) when the result does not fit.
inline bool CheckedAdd(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
inline bool CheckedMul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
// InvalidArgument("<what> overflows a 64-bit dimension size.").
absl::Status DimensionOverflow(std::string_view what);

}  // namespace hlovm

#endif  // HLOVM_OPS_COMMON_COMMON_SHAPE_H_
