// The lapack_*_ffi targets for eigenvalues, singular values and the
// reductions before them (ops/linalg/lapack.h): syevd/heevd, gesdd, gesvd,
// geev, gehrd, sytrd/hetrd and gees.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "core/status_macros.h"
#include "ops/custom/ffi_attributes.h"
#include "ops/linalg/lapack_internal.h"
#include "ops/linalg/lapack_routines.h"
#include "vm/custom_call.h"

namespace hlovm {
namespace lapack_internal {
namespace {

//===----------------------------------------------------------------------===//
// syevd / heevd
//===----------------------------------------------------------------------===//

template <typename T>
class SyevdCall final : public PreparedCustomCall {
 public:
  Batch b;
  char uplo, mode;

  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    const int64_t n = b.rows;
    const bool vectors = mode == 'V';
    // The minimum workspaces LAPACK documents (jaxlib passes the same).
    const int64_t lwork = kIsComplex<T> ? (vectors ? 2 * n + n * n : n + 1)
                                        : (vectors ? 1 + 6 * n + 2 * n * n : 2 * n + 1);
    const int64_t lrwork = vectors ? 1 + 5 * n + 2 * n * n : std::max<int64_t>(n, 1);
    const int64_t liwork = vectors ? 3 + 5 * n : 1;
    std::vector<T> a(std::max<int64_t>(1, n * n)), work(std::max<int64_t>(1, lwork));
    std::vector<Real<T>> w(std::max<int64_t>(1, n)), rwork(std::max<int64_t>(1, lrwork));
    std::vector<lapack_int> iwork(std::max<int64_t>(1, liwork));
    const lapack_int ni = static_cast<lapack_int>(n), lda = Ld(n);
    const lapack_int lw = static_cast<lapack_int>(work.size()),
                     lrw = static_cast<lapack_int>(rwork.size()),
                     liw = static_cast<lapack_int>(iwork.size());
    absl::MutexLock lock(&LapackMutex());
    for (int64_t i = 0; i < b.count; ++i) {
      ToColumnMajor(operands[0].data + i * n * n * sizeof(T), n, n, a.data());
      lapack_int info = 0;
      if constexpr (std::is_same_v<T, float>) {
        lapack::ssyevd_(&mode, &uplo, &ni, a.data(), &lda, w.data(), work.data(), &lw,
                        iwork.data(), &liw, &info, 1, 1);
      } else if constexpr (std::is_same_v<T, double>) {
        lapack::dsyevd_(&mode, &uplo, &ni, a.data(), &lda, w.data(), work.data(), &lw,
                        iwork.data(), &liw, &info, 1, 1);
      } else if constexpr (std::is_same_v<T, lapack::c32>) {
        lapack::cheevd_(&mode, &uplo, &ni, a.data(), &lda, w.data(), work.data(), &lw,
                        rwork.data(), &lrw, iwork.data(), &liw, &info, 1, 1);
      } else {
        lapack::zheevd_(&mode, &uplo, &ni, a.data(), &lda, w.data(), work.data(), &lw,
                        rwork.data(), &lrw, iwork.data(), &liw, &info, 1, 1);
      }
      FromColumnMajor(a.data(), n, n, n, results[0].data + i * n * n * sizeof(T));
      std::copy(w.begin(), w.begin() + n, At<Real<T>>(results[1], i * n));
      *At<int32_t>(results[2], i) = ToInfo(info);
    }
    return absl::OkStatus();
  }
};

template <typename T>
absl::StatusOr<std::unique_ptr<PreparedCustomCall>> MakeSyevd(const HloInstruction& instr) {
  HLOVM_ASSIGN_OR_RETURN(CallSite site, Describe(instr, 1, 3));
  auto call = std::make_unique<SyevdCall<T>>();
  HLOVM_ASSIGN_OR_RETURN(FfiAttributes attrs, In(site, FfiAttributes::Parse(instr.attrs().backend_config)));
  HLOVM_ASSIGN_OR_RETURN(call->uplo, In(site, attrs.Char("uplo", "LU")));
  HLOVM_ASSIGN_OR_RETURN(call->mode, In(site, attrs.Char("mode", "VN")));
  HLOVM_ASSIGN_OR_RETURN(call->b, SplitBatch(site, "operand 0", site.operands[0], true));
  const Batch& b = call->b;
  const int64_t n = b.rows;
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "operand 0", site.operands[0], TypeOf<T>(), b.With({n, n})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 0 (vectors)", site.results[0], TypeOf<T>(), b.With({n, n})));
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, "result 1 (eigenvalues)", site.results[1],
                                    TypeOf<Real<T>>(), b.With({n})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 2 (info)", site.results[2], ElementType::kS32, b.dims));
  return Prepared(std::move(call));
}

// True when no element is NaN or infinite.
template <typename T>
bool AllFinite(const T* data, int64_t size) {
  for (int64_t i = 0; i < size; ++i) {
    if constexpr (kIsComplex<T>) {
      if (!std::isfinite(data[i].real()) || !std::isfinite(data[i].imag())) return false;
    } else {
      if (!std::isfinite(data[i])) return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// gesdd / gesvd
//===----------------------------------------------------------------------===//

template <typename T>
void Gesdd(const char* jobz, const lapack_int* m, const lapack_int* n, T* a,
           const lapack_int* lda, Real<T>* s, T* u, const lapack_int* ldu, T* vt,
           const lapack_int* ldvt, T* work, const lapack_int* lwork, Real<T>* rwork,
           lapack_int* iwork, lapack_int* info) {
  if constexpr (std::is_same_v<T, float>) {
    lapack::sgesdd_(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info, 1);
  } else if constexpr (std::is_same_v<T, double>) {
    lapack::dgesdd_(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info, 1);
  } else if constexpr (std::is_same_v<T, lapack::c32>) {
    lapack::cgesdd_(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork, info, 1);
  } else {
    lapack::zgesdd_(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork, info, 1);
  }
}

template <typename T>
void Gesvd(const char* job, const lapack_int* m, const lapack_int* n, T* a, const lapack_int* lda,
           Real<T>* s, T* u, const lapack_int* ldu, T* vt, const lapack_int* ldvt, T* work,
           const lapack_int* lwork, Real<T>* rwork, lapack_int* info) {
  if constexpr (std::is_same_v<T, float>) {
    lapack::sgesvd_(job, job, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, info, 1, 1);
  } else if constexpr (std::is_same_v<T, double>) {
    lapack::dgesvd_(job, job, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, info, 1, 1);
  } else if constexpr (std::is_same_v<T, lapack::c32>) {
    lapack::cgesvd_(job, job, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, info, 1, 1);
  } else {
    lapack::zgesvd_(job, job, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, info, 1, 1);
  }
}

// gesdd (divide and conquer) and gesvd (QR iteration): the same operands,
// results and modes.
template <typename T>
class GesddCall final : public PreparedCustomCall {
 public:
  bool qr_iteration = false;  // gesvd
  Batch b;
  char mode;
  int64_t u_cols = 0, vt_rows = 0;
  lapack_int lwork = 1;
  int64_t lrwork = 1;

  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    const int64_t m = b.rows, n = b.cols, k = std::min(m, n);
    std::vector<T> a(std::max<int64_t>(1, m * n)), u(std::max<int64_t>(1, m * u_cols)),
        vt(std::max<int64_t>(1, vt_rows * n)), work(lwork);
    std::vector<Real<T>> s(std::max<int64_t>(1, k)), rwork(std::max<int64_t>(1, lrwork));
    std::vector<lapack_int> iwork(std::max<int64_t>(1, 8 * k));
    const lapack_int mi = static_cast<lapack_int>(m), ni = static_cast<lapack_int>(n),
                     lda = Ld(m), ldu = Ld(m), ldvt = Ld(vt_rows);
    absl::MutexLock lock(&LapackMutex());
    for (int64_t i = 0; i < b.count; ++i) {
      ToColumnMajor(operands[0].data + i * m * n * sizeof(T), m, n, a.data());
      std::fill(u.begin(), u.end(), T(0));
      std::fill(vt.begin(), vt.end(), T(0));
      lapack_int info = 0;
      if (!AllFinite(a.data(), m * n)) {
        // LAPACK's SVD can loop forever on an infinity; as jaxlib's geev
        // does for any non-finite input, report -4 without calling it.
        info = -4;
        const Real<T> nan = std::numeric_limits<Real<T>>::quiet_NaN();
        std::fill(s.begin(), s.end(), nan);
        std::fill(u.begin(), u.end(), T(nan));
        std::fill(vt.begin(), vt.end(), T(nan));
      } else if (k > 0 && qr_iteration) {
        Gesvd<T>(&mode, &mi, &ni, a.data(), &lda, s.data(), u.data(), &ldu, vt.data(), &ldvt,
                 work.data(), &lwork, rwork.data(), &info);
      } else if (k > 0) {
        Gesdd<T>(&mode, &mi, &ni, a.data(), &lda, s.data(), u.data(), &ldu, vt.data(), &ldvt,
                 work.data(), &lwork, rwork.data(), iwork.data(), &info);
      }
      FromColumnMajor(a.data(), m, n, m, results[0].data + i * m * n * sizeof(T));
      std::copy(s.begin(), s.begin() + k, At<Real<T>>(results[1], i * k));
      FromColumnMajor(u.data(), m, u_cols, m, results[2].data + i * m * u_cols * sizeof(T));
      FromColumnMajor(vt.data(), vt_rows, n, vt_rows,
                      results[3].data + i * vt_rows * n * sizeof(T));
      *At<int32_t>(results[4], i) = ToInfo(info);
    }
    return absl::OkStatus();
  }
};

template <typename T, bool kQrIteration>
absl::StatusOr<std::unique_ptr<PreparedCustomCall>> MakeSvd(const HloInstruction& instr) {
  HLOVM_ASSIGN_OR_RETURN(CallSite site, Describe(instr, 1, 5));
  auto call = std::make_unique<GesddCall<T>>();
  call->qr_iteration = kQrIteration;
  HLOVM_ASSIGN_OR_RETURN(FfiAttributes attrs, In(site, FfiAttributes::Parse(instr.attrs().backend_config)));
  HLOVM_ASSIGN_OR_RETURN(int64_t mode, In(site, attrs.Integer("mode")));
  if (mode == 'O') {
    return absl::UnimplementedError(absl::StrCat(
        "custom-call \"", site.target,
        "\": mode 'O' (overwrite the input with U) is not implemented, as in jaxlib"));
  }
  HLOVM_ASSIGN_OR_RETURN(call->mode, In(site, attrs.Char("mode", "ASN")));
  HLOVM_ASSIGN_OR_RETURN(call->b, SplitBatch(site, "operand 0", site.operands[0], false));
  const Batch& b = call->b;
  const int64_t m = b.rows, n = b.cols, k = std::min(m, n);
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "operand 0", site.operands[0], TypeOf<T>(), b.With({m, n})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 0", site.results[0], TypeOf<T>(), b.With({m, n})));
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, "result 1 (singular values)", site.results[1],
                                    TypeOf<Real<T>>(), b.With({k})));
  const Shape& u = site.results[2];
  const Shape& vt = site.results[3];
  if (call->mode == 'N') {
    // jaxlib allocates u and vt anyway, full or reduced; LAPACK leaves them
    // alone.
    if (u.rank() != static_cast<int64_t>(b.dims.size()) + 2 ||
        vt.rank() != static_cast<int64_t>(b.dims.size()) + 2) {
      return site.Error("results 2 and 3 (u, vt) must be batches of matrices");
    }
    call->u_cols = u.dimensions(u.rank() - 1);
    call->vt_rows = vt.dimensions(vt.rank() - 2);
  } else {
    call->u_cols = call->mode == 'A' ? m : k;
    call->vt_rows = call->mode == 'A' ? n : k;
  }
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 2 (u)", u, TypeOf<T>(), b.With({m, call->u_cols})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 3 (vt)", vt, TypeOf<T>(), b.With({call->vt_rows, n})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 4 (info)", site.results[4], ElementType::kS32, b.dims));
  if (k > 0) {
    const lapack_int mi = static_cast<lapack_int>(m), ni = static_cast<lapack_int>(n),
                     lda = Ld(m), ldu = Ld(m), ldvt = Ld(call->vt_rows), query = -1;
    T size{};
    lapack_int info = 0;
    {
      absl::MutexLock lock(&LapackMutex());
      if (kQrIteration) {
        Gesvd<T>(&call->mode, &mi, &ni, nullptr, &lda, nullptr, nullptr, &ldu, nullptr, &ldvt,
                 &size, &query, nullptr, &info);
      } else {
        Gesdd<T>(&call->mode, &mi, &ni, nullptr, &lda, nullptr, nullptr, &ldu, nullptr, &ldvt,
                 &size, &query, nullptr, nullptr, &info);
      }
    }
    call->lwork = WorkSize(size, info);
  }
  if constexpr (kIsComplex<T>) {
    const int64_t mx = std::max(m, n);
    call->lrwork = kQrIteration      ? 5 * k
                   : call->mode == 'N' ? 7 * k
                                       : std::max(5 * k * k + 5 * k, 2 * mx * k + 2 * k * k + k);
  }
  return Prepared(std::move(call));
}

//===----------------------------------------------------------------------===//
// geev
//===----------------------------------------------------------------------===//


// LAPACK's real eigenvectors, column-major: a real eigenvalue's vector is one
// column; a conjugate pair (wi[j] > 0, wi[j+1] < 0) shares columns j (real
// part) and j+1 (imaginary part). Writes the complex vectors, column-major.
template <typename T>
void UnpackEigenvectors(int64_t n, const T* wi, const T* packed, std::complex<T>* out) {
  for (int64_t j = 0; j < n;) {
    if (wi[j] == 0 || std::isnan(wi[j]) || j + 1 == n) {
      for (int64_t i = 0; i < n; ++i) out[j * n + i] = {packed[j * n + i], 0};
      ++j;
    } else {
      for (int64_t i = 0; i < n; ++i) {
        const T re = packed[j * n + i], im = packed[(j + 1) * n + i];
        out[j * n + i] = {re, im};
        out[(j + 1) * n + i] = {re, -im};
      }
      j += 2;
    }
  }
}

template <typename T>
class GeevCall final : public PreparedCustomCall {
 public:
  Batch b;
  char left, right;
  lapack_int lwork = 1;

  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    const int64_t n = b.rows;
    const lapack_int ni = static_cast<lapack_int>(n), ld = Ld(n);
    using C = std::conditional_t<kIsComplex<T>, T, std::complex<T>>;
    std::vector<T> a(std::max<int64_t>(1, n * n)), work(lwork), vl(std::max<int64_t>(1, n * n)),
        vr(std::max<int64_t>(1, n * n));
    std::vector<C> cvl(std::max<int64_t>(1, n * n)), cvr(std::max<int64_t>(1, n * n));
    // Real: wr, wi; complex: w.
    std::vector<T> w1(std::max<int64_t>(1, n)), w2(std::max<int64_t>(1, n));
    std::vector<Real<T>> rwork(std::max<int64_t>(1, 2 * n));
    const int vl_index = kIsComplex<T> ? 1 : 2;
    absl::MutexLock lock(&LapackMutex());
    for (int64_t i = 0; i < b.count; ++i) {
      ToColumnMajor(operands[0].data + i * n * n * sizeof(T), n, n, a.data());
      std::fill(vl.begin(), vl.end(), T(0));
      std::fill(vr.begin(), vr.end(), T(0));
      std::fill(w1.begin(), w1.end(), T(0));
      std::fill(w2.begin(), w2.end(), T(0));
      std::fill(cvl.begin(), cvl.end(), C(0));
      std::fill(cvr.begin(), cvr.end(), C(0));
      lapack_int info = 0;
      if (!AllFinite(a.data(), n * n)) {
        info = -4;
        const Real<T> nan = std::numeric_limits<Real<T>>::quiet_NaN();
        std::fill(w1.begin(), w1.end(), T(nan));
        std::fill(w2.begin(), w2.end(), T(nan));
        std::fill(cvl.begin(), cvl.end(), C(nan, nan));
        std::fill(cvr.begin(), cvr.end(), C(nan, nan));
      } else if (n > 0) {
        if constexpr (std::is_same_v<T, float>) {
          lapack::sgeev_(&left, &right, &ni, a.data(), &ld, w1.data(), w2.data(), vl.data(), &ld,
                         vr.data(), &ld, work.data(), &lwork, &info, 1, 1);
        } else if constexpr (std::is_same_v<T, double>) {
          lapack::dgeev_(&left, &right, &ni, a.data(), &ld, w1.data(), w2.data(), vl.data(), &ld,
                         vr.data(), &ld, work.data(), &lwork, &info, 1, 1);
        } else if constexpr (std::is_same_v<T, lapack::c32>) {
          lapack::cgeev_(&left, &right, &ni, a.data(), &ld, w1.data(), vl.data(), &ld, vr.data(),
                         &ld, work.data(), &lwork, rwork.data(), &info, 1, 1);
        } else {
          lapack::zgeev_(&left, &right, &ni, a.data(), &ld, w1.data(), vl.data(), &ld, vr.data(),
                         &ld, work.data(), &lwork, rwork.data(), &info, 1, 1);
        }
      }
      if constexpr (kIsComplex<T>) {
        if (info == 0) {
          if (left == 'V') std::copy(vl.begin(), vl.end(), cvl.begin());
          if (right == 'V') std::copy(vr.begin(), vr.end(), cvr.begin());
        }
        std::copy(w1.begin(), w1.begin() + n, At<T>(results[0], i * n));
      } else {
        if (info == 0) {
          if (left == 'V') UnpackEigenvectors(n, w2.data(), vl.data(), cvl.data());
          if (right == 'V') UnpackEigenvectors(n, w2.data(), vr.data(), cvr.data());
        }
        std::copy(w1.begin(), w1.begin() + n, At<T>(results[0], i * n));
        std::copy(w2.begin(), w2.begin() + n, At<T>(results[1], i * n));
      }
      FromColumnMajor(cvl.data(), n, n, n, results[vl_index].data + i * n * n * sizeof(C));
      FromColumnMajor(cvr.data(), n, n, n, results[vl_index + 1].data + i * n * n * sizeof(C));
      *At<int32_t>(results[vl_index + 2], i) = ToInfo(info);
    }
    return absl::OkStatus();
  }
};

template <typename T>
absl::StatusOr<std::unique_ptr<PreparedCustomCall>> MakeGeev(const HloInstruction& instr) {
  constexpr int kResults = kIsComplex<T> ? 4 : 5;
  HLOVM_ASSIGN_OR_RETURN(CallSite site, Describe(instr, 1, kResults));
  auto call = std::make_unique<GeevCall<T>>();
  HLOVM_ASSIGN_OR_RETURN(FfiAttributes attrs, In(site, FfiAttributes::Parse(instr.attrs().backend_config)));
  HLOVM_ASSIGN_OR_RETURN(call->left, In(site, attrs.Char("compute_left", "NV")));
  HLOVM_ASSIGN_OR_RETURN(call->right, In(site, attrs.Char("compute_right", "NV")));
  HLOVM_ASSIGN_OR_RETURN(call->b, SplitBatch(site, "operand 0", site.operands[0], true));
  const Batch& b = call->b;
  const int64_t n = b.rows;
  constexpr ElementType kC =
      TypeOf<T>() == ElementType::kF32 ? ElementType::kC64
      : TypeOf<T>() == ElementType::kF64 ? ElementType::kC128
                                         : TypeOf<T>();
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "operand 0", site.operands[0], TypeOf<T>(), b.With({n, n})));
  int r = 0;
  if constexpr (kIsComplex<T>) {
    HLOVM_RETURN_IF_ERROR(
        ExpectShape(site, "result 0 (eigenvalues)", site.results[r++], TypeOf<T>(), b.With({n})));
  } else {
    HLOVM_RETURN_IF_ERROR(ExpectShape(site, "result 0 (real parts of the eigenvalues)",
                                      site.results[r++], TypeOf<T>(), b.With({n})));
    HLOVM_RETURN_IF_ERROR(ExpectShape(site, "result 1 (imaginary parts of the eigenvalues)",
                                      site.results[r++], TypeOf<T>(), b.With({n})));
  }
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, absl::StrCat("result ", r, " (left eigenvectors)"),
                                    site.results[r], kC, b.With({n, n})));
  ++r;
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, absl::StrCat("result ", r, " (right eigenvectors)"),
                                    site.results[r], kC, b.With({n, n})));
  ++r;
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, absl::StrCat("result ", r, " (info)"), site.results[r],
                                    ElementType::kS32, b.dims));
  if (n > 0) {
    const lapack_int ni = static_cast<lapack_int>(n), ld = Ld(n), query = -1;
    T size{};
    lapack_int info = 0;
    Real<T> rdummy = 0;
    absl::MutexLock lock(&LapackMutex());
    if constexpr (std::is_same_v<T, float>) {
      lapack::sgeev_(&call->left, &call->right, &ni, nullptr, &ld, nullptr, nullptr, nullptr, &ld,
                     nullptr, &ld, &size, &query, &info, 1, 1);
    } else if constexpr (std::is_same_v<T, double>) {
      lapack::dgeev_(&call->left, &call->right, &ni, nullptr, &ld, nullptr, nullptr, nullptr, &ld,
                     nullptr, &ld, &size, &query, &info, 1, 1);
    } else if constexpr (std::is_same_v<T, lapack::c32>) {
      lapack::cgeev_(&call->left, &call->right, &ni, nullptr, &ld, nullptr, nullptr, &ld, nullptr,
                     &ld, &size, &query, &rdummy, &info, 1, 1);
    } else {
      lapack::zgeev_(&call->left, &call->right, &ni, nullptr, &ld, nullptr, nullptr, &ld, nullptr,
                     &ld, &size, &query, &rdummy, &info, 1, 1);
    }
    call->lwork = WorkSize(size, info);
  }
  return Prepared(std::move(call));
}

