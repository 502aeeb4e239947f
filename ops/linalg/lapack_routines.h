// The LAPACK and BLAS routines the lapack_*_ffi targets call (ops/linalg/
// lapack.h), declared with the Fortran calling convention (every argument
// by pointer, 32-bit integers, a hidden length argument per CHARACTER
// argument, appended at the end), and one traits struct per element type
// that names them without the s/d/c/z prefix. Matrices are column-major.
#ifndef HLOVM_OPS_LINALG_LAPACK_ROUTINES_H_
#define HLOVM_OPS_LINALG_LAPACK_ROUTINES_H_

#include <complex>
#include <cstddef>
#include <type_traits>

namespace hlovm {
namespace lapack {

using lapack_int = int;
using fstrlen = size_t;  // hidden CHARACTER length
using c32 = std::complex<float>;
using c64 = std::complex<double>;

extern "C" {
#define HLOVM_TRSM(p, T)                                                                     \
  void p##trsm_(const char* side, const char* uplo, const char* transa, const char* diag,    \
                const lapack_int* m, const lapack_int* n, const T* alpha, const T* a,        \
                const lapack_int* lda, T* b, const lapack_int* ldb, fstrlen, fstrlen, fstrlen, \
                fstrlen);
#define HLOVM_GETRF(p, T)                                                               \
  void p##getrf_(const lapack_int* m, const lapack_int* n, T* a, const lapack_int* lda, \
                 lapack_int* ipiv, lapack_int* info);
#define HLOVM_GEQRF(p, T)                                                               \
  void p##geqrf_(const lapack_int* m, const lapack_int* n, T* a, const lapack_int* lda, \
                 T* tau, T* work, const lapack_int* lwork, lapack_int* info);
#define HLOVM_ORGQR(name, T)                                                              \
  void name(const lapack_int* m, const lapack_int* n, const lapack_int* k, T* a,          \
            const lapack_int* lda, const T* tau, T* work, const lapack_int* lwork,        \
            lapack_int* info);
#define HLOVM_POTRF(p, T)                                                               \
  void p##potrf_(const char* uplo, const lapack_int* n, T* a, const lapack_int* lda,    \
                 lapack_int* info, fstrlen);
#define HLOVM_GEHRD(p, T)                                                                 \
  void p##gehrd_(const lapack_int* n, const lapack_int* ilo, const lapack_int* ihi, T* a, \
                 const lapack_int* lda, T* tau, T* work, const lapack_int* lwork,         \
                 lapack_int* info);
#define HLOVM_SYTRD(name, T, R)                                                           \
  void name(const char* uplo, const lapack_int* n, T* a, const lapack_int* lda, R* d,     \
            R* e, T* tau, T* work, const lapack_int* lwork, lapack_int* info, fstrlen);

HLOVM_TRSM(s, float)
HLOVM_TRSM(d, double)
HLOVM_TRSM(c, c32)
HLOVM_TRSM(z, c64)
HLOVM_GETRF(s, float)
HLOVM_GETRF(d, double)
HLOVM_GETRF(c, c32)
HLOVM_GETRF(z, c64)
HLOVM_GEQRF(s, float)
HLOVM_GEQRF(d, double)
HLOVM_GEQRF(c, c32)
HLOVM_GEQRF(z, c64)
HLOVM_ORGQR(sorgqr_, float)
HLOVM_ORGQR(dorgqr_, double)
HLOVM_ORGQR(cungqr_, c32)
HLOVM_ORGQR(zungqr_, c64)
HLOVM_POTRF(s, float)
HLOVM_POTRF(d, double)
HLOVM_POTRF(c, c32)
HLOVM_POTRF(z, c64)
HLOVM_GEHRD(s, float)
HLOVM_GEHRD(d, double)
HLOVM_GEHRD(c, c32)
HLOVM_GEHRD(z, c64)
HLOVM_SYTRD(ssytrd_, float, float)
HLOVM_SYTRD(dsytrd_, double, double)
HLOVM_SYTRD(chetrd_, c32, float)
HLOVM_SYTRD(zhetrd_, c64, double)
#undef HLOVM_TRSM
#undef HLOVM_GETRF
#undef HLOVM_GEQRF
#undef HLOVM_ORGQR
#undef HLOVM_POTRF
#undef HLOVM_GEHRD
#undef HLOVM_SYTRD

