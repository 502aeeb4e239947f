// The lapack_*_ffi targets that factor or solve (ops/linalg/lapack.h):
// trsm, getrf, geqrf, orgqr/ungqr, potrf, geqp3, ormqr/unmqr and gtsv.
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
// trsm
//===----------------------------------------------------------------------===//

template <typename T>
class TrsmCall final : public PreparedCustomCall {
 public:
  Batch b;
  int64_t a_dim = 0;
  char side, uplo, trans, diag;

  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    const int64_t m = b.rows, n = b.cols;
    std::vector<T> a(std::max<int64_t>(1, a_dim * a_dim)), x(std::max<int64_t>(1, m * n));
    const lapack_int mi = static_cast<lapack_int>(m), ni = static_cast<lapack_int>(n);
    const lapack_int lda = Ld(a_dim), ldb = Ld(m);
    const T one(1);
    absl::MutexLock lock(&LapackMutex());
    for (int64_t i = 0; i < b.count; ++i) {
      ToColumnMajor(operands[0].data + i * a_dim * a_dim * sizeof(T), a_dim, a_dim, a.data());
      ToColumnMajor(operands[1].data + i * m * n * sizeof(T), m, n, x.data());
      if (m > 0 && n > 0) {
        Routines<T>::trsm(&side, &uplo, &trans, &diag, &mi, &ni, &one, a.data(), &lda, x.data(),
                          &ldb);
      }
      FromColumnMajor(x.data(), m, n, m, results[0].data + i * m * n * sizeof(T));
    }
    return absl::OkStatus();
  }
};

template <typename T>
absl::StatusOr<std::unique_ptr<PreparedCustomCall>> MakeTrsm(const HloInstruction& instr) {
  HLOVM_ASSIGN_OR_RETURN(CallSite site, Describe(instr, 2, 1));
  auto call = std::make_unique<TrsmCall<T>>();
  HLOVM_ASSIGN_OR_RETURN(FfiAttributes attrs, In(site, FfiAttributes::Parse(instr.attrs().backend_config)));
  HLOVM_ASSIGN_OR_RETURN(call->side, In(site, attrs.Char("side", "LR")));
  HLOVM_ASSIGN_OR_RETURN(call->uplo, In(site, attrs.Char("uplo", "LU")));
  HLOVM_ASSIGN_OR_RETURN(call->trans, In(site, attrs.Char("trans_x", "NTC")));
  HLOVM_ASSIGN_OR_RETURN(call->diag, In(site, attrs.Char("diag", "NU")));
  HLOVM_ASSIGN_OR_RETURN(call->b, SplitBatch(site, "operand 1 (b)", site.operands[1], false));
  call->a_dim = call->side == 'L' ? call->b.rows : call->b.cols;
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, "operand 0 (the triangular matrix)", site.operands[0],
                                    TypeOf<T>(), call->b.With({call->a_dim, call->a_dim})));
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, "operand 1 (b)", site.operands[1], TypeOf<T>(),
                                    call->b.With({call->b.rows, call->b.cols})));
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, "the result", site.results[0], TypeOf<T>(),
                                    call->b.With({call->b.rows, call->b.cols})));
  return Prepared(std::move(call));
}

//===----------------------------------------------------------------------===//
// getrf
//===----------------------------------------------------------------------===//

template <typename T>
class GetrfCall final : public PreparedCustomCall {
 public:
  Batch b;

  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    const int64_t m = b.rows, n = b.cols, k = std::min(m, n);
    std::vector<T> a(std::max<int64_t>(1, m * n));
    std::vector<lapack_int> ipiv(std::max<int64_t>(1, k));
    const lapack_int mi = static_cast<lapack_int>(m), ni = static_cast<lapack_int>(n), lda = Ld(m);
    absl::MutexLock lock(&LapackMutex());
    for (int64_t i = 0; i < b.count; ++i) {
      ToColumnMajor(operands[0].data + i * m * n * sizeof(T), m, n, a.data());
      lapack_int info = 0;
      Routines<T>::getrf(&mi, &ni, a.data(), &lda, ipiv.data(), &info);
      FromColumnMajor(a.data(), m, n, m, results[0].data + i * m * n * sizeof(T));
      for (int64_t j = 0; j < k; ++j) *At<int32_t>(results[1], i * k + j) = ipiv[j];
      *At<int32_t>(results[2], i) = ToInfo(info);
    }
    return absl::OkStatus();
  }
};

