#include "ops/shape/transpose.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hlovm {
namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

// Bytes of each tile side (256 x 256 f32 elements: source and result tiles
// together fill L2; the 8x8 blocks inside walk the source within L1), of one
// work unit's result and of one parallel chunk.
constexpr int64_t kTileXBytes = 1024;
constexpr int64_t kTileYBytes = 1024;
constexpr int64_t kUnitBytes = 256 * 1024;
constexpr int64_t kChunkBytes = 1024 * 1024;

// 8x8 block with a contiguous source along x: dst[x*dx + y] = src[x + y*sy].
template <typename T>
inline void Block8(const T* __restrict src, T* __restrict dst, int64_t sy, int64_t dx) {
  T r[8][8];
  for (int y = 0; y < 8; ++y) {
    for (int x = 0; x < 8; ++x) r[y][x] = src[y * sy + x];
  }
  for (int x = 0; x < 8; ++x) {
    for (int y = 0; y < 8; ++y) dst[x * dx + y] = r[y][x];
  }
}

// 4-byte elements: the 8x8 block as four 4x4 transposes in 128-bit vectors
// (plain SSE2 / NEON shuffles through GCC's vector extensions).
typedef uint32_t V4u32 __attribute__((vector_size(16)));

inline V4u32 LoadV(const uint32_t* p) {
  V4u32 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

inline void StoreV(uint32_t* p, V4u32 v) { std::memcpy(p, &v, sizeof(v)); }

// Lanes a, b, c, d of the eight in x then y (GCC and clang spell it apart).
#if defined(__clang__)
#define HLOVM_SHUFFLE4(x, y, a, b, c, d) __builtin_shufflevector(x, y, a, b, c, d)
#else
#define HLOVM_SHUFFLE4(x, y, a, b, c, d) __builtin_shuffle(x, y, V4u32{a, b, c, d})
#endif

inline void Block4x4(const uint32_t* __restrict src, uint32_t* __restrict dst, int64_t sy,
                     int64_t dx) {
  const V4u32 r0 = LoadV(src), r1 = LoadV(src + sy), r2 = LoadV(src + 2 * sy),
              r3 = LoadV(src + 3 * sy);
  const V4u32 t0 = HLOVM_SHUFFLE4(r0, r1, 0, 4, 1, 5);
  const V4u32 t1 = HLOVM_SHUFFLE4(r0, r1, 2, 6, 3, 7);
  const V4u32 t2 = HLOVM_SHUFFLE4(r2, r3, 0, 4, 1, 5);
  const V4u32 t3 = HLOVM_SHUFFLE4(r2, r3, 2, 6, 3, 7);
  StoreV(dst, HLOVM_SHUFFLE4(t0, t2, 0, 1, 4, 5));
  StoreV(dst + dx, HLOVM_SHUFFLE4(t0, t2, 2, 3, 6, 7));
  StoreV(dst + 2 * dx, HLOVM_SHUFFLE4(t1, t3, 0, 1, 4, 5));
  StoreV(dst + 3 * dx, HLOVM_SHUFFLE4(t1, t3, 2, 3, 6, 7));
}
#undef HLOVM_SHUFFLE4

template <>
inline void Block8<uint32_t>(const uint32_t* __restrict src, uint32_t* __restrict dst,
                             int64_t sy, int64_t dx) {
  Block4x4(src, dst, sy, dx);
  Block4x4(src + 4, dst + 4 * dx, sy, dx);
  Block4x4(src + 4 * sy, dst + 4, sy, dx);
  Block4x4(src + 4 * sy + 4, dst + 4 * dx + 4, sy, dx);
}

// Any block: dst[x*dx + y] = src[x*sx + y*sy].
template <typename T>
inline void BlockAny(const T* __restrict src, T* __restrict dst, int64_t nx, int64_t ny,
                     int64_t sx, int64_t sy, int64_t dx) {
  for (int64_t x = 0; x < nx; ++x) {
    const T* s = src + x * sx;
    T* d = dst + x * dx;
    for (int64_t y = 0; y < ny; ++y) d[y] = s[y * sy];
  }
}

// One tile of nx x ny elements.
template <typename T>
inline void Tile(const T* src, T* dst, int64_t nx, int64_t ny, int64_t sx, int64_t sy,
                 int64_t dx) {
  if (sx != 1) {
    BlockAny(src, dst, nx, ny, sx, sy, dx);
    return;
  }
  const int64_t nx8 = nx & ~int64_t{7}, ny8 = ny & ~int64_t{7};
  for (int64_t x = 0; x < nx8; x += 8) {
    for (int64_t y = 0; y < ny8; y += 8) {
      Block8(src + x + y * sy, dst + x * dx + y, sy, dx);
    }
    if (ny8 < ny) BlockAny(src + x + ny8 * sy, dst + x * dx + ny8, 8, ny - ny8, 1, sy, dx);
  }
  if (nx8 < nx) BlockAny(src + nx8, dst + nx8 * dx, nx - nx8, ny, 1, sy, dx);
}

template <typename T>
void RunTiled(const TransposePlan& p, const uint8_t* src_bytes, uint8_t* dst_bytes,
              int64_t unit_begin, int64_t unit_end) {
  const T* src = reinterpret_cast<const T*>(src_bytes);
  T* dst = reinterpret_cast<T*>(dst_bytes);
  const int64_t per_batch = p.x_blocks * p.y_panels;
  const int64_t nb = static_cast<int64_t>(p.batch_dims.size());
  for (int64_t u = unit_begin; u < unit_end; ++u) {
    int64_t batch = u / per_batch;
    const int64_t rem = u % per_batch;
    const int64_t xb = rem / p.y_panels, yp = rem % p.y_panels;
    int64_t src_off = 0, dst_off = 0;
    for (int64_t d = nb - 1; d >= 0; --d) {
      const int64_t i = batch % p.batch_dims[d];
      batch /= p.batch_dims[d];
      src_off += i * p.batch_src_strides[d];
      dst_off += i * p.batch_dst_strides[d];
    }
    const int64_t x0 = xb * p.tile_x, x1 = std::min(p.nx, x0 + p.tile_x);
    const int64_t y_begin = yp * p.panel, y_end = std::min(p.ny, y_begin + p.panel);
    for (int64_t y0 = y_begin; y0 < y_end; y0 += p.tile_y) {
      const int64_t y1 = std::min(y_end, y0 + p.tile_y);
      Tile(src + src_off + x0 * p.src_x + y0 * p.src_y, dst + dst_off + x0 * p.dst_x + y0,
           x1 - x0, y1 - y0, p.src_x, p.src_y, p.dst_x);
    }
  }

}

}  // namespace