//===----------------------------------------------------------------------===//
// gehrd
//===----------------------------------------------------------------------===//

template <typename T>
class GehrdCall final : public PreparedCustomCall {
 public:
  Batch b;
  lapack_int low = 1, high = 1;
  lapack_int lwork = 1;

  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    const int64_t n = b.rows;
    std::vector<T> a(n * n), tau(std::max<int64_t>(1, n - 1)), work(lwork);
    const lapack_int ni = static_cast<lapack_int>(n), lda = Ld(n);
    absl::MutexLock lock(&LapackMutex());
    for (int64_t i = 0; i < b.count; ++i) {
      ToColumnMajor(operands[0].data + i * n * n * sizeof(T), n, n, a.data());
      // LAPACK sets tau(1:ilo-1) and tau(ihi:n-1) to zero itself.
      std::fill(tau.begin(), tau.end(), T(0));
      lapack_int info = 0;
      Routines<T>::gehrd(&ni, &low, &high, a.data(), &lda, tau.data(), work.data(), &lwork, &info);
      FromColumnMajor(a.data(), n, n, n, results[0].data + i * n * n * sizeof(T));
      std::copy(tau.begin(), tau.begin() + (n - 1), At<T>(results[1], i * (n - 1)));
      *At<int32_t>(results[2], i) = ToInfo(info);
    }
    return absl::OkStatus();
  }
};

