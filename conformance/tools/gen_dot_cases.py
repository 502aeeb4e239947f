"""Writes conformance/cases/dot/*.hlo: dot (DotGeneral) cases whose expected
values come from NumPy (np.einsum over the dimension numbers, in a wide
type, then cast to the result type). Run from the repository root:
/usr/bin/python3 conformance/tools/gen_dot_cases.py
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hlo_case import Case, NP_TYPES, ref, shape, write_cases  # noqa: E402

CASES = []
LETTERS = 'abcdefghijklmnopqrstuvwxyz'


def dims_attr(ds):
    return '{' + ','.join(str(d) for d in ds) + '}'


def ref_dot(lhs, rhs, lb, lc, rb, rc):
    """Result dims: batch, lhs free, rhs free (XLA's order). Operands are
    transposed to [batch, free, contracting] / [batch, contracting, free]
    and multiplied with np.matmul (object arrays: exact Python integers)."""
    lf = [i for i in range(lhs.ndim) if i not in lb and i not in lc]
    rf = [i for i in range(rhs.ndim) if i not in rb and i not in rc]
    bd = [lhs.shape[a] for a in lb]
    fd_l = [lhs.shape[a] for a in lf]
    fd_r = [rhs.shape[a] for a in rf]
    k = int(np.prod([lhs.shape[a] for a in lc], dtype=np.int64))
    b = int(np.prod(bd, dtype=np.int64))
    m = int(np.prod(fd_l, dtype=np.int64))
    n = int(np.prod(fd_r, dtype=np.int64))
    a = np.transpose(lhs, lb + lf + lc).reshape(b, m, k)
    c = np.transpose(rhs, rb + rc + rf).reshape(b, k, n)
    if k == 0:
        out = np.zeros((b, m, n), dtype=lhs.dtype)
    else:
        out = np.matmul(a, c)
    return out.reshape(bd + fd_l + fd_r)


def add_case(name, t_in, t_out, lhs, rhs, lb, lc, rb, rc, check='eq', lhs_layout=None,
             wide=None):
    c = Case('dot', 'dot', name)
    x = c.const(t_in, lhs, layout=lhs_layout)
    y = c.const(t_in, rhs)
    w = wide or {'f16': np.float32, 'f32': np.float64, 'f64': np.float64,
                 'c64': np.complex128, 'c128': np.complex128}.get(t_in, object)
    want = ref_dot(np.asarray(lhs).astype(w), np.asarray(rhs).astype(w), lb, lc, rb, rc)
    if w is object:  # exact integers, wrapped to the result width
        bits = np.dtype(NP_TYPES[t_out]).itemsize * 8
        flat = [int(v) & ((1 << bits) - 1) for v in np.asarray(want).reshape(-1)]
        if t_out[0] == 's':
            flat = [v - (1 << bits) if v >= 1 << (bits - 1) else v for v in flat]
        want = np.array(flat, dtype=NP_TYPES[t_out]).reshape(np.asarray(want).shape)
    want = np.asarray(want).astype(NP_TYPES[t_out])
    attrs = 'lhs_batch_dims=%s, lhs_contracting_dims=%s, rhs_batch_dims=%s, ' \
            'rhs_contracting_dims=%s' % (dims_attr(lb), dims_attr(lc), dims_attr(rb), dims_attr(rc))
    if not lb:
        attrs = 'lhs_contracting_dims=%s, rhs_contracting_dims=%s' % (dims_attr(lc), dims_attr(rc))
    r = c.op(shape(t_out, want.shape), 'dot(%s, %s), %s' % (ref(x), ref(y), attrs), root=True)
    if check == 'eq':
        c.check(r, t_out, want)
    else:
        c.check_almost(r, t_out, want, check)
    CASES.append(c)


def main():
    rng = np.random.default_rng(20261122)
    ints = lambda shp, lo=-8, hi=8: rng.integers(lo, hi, size=shp)  # noqa: E731
    # Plain matmul with small integers: exact in f32.
    add_case('dot_f32_matmul', 'f32', 'f32', ints((3, 4)), ints((4, 5)), [], [1], [], [0])
    # Contracting over lhs dim 0 and rhs dim 1 (both operands transposed).
    add_case('dot_f32_transposed_operands', 'f32', 'f32', ints((4, 3)), ints((5, 4)),
             [], [0], [], [1])
    # Batch dims in different positions; two contracting dims; free dims on
    # both sides.
    add_case('dot_f32_batch_two_contracting', 'f32', 'f32', ints((2, 3, 4, 5)),
             ints((5, 6, 2, 4)), [0], [3, 2], [2], [0, 3])
    add_case('dot_s32_two_batch_dims', 's32', 's32', ints((3, 2, 4)), ints((2, 4, 3, 5)),
             [1, 0], [2], [0, 2], [1])
    # Vector dot product (scalar result) and outer product (no contraction).
    add_case('dot_f64_vector_vector', 'f64', 'f64', rng.standard_normal(17),
             rng.standard_normal(17), [], [0], [], [0], check=1e-12)
    add_case('dot_s64_outer_product', 's64', 's64', ints((3, 2)), ints((4,)), [], [], [], [])
    # A larger f64 matmul, several GEMM tiles and k blocks.
    add_case('dot_f64_matmul_130x300x70', 'f64', 'f64', rng.standard_normal((130, 300)),
             rng.standard_normal((300, 70)), [], [1], [], [0], check=1e-11)
    # Integers: s8 x s8 -> s32 widens; s8 -> s8 and u32 wrap around.
    add_case('dot_s8_to_s32_widening', 's8', 's32', ints((3, 6), -128, 128),
             ints((6, 2), -128, 128), [], [1], [], [0])
    add_case('dot_s8_wraps', 's8', 's8', ints((3, 6), -128, 128), ints((6, 2), -128, 128),
             [], [1], [], [0])
    add_case('dot_u32_wraps', 'u32', 'u32', ints((2, 3), 0, 2**32 - 1), ints((3, 2), 0, 2**32 - 1),
             [], [1], [], [0])
    # Column-major lhs.
    add_case('dot_f32_column_major_lhs', 'f32', 'f32', ints((3, 4)), ints((4, 2)), [], [1], [],
             [0], lhs_layout=[0, 1])
    # f16 accumulates in f32 and rounds once: 2048 + 1 + 1 + 1 + 1 stays
    # 2048 when rounded per step in f16, is 2052 in f32.
    add_case('dot_f16_accumulates_wide', 'f16', 'f16', np.array([[2048, 1, 1, 1, 1]]),
             np.array([[1], [1], [1], [1], [1]]), [], [1], [], [0])
    # Complex.
    add_case('dot_c64_matmul', 'c64', 'c64', ints((2, 3)) + 1j * ints((2, 3)),
             ints((3, 2)) + 1j * ints((3, 2)), [], [1], [], [0])
    # Empty contraction: zeros.
    add_case('dot_f32_empty_contraction', 'f32', 'f32', np.zeros((2, 0)), np.zeros((0, 3)), [],
             [1], [], [0])
    counts = write_cases(CASES, os.path.join('conformance', 'cases'),
                         source='numpy, conformance/tools/gen_dot_cases.py')
    print(counts)


if __name__ == '__main__':
    main()
