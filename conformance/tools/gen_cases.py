#!/usr/bin/python3
"""Generates hlovm's own conformance suite, conformance/cases/<group>/*.hlo.

Expected values are computed here with NumPy (Debian's python3-numpy) or by
hand from the semantics in ../shared/seeds/ (XLA's operation semantics),
never with hlovm. Run from the repository root:

    /usr/bin/python3 conformance/tools/gen_cases.py

It rewrites the generated cases (every file whose source line names this
script) and prints the number of cases per group.
"""

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hlo_case import (Case, FLOAT_TYPES, INT_TYPES, NP_TYPES, SIGNED_TYPES, UNSIGNED_TYPES,  # noqa: E402
                      arr, binary_comp, compare_comp, plain, ref, shape, tuple_shape,
                      write_cases)
import gen_narrow  # noqa: E402
import gen_structure  # noqa: E402

CASES = []


def new(group, family, name, note=None):
    c = Case(group, family, name, note)
    CASES.append(c)
    return c


def info(t):
    return np.iinfo(NP_TYPES[t])


# ---------------------------------------------------------------------------
# Elementwise binary ops.
# ---------------------------------------------------------------------------

def wrap(t, values):
    """Two's complement wrap of Python ints into type t."""
    bits = np.dtype(NP_TYPES[t]).itemsize * 8
    out = []
    for v in values:
        v &= (1 << bits) - 1
        if t in SIGNED_TYPES and v >= 1 << (bits - 1):
            v -= 1 << bits
        out.append(v)
    return out


def int_div(t, a, b):
    """XLA: division by zero gives -1 (all bits set); INT_MIN / -1 = INT_MIN;
    otherwise truncation toward zero."""
    mn = info(t).min
    out = []
    for x, y in zip(a, b):
        if y == 0:
            out.append(-1 if t in SIGNED_TYPES else info(t).max)
        elif t in SIGNED_TYPES and x == mn and y == -1:
            out.append(mn)
        else:
            q = abs(x) // abs(y)
            out.append(q if (x >= 0) == (y >= 0) else -q)
    return out


def int_rem(t, a, b):
    """XLA: x % 0 = x; INT_MIN % -1 = 0; the sign follows the dividend."""
    mn = info(t).min
    out = []
    for x, y in zip(a, b):
        if y == 0:
            out.append(x)
        elif t in SIGNED_TYPES and x == mn and y == -1:
            out.append(0)
        else:
            r = abs(x) % abs(y)
            out.append(r if x >= 0 else -r)
    return out


def shift(t, kind, a, b):
    bits = np.dtype(NP_TYPES[t]).itemsize * 8
    out = []
    for x, s in zip(a, b):
        su = s & ((1 << bits) - 1)  # the amount is read as unsigned
        if kind == 'shift-left':
            out.append(0 if su >= bits else wrap(t, [x << su])[0])
        elif kind == 'shift-right-logical':
            xu = x & ((1 << bits) - 1)
            out.append(0 if su >= bits else wrap(t, [xu >> su])[0])
        else:  # arithmetic: the bits are read as signed, whatever the type
            xs = x & ((1 << bits) - 1)
            if xs >= 1 << (bits - 1):
                xs -= 1 << bits
            out.append(wrap(t, [(-1 if xs < 0 else 0) if su >= bits else xs >> su])[0])
    return out


def int_operands(t):
    i = info(t)
    if t in SIGNED_TYPES:
        a = [0, 1, -1, 7, -7, i.max, i.min, i.min, 100 % (i.max + 1), -5]
        b = [3, -1, 1, 2, 2, 1, -1, 1, 0, 3]
    else:
        a = [0, 1, 7, i.max, i.max, 5, 200 % (i.max + 1), 3, 9, 1]
        b = [3, 1, 2, 1, 2, 0, 3, i.max, 4, 0]
    return a, b


