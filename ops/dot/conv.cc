#include "ops/dot/conv.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "core/thread_scratch.h"
#include "hwy/aligned_allocator.h"
#include "ops/dot/dot.h"

namespace hlovm {
namespace {

// Target bytes of one im2col tile (an L2-sized block of rows).
constexpr int64_t kTileBytes = 512 * 1024;

int64_t AlignUp(int64_t n) { return (n + 63) / 64 * 64; }

std::vector<int64_t> RowMajorStrides(const Shape& s) {
  std::vector<int64_t> st(s.rank(), 1);
  for (int64_t i = s.rank() - 2; i >= 0; --i) st[i] = st[i + 1] * s.dimensions(i + 1);
  return st;
}

// Copies of one compute-type element.
struct Bytes16 {
  uint64_t w[2];
};

// The input element offset (spatial dimensions [0, dims)) that output
// position `op` reads at window position `ks`, or -1 where that is padding
// or a dilation hole.
int64_t InputOffset(const ConvPlan& p, const int64_t* op, const int64_t* ks, int dims) {
  int64_t off = 0;
  for (int d = 0; d < dims; ++d) {
    const int64_t ix = p.in_index[d][op[d] * p.k_sp_size[d] + ks[d]];
    if (ix < 0) return -1;
    off += ix * p.in_sp_stride[d];
  }
  return off;
}

// Steps `index` (dimensions [0, dims) of sizes `sizes`) to the next
// position in row-major order; false when it wraps round to all zeros.
bool StepIndex(int64_t* index, const std::vector<int64_t>& sizes, int dims) {
  for (int d = dims - 1; d >= 0; --d) {
    if (++index[d] < sizes[d]) return true;
    index[d] = 0;
  }
  return false;
}

// Direct path: calls f(w, offset) for each window row w
// (ConvPlan::row_windows) of the output position `op`, with the element
// offset within a batch's input that the row starts at, or -1 where it
// reads padding.
template <typename F>
void WindowOffsets(const ConvPlan& p, const int64_t* op, F&& f) {
  int64_t ks[8] = {0};
  for (int64_t w = 0; w < p.row_windows; ++w) {
    f(w, InputOffset(p, op, ks, p.nsp));
    // Whole window rows step the dimensions before the last one.
    StepIndex(ks, p.k_sp_size, p.row_windows == p.ksp ? p.nsp : p.nsp - 1);
  }
}

// ConvBuffers::finite on the direct path holds two words (window positions
// below 64) for each block of terms of each strip of tile_cols columns of
// each group: the index of the first of them for group t, the strip at
// column `col` and the block at term k0. Group p.groups gives their count.
int64_t FiniteWordIndex(const ConvPlan& p, int64_t t, int64_t col, int64_t k0) {
  const int64_t strips = (p.og + p.tile_cols - 1) / p.tile_cols;
  const int64_t k_block = std::max<int64_t>(1, p.k_block);
  const int64_t blocks = (p.kdim + k_block - 1) / k_block;
  return ((t * strips + col / p.tile_cols) * blocks + k0 / k_block) * 2;
}

// Bytes of ConvBuffers::finite.
int64_t FiniteStates(const ConvPlan& p) {
  return FiniteWordIndex(p, p.groups, 0, 0) * static_cast<int64_t>(sizeof(uint64_t));
}

// Bytes of the packed kernel: per group a [window position x feature] by
// output feature matrix, or for the direct (depthwise, planar) paths
// [window position][feature] and a row of zeros.
int64_t PackedBytes(const ConvPlan& p) {
  if (p.depthwise || p.planar) return AlignUp((p.ksp + 1) * p.channels() * p.csize);
  if (p.direct) {
    // The kernel padded to ldk columns (unless read in place), the states
    // of ConvBuffers::finite, then a padding row of row_features zeros.
    return (p.kernel_as_is ? 0 : AlignUp(p.groups * p.kdim * p.ldk * p.csize)) +
           AlignUp(FiniteStates(p)) + AlignUp(p.row_features * p.csize);
  }
  return p.kernel_as_is || p.group_lanes ? 0 : AlignUp(p.groups * p.kdim * p.og * p.csize);
}

// Whether PackKernel would copy the kernel unchanged (see
// ConvPlan::kernel_as_is): element (w, c, j) of the packed matrix sits at
// (w * cg + c) * og + j of the kernel.
bool KernelIsPacked(const ConvPlan& p) {
  if (p.rhs_convert != nullptr || p.groups != 1 || p.k_out_stride != 1 || p.k_in_stride != p.og) {
    return false;
  }
  int64_t ks[8] = {0};
  for (int64_t w = 0; w < p.ksp; ++w) {
    int64_t off = 0;
    for (int d = 0; d < p.nsp; ++d) off += p.k_index[d][ks[d]] * p.k_sp_stride[d];
    if (off != w * p.cg * p.og) return false;
    StepIndex(ks, p.k_sp_size, p.nsp);
  }
  return true;
}

// Scratch of every path: the converted input, the packed kernel and the
// compute-type result.
int64_t ScratchBytes(const ConvPlan& p) {
  int64_t s = PackedBytes(p);
  if (p.convert_in_units) return s;
  if (p.lhs_convert != nullptr) s += AlignUp(p.lhs_count * p.csize);
  if (p.result_convert != nullptr) s += AlignUp(p.out_count * p.csize);
  return s;
}

template <typename T>
void GatherRow(const ConvPlan& p, const uint8_t* lhs_base, const int64_t* op, uint8_t* dst_bytes) {
  // lhs_base points at (batch, first feature of the group) of the lhs.
  T* dst = reinterpret_cast<T*>(dst_bytes);
  const T* src = reinterpret_cast<const T*>(lhs_base);
  int64_t ks[8] = {0};
  const int nsp = p.nsp;
  for (int64_t w = 0; w < p.ksp; ++w) {
    const int64_t off = InputOffset(p, op, ks, nsp);
    T* row = dst + w * p.cg;
    if (off < 0) {
      std::memset(static_cast<void*>(row), 0, sizeof(T) * p.cg);
    } else if (p.in_feat_stride == 1) {
      std::memcpy(static_cast<void*>(row), src + off, sizeof(T) * p.cg);
    } else {
      const T* s = src + off;
      for (int64_t c = 0; c < p.cg; ++c) row[c] = s[c * p.in_feat_stride];
    }
    StepIndex(ks, p.k_sp_size, nsp);
  }
}

// The kernel as [group][kdim][ld]: `ld` elements a row (og or more), the
// ones past og cleared.
template <typename T>
void PackKernel(const ConvPlan& p, const uint8_t* rhs_bytes, uint8_t* packed_bytes, int64_t ld) {
  const T* rhs = reinterpret_cast<const T*>(rhs_bytes);
  T* packed = reinterpret_cast<T*>(packed_bytes);
  int64_t ks[8] = {0};
  for (int64_t w = 0; w < p.ksp; ++w) {
    int64_t off = 0;
    for (int d = 0; d < p.nsp; ++d) off += p.k_index[d][ks[d]] * p.k_sp_stride[d];
    for (int64_t t = 0; t < p.groups; ++t) {
      for (int64_t c = 0; c < p.cg; ++c) {
        T* dst = packed + (t * p.kdim + w * p.cg + c) * ld;
        const T* src = rhs + off + c * p.k_in_stride + t * p.og * p.k_out_stride;
        for (int64_t j = 0; j < p.og; ++j) dst[j] = src[j * p.k_out_stride];
        std::fill(dst + p.og, dst + ld, T{});
      }
    }
    StepIndex(ks, p.k_sp_size, p.nsp);
  }
}

// A row of the flattened (output batch, output position) space: its batch
// index and spatial position, stepped row by row.
struct RowCursor {
  int64_t n = 0;
  int64_t op[8] = {0};
  RowCursor(const ConvPlan& p, int64_t row) {
    n = row / p.s_out;
    int64_t rem = row % p.s_out;
    for (int d = p.nsp - 1; d >= 0; --d) {
      op[d] = rem % p.out_sp_size[d];
      rem /= p.out_sp_size[d];
    }
  }
  void Next(const ConvPlan& p) {
    if (!StepIndex(op, p.out_sp_size, p.nsp)) ++n;
  }
};

// The tile holds `cols` features of each row (from feature col0 of the
// group on).
template <typename T>
void ScatterTile(const ConvPlan& p, const uint8_t* tile_bytes, int64_t rows, int64_t row0,
                 int64_t col0, int64_t cols, uint8_t* out_bytes, int64_t group_base) {
  const T* tile = reinterpret_cast<const T*>(tile_bytes);
  T* out = reinterpret_cast<T*>(out_bytes) + group_base + col0 * p.out_feat_stride;
  RowCursor at(p, row0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t off = at.n * p.out_batch_stride;
    for (int d = 0; d < p.nsp; ++d) off += at.op[d] * p.out_sp_stride[d];
    const T* src = tile + r * cols;
    T* dst = out + off;
    if (p.out_feat_stride == 1) {
      std::memcpy(static_cast<void*>(dst), src, sizeof(T) * cols);
    } else {
      for (int64_t j = 0; j < cols; ++j) dst[j * p.out_feat_stride] = src[j];
    }
    at.Next(p);
  }
}

// With `sink` (f32, one group, result rows contiguous: ConvUnitsTo), each
// tile's sums go to the sink instead of the result.
using SumsSink = absl::FunctionRef<void(const float* sums, int64_t begin, int64_t end)>;

template <typename T>
void RunUnitsT(const ConvPlan& p, const ConvBuffers& bufs, int64_t unit_begin, int64_t unit_end,
               const SumsSink* sink = nullptr) {
  const int64_t a_bytes = AlignUp(p.rows_per_tile * std::max<int64_t>(p.kdim, 1) * p.csize);
  struct ConvTile;
  uint8_t* a = ThreadScratch<ConvTile>(p.tile_bytes);
  uint8_t* c = a + a_bytes;
  // Units are (group, part of the features, tile of rows); a row is an
  // (output batch, output position) pair, so that a tile spans batch
  // elements where each has few positions (a weight gradient's 1x1 output).
  const int64_t total_rows = p.out_batch * p.s_out;
  for (int64_t u = unit_begin; u < unit_end; ++u) {
    const int64_t tile = u % p.tiles;
    const int64_t part = u / p.tiles % p.col_parts;
    const int64_t t = u / p.tiles / p.col_parts;
    const int64_t row0 = tile * p.rows_per_tile;
    const int64_t rows = std::min(p.rows_per_tile, total_rows - row0);
    const int64_t col0 = part * p.cols_per_part;
    const int64_t cols = std::min(p.og, col0 + p.cols_per_part) - col0;
    const int64_t feat0 = p.batch_groups ? 0 : t * p.cg;
    const bool in_place = p.tiles_in_place && cols == p.og;
    uint8_t* tile_c = in_place ? bufs.out + row0 * p.og * p.csize : c;
    if (p.kdim == 0) {
      std::memset(tile_c, 0, static_cast<size_t>(rows * cols * p.csize));
    } else {
      const uint8_t* tile_a = a;
      if (p.rows_in_place) {
        tile_a = bufs.lhs + row0 * p.kdim * p.csize;
      } else {
        RowCursor at(p, row0);
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t in_batch = p.batch_groups ? t * p.out_batch + at.n : at.n;
          const uint8_t* lhs_base =
              bufs.lhs + (in_batch * p.in_batch_stride + feat0 * p.in_feat_stride) * p.csize;
          GatherRow<T>(p, lhs_base, at.op, a + r * p.kdim * p.csize);
          at.Next(p);
        }
      }
      GemmDims dims;
      dims.batch = 1;
      dims.m = rows;
      dims.k = p.kdim;
      dims.n = cols;
      if (cols < p.og) {  // the kernel's columns [col0, col0 + cols)
        dims.use_strides = true;
        dims.a_sm = p.kdim;
        dims.a_sk = 1;
        dims.b_sk = p.og;
        dims.b_sn = 1;
      }
      p.gemm.RunAll(tile_a, bufs.packed + (t * p.kdim * p.og + col0) * p.csize, tile_c, dims);
    }
    if (sink != nullptr && cols == p.og) {
      (*sink)(reinterpret_cast<const float*>(tile_c), row0 * p.og, (row0 + rows) * p.og);
    } else if (sink != nullptr) {  // one group: rows p.og apart
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t begin = (row0 + r) * p.og + col0;
        (*sink)(reinterpret_cast<const float*>(c) + r * cols, begin, begin + cols);
      }
    } else if (!in_place) {
      ScatterTile<T>(p, c, rows, row0, col0, cols, bufs.out, t * p.og * p.out_feat_stride);
    }
  }
}