template <typename T>
absl::StatusOr<std::unique_ptr<PreparedCustomCall>> MakeGehrd(const HloInstruction& instr) {
  HLOVM_ASSIGN_OR_RETURN(CallSite site, Describe(instr, 1, 3));
  auto call = std::make_unique<GehrdCall<T>>();
  HLOVM_ASSIGN_OR_RETURN(FfiAttributes attrs, In(site, FfiAttributes::Parse(instr.attrs().backend_config)));
  HLOVM_ASSIGN_OR_RETURN(int64_t low, In(site, attrs.Integer("low")));
  HLOVM_ASSIGN_OR_RETURN(int64_t high, In(site, attrs.Integer("high")));
  HLOVM_ASSIGN_OR_RETURN(call->b, SplitBatch(site, "operand 0", site.operands[0], true));
  const Batch& b = call->b;
  const int64_t n = b.rows;
  if (n < 1) return site.Error("needs matrices of at least one row");
  if (!(1 <= low && low <= high && high <= n)) {
    return site.Error(absl::StrCat("needs 1 <= low <= high <= n, got low = ", low,
                                   ", high = ", high, ", n = ", n));
  }
  call->low = static_cast<lapack_int>(low);
  call->high = static_cast<lapack_int>(high);
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "operand 0", site.operands[0], TypeOf<T>(), b.With({n, n})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 0", site.results[0], TypeOf<T>(), b.With({n, n})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 1 (tau)", site.results[1], TypeOf<T>(), b.With({n - 1})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 2 (info)", site.results[2], ElementType::kS32, b.dims));
  const lapack_int ni = static_cast<lapack_int>(n), lda = Ld(n), query = -1;
  T size{};
  lapack_int info = 0;
  {
    absl::MutexLock lock(&LapackMutex());
    Routines<T>::gehrd(&ni, &call->low, &call->high, nullptr, &lda, nullptr, &size, &query, &info);
  }
  call->lwork = WorkSize(size, info);
  return Prepared(std::move(call));
}

