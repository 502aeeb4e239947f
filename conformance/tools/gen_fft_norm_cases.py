"""Writes conformance/cases/fft/*.hlo and conformance/cases/batch_norm/*.hlo.

fft: FFT, IFFT, RFFT and IRFFT over 1, 2 and 3 innermost axes, c64 and c128
(f32 and f64 for the real forms); expected values from numpy.fft (fftn,
ifftn, rfftn, irfftn over the innermost axes, computed in double).
batch_norm: batch-norm-training, -inference and -grad for several
feature_index values and epsilons; expected values from the NumPy formulas of
the operation semantics, computed in double. Run from the repository root:
/usr/bin/python3 conformance/tools/gen_fft_norm_cases.py
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hlo_case import Case, ref, shape, tuple_shape, write_cases  # noqa: E402

CASES = []
REAL = {'c64': 'f32', 'c128': 'f64'}
CPLX = {'f32': 'c64', 'f64': 'c128'}


def tol(t, want):
    scale = max(1.0, float(np.max(np.abs(want))) if np.size(want) else 1.0)
    return (2e-5 if t in ('f32', 'c64') else 1e-12) * scale


def fft_case(name, fft_type, t_in, in_shape, k, rng, note=None, data=None, layout=None):
    axes = tuple(range(len(in_shape) - k, len(in_shape)))
    if data is not None:
        x = data
    elif t_in in ('c64', 'c128'):
        x = rng.uniform(-1, 1, in_shape) + 1j * rng.uniform(-1, 1, in_shape)
    else:
        x = rng.uniform(-1, 1, in_shape)
    x = np.asarray(x).astype({'c64': np.complex64, 'c128': np.complex128,
                              'f32': np.float32, 'f64': np.float64}[t_in])
    wide = x.astype(np.complex128 if t_in[0] == 'c' else np.float64)
    if fft_type == 'FFT':
        want, t_out, lengths = np.fft.fftn(wide, axes=axes), t_in, in_shape[-k:]
    elif fft_type == 'IFFT':
        want, t_out, lengths = np.fft.ifftn(wide, axes=axes), t_in, in_shape[-k:]
    elif fft_type == 'RFFT':
        want, t_out, lengths = np.fft.rfftn(wide, axes=axes), CPLX[t_in], in_shape[-k:]
    else:
        n_last = NLAST[name]
        lengths = list(in_shape[-k:-1]) + [n_last]
        want, t_out = np.fft.irfftn(wide, s=lengths, axes=axes), REAL[t_in]
    c = Case('fft', 'fft', name, note=note)
    xc = c.const(t_in, x, layout=layout)
    attrs = 'fft_type=%s, fft_length={%s}' % (fft_type, ','.join(str(d) for d in lengths))
    r = c.op(shape(t_out, want.shape), 'fft(%s), %s' % (ref(xc), attrs), root=True)
    c.check_almost(r, t_out, want, tol(t_out, want))
    CASES.append(c)


NLAST = {}


def fft_cases(rng):
    dims = {1: [3, 16], 2: [2, 6, 8], 3: [2, 4, 5, 6]}
    for k in (1, 2, 3):
        for t in ('c64', 'c128'):
            for ft in ('FFT', 'IFFT'):
                fft_case('%s_%s_%dd' % (ft.lower(), t, k), ft, t, dims[k], k, rng)
            rt = REAL[t]
            fft_case('rfft_%s_%dd' % (rt, k), 'RFFT', rt, dims[k], k, rng)
            # IRFFT: even last length (DC and Nyquist bins) ...
            n_last = dims[k][-1]
            name = 'irfft_%s_%dd_even' % (t, k)
            NLAST[name] = n_last
            fft_case(name, 'IRFFT', t, dims[k][:-1] + [n_last // 2 + 1], k, rng)
            # ... and odd (no Nyquist bin).
            name = 'irfft_%s_%dd_odd' % (t, k)
            NLAST[name] = n_last + 1
            fft_case(name, 'IRFFT', t, dims[k][:-1] + [(n_last + 1) // 2 + 1], k, rng)
    # Odd and prime lengths, a length-1 axis, a large power of two.
    fft_case('fft_c64_prime_17', 'FFT', 'c64', [4, 17], 1, rng)
    fft_case('fft_c128_len1', 'FFT', 'c128', [3, 1], 1, rng)
    fft_case('fft_c64_1024', 'FFT', 'c64', [2, 1024], 1, rng)
    fft_case('rfft_f64_odd_2d', 'RFFT', 'f64', [3, 5, 7], 2, rng)
    # Batch large enough to be split into chunks across threads.
    fft_case('fft_c64_batch_600x64', 'FFT', 'c64', [600, 64], 1, rng)
    fft_case('rfft_f32_batch_700x96', 'RFFT', 'f32', [700, 96], 1, rng)
    name = 'irfft_c64_batch_700x49'
    NLAST[name] = 96
    fft_case(name, 'IRFFT', 'c64', [700, 49], 1, rng)
    # A column-major operand (the transform runs over the logical last axis).
    fft_case('fft_c64_column_major_operand', 'FFT', 'c64', [5, 8], 1, rng, layout=[0, 1])
    fft_case('rfft_f64_3d_layout_201', 'RFFT', 'f64', [3, 4, 6], 2, rng, layout=[0, 2, 1])
    # Empty batch.
    fft_case('fft_c64_empty_batch', 'FFT', 'c64', [0, 8], 1, rng)


def stats_shape(t, x, fi):
    return [x.shape[fi]]


def bcast(v, x, fi):
    s = [1] * x.ndim
    s[fi] = x.shape[fi]
    return v.reshape(s)


NP = {'f32': np.float32, 'f64': np.float64, 'f16': np.float16}


def bn_training(name, t, dims, fi, eps, rng, mean_shift=0.0):
    x = (rng.standard_normal(dims) * 2 + mean_shift).astype(NP[t])
    f = dims[fi]
    scale = rng.uniform(0.5, 2, f).astype(NP[t])
    offset = rng.uniform(-1, 1, f).astype(NP[t])
    axes = tuple(i for i in range(len(dims)) if i != fi)
    xw = x.astype(np.float64)
    eps_t = float(np.asarray(eps, dtype=np.float32).astype(NP[t]))
    mean = xw.mean(axis=axes)
    var = (xw ** 2).mean(axis=axes) - mean ** 2
    y = (xw - bcast(mean, xw, fi)) / np.sqrt(bcast(var, xw, fi) + eps_t) * bcast(
        scale.astype(np.float64), xw, fi) + bcast(offset.astype(np.float64), xw, fi)
    c = Case('batch_norm', 'batch_norm', name)
    xc, sc, oc = c.const(t, x), c.const(t, scale), c.const(t, offset)
    ts = tuple_shape(shape(t, dims), shape(t, [f]), shape(t, [f]))
    r = c.op(ts, 'batch-norm-training(%s, %s, %s), epsilon=%r, feature_index=%d' %
             (ref(xc), ref(sc), ref(oc), eps, fi), root=True)
    for i, (want, s) in enumerate(((y, dims), (mean, [f]), (var, [f]))):
        g = c.op(shape(t, s), 'get-tuple-element(%s), index=%d' % (ref(r), i))
        c.check_almost(g, t, want.astype(NP[t]), bn_tol(t, want))
    CASES.append(c)


def bn_tol(t, want):
    scale = max(1.0, float(np.max(np.abs(want))) if np.size(want) else 1.0)
    return {'f32': 1e-4, 'f64': 1e-11, 'f16': 2e-2}[t] * scale


def bn_inference(name, t, dims, fi, eps, rng):
    x = (rng.standard_normal(dims) * 3).astype(NP[t])
    f = dims[fi]
    scale = rng.uniform(0.5, 2, f).astype(NP[t])
    offset = rng.uniform(-1, 1, f).astype(NP[t])
    mean = rng.uniform(-1, 1, f).astype(NP[t])
    var = rng.uniform(0.1, 3, f).astype(NP[t])
    eps_t = float(np.asarray(eps, dtype=np.float32).astype(NP[t]))
    w = lambda v: bcast(v.astype(np.float64), x, fi)  # noqa: E731
    y = (x.astype(np.float64) - w(mean)) / np.sqrt(w(var) + eps_t) * w(scale) + w(offset)
    c = Case('batch_norm', 'batch_norm', name)
    args = [c.const(t, a) for a in (x, scale, offset, mean, var)]
    r = c.op(shape(t, dims), 'batch-norm-inference(%s), epsilon=%r, feature_index=%d' %
             (', '.join(ref(a) for a in args), eps, fi), root=True)
    c.check_almost(r, t, y.astype(NP[t]), bn_tol(t, y))
    CASES.append(c)


def bn_grad(name, t, dims, fi, eps, rng):
    x = (rng.standard_normal(dims) * 2 + 0.5).astype(NP[t])
    f = dims[fi]
    axes = tuple(i for i in range(len(dims)) if i != fi)
    scale = rng.uniform(0.5, 2, f).astype(NP[t])
    mean = x.astype(np.float64).mean(axis=axes).astype(NP[t])
    var = x.astype(np.float64).var(axis=axes).astype(NP[t])
    gy = rng.standard_normal(dims).astype(NP[t])
    eps_t = float(np.asarray(eps, dtype=np.float32).astype(NP[t]))
    n = x.size // f
    w = lambda v: bcast(v.astype(np.float64), x, fi)  # noqa: E731
    xw, gw = x.astype(np.float64), gy.astype(np.float64)
    d = xw - w(mean)
    sg = gw.sum(axis=axes)
    sd = (gw * d).sum(axis=axes)
    rs = 1 / np.sqrt(var.astype(np.float64) + eps_t)
    grad_scale = sd * rs
    grad_offset = sg
    gx = w(scale) * bcast(rs, x, fi) / n * (n * gw - bcast(sg, x, fi) -
                                           d * bcast(sd, x, fi) / (w(var) + eps_t))
    c = Case('batch_norm', 'batch_norm', name)
    args = [c.const(t, a) for a in (x, scale, mean, var, gy)]
    ts = tuple_shape(shape(t, dims), shape(t, [f]), shape(t, [f]))
    r = c.op(ts, 'batch-norm-grad(%s), epsilon=%r, feature_index=%d' %
             (', '.join(ref(a) for a in args), eps, fi), root=True)
    for i, (want, s) in enumerate(((gx, dims), (grad_scale, [f]), (grad_offset, [f]))):
        g = c.op(shape(t, s), 'get-tuple-element(%s), index=%d' % (ref(r), i))
        c.check_almost(g, t, want.astype(NP[t]), bn_tol(t, want) * (10 if i else 1))
    CASES.append(c)


def bn_cases(rng):
    for t in ('f32', 'f64'):
        bn_training('training_%s_nchw' % t, t, [4, 3, 5, 6], 1, 0.001, rng)
        bn_training('training_%s_nhwc' % t, t, [4, 5, 6, 3], 3, 0.001, rng)
        bn_training('training_%s_feature0' % t, t, [7, 10], 0, 0.1, rng)
        bn_inference('inference_%s_nchw' % t, t, [2, 3, 4, 5], 1, 0.001, rng)
        bn_inference('inference_%s_nhwc' % t, t, [2, 4, 5, 3], 3, 1e-5, rng)
        bn_grad('grad_%s_nchw' % t, t, [4, 3, 5, 6], 1, 0.001, rng)
        bn_grad('grad_%s_nhwc' % t, t, [4, 5, 6, 3], 3, 0.01, rng)
    # Large enough to be split across threads (many features).
    bn_training('training_f32_large_nhwc', 'f32', [64, 8, 8, 96], 3, 0.001, rng)
    bn_grad('grad_f32_large_nchw', 'f32', [16, 96, 8, 8], 1, 0.001, rng)
    bn_inference('inference_f32_large_nchw', 'f32', [16, 96, 8, 8], 1, 0.001, rng)
    # Feature dimension minor: split by rows, partial sums per chunk.
    bn_grad('grad_f32_large_nhwc', 'f32', [32, 8, 8, 64], 3, 0.001, rng)
    bn_inference('inference_f64_large_nhwc', 'f64', [32, 8, 8, 64], 3, 0.001, rng)
    bn_training('training_f64_large_nhwc_shifted', 'f64', [40, 30, 48], 2, 0.001, rng,
                mean_shift=3.0)
    # A rank-1 operand: feature_index 0, one element per feature.
    bn_inference('inference_f32_rank1', 'f32', [5], 0, 0.5, rng)
    # f16 computes in f32 and rounds once.
    bn_training('training_f16_nchw', 'f16', [2, 3, 4, 4], 1, 0.001, rng)
    bn_inference('inference_f16_nhwc', 'f16', [2, 4, 4, 3], 3, 0.001, rng)
    bn_grad('grad_f16_nchw', 'f16', [2, 3, 4, 4], 1, 0.001, rng)
    # f16 with the feature dimension minor, split by rows.
    bn_training('training_f16_large_nhwc', 'f16', [32, 8, 8, 64], 3, 0.001, rng)
    bn_grad('grad_f16_large_nhwc', 'f16', [32, 8, 8, 64], 3, 0.001, rng)
    bn_inference('inference_f16_large_nhwc', 'f16', [32, 8, 8, 64], 3, 0.001, rng)


def main():
    rng = np.random.default_rng(20261125)
    fft_cases(rng)
    bn_cases(rng)
    counts = write_cases(CASES, os.path.join('conformance', 'cases'),
                         source='numpy, conformance/tools/gen_fft_norm_cases.py')
    print(counts)


if __name__ == '__main__':
    main()