// Whether the kernel's terms at the window positions of `windows` (bits)
// within terms [k0, k1) (block k0 / k_block), columns [col, col + ncols)
// of group t (col a multiple of tile_cols), are all finite: multiplied by
// padding's zeros they then add exactly nothing to a sum. `strip` is term
// k0's row there (rows p.ldk apart). Each window position of each block
// and strip is looked at once a call, by the first unit that asks
// (ConvBuffers::finite); a unit on another thread that asks meanwhile may
// take the terms for not finite, and keeps them (which gives the same
// bits).
bool PaddingTermsVanish(const ConvPlan& p, const ConvBuffers& bufs, int64_t t, int64_t col,
                        uint64_t windows, int64_t k0, int64_t k1, const float* strip,
                        int64_t ncols) {
  const int64_t cg = p.row_features;
  uint64_t* state = bufs.finite + FiniteWordIndex(p, t, col, k0);
  std::atomic_ref<uint64_t> finite(state[0]), known(state[1]);
  const uint64_t unknown = windows & ~known.load(std::memory_order_acquire);
  uint64_t found = 0;
  for (uint64_t left = unknown; left != 0; left &= left - 1) {
    const int64_t w = std::countr_zero(left);
    const int64_t from = std::max(k0, w * cg), to = std::min(k1, (w + 1) * cg);
    if (from >= to ||
        conv_internal::HwyAllFiniteF32(strip + (from - k0) * p.ldk, to - from, ncols, p.ldk)) {
      found |= uint64_t{1} << w;
    }
  }
  if (unknown != 0) {
    finite.fetch_or(found, std::memory_order_relaxed);
    known.fetch_or(unknown, std::memory_order_release);
  }
  return (windows & ~(finite.load(std::memory_order_relaxed) | found)) == 0;
}

