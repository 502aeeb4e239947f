#include "ops/linalg/linalg_shape.h"

#include <string>

#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "ops/common/common_shape.h"

namespace hlovm {
namespace {
absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }
}  // namespace

absl::StatusOr<Shape> InferCholeskyShape(const Shape& a) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(a, "operand of cholesky"));
  if (!IsFloatingPoint(a.element_type()) && !IsComplex(a.element_type())) {
    return Invalid(absl::StrFormat(
        "Expected element type in shape to be floating or complex for Cholesky; got %s.",
        ElementTypeName(a.element_type())));
  }
  if (a.rank() < 2) {
    return Invalid(absl::StrFormat(
        "The 'a' argument to Cholesky must have rank >= 2, got shape %s", ShapeText(a)));
  }
  if (a.dimensions(a.rank() - 2) != a.dimensions(a.rank() - 1)) {
    return Invalid(absl::StrFormat(
        "The two minor dimensions of 'a' must have equal size, got %s.", ShapeText(a)));
  }
  return a;
}

absl::StatusOr<Shape> InferTriangularSolveShape(const Shape& a, const Shape& b,
                                                bool left_side) {
  HLOVM_RETURN_IF_ERROR(ExpectArray(a, "operand a of triangular-solve"));
  HLOVM_RETURN_IF_ERROR(ExpectArray(b, "operand b of triangular-solve"));
  if (!IsFloatingPoint(a.element_type()) && !IsComplex(a.element_type())) {
    return Invalid(absl::StrFormat(
        "Expected element type in shape to be floating or complex for TriangularSolve; got "
        "%s.",
        ElementTypeName(a.element_type())));
  }
  if (a.element_type() != b.element_type()) {
    return Invalid(absl::StrFormat(
        "Arguments to triangular solve must have equal element types, got %s and %s.",
        ShapeText(a), ShapeText(b)));
  }
  if (a.rank() < 2) {
    return Invalid(absl::StrFormat(
        "The 'a' argument to TriangularSolve must have rank >= 2, got shape %s", ShapeText(a)));
  }
  if (b.rank() != a.rank()) {
    return Invalid(absl::StrFormat(
        "Arguments to triangular solve must have equal rank; got %s and %s.", ShapeText(b),
        ShapeText(a)));
  }
  const int64_t r = a.rank();
  if (a.dimensions(r - 2) != a.dimensions(r - 1)) {
    return Invalid(absl::StrFormat(
        "The two minor dimensions of 'a' must have equal size, got %s.", ShapeText(a)));
  }
  if (a.dimensions(r - 1) != b.dimensions(left_side ? r - 2 : r - 1)) {
    return Invalid(absl::StrFormat(
        "The shared dimension of 'a' and 'b' does not match, got shapes %s and %s",
        ShapeText(a), ShapeText(b)));
  }
  for (int64_t i = 0; i < r - 2; ++i) {
    if (a.dimensions(i) != b.dimensions(i)) {
      return Invalid(absl::StrFormat(
          "The leading batch dimensions of the arguments to triangular solve must be equal; "
          "got %s and %s.",
          ShapeText(b), ShapeText(a)));
    }
  }
  return b;
}

}  // namespace hlovm
