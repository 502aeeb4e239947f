"""Writes conformance/cases/linalg/*.hlo: triangular-solve, cholesky and
ragged-dot.

triangular-solve: every combination of left_side, lower, transpose_a and
unit_diagonal, batched and blocked sizes (more rows than one solve block,
more right-hand sides than one work unit), f16/f32/f64/c64/c128. The
triangle of `a` the op must not read holds NaN, and a unit diagonal holds
7, so reading either shows in the result. Expected values: NumPy's
np.linalg.solve on the triangular op(a), in double.
cholesky: lower and upper, batched, blocked sizes, real and complex; the
other triangle of the input holds garbage (the op reads one triangle and
writes zeros to the other); a batch with a matrix that is not positive
definite (XLA: that matrix comes out all NaN, the others are factored).
Expected values: np.linalg.cholesky in double.
ragged-dot: the three modes (ragged non-contracting, contracting and batch
dimension), batched, with per-batch group sizes, a ragged dimension that is
not the outermost free one, groups that leave rows or contracting indices
uncovered, empty groups, f32/f64/f16/s32. Expected values: per-group
matrix products in NumPy, in double (int64 for s32).
scaled-dot (written to cases/dot/): f32 block scales, an f16 operand with
an f32 scale and a scalar scale, and MX-style f8e4m3fn operands with
f8e8m0fnu scales; expected values: NumPy's dequantised operands multiplied
in double.
Run from the repository root: /usr/bin/python3 conformance/tools/gen_linalg_cases.py
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hlo_case import Case, fmt_literal, ref, shape, write_cases  # noqa: E402

CASES = []
WIDE = {'f16': np.float64, 'f32': np.float64, 'f64': np.float64,
        'c64': np.complex128, 'c128': np.complex128}
NP = {'f16': np.float16, 'f32': np.float32, 'f64': np.float64,
      'c64': np.complex64, 'c128': np.complex128}


def tol(t, want):
    scale = max(1.0, float(np.max(np.abs(want))) if np.size(want) else 1.0)
    return {'f16': 2e-2, 'f32': 1e-4, 'c64': 1e-4, 'f64': 1e-11, 'c128': 1e-11}[t] * scale


def rand(rng, t, dims, lo=-1.0, hi=1.0):
    x = rng.uniform(lo, hi, dims)
    if t[0] == 'c':
        x = x + 1j * rng.uniform(lo, hi, dims)
    return x


def triangular(rng, t, batch, m, lower, unit):
    """A well-conditioned triangular a: diagonal 2..3 (7 when unit: the op
    must not read it), small off-diagonal, NaN in the other triangle."""
    a = rand(rng, t, batch + [m, m]) * (1.0 / max(1, m) ** 0.5)
    diag = rng.uniform(2, 3, batch + [m])
    idx = np.arange(m)
    a[..., idx, idx] = 7.0 if unit else diag
    keep = np.tril(np.ones((m, m), bool)) if lower else np.triu(np.ones((m, m), bool))
    a = a.astype(NP[t])
    a = np.where(keep, a, np.nan).astype(NP[t])
    return a


def trisolve_case(name, t, batch, m, n, left, lower, transpose, unit, rng):
    a = triangular(rng, t, batch, m, lower, unit)
    bdims = batch + ([m, n] if left else [n, m])
    b = rand(rng, t, bdims, -2, 2).astype(NP[t])
    aw = np.nan_to_num(a.astype(WIDE[t]), nan=0.0)
    if unit:
        idx = np.arange(m)
        aw[..., idx, idx] = 1.0
    op = aw
    if transpose == 'TRANSPOSE':
        op = np.swapaxes(aw, -1, -2)
    elif transpose == 'ADJOINT':
        op = np.conj(np.swapaxes(aw, -1, -2))
    bw = b.astype(WIDE[t])
    if left:
        want = np.linalg.solve(op, bw)
    else:  # x op = b  <=>  op^T x^T = b^T
        want = np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(bw, -1, -2)), -1, -2)
    c = Case('linalg', 'triangular_solve', name)
    ac, bc = c.const(t, a), c.const(t, b)
    attrs = []
    if left:
        attrs.append('left_side=true')
    if lower:
        attrs.append('lower=true')
    if unit:
        attrs.append('unit_diagonal=true')
    attrs.append('transpose_a=%s' % transpose)
    r = c.op(shape(t, bdims), 'triangular-solve(%s, %s), %s' % (ref(ac), ref(bc), ', '.join(attrs)),
             root=True)
    c.check_almost(r, t, want.astype(NP[t]), tol(t, want))
    CASES.append(c)


def spd(rng, t, batch, n):
    x = rand(rng, t, batch + [n, n])
    a = x @ np.conj(np.swapaxes(x, -1, -2)) / n + 2 * np.eye(n)
    return a


def cholesky_case(name, t, batch, n, lower, rng, bad=None):
    a = spd(rng, t, batch, n)
    if bad is not None:  # make one batch matrix indefinite
        a.reshape([-1, n, n])[bad][n // 2, n // 2] = -5.0
    keep = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
    written = np.where(keep, a, 999.0).astype(NP[t])  # garbage in the unread triangle
    aw = written.astype(WIDE[t])
    full = np.where(keep, aw, np.conj(np.swapaxes(aw, -1, -2)))
    flat = full.reshape([-1, n, n])
    want = np.empty_like(flat)
    for i in range(flat.shape[0]):
        try:
            l = np.linalg.cholesky(flat[i])
            want[i] = l if lower else np.conj(l.T)
        except np.linalg.LinAlgError:
            want[i] = np.nan
    want = want.reshape(full.shape)
    # For upper, XLA factors the transpose of the upper triangle and
    # transposes the factor back: u with a = u^H u and a real positive
    # diagonal, which is unique, so conj(l)^T of NumPy's lower factor.
    c = Case('linalg', 'cholesky', name)
    ac = c.const(t, written)
    r = c.op(shape(t, written.shape), 'cholesky(%s), lower=%s' % (ref(ac), 'true' if lower else 'false'),
             root=True)
    finite = want[np.isfinite(want)]
    c.check_almost(r, t, want.astype(NP[t]), tol(t, finite))
    CASES.append(c)


def dims_attr(name, dims):
    return '%s={%s}' % (name, ','.join(str(d) for d in dims))


def ragged_case(name, t, lhs_dims, rhs_dims, gs, want_fn, attrs, rng, gs_type='s64'):
    if t == 's32':
        lhs = rng.integers(-5, 6, lhs_dims).astype(np.int32)
        rhs = rng.integers(-5, 6, rhs_dims).astype(np.int32)
        wide = np.int64
    else:
        lhs = rng.uniform(-1, 1, lhs_dims).astype(NP[t])
        rhs = rng.uniform(-1, 1, rhs_dims).astype(NP[t])
        wide = np.float64
    gs = np.asarray(gs)
    want = want_fn(lhs.astype(wide), rhs.astype(wide), gs)
    c = Case('linalg', 'ragged_dot', name)
    lc, rc, gc = c.const(t, lhs), c.const(t, rhs), c.const(gs_type, gs)
    r = c.op(shape(t, want.shape), 'ragged-dot(%s, %s, %s), %s' % (ref(lc), ref(rc), ref(gc), attrs),
             root=True)
    if t == 's32':
        c.check(r, t, want.astype(np.int32))
    else:
        c.check_almost(r, t, want.astype(NP[t]), tol(t, want))
    CASES.append(c)


def group_of(index, sizes):
    """The groups whose range [cumsum before, cumsum) holds `index`."""
    ends = np.cumsum(sizes)
    starts = ends - sizes
    return [g for g in range(len(sizes)) if starts[g] <= index < ends[g]]


def ragged_cases(rng):
    # Mode 1: lhs [m, k], rhs [g, k, n]; rows 0..sum-1 grouped, the rest zero.
    def m1(lhs, rhs, gs):
        out = np.zeros((lhs.shape[0], rhs.shape[2]), lhs.dtype)
        for i in range(lhs.shape[0]):
            for g in group_of(i, gs):
                out[i] += lhs[i] @ rhs[g]
        return out
    attrs1 = 'lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}'
    ragged_case('ragged_noncontracting_f32', 'f32', [11, 5], [3, 5, 7], [4, 0, 5], m1, attrs1, rng)
    ragged_case('ragged_noncontracting_f64_s32_sizes', 'f64', [8, 3], [2, 3, 4], [3, 5], m1, attrs1, rng,
                gs_type='s32')
    ragged_case('ragged_noncontracting_f16', 'f16', [6, 4], [2, 4, 3], [2, 3], m1, attrs1, rng)
    ragged_case('ragged_noncontracting_s32', 's32', [7, 3], [3, 3, 2], [2, 2, 3], m1, attrs1, rng)

    # Mode 1 with a batch dimension and per-batch group sizes: lhs [b, m, k],
    # rhs [g, b, k, n] (group dimension first), group_sizes [b, g].
    def m1b(lhs, rhs, gs):
        out = np.zeros((lhs.shape[0], lhs.shape[1], rhs.shape[3]), lhs.dtype)
        for b in range(lhs.shape[0]):
            for i in range(lhs.shape[1]):
                for g in group_of(i, gs[b]):
                    out[b, i] += lhs[b, i] @ rhs[g, b]
        return out
    ragged_case('ragged_noncontracting_batch_per_batch_sizes', 'f32', [2, 9, 4], [3, 2, 4, 5],
                [[2, 3, 4], [5, 0, 1]], m1b,
                'lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={1}, '
                'rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0}', rng)

    # Mode 1, the ragged dimension inside: lhs [p, m, k] with m ragged (p is
    # a free dimension too), rhs [k, g, n] (group dimension in the middle).
    def m1i(lhs, rhs, gs):
        out = np.zeros((lhs.shape[0], lhs.shape[1], rhs.shape[2]), lhs.dtype)
        for q in range(lhs.shape[0]):
            for i in range(lhs.shape[1]):
                for g in group_of(i, gs):
                    out[q, i] += lhs[q, i] @ rhs[:, g, :]
        return out
    ragged_case('ragged_noncontracting_inner_dim', 'f32', [3, 6, 4], [4, 2, 5], [2, 3], m1i,
                'lhs_contracting_dims={2}, rhs_contracting_dims={0}, lhs_ragged_dims={1}, '
                'rhs_group_dims={1}', rng)

    # Mode 2: ragged contracting dimension, lhs [m, k], rhs [k, n] -> [g, m, n].
    def m2(lhs, rhs, gs):
        out = np.zeros((len(gs), lhs.shape[0], rhs.shape[1]), lhs.dtype)
        for g in range(len(gs)):
            ks = [k for k in range(lhs.shape[1]) if g in group_of(k, gs)]
            out[g] = lhs[:, ks] @ rhs[ks, :]
        return out
    ragged_case('ragged_contracting_f32', 'f32', [5, 10], [10, 3], [3, 0, 4, 2], m2,
                'lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}', rng)
    ragged_case('ragged_contracting_s32', 's32', [3, 6], [6, 2], [2, 4], m2,
                'lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}', rng)

    # Mode 2 with a batch dimension and two contracting dimensions, the
    # ragged one second: lhs [b, m, c, k], rhs [b, c, k, n] -> [g, b, m, n].
    def m2b(lhs, rhs, gs):
        out = np.zeros((len(gs), lhs.shape[0], lhs.shape[1], rhs.shape[3]), lhs.dtype)
        for g in range(len(gs)):
            ks = [k for k in range(lhs.shape[3]) if g in group_of(k, gs)]
            for b in range(lhs.shape[0]):
                out[g, b] = np.einsum('mck,ckn->mn', lhs[b][:, :, ks], rhs[b][:, ks, :])
        return out
    ragged_case('ragged_contracting_batch_two_dims', 'f64', [2, 3, 2, 7], [2, 2, 7, 4], [3, 4], m2b,
                'lhs_batch_dims={0}, lhs_contracting_dims={2,3}, rhs_batch_dims={0}, '
                'rhs_contracting_dims={1,2}, lhs_ragged_dims={3}', rng)

    # Mode 3: ragged batch dimension, the plain batched dot.
    def m3(lhs, rhs, gs):
        return np.einsum('bmk,bkn->bmn', lhs, rhs)
    ragged_case('ragged_batch_f32', 'f32', [4, 3, 5], [4, 5, 2], [1, 3], m3,
                'lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, '
                'rhs_contracting_dims={1}, lhs_ragged_dims={0}', rng)


def const_as(c, t, a):
    """A constant of a type NumPy lacks (f8e4m3fn, f8e8m0fnu), written from
    values the type holds exactly."""
    a = np.asarray(a, dtype=np.float64)
    n = c.fresh('c')
    text = shape(t, a.shape)
    c.lines.append('%%%s = %s constant(%s)' % (n, text, fmt_literal('f64', a)))
    return ('%' + n, text)


def expand(scale, dims):
    """Each scale element repeated over its block of an operand of `dims`."""
    out = scale
    for i, d in enumerate(dims):
        out = np.repeat(out, d // scale.shape[i], axis=i)
    return out


def scaled_cases(rng):
    mm = 'lhs_contracting_dims={1}, rhs_contracting_dims={0}'
    # f32 operands and scales: dequantised in f32, blocks of 32 along k.
    lhs = rng.uniform(-1, 1, (4, 64)).astype(np.float32)
    rhs = rng.uniform(-1, 1, (64, 3)).astype(np.float32)
    ls = rng.uniform(0.5, 4, (4, 2)).astype(np.float32)
    rs = rng.uniform(0.5, 4, (2, 3)).astype(np.float32)
    want = (lhs * expand(ls, lhs.shape)).astype(np.float64) @ (rhs * expand(rs, rhs.shape)).astype(np.float64)
    c = Case('dot', 'scaled_dot', 'scaled_dot_f32_blocks')
    args = [c.const('f32', x) for x in (lhs, rhs, ls, rs)]
    r = c.op(shape('f32', want.shape), 'scaled-dot(%s), %s' % (', '.join(ref(x) for x in args), mm),
             root=True)
    c.check_almost(r, 'f32', want.astype(np.float32), tol('f32', want))
    CASES.append(c)

    # f16 lhs with an f32 scale (dequantised in f32, the wider type); the
    # rhs has a scalar scale, which leaves it as it is.
    lhs = rng.uniform(-2, 2, (3, 32)).astype(np.float16)
    rhs = rng.uniform(-2, 2, (32, 5)).astype(np.float16)
    ls = rng.uniform(0.5, 4, (3, 1)).astype(np.float32)
    want = (lhs.astype(np.float32) * expand(ls, lhs.shape)).astype(np.float64) @ rhs.astype(np.float64)
    c = Case('dot', 'scaled_dot', 'scaled_dot_f16_f32_scale_scalar_rhs_scale')
    lc, rc, lsc = c.const('f16', lhs), c.const('f16', rhs), c.const('f32', ls)
    rsc = c.const('f32', np.float32(3.0))
    r = c.op(shape('f32', want.shape), 'scaled-dot(%s, %s, %s, %s), %s' %
             (ref(lc), ref(rc), ref(lsc), ref(rsc), mm), root=True)
    c.check_almost(r, 'f32', want.astype(np.float32), tol('f32', want))
    CASES.append(c)

    # MX-style: f8e4m3fn operands, f8e8m0fnu (power of two) scales over
    # blocks of 32, both contracting on dimension 1; dequantised in bf16
    # (exact: a 4-bit significand times a power of two).
    values = np.array([0.5, 0.75, 1, 1.25, 1.5, 2, 3, 0.875, -0.5, -1, -1.75, -3, 0, 0.125])
    lhs = rng.choice(values, (2, 64))
    rhs = rng.choice(values, (4, 64))
    ls = 2.0 ** rng.integers(-3, 4, (2, 2))
    rs = 2.0 ** rng.integers(-3, 4, (4, 2))
    want = (lhs * expand(ls, lhs.shape)) @ (rhs * expand(rs, rhs.shape)).T
    c = Case('dot', 'scaled_dot', 'scaled_dot_mx_f8e4m3fn_e8m0')
    args = [const_as(c, 'f8e4m3fn', lhs), const_as(c, 'f8e4m3fn', rhs), const_as(c, 'f8e8m0fnu', ls),
            const_as(c, 'f8e8m0fnu', rs)]
    r = c.op(shape('f32', want.shape), 'scaled-dot(%s), lhs_contracting_dims={1}, rhs_contracting_dims={1}' %
             ', '.join(ref(x) for x in args), root=True)
    c.check_almost(r, 'f32', want.astype(np.float32), 1e-5)
    CASES.append(c)


def main():
    rng = np.random.default_rng(20261125)
    for left in (True, False):
        for lower in (True, False):
            for transpose in ('NO_TRANSPOSE', 'TRANSPOSE', 'ADJOINT'):
                for unit in (False, True):
                    name = 'trisolve_f32_%s_%s_%s%s' % ('left' if left else 'right',
                                                        'lower' if lower else 'upper',
                                                        transpose.lower(), '_unit' if unit else '')
                    trisolve_case(name, 'f32', [], 5, 3, left, lower, transpose, unit, rng)
    trisolve_case('trisolve_f64_batch_left_upper', 'f64', [2, 3], 6, 4, True, False, 'NO_TRANSPOSE',
                  False, rng)
    trisolve_case('trisolve_f64_batch_right_lower_t', 'f64', [3], 7, 2, False, True, 'TRANSPOSE',
                  False, rng)
    trisolve_case('trisolve_c64_left_lower_adjoint', 'c64', [2], 5, 3, True, True, 'ADJOINT', False, rng)
    trisolve_case('trisolve_c64_right_upper_transpose', 'c64', [], 6, 4, False, False, 'TRANSPOSE',
                  False, rng)
    trisolve_case('trisolve_c128_right_lower_adjoint_unit', 'c128', [2], 4, 5, False, True, 'ADJOINT',
                  True, rng)
    trisolve_case('trisolve_c128_left_upper', 'c128', [], 9, 2, True, False, 'NO_TRANSPOSE', False, rng)
    trisolve_case('trisolve_f16_left_lower', 'f16', [], 4, 3, True, True, 'NO_TRANSPOSE', False, rng)
    trisolve_case('trisolve_f32_empty_rhs', 'f32', [2], 3, 0, True, True, 'NO_TRANSPOSE', False, rng)
    # Blocked: more rows than a solve block (64), more columns than a unit (256).
    trisolve_case('trisolve_f32_blocked_left_lower', 'f32', [], 150, 300, True, True, 'NO_TRANSPOSE',
                  False, rng)
    trisolve_case('trisolve_f64_blocked_left_lower_transpose', 'f64', [], 130, 20, True, True,
                  'TRANSPOSE', False, rng)
    trisolve_case('trisolve_f64_blocked_right_upper', 'f64', [2], 140, 70, False, False,
                  'NO_TRANSPOSE', False, rng)
    trisolve_case('trisolve_c64_blocked_left_upper_adjoint', 'c64', [], 100, 8, True, False, 'ADJOINT',
                  False, rng)

    for t in ('f32', 'f64', 'c64', 'c128'):
        for lower in (True, False):
            cholesky_case('cholesky_%s_%s' % (t, 'lower' if lower else 'upper'), t, [], 5, lower, rng)
    cholesky_case('cholesky_f32_batch_lower', 'f32', [2, 3], 4, True, rng)
    cholesky_case('cholesky_f64_batch_upper', 'f64', [3], 6, False, rng)
    cholesky_case('cholesky_f16_lower', 'f16', [], 4, True, rng)
    cholesky_case('cholesky_f32_one', 'f32', [2], 1, True, rng)
    cholesky_case('cholesky_f32_not_positive_definite', 'f32', [3], 4, True, rng, bad=1)
    cholesky_case('cholesky_c64_not_positive_definite_upper', 'c64', [2], 5, False, rng, bad=0)
    # Blocked: more columns than one panel (64).
    cholesky_case('cholesky_f32_blocked_lower', 'f32', [], 150, True, rng)
    cholesky_case('cholesky_f64_blocked_upper', 'f64', [2], 130, False, rng)
    cholesky_case('cholesky_c128_blocked_lower', 'c128', [], 80, True, rng)
    ragged_cases(rng)
    scaled_cases(rng)

    counts = write_cases(CASES, os.path.join('conformance', 'cases'),
                         source='numpy, conformance/tools/gen_linalg_cases.py')
    print(counts)


if __name__ == '__main__':
    main()