// Direct path (ConvPlan::direct): per unit, the input row each output row
// reads at every window position is located once (features contiguous; the
// zeros where the window reads padding); then per block of terms, per
// column strip, per tile of tile_rows rows, the register tile continues the
// sums. Whole tiles sum in the output itself, the others in a thread buffer
// copied out at the end.
// With epilogue steps (ConvUnitsWithEpilogue), the whole tiles apply them
// as they store the last block of terms, and the tiles copied out of the
// buffer once copied.
void DirectUnits(const ConvPlan& p, const ConvBuffers& bufs, int64_t unit_begin,
                 int64_t unit_end, const ConvEpilogueStep* steps = nullptr, int nsteps = 0) {
  const int64_t tr = p.tile_rows, tc = p.tile_cols;
  const int64_t row_tiles = p.rows_per_block / tr;
  struct DirectRows;
  const int64_t ptr_bytes = AlignUp(static_cast<int64_t>(sizeof(float*)) * p.ksp * p.rows_per_block);
  const int64_t part_bytes =
      AlignUp(static_cast<int64_t>(sizeof(float)) * p.rows_per_block * p.cols_per_block);
  const int64_t skip_bytes = AlignUp(static_cast<int64_t>(sizeof(uint64_t)) * row_tiles);
  uint8_t* scratch = ThreadScratch<DirectRows>(ptr_bytes + part_bytes + skip_bytes);
  const float** rows = reinterpret_cast<const float**>(scratch);
  float* part = reinterpret_cast<float*>(scratch + ptr_bytes);  // [row][col] of the block
  uint64_t* skip = reinterpret_cast<uint64_t*>(scratch + ptr_bytes + part_bytes);
  const float* lhs = reinterpret_cast<const float*>(bufs.lhs);
  const float* kernel = reinterpret_cast<const float*>(bufs.packed);
  float* out = reinterpret_cast<float*>(bufs.out);
  const int64_t ldo = p.channels();
  const int64_t total_rows = p.out_batch * p.s_out;
  const int64_t per_group = p.row_blocks * p.col_blocks;
  for (int64_t u = unit_begin; u < unit_end; ++u) {
    const int64_t t = u / per_group;
    const int64_t cb = (u % per_group) / p.row_blocks;
    const int64_t rb = u % p.row_blocks;
    const int64_t row0 = rb * p.rows_per_block;
    const int64_t nrows = std::min(total_rows, row0 + p.rows_per_block) - row0;
    const int64_t j0 = cb * p.cols_per_block;
    const int64_t ncols = std::min(p.og, j0 + p.cols_per_block) - j0;
    const int64_t strips = (ncols + tc - 1) / tc;
    const float* kt = kernel + t * p.kdim * p.ldk + j0;
    RowCursor at(p, row0);
    const bool table = !p.window_offsets.empty();
    // The table's batch element and position of row row0 + r.
    int64_t batch = row0 / p.s_out, pos = row0 % p.s_out;
    // Bit w of `reads`: a row of the tile reads input at window position w
    // (w < 64); of `pads`: a row reads padding there. skip[i] has the
    // window positions where tile i leaves out what its padding rows would
    // add: the whole window position where it reads only padding (a tile
    // within the first or last output row of an image, whose window's first
    // or last row lies outside), and, in a whole wide tile, the one row at
    // an image's left or right edge that reads padding
    // (HwyDirectConvTilesF32). The tall tile is given only the former.
    const uint64_t windows = p.row_windows < 64    ? (uint64_t{1} << p.row_windows) - 1
                             : p.row_windows == 64 ? ~uint64_t{0}
                                                   : 0;
    uint64_t skipped = 0;
    for (int64_t i = 0; i < row_tiles; ++i) {
      const int64_t first = i * tr;
      const float** tile = rows + first * p.row_windows;
      uint64_t reads = 0, pads = 0;
      const int64_t end = std::min(first + tr, nrows);
      int64_t r = first;
      if (table) {
        // The rows of one batch element, a run of the table's columns at
        // a time (a whole tile at once, a vector of rows at a time).
        while (r < end) {
          const int64_t n = std::min(end - r, p.s_out - pos);
          reads |= conv_internal::HwyDirectTileInputs(
              p.window_offsets.data() + pos, p.s_out, p.row_windows, n, tr,
              lhs + batch * p.in_batch_stride + t * p.cg, bufs.zeros, tile + (r - first), &pads);
          r += n;
          if ((pos += n) == p.s_out) {
            pos = 0;
            ++batch;
          }
        }
      }
      for (; r < end; ++r) {
        const float** row = tile + (r - first);
        const float* in = lhs + at.n * p.in_batch_stride + t * p.cg;
        WindowOffsets(p, at.op, [&](int64_t w, int64_t off) {
          row[w * tr] = off >= 0 ? in + off : bufs.zeros;
          reads |= static_cast<uint64_t>(off >= 0) << (w & 63);
          pads |= static_cast<uint64_t>(off < 0) << (w & 63);
        });
        at.Next(p);
      }
      for (; r < first + tr; ++r) {
        for (int64_t w = 0; w < p.row_windows; ++w) tile[w * tr + (r - first)] = bufs.zeros;
      }
      skip[i] = windows & (p.tile_shape == 1 ? pads | ~reads : ~reads);
      skipped |= skip[i];
    }
    float* o = out + row0 * ldo + t * p.og + j0;
    const int64_t used_tiles = (nrows + tr - 1) / tr;
    for (int64_t k0 = 0; k0 < p.kdim; k0 += p.k_block) {
      const int64_t k1 = std::min(p.kdim, k0 + p.k_block);
      const bool final_block = k1 == p.kdim;
      // The windows [w0, w1] of this block of terms that some tile leaves
      // out (skipped is 0 unless every window is below 64).
      const int64_t w0 = k0 / p.row_features, w1 = (k1 - 1) / p.row_features;
      const uint64_t block_skipped =
          skipped == 0 ? 0
                       : skipped & (w1 == 63 ? ~uint64_t{0} : (uint64_t{2} << w1) - 1) &
                             ~((uint64_t{1} << w0) - 1);
      for (int64_t s = 0; s < strips; ++s) {
        // The strip's block of the kernel, read in place: the first tile
        // brings it into L1 for the others.
        const float* strip = kt + k0 * p.ldk + s * tc;
        // The whole tiles of whole columns (tiles [i0, i1)), summed in the
        // result; the rest in the buffer.
        const int64_t whole = (s + 1) * tc <= ncols ? nrows / tr : 0;
        const auto whole_tiles = [&](int64_t i0, int64_t i1, const uint64_t* tile_skip) {
          const int64_t shift = i0 * tr * ldo;
          conv_internal::HwyDirectConvTilesF32(
              p.tile_shape, rows + i0 * p.row_windows * tr, i1 - i0, p.row_windows * tr,
              p.row_features, k0, k1, strip, p.ldk, k0 == 0, o + s * tc + shift, ldo,
              tile_skip != nullptr ? tile_skip + i0 : nullptr, bufs.zeros,
              final_block ? steps : nullptr, final_block ? nsteps : 0,
              row0 * ldo + t * p.og + j0 + s * tc + shift);
        };
        const uint64_t* strip_skip = nullptr;
        if (block_skipped == 0) {
          whole_tiles(0, whole, nullptr);
        } else {
          // Tiles leave out the windows where they read only padding,
          // unless the kernel's rows there hold an infinity or NaN (0 * inf
          // is NaN). The others run first, so that the check finds those
          // rows in cache.
          const auto runs = [&](bool skipping, const uint64_t* tile_skip) {
            for (int64_t i0 = 0, i1; i0 < whole; i0 = i1) {
              const bool leaves = (skip[i0] & block_skipped) != 0;
              for (i1 = i0 + 1; i1 < whole && ((skip[i1] & block_skipped) != 0) == leaves;) ++i1;
              if (leaves == skipping) whole_tiles(i0, i1, tile_skip);
            }
          };
          runs(false, nullptr);
          if (PaddingTermsVanish(p, bufs, t, j0 + s * tc, block_skipped, k0, k1, strip,
                                 std::min(tc, ncols - s * tc))) {
            strip_skip = skip;
          }
          runs(true, strip_skip);
        }
        for (int64_t i = whole; i < used_tiles; ++i) {
          conv_internal::HwyDirectConvTileF32(
              p.tile_shape, rows + i * p.row_windows * tr, std::min(tr, nrows - i * tr),
              p.row_features, k0, k1, strip, p.ldk, k0 == 0,
              part + i * tr * p.cols_per_block + s * tc, p.cols_per_block,
              strip_skip != nullptr ? strip_skip[i] : 0, bufs.zeros);
        }
      }
    }
    // The tiles summed in the buffer: a partial last row tile, a partial
    // last column strip.
    for (int64_t r = 0; r < nrows; ++r) {
      const bool row_whole = r < nrows / tr * tr;
      const int64_t from = row_whole ? ncols / tc * tc : 0;
      if (from < ncols) {
        std::memcpy(o + r * ldo + from, part + r * p.cols_per_block + from,
                    static_cast<size_t>(ncols - from) * sizeof(float));
        if (nsteps > 0) {
          conv_internal::HwyConvEpilogueF32(steps, nsteps, o + r * ldo + from, o + r * ldo + from,
                                            (row0 + r) * ldo + t * p.og + j0 + from, ncols - from,
                                            ldo);
        }
      }
    }
  }
}

void DepthwiseUnits(const ConvPlan& p, const ConvBuffers& bufs, int64_t unit_begin,
                    int64_t unit_end) {
  const int64_t channels = p.channels();
  const float* lhs = reinterpret_cast<const float*>(bufs.lhs);
  const float* kernel = reinterpret_cast<const float*>(bufs.packed);
  const float* zeros = kernel + p.ksp * channels;
  float* out = reinterpret_cast<float*>(bufs.out);
  std::vector<const float*> rows(static_cast<size_t>(p.ksp * p.rows_per_tile));
  std::vector<float*> outs(static_cast<size_t>(p.rows_per_tile));
  for (int64_t u = unit_begin; u < unit_end; ++u) {
    const int64_t tile = u % p.tiles;
    const int64_t n = u / p.tiles;
    const int64_t row0 = tile * p.rows_per_tile;
    const int64_t count = std::min(p.rows_per_tile, p.s_out - row0);
    RowCursor at(p, row0);  // of the positions of batch element n
    const int64_t* op = at.op;
    const float* in_n = lhs + n * p.in_batch_stride;
    for (int64_t r = 0; r < count; ++r) {
      int64_t ks[8] = {0};
      for (int64_t w = 0; w < p.ksp; ++w) {
        const int64_t off = InputOffset(p, op, ks, p.nsp);
        rows[static_cast<size_t>(r * p.ksp + w)] = off >= 0 ? in_n + off : zeros;
        StepIndex(ks, p.k_sp_size, p.nsp);
      }
      int64_t ooff = n * p.out_batch_stride;
      for (int d = 0; d < p.nsp; ++d) ooff += op[d] * p.out_sp_stride[d];
      outs[static_cast<size_t>(r)] = out + ooff;
      at.Next(p);
    }
    conv_internal::HwyDepthwiseF32(rows.data(), kernel, p.ksp, channels, count, outs.data());
  }
}

// Depthwise by channel columns (ConvPlan::depthwise_columns): per unit, the
// block's kernel columns [window position][lane] (zeros past the channels),
// then one call that fills the block's plane and computes its outputs.
void DepthwiseColumnUnits(const ConvPlan& p, const ConvBuffers& bufs, int64_t unit_begin,
                          int64_t unit_end) {
  const int64_t channels = p.channels();
  const int64_t lanes = p.column_lanes;
  const int64_t span = lanes * p.column_blocks;  // channels of a unit
  const int64_t spans = (channels + span - 1) / span;
  const float* kernel = reinterpret_cast<const float*>(bufs.packed);
  struct ColumnPlane;
  float* plane = reinterpret_cast<float*>(ThreadScratch<ColumnPlane>(
      static_cast<int64_t>(sizeof(float)) * (p.pad_h * p.pad_w + p.ksp) * lanes));
  float* weights = plane + p.pad_h * p.pad_w * lanes;
  conv_internal::DepthwiseColumnArgs a;
  a.in_bf16 = p.lhs_esize == 2;
  a.in_row = p.in_sp_stride[0];
  a.in_col = p.in_sp_stride[1];
  a.in_h = p.in_h;
  a.in_w = p.in_width;
  a.plane = plane;
  a.pad_h = p.pad_h;
  a.pad_w = p.pad_w;
  a.pad_top = p.pad_top;
  a.pad_left = p.pad_left;
  a.weights = weights;
  a.kh = p.k_sp_size[0];
  a.kw = p.k_sp_size[1];
  a.sh = p.stride_h;
  a.sw = p.stride_w;
  a.dh = p.dil_h;
  a.dw = p.dil_w;
  a.oh = p.out_sp_size[0];
  a.ow = p.out_sp_size[1];
  a.out_bf16 = p.out_esize == 2;
  a.out_row = p.out_sp_stride[0];
  a.out_col = p.out_sp_stride[1];
  for (int64_t u = unit_begin; u < unit_end; ++u) {
    const int64_t n = u / spans;
    for (int64_t c0 = (u % spans) * span; c0 < std::min(channels, (u % spans + 1) * span);
         c0 += lanes) {
      a.lanes = std::min(lanes, channels - c0);
      for (int64_t w = 0; w < p.ksp; ++w) {
        for (int64_t l = 0; l < lanes; ++l) {
          weights[w * lanes + l] = l < a.lanes ? kernel[w * channels + c0 + l] : 0.0f;
        }
      }
      a.in = bufs.lhs + (n * p.in_batch_stride + c0) * p.lhs_esize;
      a.out = bufs.out + (n * p.out_batch_stride + c0) * p.out_esize;
      conv_internal::HwyDepthwiseColumnsF32(a);
    }
  }
}