def gen_int_binary():
    for t in INT_TYPES:
        a, b = int_operands(t)
        ops = {
            'add': wrap(t, [x + y for x, y in zip(a, b)]),
            'subtract': wrap(t, [x - y for x, y in zip(a, b)]),
            'multiply': wrap(t, [x * y for x, y in zip(a, b)]),
            'divide': int_div(t, a, b),
            'remainder': int_rem(t, a, b),
            'maximum': [max(x, y) for x, y in zip(a, b)],
            'minimum': [min(x, y) for x, y in zip(a, b)],
            'and': wrap(t, [x & y for x, y in zip(a, b)]),
            'or': wrap(t, [x | y for x, y in zip(a, b)]),
            'xor': wrap(t, [x ^ y for x, y in zip(a, b)]),
        }
        for op, expected in ops.items():
            c = new('elementwise', op, '%s_%s_edges' % (op.replace('-', '_'), t))
            x = c.const(t, a)
            y = c.const(t, b)
            r = c.op(shape(t, [len(a)]), '%s(%s, %s)' % (op, ref(x), ref(y)), root=True)
            c.check(r, t, expected)


def gen_shifts():
    for t in ('s8', 's32', 'u8', 'u32', 's64', 'u16'):
        bits = np.dtype(NP_TYPES[t]).itemsize * 8
        i = info(t)
        if t in SIGNED_TYPES:
            a = [1, -1, i.min, i.max, -8, 5, 3, -3]
            b = [1, 1, 1, 1, bits - 1, bits, bits + 3, -1]
        else:
            a = [1, i.max, i.max, 6, 128 % (i.max + 1), 5, 3, 9]
            b = [1, 1, bits - 1, 0, 3, bits, bits + 3, i.max]
        for op in ('shift-left', 'shift-right-logical', 'shift-right-arithmetic'):
            c = new('elementwise', op, '%s_%s' % (op.replace('-', '_'), t))
            x = c.const(t, a)
            y = c.const(t, b)
            r = c.op(shape(t, [len(a)]), '%s(%s, %s)' % (op, ref(x), ref(y)), root=True)
            c.check(r, t, shift(t, op, a, b))


