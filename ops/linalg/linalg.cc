#include "ops/linalg/linalg.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace hlovm {
namespace {

// Rows solved (triangular-solve) or columns factored (cholesky) per block;
// the updates between blocks are GEMMs.
constexpr int64_t kBlock = 64;
// Right-hand sides per triangular-solve work unit.
constexpr int64_t kRhsPerUnit = 256;

template <typename T>
struct IsComplexT : std::false_type {};
template <typename R>
struct IsComplexT<std::complex<R>> : std::true_type {};

// Products in the textbook form (no C99 Annex G recovery of infinities), as
// XLA's complex multiply computes them.
template <typename T>
T Mul(T a, T b) {
  if constexpr (IsComplexT<T>::value) {
    return T(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
  } else {
    return a * b;
  }
}

template <typename T>
T Conj(T a) {
  if constexpr (IsComplexT<T>::value) {
    return std::conj(a);
  } else {
    return a;
  }
}

template <typename T>
auto RealPart(T a) {
  if constexpr (IsComplexT<T>::value) {
    return a.real();
  } else {
    return a;
  }
}

// Reads `count` elements starting at element `offset` of `src` (stored in
// types.type) into `dst` in the compute type, and the reverse.
template <typename T>
void Load(const LinalgTypes& types, const void* src, int64_t offset, int64_t count, T* dst) {
  const int width = ByteWidth(types.type);
  const uint8_t* from = static_cast<const uint8_t*>(src) + offset * width;
  if (types.to_compute != nullptr) {
    types.to_compute(from, dst, count);
  } else {
    std::memcpy(dst, from, count * sizeof(T));
  }
}

template <typename T>
void Store(const LinalgTypes& types, const T* src, void* dst, int64_t offset, int64_t count) {
  const int width = ByteWidth(types.type);
  uint8_t* to = static_cast<uint8_t*>(dst) + offset * width;
  if (types.from_compute != nullptr) {
    types.from_compute(src, to, count);
  } else {
    std::memcpy(to, src, count * sizeof(T));
  }
}

// c[rows x cols] = a[rows x depth] (row stride lda) x b[depth x cols] (b is
// read as b[p * b_sk + c * b_sn]), on the calling thread.
template <typename T>
void BlockGemm(const LinalgTypes& types, const T* a, int64_t lda, const T* b, int64_t b_sk,
               int64_t b_sn, T* c, int64_t rows, int64_t depth, int64_t cols) {
  GemmDims dims;
  dims.m = rows;
  dims.k = depth;
  dims.n = cols;
  dims.use_strides = true;
  dims.a_sm = lda;
  dims.a_sk = 1;
  dims.b_sk = b_sk;
  dims.b_sn = b_sn;
  types.gemm.RunAll(a, b, c, dims);
}

absl::StatusOr<LinalgTypes> MakeTypes(ElementType type) {
  LinalgTypes t;
  t.type = type;
  switch (type) {
    case ElementType::kF32:
    case ElementType::kF64:
    case ElementType::kC64:
    case ElementType::kC128:
      t.compute = type;
      break;
    default:
      if (!IsFloatingPoint(type)) {
        return absl::UnimplementedError(
            absl::StrCat("linear algebra on ", std::string(ElementTypeName(type)), " is not supported"));
      }
      t.compute = ElementType::kF32;
      HLOVM_ASSIGN_OR_RETURN(t.to_compute, SelectConvertKernel(type, ElementType::kF32));
      HLOVM_ASSIGN_OR_RETURN(t.from_compute, SelectConvertKernel(ElementType::kF32, type));
  }
  if (t.compute == ElementType::kF32 || t.compute == ElementType::kF64) {
    HLOVM_ASSIGN_OR_RETURN(t.gemm, SelectGemmKernel(t.compute));
    t.use_gemm = true;
  }
  return t;
}

int64_t BatchOf(const Shape& s) {
  int64_t batch = 1;
  for (int64_t i = 0; i + 2 < s.rank(); ++i) batch *= s.dimensions(i);
  return batch;
}

// ---- triangular-solve ----

template <typename T>
void SolveUnit(const TriangularSolvePlan& p, const void* a, const void* b, void* x, int64_t unit) {
  const int64_t m = p.m, n = p.n;
  const int64_t bi = unit / p.units_per_matrix;
  const int64_t c0 = (unit % p.units_per_matrix) * p.rhs_per_unit;
  const int64_t w = std::min(p.rhs_per_unit, n - c0);
  if (w <= 0 || m == 0) return;
  const int64_t a_base = bi * m * m, b_base = bi * m * n;
  // The system matrix S, triangular: S = op(a) for left_side, op(a)^T
  // otherwise (x op(a) = b is op(a)^T x^T = b^T); its rows are solved for
  // the unit's columns W (m x w).
  const bool flip = (p.transpose_a != TriangularSolveTranspose::kNoTranspose) != !p.left_side;
  const bool conj = p.transpose_a == TriangularSolveTranspose::kAdjoint;
  const bool s_lower = p.lower != flip;
  std::vector<T> s(m * m, T(0)), row(m), wbuf(m * w), tmp(kBlock * w);
  for (int64_t i = 0; i < m; ++i) {
    Load(p.types, a, a_base + i * m, m, row.data());
    const int64_t j_begin = p.lower ? 0 : i, j_end = p.lower ? i + 1 : m;
    for (int64_t j = j_begin; j < j_end; ++j) {
      const T v = conj ? Conj(row[j]) : row[j];
      (flip ? s[j * m + i] : s[i * m + j]) = v;
    }
  }
  T* W = wbuf.data();
  if (p.left_side) {
    for (int64_t i = 0; i < m; ++i) Load(p.types, b, b_base + i * n + c0, w, W + i * w);
  } else {
    for (int64_t c = 0; c < w; ++c) {
      Load(p.types, b, b_base + (c0 + c) * m, m, row.data());
      for (int64_t i = 0; i < m; ++i) W[i * w + c] = row[i];
    }
  }
  const int64_t blocks = (m + kBlock - 1) / kBlock;
  for (int64_t t = 0; t < blocks; ++t) {
    // Lower: blocks from the top; upper: from the bottom.
    const int64_t i0 = s_lower ? t * kBlock : std::max<int64_t>(0, m - (t + 1) * kBlock);
    const int64_t i1 = s_lower ? std::min(m, i0 + kBlock) : m - t * kBlock;
    const int64_t d0 = s_lower ? 0 : i1, d1 = s_lower ? i0 : m;  // solved rows
    if (d1 > d0) {
      if constexpr (!IsComplexT<T>::value) {
        if (p.types.use_gemm) {
          BlockGemm(p.types, s.data() + i0 * m + d0, m, W + d0 * w, w, 1, tmp.data(), i1 - i0,
                    d1 - d0, w);
          for (int64_t i = i0; i < i1; ++i) {
            T* wi = W + i * w;
            const T* ti = tmp.data() + (i - i0) * w;
            for (int64_t c = 0; c < w; ++c) wi[c] -= ti[c];
          }
        }
      }
      if (!p.types.use_gemm) {
        for (int64_t i = i0; i < i1; ++i) {
          T* wi = W + i * w;
          for (int64_t j = d0; j < d1; ++j) {
            const T sij = s[i * m + j];
            const T* wj = W + j * w;
            for (int64_t c = 0; c < w; ++c) wi[c] -= Mul(sij, wj[c]);
          }
        }
      }
    }
    for (int64_t step = 0; step < i1 - i0; ++step) {
      const int64_t i = s_lower ? i0 + step : i1 - 1 - step;
      T* wi = W + i * w;
      const int64_t j0 = s_lower ? i0 : i + 1, j1 = s_lower ? i : i1;
      for (int64_t j = j0; j < j1; ++j) {
        const T sij = s[i * m + j];
        const T* wj = W + j * w;
        for (int64_t c = 0; c < w; ++c) wi[c] -= Mul(sij, wj[c]);
      }
      if (!p.unit_diagonal) {
        const T d = s[i * m + i];
        for (int64_t c = 0; c < w; ++c) wi[c] /= d;
      }
    }
  }
  if (p.left_side) {
    for (int64_t i = 0; i < m; ++i) Store(p.types, W + i * w, x, b_base + i * n + c0, w);
  } else {
    for (int64_t c = 0; c < w; ++c) {
      for (int64_t i = 0; i < m; ++i) row[i] = W[i * w + c];
      Store(p.types, row.data(), x, b_base + (c0 + c) * m, m);
    }
  }
}

// ---- cholesky ----

template <typename T>
void CholeskyUnit(const CholeskyPlan& p, const void* a, void* out, int64_t bi) {
  const int64_t n = p.n;
  if (n == 0) return;
  const int64_t base = bi * n * n;
  std::vector<T> wbuf(n * n), lbuf(n * n, T(0));
  T* W = wbuf.data();
  T* L = lbuf.data();
  Load(p.types, a, base, n * n, W);
  if (!p.lower) {  // factor the transpose (not the adjoint), as XLA does
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j) std::swap(W[i * n + j], W[j * n + i]);
    }
  }
  using R = decltype(RealPart(T()));
  bool failed = false;
  const int64_t block = p.types.use_gemm ? kBlock : n;
  std::vector<T> tmp(p.types.use_gemm ? n * block : 0);
  for (int64_t i0 = 0; i0 < n; i0 += block) {
    const int64_t k = std::min(block, n - i0);
    if constexpr (!IsComplexT<T>::value) {
      if (i0 > 0) {
        // Panel update from the finished columns: W[i0:, i0:i0+k] -=
        // L[i0:, :i0] L[i0:i0+k, :i0]^T.
        BlockGemm(p.types, L + i0 * n, n, L + i0 * n, 1, n, tmp.data(), n - i0, i0, k);
        for (int64_t r = i0; r < n; ++r) {
          T* wr = W + r * n + i0;
          const T* tr = tmp.data() + (r - i0) * k;
          for (int64_t c = 0; c < k; ++c) wr[c] -= tr[c];
        }
      }
    }
    for (int64_t j = i0; j < i0 + k; ++j) {
      const T* lj = L + j * n;
      T d = W[j * n + j];
      for (int64_t q = i0; q < j; ++q) d -= Mul(lj[q], Conj(lj[q]));
      const R ljj = std::sqrt(RealPart(d));
      if (std::isnan(ljj)) failed = true;
      L[j * n + j] = T(ljj);
      for (int64_t r = j + 1; r < n; ++r) {
        const T* lr = L + r * n;
        T v = W[r * n + j];
        for (int64_t q = i0; q < j; ++q) v -= Mul(lr[q], Conj(lj[q]));
        L[r * n + j] = v / T(ljj);
      }
    }
  }
  if (failed) {
    std::fill(lbuf.begin(), lbuf.end(), T(std::numeric_limits<R>::quiet_NaN()));
  } else if (!p.lower) {
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j) std::swap(L[i * n + j], L[j * n + i]);
    }
  }
  Store(p.types, L, out, base, n * n);
}