// Thread scratch of the planar path: the output row's sums, a gathered
// input row and a row of zeros.
struct PlanarRows;

void PlanarUnits(const ConvPlan& p, const ConvBuffers& bufs, int64_t unit_begin,
                 int64_t unit_end) {
  const int64_t channels = p.channels();
  const int L = p.nsp - 1;
  const int64_t width = p.out_sp_size[L];
  const int64_t kw = p.k_sp_size[L];
  const int64_t out_rows = p.s_out / std::max<int64_t>(width, 1);
  const int64_t outer_taps = p.ksp / kw;
  const float* lhs = reinterpret_cast<const float*>(bufs.lhs);
  const float* kernel = reinterpret_cast<const float*>(bufs.packed);
  float* out = reinterpret_cast<float*>(bufs.out);
  const int64_t row_floats = (width + 15) / 16 * 16;
  float* acc = reinterpret_cast<float*>(
      ThreadScratch<PlanarRows>(static_cast<size_t>(3 * row_floats) * sizeof(float)));
  float* gathered = acc + row_floats;
  float* zeros = gathered + row_floats;
  std::fill(zeros, zeros + width, 0.0f);
  const std::vector<int64_t>& last_index = p.in_index[L];
  if (p.planar_padded) {
    struct PaddedPlane;
    const int64_t plane = p.pad_h * p.pad_w;
    const int64_t out_plane = p.convert_in_units ? p.s_out : 0;
    const int64_t in_plane = p.convert_in_units && !p.widen_bf16_rows ? p.in_h * p.in_width : 0;
    float* padded = reinterpret_cast<float*>(ThreadScratch<PaddedPlane>(
        static_cast<int64_t>(sizeof(float)) * (plane + 64 + p.ksp + out_plane + in_plane)));
    float* weights = padded + plane + 64;
    float* sums = weights + p.ksp;  // convert_in_units: the output plane in f32
    float* widened = sums + out_plane;  // convert_in_units but not bf16: the input plane in f32
    const bool plane_contiguous = p.in_sp_stride[0] == p.in_width;
    const uint8_t* raw_in = bufs.lhs;
    uint8_t* raw_out = bufs.out;
    std::fill(padded, padded + plane + 64, 0.0f);
    const int64_t kh = p.k_sp_size[0], kw = p.k_sp_size[1];
    for (int64_t u = unit_begin; u < unit_end; ++u) {
      const int64_t n = u / channels;
      const int64_t c = u % channels;
      const int64_t in_off = n * p.in_batch_stride + c * p.in_feat_stride;
      const int64_t out_off = n * p.out_batch_stride + c * p.out_feat_stride;
      // Only the input's own cells change between planes: the padding
      // stays zero.
      const int64_t copy_w = std::min(p.in_width, p.pad_w - p.pad_left);
      const int64_t copy_h = std::min(p.in_h, p.pad_h - p.pad_top);
      if (p.widen_bf16_rows) {
        // bf16 rows widen into the padded plane, all in one call (15%
        // faster on the depthwise model than a conversion call a row).
        conv_internal::HwyWidenBF16Rows(reinterpret_cast<const uint16_t*>(raw_in) + in_off,
                                        p.in_sp_stride[0],
                                        padded + p.pad_top * p.pad_w + p.pad_left, p.pad_w,
                                        copy_h, copy_w);
      } else {
        // Otherwise a contiguous input plane converts in one call.
        if (p.convert_in_units && plane_contiguous) {
          p.lhs_convert(raw_in + in_off * p.lhs_esize, widened, in_plane);
        }
        for (int64_t y = 0; y < copy_h; ++y) {
          float* dst = padded + (p.pad_top + y) * p.pad_w + p.pad_left;
          const int64_t src = in_off + y * p.in_sp_stride[0];
          if (p.convert_in_units && plane_contiguous) {
            std::memcpy(dst, widened + y * p.in_width, static_cast<size_t>(copy_w) * sizeof(float));
          } else if (p.convert_in_units) {
            p.lhs_convert(raw_in + src * p.lhs_esize, dst, copy_w);
          } else {
            std::memcpy(dst, lhs + src, static_cast<size_t>(copy_w) * sizeof(float));
          }
        }
      }
      for (int64_t w = 0; w < p.ksp; ++w) weights[w] = kernel[w * channels + c];
      conv_internal::HwyPlanarPaddedPlaneF32(
          padded, p.pad_w, p.out_sp_size[0], p.out_sp_size[1], kh, kw, p.stride_h, p.stride_w,
          p.dil_h, p.dil_w, weights, p.convert_in_units ? sums : out + out_off,
          p.convert_in_units ? p.out_sp_size[1] : p.out_sp_stride[0]);
      if (p.convert_in_units) p.result_convert(sums, raw_out + out_off * p.out_esize, p.s_out);
    }
    return;
  }
  for (int64_t u = unit_begin; u < unit_end; ++u) {
    const int64_t n = u / channels;
    const int64_t c = u % channels;
    const float* in_plane = lhs + n * p.in_batch_stride + c * p.in_feat_stride;
    float* out_plane = out + n * p.out_batch_stride + c * p.out_feat_stride;
    int64_t op[8] = {0};
    for (int64_t row = 0; row < out_rows; ++row) {
      std::fill(acc, acc + width, 0.0f);
      int64_t ks[8] = {0};
      for (int64_t t = 0; t < outer_taps; ++t) {
        // The input row this outer window position reads, if any.
        const int64_t off = InputOffset(p, op, ks, L);
        const bool valid = off >= 0;
        const float* in_row = valid ? in_plane + off : in_plane;
        for (int64_t k = 0; k < kw; ++k) {
          const float weight = kernel[(t * kw + k) * channels + c];
          if (!valid) {
            conv_internal::HwyFmaRowF32(zeros, weight, acc, width);
            continue;
          }
          if (p.row_contig[k]) {
            const int64_t x0 = p.row_x0[k], x1 = p.row_x1[k];
            conv_internal::HwyFmaRowF32(zeros, weight, acc, x0);
            conv_internal::HwyFmaRowF32(in_row + x0 + p.row_off[k], weight, acc + x0, x1 - x0);
            conv_internal::HwyFmaRowF32(zeros, weight, acc + x1, width - x1);
            continue;
          }
          for (int64_t x = 0; x < width; ++x) {
            const int64_t ix = last_index[x * kw + k];
            gathered[x] = ix < 0 ? 0.0f : in_row[ix];
          }
          conv_internal::HwyFmaRowF32(gathered, weight, acc, width);
        }
        StepIndex(ks, p.k_sp_size, L);
      }
      int64_t ooff = 0;
      for (int d = 0; d < L; ++d) ooff += op[d] * p.out_sp_stride[d];
      std::memcpy(out_plane + ooff, acc, static_cast<size_t>(width) * sizeof(float));
      StepIndex(op, p.out_sp_size, L);
    }
  }
}


// Whether output rows (batch x output position, row-major) lie `row`
// elements apart in order in an array with these spatial strides and batch
// stride (the positions of the output's sizes).
bool RowsFollow(const ConvPlan& p, const std::vector<int64_t>& sp_stride, int64_t batch_stride,
                int64_t row) {
  int64_t stride = row;
  for (int d = p.nsp - 1; d >= 0; --d) {
    if (p.out_sp_size[d] > 1 && sp_stride[d] != stride) return false;
    stride *= p.out_sp_size[d];
  }
  return p.out_batch <= 1 || batch_stride == stride;
}

// Whether the result is [batch, positions..., features] row-major: output
// row r (batch x position) at r * channels(), its features contiguous.
bool OutputRowsContiguous(const ConvPlan& p) {
  return p.out_feat_stride == 1 && RowsFollow(p, p.out_sp_stride, p.out_batch_stride, p.channels());
}