//===----------------------------------------------------------------------===//
// sytrd / hetrd
//===----------------------------------------------------------------------===//

template <typename T>
class SytrdCall final : public PreparedCustomCall {
 public:
  Batch b;
  char uplo;
  lapack_int lwork = 1;

  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    const int64_t n = b.rows;
    std::vector<T> a(n * n), tau(std::max<int64_t>(1, n - 1)), work(lwork);
    std::vector<Real<T>> d(n), e(std::max<int64_t>(1, n - 1));
    const lapack_int ni = static_cast<lapack_int>(n), lda = Ld(n);
    absl::MutexLock lock(&LapackMutex());
    for (int64_t i = 0; i < b.count; ++i) {
      ToColumnMajor(operands[0].data + i * n * n * sizeof(T), n, n, a.data());
      lapack_int info = 0;
      Routines<T>::sytrd_hetrd(&uplo, &ni, a.data(), &lda, d.data(), e.data(), tau.data(),
                               work.data(), &lwork, &info);
      FromColumnMajor(a.data(), n, n, n, results[0].data + i * n * n * sizeof(T));
      std::copy(d.begin(), d.end(), At<Real<T>>(results[1], i * n));
      std::copy(e.begin(), e.begin() + (n - 1), At<Real<T>>(results[2], i * (n - 1)));
      std::copy(tau.begin(), tau.begin() + (n - 1), At<T>(results[3], i * (n - 1)));
      *At<int32_t>(results[4], i) = ToInfo(info);
    }
    return absl::OkStatus();
  }
};

