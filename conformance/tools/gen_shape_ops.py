#!/usr/bin/python3
"""Generates data-movement cases in conformance/cases/shape/ beyond the basic
ones of gen_structure.py: every element width (1 to 16 bytes) through
transpose, reverse, strided slice, pad (negative and interior edges) and
concatenate; dynamic-slice and dynamic-update-slice with start indices of
several integer types, clamped as ../shared/seeds/ says (start = clamp(start,
0, dim - size), unsigned values read as unsigned); get-dimension-size (also
after set-dimension-size); bitcast-convert between widths; stochastic-convert.

Expected values come from NumPy (transpose, flip, slicing, np.pad,
concatenate, ndarray.view for bitcasts) or from the semantics written out
below, never from hlovm. Run from the repository root:

    /usr/bin/python3 conformance/tools/gen_shape_ops.py

It (re)writes only the files it generates.
"""

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hlo_case import Case, NP_TYPES, ref, shape, tuple_shape, write_cases  # noqa: E402

SOURCE = '// source: hand-computed, conformance/tools/gen_shape_ops.py'
CASES = []
RNG = np.random.default_rng(20261122)


class ShapeCase(Case):
    def text(self):
        t = super().text()
        _, _, rest = t.partition('\n')
        return SOURCE + '\n' + rest


def new(family, name):
    c = ShapeCase('shape', family, name)
    CASES.append(c)
    return c


def attr(values):
    return '{' + ','.join(str(v) for v in values) + '}'


def random_array(t, dims):
    n = int(np.prod(dims)) if dims else 1
    if t == 'pred':
        a = RNG.integers(0, 2, n).astype(np.bool_)
    elif t in ('c64', 'c128'):
        a = (RNG.integers(-50, 50, n) + 1j * RNG.integers(-50, 50, n)).astype(NP_TYPES[t])
    elif t.startswith('f'):
        a = (RNG.integers(-1000, 1000, n) / 8).astype(NP_TYPES[t])
    else:
        info = np.iinfo(NP_TYPES[t])
        a = RNG.integers(info.min, info.max, n, dtype=NP_TYPES[t], endpoint=True)
    return a.reshape(dims)


WIDTH_TYPES = ('u8', 's16', 'f32', 'f64', 'c128', 'pred')


def gen_transpose_reverse_slice():
    for t in WIDTH_TYPES:
        a = random_array(t, [3, 4, 5])
        for perm in ([2, 0, 1], [1, 2, 0], [2, 1, 0]):
            c = new('transpose', 'transpose_%s_%s' % (t, ''.join(map(str, perm))))
            x = c.const(t, a)
            out = np.transpose(a, perm)
            r = c.op(shape(t, out.shape), 'transpose(%s), dimensions=%s' % (ref(x), attr(perm)),
                     root=True)
            c.check(r, t, out)
        c = new('reverse', 'reverse_%s_02' % t)
        x = c.const(t, a)
        r = c.op(shape(t, a.shape), 'reverse(%s), dimensions={0,2}' % ref(x), root=True)
        c.check(r, t, a[::-1, :, ::-1])
        c = new('slice', 'slice_%s_strided_3d' % t)
        x = c.const(t, a)
        r = c.op(shape(t, a[1:3, 0:4:3, 1:5:2].shape),
                 'slice(%s), slice={[1:3], [0:4:3], [1:5:2]}' % ref(x), root=True)
        c.check(r, t, a[1:3, 0:4:3, 1:5:2])
    # Tiles of the transpose kernel cut at uneven places.
    a = random_array('f32', [67, 131])
    c = new('transpose', 'transpose_f32_67x131')
    x = c.const('f32', a)
    r = c.op(shape('f32', [131, 67]), 'transpose(%s), dimensions={1,0}' % ref(x), root=True)
    c.check(r, 'f32', a.T)
    a = random_array('s16', [2, 3, 1, 4, 2])
    c = new('transpose', 'transpose_s16_rank5_unit_dim')
    x = c.const('s16', a)
    perm = [4, 2, 0, 3, 1]
    out = np.transpose(a, perm)
    r = c.op(shape('s16', out.shape), 'transpose(%s), dimensions=%s' % (ref(x), attr(perm)),
             root=True)
    c.check(r, 's16', out)


