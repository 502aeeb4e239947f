#include "ops/shape/iota.h"

#include <complex>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/float_format.h"

namespace hlovm {
namespace {

template <typename T, typename Convert>
void IotaLoop(void* out, int64_t begin, int64_t end, int64_t dim_size, int64_t inner,
              Convert convert) {
  if (begin >= end || dim_size <= 0 || inner <= 0) return;  // empty: nothing to divide by
  T* o = static_cast<T*>(out);
  int64_t outer = begin / inner;
  int64_t pos = begin % inner;
  int64_t value = outer % dim_size;
  for (int64_t l = begin; l < end; ++l) {
    o[l - begin] = convert(value);
    if (++pos == inner) {
      pos = 0;
      if (++value == dim_size) value = 0;
    }
  }
}

template <typename T>
void IotaPlain(void* out, int64_t begin, int64_t end, int64_t dim_size, int64_t inner) {
  IotaLoop<T>(out, begin, end, dim_size, inner, [](int64_t v) { return static_cast<T>(v); });
}

template <typename T>
void IotaComplex(void* out, int64_t begin, int64_t end, int64_t dim_size, int64_t inner) {
  IotaLoop<std::complex<T>>(out, begin, end, dim_size, inner,
                            [](int64_t v) { return std::complex<T>(static_cast<T>(v), 0); });
}

void IotaPred(void* out, int64_t begin, int64_t end, int64_t dim_size, int64_t inner) {
  IotaLoop<uint8_t>(out, begin, end, dim_size, inner,
                    [](int64_t v) { return static_cast<uint8_t>(v != 0); });
}

template <int kBits, bool kSigned>
void IotaSubByte(void* out, int64_t begin, int64_t end, int64_t dim_size, int64_t inner) {
  IotaLoop<uint8_t>(out, begin, end, dim_size, inner, [](int64_t v) {
    uint8_t bits = static_cast<uint8_t>(v & ((1 << kBits) - 1));
    if (kSigned && (bits & (1 << (kBits - 1)))) bits |= static_cast<uint8_t>(0xff << kBits);
    return bits;
  });
}

template <ElementType kType>
void IotaNarrowFloat(void* out, int64_t begin, int64_t end, int64_t dim_size, int64_t inner) {
  if constexpr (kType == ElementType::kF16 || kType == ElementType::kBF16) {
    IotaLoop<uint16_t>(out, begin, end, dim_size, inner, [](int64_t v) {
      return static_cast<uint16_t>(EncodeNarrowFloat(kType, static_cast<double>(v)));
    });
  } else {
    IotaLoop<uint8_t>(out, begin, end, dim_size, inner, [](int64_t v) {
      return static_cast<uint8_t>(EncodeNarrowFloat(kType, static_cast<double>(v)));
    });
  }
}

}  // namespace

absl::StatusOr<IotaKernel> SelectIotaKernel(ElementType type) {
  switch (type) {
    case ElementType::kPred: return &IotaPred;
    case ElementType::kS2: return &IotaSubByte<2, true>;
    case ElementType::kS4: return &IotaSubByte<4, true>;
    case ElementType::kU2: return &IotaSubByte<2, false>;
    case ElementType::kU4: return &IotaSubByte<4, false>;
    case ElementType::kS8: return &IotaPlain<int8_t>;
    case ElementType::kS16: return &IotaPlain<int16_t>;
    case ElementType::kS32: return &IotaPlain<int32_t>;
    case ElementType::kS64: return &IotaPlain<int64_t>;
    case ElementType::kU8: return &IotaPlain<uint8_t>;
    case ElementType::kU16: return &IotaPlain<uint16_t>;
    case ElementType::kU32: return &IotaPlain<uint32_t>;
    case ElementType::kU64: return &IotaPlain<uint64_t>;
    case ElementType::kF32: return &IotaPlain<float>;
    case ElementType::kF64: return &IotaPlain<double>;
    case ElementType::kC64: return &IotaComplex<float>;
    case ElementType::kC128: return &IotaComplex<double>;
#define HLOVM_IOTA_NARROW_(e) \
  case ElementType::e: return &IotaNarrowFloat<ElementType::e>;
    HLOVM_IOTA_NARROW_(kF16)
    HLOVM_IOTA_NARROW_(kBF16)
    HLOVM_IOTA_NARROW_(kF8E5M2)
    HLOVM_IOTA_NARROW_(kF8E4M3)
    HLOVM_IOTA_NARROW_(kF8E4M3FN)
    HLOVM_IOTA_NARROW_(kF8E4M3FNUZ)
    HLOVM_IOTA_NARROW_(kF8E4M3B11FNUZ)
    HLOVM_IOTA_NARROW_(kF8E5M2FNUZ)
    HLOVM_IOTA_NARROW_(kF8E3M4)
    HLOVM_IOTA_NARROW_(kF8E8M0FNU)
    HLOVM_IOTA_NARROW_(kF6E2M3FN)
    HLOVM_IOTA_NARROW_(kF6E3M2FN)
    HLOVM_IOTA_NARROW_(kF4E2M1FN)
#undef HLOVM_IOTA_NARROW_
    default:
      return absl::UnimplementedError(
          absl::StrCat("iota of element type ", std::string(ElementTypeName(type))));
  }
}

}  // namespace hlovm
