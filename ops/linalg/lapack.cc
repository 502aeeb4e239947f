#include "ops/linalg/lapack.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "core/status_macros.h"
#include "ops/common/common_shape.h"
#include "ops/custom/ffi_attributes.h"
#include "ops/linalg/lapack_routines.h"
#include "vm/custom_call.h"

namespace hlovm {
namespace {

using lapack::lapack_int;
using lapack::Routines;

// LAPACK implementations differ in thread safety; one call at a time.
absl::Mutex& LapackMutex() {
  static absl::Mutex* mu = new absl::Mutex();
  return *mu;
}

template <typename T>
constexpr ElementType TypeOf() {
  if constexpr (std::is_same_v<T, float>) return ElementType::kF32;
  if constexpr (std::is_same_v<T, double>) return ElementType::kF64;
  if constexpr (std::is_same_v<T, std::complex<float>>) return ElementType::kC64;
  return ElementType::kC128;
}

template <typename T>
using Real = typename Routines<T>::R;
template <typename T>
constexpr bool kIsComplex = Routines<T>::kComplex;

// What a prepared call knows about the instruction: its target name and the
// leaf shapes of its operands and results.
struct CallSite {
  std::string target;
  std::vector<Shape> operands, results;

  absl::Status Error(const std::string& message) const {
    return absl::InvalidArgumentError(absl::StrCat("custom-call \"", target, "\": ", message));
  }
};

absl::StatusOr<CallSite> Describe(const HloInstruction& instr, int num_operands,
                                  int num_results) {
  CallSite site;
  site.target = instr.attrs().custom_call_target;
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    site.operands.push_back(instr.operand(i)->shape());
  }
  if (instr.shape().IsTuple()) {
    site.results = instr.shape().tuple_shapes();
  } else {
    site.results.push_back(instr.shape());
  }
  if (static_cast<int>(site.operands.size()) != num_operands) {
    return site.Error(absl::StrCat("takes ", num_operands, " operand(s), got ",
                                   site.operands.size()));
  }
  if (static_cast<int>(site.results.size()) != num_results) {
    return site.Error(absl::StrCat("has ", num_results, " result(s)",
                                   num_results > 1 ? " (a tuple)" : "", ", got ",
                                   site.results.size()));
  }
  for (const Shape& s : site.operands) {
    if (!s.IsArray()) return site.Error("every operand must be an array");
  }
  for (const Shape& s : site.results) {
    if (!s.IsArray()) return site.Error("every result must be an array");
  }
  return site;
}

// Checks that `actual` is `type`[dims] (layouts aside).
absl::Status ExpectShape(const CallSite& site, const std::string& what, const Shape& actual,
                         ElementType type, std::vector<int64_t> dims) {
  Shape expected(type, std::move(dims));
  if (actual.Compatible(expected)) return absl::OkStatus();
  return site.Error(absl::StrCat(what, " must be ", expected.ToString(false), ", but it is ",
                                 actual.ToString(false)));
}

// A batch of matrices: the operand's leading dimensions and its two minor ones.
struct Batch {
  std::vector<int64_t> dims;  // the batch dimensions
  int64_t count = 1;          // their product
  int64_t rows = 0, cols = 0;

  std::vector<int64_t> With(std::initializer_list<int64_t> minor) const {
    std::vector<int64_t> d = dims;
    d.insert(d.end(), minor.begin(), minor.end());
    return d;
  }
};

absl::StatusOr<Batch> SplitBatch(const CallSite& site, const std::string& what,
                                 const Shape& shape, bool square) {
  if (shape.rank() < 2) {
    return site.Error(absl::StrCat(what, " must have rank 2 or more (a batch of matrices), but it is ",
                                   shape.ToString(false)));
  }
  Batch b;
  b.dims.assign(shape.dimensions().begin(), shape.dimensions().end() - 2);
  for (int64_t d : b.dims) b.count *= d;
  b.rows = shape.dimensions(shape.rank() - 2);
  b.cols = shape.dimensions(shape.rank() - 1);
  if (square && b.rows != b.cols) {
    return site.Error(absl::StrCat(what, " must hold square matrices, but it is ",
                                   shape.ToString(false)));
  }
  if (b.rows > std::numeric_limits<lapack_int>::max() / 2 ||
      b.cols > std::numeric_limits<lapack_int>::max() / 2 ||
      b.rows * b.cols > std::numeric_limits<lapack_int>::max() / 2) {
    return site.Error(absl::StrCat(what, " ", shape.ToString(false),
                                   " is too large for 32-bit LAPACK indices"));
  }
  return b;
}

// `v`, or its error prefixed with the call site.
template <typename V>
absl::StatusOr<V> In(const CallSite& site, absl::StatusOr<V> v) {
  if (v.ok()) return v;
  return site.Error(std::string(v.status().message()));
}

absl::StatusOr<std::unique_ptr<PreparedCustomCall>> Prepared(
    absl::StatusOr<std::unique_ptr<PreparedCustomCall>> call) {
  return call;
}

lapack_int Ld(int64_t rows) { return static_cast<lapack_int>(std::max<int64_t>(1, rows)); }

// Row-major rows x cols at `src` to column-major (leading dimension rows).
template <typename T>
void ToColumnMajor(const uint8_t* src_bytes, int64_t rows, int64_t cols, T* dst) {
  const T* src = reinterpret_cast<const T*>(src_bytes);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) dst[j * rows + i] = src[i * cols + j];
  }
}

