"""Cases for the shape, indexing, reduction, sorting and control-flow families.

Reference implementations here follow the operation semantics in
../shared/seeds/ (XLA's documentation) directly, element by element, so that
they are independent of any optimized implementation.
"""

import itertools

import numpy as np

from hlo_case import (Case, NP_TYPES, binary_comp, compare_comp, plain, ref, shape, tuple_shape)

CASES = []


def new(group, family, name, note=None):
    c = Case(group, family, name, note)
    CASES.append(c)
    return c


def dims_attr(values):
    return '{' + ','.join(str(v) for v in values) + '}'


# ---------------------------------------------------------------------------
# Reference implementations.
# ---------------------------------------------------------------------------

def ref_pad(a, value, config):
    """config: list of (low, high, interior) per dimension; negative low/high
    remove elements."""
    out_shape = []
    for d, (lo, hi, it) in enumerate(config):
        n = a.shape[d]
        out_shape.append(lo + hi + n + max(n - 1, 0) * it)
    out = np.full(out_shape, value, dtype=a.dtype)
    for idx in itertools.product(*[range(n) for n in a.shape]):
        pos = tuple(lo + i * (it + 1) for i, (lo, hi, it) in zip(idx, config))
        if all(0 <= p < s for p, s in zip(pos, out_shape)):
            out[pos] = a[idx]
    return out


def ref_gather(operand, indices, offset_dims, collapsed, start_index_map, index_vector_dim,
               slice_sizes):
    if index_vector_dim == indices.ndim:
        indices = indices[..., np.newaxis]
    batch_shape = [indices.shape[d] for d in range(indices.ndim) if d != index_vector_dim]
    offset_sizes = [slice_sizes[d] for d in range(operand.ndim) if d not in collapsed]
    out_rank = len(batch_shape) + len(offset_sizes)
    out_shape = [0] * out_rank
    batch_dims = [d for d in range(out_rank) if d not in offset_dims]
    for k, d in enumerate(offset_dims):
        out_shape[d] = offset_sizes[k]
    for k, d in enumerate(batch_dims):
        out_shape[d] = batch_shape[k]
    out = np.zeros(out_shape, dtype=operand.dtype)
    window_operand_dims = [d for d in range(operand.ndim) if d not in collapsed]
    for out_idx in itertools.product(*[range(n) for n in out_shape]):
        g = [out_idx[d] for d in batch_dims]
        idx = list(g)
        idx.insert(index_vector_dim, slice(None))
        start = indices[tuple(idx)]
        s_in = [0] * operand.ndim
        for k, od in enumerate(start_index_map):
            s_in[od] = int(start[k])
        for d in range(operand.ndim):
            s_in[d] = min(max(s_in[d], 0), operand.shape[d] - slice_sizes[d])
        o_in = [0] * operand.ndim
        for k, d in enumerate(offset_dims):
            o_in[window_operand_dims[k]] = out_idx[d]
        out[out_idx] = operand[tuple(s + o for s, o in zip(s_in, o_in))]
    return out


def ref_scatter(operand, indices, updates, update_window_dims, inserted_window_dims,
                scatter_dims_to_operand_dims, index_vector_dim, combine):
    out = operand.copy()
    if index_vector_dim == indices.ndim:
        indices = indices[..., np.newaxis]
    scatter_dims = [d for d in range(updates.ndim) if d not in update_window_dims]
    window_operand_dims = [d for d in range(operand.ndim) if d not in inserted_window_dims]
    window_sizes = [updates.shape[d] for d in update_window_dims]
    for u_idx in itertools.product(*[range(n) for n in updates.shape]):
        g = [u_idx[d] for d in scatter_dims]
        idx = list(g)
        idx.insert(index_vector_dim, slice(None))
        start = indices[tuple(idx)]
        s_in = [0] * operand.ndim
        for k, od in enumerate(scatter_dims_to_operand_dims):
            s_in[od] = int(start[k])
        # The whole window must fit, else the update is skipped.
        full = [0] * operand.ndim
        for k, od in enumerate(window_operand_dims):
            full[od] = window_sizes[k]
        ok = all(0 <= s_in[d] and s_in[d] + max(full[d], 1) <= operand.shape[d]
                 for d in range(operand.ndim))
        if not ok:
            continue
        w_in = [0] * operand.ndim
        for k, d in enumerate(update_window_dims):
            w_in[window_operand_dims[k]] = u_idx[d]
        pos = tuple(s + w for s, w in zip(s_in, w_in))
        out[pos] = combine(out[pos], updates[u_idx])
    return out


