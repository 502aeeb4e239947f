#!/usr/bin/python3
"""Writes conformance/cases/lapack/*.hlo: the LAPACK custom calls JAX emits
on CPU (ops/linalg/lapack.h), for s, d, c and z, written as XLA prints them
(column-major layouts on the custom call, operand_layout_constraints,
output_to_operand_aliasing, api_version=API_VERSION_TYPED_FFI, the attributes
as an MLIR dictionary in backend_config).

Each case checks the factors against formulas computed inside the case
(dot, transpose, select with triangle masks), not against hlovm:
  getrf   L·U = P·A (P from the pivots NumPy's partial pivoting picks; the
          pivots themselves, info 0), a singular matrix gives info > 0;
  potrf   L·Lᴴ = A (upper: Uᴴ·U), the factor equals np.linalg.cholesky, the
          triangle not read keeps the input, info > 0 where a leading minor
          is not positive definite;
  geqrf   the Householder form equals np.linalg.qr(mode='raw'); with orgqr,
          Q·R = A and Qᴴ·Q = I; orgqr with fewer reflectors than columns
          equals the product of the reflectors built in NumPy;
  syevd   eigenvalues = np.linalg.eigvalsh, V·diag(w)·Vᴴ = A, Vᴴ·V = I; the
          triangle not read holds garbage; mode 'N';
  gesdd   singular values = np.linalg.svd, U·diag(s)·Vᴴ = A, Uᴴ·U = I,
          V·Vᴴ = I for modes 'A' and 'S'; mode 'N' (u and vt zero);
  trsm    op(A)·X = B or X·op(A) = B and X = np.linalg.solve, every side,
          uplo, trans_x and diag (the triangle not read holds NaN, a unit
          diagonal holds 7);
  geev    A·V = V·diag(w), Vlᴴ·A = diag(w)·Vlᴴ, unit columns, sum and
          product of w = trace and determinant; a non-finite input gives
          info -4;
  gehrd   Q·H·Qᴴ = A with Q from orgqr on the reflectors, Qᴴ·Q = I;
  sytrd   Q·T·Qᴴ = A (uplo 'L'; T from d and e), trace and Frobenius norm of
          T = those of A (uplo 'U').
Plus JAX-shaped modules (jax_*.hlo) as jax.jit(...).lower() prints
jnp.linalg.inv, solve, det, eigh, svd and qr on CPU, checked against NumPy.

Family of each case: its custom-call target (the jax_* modules: jax_<fn>),
so the runner's table gives the pass count per target and type.

Run from the repository root: /usr/bin/python3 conformance/tools/gen_lapack_cases.py
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hlo_case import Case, ref, shape, write_cases  # noqa: E402

CASES = []
TYPES = {'s': 'f32', 'd': 'f64', 'c': 'c64', 'z': 'c128'}
REAL = {'f32': 'f32', 'f64': 'f64', 'c64': 'f32', 'c128': 'f64'}
CPLX = {'f32': 'c64', 'f64': 'c128', 'c64': 'c64', 'c128': 'c128'}
NP = {'f32': np.float32, 'f64': np.float64, 'c64': np.complex64, 'c128': np.complex128}
WIDE = {'f32': np.float64, 'f64': np.float64, 'c64': np.complex128, 'c128': np.complex128}
ORD = {c: ord(c) for c in 'LUNTCVASR'}


def is_complex(t):
    return t[0] == 'c'


def tol(t, scale=1.0):
    return {'f32': 2e-4, 'c64': 2e-4, 'f64': 1e-11, 'c128': 1e-11}[t] * max(1.0, scale)


def rand(rng, t, dims, lo=-1.0, hi=1.0):
    x = rng.uniform(lo, hi, dims)
    if is_complex(t):
        x = x + 1j * rng.uniform(lo, hi, dims)
    return x.astype(NP[t])


def hermitian(rng, t, batch, n, pd=False):
    a = rand(rng, t, batch + [n, n]).astype(WIDE[t])
    a = (a + np.conj(np.swapaxes(a, -1, -2))) / 2
    if pd:
        a = a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)
    return a.astype(NP[t])


def cm(dims):
    """XLA's column-major matrix layout {n-2, n-1, n-3, ..., 0}."""
    r = len(dims)
    if r < 2:
        return None
    return [r - 2, r - 1] + list(range(r - 3, -1, -1))


def cshape(t, dims):
    return shape(t, dims, cm(dims) if len(dims) >= 2 else None)


def attrs_text(attrs):
    """MLIR dictionary as XLA prints a typed-FFI custom call's attributes."""
    parts = []
    for k in sorted(attrs):
        v, ty = attrs[k]
        if ty == 'bool':
            parts.append('%s = %s' % (k, 'true' if v else 'false'))
        else:
            parts.append('%s = %d : %s' % (k, v, ty))
    return '{' + ', '.join(parts) + '}'


class LapackCase(Case):
    def __init__(self, name, family, note=None):
        super().__init__('lapack', family, name, note)

    def custom_call(self, target, operands, results, attrs=None, aliases=None):
        """XLA's printed form of a jaxlib FFI call. `operands`: values;
        `results`: [(type, dims)]. Returns the tuple value (or the single
        result)."""
        op_shapes = [cshape(*o[2]) if len(o[2][1]) >= 2 else o[1] for o in operands]
        res_shapes = [cshape(t, d) for t, d in results]
        rs = res_shapes[0] if len(res_shapes) == 1 else '(' + ', '.join(res_shapes) + ')'
        text = 'custom-call(%s), custom_call_target="%s", operand_layout_constraints={%s}' % (
            ', '.join(ref(o[:2]) for o in operands), target, ', '.join(op_shapes))
        if aliases:
            text += ', output_to_operand_aliasing={%s}' % ', '.join(
                '{%s}: (%d, {})' % ('' if len(results) == 1 else str(out), op) for out, op in aliases)
        text += ', api_version=API_VERSION_TYPED_FFI'
        nb = len(operands[0][2][1]) - 2
        text += ', frontend_attributes={num_batch_dims="%d"}' % nb
        if attrs:
            text += ', backend_config=' + attrs_text(attrs)
        v = self.op(rs, text, name=self.fresh(target.replace('lapack_', '').replace('_ffi', '')))
        if len(results) == 1:
            return self.copy_rm(v + (results[0],), results[0])
        return v + (results,)

    def copy_rm(self, v, td):
        t, d = td
        return self.op(shape(t, d), 'copy(%s)' % ref(v[:2])) + ((t, list(d)),)

    def get(self, tup, i):
        """Result i of a custom call, copied to the row-major layout."""
        t, d = tup[2][i]
        g = self.op(cshape(t, d), 'get-tuple-element(%s), index=%d' % (ref(tup[:2]), i))
        return self.copy_rm(g, (t, d))

    def c(self, t, a):
        a = np.asarray(a).astype(NP[t] if t in NP else {'s32': np.int32, 'pred': np.bool_}[t])
        v = self.const(t, a)
        return v + ((t, list(a.shape)),)

    def u(self, kind, v, td=None):
        t, d = td or v[2]
        return self.op(shape(t, d), '%s(%s)' % (kind, ref(v[:2]))) + ((t, list(d)),)

    def bin(self, kind, a, b):
        t, d = a[2]
        return self.op(shape(t, d), '%s(%s, %s)' % (kind, ref(a[:2]), ref(b[:2]))) + ((t, list(d)),)

    def select(self, mask, a, b):
        t, d = a[2]
        return self.op(shape(t, d), 'select(%s, %s, %s)' % (ref(mask[:2]), ref(a[:2]), ref(b[:2]))) + (
            (t, list(d)),)

    def masked(self, v, mask_np):
        """v where mask, else 0 (mask broadcast over the batch)."""
        t, d = v[2]
        m = self.c('pred', np.broadcast_to(mask_np, d))
        z = self.c(t, np.zeros(d))
        return self.select(m, v, z)

    def conj(self, v):
        t, d = v[2]
        if not is_complex(t):
            return v
        r = REAL[t]
        re = self.u('real', v, (r, d))
        im = self.u('imag', v, (r, d))
        nim = self.u('negate', im)
        return self.op(shape(t, d), 'complex(%s, %s)' % (ref(re[:2]), ref(nim[:2]))) + ((t, list(d)),)

    def transpose(self, v):
        t, d = v[2]
        r = len(d)
        perm = list(range(r - 2)) + [r - 1, r - 2]
        nd = [d[p] for p in perm]
        return self.op(shape(t, nd), 'transpose(%s), dimensions={%s}' % (
            ref(v[:2]), ','.join(map(str, perm)))) + ((t, nd),)

    def adjoint(self, v):
        return self.conj(self.transpose(v))

    def dot(self, a, b):
        t, da = a[2]
        _, db = b[2]
        nb = len(da) - 2
        assert da[-1] == db[-2], (da, db)
        d = list(da[:-1]) + [db[-1]]
        bd = ','.join(str(i) for i in range(nb))
        text = 'dot(%s, %s), ' % (ref(a[:2]), ref(b[:2]))
        if nb:
            text += 'lhs_batch_dims={%s}, rhs_batch_dims={%s}, ' % (bd, bd)
        text += 'lhs_contracting_dims={%d}, rhs_contracting_dims={%d}' % (nb + 1, nb)
        return self.op(shape(t, d), text) + ((t, d),)

    def convert(self, v, t2):
        _, d = v[2]
        return self.op(shape(t2, d), 'convert(%s)' % ref(v[:2])) + ((t2, list(d)),)

    def bcast(self, v, dims, bdims):
        t, _ = v[2]
        return self.op(shape(t, dims), 'broadcast(%s), dimensions={%s}' % (
            ref(v[:2]), ','.join(map(str, bdims)))) + ((t, list(dims)),)

    def scale_cols(self, v, s):
        """v[..., i, j] * s[..., j] (s converted to v's type)."""
        t, d = v[2]
        if s[2][0] != t:
            s = self.convert(s, t)
        nb = len(d) - 2
        sb = self.bcast(s, d, list(range(nb)) + [nb + 1])
        return self.bin('multiply', v, sb)

    def slice(self, v, ranges):
        t, d = v[2]
        nd = [hi - lo for lo, hi in ranges]
        return self.op(shape(t, nd), 'slice(%s), slice={%s}' % (
            ref(v[:2]), ', '.join('[%d:%d]' % r for r in ranges))) + ((t, nd),)

    def expect_eq(self, v, want):
        t, _ = v[2]
        self.check(v[:2], t, np.asarray(want))

    def expect_near(self, v, want, tolerance):
        t, _ = v[2]
        self.check_almost(v[:2], t, np.asarray(want).astype(NP[t]), float(tolerance))

    def root_of(self, *vals):
        shapes = [v[1] for v in vals]
        self.op('(' + ', '.join(shapes) + ')', 'tuple(%s)' % ', '.join(ref(v[:2]) for v in vals),
                root=True)