// Column-major rows x cols (leading dimension ld >= rows) to row-major.
template <typename T>
void FromColumnMajor(const T* src, int64_t rows, int64_t cols, int64_t ld, uint8_t* dst_bytes) {
  T* dst = reinterpret_cast<T*>(dst_bytes);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) dst[i * cols + j] = src[j * ld + i];
  }
}

template <typename T>
T* At(const MutableArrayView& v, int64_t index) {
  return reinterpret_cast<T*>(v.data) + index;
}

int32_t ToInfo(lapack_int info) { return static_cast<int32_t>(info); }

// The optimal workspace size a query (lwork = -1) reported.
template <typename T>
lapack_int WorkSize(T query, lapack_int info) {
  if (info != 0) return 1;
  return std::max<lapack_int>(1, static_cast<lapack_int>(std::real(query)));
}

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
// gesdd
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

//===----------------------------------------------------------------------===//
// Registration.
//===----------------------------------------------------------------------===//

struct TargetEntry {
  std::string name;
  CustomCallFactory factory;
};

template <typename T>
void AddFamilies(char p, std::vector<TargetEntry>& out) {
  const bool complex = kIsComplex<T>;
  auto name = [&](const std::string& routine) {
    return absl::StrCat("lapack_", std::string(1, p), routine, "_ffi");
  };
  out.push_back({name("trsm"), &MakeTrsm<T>});
  out.push_back({name("getrf"), &MakeGetrf<T>});
  out.push_back({name("geqrf"), &MakeGeqrf<T>});
  out.push_back({name(complex ? "ungqr" : "orgqr"), &MakeOrgqr<T>});
  out.push_back({name("potrf"), &MakePotrf<T>});
  out.push_back({name(complex ? "heevd" : "syevd"), &MakeSyevd<T>});
  out.push_back({name("gesdd"), &MakeSvd<T, false>});
  out.push_back({name("gesvd"), &MakeSvd<T, true>});
  out.push_back({name("geev"), &MakeGeev<T>});
  out.push_back({name("gehrd"), &MakeGehrd<T>});
  out.push_back({name(complex ? "hetrd" : "sytrd"), &MakeSytrd<T>});
  out.push_back({name("geqp3"), &MakeGeqp3<T>});
  out.push_back({name(complex ? "unmqr" : "ormqr"), &MakeOrmqr<T>});
  out.push_back({name("gees"), &MakeGees<T>});
  out.push_back({name("gtsv"), &MakeGtsv<T>});
}

const std::vector<TargetEntry>& Targets() {
  static const std::vector<TargetEntry>* targets = [] {
    auto* t = new std::vector<TargetEntry>();
    AddFamilies<float>('s', *t);
    AddFamilies<double>('d', *t);
    AddFamilies<lapack::c32>('c', *t);
    AddFamilies<lapack::c64>('z', *t);
    return t;
  }();
  return *targets;
}

}  // namespace

void RegisterLapackTargets() {
  for (const TargetEntry& t : Targets()) RegisterCustomCallTarget(t.name, t.factory);
}

std::vector<std::string> LapackTargetNames() {
  std::vector<std::string> names;
  for (const TargetEntry& t : Targets()) names.push_back(t.name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace hlovm