def ref_reduce_window(a, init, f, window, strides, padding, base_dil=None, win_dil=None):
    n = a.ndim
    base_dil = base_dil or [1] * n
    win_dil = win_dil or [1] * n
    dil_shape = [(a.shape[d] - 1) * base_dil[d] + 1 if a.shape[d] else 0 for d in range(n)]
    padded = [dil_shape[d] + padding[d][0] + padding[d][1] for d in range(n)]
    eff_win = [(window[d] - 1) * win_dil[d] + 1 for d in range(n)]
    out_shape = [max(0, (padded[d] - eff_win[d]) // strides[d] + 1) for d in range(n)]
    out = np.zeros(out_shape, dtype=a.dtype)
    for o in itertools.product(*[range(s) for s in out_shape]):
        acc = init
        for w in itertools.product(*[range(s) for s in window]):
            pos = []
            valid = True
            for d in range(n):
                p = o[d] * strides[d] + w[d] * win_dil[d] - padding[d][0]
                if p < 0 or p >= dil_shape[d] or p % base_dil[d]:
                    valid = False
                    break
                pos.append(p // base_dil[d])
            if valid:
                acc = f(acc, a[tuple(pos)])
        out[o] = acc
    return out


# ---------------------------------------------------------------------------
# Shape family.
# ---------------------------------------------------------------------------

def gen_shape():
    a23 = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    # reshape
    for t, src, dst in (('f32', (2, 3), (3, 2)), ('s32', (2, 3), (6,)), ('f32', (6,), (1, 2, 3, 1)),
                        ('s8', (2, 2, 2), (4, 2)), ('f64', (1,), ()), ('s32', (0, 4), (2, 0)),
                        ('pred', (4,), (2, 2)), ('u16', (3, 4), (2, 6))):
        c = new('shape', 'reshape', 'reshape_%s_%s_to_%s' % (t, 'x'.join(map(str, src)) or 's',
                                                              'x'.join(map(str, dst)) or 'scalar'))
        n = int(np.prod(src))
        data = (np.arange(n) % 2 == 0) if t == 'pred' else np.arange(n) + 1
        data = data.astype(NP_TYPES[t]).reshape(src)
        x = c.const(t, data)
        r = c.op(shape(t, dst), 'reshape(%s)' % ref(x), root=True)
        c.check(r, t, data.reshape(dst))
    # The seed's reshape example: s32[2,2,3] -> [2,6] / [3,4] / [12].
    v = np.array([[[10, 11, 12], [15, 16, 17]], [[20, 21, 22], [25, 26, 27]]], dtype=np.int32)
    for dst in ((2, 6), (3, 4), (12,), (4, 3), (2, 3, 2)):
        c = new('shape', 'reshape', 'reshape_seed_example_to_%s' % 'x'.join(map(str, dst)))
        x = c.const('s32', v)
        r = c.op(shape('s32', dst), 'reshape(%s)' % ref(x), root=True)
        c.check(r, 's32', v.reshape(dst))
    # Reshape of a column-major operand: logical order is what counts.
    c = new('shape', 'reshape', 'reshape_f32_column_major_operand')
    x = c.const('f32', a23, layout=[0, 1])
    r = c.op(shape('f32', [6]), 'reshape(%s)' % ref(x), root=True)
    c.check(r, 'f32', a23.reshape(6))
    # transpose
    b = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    for perm in ((1, 0, 2), (2, 1, 0), (0, 2, 1), (2, 0, 1), (1, 2, 0), (0, 1, 2)):
        c = new('shape', 'transpose', 'transpose_s32_%s' % ''.join(map(str, perm)))
        x = c.const('s32', b)
        out = np.transpose(b, perm)
        r = c.op(shape('s32', out.shape), 'transpose(%s), dimensions=%s' % (ref(x), dims_attr(perm)),
                 root=True)
        c.check(r, 's32', out)
    c = new('shape', 'transpose', 'transpose_f32_2d')
    x = c.const('f32', a23)
    r = c.op(shape('f32', [3, 2]), 'transpose(%s), dimensions={1,0}' % ref(x), root=True)
    c.check(r, 'f32', a23.T)
    c = new('shape', 'transpose', 'transpose_f32_into_column_major_result')
    x = c.const('f32', a23)
    r = c.op(shape('f32', [3, 2], [0, 1]), 'transpose(%s), dimensions={1,0}' % ref(x), root=True)
    c.check(r, 'f32', a23.T, layout=[0, 1])
    # broadcast
    for t, src, dims, out_shape in (('f32', (), (), (2, 3)), ('s32', (3,), (1,), (2, 3)),
                                    ('s32', (2,), (0,), (2, 3)), ('f64', (2, 3), (0, 1), (2, 3, 2)),
                                    ('f32', (2, 3), (1, 2), (4, 2, 3)), ('pred', (2,), (1,), (3, 2)),
                                    ('u8', (3,), (0,), (3, 0))):
        c = new('shape', 'broadcast', 'broadcast_%s_%s_to_%s' % (
            t, 'x'.join(map(str, src)) or 'scalar', 'x'.join(map(str, out_shape))))
        n = int(np.prod(src))
        data = (np.arange(n) % 2 == 1) if t == 'pred' else np.arange(n) + 1
        data = np.asarray(data.astype(NP_TYPES[t]).reshape(src))
        x = c.const(t, data)
        # numpy: move operand dims into place then broadcast.
        view_shape = [1] * len(out_shape)
        for k, d in enumerate(dims):
            view_shape[d] = src[k]
        expected = np.broadcast_to(data.reshape(view_shape), out_shape)
        r = c.op(shape(t, out_shape), 'broadcast(%s), dimensions=%s' % (ref(x), dims_attr(dims)),
                 root=True)
        c.check(r, t, expected)
    # concatenate: the seed's examples and more.
    c = new('shape', 'concatenate', 'concatenate_seed_1d')
    parts = [c.const('s32', [2, 3]), c.const('s32', [4, 5]), c.const('s32', [6, 7])]
    r = c.op(shape('s32', [6]), 'concatenate(%s), dimensions={0}' % ', '.join(ref(p) for p in parts),
             root=True)
    c.check(r, 's32', [2, 3, 4, 5, 6, 7])
    c = new('shape', 'concatenate', 'concatenate_seed_2d')
    a = c.const('s32', [[1, 2], [3, 4], [5, 6]])
    b2 = c.const('s32', [[7, 8]])
    r = c.op(shape('s32', [4, 2]), 'concatenate(%s, %s), dimensions={0}' % (ref(a), ref(b2)), root=True)
    c.check(r, 's32', [[1, 2], [3, 4], [5, 6], [7, 8]])
    for t, dim in (('f32', 1), ('f64', 0), ('u8', 1), ('pred', 0), ('s64', 2)):
        c = new('shape', 'concatenate', 'concatenate_%s_dim%d' % (t, dim))
        shapes = [(2, 2, 2), (2, 2, 2), (2, 2, 2)]
        shapes = [tuple(k if d != dim else k + i for d, k in enumerate(s)) for i, s in enumerate(shapes)]
        arrays = []
        base = 0
        for s in shapes:
            n = int(np.prod(s))
            data = np.arange(base, base + n)
            base += n
            arrays.append(((data % 3 == 0) if t == 'pred' else data).astype(NP_TYPES[t]).reshape(s))
        consts = [c.const(t, x_) for x_ in arrays]
        out = np.concatenate(arrays, axis=dim)
        r = c.op(shape(t, out.shape), 'concatenate(%s), dimensions={%d}' % (
            ', '.join(ref(x_) for x_ in consts), dim), root=True)
        c.check(r, t, out)
    c = new('shape', 'concatenate', 'concatenate_with_empty')
    x = c.const('f32', np.zeros((0, 2), np.float32))
    y = c.const('f32', [[1, 2]])
    r = c.op(shape('f32', [1, 2]), 'concatenate(%s, %s), dimensions={0}' % (ref(x), ref(y)), root=True)
    c.check(r, 'f32', [[1, 2]])
    # slice
    m = np.arange(1, 21, dtype=np.float32).reshape(4, 5)
    for name, starts, limits, strides in (('basic', (1, 1), (3, 4), (1, 1)),
                                          ('strided', (0, 0), (4, 5), (2, 2)),
                                          ('strided_offset', (1, 1), (4, 5), (2, 3)),
                                          ('full', (0, 0), (4, 5), (1, 1)),
                                          ('empty', (2, 2), (2, 5), (1, 1)),
                                          ('one_element', (3, 4), (4, 5), (1, 1))):
        c = new('shape', 'slice', 'slice_f32_%s' % name)
        x = c.const('f32', m)
        out = m[starts[0]:limits[0]:strides[0], starts[1]:limits[1]:strides[1]]
        attr = '{' + ', '.join('[%d:%d:%d]' % (s, l, st) for s, l, st in zip(starts, limits, strides)) + '}'
        r = c.op(shape('f32', out.shape), 'slice(%s), slice=%s' % (ref(x), attr), root=True)
        c.check(r, 'f32', out)
    # The seed's 1-D slice example: {0,1,2,3,4} [2:4] -> {2,3}.
    c = new('shape', 'slice', 'slice_seed_1d')
    x = c.const('f32', [0.0, 1.0, 2.0, 3.0, 4.0])
    r = c.op(shape('f32', [2]), 'slice(%s), slice={[2:4]}' % ref(x), root=True)
    c.check(r, 'f32', [2.0, 3.0])
    # The seed's 2-D slice example: rows 2..3, columns 1..2 of a 4x3 array.
    c = new('shape', 'slice', 'slice_seed_2d')
    x = c.const('f32', np.arange(12, dtype=np.float32).reshape(4, 3))
    r = c.op(shape('f32', [2, 2]), 'slice(%s), slice={[2:4], [1:3]}' % ref(x), root=True)
    c.check(r, 'f32', np.array([[7.0, 8.0], [10.0, 11.0]], dtype=np.float32))
    c = new('shape', 'slice', 'slice_s32_3d_column_major')
    b3 = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    x = c.const('s32', b3, layout=[0, 1, 2])
    r = c.op(shape('s32', [1, 2, 2]), 'slice(%s), slice={[1:2], [0:3:2], [1:4:2]}' % ref(x), root=True)
    c.check(r, 's32', b3[1:2, 0:3:2, 1:4:2])
    # pad
    p_in = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
    for name, config in (('low_high', [(1, 2, 0), (0, 1, 0)]),
                         ('interior', [(0, 0, 1), (0, 0, 2)]),
                         ('all', [(1, 0, 1), (2, 1, 1)]),
                         ('negative', [(-1, 0, 0), (0, -2, 0)]),
                         ('negative_interior', [(0, 0, 0), (-1, -1, 1)]),
                         ('none', [(0, 0, 0), (0, 0, 0)])):
        c = new('shape', 'pad', 'pad_f32_%s' % name)
        x = c.const('f32', p_in)
        pv = c.const('f32', np.array(-1.0, np.float32))
        out = ref_pad(p_in, np.float32(-1.0), config)
        cfg = 'x'.join('%d_%d_%d' % c_ for c_ in config)
        r = c.op(shape('f32', out.shape), 'pad(%s, %s), padding=%s' % (ref(x), ref(pv), cfg), root=True)
        c.check(r, 'f32', out)
    c = new('shape', 'pad', 'pad_s32_1d_seed_style')
    x = c.const('s32', [1, 2, 3])
    pv = c.const('s32', np.array(0, np.int32))
    out = ref_pad(np.array([1, 2, 3], np.int32), 0, [(2, 1, 2)])
    r = c.op(shape('s32', out.shape), 'pad(%s, %s), padding=2_1_2' % (ref(x), ref(pv)), root=True)
    c.check(r, 's32', out)
    c = new('shape', 'pad', 'pad_empty_operand')
    x = c.const('f32', np.zeros((0,), np.float32))
    pv = c.const('f32', np.array(7.0, np.float32))
    r = c.op(shape('f32', [3]), 'pad(%s, %s), padding=1_2_3' % (ref(x), ref(pv)), root=True)
    c.check(r, 'f32', [7.0, 7.0, 7.0])
    # reverse
    for dims in ((0,), (1,), (0, 1), ()):
        c = new('shape', 'reverse', 'reverse_f32_%s' % (''.join(map(str, dims)) or 'none'))
        x = c.const('f32', m)
        out = m
        for d in dims:
            out = np.flip(out, d)
        r = c.op(shape('f32', [4, 5]), 'reverse(%s), dimensions=%s' % (ref(x), dims_attr(dims)), root=True)
        c.check(r, 'f32', out)
    c = new('shape', 'reverse', 'reverse_s32_3d_middle')
    x = c.const('s32', b3)
    r = c.op(shape('s32', [2, 3, 4]), 'reverse(%s), dimensions={1}' % ref(x), root=True)
    c.check(r, 's32', np.flip(b3, 1))
    # iota
    for t, dims, d in (('s32', (5,), 0), ('f32', (2, 3), 1), ('f32', (2, 3), 0), ('u8', (4, 2), 0),
                       ('s64', (2, 2, 3), 2), ('f64', (3,), 0), ('s32', (0,), 0), ('f16', (4,), 0)):
        c = new('shape', 'iota', 'iota_%s_%s_dim%d' % (t, 'x'.join(map(str, dims)), d))
        grid = np.indices(dims)[d] if dims != (0,) else np.zeros((0,))
        r = c.op(shape(t, dims), 'iota(), iota_dimension=%d' % d, root=True)
        c.check(r, t, grid.astype(NP_TYPES[t]))
    c = new('shape', 'iota', 'iota_s32_column_major')
    r = c.op(shape('s32', [2, 3], [0, 1]), 'iota(), iota_dimension=1', root=True)
    c.check(r, 's32', np.indices((2, 3))[1], layout=[0, 1])
    # copy between layouts and bitcast.
    c = new('shape', 'copy', 'copy_f32_row_to_column_major')
    x = c.const('f32', a23)
    r = c.op(shape('f32', [2, 3], [0, 1]), 'copy(%s)' % ref(x), root=True)
    c.check(r, 'f32', a23, layout=[0, 1])
    c = new('shape', 'copy', 'copy_f32_column_to_row_major')
    x = c.const('f32', a23, layout=[0, 1])
    r = c.op(shape('f32', [2, 3]), 'copy(%s)' % ref(x), root=True)
    c.check(r, 'f32', a23)
    c = new('shape', 'copy', 'copy_s32_3d_permuted_layout')
    x = c.const('s32', b3, layout=[1, 0, 2])
    r = c.op(shape('s32', [2, 3, 4], [2, 0, 1]), 'copy(%s)' % ref(x), root=True)
    c.check(r, 's32', b3, layout=[2, 0, 1])
    c = new('shape', 'bitcast', 'bitcast_column_major_is_transpose')
    # Physical order of [[1,2,3],[4,5,6]] in layout {0,1} is 1,4,2,5,3,6;
    # read as f32[3,2]{1,0} that is [[1,4],[2,5],[3,6]].
    x = c.const('f32', a23, layout=[0, 1])
    r = c.op(shape('f32', [3, 2]), 'bitcast(%s)' % ref(x), root=True)
    c.check(r, 'f32', a23.T)
    c = new('shape', 'bitcast', 'bitcast_reshape_row_major')
    x = c.const('f32', a23)
    r = c.op(shape('f32', [3, 2]), 'bitcast(%s)' % ref(x), root=True)
    c.check(r, 'f32', a23.reshape(3, 2))


# ---------------------------------------------------------------------------
# Indexing family: dynamic-slice, dynamic-update-slice, gather, scatter.
# ---------------------------------------------------------------------------

def gen_indexing():
    a = np.array([0.0, 1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    b = np.arange(12, dtype=np.float32).reshape(4, 3)
    for name, operand, starts, sizes in (('seed_1d', a, [2], [2]), ('seed_2d', b, [2, 1], [2, 2]),
                                         ('clamped_high', a, [4], [3]), ('clamped_negative', a, [-3], [2]),
                                         ('clamped_2d', b, [10, -1], [3, 2]), ('full', b, [0, 0], [4, 3]),
                                         ('zero_size', b, [1, 1], [0, 2])):
        for it in ('s32', 's64', 'u32') if name in ('seed_1d', 'clamped_high') else ('s32',):
            if it == 'u32' and min(starts) < 0:
                continue
            c = new('indexing', 'dynamic-slice', 'dynamic_slice_%s_%s' % (name, it))
            x = c.const('f32', operand)
            idx = [c.const(it, np.array(s, dtype=NP_TYPES[it])) for s in starts]
            clamped = [min(max(s, 0), operand.shape[d] - sizes[d]) for d, s in enumerate(starts)]
            out = operand[tuple(slice(cl, cl + sz) for cl, sz in zip(clamped, sizes))]
            r = c.op(shape('f32', sizes), 'dynamic-slice(%s, %s), dynamic_slice_sizes=%s' % (
                ref(x), ', '.join(ref(i) for i in idx), dims_attr(sizes)), root=True)
            c.check(r, 'f32', out)
    u1 = np.array([5.0, 6.0], dtype=np.float32)
    u2 = np.array([[12.0, 13.0], [14.0, 15.0], [16.0, 17.0]], dtype=np.float32)
    for name, operand, update, starts in (('seed_1d', a, u1, [2]), ('seed_2d', b, u2, [1, 1]),
                                          ('clamped_high', a, u1, [7]), ('clamped_negative', a, u1, [-1]),
                                          ('clamped_2d', b, u2, [3, 5]),
                                          ('whole', a, a[::-1].copy(), [0])):
        c = new('indexing', 'dynamic-update-slice', 'dynamic_update_slice_%s' % name)
        x = c.const('f32', operand)
        u = c.const('f32', update)
        idx = [c.const('s32', np.array(s, dtype=np.int32)) for s in starts]
        clamped = [min(max(s, 0), operand.shape[d] - update.shape[d]) for d, s in enumerate(starts)]
        out = operand.copy()
        out[tuple(slice(cl, cl + sz) for cl, sz in zip(clamped, update.shape))] = update
        r = c.op(shape('f32', operand.shape), 'dynamic-update-slice(%s, %s, %s)' % (
            ref(x), ref(u), ', '.join(ref(i) for i in idx)), root=True)
        c.check(r, 'f32', out)
    c = new('indexing', 'dynamic-update-slice', 'dynamic_update_slice_s32_3d')
    op3 = np.zeros((2, 3, 4), np.int32)
    up3 = np.arange(1, 7, dtype=np.int32).reshape(1, 2, 3)
    x = c.const('s32', op3)
    u = c.const('s32', up3)
    idx = [c.const('s32', np.array(s, np.int32)) for s in (1, 1, 1)]
    out = op3.copy()
    out[1:2, 1:3, 1:4] = up3
    r = c.op(shape('s32', [2, 3, 4]), 'dynamic-update-slice(%s, %s, %s)' % (
        ref(x), ref(u), ', '.join(ref(i) for i in idx)), root=True)
    c.check(r, 's32', out)

    # gather
    op = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8]], dtype=np.int32)
    gathers = [
        # name, operand, indices, offset_dims, collapsed, start_index_map, ivd, slice_sizes
        ('rows', op, np.array([0, 2], np.int32), [1], [0], [0], 1, [1, 3]),
        ('columns', op, np.array([0, 2], np.int32), [0], [1], [1], 1, [3, 1]),
        ('points', op, np.array([[0, 0], [1, 2], [2, 1]], np.int32), [], [0, 1], [0, 1], 1, [1, 1]),
        ('windows_2x2', op, np.array([[0, 0], [1, 1]], np.int32), [1, 2], [], [0, 1], 1, [2, 2]),
        ('clamped', op, np.array([[5, -3], [2, 2]], np.int32), [1, 2], [], [0, 1], 1, [2, 2]),
        ('index_vector_dim0', op, np.array([[0, 2], [1, 0]], np.int32), [1, 2], [], [0, 1], 0, [1, 2]),
        ('scalar_index', op, np.array(1, np.int32), [0], [0], [0], 0, [1, 3]),
        ('batch_2d', op, np.array([[0, 1], [2, 0]], np.int32), [2], [0], [0], 2, [1, 3]),
        ('reversed_map', op, np.array([[2, 0], [0, 1]], np.int32), [1], [0], [1, 0], 1, [1, 2]),
        ('offset_dim_first', op, np.array([0, 1], np.int32), [0], [1], [1], 1, [2, 1]),
    ]
    for name, operand, indices, offset_dims, collapsed, sim, ivd, sizes in gathers:
        c = new('indexing', 'gather', 'gather_%s' % name)
        x = c.const('s32', operand)
        i = c.const('s32', indices)
        out = ref_gather(operand, indices, offset_dims, collapsed, sim, ivd, sizes)
        r = c.op(shape('s32', out.shape),
                 'gather(%s, %s), offset_dims=%s, collapsed_slice_dims=%s, start_index_map=%s, '
                 'index_vector_dim=%d, slice_sizes=%s' % (
                     ref(x), ref(i), dims_attr(offset_dims), dims_attr(collapsed), dims_attr(sim),
                     ivd, dims_attr(sizes)), root=True)
        c.check(r, 's32', out)
    c = new('indexing', 'gather', 'gather_f32_3d_operand')
    op3f = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    ind = np.array([[1, 2], [0, 0], [1, 0]], np.int32)
    x = c.const('f32', op3f)
    i = c.const('s32', ind)
    out = ref_gather(op3f, ind, [1, 2], [0], [0, 1], 1, [1, 2, 3])
    r = c.op(shape('f32', out.shape),
             'gather(%s, %s), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0,1}, '
             'index_vector_dim=1, slice_sizes={1,2,3}' % (ref(x), ref(i)), root=True)
    c.check(r, 'f32', out)

    # scatter
    add_s32 = binary_comp('add_s32', 's32', 'add')
    assign_s32 = ('%assign_s32 (a: s32[], b: s32[]) -> s32[] {\n'
                  '  %a = s32[] parameter(0)\n'
                  '  ROOT %b = s32[] parameter(1)\n'
                  '}')
    max_s32 = binary_comp('max_s32', 's32', 'maximum')
    base = np.zeros((3, 3), np.int32)
    scatters = [
        # name, comp, indices, updates, uwd, iwd, sdod, ivd
        ('rows_add', 'add', np.array([0, 2], np.int32), np.array([[1, 2, 3], [4, 5, 6]], np.int32),
         [1], [0], [0], 1),
        ('rows_duplicate_add', 'add', np.array([1, 1], np.int32),
         np.array([[1, 2, 3], [10, 20, 30]], np.int32), [1], [0], [0], 1),
        ('points_assign', 'assign', np.array([[0, 0], [2, 1]], np.int32), np.array([7, 9], np.int32),
         [], [0, 1], [0, 1], 1),
        ('out_of_range_skipped', 'add', np.array([[0, 0], [5, 5], [-1, 0]], np.int32),
         np.array([1, 100, 1000], np.int32), [], [0, 1], [0, 1], 1),
        ('window_2x2', 'add', np.array([[1, 1]], np.int32), np.array([[[1, 2], [3, 4]]], np.int32),
         [1, 2], [], [0, 1], 1),
        ('window_partially_out_skipped', 'add', np.array([[2, 2], [0, 0]], np.int32),
         np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], np.int32), [1, 2], [], [0, 1], 1),
        ('columns_max', 'max', np.array([0, 2], np.int32), np.array([[5, 1], [-5, 2], [5, 3]], np.int32),
         [0], [1], [1], 1),
        ('scalar_index', 'add', np.array(1, np.int32), np.array([1, 1, 1], np.int32), [0], [0], [0], 0),
    ]
    comps = {'add': ('add_s32', add_s32, lambda x, y: x + y),
             'assign': ('assign_s32', assign_s32, lambda x, y: y),
             'max': ('max_s32', max_s32, lambda x, y: max(x, y))}
    for name, comp, indices, updates, uwd, iwd, sdod, ivd in scatters:
        cname, ctext, f = comps[comp]
        c = new('indexing', 'scatter', 'scatter_%s' % name)
        c.comp(ctext)
        operand = base + np.arange(9, dtype=np.int32).reshape(3, 3)
        x = c.const('s32', operand)
        i = c.const('s32', indices)
        u = c.const('s32', updates)
        out = ref_scatter(operand, indices, updates, uwd, iwd, sdod, ivd, f)
        r = c.op(shape('s32', [3, 3]),
                 'scatter(%s, %s, %s), update_window_dims=%s, inserted_window_dims=%s, '
                 'scatter_dims_to_operand_dims=%s, index_vector_dim=%d, to_apply=%%%s' % (
                     ref(x), ref(i), ref(u), dims_attr(uwd), dims_attr(iwd), dims_attr(sdod), ivd,
                     cname), root=True)
        c.check(r, 's32', out)
    c = new('indexing', 'scatter', 'scatter_f32_add_1d')
    c.comp(binary_comp('add_f32', 'f32', 'add'))
    operand = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    indices = np.array([[3], [0], [3]], np.int32)
    updates = np.array([0.5, 0.25, 2.0], np.float32)
    x = c.const('f32', operand)
    i = c.const('s32', indices)
    u = c.const('f32', updates)
    out = ref_scatter(operand, indices, updates, [], [0], [0], 1, lambda p, q: p + q)
    r = c.op(shape('f32', [4]), 'scatter(%s, %s, %s), update_window_dims={}, inserted_window_dims={0}, '
             'scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%%add_f32' % (
                 ref(x), ref(i), ref(u)), root=True)
    c.check(r, 'f32', out)


