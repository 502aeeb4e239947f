#include "core/elided_fill.h"

#include <cstring>
#include <vector>

#include "core/element_type.h"
#include "core/shape.h"

namespace hlovm {
namespace {

// Keeps a sub-byte element to the bits its type has: unsigned and float
// types keep the low bits; signed types are sign-extended from them.
uint8_t NormalizeSubByte(ElementType type, uint8_t value) {
  const int bits = BitWidth(type);
  const uint8_t low = value & static_cast<uint8_t>((1u << bits) - 1);
  if (IsSignedInteger(type) && (low & (1u << (bits - 1)))) {
    return static_cast<uint8_t>(low | ~((1u << bits) - 1));
  }
  return low;
}

}  // namespace

void ElidedFiller::FillArray(Literal* literal) {
  const Shape& shape = literal->shape();
  const int64_t count = shape.element_count();
  const int width = ByteWidth(shape.element_type());
  const int64_t size = count * width;
  if (size <= 0 || literal->untyped_data() == nullptr) return;

  // XLA fills a literal in the default (row-major) layout, then relays it.
  const bool row_major = !shape.has_layout() || shape.layout().IsRowMajor();
  std::vector<uint8_t> scratch;
  uint8_t* bytes = literal->untyped_data();
  if (!row_major) {
    scratch.assign(size, 0);
    bytes = scratch.data();
  }

  const uint32_t mask = shape.element_type() == ElementType::kPred ? 0x01010101u : 0xFFFFFFFFu;
  const int64_t words = size / 4;
  for (int64_t i = 0; i < words; ++i) {
    const uint32_t value = word_++ & mask;
    std::memcpy(bytes + 4 * i, &value, 4);
  }
  // XLA writes the tail bytes at offset size/4 + i; reproduce it exactly.
  for (int64_t i = 0; i < size % 4; ++i) {
    bytes[words + i] = static_cast<uint8_t>(byte_++ & mask);
  }

  if (IsSubByte(shape.element_type())) {
    for (int64_t i = 0; i < size; ++i) bytes[i] = NormalizeSubByte(shape.element_type(), bytes[i]);
  }

  if (!row_major) {
    // Element at row-major position i goes to its physical position.
    const std::vector<int64_t> strides = StridesForLayout(shape.dimensions(), shape.minor_to_major());
    const int64_t rank = shape.rank();
    std::vector<int64_t> index(rank, 0);
    uint8_t* out = literal->untyped_data();
    for (int64_t i = 0; i < count; ++i) {
      int64_t offset = 0;
      for (int64_t d = 0; d < rank; ++d) offset += index[d] * strides[d];
      std::memcpy(out + offset * width, bytes + i * width, width);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++index[d] < shape.dimensions(d)) break;
        index[d] = 0;
      }
    }
  }
}

void ElidedFiller::FillLikeXla(Literal* literal) {
  if (literal->shape().IsTuple()) {
    for (Literal& element : literal->tuple_elements()) FillLikeXla(&element);
    return;
  }
  if (!literal->shape().IsArray()) return;
  FillArray(literal);
}

void FillElidedWithZeros(Literal* literal) {
  if (literal->shape().IsTuple()) {
    for (Literal& element : literal->tuple_elements()) FillElidedWithZeros(&element);
    return;
  }
  if (!literal->shape().IsArray() || literal->untyped_data() == nullptr) return;
  std::memset(literal->untyped_data(), 0, literal->size_bytes());
}

}  // namespace hlovm