def target(p, routine):
    return 'lapack_%s%s_ffi' % (p, routine)


def eye_b(t, batch, n):
    return np.broadcast_to(np.eye(n), batch + [n, n]).astype(NP[t])


def wide(x):
    x = np.asarray(x)
    return x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)


# ---------------------------------------------------------------------------
# getrf
# ---------------------------------------------------------------------------

def lu_reference(a):
    """Partial pivoting as LAPACK's i?amax picks (|re| + |im|, first
    maximum); returns (lu, ipiv 1-based, info)."""
    a = wide(a).copy()
    m, n = a.shape
    k = min(m, n)
    ipiv = np.zeros(k, np.int32)
    info = 0
    for j in range(k):
        col = a[j:, j]
        mag = np.abs(col.real) + np.abs(col.imag) if np.iscomplexobj(col) else np.abs(col)
        p = j + int(np.argmax(mag))
        ipiv[j] = p + 1
        if a[p, j] != 0:
            if p != j:
                a[[j, p], :] = a[[p, j], :]
            a[j + 1:, j] /= a[j, j]
        elif info == 0:
            info = j + 1
        a[j + 1:, j + 1:] -= np.outer(a[j + 1:, j], a[j, j + 1:])
    return a, ipiv, info


def permute_rows(a, ipiv):
    a = wide(a).copy()
    for j, p in enumerate(ipiv):
        a[[j, p - 1], :] = a[[p - 1, j], :]
    return a


def getrf_case(p, name, batch, m, n, rng, singular=False):
    t = TYPES[p]
    c = LapackCase('getrf_%s_%s' % (p, name), target(p, 'getrf'))
    a = rand(rng, t, batch + [m, n])
    if singular:
        a[..., :, n - 1] = 0
    refs = [lu_reference(x) for x in a.reshape(-1, m, n)]
    k = min(m, n)
    x = c.c(t, a)
    res = c.custom_call(target(p, 'getrf'), [x], [(t, batch + [m, n]), ('s32', batch + [k]),
                                                    ('s32', batch)], aliases=[(0, 0)])
    lu, ipiv, info = c.get(res, 0), c.get(res, 1), c.get(res, 2)
    c.root_of(lu, ipiv, info)
    c.expect_eq(ipiv, np.array([r[1] for r in refs]).reshape(batch + [k]))
    c.expect_eq(info, np.array([r[2] for r in refs], np.int32).reshape(batch))
    c.expect_near(lu, np.array([r[0] for r in refs]).reshape(batch + [m, n]), tol(t, 4))
    # L (m x k, unit lower) times U (k x n) is the row-permuted A.
    lm = np.tril(np.ones((m, k), bool), -1)
    um = np.triu(np.ones((k, n), bool))
    lpart = c.slice(lu, [(0, d) for d in batch] + [(0, m), (0, k)])
    upart = c.slice(lu, [(0, d) for d in batch] + [(0, k), (0, n)])
    l = c.bin('add', c.masked(lpart, lm), c.c(t, np.broadcast_to(np.eye(m, k), batch + [m, k])))
    u = c.masked(upart, um)
    pa = np.array([permute_rows(xa, r[1]) for xa, r in zip(a.reshape(-1, m, n), refs)])
    c.expect_near(c.dot(l, u), pa.reshape(batch + [m, n]), tol(t, 4))
    CASES.append(c)


# ---------------------------------------------------------------------------
# potrf
# ---------------------------------------------------------------------------

def potrf_case(p, name, batch, n, lower, rng, bad=None):
    """`bad`: {batch index: leading minor that fails} for matrices made not
    positive definite."""
    t = TYPES[p]
    c = LapackCase('potrf_%s_%s' % (p, name), target(p, 'potrf'))
    a = hermitian(rng, t, batch, n, pd=True)
    flat = a.reshape(-1, n, n)
    infos = np.zeros(flat.shape[0], np.int32)
    for i, k in (bad or {}).items():
        flat[i, k - 1, k - 1] = -50.0
        infos[i] = k
    garbage = np.full((n, n), 999.0).astype(NP[t])
    keep = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
    a_in = np.where(keep, a, garbage).astype(NP[t])
    x = c.c(t, a_in)
    res = c.custom_call(target(p, 'potrf'), [x], [(t, batch + [n, n]), ('s32', batch)],
                        attrs={'uplo': (ORD['L' if lower else 'U'], 'ui8')}, aliases=[(0, 0)])
    f, info = c.get(res, 0), c.get(res, 1)
    c.root_of(f, info)
    c.expect_eq(info, infos.reshape(batch))
    good = [i for i in range(flat.shape[0]) if infos[i] == 0]
    # The triangle LAPACK does not touch keeps the input.
    other = c.masked(f, ~keep)
    c.expect_eq(other, np.where(~keep, a_in, 0).astype(NP[t]))
    if len(good) == flat.shape[0]:
        ref_l = np.linalg.cholesky(wide(a))
        want = ref_l if lower else np.conj(np.swapaxes(ref_l, -1, -2))
        tri = c.masked(f, keep)
        c.expect_near(tri, want, tol(t, n))
        prod = c.dot(tri, c.adjoint(tri)) if lower else c.dot(c.adjoint(tri), tri)
        c.expect_near(prod, a, tol(t, 4 * n))
    CASES.append(c)


# ---------------------------------------------------------------------------
# geqrf / orgqr
# ---------------------------------------------------------------------------

def geqrf_call(c, p, t, x, batch, m, n):
    k = min(m, n)
    res = c.custom_call(target(p, 'geqrf'), [x], [(t, batch + [m, n]), (t, batch + [k])],
                        aliases=[(0, 0)])
    return c.get(res, 0), c.get(res, 1)


def orgqr_name(p):
    return target(p, 'ungqr' if p in 'cz' else 'orgqr')


def orgqr_call(c, p, t, x, tau):
    return c.custom_call(orgqr_name(p), [x, tau], [(t, x[2][1])], aliases=[(0, 0)])


def geqrf_case(p, name, batch, m, n, rng):
    t = TYPES[p]
    c = LapackCase('geqrf_%s_%s' % (p, name), target(p, 'geqrf'))
    a = rand(rng, t, batch + [m, n])
    k = min(m, n)
    x = c.c(t, a)
    qr, tau = geqrf_call(c, p, t, x, batch, m, n)
    c.root_of(qr, tau)
    raws = [np.linalg.qr(wide(xa), mode='raw') for xa in a.reshape(-1, m, n)]
    c.expect_near(qr, np.array([h.T for h, _ in raws]).reshape(batch + [m, n]), tol(t, 4))
    c.expect_near(tau, np.array([tu for _, tu in raws]).reshape(batch + [k]), tol(t, 4))
    CASES.append(c)


def qr_case(p, name, batch, m, n, rng):
    """geqrf, then orgqr on the first min(m, n) columns: Q·R = A, Qᴴ·Q = I."""
    t = TYPES[p]
    c = LapackCase('orgqr_%s_%s' % (p, name), orgqr_name(p))
    a = rand(rng, t, batch + [m, n])
    k = min(m, n)
    x = c.c(t, a)
    qr, tau = geqrf_call(c, p, t, x, batch, m, n)
    qin = c.slice(qr, [(0, d) for d in batch] + [(0, m), (0, k)])
    q = orgqr_call(c, p, t, qin, tau)
    r = c.masked(c.slice(qr, [(0, d) for d in batch] + [(0, k), (0, n)]),
                 np.triu(np.ones((k, n), bool)))
    c.root_of(q, r)
    c.expect_near(c.dot(q, r), a, tol(t, 4))
    c.expect_near(c.dot(c.adjoint(q), q), eye_b(t, batch, k), tol(t, 4))
    CASES.append(c)


