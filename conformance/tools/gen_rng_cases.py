#!/usr/bin/python3
"""Generates rng-bit-generator cases in conformance/cases/rng/.

The expected bits come from the plain-Python ThreeFry-2x32 (20 rounds) and
Philox-4x32 (10 rounds) below, written from the Random123 paper (Salmon et
al., SC 2011) and checked against its known-answer vectors before any case
is written. The output layout follows XLA's CPU backend (rng_default is
Philox there):

  ThreeFry: key = state[0] (low 32 bits first), counter base = state[1].
    u64 outputs: element k = block(base + k), x0 | x1 << 32.
    32-bit and narrower: split the shape along its first even dimension
    (else its first largest; a scalar counts as [1]); block h of the half
    shape [outer, ceil(d/2), inner] gives x0 to index 2j and x1 to index
    2j+1 along that dimension. Narrow types keep the low bits.
    New state: [key, base + blocks].
  Philox: key = state[0]; the 128-bit counter is (state[1], state[2]) for
    u64[3] and (state[1], state[0]) for u64[2]. Block j uses counter + j;
    32-bit element k = word k%4 of block k/4; 64-bit element k = words
    (0,1) or (2,3) of block k/2. New state: [key, counter + blocks] (low
    word only for u64[2]).

Run from the repository root:

    /usr/bin/python3 conformance/tools/gen_rng_cases.py
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hlo_case import Case, ref, shape, tuple_shape, write_cases  # noqa: E402

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1


def rotl(v, r):
    return ((v << r) | (v >> (32 - r))) & M32


def threefry2x32(key, ctr):
    rot = [13, 15, 26, 6, 17, 29, 16, 24]
    ks = [key[0], key[1], 0x1BD11BDA ^ key[0] ^ key[1]]
    x = [(ctr[0] + ks[0]) & M32, (ctr[1] + ks[1]) & M32]
    for r in range(20):
        x[0] = (x[0] + x[1]) & M32
        x[1] = rotl(x[1], rot[r % 8]) ^ x[0]
        if r % 4 == 3:
            s = r // 4 + 1
            x[0] = (x[0] + ks[s % 3]) & M32
            x[1] = (x[1] + ks[(s + 1) % 3] + s) & M32
    return x


def philox4x32(key, ctr):
    k0, k1 = key
    x = list(ctr)
    for _ in range(10):
        p0 = x[0] * 0xD2511F53
        p1 = x[2] * 0xCD9E8D57
        x = [((p1 >> 32) ^ x[1] ^ k0) & M32, p1 & M32, ((p0 >> 32) ^ x[3] ^ k1) & M32, p0 & M32]
        k0 = (k0 + 0x9E3779B9) & M32
        k1 = (k1 + 0xBB67AE85) & M32
    return x


def check_known_answers():
    # Random123 kat_vectors: threefry2x32_20 and philox4x32_10.
    assert threefry2x32([0, 0], [0, 0]) == [0x6b200159, 0x99ba4efe]
    assert threefry2x32([M32, M32], [M32, M32]) == [0x1cb996fc, 0xbb002be7]
    assert threefry2x32([0x13198a2e, 0x03707344],
                        [0x243f6a88, 0x85a308d3]) == [0xc4923a9c, 0x483df7a0]
    assert philox4x32([0, 0], [0, 0, 0, 0]) == [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
    assert philox4x32([M32, M32], [M32] * 4) == [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
    assert philox4x32([0xa4093822, 0x299f31d0],
                      [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344]) == [
                          0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]


def split64(v):
    return [v & M32, (v >> 32) & M32]


def threefry_bits(state, dims, bits):
    key = split64(state[0])
    base = state[1]
    n = int(np.prod(dims, dtype=np.int64)) if dims else 1
    if bits == 64:
        out = []
        for k in range(n):
            x = threefry2x32(key, split64((base + k) & M64))
            out.append(x[0] | (x[1] << 32))
        return np.array(out, dtype=np.uint64).reshape(dims), [state[0], (base + n) & M64]
    split = next((i for i, d in enumerate(dims) if d % 2 == 0), None)
    if split is None:
        split = None
        for i, d in enumerate(dims):
            if split is None or d > dims[split]:
                split = i
    if split is None:
        outer, d, inner = 1, 1, 1
    else:
        outer = int(np.prod(dims[:split], dtype=np.int64))
        d = dims[split]
        inner = int(np.prod(dims[split + 1:], dtype=np.int64))
    half = (d + 1) // 2
    out = np.zeros((outer, d, inner), dtype=np.uint64)
    h = 0
    for o in range(outer):
        for j in range(half):
            for m in range(inner):
                x = threefry2x32(key, split64((base + h) & M64))
                out[o, 2 * j, m] = x[0] & ((1 << bits) - 1)
                if 2 * j + 1 < d:
                    out[o, 2 * j + 1, m] = x[1] & ((1 << bits) - 1)
                h += 1
    return out.reshape(dims), [state[0], (base + h) & M64]


def philox_bits(state, dims, bits):
    key = split64(state[0])
    lo = state[1]
    hi = state[2] if len(state) >= 3 else state[0]
    ctr = lo | (hi << 64)
    n = int(np.prod(dims, dtype=np.int64)) if dims else 1
    words = 2 * n if bits == 64 else n
    blocks = (words + 3) // 4
    w = []
    for j in range(blocks):
        c = (ctr + j) & ((1 << 128) - 1)
        w.extend(philox4x32(key, [(c >> s) & M32 for s in (0, 32, 64, 96)]))
    if bits == 64:
        vals = [w[2 * k] | (w[2 * k + 1] << 32) for k in range(n)]
    else:
        vals = [w[k] & ((1 << bits) - 1) for k in range(n)]
    nc = (ctr + blocks) & ((1 << 128) - 1)
    new_state = [state[0], nc & M64] + ([nc >> 64] if len(state) >= 3 else [])
    return np.array(vals, dtype=np.uint64).reshape(dims), new_state


TYPES = {8: 'u8', 16: 'u16', 32: 'u32', 64: 'u64'}
SIGNED = {8: 's8', 16: 's16', 32: 's32', 64: 's64'}


class RngCase(Case):
    def text(self):
        return super().text().replace('conformance/tools/gen_cases.py',
                                      'conformance/tools/gen_rng_cases.py', 1)


def make_case(alg, state, dims, bits, t=None, name_extra=''):
    t = t or TYPES[bits]
    name = 'rng_bit_generator_%s_%s_%s%s' % (alg, t, 'x'.join(map(str, dims)) or 'scalar',
                                            name_extra)
    c = RngCase('rng', 'rng_bit_generator', name)
    s_shape = shape('u64', [len(state)])
    st = c.const('u64', np.array(state, dtype=np.uint64))
    out_shape = shape(t, dims)
    r = c.op(tuple_shape(s_shape, out_shape),
             'rng-bit-generator(%s), algorithm=rng_%s' % (ref(st), alg))
    new_state = c.op(s_shape, 'get-tuple-element(%s), index=0' % ref(r))
    data = c.op(out_shape, 'get-tuple-element(%s), index=1' % ref(r))
    c.op(tuple_shape(s_shape, out_shape), 'tuple(%s, %s)' % (ref(new_state), ref(data)),
         root=True)
    gen = threefry_bits if alg == 'three_fry' else philox_bits
    if alg == 'default':
        gen = philox_bits
    expected, expected_state = gen(state, list(dims), bits)
    c.check(new_state, 'u64', np.array(expected_state, dtype=np.uint64))
    c.check(data, t, expected.astype(np.uint64).astype(
        {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]).view(
            {'u8': np.uint8, 'u16': np.uint16, 'u32': np.uint32, 'u64': np.uint64,
             's8': np.int8, 's16': np.int16, 's32': np.int32, 's64': np.int64}[t]))
    return c


STATE0 = 0x7012395  # XLA's CPU initial generator state (128-bit)
NP = {'f16': np.float16, 'f32': np.float32, 'f64': np.float64, 's32': np.int32,
      'u32': np.uint32, 's64': np.int64, 'u64': np.uint64}


def philox_words(ctr, count, bits):
    """`count` elements of `bits` (32 or 64) with key 0 from counter ctr."""
    n64 = count * (2 if bits == 64 else 1)
    blocks = (n64 + 3) // 4
    w = []
    for j in range(blocks):
        c = (ctr + j) & ((1 << 128) - 1)
        w.extend(philox4x32([0, 0], [(c >> s) & M32 for s in (0, 32, 64, 96)]))
    if bits == 64:
        return [w[2 * k] | (w[2 * k + 1] << 32) for k in range(count)]
    return w[:count]


def unit(t, v):
    if t == 'f64':
        return np.float64(v >> 12) * np.float64(2.0 ** -52)
    return np.float32(v >> 9) * np.float32(2.0 ** -23)


def rng_uniform(t, ctr, dims, a, b):
    n = int(np.prod(dims, dtype=np.int64)) if dims else 1
    if t in ('f16', 'f32', 'f64'):
        ct = np.float64 if t == 'f64' else np.float32
        words = philox_words(ctr, n, 64 if t == 'f64' else 32)
        fa, fb = ct(a), ct(b)
        vals = [unit('f64' if t == 'f64' else 'f32', w) * (fb - fa) + fa for w in words]
        return np.array(vals, dtype=ct).astype(NP[t]).reshape(dims)
    bits = 64 if t in ('s64', 'u64') else 32
    mask = (1 << bits) - 1
    words = philox_words(ctr, n, bits)
    rng = ((b & mask) - (a & mask)) & mask
    out = []
    for w in words:
        d = w if rng == 0 else w % rng
        h = d >> 1
        v = ((a & mask) + h + (d - h)) & mask
        if t[0] == 's' and v >> (bits - 1):
            v -= 1 << bits
        out.append(v)
    return np.array(out, dtype=NP[t]).reshape(dims)


def rng_normal(t, ctr, dims, mean, sigma):
    ct = np.float64 if t == 'f64' else np.float32
    if not dims:
        outer, d, inner = 1, 1, 1
    else:
        split = next((i for i, x in enumerate(dims) if x % 2 == 0), None)
        if split is None:
            split = max(range(len(dims)), key=lambda i: (dims[i], -i))
        outer = int(np.prod(dims[:split], dtype=np.int64))
        d = dims[split]
        inner = int(np.prod(dims[split + 1:], dtype=np.int64))
    half = (d + 1) // 2
    words = philox_words(ctr, outer * half * 2 * inner, 64 if t == 'f64' else 32)
    u = np.array([unit('f64' if t == 'f64' else 'f32', w) for w in words],
                 dtype=ct).reshape(outer, half, 2, inner)
    u1 = np.maximum(u[:, :, 0, :], ct(np.float32(1e-7)))
    v1 = ct(2 * np.pi) * u[:, :, 1, :]  # 2.0f * M_PI is a double
    u2 = np.sqrt(ct(-2) * np.log(u1))
    pair = np.stack([np.sin(v1) * u2, np.cos(v1) * u2], axis=2).reshape(outer, 2 * half, inner)
    out = ct(mean) + ct(sigma) * pair[:, :d, :]
    return out.astype(NP[t]).reshape(dims)


def f32_to_bf16_as_f32(x):
    """Rounds float32 values to bfloat16 (nearest even), returned as float32."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + np.uint64(0x7FFF) + ((bits >> np.uint64(16)) & np.uint64(1)))
            >> np.uint64(16)) << np.uint64(16)
    return bits.astype(np.uint32).view(np.float32)