// Whether output row r (batch x position, row-major) reads input row r
// and only it, rows kdim apart: a 1x1 window at stride 1 without padding
// or dilation, one group, the input [batch, positions..., features]
// row-major.
bool InputRowsContiguous(const ConvPlan& p) {
  if (p.ksp != 1 || p.groups != 1 || p.batch_groups || p.in_feat_stride != 1 || p.kdim != p.cg) {
    return false;
  }
  for (int d = 0; d < p.nsp; ++d) {
    for (int64_t o = 0; o < p.out_sp_size[d]; ++o) {
      if (p.in_index[d][o] != o) return false;
    }
  }
  return RowsFollow(p, p.in_sp_stride, p.in_batch_stride, p.cg);
}

// Whether the direct path serves `p`: f32, no batch groups, input features
// contiguous, the result [batch, positions..., features] row-major (output
// rows channels() apart), and a window of several positions, or at most 128
// output features per group, or up to 512 over rows that are not
// contiguous (a stride).
bool DirectApplies(const ConvPlan& p) {
  if (p.compute_type != ElementType::kF32 || p.batch_groups || p.in_feat_stride != 1 ||
      p.kdim <= 0 || p.og <= 0 || p.out_count == 0) {
    return false;
  }
  // A 1x1 window with many output features is a plain GEMM over rows read
  // in place, where the GEMM's packed A block measured faster (ResNet's
  // 64 -> 256 and 512 -> 1024 layers); up to 128 features the direct tile
  // wins. Over strided rows, which the GEMM gathers first, the direct tile
  // reads them in place: up to 512 features it measured 9-15% faster
  // (ResNet's 256 -> 512 at 56x56 and 1024 -> 512 at 14x14, stride 2). With
  // more, the tile's kernel rows lie 4 KiB apart or farther, and it was 3%
  // slower for 512 -> 1024 at 28x28, 30% for 1024 -> 2048 at 14x14.
  constexpr int64_t kMaxStridedFeatures = 512;
  if (p.ksp == 1 && p.og > 128 && (InputRowsContiguous(p) || p.og > kMaxStridedFeatures)) {
    return false;
  }
  return OutputRowsContiguous(p);
}

// Direct path blocking (ConvPlan::direct).
void PlanDirect(ConvPlan& p) {
  // Entries of ConvPlan::window_offsets at most (4 MiB).
  constexpr int64_t kMaxWindowOffsets = 1 << 20;
  // Bytes of kernel columns a unit keeps in L2, and units wanted for two
  // threads to share the work evenly.
  constexpr int64_t kKernelBlockBytes = 512 * 1024;
  constexpr int64_t kWantUnits = 16;
  p.direct = true;
  // The wide tile where kernel rows lie 1 KiB apart or more (see
  // ops/dot/conv_hwy.cc).
  constexpr int64_t kWideTileFeatures = 256;
  p.tile_shape = p.og >= kWideTileFeatures ? 1 : 0;
  p.tile_rows = conv_internal::HwyDirectTileRows(p.tile_shape);
  p.tile_cols = conv_internal::HwyDirectTileCols(p.tile_shape);
  p.kernel_as_is = KernelIsPacked(p) && p.og % p.tile_cols == 0;
  const int64_t strips = (p.og + p.tile_cols - 1) / p.tile_cols;
  p.ldk = p.kernel_as_is ? p.og : strips * p.tile_cols;
  const int64_t total_rows = p.out_batch * p.s_out;
  // Row blocks of up to 64 rows (8 tall tiles, 16 wide ones), as even as
  // whole tiles allow.
  const int64_t max_tiles = std::max<int64_t>(1, 64 / p.tile_rows);
  const int64_t row_tiles = (total_rows + p.tile_rows - 1) / p.tile_rows;
  const int64_t even_blocks = (row_tiles + max_tiles - 1) / max_tiles;
  p.rows_per_block = (row_tiles + even_blocks - 1) / even_blocks * p.tile_rows;
  p.row_blocks = (total_rows + p.rows_per_block - 1) / p.rows_per_block;
  int64_t spb = std::clamp<int64_t>(kKernelBlockBytes / (p.kdim * p.csize * p.tile_cols), 1,
                                    strips);
  const int64_t want_col_blocks = (kWantUnits + p.groups * p.row_blocks - 1) /
                                  (p.groups * p.row_blocks);
  spb = std::min(spb, std::max<int64_t>(1, strips / want_col_blocks));
  p.cols_per_block = spb * p.tile_cols;
  // Terms per block: a tile_cols-wide strip of the kernel in 128 KiB (of
  // L2; its lines pass through L1 as the tiles read them). Fewer blocks
  // store and reload the sums less often: 16 KiB blocks, L1-sized, were
  // 4-7% slower on ResNet's 3x3 shapes.
  constexpr int64_t kStripBlockBytes = 128 * 1024;
  const int64_t terms_per_block = kStripBlockBytes / (p.tile_cols * p.csize);
  const int64_t k_blocks = (p.kdim + terms_per_block - 1) / terms_per_block;
  p.k_block = std::max<int64_t>(1, (p.kdim + k_blocks - 1) / k_blocks);  // even blocks
  // Window rows of consecutive inputs (ConvPlan::row_windows).
  const int L = p.nsp - 1;
  const int64_t kw = p.nsp > 0 ? p.k_sp_size[L] : 1;
  bool runs = p.nsp > 0 && p.groups == 1 && p.in_sp_stride[L] == p.cg && kw > 1;
  for (int64_t o = 0; runs && o < p.out_sp_size[L]; ++o) {
    const int64_t first = p.in_index[L][o * kw];
    for (int64_t k = 0; runs && k < kw; ++k) runs = first >= 0 && p.in_index[L][o * kw + k] == first + k;
  }
  p.row_windows = runs ? p.ksp / kw : p.ksp;
  p.row_features = runs ? kw * p.cg : p.cg;
  // The window rows' offsets, found once here rather than per run.
  if (p.s_out * p.row_windows <= kMaxWindowOffsets &&
      p.in_batch_stride <= std::numeric_limits<int32_t>::max()) {
    p.window_offsets.resize(p.s_out * p.row_windows);
    int64_t op[8] = {0};
    for (int64_t o = 0; o < p.s_out; ++o) {
      WindowOffsets(p, op, [&](int64_t w, int64_t off) {
        p.window_offsets[w * p.s_out + o] = static_cast<int32_t>(off);
      });
      StepIndex(op, p.out_sp_size, p.nsp);
    }
  }
  p.col_blocks = (strips + spb - 1) / spb;
  p.units = p.groups * p.col_blocks * p.row_blocks;
  p.tile_bytes = 0;
  p.scratch_bytes = ScratchBytes(p);
}

// The zero-padded plane of a two-dimensional window without input dilation
// and with padding >= 0 (ConvPlan::pad_h etc.), for the paths that copy
// each input plane into one; false where the window is not such.
bool PlanPaddedPlane(ConvPlan& p, const Shape& lhs, const ConvolutionDimensionNumbers& dn,
                     const Window& window) {
  if (p.nsp != 2 || window[0].base_dilation != 1 || window[1].base_dilation != 1 ||
      window[0].padding_low < 0 || window[1].padding_low < 0) {
    return false;
  }
  p.in_h = lhs.dimensions(dn.input_spatial_dimensions[0]);
  p.in_width = lhs.dimensions(dn.input_spatial_dimensions[1]);
  p.pad_top = window[0].padding_low;
  p.pad_left = window[1].padding_low;
  p.stride_h = window[0].stride;
  p.stride_w = window[1].stride;
  p.dil_h = window[0].window_dilation;
  p.dil_w = window[1].window_dilation;
  // Rows and columns the windows reach (at least the padded input's).
  const int64_t oh = p.out_sp_size[0], ow = p.out_sp_size[1];
  const int64_t reach_h = oh == 0 ? 0 : (oh - 1) * p.stride_h + (p.k_sp_size[0] - 1) * p.dil_h + 1;
  const int64_t reach_w = ow == 0 ? 0 : (ow - 1) * p.stride_w + (p.k_sp_size[1] - 1) * p.dil_w + 1;
  p.pad_h = std::max(reach_h, p.pad_top + p.in_h);
  p.pad_w = std::max(reach_w, p.pad_left + p.in_width);
  p.lhs_esize = ByteWidth(lhs.element_type());
  p.out_esize = ByteWidth(p.result_type);
  return true;
}

}  // namespace