template <typename Fn>
void DispatchCompute(ElementType compute, Fn&& fn) {
  switch (compute) {
    case ElementType::kF32: fn(float()); break;
    case ElementType::kF64: fn(double()); break;
    case ElementType::kC64: fn(std::complex<float>()); break;
    case ElementType::kC128: fn(std::complex<double>()); break;
    default: break;
  }
}

}  // namespace

absl::StatusOr<TriangularSolvePlan> MakeTriangularSolvePlan(const Shape& a, const Shape& b,
                                                            bool left_side, bool lower,
                                                            bool unit_diagonal,
                                                            TriangularSolveTranspose transpose_a) {
  if (!a.IsArray() || !b.IsArray() || a.rank() < 2 || b.rank() != a.rank()) {
    return absl::InvalidArgumentError("triangular-solve needs a [..., m, m] and b of equal rank");
  }
  TriangularSolvePlan p;
  HLOVM_ASSIGN_OR_RETURN(p.types, MakeTypes(a.element_type()));
  const int64_t r = a.rank();
  p.batch = BatchOf(a);
  p.m = a.dimensions(r - 1);
  p.n = b.dimensions(left_side ? r - 1 : r - 2);
  p.left_side = left_side;
  p.lower = lower;
  p.unit_diagonal = unit_diagonal;
  p.transpose_a = transpose_a;
  p.rhs_per_unit = std::max<int64_t>(1, std::min(p.n, kRhsPerUnit));
  p.units_per_matrix = p.n == 0 ? 0 : (p.n + p.rhs_per_unit - 1) / p.rhs_per_unit;
  return p;
}

