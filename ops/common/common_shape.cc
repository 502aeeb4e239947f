#include "ops/common/common_shape.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace hlovm {

std::string ComputationSignature::ToString() const {
  std::vector<std::string> params;
  for (const Shape& p : parameters) params.push_back(ShapeText(p));
  return absl::StrCat("(", absl::StrJoin(params, ", "), ") -> ", ShapeText(result));
}

absl::Status ExpectArray(const Shape& shape, std::string_view what) {
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "Expected array argument for %s, but got %s.", what, ShapeText(shape)));
  }
  return absl::OkStatus();
}

std::string ShapeText(const Shape& shape) { return shape.ToString(/*with_layout=*/false); }

std::string DimsText(absl::Span<const int64_t> dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

bool IsPermutation(absl::Span<const int64_t> dims, int64_t rank) {
  if (static_cast<int64_t>(dims.size()) != rank) return false;
  std::vector<bool> seen(rank, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

bool AllUnique(absl::Span<const int64_t> dims) {
  absl::flat_hash_set<int64_t> seen;
  for (int64_t d : dims) {
    if (!seen.insert(d).second) return false;
  }
  return true;
}

bool AllInRange(absl::Span<const int64_t> dims, int64_t rank) {
  return std::all_of(dims.begin(), dims.end(),
                     [rank](int64_t d) { return d >= 0 && d < rank; });
}

bool SameElementTypeIgnoringFp(const Shape& a, const Shape& b) {
  if (a.element_type() == b.element_type()) return true;
  return IsFloatingPoint(a.element_type()) && IsFloatingPoint(b.element_type());
}

ElementType HigherPrecisionElementType(const Shape& a, const Shape& b) {
  ElementType ta = a.element_type(), tb = b.element_type();
  if (ta == tb || !IsFloatingPoint(ta) || !IsFloatingPoint(tb)) return ta;
  return BitWidth(tb) > BitWidth(ta) ? tb : ta;
}

bool SameDimensions(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (int64_t i = 0; i < a.rank(); ++i) {
    if (a.dimensions(i) != b.dimensions(i) &&
        a.dimensions(i) != kUnboundedSize && b.dimensions(i) != kUnboundedSize) {
      return false;
    }
  }
  return true;
}

bool ShapesCompatible(const Shape& a, const Shape& b, bool ignore_fp_precision) {
  if (a.IsTuple() || b.IsTuple()) {
    if (!a.IsTuple() || !b.IsTuple() || a.tuple_size() != b.tuple_size()) return false;
    for (int64_t i = 0; i < a.tuple_size(); ++i) {
      if (!ShapesCompatible(a.tuple_shape(i), b.tuple_shape(i), ignore_fp_precision)) {
        return false;
      }
    }
    return true;
  }
  if (a.element_type() != b.element_type()) {
    if (!ignore_fp_precision || !SameElementTypeIgnoringFp(a, b)) return false;
  }
  if (!a.IsArray()) return true;  // token, opaque
  return SameDimensions(a, b);
}

Shape MakeArrayShape(ElementType type, absl::Span<const int64_t> dims,
                     const std::vector<bool>& dynamic) {
  Shape shape(type, std::vector<int64_t>(dims.begin(), dims.end()));
  for (size_t i = 0; i < dynamic.size() && i < dims.size(); ++i) {
    if (dynamic[i]) shape.set_dynamic_dimension(i, true);
  }
  return shape;
}

Shape ChangeElementType(const Shape& shape, ElementType type) {
  std::vector<bool> dynamic(shape.rank());
  for (int64_t i = 0; i < shape.rank(); ++i) dynamic[i] = shape.is_dynamic_dimension(i);
  return MakeArrayShape(type, shape.dimensions(), dynamic);
}

Shape ScalarShape(ElementType type) { return MakeArrayShape(type, {}); }

bool IsScalar(const Shape& shape) { return shape.IsArray() && shape.rank() == 0; }

absl::Status DimensionOverflow(std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrFormat("%s overflows a 64-bit dimension size.", what));
}

}  // namespace hlovm
