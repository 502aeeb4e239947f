#!/usr/bin/env python3
"""Generates conformance/cases/collectives/: multi-instance cases.

Each case runs on R replicas x P partitions. Every instance picks its input
from a constant table by its flat id (replica * P + partition) and its
expected result from a second table; the expected tables are computed here
with NumPy from XLA's definitions of the collectives and their group modes
(cross-replica, cross-partition, cross-replica-and-partition, flattened
ids), never from hlovm.

Usage: python3 conformance/tools/gen_collectives.py [OUT_DIR]
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hlo_case as H  # noqa: E402


class MultiCase(H.Case):
    def __init__(self, name, replicas, partitions):
        super().__init__('collectives', 'collectives', name)
        self.replicas = replicas
        self.partitions = partitions
        self.id_value = None

    def text(self):
        out = super().text()
        out = out.replace('// source: hand-computed, conformance/tools/gen_cases.py',
                          '// source: NumPy, conformance/tools/gen_collectives.py')
        attrs = ''
        if self.replicas > 1:
            attrs += ', replica_count=%d' % self.replicas
        if self.partitions > 1:
            attrs += ', num_partitions=%d' % self.partitions
        lines = out.split('\n')
        for i, line in enumerate(lines):
            if line.startswith('HloModule '):
                lines[i] = line + attrs
                break
        return '\n'.join(lines)

    def flat_id(self):
        if self.id_value is None:
            r = self.op('u32[]', 'replica-id()')
            p = self.op('u32[]', 'partition-id()')
            np_ = self.const('u32', np.uint32(self.partitions))
            m = self.op('u32[]', 'multiply(%s, %s)' % (H.ref(r), H.ref(np_)))
            f = self.op('u32[]', 'add(%s, %s)' % (H.ref(m), H.ref(p)))
            self.id_value = self.op('s32[]', 'convert(%s)' % H.ref(f))
        return self.id_value

    def per_instance(self, t, table):
        """This instance's row of `table` (shape [N, ...])."""
        table = np.asarray(table)
        c = self.const(t, table)
        zero = self.const('s32', np.int32(0))
        dims = list(table.shape[1:])
        idx = ', '.join([H.ref(self.flat_id())] + [H.ref(zero)] * len(dims))
        ds = self.op(H.shape(t, [1] + dims), 'dynamic-slice(%s, %s), dynamic_slice_sizes={%s}' %
                     (H.ref(c), idx, ','.join(str(d) for d in [1] + dims)))
        return self.op(H.shape(t, dims), 'reshape(%s)' % H.ref(ds))

    def check_per_instance(self, actual, t, table):
        expected = self.per_instance(t, table)
        n = self.fresh('check')
        self.checks.append('%%%s = () custom-call(%s, %s), custom_call_target="check.expect_eq", '
                           'custom_call_has_side_effect=true' % (n, H.ref(actual), H.ref(expected)))


# ----------------------------------------------------------- group semantics

def iota_groups(g, s, dims, perm):
    ids = np.arange(int(np.prod(dims))).reshape(dims).transpose(perm).reshape(g, s)
    return [list(map(int, row)) for row in ids]


def participants(mode, groups, R, P, inst):
    """XLA's participating instances (flat ids, in rank order) of `inst`."""
    r, p = divmod(inst, P)
    if mode == 'cross_replica':
        groups = groups or [list(range(R))]
        for g in groups:
            if r in g:
                return [x * P + p for x in g]
    elif mode == 'cross_partition':
        groups = groups or [list(range(P))]
        for g in groups:
            if p in g:
                return [r * P + x for x in g]
    elif mode == 'cross_replica_and_partition':
        groups = groups or [list(range(R))]
        for g in groups:
            if r in g:
                return [x * P + q for q in range(P) for x in g]
    elif mode == 'flattened':
        groups = groups or [list(range(R * P))]
        for g in groups:
            if inst in g:
                return list(g)
    return [inst]