template <typename T>
absl::StatusOr<std::unique_ptr<PreparedCustomCall>> MakeSytrd(const HloInstruction& instr) {
  HLOVM_ASSIGN_OR_RETURN(CallSite site, Describe(instr, 1, 5));
  auto call = std::make_unique<SytrdCall<T>>();
  HLOVM_ASSIGN_OR_RETURN(FfiAttributes attrs, In(site, FfiAttributes::Parse(instr.attrs().backend_config)));
  HLOVM_ASSIGN_OR_RETURN(call->uplo, In(site, attrs.Char("uplo", "LU")));
  HLOVM_ASSIGN_OR_RETURN(call->b, SplitBatch(site, "operand 0", site.operands[0], true));
  const Batch& b = call->b;
  const int64_t n = b.rows;
  if (n < 1) return site.Error("needs matrices of at least one row");
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "operand 0", site.operands[0], TypeOf<T>(), b.With({n, n})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 0", site.results[0], TypeOf<T>(), b.With({n, n})));
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, "result 1 (diagonal)", site.results[1],
                                    TypeOf<Real<T>>(), b.With({n})));
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, "result 2 (off-diagonal)", site.results[2],
                                    TypeOf<Real<T>>(), b.With({n - 1})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 3 (tau)", site.results[3], TypeOf<T>(), b.With({n - 1})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 4 (info)", site.results[4], ElementType::kS32, b.dims));
  const lapack_int ni = static_cast<lapack_int>(n), lda = Ld(n), query = -1;
  T size{};
  lapack_int info = 0;
  {
    absl::MutexLock lock(&LapackMutex());
    Routines<T>::sytrd_hetrd(&call->uplo, &ni, nullptr, &lda, nullptr, nullptr, nullptr, &size,
                             &query, &info);
  }
  call->lwork = WorkSize(size, info);
  return Prepared(std::move(call));
}