template <typename T>
absl::StatusOr<std::unique_ptr<PreparedCustomCall>> MakeGetrf(const HloInstruction& instr) {
  HLOVM_ASSIGN_OR_RETURN(CallSite site, Describe(instr, 1, 3));
  auto call = std::make_unique<GetrfCall<T>>();
  HLOVM_ASSIGN_OR_RETURN(call->b, SplitBatch(site, "operand 0", site.operands[0], false));
  const Batch& b = call->b;
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "operand 0", site.operands[0], TypeOf<T>(), b.With({b.rows, b.cols})));
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, "result 0 (lu)", site.results[0], TypeOf<T>(),
                                    b.With({b.rows, b.cols})));
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, "result 1 (ipiv)", site.results[1], ElementType::kS32,
                                    b.With({std::min(b.rows, b.cols)})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 2 (info)", site.results[2], ElementType::kS32, b.dims));
  return Prepared(std::move(call));
}

//===----------------------------------------------------------------------===//
// geqrf
//===----------------------------------------------------------------------===//

template <typename T>
class GeqrfCall final : public PreparedCustomCall {
 public:
  Batch b;
  lapack_int lwork = 1;

  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    const int64_t m = b.rows, n = b.cols, k = std::min(m, n);
    std::vector<T> a(std::max<int64_t>(1, m * n)), tau(std::max<int64_t>(1, k)), work(lwork);
    const lapack_int mi = static_cast<lapack_int>(m), ni = static_cast<lapack_int>(n), lda = Ld(m);
    absl::MutexLock lock(&LapackMutex());
    for (int64_t i = 0; i < b.count; ++i) {
      ToColumnMajor(operands[0].data + i * m * n * sizeof(T), m, n, a.data());
      lapack_int info = 0;
      Routines<T>::geqrf(&mi, &ni, a.data(), &lda, tau.data(), work.data(), &lwork, &info);
      FromColumnMajor(a.data(), m, n, m, results[0].data + i * m * n * sizeof(T));
      std::copy(tau.begin(), tau.begin() + k, At<T>(results[1], i * k));
    }
    return absl::OkStatus();
  }
};

template <typename T>
absl::StatusOr<std::unique_ptr<PreparedCustomCall>> MakeGeqrf(const HloInstruction& instr) {
  HLOVM_ASSIGN_OR_RETURN(CallSite site, Describe(instr, 1, 2));
  auto call = std::make_unique<GeqrfCall<T>>();
  HLOVM_ASSIGN_OR_RETURN(call->b, SplitBatch(site, "operand 0", site.operands[0], false));
  const Batch& b = call->b;
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "operand 0", site.operands[0], TypeOf<T>(), b.With({b.rows, b.cols})));
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, "result 0", site.results[0], TypeOf<T>(),
                                    b.With({b.rows, b.cols})));
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, "result 1 (tau)", site.results[1], TypeOf<T>(),
                                    b.With({std::min(b.rows, b.cols)})));
  const lapack_int m = static_cast<lapack_int>(b.rows), n = static_cast<lapack_int>(b.cols);
  const lapack_int lda = Ld(b.rows), query = -1;
  T size{};
  lapack_int info = 0;
  {
    absl::MutexLock lock(&LapackMutex());
    Routines<T>::geqrf(&m, &n, nullptr, &lda, nullptr, &size, &query, &info);
  }
  call->lwork = WorkSize(size, info);
  return Prepared(std::move(call));
}

//===----------------------------------------------------------------------===//
// orgqr / ungqr
//===----------------------------------------------------------------------===//

template <typename T>
class OrgqrCall final : public PreparedCustomCall {
 public:
  Batch b;
  int64_t k = 0;
  lapack_int lwork = 1;

  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    const int64_t m = b.rows, n = b.cols;
    std::vector<T> a(std::max<int64_t>(1, m * n)), tau(std::max<int64_t>(1, k)), work(lwork);
    const lapack_int mi = static_cast<lapack_int>(m), ni = static_cast<lapack_int>(n),
                     ki = static_cast<lapack_int>(k), lda = Ld(m);
    absl::MutexLock lock(&LapackMutex());
    for (int64_t i = 0; i < b.count; ++i) {
      ToColumnMajor(operands[0].data + i * m * n * sizeof(T), m, n, a.data());
      const T* t = reinterpret_cast<const T*>(operands[1].data) + i * k;
      std::copy(t, t + k, tau.begin());
      lapack_int info = 0;
      Routines<T>::orgqr_ungqr(&mi, &ni, &ki, a.data(), &lda, tau.data(), work.data(), &lwork,
                               &info);
      FromColumnMajor(a.data(), m, n, m, results[0].data + i * m * n * sizeof(T));
    }
    return absl::OkStatus();
  }
};