// Singular values (divide and conquer).
void sgesdd_(const char* jobz, const lapack_int* m, const lapack_int* n, float* a,
             const lapack_int* lda, float* s, float* u, const lapack_int* ldu, float* vt,
             const lapack_int* ldvt, float* work, const lapack_int* lwork, lapack_int* iwork,
             lapack_int* info, fstrlen);
void dgesdd_(const char* jobz, const lapack_int* m, const lapack_int* n, double* a,
             const lapack_int* lda, double* s, double* u, const lapack_int* ldu, double* vt,
             const lapack_int* ldvt, double* work, const lapack_int* lwork, lapack_int* iwork,
             lapack_int* info, fstrlen);
void cgesdd_(const char* jobz, const lapack_int* m, const lapack_int* n, c32* a,
             const lapack_int* lda, float* s, c32* u, const lapack_int* ldu, c32* vt,
             const lapack_int* ldvt, c32* work, const lapack_int* lwork, float* rwork,
             lapack_int* iwork, lapack_int* info, fstrlen);
void zgesdd_(const char* jobz, const lapack_int* m, const lapack_int* n, c64* a,
             const lapack_int* lda, double* s, c64* u, const lapack_int* ldu, c64* vt,
             const lapack_int* ldvt, c64* work, const lapack_int* lwork, double* rwork,
             lapack_int* iwork, lapack_int* info, fstrlen);

// Symmetric / Hermitian eigenvalues (divide and conquer).
void ssyevd_(const char* jobz, const char* uplo, const lapack_int* n, float* a,
             const lapack_int* lda, float* w, float* work, const lapack_int* lwork,
             lapack_int* iwork, const lapack_int* liwork, lapack_int* info, fstrlen, fstrlen);
void dsyevd_(const char* jobz, const char* uplo, const lapack_int* n, double* a,
             const lapack_int* lda, double* w, double* work, const lapack_int* lwork,
             lapack_int* iwork, const lapack_int* liwork, lapack_int* info, fstrlen, fstrlen);
void cheevd_(const char* jobz, const char* uplo, const lapack_int* n, c32* a,
             const lapack_int* lda, float* w, c32* work, const lapack_int* lwork, float* rwork,
             const lapack_int* lrwork, lapack_int* iwork, const lapack_int* liwork,
             lapack_int* info, fstrlen, fstrlen);
void zheevd_(const char* jobz, const char* uplo, const lapack_int* n, c64* a,
             const lapack_int* lda, double* w, c64* work, const lapack_int* lwork, double* rwork,
             const lapack_int* lrwork, lapack_int* iwork, const lapack_int* liwork,
             lapack_int* info, fstrlen, fstrlen);

// General eigenvalues and eigenvectors.
void sgeev_(const char* jobvl, const char* jobvr, const lapack_int* n, float* a,
            const lapack_int* lda, float* wr, float* wi, float* vl, const lapack_int* ldvl,
            float* vr, const lapack_int* ldvr, float* work, const lapack_int* lwork,
            lapack_int* info, fstrlen, fstrlen);
void dgeev_(const char* jobvl, const char* jobvr, const lapack_int* n, double* a,
            const lapack_int* lda, double* wr, double* wi, double* vl, const lapack_int* ldvl,
            double* vr, const lapack_int* ldvr, double* work, const lapack_int* lwork,
            lapack_int* info, fstrlen, fstrlen);
void cgeev_(const char* jobvl, const char* jobvr, const lapack_int* n, c32* a,
            const lapack_int* lda, c32* w, c32* vl, const lapack_int* ldvl, c32* vr,
            const lapack_int* ldvr, c32* work, const lapack_int* lwork, float* rwork,
            lapack_int* info, fstrlen, fstrlen);
