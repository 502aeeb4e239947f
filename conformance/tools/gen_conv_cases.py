"""Writes conformance/cases/convolution/*.hlo: convolution cases whose
expected values come from an independent direct-loop reference in NumPy
(every output position, every window position, explicit padding, dilation
and group arithmetic; sums in float64 or exact Python integers, then cast to
the result type). Run from the repository root:
/usr/bin/python3 conformance/tools/gen_conv_cases.py
"""

import itertools
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hlo_case import Case, NP_TYPES, ref, shape, write_cases  # noqa: E402

CASES = []


def parse_labels(labels):
    lhs, rest = labels.split('_')
    rhs, out = rest.split('->')
    return lhs, rhs, out


def ref_conv(lhs, rhs, labels, strides, pads, lhs_dil, rhs_dil, rev, fgc, bgc):
    """Direct loops in the canonical orders lhs [b, f, s...], rhs [o, i, s...]."""
    ll, rl, ol = parse_labels(labels)
    nsp = len(ll) - 2
    sp = [str(d) for d in range(nsp)]
    lhs_c = np.transpose(lhs, [ll.index('b'), ll.index('f')] + [ll.index(d) for d in sp])
    rhs_c = np.transpose(rhs, [rl.index('o'), rl.index('i')] + [rl.index(d) for d in sp])
    n_in, c_in = lhs_c.shape[:2]
    o_feat, c_k = rhs_c.shape[:2]
    in_sz = lhs_c.shape[2:]
    k_sz = rhs_c.shape[2:]
    out_sz = []
    for d in range(nsp):
        padded = (in_sz[d] - 1) * lhs_dil[d] + 1 + pads[d][0] + pads[d][1]
        win = (k_sz[d] - 1) * rhs_dil[d] + 1
        out_sz.append(max(0, (padded - win) // strides[d] + 1) if padded >= win else 0)
    n_out = n_in // bgc
    groups = fgc * bgc
    og = o_feat // groups
    out = np.zeros([n_out, o_feat] + out_sz, dtype=lhs_c.dtype)
    for n in range(n_out):
        for o in range(o_feat):
            g = o // og
            b_in = g * n_out + n if bgc > 1 else n
            c0 = 0 if bgc > 1 else g * c_k
            for pos in itertools.product(*[range(s) for s in out_sz]):
                acc = 0
                for kpos in itertools.product(*[range(s) for s in k_sz]):
                    idx = []
                    for d in range(nsp):
                        x = pos[d] * strides[d] + kpos[d] * rhs_dil[d] - pads[d][0]
                        if x < 0 or x % lhs_dil[d] != 0 or x // lhs_dil[d] >= in_sz[d]:
                            idx = None
                            break
                        idx.append(x // lhs_dil[d])
                    if idx is None:
                        continue
                    kk = tuple(k_sz[d] - 1 - kpos[d] if rev[d] else kpos[d] for d in range(nsp))
                    for c in range(c_k):
                        acc = acc + lhs_c[(b_in, c0 + c) + tuple(idx)] * rhs_c[(o, c) + kk]
                out[(n, o) + pos] = acc
    perm = [0, 1] + [2 + d for d in range(nsp)]
    # out is [b, f, s...]; move to the output labels' order.
    order = [{'b': 0, 'f': 1}[ch] if ch in 'bf' else 2 + int(ch) for ch in ol]
    del perm
    return np.transpose(out, order)


def window_attr(k_sz, strides, pads, lhs_dil, rhs_dil, rev):
    parts = ['size=' + 'x'.join(str(k) for k in k_sz)]
    if any(s != 1 for s in strides):
        parts.append('stride=' + 'x'.join(str(s) for s in strides))
    if any(p != (0, 0) for p in pads):
        parts.append('pad=' + 'x'.join('%d_%d' % p for p in pads))
    if any(d != 1 for d in lhs_dil):
        parts.append('lhs_dilate=' + 'x'.join(str(d) for d in lhs_dil))
    if any(d != 1 for d in rhs_dil):
        parts.append('rhs_dilate=' + 'x'.join(str(d) for d in rhs_dil))
    if any(rev):
        parts.append('rhs_reversal=' + 'x'.join('1' if r else '0' for r in rev))
    return '{' + ' '.join(parts) + '}'


def bf16_round(x):
    """float64 -> nearest bf16 value (via f32, round to nearest even), as float."""
    out = []
    for v in np.asarray(x, dtype=np.float64).reshape(-1):
        b = struct.unpack('<I', struct.pack('<f', float(np.float32(v))))[0]
        b = (b + 0x7fff + ((b >> 16) & 1)) >> 16 << 16
        out.append(struct.unpack('<f', struct.pack('<I', b))[0])
    return np.array(out, dtype=np.float32).reshape(np.shape(x))


def add_case(name, t_in, t_out, lhs, rhs, labels, strides=None, pads=None, lhs_dil=None,
             rhs_dil=None, rev=None, fgc=1, bgc=1, check='eq'):
    lhs = np.asarray(lhs)
    rhs = np.asarray(rhs)
    nsp = lhs.ndim - 2
    ll, rl, _ = parse_labels(labels)
    k_sz = [rhs.shape[rl.index(str(d))] for d in range(nsp)]
    strides = strides or [1] * nsp
    pads = pads or [(0, 0)] * nsp
    lhs_dil = lhs_dil or [1] * nsp
    rhs_dil = rhs_dil or [1] * nsp
    rev = rev or [False] * nsp
    c = Case('convolution', 'convolution', name)
    narrow = t_in == 'bf16'
    if narrow:
        # bf16 operands are converted from exactly representable f32 constants.
        x32 = c.const('f32', lhs)
        y32 = c.const('f32', rhs)
        x = c.op(shape('bf16', lhs.shape), 'convert(%s)' % ref(x32))
        y = c.op(shape('bf16', rhs.shape), 'convert(%s)' % ref(y32))
    else:
        x = c.const(t_in, lhs)
        y = c.const(t_in, rhs)
    if t_in in ('f32', 'f64', 'bf16', 'f16'):
        want = ref_conv(lhs.astype(np.float64), rhs.astype(np.float64), labels, strides, pads,
                        lhs_dil, rhs_dil, rev, fgc, bgc)
    else:
        want = ref_conv(lhs.astype(object), rhs.astype(object), labels, strides, pads, lhs_dil,
                        rhs_dil, rev, fgc, bgc)
        bits = np.dtype(NP_TYPES[t_out]).itemsize * 8
        flat = [int(v) & ((1 << bits) - 1) for v in want.reshape(-1)]
        if t_out[0] == 's':
            flat = [v - (1 << bits) if v >= 1 << (bits - 1) else v for v in flat]
        want = np.array(flat, dtype=NP_TYPES[t_out]).reshape(want.shape)
    attrs = 'window=%s, dim_labels=%s' % (window_attr(k_sz, strides, pads, lhs_dil, rhs_dil, rev),
                                         labels)
    if fgc > 1:
        attrs += ', feature_group_count=%d' % fgc
    if bgc > 1:
        attrs += ', batch_group_count=%d' % bgc
    if t_out == 'bf16':
        r = c.op(shape('bf16', want.shape), 'convolution(%s, %s), %s' % (ref(x), ref(y), attrs))
        r32 = c.op(shape('f32', want.shape), 'convert(%s)' % ref(r), root=True)
        c.check(r32, 'f32', bf16_round(want))
    else:
        r = c.op(shape(t_out, want.shape), 'convolution(%s, %s), %s' % (ref(x), ref(y), attrs),
                 root=True)
        want = np.asarray(want).astype(NP_TYPES[t_out])
        if check == 'eq':
            c.check(r, t_out, want)
        else:
            c.check_almost(r, t_out, want, check)
    CASES.append(c)


def main():
    rng = np.random.default_rng(20261125)
    ints = lambda shp, lo=-4, hi=5: rng.integers(lo, hi, size=shp)  # noqa: E731
    normal = lambda shp: rng.standard_normal(shp)  # noqa: E731
    # 2-D NHWC / HWIO (JAX's TF-style layout), same padding 3x3.
    add_case('conv2d_nhwc_3x3_same', 'f32', 'f32', ints((2, 6, 5, 3)), ints((3, 3, 3, 4)),
             'b01f_01io->b01f', pads=[(1, 1), (1, 1)])
    # 2-D NCHW / OIHW (PyTorch layout), stride 2, asymmetric padding.
    add_case('conv2d_nchw_stride2_pad', 'f32', 'f32', ints((2, 3, 7, 6)), ints((5, 3, 3, 2)),
             'bf01_oi01->bf01', strides=[2, 2], pads=[(1, 0), (0, 2)])
    # Mixed labels: feature first in the output, kernel o-first.
    add_case('conv2d_mixed_labels', 'f32', 'f32', ints((3, 5, 2, 4)), ints((4, 2, 2, 2)),
             'b0f1_o01i->f01b', pads=[(0, 1), (1, 1)])
    # Negative padding (crops the input).
    add_case('conv2d_negative_padding', 'f32', 'f32', ints((1, 7, 7, 2)), ints((2, 2, 2, 3)),
             'b01f_01io->b01f', pads=[(-1, -2), (-2, 1)])
    # lhs dilation (transposed convolution) and rhs dilation (atrous).
    add_case('conv2d_lhs_dilation', 'f32', 'f32', ints((1, 3, 4, 2)), ints((3, 3, 2, 2)),
             'b01f_01io->b01f', pads=[(2, 2), (1, 2)], lhs_dil=[2, 3])
    add_case('conv2d_rhs_dilation', 'f32', 'f32', ints((2, 8, 7, 2)), ints((3, 2, 2, 3)),
             'b01f_01io->b01f', rhs_dil=[2, 3], strides=[1, 2])
    add_case('conv2d_window_reversal', 's32', 's32', ints((1, 5, 4, 2)), ints((3, 2, 2, 2)),
             'b01f_01io->b01f', rev=[True, False], pads=[(1, 1), (0, 0)])
    # Grouped and depthwise.
    add_case('conv2d_feature_groups', 'f32', 'f32', ints((2, 5, 5, 6)), ints((3, 3, 2, 9)),
             'b01f_01io->b01f', fgc=3, pads=[(1, 1), (1, 1)])
    add_case('conv2d_depthwise_3x3', 'f32', 'f32', ints((1, 6, 7, 8)), ints((3, 3, 1, 8)),
             'b01f_01io->b01f', fgc=8, pads=[(1, 1), (1, 1)])
    add_case('conv2d_depthwise_multiplier2_stride2', 'f32', 'f32', ints((2, 7, 6, 4)),
             ints((3, 3, 1, 8)), 'b01f_01io->b01f', fgc=4, strides=[2, 2], pads=[(1, 1), (0, 1)])
    # Batch groups (the weight gradient of a grouped convolution).
    add_case('conv2d_batch_groups', 'f32', 'f32', ints((4, 5, 5, 3)), ints((2, 2, 3, 6)),
             'b01f_01io->b01f', bgc=2)
    add_case('conv2d_batch_groups_nchw', 's32', 's32', ints((6, 2, 4, 4)), ints((9, 2, 3, 3)),
             'bf01_oi01->bf01', bgc=3, pads=[(1, 0), (0, 1)])
    # 1-D and 3-D.
    add_case('conv1d_nwc_stride_dilation', 'f32', 'f32', ints((2, 11, 3)), ints((3, 3, 4)),
             'b0f_0io->b0f', strides=[2], rhs_dil=[2], pads=[(2, 1)])
    add_case('conv1d_ncw', 'f64', 'f64', normal((2, 3, 9)), normal((4, 3, 4)),
             'bf0_oi0->bf0', pads=[(3, 0)], check=1e-12)
    add_case('conv3d_ndhwc', 'f32', 'f32', ints((1, 4, 5, 4, 2)), ints((2, 3, 2, 2, 3)),
             'b012f_012io->b012f', pads=[(1, 0), (1, 1), (0, 1)], strides=[1, 2, 1])
    add_case('conv3d_ncdhw_groups', 'f32', 'f32', ints((2, 4, 3, 4, 3)), ints((4, 2, 2, 2, 2)),
             'bf012_oi012->bf012', fgc=2)
    # Integers: s8 -> s32 widening, s8 wrapping, u8.
    add_case('conv2d_s8_to_s32', 's8', 's32', ints((1, 5, 5, 4), -128, 128),
             ints((3, 3, 4, 2), -128, 128), 'b01f_01io->b01f', pads=[(1, 1), (1, 1)])
    add_case('conv2d_s8_wraps', 's8', 's8', ints((1, 4, 4, 3), -128, 128),
             ints((2, 2, 3, 2), -128, 128), 'b01f_01io->b01f')
    add_case('conv2d_u8', 'u8', 'u8', ints((1, 4, 4, 2), 0, 6), ints((2, 2, 2, 2), 0, 6),
             'b01f_01io->b01f')
    # bf16 accumulates in f32 and rounds once: 256 + 1 + 1 + 1 + 1 = 260
    # (per-step bf16 rounding would stay at 256).
    add_case('conv1d_bf16_accumulates_wide', 'bf16', 'bf16', np.array([[[256], [1], [1], [1], [1]]]),
             np.ones((5, 1, 1)), 'b0f_0io->b0f')
    add_case('conv2d_bf16_nhwc', 'bf16', 'bf16', ints((1, 5, 5, 4)), ints((3, 3, 4, 3)),
             'b01f_01io->b01f', pads=[(1, 1), (1, 1)])
    # Larger f32: several tiles of output positions (the GEMM path).
    add_case('conv2d_f32_resnet_like', 'f32', 'f32', normal((1, 20, 20, 16)),
             normal((3, 3, 16, 8)), 'b01f_01io->b01f', pads=[(1, 1), (1, 1)], check=1e-4)
    # Empty input features and an empty output.
    add_case('conv2d_empty_features', 'f32', 'f32', np.zeros((1, 3, 3, 0)), np.zeros((2, 2, 0, 2)),
             'b01f_01io->b01f')
    add_case('conv2d_empty_output', 'f32', 'f32', ints((1, 2, 2, 1)), ints((3, 3, 1, 1)),
             'b01f_01io->b01f')
    counts = write_cases(CASES, os.path.join('conformance', 'cases'),
                         source='numpy, conformance/tools/gen_conv_cases.py')
    print(counts)


if __name__ == '__main__':
    main()