template <typename T>
absl::StatusOr<std::unique_ptr<PreparedCustomCall>> MakeOrgqr(const HloInstruction& instr) {
  HLOVM_ASSIGN_OR_RETURN(CallSite site, Describe(instr, 2, 1));
  auto call = std::make_unique<OrgqrCall<T>>();
  HLOVM_ASSIGN_OR_RETURN(call->b, SplitBatch(site, "operand 0", site.operands[0], false));
  const Batch& b = call->b;
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "operand 0", site.operands[0], TypeOf<T>(), b.With({b.rows, b.cols})));
  const Shape& tau = site.operands[1];
  if (tau.rank() != static_cast<int64_t>(b.dims.size()) + 1) {
    return site.Error(absl::StrCat("operand 1 (tau) must have rank ", b.dims.size() + 1,
                                   ", but it is ", tau.ToString(false)));
  }
  call->k = tau.dimensions(tau.rank() - 1);
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "operand 1 (tau)", tau, TypeOf<T>(), b.With({call->k})));
  if (!(b.rows >= b.cols && b.cols >= call->k)) {
    return site.Error(absl::StrCat("needs rows >= columns >= reflectors (", b.rows,
                                   " >= ", b.cols, " >= ", call->k, " does not hold)"));
  }
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "the result", site.results[0], TypeOf<T>(), b.With({b.rows, b.cols})));
  const lapack_int m = static_cast<lapack_int>(b.rows), n = static_cast<lapack_int>(b.cols),
                   k = static_cast<lapack_int>(call->k), lda = Ld(b.rows), query = -1;
  T size{};
  lapack_int info = 0;
  {
    absl::MutexLock lock(&LapackMutex());
    Routines<T>::orgqr_ungqr(&m, &n, &k, nullptr, &lda, nullptr, &size, &query, &info);
  }
  call->lwork = WorkSize(size, info);
  return Prepared(std::move(call));
}

//===----------------------------------------------------------------------===//
// potrf
//===----------------------------------------------------------------------===//

template <typename T>
class PotrfCall final : public PreparedCustomCall {
 public:
  Batch b;
  char uplo;

  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    const int64_t n = b.rows;
    std::vector<T> a(std::max<int64_t>(1, n * n));
    const lapack_int ni = static_cast<lapack_int>(n), lda = Ld(n);
    absl::MutexLock lock(&LapackMutex());
    for (int64_t i = 0; i < b.count; ++i) {
      ToColumnMajor(operands[0].data + i * n * n * sizeof(T), n, n, a.data());
      lapack_int info = 0;
      Routines<T>::potrf(&uplo, &ni, a.data(), &lda, &info);
      FromColumnMajor(a.data(), n, n, n, results[0].data + i * n * n * sizeof(T));
      *At<int32_t>(results[1], i) = ToInfo(info);
    }
    return absl::OkStatus();
  }
};

template <typename T>
absl::StatusOr<std::unique_ptr<PreparedCustomCall>> MakePotrf(const HloInstruction& instr) {
  HLOVM_ASSIGN_OR_RETURN(CallSite site, Describe(instr, 1, 2));
  auto call = std::make_unique<PotrfCall<T>>();
  HLOVM_ASSIGN_OR_RETURN(FfiAttributes attrs, In(site, FfiAttributes::Parse(instr.attrs().backend_config)));
  HLOVM_ASSIGN_OR_RETURN(call->uplo, In(site, attrs.Char("uplo", "LU")));
  HLOVM_ASSIGN_OR_RETURN(call->b, SplitBatch(site, "operand 0", site.operands[0], true));
  const Batch& b = call->b;
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 0", site.results[0], TypeOf<T>(), b.With({b.rows, b.rows})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "operand 0", site.operands[0], TypeOf<T>(), b.With({b.rows, b.rows})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 1 (info)", site.results[1], ElementType::kS32, b.dims));
  return Prepared(std::move(call));
}

//===----------------------------------------------------------------------===//
// geqp3
//===----------------------------------------------------------------------===//

