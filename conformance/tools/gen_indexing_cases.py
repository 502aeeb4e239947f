#!/usr/bin/python3
"""Generates the general gather/scatter/map cases in conformance/cases/indexing/.

Covers what the basic cases of gen_structure.py leave out: batching
dimensions, index vectors in any dimension, every index type (negative and
huge indices), variadic scatter, update computations that are not a single
opcode, non-commutative combiners with repeated indices (the serial order of
the scatter positions decides the result, as in XLA's CPU backend), windows
that overlap, element widths from 1 to 16 bytes, and map.

The references below follow ../shared/seeds/ element by element: gather
clamps each start so that the slice fits; scatter applies its positions in
row-major order of the scatter dimensions and skips a window whose start is
negative or whose end would pass the operand's bound (XLA CPU's rule).
Run from the repository root:

    /usr/bin/python3 conformance/tools/gen_indexing_cases.py

It (re)writes only the files it generates (names listed in CASES).
"""

import itertools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hlo_case import Case, NP_TYPES, binary_comp, ref, shape, tuple_shape, write_cases  # noqa: E402

SOURCE = '// source: hand-computed, conformance/tools/gen_indexing_cases.py'
CASES = []


class IndexingCase(Case):
    def text(self):
        t = super().text()
        first, _, rest = t.partition('\n')
        return SOURCE + '\n' + rest


def new(family, name, note=None):
    c = IndexingCase('indexing', family, name, note)
    CASES.append(c)
    return c


def dims_attr(values):
    return '{' + ','.join(str(v) for v in values) + '}'


# ---------------------------------------------------------------------------
# References.
# ---------------------------------------------------------------------------

def index_vector(indices, ivd, batch_coord):
    if ivd == indices.ndim:
        indices = indices[..., np.newaxis]
    idx = list(batch_coord)
    idx.insert(ivd, slice(None))
    return [int(v) for v in indices[tuple(idx)]], indices.shape


def ref_gather(operand, indices, offset_dims, collapsed, start_index_map, ivd, slice_sizes,
               operand_batching=(), indices_batching=()):
    idx_shape = list(indices.shape) + ([1] if ivd == indices.ndim else [])
    batch_idx_dims = [d for d in range(len(idx_shape)) if d != ivd]
    batch_shape = [idx_shape[d] for d in batch_idx_dims]
    window_dims = [d for d in range(operand.ndim)
                   if d not in collapsed and d not in operand_batching]
    out_rank = len(batch_shape) + len(window_dims)
    out_shape = [0] * out_rank
    out_batch_dims = [d for d in range(out_rank) if d not in offset_dims]
    for k, d in enumerate(offset_dims):
        out_shape[d] = slice_sizes[window_dims[k]]
    for k, d in enumerate(out_batch_dims):
        out_shape[d] = batch_shape[k]
    out = np.zeros(out_shape, dtype=operand.dtype)
    for out_idx in itertools.product(*[range(n) for n in out_shape]):
        g = [out_idx[d] for d in out_batch_dims]
        vec, _ = index_vector(indices, ivd, g)
        start = [0] * operand.ndim
        for k, od in enumerate(start_index_map):
            start[od] = min(max(vec[k], 0), operand.shape[od] - slice_sizes[od])
        for ob, ib in zip(operand_batching, indices_batching):
            start[ob] = g[batch_idx_dims.index(ib)]
        full = list(start)
        for k, d in enumerate(offset_dims):
            full[window_dims[k]] += out_idx[d]
        out[out_idx] = operand[tuple(full)]
    return out