# ---------------------------------------------------------------------------
# Reductions: reduce, reduce-window, select-and-scatter.
# ---------------------------------------------------------------------------

def gen_reduce():
    m = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    ops = {'add': (lambda x, y: x + y, 0), 'maximum': (max, None), 'minimum': (min, None),
           'multiply': (lambda x, y: x * y, 1)}
    for t in ('f32', 's32', 'f64', 'u32', 's64'):
        data = m.astype(NP_TYPES[t])
        for opname, (f, ident) in ops.items():
            if opname == 'multiply' and t in ('f32',):
                data_ = (data % 3 + 1).astype(NP_TYPES[t])  # small exact products
            else:
                data_ = data
            init = {'add': 0, 'multiply': 1, 'maximum': -1000 if t[0] != 'u' else 0,
                    'minimum': 1000}[opname]
            for dims in ((0,), (1,), (0, 1)):
                c = new('reduce', 'reduce', 'reduce_%s_%s_dims%s' % (opname, t, ''.join(map(str, dims))))
                c.comp(binary_comp('r', t, opname))
                x = c.const(t, data_)
                iv = c.const(t, np.array(init, dtype=NP_TYPES[t]))
                out = data_
                for d in sorted(dims, reverse=True):
                    out = np.apply_along_axis(lambda v: _fold(f, init, v, t), d, out)
                out_shape = [n for d, n in enumerate(data_.shape) if d not in dims]
                r = c.op(shape(t, out_shape), 'reduce(%s, %s), dimensions=%s, to_apply=%%r' % (
                    ref(x), ref(iv), dims_attr(dims)), root=True)
                c.check(r, t, np.asarray(out, dtype=NP_TYPES[t]).reshape(out_shape))
    # Seed-style: reduce a 3-D array over several dimension sets.
    cube = np.arange(1, 25, dtype=np.int32).reshape(2, 3, 4)
    for dims in ((0,), (2,), (0, 2), (1, 2), (0, 1, 2)):
        c = new('reduce', 'reduce', 'reduce_add_s32_3d_dims%s' % ''.join(map(str, dims)))
        c.comp(binary_comp('r', 's32', 'add'))
        x = c.const('s32', cube)
        iv = c.const('s32', np.array(0, np.int32))
        out = cube.sum(axis=dims).astype(np.int32)
        r = c.op(shape('s32', out.shape), 'reduce(%s, %s), dimensions=%s, to_apply=%%r' % (
            ref(x), ref(iv), dims_attr(dims)), root=True)
        c.check(r, 's32', out)
    # Init value folds in; empty reduction gives the init value.
    c = new('reduce', 'reduce', 'reduce_add_f32_nonzero_init')
    c.comp(binary_comp('r', 'f32', 'add'))
    x = c.const('f32', [1.0, 2.0, 3.0])
    iv = c.const('f32', np.array(10.0, np.float32))
    r = c.op(shape('f32', []), 'reduce(%s, %s), dimensions={0}, to_apply=%%r' % (ref(x), ref(iv)), root=True)
    c.check(r, 'f32', np.array(16.0, np.float32))
    c = new('reduce', 'reduce', 'reduce_empty_gives_init')
    c.comp(binary_comp('r', 'f32', 'maximum'))
    x = c.const('f32', np.zeros((2, 0), np.float32))
    iv = c.const('f32', np.array(-float('inf'), np.float32))
    r = c.op(shape('f32', [2]), 'reduce(%s, %s), dimensions={1}, to_apply=%%r' % (ref(x), ref(iv)), root=True)
    c.check(r, 'f32', [-float('inf'), -float('inf')])
    c = new('reduce', 'reduce', 'reduce_max_f32_nan_propagates')
    c.comp(binary_comp('r', 'f32', 'maximum'))
    x = c.const('f32', [[1.0, float('nan'), 3.0], [4.0, 5.0, 6.0]])
    iv = c.const('f32', np.array(-float('inf'), np.float32))
    r = c.op(shape('f32', [2]), 'reduce(%s, %s), dimensions={1}, to_apply=%%r' % (ref(x), ref(iv)), root=True)
    c.check(r, 'f32', [float('nan'), 6.0])
    c = new('reduce', 'reduce', 'reduce_and_pred')
    c.comp(binary_comp('r', 'pred', 'and'))
    x = c.const('pred', [[True, True], [True, False]])
    iv = c.const('pred', np.array(True))
    r = c.op(shape('pred', [2]), 'reduce(%s, %s), dimensions={1}, to_apply=%%r' % (ref(x), ref(iv)), root=True)
    c.check(r, 'pred', [True, False])
    c = new('reduce', 'reduce', 'reduce_add_s32_wraps')
    c.comp(binary_comp('r', 's32', 'add'))
    x = c.const('s32', [2147483647, 1, 5])
    iv = c.const('s32', np.array(0, np.int32))
    r = c.op(shape('s32', []), 'reduce(%s, %s), dimensions={0}, to_apply=%%r' % (ref(x), ref(iv)), root=True)
    c.check(r, 's32', np.array(-2147483643, np.int32))
    # Variadic reduce: argmax (value, index), ties to the smaller index.
    c = new('reduce', 'reduce', 'reduce_variadic_argmax')
    c.comp('%argmax (a: f32[], ai: s32[], b: f32[], bi: s32[]) -> (f32[], s32[]) {\n'
           '  %a = f32[] parameter(0)\n'
           '  %ai = s32[] parameter(1)\n'
           '  %b = f32[] parameter(2)\n'
           '  %bi = s32[] parameter(3)\n'
           '  %gt = pred[] compare(f32[] %a, f32[] %b), direction=GT\n'
           '  %eq = pred[] compare(f32[] %a, f32[] %b), direction=EQ\n'
           '  %lt_i = pred[] compare(s32[] %ai, s32[] %bi), direction=LT\n'
           '  %tie = pred[] and(pred[] %eq, pred[] %lt_i)\n'
           '  %pick_a = pred[] or(pred[] %gt, pred[] %tie)\n'
           '  %v = f32[] select(pred[] %pick_a, f32[] %a, f32[] %b)\n'
           '  %i = s32[] select(pred[] %pick_a, s32[] %ai, s32[] %bi)\n'
           '  ROOT %t = (f32[], s32[]) tuple(f32[] %v, s32[] %i)\n'
           '}')
    vals = np.array([[3.0, 7.0, 7.0, 1.0], [-1.0, -5.0, -0.5, -2.0]], np.float32)
    x = c.const('f32', vals)
    ix = c.op(shape('s32', [2, 4]), 'iota(), iota_dimension=1')
    iv = c.const('f32', np.array(-float('inf'), np.float32))
    ii = c.const('s32', np.array(0, np.int32))
    r = c.op(tuple_shape(shape('f32', [2]), shape('s32', [2])),
             'reduce(%s, %s, %s, %s), dimensions={1}, to_apply=%%argmax' % (
                 ref(x), ref(ix), ref(iv), ref(ii)), root=True)
    v = c.op(shape('f32', [2]), 'get-tuple-element(%s), index=0' % ref(r))
    i = c.op(shape('s32', [2]), 'get-tuple-element(%s), index=1' % ref(r))
    c.check(v, 'f32', [7.0, -0.5])
    c.check(i, 's32', [1, 2])

    # reduce-window
    a = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], np.float32)
    windows = [
        ('2x2_stride1', [2, 2], [1, 1], [(0, 0), (0, 0)], None, None),
        ('2x2_stride2', [2, 2], [2, 2], [(0, 0), (0, 0)], None, None),
        ('padded_same', [3, 3], [1, 1], [(1, 1), (1, 1)], None, None),
        ('1x3_stride_1x2', [1, 3], [1, 2], [(0, 0), (1, 1)], None, None),
        ('window_dilation', [2, 2], [1, 1], [(0, 0), (0, 0)], None, [2, 2]),
        ('base_dilation', [2, 2], [1, 1], [(0, 0), (0, 0)], [2, 2], None),
        ('full_window', [3, 4], [1, 1], [(0, 0), (0, 0)], None, None),
        ('asymmetric_padding', [2, 2], [2, 1], [(1, 0), (0, 2)], None, None),
    ]
    for opname, f, init in (('add', lambda x, y: x + y, 0.0), ('maximum', max, -float('inf'))):
        for name, win, strides, pad, bd, wd in windows:
            c = new('reduce', 'reduce-window', 'reduce_window_%s_%s' % (opname, name))
            c.comp(binary_comp('r', 'f32', opname))
            x = c.const('f32', a)
            iv = c.const('f32', np.array(init, np.float32))
            out = ref_reduce_window(a, np.float32(init), f, win, strides, pad, bd, wd)
            attr = 'size=%s stride=%s pad=%s' % ('x'.join(map(str, win)), 'x'.join(map(str, strides)),
                                                 'x'.join('%d_%d' % p for p in pad))
            if bd:
                attr += ' lhs_dilate=%s' % 'x'.join(map(str, bd))
            if wd:
                attr += ' rhs_dilate=%s' % 'x'.join(map(str, wd))
            r = c.op(shape('f32', out.shape), 'reduce-window(%s, %s), window={%s}, to_apply=%%r' % (
                ref(x), ref(iv), attr), root=True)
            c.check(r, 'f32', out)
    # The seed's 1-D example style: sum with size 2 stride 1 and max pooling.
    c = new('reduce', 'reduce-window', 'reduce_window_1d_s32_sum')
    c.comp(binary_comp('r', 's32', 'add'))
    v1 = np.array([10000, 1000, 100, 10, 1], np.int32)
    x = c.const('s32', v1)
    iv = c.const('s32', np.array(0, np.int32))
    out = ref_reduce_window(v1, 0, lambda p, q: p + q, [2], [1], [(0, 0)])
    r = c.op(shape('s32', out.shape), 'reduce-window(%s, %s), window={size=2 stride=1}, to_apply=%%r' % (
        ref(x), ref(iv)), root=True)
    c.check(r, 's32', out)
    c = new('reduce', 'reduce-window', 'reduce_window_1d_s32_padded')
    c.comp(binary_comp('r', 's32', 'add'))
    x = c.const('s32', v1)
    iv = c.const('s32', np.array(0, np.int32))
    out = ref_reduce_window(v1, 0, lambda p, q: p + q, [3], [2], [(2, 1)])
    r = c.op(shape('s32', out.shape),
             'reduce-window(%s, %s), window={size=3 stride=2 pad=2_1}, to_apply=%%r' % (ref(x), ref(iv)),
             root=True)
    c.check(r, 's32', out)
    # select-and-scatter: the seed's max-pool gradient example (non-overlapping
    # 2x3 windows) and an overlapping one.
    for name, operand, source, win, strides in (
            ('seed_nonoverlapping',
             np.array([[7, 2, 5, 3, 10, 2], [3, 8, 9, 3, 4, 2], [1, 5, 7, 5, 6, 1], [0, 6, 2, 7, 2, 8]],
                      np.float32),
             np.array([[2, 6], [3, 1]], np.float32), [2, 3], [2, 3]),
            ('seed_overlapping',
             np.array([[7, 2, 5, 3, 8], [3, 8, 9, 3, 4], [1, 5, 7, 5, 6], [0, 6, 2, 10, 2]], np.float32),
             np.array([[2, 6], [3, 1]], np.float32), [2, 3], [2, 2])):
        c = new('reduce', 'select-and-scatter', 'select_and_scatter_%s' % name)
        c.comp(compare_comp('ge', 'f32', 'GE'))
        c.comp(binary_comp('add', 'f32', 'add'))
        x = c.const('f32', operand)
        s = c.const('f32', source)
        iv = c.const('f32', np.array(0.0, np.float32))
        out = np.zeros_like(operand)
        for o in itertools.product(*[range(n) for n in source.shape]):
            best = None
            for w in itertools.product(*[range(n) for n in win]):
                pos = tuple(o[d] * strides[d] + w[d] for d in range(2))
                if best is None or not (operand[best] >= operand[pos]):
                    best = pos
            out[best] += source[o]
        r = c.op(shape('f32', operand.shape),
                 'select-and-scatter(%s, %s, %s), window={size=%s stride=%s}, select=%%ge, scatter=%%add' % (
                     ref(x), ref(s), ref(iv), 'x'.join(map(str, win)), 'x'.join(map(str, strides))),
                 root=True)
        c.check(r, 'f32', out)


