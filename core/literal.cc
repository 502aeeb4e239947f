#include "core/literal.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/float_format.h"
#include "core/literal_internal.h"
#include "core/status_macros.h"

namespace hlovm {
namespace {

using literal_internal::ElementStrides;
using literal_internal::ReadNarrowBits;
using literal_internal::ReadSigned;
using literal_internal::ReadUnsigned;

bool IsPermutation(absl::Span<const int64_t> order, int64_t rank) {
  if (static_cast<int64_t>(order.size()) != rank) return false;
  // Ranks fit in a word's bits (the verifier's limit is far below 64); a
  // vector only past that.
  if (rank <= 64) {
    uint64_t seen = 0;
    for (int64_t d : order) {
      if (d < 0 || d >= rank || ((seen >> d) & 1)) return false;
      seen |= uint64_t{1} << d;
    }
    return true;
  }
  std::vector<bool> seen(rank, false);
  for (int64_t d : order) {
    if (d < 0 || d >= rank || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

}  // namespace

//===----------------------------------------------------------------------===//
// Literal.
//===----------------------------------------------------------------------===//

absl::StatusOr<Literal> Literal::Create(const Shape& shape) {
  return Make(shape, AlignedBuffer::kZeroed);
}

absl::StatusOr<Literal> Literal::CreateUninitialized(const Shape& shape) {
  return Make(shape, AlignedBuffer::kUninitialized);
}

absl::StatusOr<int64_t> Literal::PrepareArray(const Shape& shape, Literal& literal) {
  literal.shape_ = shape;
  const int64_t rank = shape.rank();
  const int width = ByteWidth(shape.element_type());
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = shape.dimensions(d);
    if (size < 0) {
      return absl::InvalidArgumentError(absl::StrCat("cannot create a literal of shape ",
                                                     shape.ToString(), ": dimension ", d,
                                                     " has no size"));
    }
  }
  // Sizes and strides (ElementStrides) of a valid shape fit int64, zero-size
  // arrays included.
  if (absl::Status valid = ValidateShape(shape); !valid.ok()) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot create a literal: ", valid.message()));
  }
  for (int64_t d = 0; d < rank; ++d) count *= shape.dimensions(d);
  const int64_t bytes = count * width;
  if (!shape.has_layout()) {
    literal.shape_.set_layout(Layout::RowMajor(rank));
  } else if (!IsPermutation(shape.layout().minor_to_major, rank)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot create a literal of shape ",
                                                   shape.ToString(),
                                                   ": the layout does not fit the rank"));
  }
  return bytes;
}

absl::StatusOr<Literal> Literal::View(const Shape& shape, void* data) {
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a literal view must be an array, not ", shape.ToString()));
  }
  Literal literal;
  HLOVM_ASSIGN_OR_RETURN(const int64_t bytes, PrepareArray(shape, literal));
  if (data == nullptr && bytes > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("a view of ", shape.ToString(), " needs its elements' memory"));
  }
  literal.buffer_ = AlignedBuffer::Borrow(static_cast<uint8_t*>(data), bytes);
  return literal;
}

absl::StatusOr<Literal> Literal::Make(const Shape& shape, AlignedBuffer::Init init) {
  Literal literal;
  if (shape.IsTuple()) {
    literal.elements_.reserve(shape.tuple_size());
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      HLOVM_ASSIGN_OR_RETURN(Literal element, Make(shape.tuple_shape(i), init));
      literal.elements_.push_back(std::move(element));
    }
    std::vector<Shape> shapes;
    for (const Literal& element : literal.elements_) shapes.push_back(element.shape());
    literal.shape_ = Shape::Tuple(std::move(shapes));
    return literal;
  }
  if (!shape.IsArray()) {  // token, opaque: no storage
    literal.shape_ = shape;
    return literal;
  }
  HLOVM_ASSIGN_OR_RETURN(const int64_t bytes, PrepareArray(shape, literal));  // sets shape_
  absl::StatusOr<AlignedBuffer> buffer = AlignedBuffer::Allocate(bytes, init);
  if (!buffer.ok()) {
    return absl::Status(buffer.status().code(),
                        absl::StrCat("cannot create a literal of shape ", shape.ToString(), ": ",
                                     buffer.status().message()));
  }
  literal.buffer_ = std::move(buffer).value();
  return literal;
}

Literal Literal::Tuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  shapes.reserve(elements.size());
  for (const Literal& element : elements) shapes.push_back(element.shape());
  Literal literal;
  literal.shape_ = Shape::Tuple(std::move(shapes));
  literal.elements_ = std::move(elements);
  return literal;
}