int64_t TransposePlan::units() const {
  if (element_count == 0) return 0;
  if (row_copy) return copy.rows();
  return batch_count * x_blocks * y_panels;
}

absl::StatusOr<TransposePlan> MakeTransposePlan(int elem_size, absl::Span<const int64_t> dims,
                                                absl::Span<const int64_t> permutation) {
  const size_t rank = dims.size();
  if (permutation.size() != rank) {
    return absl::InvalidArgumentError(absl::StrCat("transpose permutation {",
                                                   absl::StrJoin(permutation, ","),
                                                   "} does not match rank ", rank));
  }
  std::vector<bool> seen(rank, false);
  for (int64_t p : permutation) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "transpose dimensions {", absl::StrJoin(permutation, ","), "} are not a permutation"));
    }
    seen[p] = true;
  }
  if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8 && elem_size != 16) {
    return absl::UnimplementedError(absl::StrCat("transpose of ", elem_size, "-byte elements"));
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(dims);
  std::vector<int64_t> out_dims(rank), src_strides(rank);
  for (size_t k = 0; k < rank; ++k) {
    out_dims[k] = dims[permutation[k]];
    src_strides[k] = in_strides[permutation[k]];
  }
  TransposePlan plan;
  plan.elem_size = elem_size;
  plan.copy = MakeStridedCopyPlan(elem_size, out_dims, src_strides);
  plan.element_count = plan.copy.element_count;
  const std::vector<int64_t>& d = plan.copy.dims;
  const std::vector<int64_t>& s = plan.copy.src_strides;
  const int64_t r = static_cast<int64_t>(d.size());
  if (plan.element_count == 0 || r == 1 || s.back() == 1) {
    plan.row_copy = true;
    const int64_t row_bytes = std::max<int64_t>(1, plan.copy.row_length() * elem_size);
    plan.units_per_chunk = std::max<int64_t>(1, kChunkBytes / row_bytes);
    return plan;
  }
  // The x dimension: the result dimension read with the smallest stride.
  int64_t xi = 0;
  for (int64_t k = 1; k < r - 1; ++k) {
    if (s[k] < s[xi]) xi = k;
  }
  const std::vector<int64_t> dst_strides = RowMajorStrides(d);
  plan.nx = d[xi];
  plan.ny = d[r - 1];
  plan.src_x = s[xi];
  plan.src_y = s[r - 1];
  plan.dst_x = dst_strides[xi];
  for (int64_t k = 0; k < r - 1; ++k) {
    if (k == xi) continue;
    plan.batch_dims.push_back(d[k]);
    plan.batch_src_strides.push_back(s[k]);
    plan.batch_dst_strides.push_back(dst_strides[k]);
    plan.batch_count *= d[k];
  }
  plan.tile_x = std::max<int64_t>(8, kTileXBytes / elem_size);
  plan.tile_y = std::max<int64_t>(8, kTileYBytes / elem_size);
  plan.x_blocks = (plan.nx + plan.tile_x - 1) / plan.tile_x;
  // A unit is one tile row (tile x values) over a panel of columns sized so
  // that it writes about kUnitBytes.
  const int64_t tiles_per_panel =
      std::max<int64_t>(1, kUnitBytes / (plan.tile_x * plan.tile_y * elem_size));
  plan.panel = std::min(plan.ny, tiles_per_panel * plan.tile_y);
  plan.y_panels = (plan.ny + plan.panel - 1) / plan.panel;
  const int64_t unit_bytes = std::max<int64_t>(1, plan.tile_x * plan.panel * elem_size);
  plan.units_per_chunk = std::max<int64_t>(1, kChunkBytes / unit_bytes);
  return plan;
}