def ref_pad(a, value, config):
    # Interior padding first, then edges; negative edges cut.
    for d, (lo, hi, it) in enumerate(config):
        n = a.shape[d]
        if it > 0 and n > 0:
            shape_ = list(a.shape)
            shape_[d] = n + (n - 1) * it
            b = np.full(shape_, value, dtype=a.dtype)
            idx = [slice(None)] * a.ndim
            idx[d] = slice(0, shape_[d], it + 1)
            b[tuple(idx)] = a
            a = b
        idx = [slice(None)] * a.ndim
        if lo < 0:
            idx[d] = slice(-lo, None)
            a = a[tuple(idx)]
            lo = 0
        idx = [slice(None)] * a.ndim
        if hi < 0:
            idx[d] = slice(0, a.shape[d] + hi)
            a = a[tuple(idx)]
            hi = 0
        widths = [(0, 0)] * a.ndim
        widths[d] = (lo, hi)
        a = np.pad(a, widths, constant_values=value)
    return a


def gen_pad_concatenate():
    for t in WIDTH_TYPES:
        a = random_array(t, [2, 3, 4])
        v = random_array(t, [])
        config = [(1, -1, 1), (-1, 2, 0), (0, -3, 2)]
        out = ref_pad(a, v[()], config)
        c = new('pad', 'pad_%s_mixed_3d' % t)
        x = c.const(t, a)
        pv = c.const(t, v)
        cfg = 'x'.join('%d_%d_%d' % e for e in config)
        r = c.op(shape(t, out.shape), 'pad(%s, %s), padding=%s' % (ref(x), ref(pv), cfg),
                 root=True)
        c.check(r, t, out)
        parts = [random_array(t, [2, n, 3]) for n in (1, 0, 3, 2)]
        c = new('concatenate', 'concatenate_%s_four_dim1' % t)
        xs = [c.const(t, p) for p in parts]
        out = np.concatenate(parts, axis=1)
        r = c.op(shape(t, out.shape), 'concatenate(%s), dimensions={1}' %
                 ', '.join(ref(x) for x in xs), root=True)
        c.check(r, t, out)


def clamp_start(start, dim, size):
    return max(0, min(int(start), dim - size))


def gen_dynamic_slice():
    a = random_array('f32', [5, 6, 4])
    cases = [('s8', [-3, 2, 1]), ('u8', [255, 0, 3]), ('s16', [1, -200, 9]),
             ('u32', [4294967295, 1, 0]), ('s64', [2, 3, -9223372036854775808]),
             ('u64', [18446744073709551615, 2, 1])]
    sizes = [2, 3, 2]
    for t, starts in cases:
        eff = [clamp_start(s, d, z) for s, d, z in zip(starts, a.shape, sizes)]
        out = a[eff[0]:eff[0] + 2, eff[1]:eff[1] + 3, eff[2]:eff[2] + 2]
        c = new('dynamic-slice', 'dynamic_slice_f32_3d_%s_indices' % t)
        x = c.const('f32', a)
        idx = [c.const(t, np.array(s, dtype=NP_TYPES[t])) for s in starts]
        r = c.op(shape('f32', sizes), 'dynamic-slice(%s, %s), dynamic_slice_sizes=%s' % (
            ref(x), ', '.join(ref(i) for i in idx), attr(sizes)), root=True)
        c.check(r, 'f32', out)
        u = random_array('f32', [3, 2, 4])
        c = new('dynamic-update-slice', 'dynamic_update_slice_f32_3d_%s_indices' % t)
        x = c.const('f32', a)
        cu = c.const('f32', u)
        idx = [c.const(t, np.array(s, dtype=NP_TYPES[t])) for s in starts]
        eff = [clamp_start(s, d, z) for s, d, z in zip(starts, a.shape, u.shape)]
        out = a.copy()
        out[eff[0]:eff[0] + 3, eff[1]:eff[1] + 2, eff[2]:eff[2] + 4] = u
        r = c.op(shape('f32', a.shape), 'dynamic-update-slice(%s, %s, %s)' % (
            ref(x), ref(cu), ', '.join(ref(i) for i in idx)), root=True)
        c.check(r, 'f32', out)
    for t in ('pred', 'c128', 'u8'):
        a = random_array(t, [4, 5])
        u = random_array(t, [2, 2])
        c = new('dynamic-update-slice', 'dynamic_update_slice_%s_clamped' % t)
        x = c.const(t, a)
        cu = c.const(t, u)
        i0 = c.const('s32', np.int32(3))
        i1 = c.const('s32', np.int32(-2))
        out = a.copy()
        out[2:4, 0:2] = u
        r = c.op(shape(t, a.shape), 'dynamic-update-slice(%s, %s, %s, %s)' % (
            ref(x), ref(cu), ref(i0), ref(i1)), root=True)
        c.check(r, t, out)