def _fold(f, init, v, t):
    acc = init
    for x in v:
        acc = f(acc, x)
    if t in ('s32', 'u32', 's64'):
        return acc
    return acc


# ---------------------------------------------------------------------------
# Sort.
# ---------------------------------------------------------------------------

def gen_sort():
    nan = float('nan')
    for t, values in (('f32', [3.0, -1.0, 2.5, -7.0, 0.0, 10.0]), ('s32', [5, -3, 2147483647, -2147483648, 0, 5]),
                      ('u8', [200, 3, 255, 0, 17, 3]), ('f64', [1e300, -1e-300, 0.5, -2.0, 3.0, 2.0]),
                      ('s64', [2**40, -(2**40), 1, 0, -1, 7]), ('f16', [1.5, -0.5, 100.0, 0.25, -3.0, 2.0])):
        for direction, key in (('LT', lambda v: v), ('GT', lambda v: -v)):
            c = new('sort', 'sort', 'sort_%s_%s' % (t, direction.lower()))
            c.comp(compare_comp('cmp', t, direction))
            x = c.const(t, values)
            data = np.array(values, dtype=NP_TYPES[t])
            out = np.sort(data)
            if direction == 'GT':
                out = out[::-1]
            r = c.op(shape(t, [len(values)]), 'sort(%s), dimensions={0}, to_apply=%%cmp' % ref(x), root=True)
            c.check(r, t, out)
    # 2-D along each dimension.
    m = np.array([[3, 1, 2], [9, 7, 8], [0, 5, 4]], np.int32)
    for dim in (0, 1):
        c = new('sort', 'sort', 'sort_s32_2d_dim%d' % dim)
        c.comp(compare_comp('cmp', 's32', 'LT'))
        x = c.const('s32', m)
        r = c.op(shape('s32', [3, 3]), 'sort(%s), dimensions={%d}, to_apply=%%cmp' % (ref(x), dim), root=True)
        c.check(r, 's32', np.sort(m, axis=dim))
    # Keys and values, stable with equal keys.
    keys = np.array([3, 1, 3, 2, 1, 3], np.int32)
    vals = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
    order = sorted(range(len(keys)), key=lambda i: keys[i])  # Python's sort is stable
    c = new('sort', 'sort', 'sort_keys_values_stable')
    c.comp('%cmp (a: s32[], b: s32[], c: f32[], d: f32[]) -> pred[] {\n'
           '  %a = s32[] parameter(0)\n'
           '  %b = s32[] parameter(1)\n'
           '  %c = f32[] parameter(2)\n'
           '  %d = f32[] parameter(3)\n'
           '  ROOT %r = pred[] compare(s32[] %a, s32[] %b), direction=LT\n'
           '}')
    k = c.const('s32', keys)
    v = c.const('f32', vals)
    r = c.op(tuple_shape(shape('s32', [6]), shape('f32', [6])),
             'sort(%s, %s), dimensions={0}, is_stable=true, to_apply=%%cmp' % (ref(k), ref(v)), root=True)
    rk = c.op(shape('s32', [6]), 'get-tuple-element(%s), index=0' % ref(r))
    rv = c.op(shape('f32', [6]), 'get-tuple-element(%s), index=1' % ref(r))
    c.check(rk, 's32', keys[order])
    c.check(rv, 'f32', vals[order])
    # Total order sort puts NaNs last (and -NaN first) and -0 before +0.
    c = new('sort', 'sort', 'sort_f32_total_order_nan')
    c.comp(compare_comp('cmp', 'f32', 'LT', 'TOTALORDER'))
    x = c.const('f32', [nan, 1.0, -0.0, 0.0, -float('inf'), -nan, 2.0])
    r = c.op(shape('f32', [7]), 'sort(%s), dimensions={0}, to_apply=%%cmp' % ref(x), root=True)
    c.check(r, 'f32', [-nan, -float('inf'), -0.0, 0.0, 1.0, 2.0, nan])
    c = new('sort', 'sort', 'sort_empty')
    c.comp(compare_comp('cmp', 'f32', 'LT'))
    x = c.const('f32', np.zeros((0,), np.float32))
    r = c.op(shape('f32', [0]), 'sort(%s), dimensions={0}, to_apply=%%cmp' % ref(x), root=True)
    c.check(r, 'f32', np.zeros((0,), np.float32))