void zgeev_(const char* jobvl, const char* jobvr, const lapack_int* n, c64* a,
            const lapack_int* lda, c64* w, c64* vl, const lapack_int* ldvl, c64* vr,
            const lapack_int* ldvr, c64* work, const lapack_int* lwork, double* rwork,
            lapack_int* info, fstrlen, fstrlen);

// Singular values (QR iteration).
void sgesvd_(const char* jobu, const char* jobvt, const lapack_int* m, const lapack_int* n,
             float* a, const lapack_int* lda, float* s, float* u, const lapack_int* ldu, float* vt,
             const lapack_int* ldvt, float* work, const lapack_int* lwork, lapack_int* info,
             fstrlen, fstrlen);
void dgesvd_(const char* jobu, const char* jobvt, const lapack_int* m, const lapack_int* n,
             double* a, const lapack_int* lda, double* s, double* u, const lapack_int* ldu,
             double* vt, const lapack_int* ldvt, double* work, const lapack_int* lwork,
             lapack_int* info, fstrlen, fstrlen);
void cgesvd_(const char* jobu, const char* jobvt, const lapack_int* m, const lapack_int* n,
             c32* a, const lapack_int* lda, float* s, c32* u, const lapack_int* ldu, c32* vt,
             const lapack_int* ldvt, c32* work, const lapack_int* lwork, float* rwork,
             lapack_int* info, fstrlen, fstrlen);
void zgesvd_(const char* jobu, const char* jobvt, const lapack_int* m, const lapack_int* n,
             c64* a, const lapack_int* lda, double* s, c64* u, const lapack_int* ldu, c64* vt,
             const lapack_int* ldvt, c64* work, const lapack_int* lwork, double* rwork,
             lapack_int* info, fstrlen, fstrlen);

// QR with column pivoting.
void sgeqp3_(const lapack_int* m, const lapack_int* n, float* a, const lapack_int* lda,
             lapack_int* jpvt, float* tau, float* work, const lapack_int* lwork, lapack_int* info);
void dgeqp3_(const lapack_int* m, const lapack_int* n, double* a, const lapack_int* lda,
             lapack_int* jpvt, double* tau, double* work, const lapack_int* lwork,
             lapack_int* info);
void cgeqp3_(const lapack_int* m, const lapack_int* n, c32* a, const lapack_int* lda,
             lapack_int* jpvt, c32* tau, c32* work, const lapack_int* lwork, float* rwork,
             lapack_int* info);
void zgeqp3_(const lapack_int* m, const lapack_int* n, c64* a, const lapack_int* lda,
             lapack_int* jpvt, c64* tau, c64* work, const lapack_int* lwork, double* rwork,
             lapack_int* info);

// Multiply by Q of a QR factorisation.
#define HLOVM_ORMQR(name, T)                                                                   \
  void name(const char* side, const char* trans, const lapack_int* m, const lapack_int* n,     \
            const lapack_int* k, const T* a, const lapack_int* lda, const T* tau, T* c,        \
            const lapack_int* ldc, T* work, const lapack_int* lwork, lapack_int* info, fstrlen, \
            fstrlen);
HLOVM_ORMQR(sormqr_, float)
HLOVM_ORMQR(dormqr_, double)
HLOVM_ORMQR(cunmqr_, c32)
HLOVM_ORMQR(zunmqr_, c64)
#undef HLOVM_ORMQR

// Schur decomposition (no sorting: SELECT and BWORK are not referenced).
using SelectReal = int (*)(const void*, const void*);
using SelectComplex = int (*)(const void*);
void sgees_(const char* jobvs, const char* sort, SelectReal select, const lapack_int* n,
            float* a, const lapack_int* lda, lapack_int* sdim, float* wr, float* wi, float* vs,
            const lapack_int* ldvs, float* work, const lapack_int* lwork, int* bwork,
            lapack_int* info, fstrlen, fstrlen);