def rng_case(dist, t, dims, a, b, extra=''):
    name = 'rng_%s_%s_%s%s' % (dist, t, 'x'.join(map(str, dims)) or 'scalar', extra)
    c = RngCase('rng', 'rng', name)
    if t == 'bf16':
        # a and b are exact in bf16; results are compared after an exact
        # bf16 -> f32 convert.
        ca = c.op('bf16[]', 'constant(%r)' % float(a))
        cb = c.op('bf16[]', 'constant(%r)' % float(b))
    else:
        ca = c.const(t, np.array(a, dtype=NP[t]))
        cb = c.const(t, np.array(b, dtype=NP[t]))
    out_shape = shape(t, dims)
    first = c.op(out_shape, 'rng(%s, %s), distribution=rng_%s' % (ref(ca), ref(cb), dist))
    # A second call continues from the state the first one advanced.
    second = c.op(out_shape, 'rng(%s, %s), distribution=rng_%s' % (ref(ca), ref(cb), dist))
    st = c.op(shape('u64', [2]), 'rng-get-and-update-state(), delta=5')
    c.op(tuple_shape(out_shape, out_shape, shape('u64', [2])),
         'tuple(%s, %s, %s)' % (ref(first), ref(second), ref(st)), root=True)
    n = int(np.prod(dims, dtype=np.int64)) if dims else 1
    delta = n * (2 if t in ('f64', 's64', 'u64') else 1)
    gen = rng_normal if dist == 'normal' else rng_uniform
    for k, v in enumerate((first, second)):
        if t == 'bf16':
            expected = f32_to_bf16_as_f32(gen('f32', STATE0 + k * delta, list(dims), a, b))
            v = c.op(shape('f32', dims), 'convert(%s)' % ref(v))
            if dist == 'normal':
                c.check_almost(v, 'f32', expected, 5e-2)
            else:
                c.check(v, 'f32', expected)
            continue
        expected = gen(t, STATE0 + k * delta, list(dims), a, b)
        if dist == 'normal':
            # sin, cos and log are not correctly rounded anywhere: a tolerance
            # (one f16 ulp near 8; far above the libm spread for f32 and f64).
            c.check_almost(v, t, expected, {'f16': 1e-2, 'f32': 1e-5, 'f64': 1e-12}[t])
        else:
            c.check(v, t, expected)
    c.check(st, 'u64', np.array([STATE0 + 2 * delta, 0], dtype=np.uint64))
    return c


