#include "core/element_type.h"

#include <array>

namespace hlovm {
namespace {

struct TypeInfo {
  std::string_view name;
  int bit_width;
  TypeKind kind;
};

constexpr std::array<TypeInfo, ElementTypeCount()> kTypeInfo = {{
#define HLOVM_TYPE_INFO_(e, name, bits, kind) {name, bits, TypeKind::kind},
    HLOVM_ELEMENT_TYPE_LIST(HLOVM_TYPE_INFO_)
#undef HLOVM_TYPE_INFO_
}};

static_assert(ElementTypeCount() < 256, "ElementType is stored in a uint8_t");

const TypeInfo& Info(ElementType type) { return kTypeInfo[static_cast<size_t>(type)]; }

}  // namespace

std::string_view ElementTypeName(ElementType type) {
  size_t index = static_cast<size_t>(type);
  if (index >= kTypeInfo.size()) return "invalid";
  return kTypeInfo[index].name;
}

std::optional<ElementType> ElementTypeFromName(std::string_view name) {
  for (size_t i = 0; i < kTypeInfo.size(); ++i) {
    if (kTypeInfo[i].name == name) return static_cast<ElementType>(i);
  }
  return std::nullopt;
}

TypeKind ElementTypeKind(ElementType type) { return Info(type).kind; }

int BitWidth(ElementType type) { return Info(type).bit_width; }

int ByteWidth(ElementType type) {
  int bits = Info(type).bit_width;
  return (bits + 7) / 8;
}

int PackedBitWidth(ElementType type) {
  int bits = Info(type).bit_width;
  // XLA packs only the 2- and 4-bit types (several to a byte); the 6-bit
  // float types keep one element per byte.
  if (bits == 2 || bits == 4) return bits;
  return ByteWidth(type) * 8;
}

int64_t PackedByteSize(ElementType type, int64_t count) {
  int64_t bits = PackedBitWidth(type);
  if (count <= 0 || bits == 0) return 0;
  if (bits % 8 == 0) return count * (bits / 8);
  int64_t per_byte = 8 / bits;
  return (count + per_byte - 1) / per_byte;
}

bool IsArrayType(ElementType type) {
  TypeKind kind = Info(type).kind;
  return kind != TypeKind::kToken && kind != TypeKind::kTuple && kind != TypeKind::kOpaque;
}

bool IsFloatingPoint(ElementType type) { return Info(type).kind == TypeKind::kFloat; }

bool IsComplex(ElementType type) { return Info(type).kind == TypeKind::kComplex; }

bool IsInteger(ElementType type) {
  TypeKind kind = Info(type).kind;
  return kind == TypeKind::kSigned || kind == TypeKind::kUnsigned;
}

bool IsSignedInteger(ElementType type) { return Info(type).kind == TypeKind::kSigned; }

bool IsUnsignedInteger(ElementType type) { return Info(type).kind == TypeKind::kUnsigned; }

bool IsSubByte(ElementType type) {
  return IsArrayType(type) && type != ElementType::kPred && Info(type).bit_width < 8;
}

bool IsSmallFloat(ElementType type) {
  return Info(type).kind == TypeKind::kFloat && Info(type).bit_width <= 8;
}

ElementType ComplexComponentType(ElementType type) {
  switch (type) {
    case ElementType::kC64:
      return ElementType::kF32;
    case ElementType::kC128:
      return ElementType::kF64;
    default:
      return type;
  }
}

}  // namespace hlovm