absl::StatusOr<ConvPlan> MakeConvPlan(const Shape& lhs, const Shape& rhs, const Shape& result,
                                      const Window& window,
                                      const ConvolutionDimensionNumbers& dn,
                                      int64_t feature_group_count, int64_t batch_group_count) {
  if (!lhs.IsArray() || !rhs.IsArray() || !result.IsArray()) {
    return absl::InvalidArgumentError("convolution needs array operands and result");
  }
  const int nsp = static_cast<int>(dn.input_spatial_dimensions.size());
  if (nsp > 8 || dn.kernel_spatial_dimensions.size() != static_cast<size_t>(nsp) ||
      dn.output_spatial_dimensions.size() != static_cast<size_t>(nsp) ||
      window.size() != static_cast<size_t>(nsp) || lhs.rank() != nsp + 2 ||
      rhs.rank() != nsp + 2 || result.rank() != nsp + 2) {
    return absl::InvalidArgumentError(
        "convolution: dimension numbers, window and ranks disagree (at most 8 spatial dimensions)");
  }
  if (feature_group_count < 1 || batch_group_count < 1 ||
      (feature_group_count > 1 && batch_group_count > 1)) {
    return absl::InvalidArgumentError(
        "convolution: feature_group_count and batch_group_count must be >= 1 and not both > 1");
  }
  ConvPlan p;
  p.result_type = result.element_type();
  p.compute_type = DotComputeType(p.result_type);
  p.csize = ByteWidth(p.compute_type);
  p.lhs_count = lhs.element_count();
  p.rhs_count = rhs.element_count();
  p.out_count = result.element_count();
  if (lhs.element_type() != p.compute_type) {
    HLOVM_ASSIGN_OR_RETURN(p.lhs_convert, SelectConvertKernel(lhs.element_type(), p.compute_type));
  }
  if (rhs.element_type() != p.compute_type) {
    HLOVM_ASSIGN_OR_RETURN(p.rhs_convert, SelectConvertKernel(rhs.element_type(), p.compute_type));
  }
  if (p.result_type != p.compute_type) {
    HLOVM_ASSIGN_OR_RETURN(p.result_convert, SelectConvertKernel(p.compute_type, p.result_type));
  }
  HLOVM_ASSIGN_OR_RETURN(p.gemm, SelectGemmKernel(p.compute_type));

  const std::vector<int64_t> ls = RowMajorStrides(lhs), ks = RowMajorStrides(rhs),
                             os = RowMajorStrides(result);
  p.nsp = nsp;
  p.in_batch_stride = ls[dn.input_batch_dimension];
  p.in_feat_stride = ls[dn.input_feature_dimension];
  p.k_in_stride = ks[dn.kernel_input_feature_dimension];
  p.k_out_stride = ks[dn.kernel_output_feature_dimension];
  p.out_batch_stride = os[dn.output_batch_dimension];
  p.out_feat_stride = os[dn.output_feature_dimension];
  const int64_t in_batch = lhs.dimensions(dn.input_batch_dimension);
  const int64_t in_feat = lhs.dimensions(dn.input_feature_dimension);
  const int64_t out_feat = rhs.dimensions(dn.kernel_output_feature_dimension);
  p.out_batch = result.dimensions(dn.output_batch_dimension);
  p.groups = feature_group_count * batch_group_count;
  p.batch_groups = batch_group_count > 1;
  p.cg = p.batch_groups ? in_feat : in_feat / feature_group_count;
  p.og = out_feat / p.groups;
  if (p.og * p.groups != out_feat || p.og * p.groups != result.dimensions(dn.output_feature_dimension) ||
      rhs.dimensions(dn.kernel_input_feature_dimension) != p.cg ||
      (p.batch_groups ? p.out_batch * batch_group_count != in_batch : p.out_batch != in_batch)) {
    return absl::InvalidArgumentError("convolution: feature or batch sizes do not match the groups");
  }
  p.ksp = 1;
  p.s_out = 1;
  for (int d = 0; d < nsp; ++d) {
    const WindowDimension& w = window[d];
    const int64_t in_size = lhs.dimensions(dn.input_spatial_dimensions[d]);
    const int64_t k_size = rhs.dimensions(dn.kernel_spatial_dimensions[d]);
    const int64_t o_size = result.dimensions(dn.output_spatial_dimensions[d]);
    if (w.size != k_size || w.stride < 1 || w.base_dilation < 1 || w.window_dilation < 1) {
      return absl::InvalidArgumentError("convolution: window disagrees with the kernel");
    }
    p.in_sp_stride.push_back(ls[dn.input_spatial_dimensions[d]]);
    p.k_sp_stride.push_back(ks[dn.kernel_spatial_dimensions[d]]);
    p.k_sp_size.push_back(k_size);
    p.out_sp_stride.push_back(os[dn.output_spatial_dimensions[d]]);
    p.out_sp_size.push_back(o_size);
    if (o_size > 0 && k_size > (int64_t{1} << 26) / o_size) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "convolution: spatial dimension ", d, " has ", o_size, " output positions and a window of ",
          k_size, "; their product exceeds the index table limit of 2^26"));
    }
    std::vector<int64_t> idx(static_cast<size_t>(o_size * k_size), -1);
    for (int64_t o = 0; o < o_size; ++o) {
      for (int64_t k = 0; k < k_size; ++k) {
        const int64_t x = o * w.stride + k * w.window_dilation - w.padding_low;
        if (x < 0 || x % w.base_dilation != 0) continue;
        const int64_t ix = x / w.base_dilation;
        if (ix < in_size) idx[o * k_size + k] = ix;
      }
    }
    p.in_index.push_back(std::move(idx));
    std::vector<int64_t> kidx(static_cast<size_t>(k_size));
    for (int64_t k = 0; k < k_size; ++k) kidx[k] = w.window_reversal ? k_size - 1 - k : k;
    p.k_index.push_back(std::move(kidx));
    p.ksp *= k_size;
    p.s_out *= o_size;
  }
  p.kdim = p.ksp * p.cg;
  p.depthwise = p.compute_type == ElementType::kF32 && !p.batch_groups && p.groups > 1 &&
                p.cg == 1 && p.og == 1 && p.in_feat_stride == 1 && p.out_feat_stride == 1 &&
                nsp >= 1;
  p.planar = !p.depthwise && p.compute_type == ElementType::kF32 && !p.batch_groups &&
             p.groups > 1 && p.cg == 1 && p.og == 1 && nsp >= 1 &&
             p.in_sp_stride[nsp - 1] == 1 && p.out_sp_stride[nsp - 1] == 1;
  if (p.planar) {
    // Per window position of the last dimension: whether the outputs that
    // read the input do so at x + offset over one run.
    const int L = nsp - 1;
    const int64_t width = p.out_sp_size[L], kw = p.k_sp_size[L];
    for (int64_t k = 0; k < kw; ++k) {
      int64_t x0 = -1, x1 = -1, off = 0;
      bool contig = true;
      for (int64_t x = 0; x < width && contig; ++x) {
        const int64_t ix = p.in_index[L][x * kw + k];
        if (ix < 0) {
          if (x0 >= 0 && x1 < 0) x1 = x;
          continue;
        }
        if (x0 < 0) {
          x0 = x;
          off = ix - x;
        } else if (x1 >= 0 || ix != x + off) {
          contig = false;
        }
      }
      if (x0 < 0) x0 = x1 = 0;
      if (x1 < 0) x1 = width;
      p.row_x0.push_back(x0);
      p.row_x1.push_back(x1);
      p.row_off.push_back(off);
      p.row_contig.push_back(contig ? 1 : 0);
    }
    if (PlanPaddedPlane(p, lhs, dn, window) && p.in_sp_stride[1] == 1 && p.out_sp_stride[1] == 1) {
      p.planar_padded = true;
      // Units convert their own rows and planes: a narrow input and result
      // (both converted, else neither), the output plane contiguous.
      p.convert_in_units = p.lhs_convert != nullptr && p.result_convert != nullptr &&
                           p.out_sp_stride[0] == p.out_sp_size[1];
      p.widen_bf16_rows = p.convert_in_units && lhs.element_type() == ElementType::kBF16 &&
                          p.compute_type == ElementType::kF32;
    }
    p.units = p.out_count == 0 ? 0 : p.out_batch * p.channels();
    p.tile_bytes = 0;
    p.scratch_bytes = ScratchBytes(p);
    return p;
  }
  if (p.depthwise) {
    // By channel columns (see ConvPlan::depthwise_columns), where the
    // interleaved plane stays within kMaxColumnPlaneBytes.
    constexpr int64_t kMaxColumnPlaneBytes = 8 << 20;
    const ElementType in_type = lhs.element_type();
    const bool narrow_ok =
        (in_type == ElementType::kF32 || in_type == ElementType::kBF16) &&
        (p.result_type == ElementType::kF32 || p.result_type == ElementType::kBF16);
    if (narrow_ok && PlanPaddedPlane(p, lhs, dn, window)) {
      p.column_lanes = conv_internal::HwyDepthwiseColumnLanes();
      if (p.pad_h * p.pad_w * p.column_lanes * static_cast<int64_t>(sizeof(float)) <=
          kMaxColumnPlaneBytes) {
        p.depthwise_columns = true;
        p.convert_in_units = true;
        // Blocks of a unit: a 64-byte line of a position's channels, in and
        // out (two blocks of 16 bf16s, which other units would otherwise
        // read and write half of, fetching each line twice).
        const int64_t narrowest = std::min(p.lhs_esize, p.out_esize);
        p.column_blocks = std::max<int64_t>(1, 64 / (p.column_lanes * narrowest));
        const int64_t span = p.column_lanes * p.column_blocks;
        p.units = p.out_count == 0 ? 0 : p.out_batch * ((p.channels() + span - 1) / span);
        p.tile_bytes = 0;
        p.scratch_bytes = ScratchBytes(p);
        return p;
      }
    }
    p.rows_per_tile = std::max<int64_t>(1, std::min<int64_t>(64, p.s_out));
    p.tiles = (p.s_out + p.rows_per_tile - 1) / p.rows_per_tile;
    p.units = p.out_count == 0 ? 0 : p.out_batch * p.tiles;
    p.tile_bytes = 0;
    p.scratch_bytes = ScratchBytes(p);
    return p;
  }
  if (p.batch_groups && p.og == 1 && p.out_batch == 1 && p.compute_type == ElementType::kF32 &&
      p.rhs_convert == nullptr && nsp == 2 && p.s_out <= 16 && p.kdim > 0) {
    p.group_lanes = true;
    p.in_width = lhs.dimensions(dn.input_spatial_dimensions[1]);
    const int64_t kw = p.k_sp_size[1], ow = p.out_sp_size[1];
    p.window_cols.resize(static_cast<size_t>(kw * ow));
    for (int64_t k = 0; k < kw; ++k) {
      for (int64_t x = 0; x < ow; ++x) {
        p.window_cols[k * ow + x] = static_cast<int32_t>(p.in_index[1][x * kw + k]);
      }
    }
    p.units = p.out_count == 0 ? 0 : (p.groups + 15) / 16;
    p.tile_bytes = 0;
    p.scratch_bytes = ScratchBytes(p);
    return p;
  }
  if (DirectApplies(p)) {
    PlanDirect(p);
    return p;
  }
  const int64_t row_bytes = std::max<int64_t>(p.kdim, 1) * p.csize;
  // Tiles of rows as even as whole rows allow, and at least kWantUnits of
  // them where each keeps kMinTileRows (a GEMM row block): a last tile of
  // a few rows left the other thread idle half the time (ResNet's 56x56
  // 64 -> 256 layers: tiles of 1024, 1024, 1024 and 64 rows). Blocks of C
  // never split k, so the sums are the same however the rows are tiled.
  constexpr int64_t kWantUnits = 8;
  constexpr int64_t kMinTileRows = 256;
  constexpr int64_t kMinPartCols = 256;
  const int64_t max_rows = std::clamp<int64_t>(kTileBytes / row_bytes, 8, 1024);
  const int64_t total_rows = p.out_batch * p.s_out;
  int64_t tiles = std::max<int64_t>(1, (total_rows + max_rows - 1) / max_rows);
  tiles = std::max(tiles, std::min(kWantUnits, total_rows / kMinTileRows));
  p.rows_per_tile = std::max<int64_t>(1, (total_rows + tiles - 1) / tiles);
  p.tiles = (total_rows + p.rows_per_tile - 1) / p.rows_per_tile;
  // Still too few tiles to share among threads (a layer of few positions):
  // each tile's features in parts of at least kMinPartCols, the GEMM
  // reading the kernel's columns in place (strided; the f32/f64 kernels).
  p.cols_per_part = p.og;
  if (p.tiles > 0 && p.groups * p.tiles < kWantUnits && GemmReadsStrided(p.compute_type) &&
      p.kdim > 0) {
    const int64_t parts = std::min((kWantUnits + p.groups * p.tiles - 1) / (p.groups * p.tiles),
                                   p.og / kMinPartCols);
    if (parts > 1) p.cols_per_part = (p.og + parts - 1) / parts;
  }
  p.col_parts = p.cols_per_part > 0 ? (p.og + p.cols_per_part - 1) / p.cols_per_part : 1;
  p.units = p.out_count == 0 ? 0 : p.groups * p.col_parts * p.tiles;
  p.tiles_in_place = p.groups == 1 && OutputRowsContiguous(p);
  p.rows_in_place = InputRowsContiguous(p);
  p.tile_bytes = AlignUp(p.rows_per_tile * row_bytes) + AlignUp(p.rows_per_tile * p.og * p.csize) + 64;
  p.kernel_as_is = KernelIsPacked(p);
  p.scratch_bytes = ScratchBytes(p);
  return p;
}

