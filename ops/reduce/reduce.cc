#include "ops/reduce/reduce.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "absl/status/status.h"
#include "core/float_format.h"
#include "ops/common/float_minmax.h"
#include "ops/elementwise/elementwise_hwy.h"
#include "ops/reduce/reduce_hwy.h"

#define HWY_RESTRICT_ __restrict__

namespace hlovm {

absl::StatusOr<ReduceGeometry> MakeReduceGeometry(absl::Span<const int64_t> dims,
                                                  absl::Span<const int64_t> reduced) {
  const int rank = static_cast<int>(dims.size());
  std::vector<bool> is_reduced(rank, false);
  for (int64_t d : reduced) {
    if (d < 0 || d >= rank || is_reduced[d]) {
      return absl::InvalidArgumentError("reduce dimensions out of range or repeated");
    }
    is_reduced[d] = true;
  }
  ReduceGeometry g;
  int64_t elements = 1, out_count = 1;
  for (int d = 0; d < rank; ++d) {
    elements *= dims[d];
    if (!is_reduced[d]) out_count *= dims[d];
  }
  g.out_count = out_count;
  if (elements == 0) {
    // Nothing to fold: every output element is the init value.
    g.runs = false;
    g.kept_sizes = {std::max<int64_t>(out_count, 1)};
    g.kept_strides = {0};
    g.inner = 1;
    g.outer = out_count;
    g.red_count = 0;
    return g;
  }
  // Merge adjacent dimensions of one kind; dimensions of size 1 vanish.
  struct Group {
    int64_t size, stride;
    bool reduced;
  };
  std::vector<Group> groups;
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (dims[d] != 1) {
      if (!groups.empty() && groups.back().reduced == is_reduced[d]) {
        groups.back().size *= dims[d];
      } else {
        groups.push_back({dims[d], stride, is_reduced[d]});
      }
    }
    stride *= dims[d];
  }
  std::reverse(groups.begin(), groups.end());
  if (groups.empty()) {
    g.runs = true;
    g.inner = 1;
    return g;
  }
  g.runs = groups.back().reduced;
  g.inner = groups.back().size;
  groups.pop_back();
  for (const Group& gr : groups) {
    if (gr.reduced) {
      g.red_sizes.push_back(gr.size);
      g.red_strides.push_back(gr.stride);
      g.red_count *= gr.size;
    } else {
      g.kept_sizes.push_back(gr.size);
      g.kept_strides.push_back(gr.stride);
      g.outer *= gr.size;
    }
  }
  return g;
}

namespace {

// Integers compute in their unsigned type (wrapping, no overflow); floats in
// themselves.
template <typename T, bool = std::is_integral_v<T>>
struct WideOf {
  using type = T;
};
template <typename T>
struct WideOf<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
using Wide = typename WideOf<T>::type;

template <typename T>
bool Identity(HloOpcode op, T* out) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case HloOpcode::kAdd: *out = T(-0.0); return true;
      case HloOpcode::kMultiply: *out = T(1); return true;
      case HloOpcode::kMaximum: *out = -std::numeric_limits<T>::infinity(); return true;
      case HloOpcode::kMinimum: *out = std::numeric_limits<T>::infinity(); return true;
      default: return false;
    }
  } else {
    switch (op) {
      case HloOpcode::kAdd:
      case HloOpcode::kOr:
      case HloOpcode::kXor: *out = T(0); return true;
      case HloOpcode::kMultiply: *out = T(1); return true;
      case HloOpcode::kAnd: *out = static_cast<T>(~Wide<T>(0)); return true;
      case HloOpcode::kMaximum: *out = std::numeric_limits<T>::lowest(); return true;
      case HloOpcode::kMinimum: *out = std::numeric_limits<T>::max(); return true;
      default: return false;
    }
  }
}

// Integer folds: eight independent accumulators (the operations are
// associative and commutative, so the order does not show).
template <typename T, HloOpcode kOp>
inline T IntOp(T a, T b) {
  using U = Wide<T>;
  if constexpr (kOp == HloOpcode::kAdd) return static_cast<T>(U(a) + U(b));
  if constexpr (kOp == HloOpcode::kMultiply) return static_cast<T>(U(a) * U(b));
  if constexpr (kOp == HloOpcode::kMaximum) return a > b ? a : b;
  if constexpr (kOp == HloOpcode::kMinimum) return a < b ? a : b;
  if constexpr (kOp == HloOpcode::kAnd) return a & b;
  if constexpr (kOp == HloOpcode::kOr) return a | b;
  if constexpr (kOp == HloOpcode::kXor) return a ^ b;
}

