// Generic GEMM kernels (i-k-j loops) and the kernel selection.
#include "ops/dot/gemm.h"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace hlovm {
namespace {

// Rows of C per unit of the generic kernels.
constexpr int64_t kGenericRows = 16;

struct MulAddOp {
  template <typename T>
  static T Apply(T acc, T a, T b) {
    return acc + a * b;
  }
};
// pred: or of ands, on bytes holding 0 or 1.
struct OrAndOp {
  static uint8_t Apply(uint8_t acc, uint8_t a, uint8_t b) {
    return static_cast<uint8_t>(acc | ((a != 0) & (b != 0)));
  }
};

// Unsigned integers (the bits of s32/u32 and s64/u64 alike) wrap around.
template <typename T, class Op>
void GemmGeneric(const void* a_v, const void* b_v, void* c_v, const GemmDims& d, int64_t ub,
                 int64_t ue) {
  const T* a_all = static_cast<const T*>(a_v);
  const T* b_all = static_cast<const T*>(b_v);
  T* c_all = static_cast<T*>(c_v);
  const int64_t mb = (d.m + kGenericRows - 1) / kGenericRows;
  for (int64_t u = ub; u < ue; ++u) {
    const int64_t bi = u / mb, i0 = (u % mb) * kGenericRows;
    const int64_t i1 = std::min(d.m, i0 + kGenericRows);
    const T* A = a_all + bi * d.m * d.k;
    const T* B = b_all + bi * d.k * d.n;
    T* C = c_all + bi * d.m * d.n;
    for (int64_t i = i0; i < i1; ++i) {
      T* c = C + i * d.n;
      std::fill(c, c + d.n, T(0));
      for (int64_t k = 0; k < d.k; ++k) {
        const T av = A[i * d.k + k];
        const T* b = B + k * d.n;
        for (int64_t j = 0; j < d.n; ++j) c[j] = Op::Apply(c[j], av, b[j]);
      }
    }
  }
}

}  // namespace

bool GemmReadsStrided(ElementType t) { return t == ElementType::kF32 || t == ElementType::kF64; }

GemmDims::Source GemmSourceOf(ElementType compute_type, ElementType stored) {
  if (compute_type == ElementType::kF32) {
    if (stored == ElementType::kBF16) return GemmDims::Source::kBF16;
    if (stored == ElementType::kF16) return GemmDims::Source::kF16;
  }
  return GemmDims::Source::kCompute;
}

bool GemmConvertsWhilePacking(ElementType compute_type, ElementType stored) {
  return GemmSourceOf(compute_type, stored) != GemmDims::Source::kCompute;
}

int64_t GemmKernel::Units(const GemmDims& d) const {
  if (d.batch == 0 || d.m == 0 || d.n == 0) return 0;
  const int64_t rows = dims_blocks ? d.BlockM() : rows_per_unit;
  const int64_t cols = dims_blocks ? d.BlockN() : cols_per_unit;
  const int64_t mb = (d.m + rows - 1) / rows;
  const int64_t nb = cols == 0 ? 1 : (d.n + cols - 1) / cols;
  return d.batch * mb * nb;
}

void GemmKernel::SplitUnits(GemmDims* d, int64_t want_units, int64_t min_unit_flops) const {
  if (dims_blocks) gemm_internal::HwyGemmSplitUnits(f64, d, want_units, min_unit_flops);
}

absl::StatusOr<GemmKernel> SelectGemmKernel(ElementType t) {
  GemmKernel k;
  k.rows_per_unit = kGenericRows;
  switch (t) {
    case ElementType::kF32:
    case ElementType::kF64: {
      k.f64 = t == ElementType::kF64;
      k.fn = k.f64 ? &gemm_internal::HwyGemmF64 : &gemm_internal::HwyGemmF32;
      k.dims_blocks = true;
      return k;
    }
    case ElementType::kPred:
      k.fn = &GemmGeneric<uint8_t, OrAndOp>;
      return k;
    case ElementType::kS32:
    case ElementType::kU32:
      k.fn = &GemmGeneric<uint32_t, MulAddOp>;
      return k;
    case ElementType::kS64:
    case ElementType::kU64:
      k.fn = &GemmGeneric<uint64_t, MulAddOp>;
      return k;
    case ElementType::kC64:
      k.fn = &GemmGeneric<std::complex<float>, MulAddOp>;
      return k;
    case ElementType::kC128:
      k.fn = &GemmGeneric<std::complex<double>, MulAddOp>;
      return k;
    default:
      return absl::UnimplementedError(
          absl::StrCat("no GEMM kernel for compute type ", std::string(ElementTypeName(t))));
  }
}

}  // namespace hlovm