ConvBuffers ConvPrepare(const ConvPlan& p, const void* lhs, const void* rhs, void* out,
                        void* scratch) {
  uint8_t* cur = static_cast<uint8_t*>(scratch);
  ConvBuffers b;
  if (p.lhs_convert != nullptr && !p.convert_in_units) {
    p.lhs_convert(lhs, cur, p.lhs_count);
    b.lhs = cur;
    cur += AlignUp(p.lhs_count * p.csize);
  } else {
    b.lhs = static_cast<const uint8_t*>(lhs);
  }
  uint8_t* packed = cur;
  b.packed = p.kernel_as_is || p.group_lanes ? static_cast<const uint8_t*>(rhs) : packed;
  cur += PackedBytes(p);
  const uint8_t* k = static_cast<const uint8_t*>(rhs);
  hwy::AlignedFreeUniquePtr<uint8_t[]> kconv;
  if (p.rhs_convert != nullptr && p.rhs_count > 0) {
    kconv = hwy::AllocateAligned<uint8_t>(static_cast<size_t>(p.rhs_count * p.csize));
    p.rhs_convert(rhs, kconv.get(), p.rhs_count);
    k = kconv.get();
  }
  if (p.depthwise || p.planar) {
    // [window position][feature], then a row of zeros.
    const float* kf = reinterpret_cast<const float*>(k);
    float* dst = reinterpret_cast<float*>(packed);
    const int64_t channels = p.channels();
    int64_t ks[8] = {0};
    for (int64_t w = 0; w < p.ksp; ++w) {
      int64_t off = 0;
      for (int d = 0; d < p.nsp; ++d) off += p.k_index[d][ks[d]] * p.k_sp_stride[d];
      for (int64_t c = 0; c < channels; ++c) dst[w * channels + c] = kf[off + c * p.k_out_stride];
      StepIndex(ks, p.k_sp_size, p.nsp);
    }
    std::fill(dst + p.ksp * channels, dst + (p.ksp + 1) * channels, 0.0f);
  } else if (p.direct) {
    float* zeros = reinterpret_cast<float*>(cur) - AlignUp(p.row_features * p.csize) / p.csize;
    if (!p.kernel_as_is) PackKernel<float>(p, k, packed, p.ldk);
    std::fill(zeros, zeros + p.row_features, 0.0f);
    b.zeros = zeros;
    uint8_t* finite = reinterpret_cast<uint8_t*>(zeros) - AlignUp(FiniteStates(p));
    std::fill(finite, finite + FiniteStates(p), uint8_t{0});
    b.finite = reinterpret_cast<uint64_t*>(finite);
  } else if (p.kdim > 0 && p.og > 0 && !p.kernel_as_is && !p.group_lanes) {
    switch (p.csize) {
      case 1: PackKernel<uint8_t>(p, k, packed, p.og); break;
      case 2: PackKernel<uint16_t>(p, k, packed, p.og); break;
      case 4: PackKernel<uint32_t>(p, k, packed, p.og); break;
      case 8: PackKernel<uint64_t>(p, k, packed, p.og); break;
      default: PackKernel<Bytes16>(p, k, packed, p.og); break;
    }
  }
  b.out = p.result_convert != nullptr && !p.convert_in_units ? cur : static_cast<uint8_t*>(out);
  return b;
}

