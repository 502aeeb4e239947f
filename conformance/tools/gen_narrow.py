"""Cases for the narrow floating-point types NumPy lacks: bf16 and the 8-bit
floats. Values are decoded and rounded here from the formats' definitions
(../shared/conformance/FORMAT.md's table): round to nearest, ties to even.
"""

import math
import struct

import numpy as np

from hlo_case import Case, ref, shape

CASES = []

# name: (exponent bits, mantissa bits, bias, has infinity, NaN rule)
FORMATS = {
    'bf16': (8, 7, 127, True, 'ieee'),
    'f8e5m2': (5, 2, 15, True, 'ieee'),
    'f8e4m3fn': (4, 3, 7, False, 'fn'),
    'f8e4m3': (4, 3, 7, True, 'ieee'),
}


def new(family, name):
    c = Case('narrow_float', family, name)
    CASES.append(c)
    return c


def finite_values(t):
    """Every finite non-negative value of the format, ascending, with its
    bit pattern (sign bit clear)."""
    e_bits, m_bits, bias, has_inf, nan_rule = FORMATS[t]
    out = []
    for e in range(1 << e_bits):
        for m in range(1 << m_bits):
            if has_inf and e == (1 << e_bits) - 1:
                continue  # infinities and NaNs
            if nan_rule == 'fn' and e == (1 << e_bits) - 1 and m == (1 << m_bits) - 1:
                continue  # the NaN pattern
            if e == 0:
                v = m / (1 << m_bits) * 2.0 ** (1 - bias)
            else:
                v = (1 + m / (1 << m_bits)) * 2.0 ** (e - bias)
            out.append((v, (e << m_bits) | m))
    return out


def round_to(t, x):
    """The value of `x` (a double) rounded to nearest-even in format t; None
    when it overflows a format without infinity (not used by the cases)."""
    if math.isnan(x) or math.isinf(x):
        return x
    sign = -1.0 if math.copysign(1.0, x) < 0 else 1.0
    a = abs(x)
    values = finite_values(t)
    e_bits, m_bits, bias, has_inf, _ = FORMATS[t]
    top = values[-1][0]
    if a > top:
        # Halfway to the next binade step above the maximum rounds up.
        step = values[-1][0] - values[-2][0]
        if a >= top + step / 2:
            return sign * math.inf if has_inf else None
        return sign * top
    best = None
    for i, (v, bits) in enumerate(values):
        if v >= a:
            lo_v, lo_bits = values[i - 1] if i else (v, bits)
            if v == a:
                best = v
            elif a - lo_v < v - a:
                best = lo_v
            elif a - lo_v > v - a:
                best = v
            else:
                best = lo_v if lo_bits % 2 == 0 else v
            break
    return sign * best


def fmt(x):
    if math.isnan(x):
        return 'nan'
    if math.isinf(x):
        return 'inf' if x > 0 else '-inf'
    if x == 0:
        return '-0.0' if math.copysign(1.0, x) < 0 else '0'
    return repr(x)


def lit(values):
    return '{' + ', '.join(fmt(v) for v in values) + '}'


def const(c, t, values):
    n = c.fresh('c')
    s = shape(t, [len(values)])
    c.lines.append('%%%s = %s constant(%s)' % (n, s, lit(values)))
    return ('%' + n, s)


def check(c, actual, t, expected):
    exp = const(c, t, expected)
    n = c.fresh('check')
    c.checks.append('%%%s = () custom-call(%s, %s), custom_call_target="check.expect_eq", '
                    'custom_call_has_side_effect=true' % (n, ref(actual), ref(exp)))


def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]


def generate():
    inf, nan = math.inf, math.nan
    # f32 -> narrow: exact values, ties to even, tiny values, specials.
    inputs = {
        'bf16': [1.0, 1.00390625, 1.01171875, -2.5, 3.0e38, 3.4e38, -0.0, 1e-40, inf, nan,
                 0.1, 65504.0],
        'f8e5m2': [1.0, 1.125, 1.375, -3.0, 57344.0, 0.0001, -0.0, 1.52587890625e-05, inf, nan,
                   0.1, 6.0e4],
        'f8e4m3fn': [1.0, 1.0625, 1.1875, -3.5, 448.0, 0.0078125, -0.0, 0.001953125, nan, 0.1,
                     -240.0, 460.0],
        'f8e4m3': [1.0, 1.0625, 1.1875, -3.5, 240.0, 0.015625, -0.0, 0.001953125, inf, nan, 0.1,
                   247.0],
    }
    for t, values in inputs.items():
        values = [f32(v) for v in values]
        expected = [round_to(t, v) for v in values]
        assert None not in expected, t
        c = new('convert', 'convert_f32_to_%s' % t)
        x = const(c, 'f32', values)
        r = c.op(shape(t, [len(values)]), 'convert(%s)' % ref(x), root=True)
        check(c, r, t, expected)
        # ... and back to f32, exactly.
        c = new('convert', 'convert_%s_to_f32' % t)
        x = const(c, t, expected)
        r = c.op(shape('f32', [len(values)]), 'convert(%s)' % ref(x), root=True)
        check(c, r, 'f32', expected)
        # Every finite value of the format survives f64 -> t -> f64.
        if t != 'bf16':
            vals = [v for v, _ in finite_values(t)] + [-v for v, _ in finite_values(t)[1:]]
            c = new('convert', 'convert_%s_roundtrip_all_values' % t)
            x = const(c, 'f64', vals)
            n = c.op(shape(t, [len(vals)]), 'convert(%s)' % ref(x))
            r = c.op(shape('f64', [len(vals)]), 'convert(%s)' % ref(n), root=True)
            check(c, r, 'f64', vals)
    # bf16 arithmetic: computed in f32 and rounded once (values chosen so the
    # f32 result is exact).
    a = [1.0, 1.5, -2.0, 3.0, 0.0078125, 256.0, inf, nan]
    b = [0.00390625, 1.5, 0.5, -3.0, 0.0078125, 1.0, -1.0, 1.0]
    for op, f in (('add', lambda x, y: x + y), ('multiply', lambda x, y: x * y),
                  ('subtract', lambda x, y: x - y), ('maximum', None)):
        c = new(op, '%s_bf16' % op)
        x = const(c, 'bf16', a)
        y = const(c, 'bf16', b)
        r = c.op(shape('bf16', [len(a)]), '%s(%s, %s)' % (op, ref(x), ref(y)), root=True)
        if f is None:
            expected = [nan if (math.isnan(p) or math.isnan(q)) else max(p, q) for p, q in zip(a, b)]
        else:
            expected = [round_to('bf16', f32(f(p, q))) if not (math.isnan(p) or math.isnan(q))
                        else nan for p, q in zip(a, b)]
        check(c, r, 'bf16', expected)
    return CASES