template <typename T, HloOpcode kOp>
void IntFold(void* acc, const void* xv, int64_t n) {
  const T* x = static_cast<const T*>(xv);
  T id;
  Identity<T>(kOp, &id);
  T p[8] = {id, id, id, id, id, id, id, id};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int k = 0; k < 8; ++k) p[k] = IntOp<T, kOp>(p[k], x[i + k]);
  }
  for (; i < n; ++i) p[0] = IntOp<T, kOp>(p[0], x[i]);
  T r = *static_cast<T*>(acc);
  for (int k = 0; k < 8; ++k) r = IntOp<T, kOp>(r, p[k]);
  *static_cast<T*>(acc) = r;
}

template <typename T>
void FloatSumFold(void* acc, const void* x, int64_t n) {
  T s;
  if constexpr (std::is_same_v<T, float>) {
    s = reduce_internal::HwySumF32(static_cast<const float*>(x), n);
  } else {
    s = reduce_internal::HwySumF64(static_cast<const double*>(x), n);
  }
  if (n > 0) *static_cast<T*>(acc) += s;
}

template <typename T>
void FloatProductFold(void* acc, const void* xv, int64_t n) {
  const T* x = static_cast<const T*>(xv);
  T r = *static_cast<T*>(acc);
  for (int64_t i = 0; i < n; ++i) r *= x[i];
  *static_cast<T*>(acc) = r;
}

template <typename T, bool kMax>
void FloatMaxMinFold(void* acc, const void* x, int64_t n) {
  if (n <= 0) return;
  T m;
  if constexpr (std::is_same_v<T, float>) {
    m = kMax ? reduce_internal::HwyMaxF32(static_cast<const float*>(x), n)
             : reduce_internal::HwyMinF32(static_cast<const float*>(x), n);
  } else {
    m = kMax ? reduce_internal::HwyMaxF64(static_cast<const double*>(x), n)
             : reduce_internal::HwyMinF64(static_cast<const double*>(x), n);
  }
  T& a = *static_cast<T*>(acc);
  a = kMax ? FloatMax(a, m) : FloatMin(a, m);
}

// bf16 and f16 maximum/minimum: blocks widened to f32 (exactly), folded by
// the f32 kernel, and the winner narrowed back. The winner is one of the
// inputs (or a NaN), so narrowing it is exact; a bf16 NaN keeps its bits.
template <bool kBf16, bool kMax>
void NarrowMaxMinFold(void* acc, const void* xv, int64_t n) {
  if (n <= 0) return;
  const uint16_t* x = static_cast<const uint16_t*>(xv);
  auto widen = [](uint16_t bits) {
    if constexpr (kBf16) {
      const uint32_t wide = uint32_t{bits} << 16;
      float f;
      std::memcpy(&f, &wide, 4);
      return f;
    } else {
      return HalfToFloat(bits);
    }
  };
  constexpr int64_t kBlock = 512;
  float block[kBlock];
  float a = widen(*static_cast<uint16_t*>(acc));
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t m = std::min(kBlock, n - i);
    if constexpr (kBf16) {
      for (int64_t k = 0; k < m; ++k) block[k] = widen(x[i + k]);
    } else {
      elementwise_internal::HwyF16ToF32(x + i, block, m);
    }
    const float r = kMax ? reduce_internal::HwyMaxF32(block, m) : reduce_internal::HwyMinF32(block, m);
    a = kMax ? FloatMax(a, r) : FloatMin(a, r);
  }
  uint16_t out;
  if constexpr (kBf16) {
    uint32_t bits;
    std::memcpy(&bits, &a, 4);
    out = static_cast<uint16_t>(bits >> 16);
  } else {
    out = FloatToHalf(a);
  }
  *static_cast<uint16_t*>(acc) = out;
}

template <bool kBf16>
RunFoldKernel NarrowFoldFor(HloOpcode op) {
  if (op == HloOpcode::kMaximum) return &NarrowMaxMinFold<kBf16, true>;
  if (op == HloOpcode::kMinimum) return &NarrowMaxMinFold<kBf16, false>;
  return nullptr;
}

template <typename T>
RunFoldKernel IntFoldFor(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAdd: return &IntFold<T, HloOpcode::kAdd>;
    case HloOpcode::kMultiply: return &IntFold<T, HloOpcode::kMultiply>;
    case HloOpcode::kMaximum: return &IntFold<T, HloOpcode::kMaximum>;
    case HloOpcode::kMinimum: return &IntFold<T, HloOpcode::kMinimum>;
    case HloOpcode::kAnd: return &IntFold<T, HloOpcode::kAnd>;
    case HloOpcode::kOr: return &IntFold<T, HloOpcode::kOr>;
    case HloOpcode::kXor: return &IntFold<T, HloOpcode::kXor>;
    default: return nullptr;
  }
}