def gen_dimension_size():
    a = random_array('f32', [3, 7, 2])
    c = new('get-dimension-size', 'get_dimension_size_each_dim')
    x = c.const('f32', a)
    gs = [c.op(shape('s32', []), 'get-dimension-size(%s), dimensions={%d}' % (ref(x), d))
          for d in range(3)]
    t = c.op(tuple_shape(*[shape('s32', [])] * 3), 'tuple(%s)' % ', '.join(ref(g) for g in gs),
             root=True)
    for g, want in zip(gs, a.shape):
        c.check(g, 's32', np.int32(want))
    # set-dimension-size gives the dimension a runtime size that
    # get-dimension-size returns.
    c = new('set-dimension-size', 'set_then_get_dimension_size')
    x = c.const('f32', a)
    n = c.const('s32', np.int32(4))
    s = c.op('f32[3,<=7,2]{2,1,0}', 'set-dimension-size(%s, %s), dimensions={1}' % (ref(x), ref(n)))
    r = c.op(shape('s32', []), 'get-dimension-size(%s), dimensions={1}' % ref(s), root=True)
    c.check(r, 's32', np.int32(4))


def gen_bitcast_convert():
    pairs = [('f32', [3], 'u16', [3, 2]), ('u16', [2, 4], 'f64', [2]),
             ('c128', [2], 'c64', [2, 2]), ('s8', [3, 8], 'f64', [3]),
             ('f64', [2], 'u8', [2, 8]), ('c64', [2, 2], 'c128', [2])]
    for src_t, src_dims, dst_t, dst_dims in pairs:
        a = random_array(src_t, src_dims)
        out = np.ascontiguousarray(a).view(NP_TYPES[dst_t]).reshape(dst_dims)
        if dst_t.startswith('f') or dst_t.startswith('c'):
            # Only values whose bits survive the text form (no NaN payloads).
            if not np.all(np.isfinite(out)):
                continue
        c = new('bitcast-convert', 'bitcast_convert_%s_to_%s' % (src_t, dst_t))
        x = c.const(src_t, a)
        r = c.op(shape(dst_t, dst_dims), 'bitcast-convert(%s)' % ref(x), root=True)
        c.check(r, dst_t, out)


def stochastic_reference(x, r, to_bits, rand_bits):
    # Sign and magnitude apart; the magnitude rounds up when the random bits
    # are below fraction * 2^rand_bits; results at or beyond the integer
    # range saturate; NaN gives 0.
    lo, hi = -(1 << (to_bits - 1)), (1 << (to_bits - 1)) - 1
    x = float(x)
    if math.isnan(x):
        return 0
    if x <= lo:
        return lo
    if x >= hi:
        return hi
    mag = abs(x)
    whole = math.floor(mag)
    fixed = int((mag - whole) * 2.0 ** rand_bits)
    v = whole + (1 if r < fixed else 0)
    v = -v if x < 0 else v
    return max(lo, min(hi, v))


def gen_stochastic_convert():
    x = np.array([0.5, 0.5, -0.25, -0.25, 2.75, -2.75, 126.9, -127.9, 1000.0, -1000.0, 3.0,
                  float('nan')], dtype=np.float32)
    r = np.array([0, 0xFFFFFFFF, 0x3FFFFFFF, 0x40000000, 0xBFFFFFFF, 0xC0000000, 0, 0, 0, 0,
                  0xFFFFFFFF, 0], dtype=np.uint32)
    for t, bits in (('s8', 8), ('s16', 16), ('s32', 32)):
        out = np.array([stochastic_reference(a, b, bits, 32) for a, b in zip(x, r)],
                       dtype=NP_TYPES[t])
        c = new('stochastic-convert', 'stochastic_convert_f32_to_%s' % t)
        cx = c.const('f32', x)
        cr = c.const('u32', r)
        v = c.op(shape(t, [len(x)]), 'stochastic-convert(%s, %s)' % (ref(cx), ref(cr)),
                 root=True)
        c.check(v, t, out)


def main():
    gen_transpose_reverse_slice()
    gen_pad_concatenate()
    gen_dynamic_slice()
    gen_dimension_size()
    gen_bitcast_convert()
    gen_stochastic_convert()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'cases')
    counts = write_cases(CASES, root)
    for group in sorted(counts):
        print('%-14s %4d' % (group, counts[group]))


if __name__ == '__main__':
    main()