def ref_scatter(operands, indices, updates, update_window_dims, inserted, sdod, ivd, combine,
                input_batching=(), indices_batching=()):
    outs = [o.copy() for o in operands]
    op_shape = operands[0].shape
    upd_shape = updates[0].shape
    idx_shape = list(indices.shape) + ([1] if ivd == indices.ndim else [])
    batch_idx_dims = [d for d in range(len(idx_shape)) if d != ivd]
    scatter_dims = [d for d in range(len(upd_shape)) if d not in update_window_dims]
    window_dims = [d for d in range(len(op_shape))
                   if d not in inserted and d not in input_batching]
    wsize = [1] * len(op_shape)
    for k, d in enumerate(window_dims):
        wsize[d] = upd_shape[update_window_dims[k]]
    # Positions in row-major order of the scatter dimensions; each window in
    # row-major order of its own dimensions.
    for g in itertools.product(*[range(upd_shape[d]) for d in scatter_dims]):
        vec, _ = index_vector(indices, ivd, g)
        start = [0] * len(op_shape)
        for k, od in enumerate(sdod):
            start[od] = vec[k]
        for ob, ib in zip(input_batching, indices_batching):
            start[ob] = g[batch_idx_dims.index(ib)]
        if not all(0 <= start[d] <= op_shape[d] - wsize[d] for d in range(len(op_shape))):
            continue
        for w in itertools.product(*[range(upd_shape[d]) for d in update_window_dims]):
            u_idx = [0] * len(upd_shape)
            for k, d in enumerate(scatter_dims):
                u_idx[d] = g[k]
            for k, d in enumerate(update_window_dims):
                u_idx[d] = w[k]
            full = list(start)
            for k, d in enumerate(window_dims):
                full[d] += w[k]
            full, u_idx = tuple(full), tuple(u_idx)
            new_vals = combine([o[full] for o in outs], [u[u_idx] for u in updates])
            for o, v in zip(outs, new_vals):
                o[full] = v
    return outs


# ---------------------------------------------------------------------------
# Cases.
# ---------------------------------------------------------------------------

def gather_case(name, t, operand, it, indices, offset_dims, collapsed, sim, ivd, sizes,
                obd=(), sibd=(), extra=''):
    c = new('gather', name)
    x = c.const(t, operand)
    i = c.const(it, indices)
    out = ref_gather(np.asarray(operand, NP_TYPES[t]), np.asarray(indices, NP_TYPES[it]),
                     offset_dims, collapsed, sim, ivd, sizes, obd, sibd)
    batching = ''
    if obd:
        batching = ', operand_batching_dims=%s, start_indices_batching_dims=%s' % (
            dims_attr(obd), dims_attr(sibd))
    r = c.op(shape(t, out.shape),
             'gather(%s, %s), offset_dims=%s, collapsed_slice_dims=%s, start_index_map=%s%s, '
             'index_vector_dim=%d, slice_sizes=%s%s' % (
                 ref(x), ref(i), dims_attr(offset_dims), dims_attr(collapsed), dims_attr(sim),
                 batching, ivd, dims_attr(sizes), extra), root=True)
    c.check(r, t, out)