namespace {

// Calls fn(T{}) with T the element type of `elem_size` bytes (1, 2, 4, 8 or
// 16); nothing for another size.
template <class Fn>
void WithElementOfSize(int elem_size, Fn&& fn) {
  switch (elem_size) {
    case 1: return fn(uint8_t{});
    case 2: return fn(uint16_t{});
    case 4: return fn(uint32_t{});
    case 8: return fn(uint64_t{});
    case 16: return fn(Bytes16{});
    default: return;
  }
}

}  // namespace

void TransposeBlock(int elem_size, const void* src_v, void* dst_v, int64_t nx, int64_t ny,
                    int64_t sy, int64_t dx) {
  const uint8_t* src = static_cast<const uint8_t*>(src_v);
  uint8_t* dst = static_cast<uint8_t*>(dst_v);
  WithElementOfSize(elem_size, [&](auto element) {
    using T = decltype(element);
    Tile(reinterpret_cast<const T*>(src), reinterpret_cast<T*>(dst), nx, ny, 1, sy, dx);
  });
}

void RunTranspose(const TransposePlan& plan, const void* src_v, void* dst_v, int64_t unit_begin,
                  int64_t unit_end) {
  if (plan.element_count == 0 || unit_begin >= unit_end) return;
  const uint8_t* src = static_cast<const uint8_t*>(src_v);
  uint8_t* dst = static_cast<uint8_t*>(dst_v);
  if (plan.row_copy) {
    RunStridedCopy(plan.copy, src, dst, unit_begin, unit_end);
    return;
  }
  WithElementOfSize(plan.elem_size, [&](auto element) {
    RunTiled<decltype(element)>(plan, src, dst, unit_begin, unit_end);
  });
}

}  // namespace hlovm