def groups_text(groups):
    return '{' + ','.join('{' + ','.join(map(str, g)) + '}' for g in groups) + '}'


# ------------------------------------------------------------------ cases

def inputs(N, dims, t, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(-50, 50, size=[N] + list(dims)).astype(H.NP_TYPES[t])


def attrs_for(mode, groups, groups_attr=None, channel=None, global_ids=None):
    a = 'replica_groups=%s' % (groups_attr if groups_attr is not None else groups_text(groups))
    if channel is not None:
        a += ', channel_id=%d' % channel
    if global_ids is not None:
        a += ', use_global_device_ids=%s' % ('true' if global_ids else 'false')
    return a


def all_reduce(name, R, P, t, dims, op, mode, groups, groups_attr=None, channel=None,
               global_ids=None, operands=1, seed=0):
    c = MultiCase(name, R, P)
    N = R * P
    comp = {'add': np.add, 'maximum': np.maximum, 'minimum': np.minimum, 'multiply': np.multiply}
    c.comp(H.binary_comp('red', t, op))
    xs, tables = [], []
    for k in range(operands):
        table = inputs(N, dims, t, seed + k)
        if op == 'multiply':
            table = (np.abs(table) % 3 + 1).astype(table.dtype)
        xs.append(c.per_instance(t, table))
        exp = np.empty_like(table)
        for i in range(N):
            part = participants(mode, groups, R, P, i)
            acc = table[part[0]].copy()
            for j in part[1:]:
                acc = comp[op](acc, table[j])
            exp[i] = acc
        tables.append(exp)
    s = H.shape(t, dims)
    result_shape = s if operands == 1 else H.tuple_shape(*[s] * operands)
    ar = c.op(result_shape, 'all-reduce(%s), %s, to_apply=%%red' %
              (', '.join(H.ref(x) for x in xs), attrs_for(mode, groups, groups_attr, channel,
                                                          global_ids)))
    outs = [ar] if operands == 1 else [
        c.op(s, 'get-tuple-element(%s), index=%d' % (H.ref(ar), k)) for k in range(operands)]
    set_root(c, ar)
    for o, e in zip(outs, tables):
        c.check_per_instance(o, t, e)
    return c


def set_root(c, v):
    c.lines = [l if not l.startswith('%s =' % v[0]) else 'ROOT ' + l for l in c.lines]
    c.root, c.root_shape = v


def all_gather(name, R, P, t, dims, dim, mode, groups, groups_attr=None, channel=None,
               global_ids=None, seed=0, start=False):
    c = MultiCase(name, R, P)
    N = R * P
    table = inputs(N, dims, t, seed)
    x = c.per_instance(t, table)
    n = len(participants(mode, groups, R, P, 0))
    out_dims = list(dims)
    out_dims[dim] *= n
    exp = np.stack([np.concatenate([table[j] for j in participants(mode, groups, R, P, i)],
                                   axis=dim) for i in range(N)])
    a = attrs_for(mode, groups, groups_attr, channel, global_ids)
    if start:
        st = c.op(H.tuple_shape(H.shape(t, dims), H.shape(t, out_dims)),
                  'all-gather-start(%s), dimensions={%d}, %s' % (H.ref(x), dim, a))
        ag = c.op(H.shape(t, out_dims), 'all-gather-done(%s)' % H.ref(st))
    else:
        ag = c.op(H.shape(t, out_dims), 'all-gather(%s), dimensions={%d}, %s' % (H.ref(x), dim, a))
    set_root(c, ag)
    c.check_per_instance(ag, t, exp)
    return c


def reduce_scatter(name, R, P, t, dims, dim, mode, groups, groups_attr=None, channel=None,
                   global_ids=None, seed=0):
    c = MultiCase(name, R, P)
    N = R * P
    c.comp(H.binary_comp('red', t, 'add'))
    table = inputs(N, dims, t, seed)
    x = c.per_instance(t, table)
    n = len(participants(mode, groups, R, P, 0))
    out_dims = list(dims)
    out_dims[dim] //= n
    exp = []
    for i in range(N):
        part = participants(mode, groups, R, P, i)
        total = sum(table[j].astype(np.int64) for j in part).astype(table.dtype)
        rank = part.index(i)
        exp.append(np.split(total, n, axis=dim)[rank])
    rs = c.op(H.shape(t, out_dims), 'reduce-scatter(%s), dimensions={%d}, %s, to_apply=%%red' %
              (H.ref(x), dim, attrs_for(mode, groups, groups_attr, channel, global_ids)))
    set_root(c, rs)
    c.check_per_instance(rs, t, np.stack(exp))
    return c


def all_to_all(name, R, P, t, dims, dim, mode, groups, channel=None, seed=0):
    c = MultiCase(name, R, P)
    N = R * P
    table = inputs(N, dims, t, seed)
    x = c.per_instance(t, table)
    exp = []
    for i in range(N):
        part = participants(mode, groups, R, P, i)
        rank = part.index(i)
        n = len(part)
        exp.append(np.concatenate([np.split(table[j], n, axis=dim)[rank] for j in part], axis=dim))
    a = c.op(H.shape(t, dims), 'all-to-all(%s), dimensions={%d}, %s' %
             (H.ref(x), dim, attrs_for(mode, groups, channel=channel)))
    set_root(c, a)
    c.check_per_instance(a, t, np.stack(exp))
    return c


def all_to_all_tuple(name, R, t, dims, seed=0):
    c = MultiCase(name, R, 1)
    tables = [inputs(R, dims, t, seed + k) for k in range(R)]
    xs = [c.per_instance(t, tb) for tb in tables]
    s = H.shape(t, dims)
    a = c.op(H.tuple_shape(*[s] * R), 'all-to-all(%s), replica_groups={}' %
             ', '.join(H.ref(x) for x in xs))
    outs = [c.op(s, 'get-tuple-element(%s), index=%d' % (H.ref(a), k)) for k in range(R)]
    set_root(c, a)
    for k in range(R):
        # Result k of instance i is operand i of instance k.
        c.check_per_instance(outs[k], t, np.stack([tables[i][k] for i in range(R)]))
    return c


def permute(name, R, P, t, dims, pairs, cross_partition=False, seed=0, start=False):
    c = MultiCase(name, R, P)
    N = R * P
    table = inputs(N, dims, t, seed)
    x = c.per_instance(t, table)
    exp = np.zeros_like(table)
    for i in range(N):
        r, p = divmod(i, P)
        me = p if cross_partition else r
        for s_, d in pairs:
            if d == me:
                exp[i] = table[r * P + s_] if cross_partition else table[s_ * P + p]
    a = 'source_target_pairs=%s' % groups_text(pairs)
    if cross_partition:
        a = 'channel_id=1, ' + a
    s = H.shape(t, dims)
    if start:
        st = c.op(H.tuple_shape(s, s, 'u32[]', 'u32[]'),
                  'collective-permute-start(%s), %s' % (H.ref(x), a))
        v = c.op(s, 'collective-permute-done(%s)' % H.ref(st))
    else:
        v = c.op(s, 'collective-permute(%s), %s' % (H.ref(x), a))
    set_root(c, v)
    c.check_per_instance(v, t, exp)
    return c


def permute_in_place(name, R, types, in_dims, out_dims, sizes, pairs, seed=0, start=False,
                     tuple_form=False):
    """The in-place collective-permute (slice_sizes=): per array a and pair
    group k (pairs cut into len(sizes[a]) equal runs), a slice sizes[a][k] of
    the source's input at the source's input offsets is written over the
    receiver's output at the receiver's output offsets; offsets clamp into
    bounds like dynamic-slice's. Offsets differ per replica (some out of
    range) so that whose offsets are read shows."""
    c = MultiCase(name, R, 1)
    rng = np.random.default_rng(seed)
    A = len(types)
    K = len(sizes[0])
    ins, outs, in_off, out_off = [], [], [], []
    for a in range(A):
        ins.append(inputs(R, in_dims[a], types[a], seed + 1 + a))
        outs.append(inputs(R, out_dims[a], types[a], seed + 11 + a))
        # Offsets from -1 to dim: out-of-range ones clamp.
        in_off.append(rng.integers(-1, np.array(in_dims[a]) + 1, size=[R, K, len(in_dims[a])]))
        out_off.append(rng.integers(-1, np.array(out_dims[a]) + 1, size=[R, K, len(out_dims[a])]))
    exp = [o.copy() for o in outs]
    per = len(pairs) // K
    for j, (src, dst) in enumerate(pairs):
        k = j // per
        for a in range(A):
            sz = sizes[a][k]
            f = [min(max(int(v), 0), d - z) for v, d, z in zip(in_off[a][src, k], in_dims[a], sz)]
            g = [min(max(int(v), 0), d - z) for v, d, z in zip(out_off[a][dst, k], out_dims[a], sz)]
            box_in = tuple(slice(x, x + z) for x, z in zip(f, sz))
            box_out = tuple(slice(x, x + z) for x, z in zip(g, sz))
            exp[a][dst][box_out] = ins[a][src][box_in]
    xs = [c.per_instance(types[a], ins[a]) for a in range(A)]
    ys = [c.per_instance(types[a], outs[a]) for a in range(A)]

    def offsets(table):
        per_array = []
        for a in range(A):
            per_group = []
            for k in range(K):
                scalars = [c.per_instance('s32', table[a][:, k, d].astype(np.int32))
                           for d in range(table[a].shape[2])]
                per_group.append(c.op(H.tuple_shape(*['s32[]'] * len(scalars)), 'tuple(%s)' %
                                      ', '.join(H.ref(v) for v in scalars)))
            per_array.append(per_group[0] if K == 1 else c.op(
                H.tuple_shape(*[v[1] for v in per_group]),
                'tuple(%s)' % ', '.join(H.ref(v) for v in per_group)))
        if not tuple_form:
            return per_array[0]
        return c.op(H.tuple_shape(*[v[1] for v in per_array]),
                    'tuple(%s)' % ', '.join(H.ref(v) for v in per_array))

    io, oo = offsets(in_off), offsets(out_off)
    if tuple_form:
        x = c.op(H.tuple_shape(*[v[1] for v in xs]), 'tuple(%s)' % ', '.join(H.ref(v) for v in xs))
        y = c.op(H.tuple_shape(*[v[1] for v in ys]), 'tuple(%s)' % ', '.join(H.ref(v) for v in ys))
    else:
        x, y = xs[0], ys[0]
    a = 'source_target_pairs=%s, slice_sizes={%s}' % (
        groups_text(pairs),
        ','.join('{%s}' % ','.join(map(str, sizes[i][k])) for i in range(A) for k in range(K)))
    operands = ', '.join(H.ref(v) for v in (x, y, io, oo))
    if start:
        st = c.op(H.tuple_shape(x[1], y[1], 'u32[]', 'u32[]'),
                  'collective-permute-start(%s), %s' % (operands, a))
        v = c.op(y[1], 'collective-permute-done(%s)' % H.ref(st))
    else:
        v = c.op(y[1], 'collective-permute(%s), %s' % (operands, a))
    set_root(c, v)
    results = [v] if not tuple_form else [
        c.op(ys[i][1], 'get-tuple-element(%s), index=%d' % (H.ref(v), i)) for i in range(A)]
    for i in range(A):
        c.check_per_instance(results[i], types[i], exp[i])
    return c


def broadcast(name, R, P, t, dims, groups, cross_partition=False, seed=0):
    c = MultiCase(name, R, P)
    N = R * P
    table = inputs(N, dims, t, seed)
    x = c.per_instance(t, table)
    mode = 'cross_partition' if cross_partition else 'cross_replica'
    exp = np.zeros_like(table)
    for i in range(N):
        r, p = divmod(i, P)
        me = p if cross_partition else r
        g = [g for g in groups if me in g]
        if g:
            exp[i] = table[participants(mode, groups, R, P, i)[0]]
    a = 'replica_groups=%s' % groups_text(groups)
    if cross_partition:
        a = 'channel_id=1, ' + a
    v = c.op(H.shape(t, dims), 'collective-broadcast(%s), %s' % (H.ref(x), a))
    set_root(c, v)
    c.check_per_instance(v, t, exp)
    return c


def all_reduce_start(name, R, t, dims, seed=0, async_wrapper=False):
    c = MultiCase(name, R, 1)
    c.comp(H.binary_comp('red', t, 'add'))
    table = inputs(R, dims, t, seed)
    x = c.per_instance(t, table)
    s = H.shape(t, dims)
    if async_wrapper:
        c.comp('%%wrapped (p: %s) -> %s {\n  %%p = %s parameter(0)\n'
               '  ROOT %%ar = %s all-reduce(%s %%p), replica_groups={}, to_apply=%%red\n}' %
               (H.plain(t, dims), H.plain(t, dims), s, s, s))
        st = c.op(H.tuple_shape(H.tuple_shape(s), s), 'async-start(%s), calls=%%wrapped' % H.ref(x))
        v = c.op(s, 'async-done(%s)' % H.ref(st))
    else:
        st = c.op(s, 'all-reduce-start(%s), replica_groups={}, to_apply=%%red' % H.ref(x))
        v = c.op(s, 'all-reduce-done(%s)' % H.ref(st))
    set_root(c, v)
    c.check_per_instance(v, t, np.stack([table.sum(axis=0, dtype=table.dtype)] * R))
    return c


def send_recv(name, R, t, dims, pairs, seed=0):
    """send/recv on channel 1 with _xla_send_recv_source_target_pairs; an
    instance that no pair sends to receives zeros."""
    c = MultiCase(name, R, 1)
    table = inputs(R, dims, t, seed)
    x = c.per_instance(t, table)
    s = H.shape(t, dims)
    fa = 'frontend_attributes={_xla_send_recv_source_target_pairs="%s"}' % groups_text(pairs)
    tok = c.op('token[]', 'after-all()')
    rv = c.op(H.tuple_shape(s, 'u32[]', 'token[]'), 'recv(%s), channel_id=1, %s' % (H.ref(tok), fa))
    sd = c.op(H.tuple_shape(s, 'u32[]', 'token[]'),
              'send(%s, %s), channel_id=1, %s' % (H.ref(x), H.ref(tok), fa))
    rd = c.op(H.tuple_shape(s, 'token[]'), 'recv-done(%s), channel_id=1' % H.ref(rv))
    c.op('token[]', 'send-done(%s), channel_id=1' % H.ref(sd))
    v = c.op(s, 'get-tuple-element(%s), index=0' % H.ref(rd))
    set_root(c, v)
    exp = np.zeros_like(table)
    for src, dst in pairs:
        exp[dst] = table[src]
    c.check_per_instance(v, t, exp)
    return c


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', 'cases')
    cases = []
    # all-reduce (the seeds' AllReduce / CrossReplicaSum) over 1, 2, 4, 8 replicas.
    for R in (1, 2, 4, 8):
        cases.append(all_reduce('all_reduce_sum_r%d' % R, R, 1, 's32', [3, 4], 'add',
                                'cross_replica', [], groups_attr='{}', seed=R))
    cases.append(all_reduce('cross_replica_sum_f32_large_r4', 4, 1, 'f32', [64, 80], 'add',
                            'cross_replica', [], groups_attr='{}', seed=11))
    cases.append(all_reduce('all_reduce_max_groups_r4', 4, 1, 'f32', [5], 'maximum',
                            'cross_replica', [[0, 2], [1, 3]], seed=12))
    cases.append(all_reduce('all_reduce_min_iota_groups_r8', 8, 1, 's32', [6], 'minimum',
                            'cross_replica', iota_groups(2, 4, [4, 2], [1, 0]),
                            groups_attr='[2,4]<=[4,2]T(1,0)', seed=13))
    cases.append(all_reduce('all_reduce_iota_plain_r4', 4, 1, 's32', [3], 'add',
                            'cross_replica', iota_groups(2, 2, [4], [0]),
                            groups_attr='[2,2]<=[4]', seed=14))
    cases.append(all_reduce('all_reduce_variadic_r2', 2, 1, 's64', [2, 3], 'multiply',
                            'cross_replica', [[0, 1]], operands=2, seed=15))
    cases.append(all_reduce('all_reduce_cross_replica_and_partition_r2p2', 2, 2, 's32', [4], 'add',
                            'cross_replica_and_partition', [[0, 1]], channel=1, global_ids=False,
                            seed=16))
    cases.append(all_reduce('all_reduce_flattened_ids_r2p2', 2, 2, 's32', [4], 'add',
                            'flattened', [[0, 3], [1, 2]], channel=1, global_ids=True, seed=17))
    cases.append(all_reduce('all_reduce_cross_replica_p2', 2, 2, 's32', [4], 'add',
                            'cross_replica', [[0, 1]], seed=18))
    # all-gather
    for R in (1, 2, 4, 8):
        cases.append(all_gather('all_gather_dim1_r%d' % R, R, 1, 's32', [2, 3], 1,
                                'cross_replica', [], groups_attr='{}', seed=20 + R))
    cases.append(all_gather('all_gather_dim0_groups_r4', 4, 1, 'f32', [2, 2], 0,
                            'cross_replica', [[3, 1], [0, 2]], seed=30))
    cases.append(all_gather('all_gather_flattened_r2p2', 2, 2, 's32', [3], 0, 'flattened',
                            [[0, 1, 2, 3]], channel=1, global_ids=True, seed=31))
    cases.append(all_gather('all_gather_cross_replica_and_partition_r2p2', 2, 2, 's32', [2, 2], 1,
                            'cross_replica_and_partition', [[0, 1]], channel=1, global_ids=False,
                            seed=32))
    cases.append(all_gather('all_gather_start_done_r2', 2, 1, 's32', [3], 0, 'cross_replica',
                            [[0, 1]], seed=33, start=True))
    # reduce-scatter
    cases.append(reduce_scatter('reduce_scatter_dim0_r4', 4, 1, 's32', [8, 3], 0,
                                'cross_replica', [], groups_attr='{}', seed=40))
    cases.append(reduce_scatter('reduce_scatter_dim1_r8', 8, 1, 's32', [2, 16], 1,
                                'cross_replica', [], groups_attr='{}', seed=41))
    cases.append(reduce_scatter('reduce_scatter_groups_r4', 4, 1, 'f32', [4, 2], 0,
                                'cross_replica', [[0, 3], [1, 2]], seed=42))
    cases.append(reduce_scatter('reduce_scatter_cross_replica_and_partition_r2p2', 2, 2, 's32',
                                [8], 0, 'cross_replica_and_partition', [[0, 1]], channel=1,
                                global_ids=False, seed=43))
    # all-to-all
    for R in (2, 4, 8):
        cases.append(all_to_all('all_to_all_dim1_r%d' % R, R, 1, 's32', [2, 8], 1,
                                'cross_replica', [list(range(R))], seed=50 + R))
    cases.append(all_to_all('all_to_all_cross_partition_p4', 1, 4, 's32', [4, 2], 0,
                            'cross_partition', [[0, 1, 2, 3]], channel=1, seed=60))
    cases.append(all_to_all('all_to_all_groups_r4', 4, 1, 's32', [4], 0, 'cross_replica',
                            [[0, 1], [2, 3]], seed=61))
    cases.append(all_to_all_tuple('all_to_all_tuple_r2', 2, 's32', [3], seed=62))
    cases.append(all_to_all_tuple('all_to_all_tuple_r4', 4, 'f32', [2], seed=63))
    # collective-permute
    cases.append(permute('collective_permute_ring_r4', 4, 1, 's32', [3],
                         [[0, 1], [1, 2], [2, 3], [3, 0]], seed=70))
    cases.append(permute('collective_permute_partial_r4', 4, 1, 's32', [2, 2], [[0, 2], [2, 1]],
                         seed=71))
    cases.append(permute('collective_permute_ring_r8', 8, 1, 'f32', [4],
                         [[i, (i + 3) % 8] for i in range(8)], seed=72))
    cases.append(permute('collective_permute_cross_partition_r2p2', 2, 2, 's32', [3], [[0, 1]],
                         cross_partition=True, seed=73))
    cases.append(permute('collective_permute_start_done_r2', 2, 1, 's32', [3], [[0, 1], [1, 0]],
                         seed=74, start=True))
    # the in-place collective-permute (slice_sizes=), the forms of XLA's tests
    cases.append(permute_in_place('collective_permute_in_place_r4', 4, ['f32'], [[6, 3]],
                                  [[6, 8]], [[[4, 3]]], [[0, 1], [1, 2], [2, 3]], seed=75))
    cases.append(permute_in_place('collective_permute_in_place_two_groups_r4', 4, ['s32'],
                                  [[4, 2, 3]], [[4, 2, 3]], [[[1, 2, 3], [2, 1, 3]]],
                                  [[0, 1], [1, 2], [2, 3], [0, 3], [2, 1], [3, 2]], seed=76))
    cases.append(permute_in_place('collective_permute_in_place_tuple_r4', 4, ['u32', 'f32'],
                                  [[2, 5], [3, 4]], [[4, 5], [5, 4]],
                                  [[[1, 5], [1, 5]], [[2, 2], [1, 4]]],
                                  [[0, 1], [1, 2], [2, 3], [3, 0], [0, 3], [3, 2], [2, 1], [1, 0]],
                                  seed=77, tuple_form=True))
    cases.append(permute_in_place('collective_permute_in_place_start_done_r2', 2, ['s32'],
                                  [[5]], [[7]], [[[3]]], [[0, 1], [1, 0]], seed=78, start=True))
    cases.append(permute_in_place('collective_permute_in_place_r8', 8, ['f32'], [[4, 4]],
                                  [[3, 6]], [[[2, 3]]], [[i, (i + 5) % 8] for i in range(8)],
                                  seed=79))
    # collective-broadcast
    cases.append(broadcast('collective_broadcast_r4', 4, 1, 's32', [3], [[2, 0, 1, 3]], seed=80))
    cases.append(broadcast('collective_broadcast_partial_r4', 4, 1, 's32', [2], [[1, 2]],
                           seed=81))
    cases.append(broadcast('collective_broadcast_cross_partition_r2p2', 2, 2, 's32', [2],
                           [[1, 0]], cross_partition=True, seed=82))
    # asynchronous forms
    cases.append(all_reduce_start('all_reduce_start_done_r4', 4, 's32', [5], seed=90))
    cases.append(all_reduce_start('async_start_all_reduce_r2', 2, 's32', [3], seed=91,
                                  async_wrapper=True))
    # send / recv
    cases.append(send_recv('send_recv_ring_r4', 4, 's32', [2, 3],
                           [[i, (i + 1) % 4] for i in range(4)], seed=100))
    cases.append(send_recv('send_recv_one_pair_r2', 2, 'f32', [4], [[1, 0]], seed=101))
    counts = H.write_cases(cases, out)
    for g, n in sorted(counts.items()):
        print('%s: %d cases' % (g, n))


if __name__ == '__main__':
    main()