//===----------------------------------------------------------------------===//
// gees
//===----------------------------------------------------------------------===//

template <typename T>
class GeesCall final : public PreparedCustomCall {
 public:
  Batch b;
  char mode;
  lapack_int lwork = 1;

  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    const int64_t n = b.rows;
    const lapack_int ni = static_cast<lapack_int>(n), ld = Ld(n);
    const char sort = 'N';
    std::vector<T> a(std::max<int64_t>(1, n * n)), vs(std::max<int64_t>(1, n * n)), work(lwork),
        w1(std::max<int64_t>(1, n)), w2(std::max<int64_t>(1, n));
    std::vector<Real<T>> rwork(std::max<int64_t>(1, n));
    const int r = kIsComplex<T> ? 3 : 4;  // index of sdim
    absl::MutexLock lock(&LapackMutex());
    for (int64_t i = 0; i < b.count; ++i) {
      ToColumnMajor(operands[0].data + i * n * n * sizeof(T), n, n, a.data());
      std::fill(vs.begin(), vs.end(), T(0));
      lapack_int sdim = 0, info = 0;
      if (n > 0) {
        if constexpr (std::is_same_v<T, float>) {
          lapack::sgees_(&mode, &sort, nullptr, &ni, a.data(), &ld, &sdim, w1.data(), w2.data(),
                         vs.data(), &ld, work.data(), &lwork, nullptr, &info, 1, 1);
        } else if constexpr (std::is_same_v<T, double>) {
          lapack::dgees_(&mode, &sort, nullptr, &ni, a.data(), &ld, &sdim, w1.data(), w2.data(),
                         vs.data(), &ld, work.data(), &lwork, nullptr, &info, 1, 1);
        } else if constexpr (std::is_same_v<T, lapack::c32>) {
          lapack::cgees_(&mode, &sort, nullptr, &ni, a.data(), &ld, &sdim, w1.data(), vs.data(),
                         &ld, work.data(), &lwork, rwork.data(), nullptr, &info, 1, 1);
        } else {
          lapack::zgees_(&mode, &sort, nullptr, &ni, a.data(), &ld, &sdim, w1.data(), vs.data(),
                         &ld, work.data(), &lwork, rwork.data(), nullptr, &info, 1, 1);
        }
      }
      FromColumnMajor(a.data(), n, n, n, results[0].data + i * n * n * sizeof(T));
      FromColumnMajor(vs.data(), n, n, n, results[1].data + i * n * n * sizeof(T));
      std::copy(w1.begin(), w1.begin() + n, At<T>(results[2], i * n));
      if constexpr (!kIsComplex<T>) std::copy(w2.begin(), w2.begin() + n, At<T>(results[3], i * n));
      *At<int32_t>(results[r], i) = ToInfo(sdim);
      *At<int32_t>(results[r + 1], i) = ToInfo(info);
    }
    return absl::OkStatus();
  }
};