def gen_gather():
    op = np.arange(2 * 5 * 3, dtype=np.int32).reshape(2, 5, 3)
    # Batching dimension 0 of operand and indices; starts clamped both ways.
    gather_case('gather_batching_dims', 's32', op, 's32', [[[1], [4], [-3], [9]], [[0], [2], [3], [7]]],
                [2], [1], [1], 2, [1, 1, 3], obd=[0], sibd=[0])
    # Batching dimensions in other places: operand dim 2, indices dim 1.
    op2 = np.arange(4 * 3 * 2, dtype=np.int32).reshape(4, 3, 2) * 10
    gather_case('gather_batching_dims_minor', 's32', op2, 's32', [[0, 3], [2, 1], [5, -1]],
                [1], [0], [0], 2, [1, 2, 1], obd=[2], sibd=[1])
    # Index vector in the middle dimension of the indices.
    op3 = np.arange(6 * 7, dtype=np.float32).reshape(6, 7) / 4
    gather_case('gather_index_vector_dim_middle', 'f32', op3, 's32',
                [[[0, 5], [1, 3]], [[4, 6], [0, 2]], [[2, 1], [6, 6]]],
                [2, 3], [], [0, 1], 1, [2, 3])
    # Index types: s8 negative, u8, s16, u16, u32, s64, u64 with huge values.
    for it, idx in [('s8', [[-128], [3], [127]]), ('u8', [[255], [0], [2]]),
                    ('s16', [[-1], [5], [2]]), ('u16', [[65535], [1], [4]]),
                    ('u32', [[4294967295], [3], [0]]), ('s64', [[-(2 ** 63)], [2 ** 63 - 1], [1]]),
                    ('u64', [[2 ** 64 - 1], [2 ** 63], [2]])]:
        gather_case('gather_index_%s' % it, 's32', np.arange(6 * 4, dtype=np.int32).reshape(6, 4),
                    it, idx, [1], [0], [0], 1, [1, 4])
    # Element widths 1, 2, 8, 16 bytes and f16 values.
    base = np.arange(5 * 4).reshape(5, 4)
    for t, vals in [('pred', base % 3 == 0), ('s8', base - 9), ('f16', base / 8.0),
                    ('f64', base * 1.5), ('c64', base + 1j * base),
                    ('c128', base * 0.5 - 2j * base)]:
        gather_case('gather_elem_%s' % t, t, vals, 's32', [[3, 1], [0, 0], [4, 3], [2, 2]],
                    [1, 2], [], [0, 1], 1, [2, 2])
    # Offset dimension before the batch dimension, transposed start_index_map,
    # sorted/unique hints that do not change the result.
    op4 = np.arange(3 * 4 * 5, dtype=np.int64).reshape(3, 4, 5)
    gather_case('gather_transposed_window', 's64', op4, 's32', [[1, 2], [0, 0], [3, 4]],
                [0, 2], [1], [2, 1], 1, [2, 1, 3], extra=', indices_are_sorted=false')
    # Empty batch.
    gather_case('gather_empty_batch', 'f32', op3, 's32', np.zeros((0, 2), np.int32),
                [1, 2], [], [0, 1], 1, [2, 3])


def scatter_case(name, types, operands, it, indices, updates, uwd, iwd, sdod, ivd, comp_text,
                 comp_name, combine, ibd=(), sibd=(), extra=''):
    c = new('scatter', name)
    c.comp(comp_text)
    xs = [c.const(t, o) for t, o in zip(types, operands)]
    i = c.const(it, indices)
    us = [c.const(t, u) for t, u in zip(types, updates)]
    outs = ref_scatter([np.asarray(o, NP_TYPES[t]) for t, o in zip(types, operands)],
                       np.asarray(indices, NP_TYPES[it]),
                       [np.asarray(u, NP_TYPES[t]) for t, u in zip(types, updates)],
                       uwd, iwd, sdod, ivd, combine, ibd, sibd)
    shapes = [shape(t, o.shape) for t, o in zip(types, outs)]
    batching = ''
    if ibd:
        batching = ', input_batching_dims=%s, scatter_indices_batching_dims=%s' % (
            dims_attr(ibd), dims_attr(sibd))
    result_shape = shapes[0] if len(shapes) == 1 else tuple_shape(*shapes)
    args = ', '.join(ref(v) for v in xs + [i] + us)
    r = c.op(result_shape,
             'scatter(%s), update_window_dims=%s, inserted_window_dims=%s, '
             'scatter_dims_to_operand_dims=%s%s, index_vector_dim=%d%s, to_apply=%%%s' % (
                 args, dims_attr(uwd), dims_attr(iwd), dims_attr(sdod), batching, ivd, extra,
                 comp_name), root=True)
    if len(shapes) == 1:
        c.check(r, types[0], outs[0])
    else:
        for k, (t, o) in enumerate(zip(types, outs)):
            g = c.op(shapes[k], 'get-tuple-element(%s), index=%d' % (ref(r), k))
            c.check(g, t, o)