template <typename T>
RunFoldKernel FloatFoldFor(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAdd: return &FloatSumFold<T>;
    case HloOpcode::kMultiply: return &FloatProductFold<T>;
    case HloOpcode::kMaximum: return &FloatMaxMinFold<T, true>;
    case HloOpcode::kMinimum: return &FloatMaxMinFold<T, false>;
    default: return nullptr;
  }
}

template <typename T, HloOpcode kOp>
void RowFold4(void* accv, const void* const* rows, int64_t n) {
  T* HWY_RESTRICT_ acc = static_cast<T*>(accv);
  const T* HWY_RESTRICT_ r0 = static_cast<const T*>(rows[0]);
  const T* HWY_RESTRICT_ r1 = static_cast<const T*>(rows[1]);
  const T* HWY_RESTRICT_ r2 = static_cast<const T*>(rows[2]);
  const T* HWY_RESTRICT_ r3 = static_cast<const T*>(rows[3]);
  using C = Wide<T>;
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (kOp == HloOpcode::kAdd) {
      acc[i] = static_cast<T>((((C(acc[i]) + C(r0[i])) + C(r1[i])) + C(r2[i])) + C(r3[i]));
    } else {
      acc[i] = static_cast<T>((((C(acc[i]) * C(r0[i])) * C(r1[i])) * C(r2[i])) * C(r3[i]));
    }
  }
}

template <typename T>
RowFold4Kernel RowFold4For(HloOpcode op) {
  if (op == HloOpcode::kAdd) return &RowFold4<T, HloOpcode::kAdd>;
  if (op == HloOpcode::kMultiply) return &RowFold4<T, HloOpcode::kMultiply>;
  return nullptr;
}

}  // namespace

RowFold4Kernel SelectRowFold4Kernel(HloOpcode op, ElementType type) {
  switch (type) {
    case ElementType::kF32: return RowFold4For<float>(op);
    case ElementType::kF64: return RowFold4For<double>(op);
    case ElementType::kS32: return RowFold4For<int32_t>(op);
    case ElementType::kS64: return RowFold4For<int64_t>(op);
    case ElementType::kU32: return RowFold4For<uint32_t>(op);
    case ElementType::kU64: return RowFold4For<uint64_t>(op);
    default: return nullptr;
  }
}

RunFoldKernel SelectRunFoldKernel(HloOpcode op, ElementType type) {
  switch (type) {
    case ElementType::kF32: return FloatFoldFor<float>(op);
    case ElementType::kF64: return FloatFoldFor<double>(op);
    case ElementType::kBF16: return NarrowFoldFor<true>(op);
    case ElementType::kF16: return NarrowFoldFor<false>(op);
    case ElementType::kS8: return IntFoldFor<int8_t>(op);
    case ElementType::kS16: return IntFoldFor<int16_t>(op);
    case ElementType::kS32: return IntFoldFor<int32_t>(op);
    case ElementType::kS64: return IntFoldFor<int64_t>(op);
    case ElementType::kU8: return IntFoldFor<uint8_t>(op);
    case ElementType::kU16: return IntFoldFor<uint16_t>(op);
    case ElementType::kU32: return IntFoldFor<uint32_t>(op);
    case ElementType::kU64: return IntFoldFor<uint64_t>(op);
    case ElementType::kPred:
      // pred values are 0 or 1: and/or/max/min fold as bytes.
      if (op == HloOpcode::kAnd || op == HloOpcode::kMinimum) return &IntFold<uint8_t, HloOpcode::kMinimum>;
      if (op == HloOpcode::kOr || op == HloOpcode::kMaximum) return &IntFold<uint8_t, HloOpcode::kMaximum>;
      return nullptr;
    default: return nullptr;
  }
}

bool ReduceIdentity(HloOpcode op, ElementType type, void* out) {
  switch (type) {
    case ElementType::kF32: return Identity<float>(op, static_cast<float*>(out));
    case ElementType::kF64: return Identity<double>(op, static_cast<double*>(out));
    case ElementType::kS8: return Identity<int8_t>(op, static_cast<int8_t*>(out));
    case ElementType::kS16: return Identity<int16_t>(op, static_cast<int16_t*>(out));
    case ElementType::kS32: return Identity<int32_t>(op, static_cast<int32_t*>(out));
    case ElementType::kS64: return Identity<int64_t>(op, static_cast<int64_t*>(out));
    case ElementType::kU8: return Identity<uint8_t>(op, static_cast<uint8_t*>(out));
    case ElementType::kU16: return Identity<uint16_t>(op, static_cast<uint16_t*>(out));
    case ElementType::kU32: return Identity<uint32_t>(op, static_cast<uint32_t*>(out));
    case ElementType::kU64: return Identity<uint64_t>(op, static_cast<uint64_t*>(out));
    default: return false;
  }
}