template <typename T>
absl::StatusOr<std::unique_ptr<PreparedCustomCall>> MakeGees(const HloInstruction& instr) {
  constexpr int kResults = kIsComplex<T> ? 5 : 6;
  HLOVM_ASSIGN_OR_RETURN(CallSite site, Describe(instr, 1, kResults));
  auto call = std::make_unique<GeesCall<T>>();
  HLOVM_ASSIGN_OR_RETURN(FfiAttributes attrs, In(site, FfiAttributes::Parse(instr.attrs().backend_config)));
  HLOVM_ASSIGN_OR_RETURN(call->mode, In(site, attrs.Char("mode", "NV")));
  HLOVM_ASSIGN_OR_RETURN(int64_t sort, In(site, attrs.Integer("sort")));
  if (sort != 'N') {
    return absl::UnimplementedError(absl::StrCat(
        "custom-call \"", site.target,
        "\": sorting the eigenvalues (sort = 'S') is not implemented, as in jaxlib"));
  }
  HLOVM_ASSIGN_OR_RETURN(call->b, SplitBatch(site, "operand 0", site.operands[0], true));
  const Batch& b = call->b;
  const int64_t n = b.rows;
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "operand 0", site.operands[0], TypeOf<T>(), b.With({n, n})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 0 (Schur form)", site.results[0], TypeOf<T>(), b.With({n, n})));
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, "result 1 (Schur vectors)", site.results[1],
                                    TypeOf<T>(), b.With({n, n})));
  int r = 2;
  if constexpr (kIsComplex<T>) {
    HLOVM_RETURN_IF_ERROR(
        ExpectShape(site, "result 2 (eigenvalues)", site.results[r++], TypeOf<T>(), b.With({n})));
  } else {
    HLOVM_RETURN_IF_ERROR(ExpectShape(site, "result 2 (real parts of the eigenvalues)",
                                      site.results[r++], TypeOf<T>(), b.With({n})));
    HLOVM_RETURN_IF_ERROR(ExpectShape(site, "result 3 (imaginary parts of the eigenvalues)",
                                      site.results[r++], TypeOf<T>(), b.With({n})));
  }
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, absl::StrCat("result ", r, " (selected eigenvalues)"),
                                    site.results[r], ElementType::kS32, b.dims));
  ++r;
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, absl::StrCat("result ", r, " (info)"), site.results[r],
                                    ElementType::kS32, b.dims));
  if (n > 0) {
    const lapack_int ni = static_cast<lapack_int>(n), ld = Ld(n), query = -1;
    const char sort_v = 'N';
    T size{};
    lapack_int sdim = 0, info = 0;
    absl::MutexLock lock(&LapackMutex());
    if constexpr (std::is_same_v<T, float>) {
      lapack::sgees_(&call->mode, &sort_v, nullptr, &ni, nullptr, &ld, &sdim, nullptr, nullptr,
                     nullptr, &ld, &size, &query, nullptr, &info, 1, 1);
    } else if constexpr (std::is_same_v<T, double>) {
      lapack::dgees_(&call->mode, &sort_v, nullptr, &ni, nullptr, &ld, &sdim, nullptr, nullptr,
                     nullptr, &ld, &size, &query, nullptr, &info, 1, 1);
    } else if constexpr (std::is_same_v<T, lapack::c32>) {
      lapack::cgees_(&call->mode, &sort_v, nullptr, &ni, nullptr, &ld, &sdim, nullptr, nullptr,
                     &ld, &size, &query, nullptr, nullptr, &info, 1, 1);
    } else {
      lapack::zgees_(&call->mode, &sort_v, nullptr, &ni, nullptr, &ld, &sdim, nullptr, nullptr,
                     &ld, &size, &query, nullptr, nullptr, &info, 1, 1);
    }
    call->lwork = WorkSize(size, info);
  }
  return Prepared(std::move(call));
}

template <typename T>
void AddFamilies(char p, std::vector<TargetEntry>& out) {
  [[maybe_unused]] const bool complex = kIsComplex<T>;
  out.push_back({TargetName(p, complex ? "heevd" : "syevd"), &MakeSyevd<T>});
  out.push_back({TargetName(p, "gesdd"), &MakeSvd<T, false>});
  out.push_back({TargetName(p, "gesvd"), &MakeSvd<T, true>});
  out.push_back({TargetName(p, "geev"), &MakeGeev<T>});
  out.push_back({TargetName(p, "gehrd"), &MakeGehrd<T>});
  out.push_back({TargetName(p, complex ? "hetrd" : "sytrd"), &MakeSytrd<T>});
  out.push_back({TargetName(p, "gees"), &MakeGees<T>});
}

}  // namespace

void AddSpectralTargets(std::vector<TargetEntry>& out) {
  AddFamilies<float>('s', out);
  AddFamilies<double>('d', out);
  AddFamilies<lapack::c32>('c', out);
  AddFamilies<lapack::c64>('z', out);
}

}  // namespace lapack_internal
}  // namespace hlovm
