// GEMM kernels behind dot: C[b] = A[b] x B[b] for row-major A [batch, m, k],
// B [batch, k, n] and C [batch, m, n] of one compute type. Every output
// element is summed over k in plain sequential order (one fused multiply-add
// per term for f32/f64), so results do not depend on blocking or on how the
// work units are spread over threads. f32 and f64 run a cache-blocked kernel
// with packed panels (small row-major operands are read in place) and a
// Highway register tile per SIMD target (dynamic dispatch; see
// gemm_hwy-inl.h). A few rows of A (up to two vectors' worth) against a B
// stored along k (a transposed weight matrix: matrix-vector products, decode
// steps) transpose A instead of packing B, and read B once along its
// columns (up to 4 f32 rows of A, 12 with 32 vector registers: 8x8 blocks
// of B transposed in registers); up to four rows against a large row-major B read it once a row at
// a time into sums kept in L1. The other compute types run a templated i-k-j
// loop. With
// k = 0 every kernel writes zeros.
#ifndef HLOVM_OPS_DOT_GEMM_H_
#define HLOVM_OPS_DOT_GEMM_H_

#include <algorithm>
#include <cstdint>

#include "absl/status/statusor.h"
#include "core/element_type.h"

namespace hlovm {

// Blocking of the f32/f64 kernel (elements).
// Rows and columns of C per work unit by default, and at most (powers of
// two: common model sizes such as 768 or 3072 split into whole units; a
// packed A block of 256 x 384 f32 stays in a 512 KiB L2) and the f32 k block
// (f64 uses half of it).
inline constexpr int64_t kGemmBlockM = 256;
inline constexpr int64_t kGemmBlockN = 512;
inline constexpr int64_t kGemmBlockK = 384;
// The fewest rows of a row block GemmKernel::SplitUnits makes.
inline constexpr int64_t kGemmMinSplitRows = 64;

struct GemmDims {
  int64_t batch = 1, m = 0, k = 0, n = 0;
  // With `use_strides`, the element strides of A (batch, row, k) and B
  // (batch, k, column); otherwise A and B are row-major [batch, m, k] and
  // [batch, k, n]. Only the f32/f64 kernels read strided operands; C is
  // always row-major.
  bool use_strides = false;
  int64_t a_sb = 0, a_sm = 0, a_sk = 0, b_sb = 0, b_sk = 0, b_sn = 0;
  bool strided() const { return use_strides; }
  // How A and B are stored: in the compute type, or (f32 kernel only) as
  // bf16 or f16 bits that the kernel converts to f32 while packing them
  // (exactly, as a separate conversion would). Strides count elements of
  // the stored type.
  enum class Source : uint8_t { kCompute, kBF16, kF16 };
  Source a_source = Source::kCompute, b_source = Source::kCompute;
  // Rows and columns of C per work unit of the f32/f64 kernels; 0 (or more
  // than kGemmBlockM / kGemmBlockN): those. GemmKernel::SplitUnits makes
  // them smaller so that a dot of few rows or columns still has several
  // units to spread over threads. Any positive values give the same results:
  // blocks split C, never k.
  int64_t block_m = 0, block_n = 0;
  int64_t BlockM() const { return block_m > 0 && block_m < kGemmBlockM ? block_m : kGemmBlockM; }
  int64_t BlockN() const { return block_n > 0 && block_n < kGemmBlockN ? block_n : kGemmBlockN; }
};
// How the kernel for `compute_type` reads operands stored as `stored`
// (kCompute unless it converts them while packing), and whether it converts.
GemmDims::Source GemmSourceOf(ElementType compute_type, ElementType stored);
bool GemmConvertsWhilePacking(ElementType compute_type, ElementType stored);
// Strided kernels: the f32/f64 ones.
bool GemmReadsStrided(ElementType compute_type);

// Runs work units [unit_begin, unit_end); units are fixed (batch index, row
// block, column block) tiles of C and write disjoint parts of it. Row
// blocks vary fastest, then column blocks, then the batch index.
using GemmFn = void (*)(const void* a, const void* b, void* c, const GemmDims& dims,
                        int64_t unit_begin, int64_t unit_end);

struct GemmKernel {
  GemmFn fn = nullptr;
  // With `dims_blocks` (the f32/f64 kernels), units are dims.BlockM() x
  // dims.BlockN() tiles; otherwise rows_per_unit rows and cols_per_unit
  // columns (0: all of them).
  bool dims_blocks = false;
  bool f64 = false;  // with dims_blocks: the f64 kernel
  int64_t rows_per_unit = 1;
  int64_t cols_per_unit = 0;
  int64_t Units(const GemmDims& d) const;
  // With dims_blocks (nothing otherwise), sets d->block_m and d->block_n to
  // smaller blocks while `d` has fewer than `want_units` units and each unit
  // would still take at least `min_unit_flops` (2 * rows * columns * k):
  // halves the rows or the columns a unit takes, in whole register tiles of
  // this machine's kernel, whichever repacks less of the other operand, and
  // not below 256 columns (rows) where that repacks A (B) nor below
  // kGemmMinSplitRows rows (gemm_hwy-inl.h).
  void SplitUnits(GemmDims* d, int64_t want_units, int64_t min_unit_flops) const;
  // Every unit, on the calling thread.
  void RunAll(const void* a, const void* b, void* c, const GemmDims& d) const {
    fn(a, b, c, d, 0, Units(d));
  }
};

// Compute types: pred (or of ands), s32/u32 and s64/u64 (wrap-around), f32,
// f64, c64, c128.
absl::StatusOr<GemmKernel> SelectGemmKernel(ElementType compute_type);

namespace gemm_internal {
// The tiles of C that the f32/f64 kernels' units cover (dims.BlockM() x
// dims.BlockN(); GemmKernel::Units counts them).
struct UnitTile {
  int64_t bi, i0, mc, j0, nc;  // batch index, first row and rows, first column and columns
};
class UnitGrid {
 public:
  explicit UnitGrid(const GemmDims& d)
      : m_(d.m),
        n_(d.n),
        bm_(d.BlockM()),
        bn_(d.BlockN()),
        mb_((d.m + bm_ - 1) / bm_),
        nb_((d.n + bn_ - 1) / bn_) {}
  int64_t block_m() const { return bm_; }
  int64_t block_n() const { return bn_; }
  UnitTile Tile(int64_t u) const {
    const int64_t rem = u % (mb_ * nb_);
    const int64_t i0 = (rem % mb_) * bm_, j0 = (rem / mb_) * bn_;
    return {u / (mb_ * nb_), i0, std::min(bm_, m_ - i0), j0, std::min(bn_, n_ - j0)};
  }

 private:
  int64_t m_, n_, bm_, bn_, mb_, nb_;
};

void HwyGemmF32(const void* a, const void* b, void* c, const GemmDims& dims, int64_t unit_begin,
                int64_t unit_end);
void HwyGemmF64(const void* a, const void* b, void* c, const GemmDims& dims, int64_t unit_begin,
                int64_t unit_end);
const char* HwyGemmTarget();
// GemmKernel::SplitUnits of the f32 (or f64) kernel on this machine.
void HwyGemmSplitUnits(bool f64, GemmDims* dims, int64_t want_units, int64_t min_unit_flops);
// Which f32 (or f64) kernel serves `dims` on this machine: "blocked",
// "transposed-b", "narrow-rows" or "along-rows" (see gemm_hwy-inl.h).
const char* HwyGemmPath(bool f64, const GemmDims& dims);
}  // namespace gemm_internal

}  // namespace hlovm

#endif  // HLOVM_OPS_DOT_GEMM_H_