void ReduceRowsBlock(const ReduceGeometry& g, int elem_size, BinaryKernel op, const uint8_t* in,
                     const uint8_t* init, uint8_t* out, int64_t row_begin, int64_t row_end,
                     int64_t col_begin, int64_t col_end, RowFold4Kernel fold4) {
  const int64_t cols = col_end - col_begin;
  if (cols <= 0) return;
  for (int64_t row = row_begin; row < row_end; ++row) {
    uint8_t* o = out + (row * g.inner + col_begin) * elem_size;
    for (int64_t c = 0; c < cols; ++c) std::memcpy(o + c * elem_size, init, elem_size);
    if (g.red_count == 0) continue;
    const int64_t base = OffsetOf(g.kept_sizes, g.kept_strides, row) + col_begin;
    int64_t r = 0;
    if (fold4 != nullptr) {
      const void* rows[4];
      for (; r + 4 <= g.red_count; r += 4) {
        for (int k = 0; k < 4; ++k) {
          rows[k] = in + (base + OffsetOf(g.red_sizes, g.red_strides, r + k)) * elem_size;
        }
        fold4(o, rows, cols);
      }
    }
    for (; r < g.red_count; ++r) {
      const int64_t off = base + OffsetOf(g.red_sizes, g.red_strides, r);
      op(o, in + off * elem_size, o, cols);
    }
  }
}

void ReduceRunsBlock(const ReduceGeometry& g, int elem_size, BinaryKernel op, RunFoldKernel fold,
                     const uint8_t* in, const uint8_t* init, uint8_t* out, int64_t begin,
                     int64_t end, bool cached) {
  int64_t q = begin;
  if (cached && fold == &FloatSumFold<float> && g.red_count == 1 && g.inner > 0) {
    const int64_t red = OffsetOf(g.red_sizes, g.red_strides, 0);
    for (; q + 4 <= end; q += 4) {
      const float* x[4];
      for (int k = 0; k < 4; ++k) {
        x[k] = reinterpret_cast<const float*>(in) + OffsetOf(g.kept_sizes, g.kept_strides, q + k) +
               red;
      }
      float sums[4];
      reduce_internal::HwySum4F32(x, g.inner, sums);
      for (int k = 0; k < 4; ++k) {
        float acc;
        std::memcpy(&acc, init, sizeof(float));
        acc += sums[k];  // as FloatSumFold folds a run
        std::memcpy(out + (q + k) * elem_size, &acc, sizeof(float));
      }
    }
  }
  for (; q < end; ++q) {
    uint8_t* acc = out + q * elem_size;
    std::memcpy(acc, init, elem_size);
    const int64_t base = OffsetOf(g.kept_sizes, g.kept_strides, q);
    for (int64_t r = 0; r < g.red_count; ++r) {
      const uint8_t* x = in + (base + OffsetOf(g.red_sizes, g.red_strides, r)) * elem_size;
      if (fold != nullptr) {
        fold(acc, x, g.inner);
      } else {
        for (int64_t i = 0; i < g.inner; ++i) op(acc, x + i * elem_size, acc, 1);
      }
    }
  }
}

void ReduceRunBlockPartial(int elem_size, BinaryKernel op, RunFoldKernel fold,
                           const uint8_t* identity, const uint8_t* x, int64_t n, int64_t block,
                           uint8_t* partials) {
  const int64_t begin = block * kReduceSplitBlock;
  const int64_t len = std::min(n, begin + kReduceSplitBlock) - begin;
  uint8_t* acc = partials + block * elem_size;
  std::memcpy(acc, identity, elem_size);
  const uint8_t* p = x + begin * elem_size;
  if (fold != nullptr) {
    fold(acc, p, len);
  } else {
    for (int64_t i = 0; i < len; ++i) op(acc, p + i * elem_size, acc, 1);
  }
}

void CombinePartials(int elem_size, BinaryKernel op, uint8_t* partials, int64_t count,
                     uint8_t* acc) {
  if (count <= 0) return;
  for (int64_t s = 1; s < count; s *= 2) {
    for (int64_t i = 0; i + s < count; i += 2 * s) {
      op(partials + i * elem_size, partials + (i + s) * elem_size, partials + i * elem_size, 1);
    }
  }
  op(acc, partials, acc, 1);
}

}  // namespace hlovm