// Blocks of 16 groups of a batch-group weight gradient (ConvPlan::group_lanes):
// per window row, the input rows its output rows read and its kernel row
// are laid out with the 16 groups innermost (an input row once while
// consecutive window rows keep reading it), and the vector kernel folds
// them into the outputs' sums. The kernel is read where it is.
void GroupLaneUnits(const ConvPlan& p, const ConvBuffers& bufs, int64_t unit_begin,
                    int64_t unit_end) {
  const float* lhs = reinterpret_cast<const float*>(bufs.lhs);
  const float* kernel = reinterpret_cast<const float*>(bufs.packed);  // the kernel itself
  float* out = reinterpret_cast<float*>(bufs.out);
  const int64_t kh = p.k_sp_size[0], kw = p.k_sp_size[1];
  const int64_t oh = p.out_sp_size[0], ow = p.out_sp_size[1], width = p.in_width;
  const int64_t row_floats = width * p.cg * 16, kernel_floats = kw * p.cg * 16;
  // Transposed input rows: 2 * oh slots, each holding input row slot_row[s].
  const int64_t slots = 2 * oh;
  struct GroupRows;
  float* buffer = reinterpret_cast<float*>(ThreadScratch<GroupRows>(
      static_cast<int64_t>(sizeof(float)) * (slots * row_floats + kernel_floats + p.s_out * 16)));
  float* krow = buffer + slots * row_floats;
  float* acc = krow + kernel_floats;
  std::vector<int64_t> slot_row(static_cast<size_t>(slots));
  std::vector<const float*> rows(static_cast<size_t>(oh));
  std::vector<char> wanted(static_cast<size_t>(slots));
  for (int64_t u = unit_begin; u < unit_end; ++u) {
    const int64_t g0 = u * 16, n = std::min<int64_t>(16, p.groups - g0);
    std::fill(acc, acc + p.s_out * 16, 0.0f);
    std::fill(slot_row.begin(), slot_row.end(), -1);
    for (int64_t wh = 0; wh < kh; ++wh) {
      // Keep the slots this window row reads; fill the others as needed.
      std::fill(wanted.begin(), wanted.end(), 0);
      for (int64_t y = 0; y < oh; ++y) {
        const int64_t ih = p.in_index[0][y * kh + wh];
        for (int64_t s = 0; s < slots; ++s) {
          if (ih >= 0 && slot_row[s] == ih) wanted[s] = 1;
        }
      }
      for (int64_t y = 0; y < oh; ++y) {
        const int64_t ih = p.in_index[0][y * kh + wh];
        rows[y] = nullptr;
        if (ih < 0) continue;
        int64_t s = 0;
        while (s < slots && slot_row[s] != ih) ++s;
        if (s == slots) {
          s = 0;
          while (wanted[s]) ++s;
          slot_row[s] = ih;
          wanted[s] = 1;
          float* dst = buffer + s * row_floats;
          if (n < 16) std::fill(dst, dst + row_floats, 0.0f);
          // Each group's row of each feature is read along memory.
          for (int64_t i = 0; i < n; ++i) {
            for (int64_t c = 0; c < p.cg; ++c) {
              const float* src = lhs + (g0 + i) * p.in_batch_stride + c * p.in_feat_stride +
                                 ih * p.in_sp_stride[0];
              float* to = dst + c * 16 + i;
              for (int64_t x = 0; x < width; ++x) to[x * p.cg * 16] = src[x * p.in_sp_stride[1]];
            }
          }
        }
        rows[y] = buffer + s * row_floats;
      }
      if (n < 16) std::fill(krow, krow + kernel_floats, 0.0f);
      const int64_t kh_off = p.k_index[0][wh] * p.k_sp_stride[0];
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t c = 0; c < p.cg; ++c) {
          const float* src = kernel + kh_off + c * p.k_in_stride + (g0 + i) * p.k_out_stride;
          float* to = krow + c * 16 + i;
          for (int64_t k = 0; k < kw; ++k) {
            to[k * p.cg * 16] = src[p.k_index[1][k] * p.k_sp_stride[1]];
          }
        }
      }
      conv_internal::HwyBatchGroupRowF32(rows.data(), krow, p.window_cols.data(), oh, ow, kw,
                                         p.cg, acc);
    }
    for (int64_t o = 0; o < p.s_out; ++o) {
      const int64_t off = (o / ow) * p.out_sp_stride[0] + (o % ow) * p.out_sp_stride[1];
      for (int64_t i = 0; i < n; ++i) out[off + (g0 + i) * p.out_feat_stride] = acc[o * 16 + i];
    }
  }
}

void ConvUnits(const ConvPlan& p, const ConvBuffers& bufs, int64_t unit_begin, int64_t unit_end) {
  if (unit_begin >= unit_end) return;
  if (p.group_lanes) {
    GroupLaneUnits(p, bufs, unit_begin, unit_end);
    return;
  }
  if (p.depthwise_columns) {
    DepthwiseColumnUnits(p, bufs, unit_begin, unit_end);
    return;
  }
  if (p.depthwise) {
    DepthwiseUnits(p, bufs, unit_begin, unit_end);
    return;
  }
  if (p.planar) {
    PlanarUnits(p, bufs, unit_begin, unit_end);
    return;
  }
  if (p.direct) {
    DirectUnits(p, bufs, unit_begin, unit_end);
    return;
  }
  switch (p.csize) {
    case 1: RunUnitsT<uint8_t>(p, bufs, unit_begin, unit_end); break;
    case 2: RunUnitsT<uint16_t>(p, bufs, unit_begin, unit_end); break;
    case 4: RunUnitsT<uint32_t>(p, bufs, unit_begin, unit_end); break;
    case 8: RunUnitsT<uint64_t>(p, bufs, unit_begin, unit_end); break;
    default: RunUnitsT<Bytes16>(p, bufs, unit_begin, unit_end); break;
  }
}

void ConvFinish(const ConvPlan& p, const ConvBuffers& bufs, void* out) {
  if (p.result_convert != nullptr && !p.convert_in_units && p.out_count > 0) {
    p.result_convert(bufs.out, out, p.out_count);
  }
}

bool ConvHasUnitRuns(const ConvPlan& p) {
  if (p.compute_type != ElementType::kF32 || p.result_type != ElementType::kF32 ||
      p.result_convert != nullptr || p.convert_in_units || p.out_count == 0) {
    return false;
  }
  if (p.direct) return true;
  if (p.depthwise || p.planar || p.planar_padded || p.group_lanes || p.batch_groups) return false;
  return OutputRowsContiguous(p);
}

void ConvUnitRuns(const ConvPlan& p, int64_t u,
                  absl::FunctionRef<void(int64_t begin, int64_t end)> fn) {
  const int64_t ldo = p.channels();
  const int64_t total_rows = p.out_batch * p.s_out;
  int64_t row0, nrows, col0, ncols;
  if (p.direct) {  // as DirectUnits splits the units
    const int64_t per_group = p.row_blocks * p.col_blocks;
    const int64_t t = u / per_group;
    const int64_t cb = (u % per_group) / p.row_blocks;
    row0 = (u % p.row_blocks) * p.rows_per_block;
    nrows = std::min(total_rows, row0 + p.rows_per_block) - row0;
    const int64_t j0 = cb * p.cols_per_block;
    col0 = t * p.og + j0;
    ncols = std::min(p.og, j0 + p.cols_per_block) - j0;
  } else {  // as RunUnitsT splits the units
    row0 = (u % p.tiles) * p.rows_per_tile;
    nrows = std::min(p.rows_per_tile, total_rows - row0);
    const int64_t j0 = u / p.tiles % p.col_parts * p.cols_per_part;
    col0 = u / p.tiles / p.col_parts * p.og + j0;
    ncols = std::min(p.og, j0 + p.cols_per_part) - j0;
  }
  if (nrows <= 0 || ncols <= 0) return;
  if (ncols == ldo) {
    fn(row0 * ldo, (row0 + nrows) * ldo);
    return;
  }
  for (int64_t r = row0; r < row0 + nrows; ++r) fn(r * ldo + col0, r * ldo + col0 + ncols);
}

void ConvUnitsTo(const ConvPlan& p, const ConvBuffers& bufs, int64_t unit_begin,
                 int64_t unit_end, SumsSink sink) {
  if (!p.direct && p.groups == 1 && p.csize == 4) {
    RunUnitsT<uint32_t>(p, bufs, unit_begin, unit_end, &sink);
    return;
  }
  const float* out = reinterpret_cast<const float*>(bufs.out);
  for (int64_t u = unit_begin; u < unit_end; ++u) {
    ConvUnits(p, bufs, u, u + 1);
    ConvUnitRuns(p, u, [&](int64_t begin, int64_t end) { sink(out + begin, begin, end); });
  }
}

void ConvUnitsWithEpilogue(const ConvPlan& p, const ConvBuffers& bufs, int64_t unit_begin,
                           int64_t unit_end, const ConvEpilogueStep* steps, int count) {
  if (p.direct) {
    DirectUnits(p, bufs, unit_begin, unit_end, steps, count);
    return;
  }
  float* out = reinterpret_cast<float*>(bufs.out);
  const int64_t channels = p.channels();
  ConvUnitsTo(p, bufs, unit_begin, unit_end, [&](const float* sums, int64_t begin, int64_t end) {
    conv_internal::HwyConvEpilogueF32(steps, count, sums, out + begin, begin, end - begin,
                                      channels);
  });
}

std::string ConvPlanText(const ConvPlan& p, ElementType lhs, ElementType rhs) {
  return absl::StrCat(std::string(ElementTypeName(lhs)), "x", std::string(ElementTypeName(rhs)),
                      "->", std::string(ElementTypeName(p.result_type)), " via ",
                      std::string(ElementTypeName(p.compute_type)), " groups=", p.groups,
                      " m=", p.s_out, " k=", p.kdim, " n=", p.og, " tile=", p.rows_per_tile,
                      p.depthwise ? " depthwise" : p.planar ? " planar" : "");
}

absl::Status RunConv(const ConvPlan& p, const void* lhs, const void* rhs, void* out) {
  hwy::AlignedFreeUniquePtr<uint8_t[]> scratch;
  if (p.scratch_bytes > 0) {
    scratch = hwy::AllocateAligned<uint8_t>(static_cast<size_t>(p.scratch_bytes));
    if (scratch == nullptr) return absl::ResourceExhaustedError("convolution: out of memory");
  }
  const ConvBuffers b = ConvPrepare(p, lhs, rhs, out, scratch.get());
  ConvUnits(p, b, 0, p.units);
  ConvFinish(p, b, out);
  return absl::OkStatus();
}

}  // namespace hlovm