def orgqr_partial_case(p, rng):
    """Fewer reflectors than columns: Q's columns are those of H1···Hk."""
    t = TYPES[p]
    m, n, k = 5, 3, 2
    c = LapackCase('orgqr_%s_two_reflectors' % p, orgqr_name(p))
    v = rand(rng, t, [m, n])
    tau = rand(rng, t, [k], 0.2, 0.8)
    q = np.eye(m, dtype=WIDE[t])
    for i in range(k):
        vec = np.zeros(m, WIDE[t])
        vec[i] = 1
        vec[i + 1:] = v[i + 1:, i]
        q = q @ (np.eye(m) - wide(tau[i]) * np.outer(vec, np.conj(vec)))
    out = orgqr_call(c, p, t, c.c(t, v), c.c(t, tau))
    c.root_of(out)
    c.expect_near(out, q[:, :n], tol(t, 4))
    CASES.append(c)


# ---------------------------------------------------------------------------
# syevd / heevd
# ---------------------------------------------------------------------------

def syevd_name(p):
    return target(p, 'heevd' if p in 'cz' else 'syevd')


def syevd_case(p, name, batch, n, lower, vectors, rng):
    t = TYPES[p]
    r = REAL[t]
    c = LapackCase('syevd_%s_%s' % (p, name), syevd_name(p))
    a = hermitian(rng, t, batch, n)
    keep = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
    a_in = np.where(keep, a, np.asarray(1e3).astype(NP[t])).astype(NP[t])
    res = c.custom_call(syevd_name(p), [c.c(t, a_in)], [(t, batch + [n, n]), (r, batch + [n]),
                                                         ('s32', batch)],
                        attrs={'mode': (ORD['V' if vectors else 'N'], 'ui8'),
                               'uplo': (ORD['L' if lower else 'U'], 'ui8')}, aliases=[(0, 0)])
    v, w, info = c.get(res, 0), c.get(res, 1), c.get(res, 2)
    c.root_of(w, info)
    c.expect_eq(info, np.zeros(batch, np.int32))
    c.expect_near(w, np.linalg.eigvalsh(wide(a)), tol(r, 4))
    if vectors:
        c.expect_near(c.dot(c.scale_cols(v, w), c.adjoint(v)), a, tol(t, 4 * n))
        c.expect_near(c.dot(c.adjoint(v), v), eye_b(t, batch, n), tol(t, 4))
    CASES.append(c)


# ---------------------------------------------------------------------------
# gesdd
# ---------------------------------------------------------------------------

def gesdd_case(p, name, batch, m, n, mode, rng, routine='gesdd'):
    t = TYPES[p]
    r = REAL[t]
    k = min(m, n)
    c = LapackCase('%s_%s_%s' % (routine, p, name), target(p, routine))
    a = rand(rng, t, batch + [m, n])
    ucols = m if mode in 'AN' else k
    vrows = n if mode in 'AN' else k
    res = c.custom_call(target(p, routine), [c.c(t, a)],
                        [(t, batch + [m, n]), (r, batch + [k]), (t, batch + [m, ucols]),
                         (t, batch + [vrows, n]), ('s32', batch)],
                        attrs={'mode': (ORD[mode], 'ui8')}, aliases=[(0, 0)])
    s, u, vt, info = c.get(res, 1), c.get(res, 2), c.get(res, 3), c.get(res, 4)
    c.root_of(s, u, vt, info)
    c.expect_eq(info, np.zeros(batch, np.int32))
    c.expect_near(s, np.linalg.svd(wide(a), compute_uv=False), tol(r, 4))
    if mode == 'N':
        c.expect_eq(u, np.zeros(batch + [m, ucols]))
        c.expect_eq(vt, np.zeros(batch + [vrows, n]))
    else:
        bsl = [(0, d) for d in batch]
        uk = c.slice(u, bsl + [(0, m), (0, k)])
        vk = c.slice(vt, bsl + [(0, k), (0, n)])
        c.expect_near(c.dot(c.scale_cols(uk, s), vk), a, tol(t, 4 * k))
        c.expect_near(c.dot(c.adjoint(u), u), eye_b(t, batch, ucols), tol(t, 4))
        c.expect_near(c.dot(vt, c.adjoint(vt)), eye_b(t, batch, vrows), tol(t, 4))
    CASES.append(c)


# ---------------------------------------------------------------------------
# trsm
# ---------------------------------------------------------------------------

def trsm_case(p, batch, m, n, left, lower, rng):
    t = TYPES[p]
    name = 'trsm_%s_%s_%s%s' % (p, 'left' if left else 'right', 'lower' if lower else 'upper',
                               '_batch' if batch else '')
    c = LapackCase(name, target(p, 'trsm'))
    k = m if left else n
    outs = []
    for trans in 'NTC':
        for diag in 'NU':
            a = rand(rng, t, batch + [k, k]) * (1.0 / k ** 0.5)
            idx = np.arange(k)
            a[..., idx, idx] = 7.0 if diag == 'U' else rng.uniform(2, 3, batch + [k])
            keep = np.tril(np.ones((k, k), bool)) if lower else np.triu(np.ones((k, k), bool))
            a = np.where(keep, a, np.nan).astype(NP[t])
            b = rand(rng, t, batch + [m, n], -2, 2)
            aw = np.nan_to_num(wide(a), nan=0.0)
            if diag == 'U':
                aw[..., idx, idx] = 1
            op = aw if trans == 'N' else np.swapaxes(aw, -1, -2)
            if trans == 'C':
                op = np.conj(op)
            if left:
                want = np.linalg.solve(op, wide(b))
            else:
                want = np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2),
                                                   np.swapaxes(wide(b), -1, -2)), -1, -2)
            x = c.custom_call(target(p, 'trsm'), [c.c(t, a), c.c(t, b)], [(t, batch + [m, n])],
                              attrs={'side': (ORD['L' if left else 'R'], 'ui8'),
                                     'uplo': (ORD['L' if lower else 'U'], 'ui8'),
                                     'trans_x': (ORD[trans], 'ui8'),
                                     'diag': (ORD[diag], 'ui8')},
                              aliases=[(0, 1)])
            outs.append(x)
            c.expect_near(x, want, tol(t, 4 * float(np.max(np.abs(want)))))
            opc = c.c(t, op.astype(NP[t]))
            c.expect_near(c.dot(opc, x) if left else c.dot(x, opc), b, tol(t, 8))
    c.root_of(*outs)
    CASES.append(c)


# ---------------------------------------------------------------------------
# geev
# ---------------------------------------------------------------------------

def col_norms_sq(c, v):
    """sum_i |v[..., i, j]|² as the real type."""
    t, d = v[2]
    r = REAL[t]
    re = c.u('real', v, (r, d)) if is_complex(t) else v
    sq = c.bin('multiply', re, re)
    if is_complex(t):
        im = c.u('imag', v, (r, d))
        sq = c.bin('add', sq, c.bin('multiply', im, im))
    return reduce_axis(c, sq, len(d) - 2, 'add')


def reduce_axis(c, v, axis, kind):
    t, d = v[2]
    cname = '%s_%s' % (kind, t)
    comp = ('%%{n} (a_{n}: {t}[], b_{n}: {t}[]) -> {t}[] {{\n'
            '  %%a_{n} = {t}[] parameter(0)\n  %%b_{n} = {t}[] parameter(1)\n'
            '  ROOT %%r_{n} = {t}[] {k}({t}[] %%a_{n}, {t}[] %%b_{n})\n}}').format(n=cname, t=t, k=kind)
    comp = comp.replace('%%', '%')
    if not any(x.startswith('%' + cname + ' ') for x in c.computations):
        c.computations.append(comp)
    init = c.c(t, np.asarray(0 if kind == 'add' else 1))
    nd = [x for i, x in enumerate(d) if i != axis]
    return c.op(shape(t, nd), 'reduce(%s, %s), dimensions={%d}, to_apply=%%%s' % (
        ref(v[:2]), ref(init[:2]), axis, cname)) + ((t, nd),)


