// select and clamp kernels. Operands flagged in scalar_mask are one element
// applied at every position.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/elementwise/elementwise_binary_ops.h"
#include "ops/elementwise/elementwise_hwy.h"
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

// min(hi, max(lo, x)) of m floats with the vector kernels of max and min
// (XLA's rules for NaN and signed zeros, as MaxOp and MinOp), where the
// scalar loop over MaxOp and MinOp took a quarter of a bf16 MobileNet's
// time (its Relu6).
void ClampF32Block(const float* lo, const float* x, const float* hi, float* out, int64_t m) {
  float tmp[kWidenBlock];
  HwyMaxF32(lo, x, tmp, m);
  HwyMinF32(hi, tmp, out, m);
}

// clamp over f32 blocks: `decode(k, i, m, buf)` gives operand k's elements
// [i, i + m) as floats (in buf, or where they are); a scalar operand is a
// block of its value (scalar[k]); the block's result goes to `result_at(i)`
// (the output itself, or a buffer), then `finish(i, m, result)` runs.
template <class Decode, class ResultAt, class Finish>
void ClampBlocks(int64_t n, unsigned scalar_mask, const float* scalar, Decode&& decode,
                 ResultAt&& result_at, Finish&& finish) {
  float fill[3][kWidenBlock], buf[3][kWidenBlock];
  for (int k = 0; k < 3; ++k) {
    if (scalar_mask & (1u << k)) std::fill(fill[k], fill[k] + kWidenBlock, scalar[k]);
  }
  for (int64_t i = 0; i < n; i += kWidenBlock) {
    const int64_t m = std::min<int64_t>(kWidenBlock, n - i);
    const float* op[3];
    for (int k = 0; k < 3; ++k) {
      op[k] = (scalar_mask & (1u << k)) ? fill[k] : decode(k, i, m, buf[k]);
    }
    float* result = result_at(i);
    ClampF32Block(op[0], op[1], op[2], result, m);
    finish(i, m, result);
  }
}

// clamp of a float type narrower than f32: blocks decoded to f32 (exactly),
// clamped there with the same max and min, and encoded back (exactly: the
// result is one of the inputs), instead of a conversion per element.
template <ET kType>
void ClampNarrowFloat(const void* lo, const void* x, const void* hi, void* out, int64_t n,
                      unsigned scalar_mask) {
  const int64_t width = ByteWidth(kType);
  const void* src[3] = {lo, x, hi};
  float scalar[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k) {
    if (scalar_mask & (1u << k)) Decode<kType>(src[k], &scalar[k], 1);
  }
  float result[kWidenBlock];
  ClampBlocks(
      n, scalar_mask, scalar,
      [&](int k, int64_t i, int64_t m, float* buf) -> const float* {
        Decode<kType>(static_cast<const uint8_t*>(src[k]) + i * width, buf, m);
        return buf;
      },
      [&](int64_t) { return result; },
      [&](int64_t i, int64_t m, const float* result) {
        uint8_t* dst = static_cast<uint8_t*>(out) + i * width;
        Encode<kType>(result, dst, m);
        // NaNs as the element-wise conversion writes them (the block
        // encoder keeps payload bits).
        using S = typename Traits<kType>::Storage;
        for (int64_t j = 0; j < m; ++j) {
          if (result[j] != result[j])
            reinterpret_cast<S*>(dst)[j] = Traits<kType>::Store(result[j]);
        }
      });
}

// clamp of f32, a block at a time through the vector kernels, straight
// into the output (which may be an operand: max goes through a buffer).
void ClampF32(const void* lo, const void* x, const void* hi, void* out, int64_t n,
              unsigned scalar_mask) {
  const float* src[3] = {static_cast<const float*>(lo), static_cast<const float*>(x),
                         static_cast<const float*>(hi)};
  float scalar[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k) {
    if (scalar_mask & (1u << k)) scalar[k] = src[k][0];
  }
  ClampBlocks(
      n, scalar_mask, scalar, [&](int k, int64_t i, int64_t, float*) { return src[k] + i; },
      [&](int64_t i) { return static_cast<float*>(out) + i; }, [](int64_t, int64_t, float*) {});
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
  if constexpr (kType == ET::kF32) {
    ClampF32(lo, x, hi, out, n, scalar_mask);
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