def gen_float_binary():
    inf, nan = float('inf'), float('nan')
    for t in FLOAT_TYPES:
        npt = NP_TYPES[t]
        big = float(np.finfo(npt).max)
        tiny = float(np.finfo(npt).tiny)
        a = np.array([1.5, -2.25, 0.0, -0.0, inf, -inf, nan, big, tiny, 3.0, 1e-3, 7.0], dtype=npt)
        b = np.array([0.5, 4.0, -0.0, -0.0, 1.0, inf, 1.0, big, 0.5, 0.0, 1e-3, -2.0], dtype=npt)
        with np.errstate(all='ignore'):
            ops = {
                'add': a + b,
                'subtract': a - b,
                'multiply': a * b,
                'divide': a / b,
                'remainder': np.fmod(a, b),
            }
        for op, expected in ops.items():
            c = new('elementwise', op, '%s_%s_special' % (op, t))
            x = c.const(t, a)
            y = c.const(t, b)
            r = c.op(shape(t, [len(a)]), '%s(%s, %s)' % (op, ref(x), ref(y)), root=True)
            c.check(r, t, expected)
        # maximum/minimum: NaN propagates; avoid the +0/-0 pair (unspecified).
        a2 = np.array([1.0, -3.0, nan, 2.0, inf, -inf, 5.0], dtype=npt)
        b2 = np.array([2.0, -4.0, 1.0, nan, 1.0, -1.0, 5.0], dtype=npt)
        for op, f in (('maximum', np.maximum), ('minimum', np.minimum)):
            c = new('elementwise', op, '%s_%s_nan' % (op, t))
            x = c.const(t, a2)
            y = c.const(t, b2)
            r = c.op(shape(t, [len(a2)]), '%s(%s, %s)' % (op, ref(x), ref(y)), root=True)
            c.check(r, t, f(a2, b2))
    # power and atan2 in f32/f64 (rounded results: ULP checks).
    for t in ('f32', 'f64'):
        npt = NP_TYPES[t]
        a = np.array([2.0, 9.0, 0.5, -2.0, 0.0, 1.0, 10.0, -8.0], dtype=npt)
        b = np.array([10.0, 0.5, -1.0, 3.0, 0.0, nan, -2.0, 1.0 / 3.0], dtype=npt)
        with np.errstate(all='ignore'):
            expected = np.power(a.astype(np.float64), b.astype(np.float64)).astype(npt)
        c = new('elementwise', 'power', 'power_%s' % t)
        x = c.const(t, a)
        y = c.const(t, b)
        r = c.op(shape(t, [len(a)]), 'power(%s, %s)' % (ref(x), ref(y)), root=True)
        c.check_close(r, t, expected, 2)
        ya = np.array([1.0, -1.0, 0.0, 1.0, -1.0, 3.0, 0.0, -0.0], dtype=npt)
        xa = np.array([1.0, 1.0, 1.0, -1.0, -1.0, 4.0, -1.0, -1.0], dtype=npt)
        c = new('elementwise', 'atan2', 'atan2_%s' % t)
        y_ = c.const(t, ya)
        x_ = c.const(t, xa)
        r = c.op(shape(t, [len(ya)]), 'atan2(%s, %s)' % (ref(y_), ref(x_)), root=True)
        c.check_close(r, t, np.arctan2(ya.astype(np.float64), xa.astype(np.float64)).astype(npt), 2)
    # Integer power: exact, with wrap-around.
    for t in ('s32', 'u32', 's64'):
        a = [2, 3, 0, 1, 5, 7, 2]
        b = [10, 4, 0, 100, 3, 0, 31]
        expected = wrap(t, [x ** y for x, y in zip(a, b)])
        c = new('elementwise', 'power', 'power_%s' % t)
        x = c.const(t, a)
        y = c.const(t, b)
        r = c.op(shape(t, [len(a)]), 'power(%s, %s)' % (ref(x), ref(y)), root=True)
        c.check(r, t, expected)
    # Broadcast-free scalar (rank 0) and empty arrays.
    for t in ('f32', 's32'):
        c = new('elementwise', 'add', 'add_%s_rank0' % t)
        x = c.const(t, np.array(3, dtype=NP_TYPES[t]))
        y = c.const(t, np.array(4, dtype=NP_TYPES[t]))
        r = c.op(shape(t, []), 'add(%s, %s)' % (ref(x), ref(y)), root=True)
        c.check(r, t, np.array(7, dtype=NP_TYPES[t]))
        c = new('elementwise', 'multiply', 'multiply_%s_empty' % t)
        x = c.const(t, np.zeros((0, 3), dtype=NP_TYPES[t]))
        y = c.const(t, np.zeros((0, 3), dtype=NP_TYPES[t]))
        r = c.op(shape(t, [0, 3]), 'multiply(%s, %s)' % (ref(x), ref(y)), root=True)
        c.check(r, t, np.zeros((0, 3), dtype=NP_TYPES[t]))
    # Pred logic.
    p = [True, True, False, False]
    q = [True, False, True, False]
    for op, f in (('and', lambda x, y: x and y), ('or', lambda x, y: x or y),
                  ('xor', lambda x, y: x != y)):
        c = new('elementwise', op, '%s_pred' % op)
        x = c.const('pred', p)
        y = c.const('pred', q)
        r = c.op(shape('pred', [4]), '%s(%s, %s)' % (op, ref(x), ref(y)), root=True)
        c.check(r, 'pred', [f(x_, y_) for x_, y_ in zip(p, q)])
    # A 2-D float add with a non-default layout on every value.
    c = new('elementwise', 'add', 'add_f32_column_major')
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([[10, 20, 30], [40, 50, 60]], dtype=np.float32)
    x = c.const('f32', a, layout=[0, 1])
    y = c.const('f32', b, layout=[0, 1])
    r = c.op(shape('f32', [2, 3], [0, 1]), 'add(%s, %s)' % (ref(x), ref(y)), root=True)
    c.check(r, 'f32', a + b, layout=[0, 1])
    # Mixed layouts: operands in different layouts, result row-major.
    c = new('elementwise', 'subtract', 'subtract_f32_mixed_layouts')
    x = c.const('f32', a, layout=[0, 1])
    y = c.const('f32', b)
    r = c.op(shape('f32', [2, 3]), 'subtract(%s, %s)' % (ref(x), ref(y)), root=True)
    c.check(r, 'f32', a - b)
    # Complex arithmetic.
    for t in ('c64', 'c128'):
        npt = NP_TYPES[t]
        a = np.array([1 + 2j, -3 + 0.5j, 0j, 2 - 2j], dtype=npt)
        b = np.array([0.5 - 1j, 2 + 0j, 1 + 1j, 2 - 2j], dtype=npt)
        for op, expected in (('add', a + b), ('subtract', a - b), ('multiply', a * b)):
            c = new('elementwise', op, '%s_%s' % (op, t))
            x = c.const(t, a)
            y = c.const(t, b)
            r = c.op(shape(t, [4]), '%s(%s, %s)' % (op, ref(x), ref(y)), root=True)
            c.check(r, t, expected)
        c = new('elementwise', 'divide', 'divide_%s' % t)
        x = c.const(t, a)
        y = c.const(t, b)
        r = c.op(shape(t, [4]), 'divide(%s, %s)' % (ref(x), ref(y)), root=True)
        c.check_close(r, t, (a.astype(np.complex128) / b.astype(np.complex128)).astype(npt), 4)