def gen_scatter():
    add_s32 = binary_comp('add_s32', 's32', 'add')
    # Batching dimensions (operand dim 0 with indices dim 0), repeated and
    # out-of-range indices.
    op = np.zeros((2, 4, 3), np.int32)
    upd = np.arange(2 * 3 * 3, dtype=np.int32).reshape(2, 3, 3) + 1
    scatter_case('scatter_batching_dims', ['s32'], [op], 's32', [[[1], [1], [4]], [[3], [-1], [0]]],
                 [upd], [2], [1], [1], 2, add_s32, 'add_s32', lambda a, b: [a[0] + b[0]],
                 ibd=[0], sibd=[0])
    # Batching dimension in the middle of the operand, last in the indices.
    op2 = np.arange(3 * 2 * 4, dtype=np.int32).reshape(3, 2, 4)
    upd2 = np.array([[10, 20], [30, 40], [50, 60]], np.int32)
    scatter_case('scatter_batching_dims_minor', ['s32'], [op2], 's32',
                 [[[0, 3], [1, 2]], [[2, 0], [0, 4]], [[1, 1], [2, 3]]], [upd2], [], [0, 2],
                 [0, 2], 2, add_s32, 'add_s32', lambda a, b: [a[0] + b[0]], ibd=[1], sibd=[1])
    # A non-commutative computation with repeated indices: the serial order of
    # the positions decides the result.
    affine = ('%affine (a: s32[], b: s32[]) -> s32[] {\n'
              '  %a = s32[] parameter(0)\n'
              '  %b = s32[] parameter(1)\n'
              '  %two = s32[] constant(2)\n'
              '  %m = s32[] multiply(s32[] %a, s32[] %two)\n'
              '  ROOT %r = s32[] add(s32[] %m, s32[] %b)\n'
              '}')
    scatter_case('scatter_order_affine', ['s32'], [np.array([1, 2, 3, 4], np.int32)], 's32',
                 [[2], [0], [2], [2], [0]], [np.array([5, 7, 11, 13, 17], np.int32)], [], [0], [0],
                 1, affine, 'affine', lambda a, b: [a[0] * 2 + b[0]])
    # Overlapping windows (window dimension before the scatter dimension):
    # positions apply in order, each with its whole window.
    scatter_case('scatter_order_overlapping_windows', ['s32'], [np.zeros(5, np.int32) + 1], 's32',
                 [[0], [1], [3], [2]], [np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.int32)],
                 [0], [], [0], 1, affine, 'affine', lambda a, b: [a[0] * 2 + b[0]])
    # Subtract: operand first, update second.
    sub_f32 = binary_comp('sub_f32', 'f32', 'subtract')
    scatter_case('scatter_subtract_f32', ['f32'], [np.array([[1, 2], [3, 4], [5, 6]], np.float32)],
                 's32', [[2], [0], [2]],
                 [np.array([[0.5, 0.25], [1, 2], [4, 8]], np.float32)], [1], [0], [0], 1,
                 sub_f32, 'sub_f32', lambda a, b: [a[0] - b[0]])
    # Reversed operands (update - operand) run compiled.
    rsub = ('%rsub (a: f32[], b: f32[]) -> f32[] {\n'
            '  %a = f32[] parameter(0)\n'
            '  %b = f32[] parameter(1)\n'
            '  ROOT %r = f32[] subtract(f32[] %b, f32[] %a)\n'
            '}')
    scatter_case('scatter_reversed_subtract_f32', ['f32'],
                 [np.array([[1, 2], [3, 4], [5, 6]], np.float32)], 's32', [[2], [0], [2]],
                 [np.array([[0.5, 0.25], [1, 2], [4, 8]], np.float32)], [1], [0], [0], 1,
                 rsub, 'rsub', lambda a, b: [np.float32(b[0] - a[0])])
    # Variadic: the maximum value and its position (ties keep the earlier).
    argmax = ('%argmax (v0: f32[], i0: s32[], v1: f32[], i1: s32[]) -> (f32[], s32[]) {\n'
              '  %v0 = f32[] parameter(0)\n'
              '  %i0 = s32[] parameter(1)\n'
              '  %v1 = f32[] parameter(2)\n'
              '  %i1 = s32[] parameter(3)\n'
              '  %gt = pred[] compare(f32[] %v1, f32[] %v0), direction=GT\n'
              '  %v = f32[] select(pred[] %gt, f32[] %v1, f32[] %v0)\n'
              '  %i = s32[] select(pred[] %gt, s32[] %i1, s32[] %i0)\n'
              '  ROOT %t = (f32[], s32[]) tuple(f32[] %v, s32[] %i)\n'
              '}')
    scatter_case('scatter_variadic_argmax', ['f32', 's32'],
                 [np.full(4, -np.inf, np.float32), np.full(4, -1, np.int32)], 's32',
                 [[1], [3], [1], [0], [3], [9]],
                 [np.array([2, 5, 7, 1, 5, 100], np.float32), np.arange(6, dtype=np.int32)],
                 [], [0], [0], 1, argmax, 'argmax',
                 lambda a, b: [b[0], b[1]] if b[0] > a[0] else [a[0], a[1]])
    # Variadic assign with different element widths (u8 and f64).
    assign2 = ('%assign2 (a0: u8[], a1: f64[], b0: u8[], b1: f64[]) -> (u8[], f64[]) {\n'
               '  %a0 = u8[] parameter(0)\n'
               '  %a1 = f64[] parameter(1)\n'
               '  %b0 = u8[] parameter(2)\n'
               '  %b1 = f64[] parameter(3)\n'
               '  ROOT %t = (u8[], f64[]) tuple(u8[] %b0, f64[] %b1)\n'
               '}')
    scatter_case('scatter_variadic_assign', ['u8', 'f64'],
                 [np.arange(12, dtype=np.uint8).reshape(3, 4),
                  np.arange(12, dtype=np.float64).reshape(3, 4) / 3], 's32', [[0, 1], [2, 2], [1, 3]],
                 [np.array([[200, 201], [202, 203], [204, 205]], np.uint8),
                  np.array([[0.5, 1.5], [2.5, 3.5], [4.5, 5.5]], np.float64)],
                 [1], [0], [0, 1], 1, assign2, 'assign2', lambda a, b: [b[0], b[1]])
    # Index types and out-of-bounds windows (skipped whole).
    for it, idx in [('s8', [[-1], [2], [127]]), ('u8', [[255], [1], [3]]),
                    ('u64', [[2 ** 64 - 1], [0], [2 ** 63]]), ('s64', [[-(2 ** 63)], [4], [1]]),
                    ('u16', [[3], [65535], [0]])]:
        scatter_case('scatter_index_%s' % it, ['s32'], [np.arange(10, dtype=np.int32)], it, idx,
                     [np.array([[100, 200], [300, 400], [500, 600]], np.int32)], [1], [], [0], 1,
                     add_s32, 'add_s32', lambda a, b: [a[0] + b[0]])
    # Single-op combiners on other types.
    for t, op, f in [('f16', 'add', lambda a, b: [np.float16(a[0] + b[0])]),
                     ('u16', 'multiply', lambda a, b: [np.uint16(int(a[0]) * int(b[0]) % 65536)]),
                     ('pred', 'or', lambda a, b: [a[0] or b[0]]),
                     ('s64', 'minimum', lambda a, b: [min(a[0], b[0])]),
                     ('c64', 'add', lambda a, b: [np.complex64(a[0] + b[0])])]:
        base = np.arange(6).reshape(2, 3)
        if t == 'pred':
            operand, updates = base % 4 == 0, np.array([[True, False, False], [False, False, True]])
        elif t == 'c64':
            operand, updates = base + 1j, np.array([[1 + 2j, 3, 4j], [0.5, 0.25j, 2]])
        else:
            operand, updates = base + 1, np.array([[3, 4, 5], [2, 0, 7]])
        operand = np.asarray(operand, NP_TYPES[t])
        updates = np.asarray(updates, NP_TYPES[t])
        scatter_case('scatter_%s_%s' % (op, t), [t], [operand], 's32', [[1], [1]],
                     [updates], [1], [0], [0], 1, binary_comp('%s_%s' % (op, t), t, op),
                     '%s_%s' % (op, t), f, extra=', unique_indices=false')
    # Window in transposed order (update window dims swapped against memory).
    scatter_case('scatter_window_strided', ['s32'], [np.zeros((3, 4), np.int32)], 's32',
                 [[0, 1], [1, 0]], [np.arange(2 * 2 * 3, dtype=np.int32).reshape(2, 2, 3) + 1],
                 [1, 2], [], [0, 1], 1, add_s32, 'add_s32', lambda a, b: [a[0] + b[0]])


