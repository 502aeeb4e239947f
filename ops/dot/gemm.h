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

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/element_type.h"

namespace hlovm {

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
};
// How the kernel for `compute_type` reads operands stored as `stored`
// (kCompute unless it converts them while packing), and whether it converts.
GemmDims::Source GemmSourceOf(ElementType compute_type, ElementType stored);
bool GemmConvertsWhilePacking(ElementType compute_type, ElementType stored);
// Strided kernels: the f32/f64 ones.
bool GemmReadsStrided(ElementType compute_type);

// Runs work units [unit_begin, unit_end); units are fixed (batch index, row
// block, column block) tiles of C and write disjoint parts of it.
using GemmFn = void (*)(const void* a, const void* b, void* c, const GemmDims& dims,
                        int64_t unit_begin, int64_t unit_end);

struct GemmKernel {
  GemmFn fn = nullptr;
  int64_t rows_per_unit = 1;  // rows of C per unit
  int64_t cols_per_unit = 0;  // columns of C per unit; 0: all of them
  int64_t Units(const GemmDims& d) const;
  // Every unit, on the calling thread.
  void RunAll(const void* a, const void* b, void* c, const GemmDims& d) const {
    fn(a, b, c, d, 0, Units(d));
  }
};

// Compute types: pred (or of ands), s32/u32 and s64/u64 (wrap-around), f32,
// f64, c64, c128.
absl::StatusOr<GemmKernel> SelectGemmKernel(ElementType compute_type);

// Blocking of the f32/f64 kernel (elements).
// Rows and columns of C per work unit (powers of two: common model sizes
// such as 768 or 3072 split into whole units; a packed A block of 256 x 384
// f32 stays in a 512 KiB L2) and the f32 k block (f64 uses half of it).
inline constexpr int64_t kGemmBlockM = 256;
inline constexpr int64_t kGemmBlockN = 512;
inline constexpr int64_t kGemmBlockK = 384;

namespace gemm_internal {
void HwyGemmF32(const void* a, const void* b, void* c, const GemmDims& dims, int64_t unit_begin,
                int64_t unit_end);
void HwyGemmF64(const void* a, const void* b, void* c, const GemmDims& dims, int64_t unit_begin,
                int64_t unit_end);
const char* HwyGemmTarget();
// Which f32 (or f64) kernel serves `dims` on this machine: "blocked",
// "transposed-b", "narrow-rows" or "along-rows" (see gemm_hwy-inl.h).
const char* HwyGemmPath(bool f64, const GemmDims& dims);
}  // namespace gemm_internal

}  // namespace hlovm

#endif  // HLOVM_OPS_DOT_GEMM_H_