# ---------------------------------------------------------------------------
# Elementwise unary ops.
# ---------------------------------------------------------------------------

def round_afz(x):
    if math.isnan(x) or math.isinf(x):
        return x
    r = math.floor(abs(x) + 0.5)
    return math.copysign(r, x)


def gen_unary():
    inf, nan = float('inf'), float('nan')
    for t in FLOAT_TYPES:
        npt = NP_TYPES[t]
        a = np.array([1.5, -1.5, 2.5, -2.5, 0.0, -0.0, inf, -inf, nan, 0.49999997, -7.0, 1e4],
                     dtype=npt)
        exact = {
            'abs': np.abs(a),
            'negate': -a,
            'floor': np.floor(a),
            'ceil': np.ceil(a),
            'round-nearest-even': np.round(a),
            'round-nearest-afz': np.array([round_afz(float(x)) for x in a], dtype=npt),
            'sign': np.array([x if (x == 0 or math.isnan(x)) else math.copysign(1.0, x)
                              for x in a.astype(np.float64)], dtype=npt),
        }
        for op, expected in exact.items():
            c = new('elementwise', op, '%s_%s' % (op.replace('-', '_'), t))
            x = c.const(t, a)
            r = c.op(shape(t, [len(a)]), '%s(%s)' % (op, ref(x)), root=True)
            c.check(r, t, expected)
        c = new('elementwise', 'is-finite', 'is_finite_%s' % t)
        x = c.const(t, a)
        r = c.op(shape('pred', [len(a)]), 'is-finite(%s)' % ref(x), root=True)
        c.check(r, 'pred', np.isfinite(a))
    # Transcendental functions: reference in float64, rounded; ULP checks.
    funcs = {
        'exponential': (np.exp, [0.0, 1.0, -1.0, 10.0, -10.0, 0.5, 80.0, -80.0, inf, -inf, nan]),
        'log': (np.log, [1.0, 2.0, 0.5, 10.0, 1e-30, 1e30, 0.0, -1.0, inf, nan]),
        'sqrt': (np.sqrt, [0.0, -0.0, 1.0, 2.0, 4.0, 1e-30, 1e30, -1.0, inf, nan]),
        'rsqrt': (lambda x: 1 / np.sqrt(x), [1.0, 4.0, 2.0, 0.25, 1e-30, 1e30, inf]),
        'tanh': (np.tanh, [0.0, 0.5, -0.5, 1.0, -3.0, 10.0, -20.0, 1e-5, inf, -inf]),
        'logistic': (lambda x: 1 / (1 + np.exp(-x)), [0.0, 1.0, -1.0, 5.0, -5.0, 20.0, -20.0]),
        'exponential-minus-one': (np.expm1, [0.0, 1e-7, -1e-7, 1.0, -1.0, 5.0, -30.0]),
        'log-plus-one': (np.log1p, [0.0, 1e-7, -1e-7, 1.0, 100.0, -0.5, -1.0]),
        'sine': (np.sin, [0.0, 0.5, -0.5, 1.0, 3.0, -3.0, 100.0, 1e-6]),
        'cosine': (np.cos, [0.0, 0.5, -0.5, 1.0, 3.0, -3.0, 100.0, 1e-6]),
        'tan': (np.tan, [0.0, 0.5, -0.5, 1.0, -1.2, 1e-6]),
        'cbrt': (np.cbrt, [0.0, 1.0, 8.0, -27.0, 2.0, 1e-30, -1e30]),
        'erf': (np.vectorize(math.erf), [0.0, 0.5, -0.5, 1.0, 2.0, -3.0, 5.0]),
    }
    for op, (f, values) in funcs.items():
        for t in ('f32', 'f64'):
            npt = NP_TYPES[t]
            a = np.array(values, dtype=npt)
            with np.errstate(all='ignore'):
                expected = f(a.astype(np.float64)).astype(npt)
            c = new('elementwise', op, '%s_%s' % (op.replace('-', '_'), t))
            x = c.const(t, a)
            r = c.op(shape(t, [len(a)]), '%s(%s)' % (op, ref(x)), root=True)
            c.check_close(r, t, expected, 4 if t == 'f32' else 8)
    # Integer unary ops.
    for t in INT_TYPES:
        i = info(t)
        bits = np.dtype(NP_TYPES[t]).itemsize * 8
        if t in SIGNED_TYPES:
            a = [0, 1, -1, 5, -5, i.max, i.min]
            ops = {'abs': wrap(t, [abs(x) for x in a]), 'negate': wrap(t, [-x for x in a]),
                   'sign': [(x > 0) - (x < 0) for x in a]}
        else:
            a = [0, 1, 5, i.max, 1 << (bits - 1)]
            ops = {'negate': wrap(t, [-x for x in a])}
        ops['not'] = wrap(t, [~x for x in a])
        ops['popcnt'] = [bin(x & ((1 << bits) - 1)).count('1') for x in a]
        ops['count-leading-zeros'] = [bits - (x & ((1 << bits) - 1)).bit_length() for x in a]
        for op, expected in ops.items():
            c = new('elementwise', op, '%s_%s' % (op.replace('-', '_'), t))
            x = c.const(t, a)
            r = c.op(shape(t, [len(a)]), '%s(%s)' % (op, ref(x)), root=True)
            c.check(r, t, expected)
    c = new('elementwise', 'not', 'not_pred')
    x = c.const('pred', [True, False])
    r = c.op(shape('pred', [2]), 'not(%s)' % ref(x), root=True)
    c.check(r, 'pred', [False, True])
    # Complex unary parts.
    a = np.array([3 + 4j, -1 - 2j, 0j], dtype=np.complex64)
    for op, t_out, expected in (('real', 'f32', a.real), ('imag', 'f32', a.imag),
                                ('abs', 'f32', np.abs(a)), ('negate', 'c64', -a)):
        c = new('elementwise', op, '%s_c64' % op)
        x = c.const('c64', a)
        r = c.op(shape(t_out, [3]), '%s(%s)' % (op, ref(x)), root=True)
        if op == 'abs':
            c.check_close(r, t_out, expected, 1)  # a rounded square root
        else:
            c.check(r, t_out, expected)
    c = new('elementwise', 'complex', 'complex_f32')
    x = c.const('f32', [1.0, -2.0, 0.0])
    y = c.const('f32', [0.5, 3.0, -0.0])
    r = c.op(shape('c64', [3]), 'complex(%s, %s)' % (ref(x), ref(y)), root=True)
    c.check(r, 'c64', np.array([1 + 0.5j, -2 + 3j, complex(0.0, -0.0)], dtype=np.complex64))