void dgees_(const char* jobvs, const char* sort, SelectReal select, const lapack_int* n,
            double* a, const lapack_int* lda, lapack_int* sdim, double* wr, double* wi,
            double* vs, const lapack_int* ldvs, double* work, const lapack_int* lwork, int* bwork,
            lapack_int* info, fstrlen, fstrlen);
void cgees_(const char* jobvs, const char* sort, SelectComplex select, const lapack_int* n,
            c32* a, const lapack_int* lda, lapack_int* sdim, c32* w, c32* vs,
            const lapack_int* ldvs, c32* work, const lapack_int* lwork, float* rwork, int* bwork,
            lapack_int* info, fstrlen, fstrlen);
void zgees_(const char* jobvs, const char* sort, SelectComplex select, const lapack_int* n,
            c64* a, const lapack_int* lda, lapack_int* sdim, c64* w, c64* vs,
            const lapack_int* ldvs, c64* work, const lapack_int* lwork, double* rwork, int* bwork,
            lapack_int* info, fstrlen, fstrlen);

// General tridiagonal systems.
#define HLOVM_GTSV(p, T)                                                                      \
  void p##gtsv_(const lapack_int* n, const lapack_int* nrhs, T* dl, T* d, T* du, T* b,        \
                const lapack_int* ldb, lapack_int* info);
HLOVM_GTSV(s, float)
HLOVM_GTSV(d, double)
HLOVM_GTSV(c, c32)
HLOVM_GTSV(z, c64)
#undef HLOVM_GTSV
}  // extern "C"

// Routines<T>: the routines for element type T, with the real type R of
// its singular values, eigenvalues and tridiagonal entries.
template <typename T>
struct Routines;

#define HLOVM_ROUTINES(T, Real, p, orgqr, sytrd, ormqr)                                              \
  template <>                                                                                 \
  struct Routines<T> {                                                                        \
    using R = Real;                                                                           \
    static constexpr bool kComplex = !std::is_same_v<T, Real>;                                \
    static void trsm(const char* side, const char* uplo, const char* transa, const char* diag, \
                     const lapack_int* m, const lapack_int* n, const T* alpha, const T* a,    \
                     const lapack_int* lda, T* b, const lapack_int* ldb) {                    \
      p##trsm_(side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb, 1, 1, 1, 1);            \
    }                                                                                         \
    static constexpr auto getrf = &p##getrf_;                                                 \
    static constexpr auto geqrf = &p##geqrf_;                                                 \
    static constexpr auto orgqr_ungqr = &orgqr;                                               \
    static void potrf(const char* uplo, const lapack_int* n, T* a, const lapack_int* lda,     \
                      lapack_int* info) {                                                     \
      p##potrf_(uplo, n, a, lda, info, 1);                                                    \
    }                                                                                         \
    static constexpr auto gehrd = &p##gehrd_;                                                 \
    static constexpr auto gtsv = &p##gtsv_;                                                   \
    static constexpr auto ormqr_unmqr = &ormqr;                                               \
    static void sytrd_hetrd(const char* uplo, const lapack_int* n, T* a,                      \
                            const lapack_int* lda, R* d, R* e, T* tau, T* work,               \
                            const lapack_int* lwork, lapack_int* info) {                      \
      sytrd(uplo, n, a, lda, d, e, tau, work, lwork, info, 1);                                \
    }                                                                                         \
  };

HLOVM_ROUTINES(float, float, s, sorgqr_, ssytrd_, sormqr_)
HLOVM_ROUTINES(double, double, d, dorgqr_, dsytrd_, dormqr_)
HLOVM_ROUTINES(c32, float, c, cungqr_, chetrd_, cunmqr_)
HLOVM_ROUTINES(c64, double, z, zungqr_, zhetrd_, zunmqr_)
#undef HLOVM_ROUTINES

}  // namespace lapack
}  // namespace hlovm

#endif  // HLOVM_OPS_LINALG_LAPACK_ROUTINES_H_
