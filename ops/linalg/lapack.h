// The custom-call targets JAX emits for jnp.linalg / jax.lax.linalg on CPU
// (api_version=API_VERSION_TYPED_FFI), with the operands, results,
// attributes and info outputs of jaxlib's FFI handlers, computed by the
// system LAPACK (ops/linalg/lapack_routines.h). `?` is s, d (real) or c, z
// (complex); shapes are [batch..., rows, cols], the batch dimensions looped
// over; k = min(m, n); R is the real type of T; info is s32[batch...].
//
//   lapack_?getrf_ffi  x T[..,m,n] -> (lu T[..,m,n], ipiv s32[..,k], info)
//                      LU with partial pivoting; ipiv 1-based (LAPACK's);
//                      info > 0: U(info, info) is exactly zero.
//   lapack_?geqrf_ffi  x T[..,m,n] -> (qr T[..,m,n], tau T[..,k])
//   lapack_?orgqr_ffi / lapack_?ungqr_ffi
//                      (x T[..,m,n], tau T[..,t]) -> q T[..,m,n]  (m >= n >= t)
//   lapack_?potrf_ffi  x T[..,n,n] -> (l T[..,n,n], info); {uplo}; only the
//                      `uplo` triangle is read and written, the other keeps
//                      the input; info > 0: not positive definite.
//   lapack_?syevd_ffi / lapack_?heevd_ffi
//                      x T[..,n,n] -> (v T[..,n,n], w R[..,n], info);
//                      {mode: 'V' vectors or 'N', uplo}; w ascending.
//   lapack_?gesdd_ffi  x T[..,m,n] -> (x_out T[..,m,n], s R[..,k],
//                      u T[..,m,m|k], vt T[..,n|k,n], info); {mode: 'A'
//                      full, 'S' reduced, 'N' values only (u, vt zero)}.
//                      A non-finite input gives info -4 and NaN results
//                      without calling LAPACK (whose SVD can loop forever on
//                      an infinity; JAX turns any info != 0 into NaN).
//   lapack_?gesvd_ffi  the same, by QR iteration (SvdAlgorithm.QR).
//   lapack_?geqp3_ffi  (x T[..,m,n], jpvt s32[..,n]) -> (qr T[..,m,n],
//                      jpvt s32[..,n], tau T[..,k]); QR with column pivoting;
//                      jpvt in: nonzero marks a leading column; out: the
//                      1-based permutation.
//   lapack_?ormqr_ffi / lapack_?unmqr_ffi
//                      (a T[..,l,t], tau T[..,t], c T[..,m,n]) -> T[..,m,n];
//                      {left, transpose: bool}; Q·c, Qᴴ·c, c·Q or c·Qᴴ with Q
//                      the reflectors of a (l = m when left, else n).
//   lapack_?gees_ffi   x T[..,n,n] -> (t T[..,n,n], vs T[..,n,n], wr, wi
//                      T[..,n] (real) or w T[..,n] (complex), sdim, info);
//                      {mode: 'V' or 'N' (vs zero), sort: 'N' only}.
//   lapack_?gtsv_ffi   (dl, d, du T[..,m], b T[..,m,r]) -> (dl, d, du (the
//                      factorisation), x T[..,m,r], info); dl[0] and du[m-1]
//                      are not read; info > 0: exactly singular.
//   lapack_?trsm_ffi   (a T[..,l,l], b T[..,m,n]) -> x T[..,m,n]; {side
//                      'L' (op(a) x = b, l = m) or 'R' (x op(a) = b, l = n),
//                      uplo, trans_x 'N'/'T'/'C', diag 'N'/'U'}.
//   lapack_sgeev_ffi / lapack_dgeev_ffi
//                      x T[..,n,n] -> (wr T[..,n], wi T[..,n], vl C[..,n,n],
//                      vr C[..,n,n], info); C complex of T; columns of vl/vr
//                      are the eigenvectors (conjugate pairs unpacked).
//                      {compute_left, compute_right: 'V' or 'N'; vectors not
//                      computed are zero}. A non-finite input gives info -4
//                      (as in jaxlib) and NaN results.
//   lapack_cgeev_ffi / lapack_zgeev_ffi
//                      x T[..,n,n] -> (w T[..,n], vl, vr T[..,n,n], info).
//   lapack_?gehrd_ffi  x T[..,n,n] -> (h T[..,n,n], tau T[..,n-1], info);
//                      {low, high: i32, LAPACK's ilo/ihi}.
//   lapack_?sytrd_ffi / lapack_?hetrd_ffi
//                      x T[..,n,n] -> (a T[..,n,n], d R[..,n], e R[..,n-1],
//                      tau T[..,n-1], info); {uplo}.
//
// Attributes come from the backend_config (ops/custom/ffi_attributes.h):
// jaxlib passes the LAPACK flags as ui8 character codes ('L' = 76, 'U' = 85,
// 'N' = 78, 'T' = 84, 'C' = 67, 'V' = 86, 'A' = 65, 'S' = 83, 'R' = 82).
// Layouts are XLA's business: values reach a target as logical arrays
// (vm/custom_call.h), so the column-major layouts JAX asks for
// ({n-2, n-1, ...}) change nothing here; each matrix is copied into
// column-major order for LAPACK and back.
//
// Every argument LAPACK would reject is rejected when the call is prepared
// (compile time), with an error naming the target, operand or result and
// the expected shape; a LAPACK call never sees an illegal argument. Batch
// matrices run one after another on the calling thread (as jaxlib does), and
// calls into LAPACK are serialised, so the results never depend on the
// thread count.
#ifndef HLOVM_OPS_LINALG_LAPACK_H_
#define HLOVM_OPS_LINALG_LAPACK_H_

#include <string>
#include <vector>

namespace hlovm {

// Registers every lapack_*_ffi target in the custom-call registry
// (vm/custom_call.h). Idempotent.
void RegisterLapackTargets();

// The names RegisterLapackTargets registers, sorted.
std::vector<std::string> LapackTargetNames();

// Where the system's BLAS is OpenBLAS (Debian's alternatives may pick it
// for liblapack and libblas) and OPENBLAS_NUM_THREADS is unset: makes it
// run on the calling thread and ends its thread pool, whose threads, one a
// core, spin on sched_yield for tens of milliseconds after it loads (and
// after each call it spreads) and so take cores from hlovm's own threads.
// hlovm calls LAPACK from its own threads, as the reference BLAS runs.
// For programs that own the process (the command line); returns whether
// it did so.
bool RunBlasOnCallingThread();

}  // namespace hlovm

#endif  // HLOVM_OPS_LINALG_LAPACK_H_