def geev_case(p, name, batch, n, left, right, rng, nonfinite=False):
    t = TYPES[p]
    ct = CPLX[t]
    c = LapackCase('geev_%s_%s' % (p, name), target(p, 'geev'))
    a = rand(rng, t, batch + [n, n])
    if nonfinite:
        a.reshape(-1, n, n)[0, 1, 0] = np.inf
    results = ([(t, batch + [n]), (t, batch + [n])] if not is_complex(t) else [(t, batch + [n])])
    results += [(ct, batch + [n, n]), (ct, batch + [n, n]), ('s32', batch)]
    res = c.custom_call(target(p, 'geev'), [c.c(t, a)], results,
                        attrs={'compute_left': (ORD['V' if left else 'N'], 'ui8'),
                               'compute_right': (ORD['V' if right else 'N'], 'ui8')})
    nres = len(results)
    vl, vr, info = c.get(res, nres - 3), c.get(res, nres - 2), c.get(res, nres - 1)
    if is_complex(t):
        w = c.get(res, 0)
    else:
        w = c.op(shape(ct, batch + [n]), 'complex(%s, %s)' % (ref(c.get(res, 0)[:2]),
                                                           ref(c.get(res, 1)[:2]))) + (
            (ct, batch + [n]),)
    c.root_of(w, vl, vr, info)
    nmat = int(np.prod(batch)) if batch else 1
    want_info = np.zeros(nmat, np.int32)
    if nonfinite:
        want_info[0] = -4
    c.expect_eq(info, want_info.reshape(batch))
    if nonfinite:
        CASES.append(c)
        return
    ac = c.c(ct, a.astype(NP[ct]))
    zero = np.zeros(batch + [n, n])
    for side, v, on in (('right', vr, right), ('left', vl, left)):
        if not on:
            c.expect_eq(v, zero)
            continue
        if side == 'right':
            resid = c.bin('subtract', c.dot(ac, v), c.scale_cols(v, w))
        else:
            # Vlᴴ·A = diag(w)·Vlᴴ  <=>  Aᴴ·Vl = Vl·diag(conj w)
            resid = c.bin('subtract', c.dot(c.adjoint(ac), v), c.scale_cols(v, c.conj(w)))
        c.expect_near(resid, zero, tol(t, 8 * float(np.max(np.abs(a)))))
        c.expect_near(col_norms_sq(c, v), np.ones(batch + [n]), tol(t, 4))
    aw = wide(a)
    c.expect_near(reduce_axis(c, w, len(batch), 'add'), np.trace(aw, axis1=-2, axis2=-1)
                  .astype(np.complex128), tol(t, 8))
    c.expect_near(reduce_axis(c, w, len(batch), 'multiply'), np.linalg.det(aw).astype(np.complex128),
                  tol(t, 8))
    CASES.append(c)


# ---------------------------------------------------------------------------
# gehrd / sytrd (Q from orgqr on the reflectors below the first subdiagonal)
# ---------------------------------------------------------------------------

def q_from_reflectors(c, p, t, a_out, tau, batch, n):
    """diag(1, orgqr(a_out[1:, :n-1], tau)): LAPACK's orghr / orgtr('L')."""
    bsl = [(0, d) for d in batch]
    sub = c.slice(a_out, bsl + [(1, n), (0, n - 1)])
    q1 = orgqr_call(c, p, t, sub, tau)
    zero = c.c(t, np.asarray(0))
    padded = c.op(shape(t, batch + [n, n]), 'pad(%s, %s), padding=%s' % (
        ref(q1[:2]), ref(zero[:2]), 'x'.join(['0_0'] * len(batch) + ['1_0', '1_0']))) + (
        (t, batch + [n, n]),)
    e00 = np.zeros(batch + [n, n])
    e00[..., 0, 0] = 1
    return c.bin('add', padded, c.c(t, e00))


def gehrd_case(p, name, batch, n, rng):
    t = TYPES[p]
    c = LapackCase('gehrd_%s_%s' % (p, name), target(p, 'gehrd'))
    a = rand(rng, t, batch + [n, n])
    res = c.custom_call(target(p, 'gehrd'), [c.c(t, a)],
                        [(t, batch + [n, n]), (t, batch + [n - 1]), ('s32', batch)],
                        attrs={'low': (1, 'i32'), 'high': (n, 'i32')}, aliases=[(0, 0)])
    h_out, tau, info = c.get(res, 0), c.get(res, 1), c.get(res, 2)
    c.root_of(h_out, tau, info)
    c.expect_eq(info, np.zeros(batch, np.int32))
    q = q_from_reflectors(c, p, t, h_out, tau, batch, n)
    h = c.masked(h_out, np.triu(np.ones((n, n), bool), -1))
    c.expect_near(c.dot(c.dot(q, h), c.adjoint(q)), a, tol(t, 4 * n))
    c.expect_near(c.dot(c.adjoint(q), q), eye_b(t, batch, n), tol(t, 4))
    CASES.append(c)


def sytrd_name(p):
    return target(p, 'hetrd' if p in 'cz' else 'sytrd')


def sytrd_case(p, name, batch, n, lower, rng):
    t = TYPES[p]
    r = REAL[t]
    c = LapackCase('sytrd_%s_%s' % (p, name), sytrd_name(p))
    a = hermitian(rng, t, batch, n)
    keep = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
    a_in = np.where(keep, a, np.asarray(1e3).astype(NP[t])).astype(NP[t])
    res = c.custom_call(sytrd_name(p), [c.c(t, a_in)],
                        [(t, batch + [n, n]), (r, batch + [n]), (r, batch + [n - 1]),
                         (t, batch + [n - 1]), ('s32', batch)],
                        attrs={'uplo': (ORD['L' if lower else 'U'], 'ui8')}, aliases=[(0, 0)])
    a_out, d, e, tau, info = [c.get(res, i) for i in range(5)]
    c.root_of(d, e, tau, info)
    c.expect_eq(info, np.zeros(batch, np.int32))
    aw = wide(a)
    c.expect_near(reduce_axis(c, d, len(batch), 'add'), np.trace(aw, axis1=-2, axis2=-1).real,
                  tol(r, 4))
    fro = np.sum(np.abs(aw) ** 2, axis=(-2, -1))
    dd = reduce_axis(c, c.bin('multiply', d, d), len(batch), 'add')
    ee = reduce_axis(c, c.bin('multiply', e, e), len(batch), 'add')
    total = c.bin('add', dd, c.bin('add', ee, ee))
    c.expect_near(total, fro, tol(r, 8 * float(np.max(fro))))
    if lower:
        # T = diag(d) + subdiagonal e + superdiagonal e.
        zr = c.c(r, np.asarray(0))
        epad = c.op(shape(r, batch + [n]), 'pad(%s, %s), padding=%s' % (
            ref(e[:2]), ref(zr[:2]), 'x'.join(['0_0'] * len(batch) + ['0_1']))) + ((r, batch + [n]),)
        nb = len(batch)
        dims = batch + [n, n]
        diag_m = np.broadcast_to(np.eye(n, dtype=bool), dims)
        sub_m = np.broadcast_to(np.eye(n, k=-1, dtype=bool), dims)
        sup_m = np.broadcast_to(np.eye(n, k=1, dtype=bool), dims)
        zeros = c.c(r, np.zeros(dims))
        tm = c.select(c.c('pred', diag_m), c.bcast(d, dims, list(range(nb)) + [nb]), zeros)
        tm = c.select(c.c('pred', sub_m), c.bcast(epad, dims, list(range(nb)) + [nb + 1]), tm)
        tm = c.select(c.c('pred', sup_m), c.bcast(epad, dims, list(range(nb)) + [nb]), tm)
        if r != t:
            tm = c.convert(tm, t)
        q = q_from_reflectors(c, p, t, a_out, tau, batch, n)
        c.expect_near(c.dot(c.dot(q, tm), c.adjoint(q)), a, tol(t, 4 * n))
    CASES.append(c)



# ---------------------------------------------------------------------------
# geqp3, ormqr, gees, gtsv
# ---------------------------------------------------------------------------


def svd_non_finite_case(p, routine, rng):
    """An infinity in one batch matrix: info -4 and NaN for it (LAPACK is not
    called), the other matrix factored."""
    t = TYPES[p]
    r = REAL[t]
    m = n = 3
    c = LapackCase('%s_%s_non_finite_batch' % (routine, p), target(p, routine))
    a = rand(rng, t, [2, m, n])
    a[0, 1, 2] = np.inf
    res = c.custom_call(target(p, routine), [c.c(t, a)],
                        [(t, [2, m, n]), (r, [2, n]), (t, [2, m, n]), (t, [2, n, n]), ('s32', [2])],
                        attrs={'mode': (ORD['S'], 'ui8')}, aliases=[(0, 0)])
    sv, info = c.get(res, 1), c.get(res, 4)
    c.root_of(sv, info)
    c.expect_eq(info, np.array([-4, 0], np.int32))
    c.expect_eq(c.slice(sv, [(0, 1), (0, n)]), np.full([1, n], np.nan))
    c.expect_near(c.slice(sv, [(1, 2), (0, n)]), np.linalg.svd(wide(a[1:]), compute_uv=False),
                  tol(r, 4))
    CASES.append(c)


def geqp3_reference(a, jpvt_in):
    """Column choices of QR with column pivoting: the leading columns
    (jpvt_in != 0) first, in order, then at each step the free column with
    the largest remaining norm. Returns the 1-based permutation."""
    a = wide(a).copy()
    m, n = a.shape
    lead = [j for j in range(n) if jpvt_in[j] != 0]
    order = lead + [j for j in range(n) if jpvt_in[j] == 0]
    a = a[:, order]
    perm = list(order)
    k = min(m, n)
    for j in range(k):
        if j >= len(lead):
            norms = np.linalg.norm(a[j:, j:], axis=0)
            p = j + int(np.argmax(norms))
            if p != j:
                a[:, [j, p]] = a[:, [p, j]]
                perm[j], perm[p] = perm[p], perm[j]
        # Householder step on column j.
        x = a[j:, j]
        v = x.copy()
        alpha = x[0]
        nx = np.linalg.norm(x)
        if nx == 0:
            continue
        phase = alpha / abs(alpha) if alpha != 0 else 1
        v[0] += phase * nx
        v /= np.linalg.norm(v)
        a[j:, j:] -= 2 * np.outer(v, np.conj(v) @ a[j:, j:])
    return np.array(perm, np.int32) + 1