void RunTriangularSolve(const TriangularSolvePlan& plan, const void* a, const void* b, void* x,
                        int64_t unit_begin, int64_t unit_end) {
  DispatchCompute(plan.types.compute, [&](auto zero) {
    using T = decltype(zero);
    for (int64_t u = unit_begin; u < unit_end; ++u) SolveUnit<T>(plan, a, b, x, u);
  });
}

absl::StatusOr<CholeskyPlan> MakeCholeskyPlan(const Shape& a, bool lower) {
  if (!a.IsArray() || a.rank() < 2 || a.dimensions(a.rank() - 1) != a.dimensions(a.rank() - 2)) {
    return absl::InvalidArgumentError("cholesky needs [..., n, n]");
  }
  CholeskyPlan p;
  HLOVM_ASSIGN_OR_RETURN(p.types, MakeTypes(a.element_type()));
  p.batch = BatchOf(a);
  p.n = a.dimensions(a.rank() - 1);
  p.lower = lower;
  return p;
}

void RunCholesky(const CholeskyPlan& plan, const void* a, void* l, int64_t unit_begin,
                 int64_t unit_end) {
  DispatchCompute(plan.types.compute, [&](auto zero) {
    using T = decltype(zero);
    for (int64_t u = unit_begin; u < unit_end; ++u) CholeskyUnit<T>(plan, a, l, u);
  });
}

}  // namespace hlovm