# ---------------------------------------------------------------------------
# compare, select, clamp, convert, bitcast-convert.
# ---------------------------------------------------------------------------

def total_order_key(x):
    """Total order of floats: -NaN < -inf < ... < -0 < +0 < ... < inf < NaN."""
    b = np.array([x], dtype=np.float32).view(np.int32)[0]
    b = int(b)
    return b if b >= 0 else -(b & 0x7fffffff) - 1


def gen_compare():
    inf, nan = float('inf'), float('nan')
    directions = {'EQ': lambda x, y: x == y, 'NE': lambda x, y: x != y,
                  'LT': lambda x, y: x < y, 'LE': lambda x, y: x <= y,
                  'GT': lambda x, y: x > y, 'GE': lambda x, y: x >= y}
    fa = [1.0, 2.0, nan, 0.0, -inf, nan, 3.0]
    fb = [1.0, 1.0, 1.0, -0.0, -inf, nan, inf]
    for t in ('f32', 'f64', 'f16'):
        for d, f in directions.items():
            c = new('elementwise', 'compare', 'compare_%s_%s' % (d.lower(), t))
            x = c.const(t, fa)
            y = c.const(t, fb)
            r = c.op(shape('pred', [len(fa)]), 'compare(%s, %s), direction=%s' % (ref(x), ref(y), d),
                     root=True)
            with np.errstate(all='ignore'):
                c.check(r, 'pred', [f(p, q) for p, q in zip(fa, fb)])
    for t in ('s32', 'u32', 's8', 'u64', 's64'):
        i = info(t)
        a = [0, 1, i.max, i.min, 5, i.max]
        b = [0, 2, i.min, i.max, 5, 0]
        for d, f in directions.items():
            c = new('elementwise', 'compare', 'compare_%s_%s' % (d.lower(), t))
            x = c.const(t, a)
            y = c.const(t, b)
            r = c.op(shape('pred', [len(a)]), 'compare(%s, %s), direction=%s' % (ref(x), ref(y), d),
                     root=True)
            c.check(r, 'pred', [f(p, q) for p, q in zip(a, b)])
    # Total order comparisons.
    ta = [-0.0, 0.0, nan, -nan, nan, -inf, 1.0]
    tb = [0.0, -0.0, inf, -inf, nan, -nan, 1.0]
    for d, f in directions.items():
        c = new('elementwise', 'compare', 'compare_totalorder_%s_f32' % d.lower())
        x = c.const('f32', ta)
        y = c.const('f32', tb)
        r = c.op(shape('pred', [len(ta)]),
                 'compare(%s, %s), direction=%s, type=TOTALORDER' % (ref(x), ref(y), d), root=True)
        c.check(r, 'pred', [f(total_order_key(p), total_order_key(q)) for p, q in zip(ta, tb)])