def geqp3_case(p, name, m, n, jpvt_in, rng):
    t = TYPES[p]
    c = LapackCase('geqp3_%s_%s' % (p, name), target(p, 'geqp3'))
    a = rand(rng, t, [m, n])
    k = min(m, n)
    res = c.custom_call(target(p, 'geqp3'), [c.c(t, a), c.c('s32', np.array(jpvt_in, np.int32))],
                        [(t, [m, n]), ('s32', [n]), (t, [k])], aliases=[(0, 0), (1, 1)])
    qr, jpvt, tau = c.get(res, 0), c.get(res, 1), c.get(res, 2)
    c.root_of(qr, jpvt, tau)
    want = geqp3_reference(a, jpvt_in)
    c.expect_eq(jpvt, want)
    q = orgqr_call(c, p, t, c.slice(qr, [(0, m), (0, k)]), tau)
    r = c.masked(c.slice(qr, [(0, k), (0, n)]), np.triu(np.ones((k, n), bool)))
    c.expect_near(c.dot(q, r), a[:, want - 1], tol(t, 4))
    CASES.append(c)


def householder_q(h, tau):
    """Q = H1···Hk of LAPACK's geqrf output (h: m x n, reflectors below the
    diagonal), as an m x m matrix."""
    m = h.shape[0]
    q = np.eye(m, dtype=complex if np.iscomplexobj(h) else float)
    for i in range(len(tau)):
        v = np.zeros(m, q.dtype)
        v[i] = 1
        v[i + 1:] = h[i + 1:, i]
        q = q @ (np.eye(m) - tau[i] * np.outer(v, np.conj(v)))
    return q


def ormqr_case(p, rng):
    t = TYPES[p]
    name = target(p, 'unmqr' if p in 'cz' else 'ormqr')
    c = LapackCase('ormqr_%s_all_sides' % p, name)
    outs = []
    for left in (True, False):
        for transpose in (False, True):
            m, n = (5, 3) if left else (3, 5)
            nq = m if left else n
            a = rand(rng, t, [nq, 3])
            h, tau = np.linalg.qr(wide(a), mode='raw')
            h = h.T.astype(NP[t])
            tau = tau.astype(NP[t])
            q = householder_q(wide(h), wide(tau))
            op = np.conj(q.T) if transpose else q
            cm_ = rand(rng, t, [m, n])
            want = op @ wide(cm_) if left else wide(cm_) @ op
            out = c.custom_call(name, [c.c(t, h), c.c(t, tau), c.c(t, cm_)], [(t, [m, n])],
                                attrs={'left': (left, 'bool'), 'transpose': (transpose, 'bool')},
                                aliases=[(0, 2)])
            outs.append(out)
            c.expect_near(out, want, tol(t, 4))
    c.root_of(*outs)
    CASES.append(c)


def gees_case(p, name, batch, n, vectors, rng):
    t = TYPES[p]
    c = LapackCase('gees_%s_%s' % (p, name), target(p, 'gees'))
    a = rand(rng, t, batch + [n, n])
    evals = [(t, batch + [n])] * (1 if is_complex(t) else 2)
    res = c.custom_call(target(p, 'gees'), [c.c(t, a)],
                        [(t, batch + [n, n]), (t, batch + [n, n])] + evals +
                        [('s32', batch), ('s32', batch)],
                        attrs={'mode': (ORD['V' if vectors else 'N'], 'ui8'),
                               'sort': (ORD['N'], 'ui8')}, aliases=[(0, 0)])
    nr = 4 + len(evals)
    tform, vs = c.get(res, 0), c.get(res, 1)
    sdim, info = c.get(res, nr - 2), c.get(res, nr - 1)
    c.root_of(tform, vs, sdim, info)
    c.expect_eq(info, np.zeros(batch, np.int32))
    c.expect_eq(sdim, np.zeros(batch, np.int32))
    # Quasi-triangular (real: 2x2 blocks on the diagonal) or triangular.
    below = np.tril(np.ones((n, n), bool), -2 if not is_complex(t) else -1)
    c.expect_eq(c.masked(tform, below), np.zeros(batch + [n, n]))
    aw = wide(a)
    diag = c.masked(tform, np.eye(n, dtype=bool))
    c.expect_near(reduce_axis(c, reduce_axis(c, diag, len(batch) + 1, 'add'), len(batch), 'add'),
                  np.trace(aw, axis1=-2, axis2=-1), tol(t, 8))
    if vectors:
        c.expect_near(c.dot(c.dot(vs, tform), c.adjoint(vs)), a, tol(t, 4 * n))
        c.expect_near(c.dot(c.adjoint(vs), vs), eye_b(t, batch, n), tol(t, 4))
    else:
        c.expect_eq(vs, np.zeros(batch + [n, n]))
    CASES.append(c)


def gtsv_case(p, name, batch, m, nrhs, rng, singular=False):
    t = TYPES[p]
    c = LapackCase('gtsv_%s_%s' % (p, name), target(p, 'gtsv'))
    dl = rand(rng, t, batch + [m])
    du = rand(rng, t, batch + [m])
    d = (rand(rng, t, batch + [m]) + 4).astype(NP[t])
    if singular:
        flat_dl, flat_d, flat_du = (x.reshape(-1, m) for x in (dl, d, du))
        flat_dl[-1, :] = 0
        flat_d[-1, :] = 0
        flat_du[-1, :] = 0
    b = rand(rng, t, batch + [m, nrhs])
    res = c.custom_call(target(p, 'gtsv'), [c.c(t, dl), c.c(t, d), c.c(t, du), c.c(t, b)],
                        [(t, batch + [m])] * 3 + [(t, batch + [m, nrhs]), ('s32', batch)],
                        aliases=[(0, 0), (1, 1), (2, 2), (3, 3)])
    x, info = c.get(res, 3), c.get(res, 4)
    dl_out = c.get(res, 0)
    c.root_of(x, info)
    nmat = int(np.prod(batch)) if batch else 1
    want_info = np.zeros(nmat, np.int32)
    if singular:
        want_info[-1] = 1
    c.expect_eq(info, want_info.reshape(batch))
    # dl[0] is not read and keeps its value.
    c.expect_eq(c.slice(dl_out, [(0, k) for k in batch] + [(0, 1)]), dl[..., :1])
    if not singular:
        tm = np.zeros(batch + [m, m], WIDE[t])
        i = np.arange(m)
        tm[..., i, i] = d
        tm[..., i[1:], i[:-1]] = dl[..., 1:]
        tm[..., i[:-1], i[1:]] = du[..., :-1]
        want = np.linalg.solve(tm, wide(b))
        c.expect_near(x, want, tol(t, 4))
        c.expect_near(c.dot(c.c(t, tm.astype(NP[t])), x), b, tol(t, 8))
    CASES.append(c)

# ---------------------------------------------------------------------------
# JAX-shaped modules: the body of jax.jit(f).lower(x).as_text(dialect='hlo')
# for jnp.linalg functions on CPU, following jaxlib's lowering rules (the
# getrf pivots made 0-based and turned into a permutation by a while loop,
# results of failed factorisations replaced by NaN, symmetrize_input for
# eigh, ...), as a computation the ENTRY calls on constant inputs.
# ---------------------------------------------------------------------------

class Comp:
    """One HLO computation written the way XLA prints JAX's lowering:
    instruction names `<opcode>.<N>`, numbered across the module."""
    counter = [0]

    def __init__(self, name, params):
        self.name = name
        self.params = params  # [(name, shape)]
        self.lines = []
        self.types = {}
        for i, (n, sh) in enumerate(params):
            self.types[n] = sh
            self.lines.append('  %%%s = %s parameter(%d)' % (n, sh, i))

    def __call__(self, sh, text, base, *operands, root=False):
        Comp.counter[0] += 1
        n = '%s.%d' % (base, Comp.counter[0])
        ops = ', '.join('%s %%%s' % (self.types[o], o) for o in operands)
        self.lines.append('  %s%%%s = %s %s' % ('ROOT ' if root else '', n, sh,
                                                 text.replace('$', ops)))
        self.types[n] = sh
        return n

    def text(self, result_shape):
        hdr = '%%%s (%s) -> %s {' % (self.name, ', '.join(
            '%s: %s' % (n, strip(sh)) for n, sh in self.params), strip(result_shape))
        return '\n'.join([hdr] + self.lines + ['}'])


def strip(sh):
    import re
    return re.sub(r'\]\{[^}]*\}', ']', sh)


def sh(t, dims, col=False):
    return cshape(t, dims) if col else shape(t, dims)


def ffi_call(f, target, operand, results, attrs=None, alias=(0, 0), extra_operands=()):
    ops = [operand] + list(extra_operands)
    constraints = ', '.join(sh(*_dims(f.types[o]), col=True) for o in ops)
    rs = [sh(t, d, col=True) for t, d in results]
    rshape = rs[0] if len(rs) == 1 else '(' + ', '.join(rs) + ')'
    out_index = '' if len(rs) == 1 else str(alias[0])
    text = ('custom-call($), custom_call_target="%s", operand_layout_constraints={%s}, '
            'output_to_operand_aliasing={{%s}: (%d, {})}, api_version=API_VERSION_TYPED_FFI, '
            'frontend_attributes={num_batch_dims="0"}' % (target, constraints, out_index, alias[1]))
    if attrs:
        text += ', backend_config=' + attrs_text(attrs)
    return f(rshape, text, 'custom-call', *ops)