template <typename T>
class Geqp3Call final : public PreparedCustomCall {
 public:
  Batch b;
  lapack_int lwork = 1;

  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    const int64_t m = b.rows, n = b.cols, k = std::min(m, n);
    std::vector<T> a(std::max<int64_t>(1, m * n)), tau(std::max<int64_t>(1, k)), work(lwork);
    std::vector<Real<T>> rwork(std::max<int64_t>(1, 2 * n));
    std::vector<lapack_int> jpvt(std::max<int64_t>(1, n));
    const lapack_int mi = static_cast<lapack_int>(m), ni = static_cast<lapack_int>(n), lda = Ld(m);
    absl::MutexLock lock(&LapackMutex());
    for (int64_t i = 0; i < b.count; ++i) {
      ToColumnMajor(operands[0].data + i * m * n * sizeof(T), m, n, a.data());
      const int32_t* jp = reinterpret_cast<const int32_t*>(operands[1].data) + i * n;
      std::copy(jp, jp + n, jpvt.begin());
      lapack_int info = 0;
      if constexpr (std::is_same_v<T, float>) {
        lapack::sgeqp3_(&mi, &ni, a.data(), &lda, jpvt.data(), tau.data(), work.data(), &lwork,
                        &info);
      } else if constexpr (std::is_same_v<T, double>) {
        lapack::dgeqp3_(&mi, &ni, a.data(), &lda, jpvt.data(), tau.data(), work.data(), &lwork,
                        &info);
      } else if constexpr (std::is_same_v<T, lapack::c32>) {
        lapack::cgeqp3_(&mi, &ni, a.data(), &lda, jpvt.data(), tau.data(), work.data(), &lwork,
                        rwork.data(), &info);
      } else {
        lapack::zgeqp3_(&mi, &ni, a.data(), &lda, jpvt.data(), tau.data(), work.data(), &lwork,
                        rwork.data(), &info);
      }
      FromColumnMajor(a.data(), m, n, m, results[0].data + i * m * n * sizeof(T));
      for (int64_t j = 0; j < n; ++j) *At<int32_t>(results[1], i * n + j) = jpvt[j];
      std::copy(tau.begin(), tau.begin() + k, At<T>(results[2], i * k));
    }
    return absl::OkStatus();
  }
};

template <typename T>
absl::StatusOr<std::unique_ptr<PreparedCustomCall>> MakeGeqp3(const HloInstruction& instr) {
  HLOVM_ASSIGN_OR_RETURN(CallSite site, Describe(instr, 2, 3));
  auto call = std::make_unique<Geqp3Call<T>>();
  HLOVM_ASSIGN_OR_RETURN(call->b, SplitBatch(site, "operand 0", site.operands[0], false));
  const Batch& b = call->b;
  const int64_t m = b.rows, n = b.cols;
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "operand 0", site.operands[0], TypeOf<T>(), b.With({m, n})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "operand 1 (jpvt)", site.operands[1], ElementType::kS32, b.With({n})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 0", site.results[0], TypeOf<T>(), b.With({m, n})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 1 (jpvt)", site.results[1], ElementType::kS32, b.With({n})));
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, "result 2 (tau)", site.results[2], TypeOf<T>(),
                                    b.With({std::min(m, n)})));
  const lapack_int mi = static_cast<lapack_int>(m), ni = static_cast<lapack_int>(n), lda = Ld(m),
                   query = -1;
  T size{};
  lapack_int info = 0;
  {
    absl::MutexLock lock(&LapackMutex());
    if constexpr (std::is_same_v<T, float>) {
      lapack::sgeqp3_(&mi, &ni, nullptr, &lda, nullptr, nullptr, &size, &query, &info);
    } else if constexpr (std::is_same_v<T, double>) {
      lapack::dgeqp3_(&mi, &ni, nullptr, &lda, nullptr, nullptr, &size, &query, &info);
    } else if constexpr (std::is_same_v<T, lapack::c32>) {
      lapack::cgeqp3_(&mi, &ni, nullptr, &lda, nullptr, nullptr, &size, &query, nullptr, &info);
    } else {
      lapack::zgeqp3_(&mi, &ni, nullptr, &lda, nullptr, nullptr, &size, &query, nullptr, &info);
    }
  }
  call->lwork = WorkSize(size, info);
  return Prepared(std::move(call));
}

//===----------------------------------------------------------------------===//
// ormqr / unmqr
//===----------------------------------------------------------------------===//