def main():
    check_known_answers()
    cases = []
    for t, a, b in (('f16', -1.5, 2.25), ('bf16', -1.5, 2.25), ('f32', -1.5, 2.25), ('f64', -3.0, 7.5), ('s32', -50, 1000),
                    ('u32', 7, 4000000000), ('s64', -(1 << 40), 1 << 50),
                    ('u64', 3, 3), ('s32', 5, -5)):
        extra = '_empty_range' if a == b else ('_reversed' if a > b else '')
        for dims in ([], [7], [3, 5], [4, 3]):
            cases.append(rng_case('uniform', t, dims, a, b, extra))
    for t in ('f16', 'bf16', 'f32', 'f64'):
        for dims in ([], [1], [7], [4, 3], [3, 5], [3, 1, 5]):
            cases.append(rng_case('normal', t, dims, 0.5, 2.0))
    shapes = [[], [1], [7], [8], [3, 5], [5, 3], [4, 5], [3, 4, 5], [2, 3, 1, 7], [9, 1, 3], [0, 3]]
    tf_state = [0x0123456789ABCDEF, 0xFFFFFFFFFFFFFFF0]  # counter crosses 2^64
    ph_state3 = [0x243F6A8885A308D3, 0xFFFFFFFFFFFFFFFE, 0x13198A2E03707344]  # carry into high
    ph_state2 = [0xA4093822299F31D0, 0x0000000100000002]
    for bits in (8, 16, 32, 64):
        for dims in shapes:
            cases.append(make_case('three_fry', tf_state, dims, bits))
            cases.append(make_case('philox', ph_state3, dims, bits))
        for dims in ([5], [3, 3]):
            cases.append(make_case('philox', ph_state2, dims, bits, name_extra='_state2'))
            cases.append(make_case('default', ph_state3, dims, bits))
    for bits in (32, 64):
        cases.append(make_case('three_fry', tf_state, [3, 4], bits, t=SIGNED[bits]))
        cases.append(make_case('philox', ph_state3, [3, 4], bits, t=SIGNED[bits]))
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'cases')
    counts = write_cases(cases, root)
    print(counts)


if __name__ == '__main__':
    main()
