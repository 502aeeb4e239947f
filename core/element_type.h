// Element types of HLO arrays: names, sizes, and classification.
//
// Storage convention: every array element occupies ByteWidth() bytes in hlovm
// buffers. Sub-byte types (s2, s4, u2, u4, f4e2m1fn, f6e2m3fn, f6e3m2fn) are
// held one element per byte in the low bits, as XLA's Literal holds them;
// PackedBitWidth() is the width XLA uses when it packs them in device memory
// (a layout's element_size_in_bits), and PackedByteSize() computes a packed
// array's size.
#ifndef HLOVM_CORE_ELEMENT_TYPE_H_
#define HLOVM_CORE_ELEMENT_TYPE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace hlovm {

enum class TypeKind : uint8_t {
  kPred,
  kSigned,
  kUnsigned,
  kFloat,
  kComplex,
  kToken,
  kTuple,
  kOpaque,
};

// V(enumerator, text name, bit width of one value, kind)
#define HLOVM_ELEMENT_TYPE_LIST(V)                 \
  V(kPred, "pred", 8, kPred)                       \
  V(kS2, "s2", 2, kSigned)                         \
  V(kS4, "s4", 4, kSigned)                         \
  V(kS8, "s8", 8, kSigned)                         \
  V(kS16, "s16", 16, kSigned)                      \
  V(kS32, "s32", 32, kSigned)                      \
  V(kS64, "s64", 64, kSigned)                      \
  V(kU2, "u2", 2, kUnsigned)                       \
  V(kU4, "u4", 4, kUnsigned)                       \
  V(kU8, "u8", 8, kUnsigned)                       \
  V(kU16, "u16", 16, kUnsigned)                    \
  V(kU32, "u32", 32, kUnsigned)                    \
  V(kU64, "u64", 64, kUnsigned)                    \
  V(kF16, "f16", 16, kFloat)                       \
  V(kBF16, "bf16", 16, kFloat)                     \
  V(kF32, "f32", 32, kFloat)                       \
  V(kF64, "f64", 64, kFloat)                       \
  V(kC64, "c64", 64, kComplex)                     \
  V(kC128, "c128", 128, kComplex)                  \
  V(kF8E5M2, "f8e5m2", 8, kFloat)                  \
  V(kF8E4M3, "f8e4m3", 8, kFloat)                  \
  V(kF8E4M3FN, "f8e4m3fn", 8, kFloat)              \
  V(kF8E4M3FNUZ, "f8e4m3fnuz", 8, kFloat)          \
  V(kF8E4M3B11FNUZ, "f8e4m3b11fnuz", 8, kFloat)    \
  V(kF8E5M2FNUZ, "f8e5m2fnuz", 8, kFloat)          \
  V(kF8E3M4, "f8e3m4", 8, kFloat)                  \
  V(kF8E8M0FNU, "f8e8m0fnu", 8, kFloat)            \
  V(kF6E2M3FN, "f6e2m3fn", 6, kFloat)              \
  V(kF6E3M2FN, "f6e3m2fn", 6, kFloat)              \
  V(kF4E2M1FN, "f4e2m1fn", 4, kFloat)              \
  V(kToken, "token", 0, kToken)                    \
  V(kTuple, "tuple", 0, kTuple)                    \
  V(kOpaque, "opaque", 0, kOpaque)

enum class ElementType : uint8_t {
#define HLOVM_DECLARE_ELEMENT_TYPE_(e, ...) e,
  HLOVM_ELEMENT_TYPE_LIST(HLOVM_DECLARE_ELEMENT_TYPE_)
#undef HLOVM_DECLARE_ELEMENT_TYPE_
};

inline constexpr int ElementTypeCount() {
#define HLOVM_COUNT_ELEMENT_TYPE_(...) +1
  return 0 HLOVM_ELEMENT_TYPE_LIST(HLOVM_COUNT_ELEMENT_TYPE_);
#undef HLOVM_COUNT_ELEMENT_TYPE_
}

// Returns XLA's text name ("f32", "pred", "f8e4m3fn", ...).
std::string_view ElementTypeName(ElementType type);
// Looks a type up by its text name; nullopt if there is none.
std::optional<ElementType> ElementTypeFromName(std::string_view name);

TypeKind ElementTypeKind(ElementType type);
// Bits of information in one value (4 for s4, 6 for f6e2m3fn, 64 for c64).
int BitWidth(ElementType type);
// Bits one element takes when XLA packs the type (the 2- and 4-bit types pack
// to their bit width; XLA does not pack the 6-bit floats, so they and every
// other type take their byte width times 8).
int PackedBitWidth(ElementType type);
// Bytes one element occupies in hlovm buffers and literals (1 for s4).
// 0 for token, tuple and opaque.
int ByteWidth(ElementType type);
// Bytes `count` elements take when packed at PackedBitWidth() (rounded up).
int64_t PackedByteSize(ElementType type, int64_t count);

bool IsArrayType(ElementType type);  // not token, tuple or opaque
bool IsFloatingPoint(ElementType type);
bool IsComplex(ElementType type);
bool IsInteger(ElementType type);  // signed or unsigned, not pred
bool IsSignedInteger(ElementType type);
bool IsUnsignedInteger(ElementType type);
bool IsSubByte(ElementType type);
// f8*, f6*, f4* types: at most 8 bits, described by SmallFloatFormat.
bool IsSmallFloat(ElementType type);
// For complex types, the type of each part; otherwise `type` itself.
ElementType ComplexComponentType(ElementType type);

}  // namespace hlovm

#endif  // HLOVM_CORE_ELEMENT_TYPE_H_