template <typename T>
class OrmqrCall final : public PreparedCustomCall {
 public:
  Batch c;             // c and the result
  int64_t a_rows = 0;  // m (left) or n (right)
  int64_t a_cols = 0;
  int64_t k = 0;
  char side, trans;
  lapack_int lwork = 1;

  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    const int64_t m = c.rows, n = c.cols;
    std::vector<T> a(std::max<int64_t>(1, a_rows * a_cols)), x(std::max<int64_t>(1, m * n)),
        tau(std::max<int64_t>(1, k)), work(lwork);
    const lapack_int mi = static_cast<lapack_int>(m), ni = static_cast<lapack_int>(n),
                     ki = static_cast<lapack_int>(k), lda = Ld(a_rows), ldc = Ld(m);
    absl::MutexLock lock(&LapackMutex());
    for (int64_t i = 0; i < c.count; ++i) {
      ToColumnMajor(operands[0].data + i * a_rows * a_cols * sizeof(T), a_rows, a_cols, a.data());
      const T* t = reinterpret_cast<const T*>(operands[1].data) + i * k;
      std::copy(t, t + k, tau.begin());
      ToColumnMajor(operands[2].data + i * m * n * sizeof(T), m, n, x.data());
      lapack_int info = 0;
      if (m > 0 && n > 0) {
        Routines<T>::ormqr_unmqr(&side, &trans, &mi, &ni, &ki, a.data(), &lda, tau.data(),
                                 x.data(), &ldc, work.data(), &lwork, &info, 1, 1);
      }
      FromColumnMajor(x.data(), m, n, m, results[0].data + i * m * n * sizeof(T));
    }
    return absl::OkStatus();
  }
};

template <typename T>
absl::StatusOr<std::unique_ptr<PreparedCustomCall>> MakeOrmqr(const HloInstruction& instr) {
  HLOVM_ASSIGN_OR_RETURN(CallSite site, Describe(instr, 3, 1));
  auto call = std::make_unique<OrmqrCall<T>>();
  HLOVM_ASSIGN_OR_RETURN(FfiAttributes attrs, In(site, FfiAttributes::Parse(instr.attrs().backend_config)));
  HLOVM_ASSIGN_OR_RETURN(int64_t left, In(site, attrs.Integer("left")));
  HLOVM_ASSIGN_OR_RETURN(int64_t transpose, In(site, attrs.Integer("transpose")));
  call->side = left ? 'L' : 'R';
  call->trans = transpose ? (kIsComplex<T> ? 'C' : 'T') : 'N';
  HLOVM_ASSIGN_OR_RETURN(call->c, SplitBatch(site, "operand 2 (c)", site.operands[2], false));
  const Batch& c = call->c;
  HLOVM_ASSIGN_OR_RETURN(Batch a, SplitBatch(site, "operand 0 (a)", site.operands[0], false));
  const Shape& tau = site.operands[1];
  if (tau.rank() != static_cast<int64_t>(c.dims.size()) + 1) {
    return site.Error(absl::StrCat("operand 1 (tau) must have rank ", c.dims.size() + 1,
                                   ", but it is ", tau.ToString(false)));
  }
  call->k = tau.dimensions(tau.rank() - 1);
  call->a_rows = left ? c.rows : c.cols;
  call->a_cols = a.cols;
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, "operand 0 (a)", site.operands[0], TypeOf<T>(),
                                    c.With({call->a_rows, call->a_cols})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "operand 1 (tau)", tau, TypeOf<T>(), c.With({call->k})));
  if (call->k > call->a_rows || call->k > call->a_cols) {
    return site.Error(absl::StrCat("has ", call->k, " reflectors, more than a's ", call->a_rows,
                                   " rows or ", call->a_cols, " columns"));
  }
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, "operand 2 (c)", site.operands[2], TypeOf<T>(),
                                    c.With({c.rows, c.cols})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "the result", site.results[0], TypeOf<T>(), c.With({c.rows, c.cols})));
  if (c.rows > 0 && c.cols > 0) {
    const lapack_int m = static_cast<lapack_int>(c.rows), n = static_cast<lapack_int>(c.cols),
                     k = static_cast<lapack_int>(call->k), lda = Ld(call->a_rows), ldc = Ld(c.rows),
                     query = -1;
    T size{};
    lapack_int info = 0;
    absl::MutexLock lock(&LapackMutex());
    Routines<T>::ormqr_unmqr(&call->side, &call->trans, &m, &n, &k, nullptr, &lda, nullptr,
                             nullptr, &ldc, &size, &query, &info, 1, 1);
    call->lwork = WorkSize(size, info);
  }
  return Prepared(std::move(call));
}