Literal Literal::Clone() const {
  Literal copy;
  copy.shape_ = shape_;
  copy.elided_ = elided_;
  if (buffer_.data() != nullptr) {
    // The same size was allocated once already; a failure here means memory
    // ran out in between, which leaves the clone empty.
    absl::StatusOr<AlignedBuffer> buffer = AlignedBuffer::Allocate(buffer_.size());
    if (buffer.ok()) {
      copy.buffer_ = std::move(buffer).value();
      if (buffer_.size() > 0) {
        std::memcpy(copy.buffer_.data(), buffer_.data(), static_cast<size_t>(buffer_.size()));
      }
    }
  }
  copy.elements_.reserve(elements_.size());
  for (const Literal& element : elements_) copy.elements_.push_back(element.Clone());
  return copy;
}

bool Literal::BitwiseEqual(const Literal& other) const {
  if (!(shape_ == other.shape_)) return false;
  if (elements_.size() != other.elements_.size()) return false;
  for (size_t i = 0; i < elements_.size(); ++i) {
    if (!elements_[i].BitwiseEqual(other.elements_[i])) return false;
  }
  if (buffer_.size() != other.buffer_.size()) return false;
  if (buffer_.size() == 0) return true;
  return std::memcmp(buffer_.data(), other.buffer_.data(), static_cast<size_t>(buffer_.size())) ==
         0;
}

int64_t Literal::PhysicalIndex(absl::Span<const int64_t> index) const {
  if (!shape_.has_layout()) {
    std::vector<int64_t> strides = ElementStrides(shape_);
    int64_t offset = 0;
    for (size_t d = 0; d < index.size() && d < strides.size(); ++d) {
      offset += index[d] * strides[d];
    }
    return offset;
  }
  int64_t offset = 0;
  int64_t stride = 1;
  for (int64_t d : shape_.layout().minor_to_major) {
    if (d >= 0 && d < static_cast<int64_t>(index.size())) offset += index[d] * stride;
    stride *= shape_.dimensions(d);
  }
  return offset;
}

double Literal::GetAsDouble(int64_t physical_index) const {
  const ElementType type = shape_.element_type();
  const uint8_t* p = untyped_data() + physical_index * ByteWidth(type);
  switch (ElementTypeKind(type)) {
    case TypeKind::kPred:
      return p[0] != 0 ? 1.0 : 0.0;
    case TypeKind::kSigned:
      return static_cast<double>(ReadSigned(type, p));
    case TypeKind::kUnsigned:
      return static_cast<double>(ReadUnsigned(type, p));
    case TypeKind::kFloat:
      if (type == ElementType::kF32) {
        float v;
        std::memcpy(&v, p, 4);
        return v;
      }
      if (type == ElementType::kF64) {
        double v;
        std::memcpy(&v, p, 8);
        return v;
      }
      return DecodeNarrowFloat(type, ReadNarrowBits(type, p));
    case TypeKind::kComplex:
      if (type == ElementType::kC64) {
        float v;
        std::memcpy(&v, p, 4);
        return v;
      } else {
        double v;
        std::memcpy(&v, p, 8);
        return v;
      }
    default:
      return 0;
  }
}

absl::StatusOr<Literal> Literal::Relayout(const Layout& layout) const {
  if (!shape_.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot relayout ", shape_.ToString()));
  }
  if (!IsPermutation(layout.minor_to_major, shape_.rank())) {
    return absl::InvalidArgumentError(
        absl::StrCat("layout ", layout.ToString(), " does not fit shape ", shape_.ToString()));
  }
  Shape target = shape_;
  target.set_layout(layout);
  HLOVM_ASSIGN_OR_RETURN(Literal result, Create(target));
  result.elided_ = elided_;
  const int64_t rank = shape_.rank();
  const int64_t width = ByteWidth(shape_.element_type());
  const int64_t count = shape_.element_count();
  if (count == 0) return result;
  std::vector<int64_t> from = ElementStrides(shape_);
  std::vector<int64_t> to = ElementStrides(target);
  std::vector<int64_t> index(rank, 0);
  const uint8_t* src = untyped_data();
  uint8_t* dst = result.untyped_data();
  for (int64_t n = 0; n < count; ++n) {
    int64_t a = 0, b = 0;
    for (int64_t d = 0; d < rank; ++d) {
      a += index[d] * from[d];
      b += index[d] * to[d];
    }
    std::memcpy(dst + b * width, src + a * width, static_cast<size_t>(width));
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape_.dimensions(d)) break;
      index[d] = 0;
    }
  }
  return result;
}

}  // namespace hlovm