def _dims(shape_text):
    import re
    m = re.match(r'(\w+)\[([\d,]*)\]', shape_text)
    return m.group(1), [int(x) for x in m.group(2).split(',') if x]


def gte(f, v, i, t, dims):
    return f(sh(t, dims, col=len(dims) >= 2), 'get-tuple-element($), index=%d' % i,
             'get-tuple-element', v)


def scalar(f, t, value):
    return f('%s[]' % t, 'constant(%s)' % value, 'constant')


def nan_if_not(f, ok, v, t, dims):
    """select(broadcast(ok), v, NaN), as _replace_not_ok_with_nan lowers."""
    okb = f(sh('pred', dims), 'broadcast($), dimensions={}', 'broadcast', ok)
    nan = scalar(f, t, '(nan, nan)' if is_complex(t) else 'nan')
    nanb = f(sh(t, dims), 'broadcast($), dimensions={}', 'broadcast', nan)
    return f(sh(t, dims), 'select($)', 'select', okb, v, nanb)


def lu_fn(f, comps, p, t, a, n, want_perm):
    """lax.linalg.lu: (lu, pivots, permutation)."""
    res = ffi_call(f, target(p, 'getrf'), a, [(t, [n, n]), ('s32', [n]), ('s32', [])])
    lu0 = gte(f, res, 0, t, [n, n])
    piv1 = gte(f, res, 1, 's32', [n])
    info = gte(f, res, 2, 's32', [])
    one = scalar(f, 's32', 1)
    ones = f(sh('s32', [n]), 'broadcast($), dimensions={}', 'broadcast', one)
    piv = f(sh('s32', [n]), 'subtract($)', 'subtract', piv1, ones)
    zero = scalar(f, 's32', 0)
    ok = f('pred[]', 'compare($), direction=GE', 'compare', info, zero)
    lu = nan_if_not(f, ok, lu0, t, [n, n])
    if not want_perm:
        return lu, piv, None
    # _generic_lu_pivots_to_permutation: fori_loop swapping entries.
    st = '(s32[], s32[%d]{0}, s32[%d]{0})' % (n, n)
    cond = Comp('while_cond_%s_%d' % (p, Comp.counter[0]), [('arg_tuple.c%d' % Comp.counter[0], st)])
    ci = gte(cond, cond.params[0][0], 0, 's32', [])
    ck = scalar(cond, 's32', n)
    cond('pred[]', 'compare($), direction=LT', 'compare', ci, ck, root=True)
    body = Comp('while_body_%s_%d' % (p, Comp.counter[0]), [('arg_tuple.b%d' % Comp.counter[0], st)])
    bt = body.params[0][0]
    i = gte(body, bt, 0, 's32', [])
    perm = gte(body, bt, 1, 's32', [n])
    swaps = gte(body, bt, 2, 's32', [n])
    j1 = body('s32[1]{0}', 'dynamic-slice($), dynamic_slice_sizes={1}', 'dynamic-slice', swaps, i)
    j = body('s32[]', 'reshape($)', 'reshape', j1)
    x1 = body('s32[1]{0}', 'dynamic-slice($), dynamic_slice_sizes={1}', 'dynamic-slice', perm, i)
    y1 = body('s32[1]{0}', 'dynamic-slice($), dynamic_slice_sizes={1}', 'dynamic-slice', perm, j)
    p1 = body(sh('s32', [n]), 'dynamic-update-slice($)', 'dynamic-update-slice', perm, y1, i)
    p2 = body(sh('s32', [n]), 'dynamic-update-slice($)', 'dynamic-update-slice', p1, x1, j)
    bone = scalar(body, 's32', 1)
    i2 = body('s32[]', 'add($)', 'add', i, bone)
    body(st, 'tuple($)', 'tuple', i2, p2, swaps, root=True)
    comps.append(cond.text('pred[]'))
    comps.append(body.text(st))
    iota = f(sh('s32', [n]), 'iota(), iota_dimension=0', 'iota')
    init = f(st, 'tuple($)', 'tuple', zero, iota, piv)
    loop = f(st, 'while($), condition=%%%s, body=%%%s' % (cond.name, body.name), 'while', init)
    perm_out = gte(f, loop, 1, 's32', [n])
    return lu, piv, perm_out


def trsm(f, p, t, lu, x, dims, lower, unit):
    return ffi_call(f, target(p, 'trsm'), lu, [(t, dims)], extra_operands=[x], alias=(0, 1),
                    attrs={'side': (ORD['L'], 'ui8'), 'uplo': (ORD['L' if lower else 'U'], 'ui8'),
                           'trans_x': (ORD['N'], 'ui8'), 'diag': (ORD['U' if unit else 'N'], 'ui8')})


def lu_solve(f, p, t, lu, perm, b, n, r):
    """_lu_solve_core, trans=0: x = b[perm, :]; L\\x; U\\x."""
    zero = scalar(f, 's32', 0)
    zb = f(sh('s32', [n]), 'broadcast($), dimensions={}', 'broadcast', zero)
    neg = f(sh('pred', [n]), 'compare($), direction=LT', 'compare', perm, zb)
    nn = scalar(f, 's32', n)
    nb = f(sh('s32', [n]), 'broadcast($), dimensions={}', 'broadcast', nn)
    wrapped = f(sh('s32', [n]), 'add($)', 'add', perm, nb)
    idx = f(sh('s32', [n]), 'select($)', 'select', neg, wrapped, perm)
    idx2 = f(sh('s32', [n, 1]), 'reshape($)', 'reshape', idx)
    x = f(sh(t, [n, r]), 'gather($), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, '
          'index_vector_dim=1, slice_sizes={1,%d}, indices_are_sorted=false' % r, 'gather', b, idx2)
    y = trsm(f, p, t, lu, x, [n, r], lower=True, unit=True)
    return trsm(f, p, t, lu, y, [n, r], lower=False, unit=False)


def jax_module(name, family, comps, main, main_result, entry_lines, checks):
    out = ['// source: numpy, conformance/tools/gen_lapack_cases.py (JAX-shaped: jaxlib\'s CPU lowering)',
           '// family: %s' % family,
           'HloModule %s, entry_computation_layout={()->%s}' % (name, main_result), '']
    for c in comps + [main]:
        out += [c, '']
    out.append('ENTRY %%main.0 () -> %s {' % strip(main_result))
    out += entry_lines + checks
    out.append('}')
    JAX_MODULES.append((name, '\n'.join(out) + '\n'))


JAX_MODULES = []


class Entry:
    """The ENTRY: constants, the call of the jitted function, checks."""

    def __init__(self):
        self.lines, self.checks, self.k = [], [], 0

    def const(self, t, a):
        from hlo_case import fmt_literal
        self.k += 1
        n = 'constant.e%d' % self.k
        a = np.asarray(a)
        self.lines.append('  %%%s = %s constant(%s)' % (n, shape(t, a.shape), fmt_literal(t, a.astype(NP[t]) if t in NP else a)))
        return '%s %%%s' % (shape(t, a.shape), n)

    def op(self, result, text, root=False):
        self.k += 1
        n = 'v.e%d' % self.k
        self.lines.append('  %s%%%s = %s %s' % ('ROOT ' if root else '', n, result, text))
        return '%s %%%s' % (result, n)

    def check(self, actual, t, want, tolerance=None):
        e = self.const(t, want)
        self.k += 1
        kind = 'check.expect_eq' if tolerance is None else 'check.expect_almost_eq'
        line = '  %%check.e%d = () custom-call(%s, %s), custom_call_target="%s", custom_call_has_side_effect=true' % (
            self.k, actual, e, kind)
        if tolerance is not None:
            line += ', backend_config="{\\"tolerance\\":%r}"' % float(tolerance)
        self.checks.append(line)


def jax_solve_like(p, kind, rng):
    """jnp.linalg.solve(a, b) (b a vector) or jnp.linalg.inv(a)."""
    t = TYPES[p]
    n = 4
    Comp.counter[0] = 0
    a = (rand(rng, t, [n, n]) + 2 * np.eye(n)).astype(NP[t])
    comps = []
    params = [('Arg_0.1', sh(t, [n, n]))] + ([('Arg_1.2', sh(t, [n]))] if kind == 'solve' else [])
    f = Comp('jit_%s.%s' % (kind, p), params)
    Comp.counter[0] = 2
    lu, _, perm = lu_fn(f, comps, p, t, 'Arg_0.1', n, True)
    if kind == 'solve':
        b = f(sh(t, [n, 1]), 'reshape($)', 'reshape', 'Arg_1.2')
        x = lu_solve(f, p, t, lu, perm, b, n, 1)
        f(sh(t, [n]), 'reshape($)', 'reshape', x, root=True)
        result = sh(t, [n])
    else:
        i0 = f(sh('s32', [n, n]), 'iota(), iota_dimension=0', 'iota')
        i1 = f(sh('s32', [n, n]), 'iota(), iota_dimension=1', 'iota')
        eq = f(sh('pred', [n, n]), 'compare($), direction=EQ', 'compare', i0, i1)
        eye = f(sh(t, [n, n]), 'convert($)', 'convert', eq)
        x = lu_solve(f, p, t, lu, perm, eye, n, n)
        f(sh(t, [n, n]), 'copy($)', 'copy', x, root=True)
        result = sh(t, [n, n])
    e = Entry()
    args = [e.const(t, a)]
    if kind == 'solve':
        bv = rand(rng, t, [n])
        args.append(e.const(t, bv))
        want = np.linalg.solve(wide(a), wide(bv))
    else:
        want = np.linalg.inv(wide(a))
    out = e.op(result, 'call(%s), to_apply=%%%s' % (', '.join(args), f.name), root=True)
    e.check(out, t, want, tol(t, 4 * float(np.max(np.abs(want)))))
    jax_module('jax_%s_%s' % (kind, p), 'jax_' + kind, comps, f.text(result), result,
               e.lines, e.checks)