def gen_select_clamp():
    for t in ('f32', 's32', 'u8', 'pred', 'f64', 's64'):
        c = new('elementwise', 'select', 'select_%s' % t)
        p = c.const('pred', [True, False, True, False])
        if t == 'pred':
            a, b = [True, True, False, False], [False, False, True, True]
        else:
            a, b = [1, 2, 3, 4], [10, 20, 30, 40]
        x = c.const(t, a)
        y = c.const(t, b)
        r = c.op(shape(t, [4]), 'select(%s, %s, %s)' % (ref(p), ref(x), ref(y)), root=True)
        c.check(r, t, [a[0], b[1], a[2], b[3]])
    # Scalar predicate selects whole arrays (seed example, via broadcast).
    c = new('elementwise', 'select', 'select_scalar_pred_broadcast')
    p = c.const('pred', np.array(False))
    pb = c.op(shape('pred', [2, 2]), 'broadcast(%s), dimensions={}' % ref(p))
    x = c.const('s32', [[1, 2], [3, 4]])
    y = c.const('s32', [[5, 6], [7, 8]])
    r = c.op(shape('s32', [2, 2]), 'select(%s, %s, %s)' % (ref(pb), ref(x), ref(y)), root=True)
    c.check(r, 's32', [[5, 6], [7, 8]])
    c = new('elementwise', 'select', 'select_f32_nan_branches')
    p = c.const('pred', [True, False])
    x = c.const('f32', [float('nan'), 1.0])
    y = c.const('f32', [2.0, float('-inf')])
    r = c.op(shape('f32', [2]), 'select(%s, %s, %s)' % (ref(p), ref(x), ref(y)), root=True)
    c.check(r, 'f32', [float('nan'), float('-inf')])
    # Clamp: the seed's example with scalar bounds broadcast, and array bounds.
    c = new('elementwise', 'clamp', 'clamp_seed_example_s32')
    lo = c.const('s32', np.array(0))
    hi = c.const('s32', np.array(6))
    x = c.const('s32', [-1, 5, 9])
    r = c.op(shape('s32', [3]), 'clamp(%s, %s, %s)' % (ref(lo), ref(x), ref(hi)), root=True)
    c.check(r, 's32', [0, 5, 6])
    for t in ('f32', 's8', 'u32', 'f64'):
        c = new('elementwise', 'clamp', 'clamp_arrays_%s' % t)
        lo_v = [0, 0, 2, 5]
        hi_v = [10, 3, 4, 7]
        x_v = [5, 9, 1, 6]
        lo = c.const(t, lo_v)
        x = c.const(t, x_v)
        hi = c.const(t, hi_v)
        r = c.op(shape(t, [4]), 'clamp(%s, %s, %s)' % (ref(lo), ref(x), ref(hi)), root=True)
        c.check(r, t, [min(max(a, b), h) for a, b, h in zip(lo_v, x_v, hi_v)])


