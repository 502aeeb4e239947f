// select and clamp kernels. Operands flagged in scalar_mask are one element
// applied at every position.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/elementwise/elementwise_binary_ops.h"
#include "ops/elementwise/elementwise_internal.h"

namespace hlovm {
namespace elementwise_internal {
namespace {

// select only moves elements, so one kernel per storage width serves all
// types.
struct Bytes16 {
  uint64_t lo, hi;
};

template <class S>
void SelectKernel(const void* pred, const void* on_true, const void* on_false, void* out,
                  int64_t n, unsigned scalar_mask) {
  const auto* p = static_cast<const uint8_t*>(pred);
  const auto* t = static_cast<const S*>(on_true);
  const auto* f = static_cast<const S*>(on_false);
  auto* y = static_cast<S*>(out);
  if (scalar_mask == 0) {
    for (int64_t i = 0; i < n; ++i) y[i] = p[i] ? t[i] : f[i];
    return;
  }
  if (scalar_mask == 1) {
    const S* src = p[0] ? t : f;
    if (src != y) std::memmove(y, src, n * sizeof(S));
    return;
  }
  const int64_t sp = (scalar_mask & 1) ? 0 : 1;
  const int64_t st = (scalar_mask & 2) ? 0 : 1;
  const int64_t sf = (scalar_mask & 4) ? 0 : 1;
  for (int64_t i = 0; i < n; ++i) y[i] = p[i * sp] ? t[i * st] : f[i * sf];
}

// clamp of a float type narrower than f32: blocks decoded to f32 (exactly),
// clamped there with the same max and min, and encoded back (exactly: the
// result is one of the inputs), instead of a conversion per element.
template <ET kType>
void ClampNarrowFloat(const void* lo, const void* x, const void* hi, void* out, int64_t n,
                      unsigned scalar_mask) {
  using F = Traits<ET::kF32>;
  const int64_t width = ByteWidth(kType);
  const void* src[3] = {lo, x, hi};
  float buf[3][kWidenBlock], result[kWidenBlock];
  float scalar[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k) {
    if (scalar_mask & (1u << k)) Decode<kType>(src[k], &scalar[k], 1);
  }
  for (int64_t i = 0; i < n; i += kWidenBlock) {
    const int64_t m = std::min<int64_t>(kWidenBlock, n - i);
    for (int k = 0; k < 3; ++k) {
      if (!(scalar_mask & (1u << k))) Decode<kType>(static_cast<const uint8_t*>(src[k]) + i * width, buf[k], m);
    }
    if (scalar_mask == 5) {
      const float lo_f = scalar[0], hi_f = scalar[2];
      for (int64_t j = 0; j < m; ++j) {
        result[j] = MinOp::Apply<F, F>(hi_f, MaxOp::Apply<F, F>(lo_f, buf[1][j]));
      }
    } else {
      const float* a = (scalar_mask & 1) ? nullptr : buf[0];
      const float* b = (scalar_mask & 2) ? nullptr : buf[1];
      const float* c = (scalar_mask & 4) ? nullptr : buf[2];
      for (int64_t j = 0; j < m; ++j) {
        result[j] = MinOp::Apply<F, F>(c ? c[j] : scalar[2],
                                       MaxOp::Apply<F, F>(a ? a[j] : scalar[0], b ? b[j] : scalar[1]));
      }
    }
    uint8_t* dst = static_cast<uint8_t*>(out) + i * width;
    Encode<kType>(result, dst, m);
    // NaNs as the element-wise conversion writes them (the block encoder
    // keeps payload bits).
    using S = typename Traits<kType>::Storage;
    for (int64_t j = 0; j < m; ++j) {
      if (result[j] != result[j]) reinterpret_cast<S*>(dst)[j] = Traits<kType>::Store(result[j]);
    }
  }
}

// clamp(lo, x, hi) = min(hi, max(lo, x)) with the type's max and min.
template <ET kType>
void ClampKernel(const void* lo, const void* x, const void* hi, void* out, int64_t n,
                 unsigned scalar_mask) {
  using T = Traits<kType>;
  using S = typename T::Storage;
  if constexpr (std::is_same_v<typename T::Compute, float> && sizeof(S) < 4) {
    ClampNarrowFloat<kType>(lo, x, hi, out, n, scalar_mask);
    return;
  }
  const auto* a = static_cast<const S*>(lo);
  const auto* b = static_cast<const S*>(x);
  const auto* c = static_cast<const S*>(hi);
  auto* y = static_cast<S*>(out);
  auto clamp = [](S lo_s, S x_s, S hi_s) {
    return T::Store(MinOp::Apply<T, T>(T::Load(hi_s), MaxOp::Apply<T, T>(T::Load(lo_s), T::Load(x_s))));
  };
  if (scalar_mask == 0) {
    for (int64_t i = 0; i < n; ++i) y[i] = clamp(a[i], b[i], c[i]);
  } else if (scalar_mask == 5) {
    const S lo_s = a[0], hi_s = c[0];
    for (int64_t i = 0; i < n; ++i) y[i] = clamp(lo_s, b[i], hi_s);
  } else {
    const int64_t sa = (scalar_mask & 1) ? 0 : 1;
    const int64_t sb = (scalar_mask & 2) ? 0 : 1;
    const int64_t sc = (scalar_mask & 4) ? 0 : 1;
    for (int64_t i = 0; i < n; ++i) y[i] = clamp(a[i * sa], b[i * sb], c[i * sc]);
  }
}

}  // namespace
}  // namespace elementwise_internal

absl::StatusOr<TernaryKernel> SelectTernaryKernel(HloOpcode opcode, ElementType type) {
  using namespace elementwise_internal;  // NOLINT
  if (opcode == HloOpcode::kSelect) {
    switch (ByteWidth(type)) {
      case 1:
        return &SelectKernel<uint8_t>;
      case 2:
        return &SelectKernel<uint16_t>;
      case 4:
        return &SelectKernel<uint32_t>;
      case 8:
        return &SelectKernel<uint64_t>;
      case 16:
        return &SelectKernel<Bytes16>;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("select of ", TypeName(type), " is not an array type"));
    }
  }
  if (opcode == HloOpcode::kClamp) {
    switch (type) {
#define HLOVM_EW_TYPE_(e) \
  case ET::e:             \
    return &ClampKernel<ET::e>;
      HLOVM_EW_INT_TYPES(HLOVM_EW_TYPE_)
      HLOVM_EW_FLOAT_TYPES(HLOVM_EW_TYPE_)
#undef HLOVM_EW_TYPE_
      case ET::kPred:
        return &ClampKernel<ET::kU8>;
      default:
        return absl::UnimplementedError(
            absl::StrCat("No clamp kernel for ", TypeName(type)));
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat(OpName(opcode), " is not a ternary elementwise op"));
}

}  // namespace hlovm