def jax_det(p, rng, singular=False):
    """jnp.linalg.det for n > 3: sign * exp(logdet) from _slogdet_lu."""
    t = TYPES[p]
    n = 4
    Comp.counter[0] = 2
    a = rand(rng, t, [n, n])
    if singular:
        a[:, 2] = 0
    comps = []
    f = Comp('jit_det.%s' % p, [('Arg_0.1', sh(t, [n, n]))])
    lu, piv, _ = lu_fn(f, comps, p, t, 'Arg_0.1', n, False)
    i0 = f(sh('s32', [n, n]), 'iota(), iota_dimension=0', 'iota')
    i1 = f(sh('s32', [n, n]), 'iota(), iota_dimension=1', 'iota')
    eq = f(sh('pred', [n, n]), 'compare($), direction=EQ', 'compare', i0, i1)
    zt = scalar(f, t, '0')
    zb = f(sh(t, [n, n]), 'broadcast($), dimensions={}', 'broadcast', zt)
    dm = f(sh(t, [n, n]), 'select($)', 'select', eq, lu, zb)
    comps.append('%%add.%s (x: %s[], y: %s[]) -> %s[] {\n  %%x = %s[] parameter(0)\n  %%y = %s[] parameter(1)\n'
                 '  ROOT %%add = %s[] add(%s[] %%x, %s[] %%y)\n}' % (t, t, t, t, t, t, t, t, t))
    comps.append('%%or.%s (x_or: pred[], y_or: pred[]) -> pred[] {\n  %%x_or = pred[] parameter(0)\n'
                 '  %%y_or = pred[] parameter(1)\n  ROOT %%or = pred[] or(pred[] %%x_or, pred[] %%y_or)\n}' % t)
    comps.append('%%add_s32.%s (x_i: s32[], y_i: s32[]) -> s32[] {\n  %%x_i = s32[] parameter(0)\n'
                 '  %%y_i = s32[] parameter(1)\n  ROOT %%add_i = s32[] add(s32[] %%x_i, s32[] %%y_i)\n}' % t)
    diag = f(sh(t, [n]), 'reduce($), dimensions={1}, to_apply=%%add.%s' % t, 'reduce', dm, zt)
    zd = f(sh(t, [n]), 'broadcast($), dimensions={}', 'broadcast', zt)
    isz = f(sh('pred', [n]), 'compare($), direction=EQ', 'compare', diag, zd)
    fls = scalar(f, 'pred', 'false')
    is_zero = f('pred[]', 'reduce($), dimensions={0}, to_apply=%%or.%s' % t, 'reduce', isz, fls)
    iota = f(sh('s32', [n]), 'iota(), iota_dimension=0', 'iota')
    ne = f(sh('pred', [n]), 'compare($), direction=NE', 'compare', piv, iota)
    nei = f(sh('s32', [n]), 'convert($)', 'convert', ne)
    neg = f(sh('pred', [n]), 'compare($), direction=LT', 'compare', diag, zd)
    negi = f(sh('s32', [n]), 'convert($)', 'convert', neg)
    zi = scalar(f, 's32', 0)
    c1 = f('s32[]', 'reduce($), dimensions={0}, to_apply=%%add_s32.%s' % t, 'reduce', nei, zi)
    c2 = f('s32[]', 'reduce($), dimensions={0}, to_apply=%%add_s32.%s' % t, 'reduce', negi, zi)
    parity = f('s32[]', 'add($)', 'add', c1, c2)
    two = scalar(f, 's32', 2)
    rem = f('s32[]', 'remainder($)', 'remainder', parity, two)
    m2 = scalar(f, 's32', -2)
    mul = f('s32[]', 'multiply($)', 'multiply', m2, rem)
    one = scalar(f, 's32', 1)
    sgn_i = f('s32[]', 'add($)', 'add', mul, one)
    sgn = f('%s[]' % t, 'convert($)', 'convert', sgn_i)
    sign = f('%s[]' % t, 'select($)', 'select', is_zero, zt, sgn)
    ab = f(sh(t, [n]), 'abs($)', 'abs', diag)
    lg = f(sh(t, [n]), 'log($)', 'log', ab)
    s = f('%s[]' % t, 'reduce($), dimensions={0}, to_apply=%%add.%s' % t, 'reduce', lg, zt)
    minf = scalar(f, t, '-inf')
    logdet = f('%s[]' % t, 'select($)', 'select', is_zero, minf, s)
    ex = f('%s[]' % t, 'exponential($)', 'exponential', logdet)
    f('%s[]' % t, 'multiply($)', 'multiply', sign, ex, root=True)
    e = Entry()
    out = e.op('%s[]' % t, 'call(%s), to_apply=%%%s' % (e.const(t, a), f.name), root=True)
    want = np.linalg.det(wide(a))
    e.check(out, t, want, None if singular else tol(t, 4 * abs(want)))
    jax_module('jax_det_%s%s' % (p, '_singular' if singular else ''), 'jax_det', comps,
               f.text('%s[]' % t), '%s[]' % t, e.lines, e.checks)


def jax_eigh(p, rng):
    """jnp.linalg.eigh(a): symmetrize, syevd (uplo 'L', mode 'V'), NaN where
    info != 0; returns (w, v)."""
    t = TYPES[p]
    r = REAL[t]
    n = 4
    Comp.counter[0] = 2
    a = hermitian(rng, t, [], n)
    comps = []
    f = Comp('jit_eigh.%s' % p, [('Arg_0.1', sh(t, [n, n]))])
    tr = f(sh(t, [n, n]), 'transpose($), dimensions={1,0}', 'transpose', 'Arg_0.1')
    if is_complex(t):
        re = f(sh(r, [n, n]), 'real($)', 'real', tr)
        im = f(sh(r, [n, n]), 'imag($)', 'imag', tr)
        nim = f(sh(r, [n, n]), 'negate($)', 'negate', im)
        tr = f(sh(t, [n, n]), 'complex($)', 'complex', re, nim)
    s = f(sh(t, [n, n]), 'add($)', 'add', 'Arg_0.1', tr)
    two = scalar(f, t, '(2, 0)' if is_complex(t) else '2')
    twob = f(sh(t, [n, n]), 'broadcast($), dimensions={}', 'broadcast', two)
    sym = f(sh(t, [n, n]), 'divide($)', 'divide', s, twob)
    name = syevd_name(p)
    res = ffi_call(f, name, sym, [(t, [n, n]), (r, [n]), ('s32', [])],
                   attrs={'mode': (ORD['V'], 'ui8'), 'uplo': (ORD['L'], 'ui8')})
    v0 = gte(f, res, 0, t, [n, n])
    w0 = gte(f, res, 1, r, [n])
    info = gte(f, res, 2, 's32', [])
    zero = scalar(f, 's32', 0)
    ok = f('pred[]', 'compare($), direction=EQ', 'compare', info, zero)
    v = nan_if_not(f, ok, v0, t, [n, n])
    w = nan_if_not(f, ok, w0, r, [n])
    result = '(%s, %s)' % (sh(r, [n]), sh(t, [n, n]))
    f(result, 'tuple($)', 'tuple', w, v, root=True)
    e = Entry()
    out = e.op(result, 'call(%s), to_apply=%%%s' % (e.const(t, a), f.name), root=True)
    wv = e.op(sh(r, [n]), 'get-tuple-element(%s), index=0' % out)
    vv = e.op(sh(t, [n, n]), 'get-tuple-element(%s), index=1' % out)
    e.check(wv, r, np.linalg.eigvalsh(wide(a)), tol(r, 4))
    # V·diag(w)·Vᴴ = A.
    wc = wv if r == t else e.op(sh(t, [n]), 'convert(%s)' % wv)
    wb = e.op(sh(t, [n, n]), 'broadcast(%s), dimensions={1}' % wc)
    vw = e.op(sh(t, [n, n]), 'multiply(%s, %s)' % (vv, wb))
    vt = e.op(sh(t, [n, n]), 'transpose(%s), dimensions={1,0}' % vv)
    if is_complex(t):
        re = e.op(sh(r, [n, n]), 'real(%s)' % vt)
        im = e.op(sh(r, [n, n]), 'imag(%s)' % vt)
        nim = e.op(sh(r, [n, n]), 'negate(%s)' % im)
        vt = e.op(sh(t, [n, n]), 'complex(%s, %s)' % (re, nim))
    rec = e.op(sh(t, [n, n]), 'dot(%s, %s), lhs_contracting_dims={1}, rhs_contracting_dims={0}' % (vw, vt))
    e.check(rec, t, a, tol(t, 4 * n))
    jax_module('jax_eigh_%s' % p, 'jax_eigh', comps, f.text(result), result, e.lines, e.checks)