# ---------------------------------------------------------------------------
# Structure and control flow.
# ---------------------------------------------------------------------------

def gen_control():
    # while: sum 1..10 with a counter.
    c = new('control', 'while', 'while_sum_to_ten')
    c.comp('%cond (p: (s32[], s32[])) -> pred[] {\n'
           '  %p = (s32[], s32[]) parameter(0)\n'
           '  %i = s32[] get-tuple-element((s32[], s32[]) %p), index=0\n'
           '  %n = s32[] constant(10)\n'
           '  ROOT %lt = pred[] compare(s32[] %i, s32[] %n), direction=LT\n'
           '}')
    c.comp('%body (p: (s32[], s32[])) -> (s32[], s32[]) {\n'
           '  %p = (s32[], s32[]) parameter(0)\n'
           '  %i = s32[] get-tuple-element((s32[], s32[]) %p), index=0\n'
           '  %s = s32[] get-tuple-element((s32[], s32[]) %p), index=1\n'
           '  %one = s32[] constant(1)\n'
           '  %i1 = s32[] add(s32[] %i, s32[] %one)\n'
           '  %s1 = s32[] add(s32[] %s, s32[] %i1)\n'
           '  ROOT %t = (s32[], s32[]) tuple(s32[] %i1, s32[] %s1)\n'
           '}')
    z = c.const('s32', np.array(0, np.int32))
    init = c.op('(s32[], s32[])', 'tuple(%s, %s)' % (ref(z), ref(z)))
    w = c.op('(s32[], s32[])', 'while(%s), condition=%%cond, body=%%body' % ref(init), root=True)
    s = c.op(shape('s32', []), 'get-tuple-element(%s), index=1' % ref(w))
    i = c.op(shape('s32', []), 'get-tuple-element(%s), index=0' % ref(w))
    c.check(s, 's32', np.array(55, np.int32))
    c.check(i, 's32', np.array(10, np.int32))
    # while that never runs its body.
    c = new('control', 'while', 'while_zero_trips')
    c.comp('%cond (p: (f32[3])) -> pred[] {\n'
           '  %p = (f32[3]) parameter(0)\n'
           '  ROOT %f = pred[] constant(false)\n'
           '}')
    c.comp('%body (p: (f32[3])) -> (f32[3]) {\n'
           '  %p = (f32[3]) parameter(0)\n'
           '  %x = f32[3] get-tuple-element((f32[3]) %p), index=0\n'
           '  %y = f32[3] negate(f32[3] %x)\n'
           '  ROOT %t = (f32[3]) tuple(f32[3] %y)\n'
           '}')
    x = c.const('f32', [1.0, 2.0, 3.0])
    init = c.op('(f32[3]{0})', 'tuple(%s)' % ref(x))
    w = c.op('(f32[3]{0})', 'while(%s), condition=%%cond, body=%%body' % ref(init), root=True)
    g = c.op(shape('f32', [3]), 'get-tuple-element(%s), index=0' % ref(w))
    c.check(g, 'f32', [1.0, 2.0, 3.0])
    # while: a vector scan (running doubling) over 5 trips.
    c = new('control', 'while', 'while_vector_state')
    c.comp('%cond (p: (s32[], f32[4])) -> pred[] {\n'
           '  %p = (s32[], f32[4]) parameter(0)\n'
           '  %i = s32[] get-tuple-element((s32[], f32[4]) %p), index=0\n'
           '  %n = s32[] constant(5)\n'
           '  ROOT %lt = pred[] compare(s32[] %i, s32[] %n), direction=LT\n'
           '}')
    c.comp('%body (p: (s32[], f32[4])) -> (s32[], f32[4]) {\n'
           '  %p = (s32[], f32[4]) parameter(0)\n'
           '  %i = s32[] get-tuple-element((s32[], f32[4]) %p), index=0\n'
           '  %x = f32[4] get-tuple-element((s32[], f32[4]) %p), index=1\n'
           '  %one = s32[] constant(1)\n'
           '  %i1 = s32[] add(s32[] %i, s32[] %one)\n'
           '  %x2 = f32[4] add(f32[4] %x, f32[4] %x)\n'
           '  ROOT %t = (s32[], f32[4]) tuple(s32[] %i1, f32[4] %x2)\n'
           '}')
    z = c.const('s32', np.array(0, np.int32))
    x = c.const('f32', [1.0, -0.5, 0.0, 3.0])
    init = c.op('(s32[], f32[4]{0})', 'tuple(%s, %s)' % (ref(z), ref(x)))
    w = c.op('(s32[], f32[4]{0})', 'while(%s), condition=%%cond, body=%%body' % ref(init), root=True)
    g = c.op(shape('f32', [4]), 'get-tuple-element(%s), index=1' % ref(w))
    c.check(g, 'f32', np.array([1.0, -0.5, 0.0, 3.0], np.float32) * 32)
    # Nested while: 3 outer x 4 inner increments.
    c = new('control', 'while', 'while_nested')
    c.comp('%icond (p: (s32[], s32[])) -> pred[] {\n'
           '  %p = (s32[], s32[]) parameter(0)\n'
           '  %j = s32[] get-tuple-element((s32[], s32[]) %p), index=0\n'
           '  %n = s32[] constant(4)\n'
           '  ROOT %lt = pred[] compare(s32[] %j, s32[] %n), direction=LT\n'
           '}')
    c.comp('%ibody (p: (s32[], s32[])) -> (s32[], s32[]) {\n'
           '  %p = (s32[], s32[]) parameter(0)\n'
           '  %j = s32[] get-tuple-element((s32[], s32[]) %p), index=0\n'
           '  %a = s32[] get-tuple-element((s32[], s32[]) %p), index=1\n'
           '  %one = s32[] constant(1)\n'
           '  %j1 = s32[] add(s32[] %j, s32[] %one)\n'
           '  %a1 = s32[] add(s32[] %a, s32[] %one)\n'
           '  ROOT %t = (s32[], s32[]) tuple(s32[] %j1, s32[] %a1)\n'
           '}')
    c.comp('%ocond (p: (s32[], s32[])) -> pred[] {\n'
           '  %p = (s32[], s32[]) parameter(0)\n'
           '  %i = s32[] get-tuple-element((s32[], s32[]) %p), index=0\n'
           '  %n = s32[] constant(3)\n'
           '  ROOT %lt = pred[] compare(s32[] %i, s32[] %n), direction=LT\n'
           '}')
    c.comp('%obody (p: (s32[], s32[])) -> (s32[], s32[]) {\n'
           '  %p = (s32[], s32[]) parameter(0)\n'
           '  %i = s32[] get-tuple-element((s32[], s32[]) %p), index=0\n'
           '  %a = s32[] get-tuple-element((s32[], s32[]) %p), index=1\n'
           '  %zero = s32[] constant(0)\n'
           '  %it = (s32[], s32[]) tuple(s32[] %zero, s32[] %a)\n'
           '  %iw = (s32[], s32[]) while((s32[], s32[]) %it), condition=%icond, body=%ibody\n'
           '  %a1 = s32[] get-tuple-element((s32[], s32[]) %iw), index=1\n'
           '  %one = s32[] constant(1)\n'
           '  %i1 = s32[] add(s32[] %i, s32[] %one)\n'
           '  ROOT %t = (s32[], s32[]) tuple(s32[] %i1, s32[] %a1)\n'
           '}')
    z = c.const('s32', np.array(0, np.int32))
    init = c.op('(s32[], s32[])', 'tuple(%s, %s)' % (ref(z), ref(z)))
    w = c.op('(s32[], s32[])', 'while(%s), condition=%%ocond, body=%%obody' % ref(init), root=True)
    g = c.op(shape('s32', []), 'get-tuple-element(%s), index=1' % ref(w))
    c.check(g, 's32', np.array(12, np.int32))
    # conditional, pred form.
    for p, expected in ((True, [2.0, 4.0]), (False, [-1.0, -2.0])):
        c = new('control', 'conditional', 'conditional_pred_%s' % str(p).lower())
        c.comp('%on_true (x: f32[2]) -> f32[2] {\n'
               '  %x = f32[2] parameter(0)\n'
               '  ROOT %r = f32[2] add(f32[2] %x, f32[2] %x)\n'
               '}')
        c.comp('%on_false (y: f32[2]) -> f32[2] {\n'
               '  %y = f32[2] parameter(0)\n'
               '  ROOT %r = f32[2] negate(f32[2] %y)\n'
               '}')
        pc = c.const('pred', np.array(p))
        x = c.const('f32', [1.0, 2.0])
        r = c.op(shape('f32', [2]), 'conditional(%s, %s, %s), true_computation=%%on_true, '
                 'false_computation=%%on_false' % (ref(pc), ref(x), ref(x)), root=True)
        c.check(r, 'f32', expected)
    # conditional, index form; out-of-range indices take the last branch.
    for idx, expected in ((0, 10), (1, 20), (2, 30), (7, 30), (-1, 30)):
        c = new('control', 'conditional', 'conditional_index_%s' % (str(idx) if idx >= 0 else 'neg1'))
        for k, val in enumerate((10, 20, 30)):
            c.comp('%%b%d (x: s32[]) -> s32[] {\n'
                   '  %%x = s32[] parameter(0)\n'
                   '  %%k = s32[] constant(%d)\n'
                   '  ROOT %%r = s32[] add(s32[] %%x, s32[] %%k)\n'
                   '}' % (k, val))
        ic = c.const('s32', np.array(idx, np.int32))
        z = c.const('s32', np.array(0, np.int32))
        r = c.op(shape('s32', []), 'conditional(%s, %s, %s, %s), branch_computations={%%b0, %%b1, %%b2}' % (
            ref(ic), ref(z), ref(z), ref(z)), root=True)
        c.check(r, 's32', np.array(expected, np.int32))
    # call
    c = new('control', 'call', 'call_square_plus_one')
    c.comp('%f (x: f32[3]) -> f32[3] {\n'
           '  %x = f32[3] parameter(0)\n'
           '  %sq = f32[3] multiply(f32[3] %x, f32[3] %x)\n'
           '  %one = f32[] constant(1)\n'
           '  %ones = f32[3] broadcast(f32[] %one), dimensions={}\n'
           '  ROOT %r = f32[3] add(f32[3] %sq, f32[3] %ones)\n'
           '}')
    x = c.const('f32', [1.0, -2.0, 0.5])
    r = c.op(shape('f32', [3]), 'call(%s), to_apply=%%f' % ref(x), root=True)
    c.check(r, 'f32', [2.0, 5.0, 1.25])
    c = new('control', 'call', 'call_nested_twice')
    c.comp('%inc (x: s32[]) -> s32[] {\n'
           '  %x = s32[] parameter(0)\n'
           '  %one = s32[] constant(1)\n'
           '  ROOT %r = s32[] add(s32[] %x, s32[] %one)\n'
           '}')
    c.comp('%inc2 (x: s32[]) -> s32[] {\n'
           '  %x = s32[] parameter(0)\n'
           '  %a = s32[] call(s32[] %x), to_apply=%inc\n'
           '  ROOT %b = s32[] call(s32[] %a), to_apply=%inc\n'
           '}')
    x = c.const('s32', np.array(40, np.int32))
    r = c.op(shape('s32', []), 'call(%s), to_apply=%%inc2' % ref(x), root=True)
    c.check(r, 's32', np.array(42, np.int32))
    # tuple / get-tuple-element, nested tuples.
    c = new('control', 'tuple', 'tuple_nested_get_tuple_element')
    a = c.const('f32', [1.0, 2.0])
    b = c.const('s32', np.array(7, np.int32))
    inner = c.op('(f32[2]{0}, s32[])', 'tuple(%s, %s)' % (ref(a), ref(b)))
    outer = c.op('((f32[2]{0}, s32[]), s32[])', 'tuple(%s, %s)' % (ref(inner), ref(b)), root=True)
    g0 = c.op('(f32[2]{0}, s32[])', 'get-tuple-element(%s), index=0' % ref(outer))
    g00 = c.op(shape('f32', [2]), 'get-tuple-element(%s), index=0' % ref(g0))
    g1 = c.op(shape('s32', []), 'get-tuple-element(%s), index=1' % ref(outer))
    c.check(g00, 'f32', [1.0, 2.0])
    c.check(g1, 's32', np.array(7, np.int32))
    # fusion runs its fused computation.
    c = new('control', 'fusion', 'fusion_loop_multiply_add')
    c.comp('%fused (p0: f32[3], p1: f32[3]) -> f32[3] {\n'
           '  %p0 = f32[3] parameter(0)\n'
           '  %p1 = f32[3] parameter(1)\n'
           '  %m = f32[3] multiply(f32[3] %p0, f32[3] %p1)\n'
           '  ROOT %a = f32[3] add(f32[3] %m, f32[3] %p0)\n'
           '}')
    x = c.const('f32', [1.0, 2.0, 3.0])
    y = c.const('f32', [4.0, 5.0, 6.0])
    r = c.op(shape('f32', [3]), 'fusion(%s, %s), kind=kLoop, calls=%%fused' % (ref(x), ref(y)), root=True)
    c.check(r, 'f32', [5.0, 12.0, 21.0])
    # map
    c = new('control', 'map', 'map_scalar_computation')
    c.comp('%sq_minus (a: f32[], b: f32[]) -> f32[] {\n'
           '  %a = f32[] parameter(0)\n'
           '  %b = f32[] parameter(1)\n'
           '  %m = f32[] multiply(f32[] %a, f32[] %a)\n'
           '  ROOT %r = f32[] subtract(f32[] %m, f32[] %b)\n'
           '}')
    x = c.const('f32', [[1.0, 2.0], [3.0, 4.0]])
    y = c.const('f32', [[1.0, 1.0], [2.0, 20.0]])
    r = c.op(shape('f32', [2, 2]), 'map(%s, %s), dimensions={0,1}, to_apply=%%sq_minus' % (ref(x), ref(y)),
             root=True)
    c.check(r, 'f32', [[0.0, 3.0], [7.0, -4.0]])
    # optimization-barrier passes values through.
    c = new('control', 'opt-barrier', 'optimization_barrier_tuple')
    a = c.const('f32', [1.5, 2.5])
    b = c.const('s32', np.array(3, np.int32))
    t = c.op('(f32[2]{0}, s32[])', 'tuple(%s, %s)' % (ref(a), ref(b)))
    ob = c.op('(f32[2]{0}, s32[])', 'opt-barrier(%s)' % ref(t), root=True)
    g = c.op(shape('f32', [2]), 'get-tuple-element(%s), index=0' % ref(ob))
    c.check(g, 'f32', [1.5, 2.5])
    # after-all / add-dependency keep values.
    c = new('control', 'add-dependency', 'add_dependency_passes_value')
    tok = c.op('token[]', 'after-all()')
    x = c.const('f32', [4.0, 5.0])
    r = c.op(shape('f32', [2]), 'add-dependency(%s, %s)' % (ref(x), ref(tok)), root=True)
    c.check(r, 'f32', [4.0, 5.0])
    # Checks run even when ROOT does not depend on them (FORMAT.md).
    c = new('control', 'check', 'check_not_reachable_from_root')
    x = c.const('s32', [1, 2, 3])
    y = c.const('s32', [3, 2, 1])
    s = c.op(shape('s32', [3]), 'add(%s, %s)' % (ref(x), ref(y)))
    r = c.op(shape('s32', [3]), 'subtract(%s, %s)' % (ref(x), ref(y)), root=True)
    c.check(s, 's32', [4, 4, 4])
    c.check(r, 's32', [-2, 0, 2])
    # Each check kind passes at its boundary.
    c = new('control', 'check', 'check_expect_close_at_tolerance')
    x = c.const('f32', [1.0, 0.0, float('nan')])
    r = c.op(shape('f32', [3]), 'copy(%s)' % ref(x), root=True)
    # 1.0000002 is 2 ULPs above 1.0; 0 vs 2 ULPs above zero; NaN vs NaN.
    c.check_close(r, 'f32', np.array([1.0000002384185791, 2.802596928649634e-45, float('nan')],
                                     np.float32), 2)
    c = new('control', 'check', 'check_expect_almost_eq_at_tolerance')
    x = c.const('f64', [1.0, -2.0, float('inf')])
    r = c.op(shape('f64', [3]), 'copy(%s)' % ref(x), root=True)
    c.check_almost(r, 'f64', [1.25, -1.75, float('inf')], 0.25)
    c = new('control', 'check', 'check_expect_eq_signed_zero_and_nan')
    x = c.const('f32', [0.0, float('nan'), -float('nan')])
    r = c.op(shape('f32', [3]), 'copy(%s)' % ref(x), root=True)
    c.check(r, 'f32', [-0.0, -float('nan'), float('nan')])