def gen_convert():
    nan, inf = float('nan'), float('inf')
    # int -> int: wrap / sign-extend / zero-extend.
    pairs = [('s32', 's8', [300, -129, 127, -1, 0]), ('s8', 's32', [-128, 127, -1, 0, 5]),
             ('u8', 's32', [255, 0, 128, 1, 7]), ('s32', 'u8', [-1, 256, 255, 1000, 3]),
             ('s64', 's32', [2**40 + 5, -(2**40) - 1, 7, -7, 0]),
             ('u32', 's64', [2**32 - 1, 0, 2**31, 1, 9]), ('s16', 'u16', [-1, -32768, 1, 0, 2]),
             ('u64', 'u8', [2**64 - 1, 256, 255, 0, 77])]
    for src, dst, values in pairs:
        c = new('elementwise', 'convert', 'convert_%s_to_%s' % (src, dst))
        x = c.const(src, values)
        r = c.op(shape(dst, [len(values)]), 'convert(%s)' % ref(x), root=True)
        c.check(r, dst, wrap(dst, values))
    # int -> float (round to nearest even).
    for src, dst, values in (('s32', 'f32', [16777217, -16777219, 1, 0, -5]),
                             ('s64', 'f64', [2**53 + 1, -(2**53) - 3, 3, 0, -1]),
                             ('u32', 'f32', [2**32 - 1, 0, 1, 123456789, 2]),
                             ('s32', 'f16', [2049, 65504, 70000, -3, 0]),
                             ('u8', 'f64', [255, 0, 1, 128, 9])):
        c = new('elementwise', 'convert', 'convert_%s_to_%s' % (src, dst))
        x = c.const(src, values)
        r = c.op(shape(dst, [len(values)]), 'convert(%s)' % ref(x), root=True)
        with np.errstate(all='ignore'):
            # Python's int -> float conversion rounds to nearest even.
            c.check(r, dst, np.array([float(v) for v in values]).astype(NP_TYPES[dst]))
    # float -> int: truncation toward zero for in-range values.
    for src, dst, values in (('f32', 's32', [1.9, -1.9, 0.5, -0.5, 1e6, -2147483520.0]),
                             ('f64', 's64', [1e15 + 0.5, -3.99, 0.0, -0.0, 42.0, 7.5]),
                             ('f32', 'u8', [0.0, 1.5, 254.9, 100.2, 3.0, 7.99]),
                             ('f16', 's16', [1.5, -2.5, 100.0, -1000.0, 0.0, 3.0])):
        c = new('elementwise', 'convert', 'convert_%s_to_%s' % (src, dst))
        x = c.const(src, values)
        r = c.op(shape(dst, [len(values)]), 'convert(%s)' % ref(x), root=True)
        c.check(r, dst, [math.trunc(float(np.asarray(v, dtype=NP_TYPES[src]))) for v in values])
    # float -> float.
    for src, dst, values in (('f32', 'f16', [1.0, 65504.0, 65520.0, 1e-8, -0.0, nan, -inf, 0.1]),
                             ('f64', 'f32', [0.1, 1e39, -1e-46, 3.4028234663852886e38, nan, inf]),
                             ('f16', 'f32', [0.1, 65504.0, -0.0, 6e-8, inf, nan]),
                             ('f32', 'f64', [0.1, -3.5, 1e-45, 3e38, -inf, nan])):
        c = new('elementwise', 'convert', 'convert_%s_to_%s' % (src, dst))
        x = c.const(src, values)
        r = c.op(shape(dst, [len(values)]), 'convert(%s)' % ref(x), root=True)
        with np.errstate(all='ignore'):
            c.check(r, dst, np.array(values, dtype=NP_TYPES[src]).astype(NP_TYPES[dst]))
    # pred <-> numbers.
    c = new('elementwise', 'convert', 'convert_f32_to_pred')
    x = c.const('f32', [0.0, -0.0, 1.0, -2.5, nan, 1e-30])
    r = c.op(shape('pred', [6]), 'convert(%s)' % ref(x), root=True)
    c.check(r, 'pred', [False, False, True, True, True, True])
    c = new('elementwise', 'convert', 'convert_pred_to_s32')
    x = c.const('pred', [True, False])
    r = c.op(shape('s32', [2]), 'convert(%s)' % ref(x), root=True)
    c.check(r, 's32', [1, 0])
    c = new('elementwise', 'convert', 'convert_s32_to_pred')
    x = c.const('s32', [0, 7, -1])
    r = c.op(shape('pred', [3]), 'convert(%s)' % ref(x), root=True)
    c.check(r, 'pred', [False, True, True])
    # bitcast-convert.
    c = new('elementwise', 'bitcast-convert', 'bitcast_convert_f32_to_s32')
    vals = np.array([1.0, -2.0, 0.0, -0.0, float('inf')], dtype=np.float32)
    x = c.const('f32', vals)
    r = c.op(shape('s32', [5]), 'bitcast-convert(%s)' % ref(x), root=True)
    c.check(r, 's32', vals.view(np.int32))
    c = new('elementwise', 'bitcast-convert', 'bitcast_convert_u32_to_f32')
    bits = np.array([0x3f800000, 0x7f800000, 0x80000000, 0x00000001, 0x40490fdb], dtype=np.uint32)
    x = c.const('u32', bits)
    r = c.op(shape('f32', [5]), 'bitcast-convert(%s)' % ref(x), root=True)
    c.check(r, 'f32', bits.view(np.float32))
    c = new('elementwise', 'bitcast-convert', 'bitcast_convert_f64_to_u64')
    vals = np.array([1.0, -0.0, 0.1], dtype=np.float64)
    x = c.const('f64', vals)
    r = c.op(shape('u64', [3]), 'bitcast-convert(%s)' % ref(x), root=True)
    c.check(r, 'u64', vals.view(np.uint64))
    c = new('elementwise', 'bitcast-convert', 'bitcast_convert_s32_to_u8x4')
    vals = np.array([0x01020304, -1], dtype=np.int32)
    x = c.const('s32', vals)
    r = c.op(shape('u8', [2, 4]), 'bitcast-convert(%s)' % ref(x), root=True)
    c.check(r, 'u8', vals.view(np.uint8).reshape(2, 4))
    c = new('elementwise', 'bitcast-convert', 'bitcast_convert_u16x2_to_f32')
    vals = np.array([[0x0000, 0x3f80], [0x0000, 0xc000]], dtype=np.uint16)
    x = c.const('u16', vals)
    r = c.op(shape('f32', [2]), 'bitcast-convert(%s)' % ref(x), root=True)
    c.check(r, 'f32', vals.reshape(-1).view(np.float32))


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'cases')
    gen_int_binary()
    gen_shifts()
    gen_float_binary()
    gen_unary()
    gen_compare()
    gen_select_clamp()
    gen_convert()
    CASES.extend(gen_structure.generate())
    CASES.extend(gen_narrow.generate())
    # Remove only the cases this script wrote before (other generators put
    # cases beside them), then write the new set.
    for dirpath, _, files in os.walk(root):
        for f in files:
            path = os.path.join(dirpath, f)
            if f.endswith('.hlo'):
                with open(path) as fh:
                    first = fh.readline()
                if 'conformance/tools/gen_cases.py' in first:
                    os.remove(path)
    counts = write_cases(CASES, root)
    total = 0
    for group in sorted(counts):
        print('%-14s %4d' % (group, counts[group]))
        total += counts[group]
    print('%-14s %4d' % ('total', total))


if __name__ == '__main__':
    main()