def jax_svd(p, rng):
    """jnp.linalg.svd(a) (full_matrices=True): gesdd mode 'A'; (u, s, vh)."""
    t = TYPES[p]
    r = REAL[t]
    m, n = 4, 3
    Comp.counter[0] = 2
    a = rand(rng, t, [m, n])
    comps = []
    f = Comp('jit_svd.%s' % p, [('Arg_0.1', sh(t, [m, n]))])
    res = ffi_call(f, target(p, 'gesdd'), 'Arg_0.1',
                   [(t, [m, n]), (r, [n]), (t, [m, m]), (t, [n, n]), ('s32', [])],
                   attrs={'mode': (ORD['A'], 'ui8')})
    s0 = gte(f, res, 1, r, [n])
    u0 = gte(f, res, 2, t, [m, m])
    vt0 = gte(f, res, 3, t, [n, n])
    info = gte(f, res, 4, 's32', [])
    zero = scalar(f, 's32', 0)
    ok = f('pred[]', 'compare($), direction=EQ', 'compare', info, zero)
    s = nan_if_not(f, ok, s0, r, [n])
    u = nan_if_not(f, ok, u0, t, [m, m])
    vt = nan_if_not(f, ok, vt0, t, [n, n])
    result = '(%s, %s, %s)' % (sh(t, [m, m]), sh(r, [n]), sh(t, [n, n]))
    f(result, 'tuple($)', 'tuple', u, s, vt, root=True)
    e = Entry()
    out = e.op(result, 'call(%s), to_apply=%%%s' % (e.const(t, a), f.name), root=True)
    uu = e.op(sh(t, [m, m]), 'get-tuple-element(%s), index=0' % out)
    ss = e.op(sh(r, [n]), 'get-tuple-element(%s), index=1' % out)
    vv = e.op(sh(t, [n, n]), 'get-tuple-element(%s), index=2' % out)
    e.check(ss, r, np.linalg.svd(wide(a), compute_uv=False), tol(r, 4))
    uk = e.op(sh(t, [m, n]), 'slice(%s), slice={[0:%d], [0:%d]}' % (uu, m, n))
    sc = ss if r == t else e.op(sh(t, [n]), 'convert(%s)' % ss)
    sb = e.op(sh(t, [m, n]), 'broadcast(%s), dimensions={1}' % sc)
    us = e.op(sh(t, [m, n]), 'multiply(%s, %s)' % (uk, sb))
    rec = e.op(sh(t, [m, n]), 'dot(%s, %s), lhs_contracting_dims={1}, rhs_contracting_dims={0}' % (us, vv))
    e.check(rec, t, a, tol(t, 4 * n))
    jax_module('jax_svd_%s' % p, 'jax_svd', comps, f.text(result), result, e.lines, e.checks)


def jax_qr(p, rng):
    """jnp.linalg.qr(a) (mode 'reduced', m > n): geqrf, orgqr on the m x n
    factor, r = triu of its first n rows; (q, r)."""
    t = TYPES[p]
    m, n = 5, 3
    Comp.counter[0] = 2
    a = rand(rng, t, [m, n])
    comps = []
    f = Comp('jit_qr.%s' % p, [('Arg_0.1', sh(t, [m, n]))])
    res = ffi_call(f, target(p, 'geqrf'), 'Arg_0.1', [(t, [m, n]), (t, [n])])
    qr = gte(f, res, 0, t, [m, n])
    tau = gte(f, res, 1, t, [n])
    q = ffi_call(f, orgqr_name(p), qr, [(t, [m, n])], extra_operands=[tau])
    rr = f(sh(t, [n, n]), 'slice($), slice={[0:%d], [0:%d]}' % (n, n), 'slice', qr)
    i0 = f(sh('s32', [n, n]), 'iota(), iota_dimension=0', 'iota')
    i1 = f(sh('s32', [n, n]), 'iota(), iota_dimension=1', 'iota')
    ge = f(sh('pred', [n, n]), 'compare($), direction=GE', 'compare', i1, i0)
    z = scalar(f, t, '0')
    zb = f(sh(t, [n, n]), 'broadcast($), dimensions={}', 'broadcast', z)
    r_ = f(sh(t, [n, n]), 'select($)', 'select', ge, rr, zb)
    result = '(%s, %s)' % (sh(t, [m, n]), sh(t, [n, n]))
    f(result, 'tuple($)', 'tuple', q, r_, root=True)
    e = Entry()
    out = e.op(result, 'call(%s), to_apply=%%%s' % (e.const(t, a), f.name), root=True)
    qq = e.op(sh(t, [m, n]), 'get-tuple-element(%s), index=0' % out)
    rv = e.op(sh(t, [n, n]), 'get-tuple-element(%s), index=1' % out)
    wq, wr = np.linalg.qr(wide(a))
    e.check(qq, t, wq, tol(t, 4))
    e.check(rv, t, wr, tol(t, 4))
    rec = e.op(sh(t, [m, n]), 'dot(%s, %s), lhs_contracting_dims={1}, rhs_contracting_dims={0}' % (qq, rv))
    e.check(rec, t, a, tol(t, 4))
    jax_module('jax_qr_%s' % p, 'jax_qr', comps, f.text(result), result, e.lines, e.checks)


def main():
    rng = np.random.default_rng(20260)
    for p in 'sdcz':
        getrf_case(p, 'square', [], 4, 4, rng)
        getrf_case(p, 'wide_batch', [2], 3, 5, rng)
        getrf_case(p, 'tall', [], 5, 3, rng)
        getrf_case(p, 'singular', [], 4, 4, rng, singular=True)
        potrf_case(p, 'lower', [], 4, True, rng)
        potrf_case(p, 'upper_batch', [2], 3, False, rng)
        potrf_case(p, 'not_positive_definite', [3], 4, True, rng, bad={1: 3})
        geqrf_case(p, 'tall', [], 5, 3, rng)
        geqrf_case(p, 'wide_batch', [2], 3, 4, rng)
        qr_case(p, 'tall', [], 5, 3, rng)
        qr_case(p, 'wide_batch', [2, 1], 3, 5, rng)
        orgqr_partial_case(p, rng)
        syevd_case(p, 'lower', [], 4, True, True, rng)
        syevd_case(p, 'upper_batch', [2], 3, False, True, rng)
        syevd_case(p, 'values_only', [], 5, True, False, rng)
        gesdd_case(p, 'full_tall', [], 4, 3, 'A', rng)
        gesdd_case(p, 'reduced_wide_batch', [2], 3, 5, 'S', rng)
        gesdd_case(p, 'values_only', [], 4, 4, 'N', rng)
        for left in (True, False):
            for lower in (True, False):
                trsm_case(p, [], 4, 3, left, lower, rng)
        trsm_case(p, [2], 3, 2, True, True, rng)
        geev_case(p, 'both', [], 4, True, True, rng)
        geev_case(p, 'right_batch', [2], 3, False, True, rng)
        geev_case(p, 'non_finite', [2], 3, True, True, rng, nonfinite=True)
        gehrd_case(p, 'five', [], 5, rng)
        gehrd_case(p, 'batch', [2], 4, rng)
        sytrd_case(p, 'lower', [], 5, True, rng)
        sytrd_case(p, 'upper_batch', [2], 4, False, rng)
        gesdd_case(p, 'full_tall', [], 4, 3, 'A', rng, routine='gesvd')
        gesdd_case(p, 'reduced_wide_batch', [2], 3, 5, 'S', rng, routine='gesvd')
        gesdd_case(p, 'values_only', [], 3, 3, 'N', rng, routine='gesvd')
        geqp3_case(p, 'free', 5, 4, [0, 0, 0, 0], rng)
        geqp3_case(p, 'leading_column', 4, 4, [0, 0, 1, 0], rng)
        ormqr_case(p, rng)
        gees_case(p, 'vectors', [], 4, True, rng)
        gees_case(p, 'batch_no_vectors', [2], 3, False, rng)
        gtsv_case(p, 'batch', [2], 5, 2, rng)
        gtsv_case(p, 'singular', [2], 4, 1, rng, singular=True)
    # Cases added later draw from their own generator, so the ones above keep
    # their values.
    rng2 = np.random.default_rng(20261)
    for p in 'sdcz':
        svd_non_finite_case(p, 'gesdd', rng2)
        svd_non_finite_case(p, 'gesvd', rng2)
    for p in 'sd':
        jax_solve_like(p, 'inv', rng)
        jax_solve_like(p, 'solve', rng)
        jax_det(p, rng)
        jax_det(p, rng, singular=True)
        jax_svd(p, rng)
        jax_qr(p, rng)
    for p in 'sdcz':
        jax_eigh(p, rng)
    root = os.path.join('conformance', 'cases')
    counts = write_cases(CASES, root, source='numpy, conformance/tools/gen_lapack_cases.py')
    for name, text in JAX_MODULES:
        with open(os.path.join(root, 'lapack', name + '.hlo'), 'w') as out:
            out.write(text)
    print(counts, len(JAX_MODULES), 'JAX-shaped modules')


if __name__ == '__main__':
    main()