def gen_map():
    # A computation that is not a single opcode, over three operands.
    c = new('map', 'map_fma_three_operands')
    c.comp('%fma (a: f32[], b: f32[], x: f32[]) -> f32[] {\n'
           '  %a = f32[] parameter(0)\n'
           '  %b = f32[] parameter(1)\n'
           '  %x = f32[] parameter(2)\n'
           '  %m = f32[] multiply(f32[] %a, f32[] %x)\n'
           '  ROOT %r = f32[] add(f32[] %m, f32[] %b)\n'
           '}')
    a = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    b = np.array([[0.5, 0.25, 0], [-1, -2, -3]], np.float32)
    x = np.array([[2, 4, 8], [0.5, 0.25, 0.125]], np.float32)
    ca, cb, cx = c.const('f32', a), c.const('f32', b), c.const('f32', x)
    r = c.op(shape('f32', [2, 3]), 'map(%s, %s, %s), dimensions={0,1}, to_apply=%%fma' % (
        ref(ca), ref(cb), ref(cx)), root=True)
    c.check(r, 'f32', a * x + b)
    # A single binary opcode.
    c = new('map', 'map_max_s32')
    c.comp(binary_comp('max_s32', 's32', 'maximum'))
    p = np.array([3, -7, 9, 0], np.int32)
    q = np.array([-3, 7, 2, 0], np.int32)
    cp, cq = c.const('s32', p), c.const('s32', q)
    r = c.op(shape('s32', [4]), 'map(%s, %s), dimensions={0}, to_apply=%%max_s32' % (
        ref(cp), ref(cq)), root=True)
    c.check(r, 's32', np.maximum(p, q))
    # A single unary opcode, and a computation returning another type.
    c = new('map', 'map_negate_f64')
    c.comp('%neg (a: f64[]) -> f64[] {\n'
           '  %a = f64[] parameter(0)\n'
           '  ROOT %r = f64[] negate(f64[] %a)\n'
           '}')
    v = np.array([1.5, -2, 0], np.float64)
    cv = c.const('f64', v)
    r = c.op(shape('f64', [3]), 'map(%s), dimensions={0}, to_apply=%%neg' % ref(cv), root=True)
    c.check(r, 'f64', -v)
    c = new('map', 'map_compare_to_pred')
    c.comp('%lt (a: s32[], b: s32[]) -> pred[] {\n'
           '  %a = s32[] parameter(0)\n'
           '  %b = s32[] parameter(1)\n'
           '  ROOT %r = pred[] compare(s32[] %a, s32[] %b), direction=LT\n'
           '}')
    cp, cq = c.const('s32', p), c.const('s32', q)
    r = c.op(shape('pred', [4]), 'map(%s, %s), dimensions={0}, to_apply=%%lt' % (
        ref(cp), ref(cq)), root=True)
    c.check(r, 'pred', p < q)


def main():
    gen_gather()
    gen_scatter()
    gen_map()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'cases')
    counts = write_cases(CASES, root)
    for group in sorted(counts):
        print('%-14s %4d' % (group, counts[group]))


if __name__ == '__main__':
    main()