//===----------------------------------------------------------------------===//
// gtsv
//===----------------------------------------------------------------------===//

template <typename T>
class GtsvCall final : public PreparedCustomCall {
 public:
  Batch b;  // b and its result: [batch..., m, nrhs]

  absl::Status Run(absl::Span<const ArrayView> operands,
                   absl::Span<const MutableArrayView> results) const override {
    const int64_t m = b.rows, nrhs = b.cols;
    std::vector<T> x(std::max<int64_t>(1, m * nrhs));
    const lapack_int mi = static_cast<lapack_int>(m), ni = static_cast<lapack_int>(nrhs),
                     ldb = Ld(m);
    absl::MutexLock lock(&LapackMutex());
    for (int64_t i = 0; i < b.count; ++i) {
      // dl, d and du are copied to their results and factored there, as
      // jaxlib does: dl[0] and du[m-1] are not read and keep their values.
      T* diagonals[3];
      for (int j = 0; j < 3; ++j) {
        const T* src = reinterpret_cast<const T*>(operands[j].data) + i * m;
        diagonals[j] = At<T>(results[j], i * m);
        std::copy(src, src + m, diagonals[j]);
      }
      ToColumnMajor(operands[3].data + i * m * nrhs * sizeof(T), m, nrhs, x.data());
      lapack_int info = 0;
      if (m > 0) {
        Routines<T>::gtsv(&mi, &ni, diagonals[0] + 1, diagonals[1], diagonals[2], x.data(), &ldb,
                          &info);
      }
      FromColumnMajor(x.data(), m, nrhs, m, results[3].data + i * m * nrhs * sizeof(T));
      *At<int32_t>(results[4], i) = ToInfo(info);
    }
    return absl::OkStatus();
  }
};

template <typename T>
absl::StatusOr<std::unique_ptr<PreparedCustomCall>> MakeGtsv(const HloInstruction& instr) {
  HLOVM_ASSIGN_OR_RETURN(CallSite site, Describe(instr, 4, 5));
  auto call = std::make_unique<GtsvCall<T>>();
  HLOVM_ASSIGN_OR_RETURN(call->b, SplitBatch(site, "operand 3 (b)", site.operands[3], false));
  const Batch& b = call->b;
  const char* names[3] = {"dl", "d", "du"};
  for (int j = 0; j < 3; ++j) {
    HLOVM_RETURN_IF_ERROR(ExpectShape(site, absl::StrCat("operand ", j, " (", names[j], ")"),
                                      site.operands[j], TypeOf<T>(), b.With({b.rows})));
    HLOVM_RETURN_IF_ERROR(ExpectShape(site, absl::StrCat("result ", j, " (", names[j], ")"),
                                      site.results[j], TypeOf<T>(), b.With({b.rows})));
  }
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, "operand 3 (b)", site.operands[3], TypeOf<T>(),
                                    b.With({b.rows, b.cols})));
  HLOVM_RETURN_IF_ERROR(ExpectShape(site, "result 3 (x)", site.results[3], TypeOf<T>(),
                                    b.With({b.rows, b.cols})));
  HLOVM_RETURN_IF_ERROR(
      ExpectShape(site, "result 4 (info)", site.results[4], ElementType::kS32, b.dims));
  return Prepared(std::move(call));
}

template <typename T>
void AddFamilies(char p, std::vector<TargetEntry>& out) {
  [[maybe_unused]] const bool complex = kIsComplex<T>;
  out.push_back({TargetName(p, "trsm"), &MakeTrsm<T>});
  out.push_back({TargetName(p, "getrf"), &MakeGetrf<T>});
  out.push_back({TargetName(p, "geqrf"), &MakeGeqrf<T>});
  out.push_back({TargetName(p, complex ? "ungqr" : "orgqr"), &MakeOrgqr<T>});
  out.push_back({TargetName(p, "potrf"), &MakePotrf<T>});
  out.push_back({TargetName(p, "geqp3"), &MakeGeqp3<T>});
  out.push_back({TargetName(p, complex ? "unmqr" : "ormqr"), &MakeOrmqr<T>});
  out.push_back({TargetName(p, "gtsv"), &MakeGtsv<T>});
}

}  // namespace

void AddFactorizationTargets(std::vector<TargetEntry>& out) {
  AddFamilies<float>('s', out);
  AddFamilies<double>('d', out);
  AddFamilies<lapack::c32>('c', out);
  AddFamilies<lapack::c64>('z', out);
}

}  // namespace lapack_internal
}  // namespace hlovm
