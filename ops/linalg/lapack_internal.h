// What the lapack_*_ffi targets (ops/linalg/lapack.h) share: the call-site
// description and its shape checks, batches of matrices, the copies between
// row-major values and LAPACK's column-major matrices, the lock around
// LAPACK calls, and the table entries lapack.cc registers. Internal to
// ops/linalg/lapack*.cc.
#ifndef HLOVM_OPS_LINALG_LAPACK_INTERNAL_H_
#define HLOVM_OPS_LINALG_LAPACK_INTERNAL_H_

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
#include "core/hlo_ir.h"
#include "core/shape.h"
#include "ops/linalg/lapack_routines.h"
#include "vm/custom_call.h"

namespace hlovm {
namespace lapack_internal {

using lapack::lapack_int;
using lapack::Routines;

// LAPACK implementations differ in thread safety; one call at a time.
inline absl::Mutex& LapackMutex() {
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

inline absl::StatusOr<CallSite> Describe(const HloInstruction& instr, int num_operands,
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
inline absl::Status ExpectShape(const CallSite& site, const std::string& what, const Shape& actual,
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

inline absl::StatusOr<Batch> SplitBatch(const CallSite& site, const std::string& what,
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

inline absl::StatusOr<std::unique_ptr<PreparedCustomCall>> Prepared(
    absl::StatusOr<std::unique_ptr<PreparedCustomCall>> call) {
  return call;
}

inline lapack_int Ld(int64_t rows) { return static_cast<lapack_int>(std::max<int64_t>(1, rows)); }

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

inline int32_t ToInfo(lapack_int info) { return static_cast<int32_t>(info); }

// The optimal workspace size a query (lwork = -1) reported.
template <typename T>
lapack_int WorkSize(T query, lapack_int info) {
  if (info != 0) return 1;
  return std::max<lapack_int>(1, static_cast<lapack_int>(std::real(query)));
}

struct TargetEntry {
  std::string name;
  CustomCallFactory factory;
};

// "lapack_" + prefix + routine + "_ffi".
inline std::string TargetName(char prefix, const std::string& routine) {
  return absl::StrCat("lapack_", std::string(1, prefix), routine, "_ffi");
}

// lapack_factor.cc: trsm, getrf, geqrf, orgqr/ungqr, potrf, geqp3,
// ormqr/unmqr, gtsv, for s, d, c and z.
void AddFactorizationTargets(std::vector<TargetEntry>& out);
// lapack_spectral.cc: syevd/heevd, gesdd, gesvd, geev, gehrd, sytrd/hetrd,
// gees, for s, d, c and z.
void AddSpectralTargets(std::vector<TargetEntry>& out);

}  // namespace lapack_internal
}  // namespace hlovm

#endif  // HLOVM_OPS_LINALG_LAPACK_INTERNAL_H_