# ---------------------------------------------------------------------------
# Non-default layouts and rank-0 values across families.
# ---------------------------------------------------------------------------

def gen_layouts_and_scalars():
    a = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    b = np.array([[10, 20], [30, 40]], dtype=np.float32)
    cm = [0, 1]  # column-major for rank 2
    c = new('shape', 'concatenate', 'concatenate_column_major_operands')
    x = c.const('f32', a, layout=cm)
    y = c.const('f32', b, layout=cm)
    r = c.op(shape('f32', [2, 5], cm), 'concatenate(%s, %s), dimensions={1}' % (ref(x), ref(y)), root=True)
    c.check(r, 'f32', np.concatenate([a, b], axis=1), layout=cm)
    c = new('shape', 'transpose', 'transpose_column_major_operand')
    x = c.const('f32', a, layout=cm)
    r = c.op(shape('f32', [3, 2]), 'transpose(%s), dimensions={1,0}' % ref(x), root=True)
    c.check(r, 'f32', a.T)
    c = new('shape', 'reverse', 'reverse_column_major')
    x = c.const('f32', a, layout=cm)
    r = c.op(shape('f32', [2, 3], cm), 'reverse(%s), dimensions={1}' % ref(x), root=True)
    c.check(r, 'f32', a[:, ::-1], layout=cm)
    c = new('shape', 'pad', 'pad_column_major')
    x = c.const('f32', a, layout=cm)
    pv = c.const('f32', np.array(0.5, np.float32))
    out = ref_pad(a, np.float32(0.5), [(1, 0, 0), (0, 1, 1)])
    r = c.op(shape('f32', out.shape, cm), 'pad(%s, %s), padding=1_0_0x0_1_1' % (ref(x), ref(pv)), root=True)
    c.check(r, 'f32', out, layout=cm)
    c = new('shape', 'broadcast', 'broadcast_into_column_major')
    x = c.const('f32', [1.0, 2.0, 3.0])
    r = c.op(shape('f32', [2, 3], cm), 'broadcast(%s), dimensions={1}' % ref(x), root=True)
    c.check(r, 'f32', np.broadcast_to(np.array([1.0, 2.0, 3.0], np.float32), (2, 3)), layout=cm)
    c = new('indexing', 'dynamic-update-slice', 'dynamic_update_slice_column_major')
    x = c.const('f32', a, layout=cm)
    u = c.const('f32', [[-1.0, -2.0]], layout=cm)
    i0 = c.const('s32', np.array(1, np.int32))
    i1 = c.const('s32', np.array(1, np.int32))
    out = a.copy()
    out[1, 1:3] = [-1.0, -2.0]
    r = c.op(shape('f32', [2, 3], cm), 'dynamic-update-slice(%s, %s, %s, %s)' % (
        ref(x), ref(u), ref(i0), ref(i1)), root=True)
    c.check(r, 'f32', out, layout=cm)
    c = new('indexing', 'dynamic-slice', 'dynamic_slice_column_major')
    x = c.const('f32', a, layout=cm)
    i0 = c.const('s32', np.array(0, np.int32))
    i1 = c.const('s32', np.array(1, np.int32))
    r = c.op(shape('f32', [2, 2]), 'dynamic-slice(%s, %s, %s), dynamic_slice_sizes={2,2}' % (
        ref(x), ref(i0), ref(i1)), root=True)
    c.check(r, 'f32', a[:, 1:3])
    c = new('reduce', 'reduce', 'reduce_add_column_major_operand')
    c.comp(binary_comp('r', 'f32', 'add'))
    x = c.const('f32', a, layout=cm)
    iv = c.const('f32', np.array(0.0, np.float32))
    r = c.op(shape('f32', [3]), 'reduce(%s, %s), dimensions={0}, to_apply=%%r' % (ref(x), ref(iv)), root=True)
    c.check(r, 'f32', a.sum(axis=0))
    c = new('elementwise', 'convert', 'convert_column_major_to_row_major_s32')
    x = c.const('f32', a, layout=cm)
    r = c.op(shape('s32', [2, 3]), 'convert(%s)' % ref(x), root=True)
    c.check(r, 's32', a.astype(np.int32))
    c = new('elementwise', 'select', 'select_mixed_layouts')
    p = c.const('pred', [[True, False, True], [False, True, False]], layout=cm)
    x = c.const('f32', a)
    y = c.const('f32', -a, layout=cm)
    r = c.op(shape('f32', [2, 3]), 'select(%s, %s, %s)' % (ref(p), ref(x), ref(y)), root=True)
    c.check(r, 'f32', np.where([[True, False, True], [False, True, False]], a, -a))
    c = new('sort', 'sort', 'sort_column_major_dim1')
    c.comp(compare_comp('cmp', 'f32', 'LT'))
    m = np.array([[3.0, 1.0, 2.0], [0.5, 9.0, -1.0]], np.float32)
    x = c.const('f32', m, layout=cm)
    r = c.op(shape('f32', [2, 3], cm), 'sort(%s), dimensions={1}, to_apply=%%cmp' % ref(x), root=True)
    c.check(r, 'f32', np.sort(m, axis=1), layout=cm)
    # Rank 0 through several families.
    c = new('elementwise', 'negate', 'negate_f32_rank0')
    x = c.const('f32', np.array(-0.0, np.float32))
    r = c.op(shape('f32', []), 'negate(%s)' % ref(x), root=True)
    c.check(r, 'f32', np.array(0.0, np.float32))
    c = new('elementwise', 'compare', 'compare_s32_rank0')
    x = c.const('s32', np.array(-3, np.int32))
    y = c.const('s32', np.array(2, np.int32))
    r = c.op(shape('pred', []), 'compare(%s, %s), direction=LT' % (ref(x), ref(y)), root=True)
    c.check(r, 'pred', np.array(True))
    c = new('elementwise', 'select', 'select_rank0')
    p = c.const('pred', np.array(False))
    x = c.const('f64', np.array(1.5))
    y = c.const('f64', np.array(-2.5))
    r = c.op(shape('f64', []), 'select(%s, %s, %s)' % (ref(p), ref(x), ref(y)), root=True)
    c.check(r, 'f64', np.array(-2.5))
    c = new('elementwise', 'convert', 'convert_f32_to_u8_rank0')
    x = c.const('f32', np.array(200.75, np.float32))
    r = c.op(shape('u8', []), 'convert(%s)' % ref(x), root=True)
    c.check(r, 'u8', np.array(200, np.uint8))
    c = new('shape', 'reshape', 'reshape_rank0_to_1x1')
    x = c.const('s32', np.array(42, np.int32))
    r = c.op(shape('s32', [1, 1]), 'reshape(%s)' % ref(x), root=True)
    c.check(r, 's32', [[42]])
    c = new('elementwise', 'sqrt', 'sqrt_f32_rank0')
    x = c.const('f32', np.array(6.25, np.float32))
    r = c.op(shape('f32', []), 'sqrt(%s)' % ref(x), root=True)
    c.check(r, 'f32', np.array(2.5, np.float32))
    c = new('reduce', 'reduce', 'reduce_rank0_no_dimensions')
    c.comp(binary_comp('r', 's32', 'add'))
    x = c.const('s32', np.array(5, np.int32))
    iv = c.const('s32', np.array(3, np.int32))
    r = c.op(shape('s32', []), 'reduce(%s, %s), dimensions={}, to_apply=%%r' % (ref(x), ref(iv)), root=True)
    c.check(r, 's32', np.array(8, np.int32))


def generate():
    gen_layouts_and_scalars()
    gen_shape()
    gen_indexing()
    gen_reduce()
    gen_sort()
    gen_control()
    return CASES
