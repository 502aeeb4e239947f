#!/usr/bin/python3
"""Edge cases of every opcode: rank 0, zero-sized dimensions, optional
attributes left out, and the forms XLA accepts that are easy to forget
(copy-start/copy-done, FFT and IFFT whose fft_length differs from the
operand's dimensions, reduce-window without window=, dynamic-update-slice of
a scalar).

Two jobs:

  /usr/bin/python3 conformance/tools/gen_edge_cases.py
      (re)writes conformance/cases/edge/*.hlo: self-checking cases whose
      expected values come from NumPy or from the semantics written out
      below, never from hlovm.

  /usr/bin/python3 conformance/tools/gen_edge_cases.py --sweep build/repl/hlovm
      writes the sweep modules (entry parameters, no expected values) to a
      temporary folder and runs `hlovm check` on each, then `hlovm run
      --random` on each that passes: every module the verifier accepts must
      run. Prints one line per module that fails either step and a summary;
      exits 1 if a checked module fails to run (except those marked
      `norun`: accepted by XLA's verifier but runnable nowhere, e.g. an
      unknown custom-call target), or if a module marked `valid` (XLA
      accepts it) fails the check. Takes a few minutes.

Run from the repository root.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hlo_case import Case, binary_comp, ref, shape, tuple_shape, write_cases  # noqa: E402

SOURCE = 'hand-computed, conformance/tools/gen_edge_cases.py'

# ---------------------------------------------------------------------------
# The sweep: modules with entry parameters, run with --random inputs.
# ---------------------------------------------------------------------------

SWEEP = []  # (name, text, valid, norun); see module()


def module(name, params, body, comps='', valid=True, header='', norun=None):
    """`params`: shapes of the entry parameters p0, p1, ...; `body`: lines,
    the last one the ROOT (written without ROOT). `valid`: XLA's verifier
    accepts the module; `norun`: why a valid module cannot run (XLA's CPU
    backend refuses it too), or None."""
    lines = ['  p%d = %s parameter(%d)' % (i, s, i) for i, s in enumerate(params)]
    body = [b for b in body if b]
    lines += ['  ' + b for b in body[:-1]]
    lines.append('  ROOT ' + body[-1])
    text = 'HloModule %s%s\n\n%s\nENTRY main {\n%s\n}\n' % (name, header, comps, '\n'.join(lines))
    SWEEP.append((name, text, valid, norun))


def scalar_comp(name, t, op):
    return ('%s {\n  a = %s[] parameter(0)\n  b = %s[] parameter(1)\n'
            '  ROOT r = %s[] %s(a, b)\n}\n' % (name, t, t, t, op))


ADD_F32 = scalar_comp('add_f32', 'f32', 'add')
MAX_F32 = scalar_comp('max_f32', 'f32', 'maximum')
GE_F32 = ('ge_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n'
          '  ROOT r = pred[] compare(a, b), direction=GE\n}\n')
LT_F32 = ('lt_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n'
          '  ROOT r = pred[] compare(a, b), direction=LT\n}\n')

UNARY_FLOAT = ['abs', 'acos', 'acosh', 'asin', 'asinh', 'atan', 'atanh', 'cbrt', 'ceil',
               'cosine', 'cosh', 'erf', 'exponential', 'exponential-minus-one', 'floor', 'log',
               'log-plus-one', 'logistic', 'negate', 'round-nearest-afz', 'round-nearest-even',
               'rsqrt', 'sign', 'sine', 'sinh', 'sqrt', 'tan', 'tanh']
UNARY_INT = ['count-leading-zeros', 'not', 'popcnt', 'abs', 'negate', 'sign']
BINARY_FLOAT = ['add', 'atan2', 'divide', 'maximum', 'minimum', 'multiply', 'power', 'remainder',
                'subtract']
BINARY_INT = ['and', 'or', 'xor', 'shift-left', 'shift-right-arithmetic', 'shift-right-logical',
              'add', 'divide', 'remainder', 'maximum', 'power']
DIMS = {'r0': [], 'z': [0, 3], 'z1': [0]}


def dims_text(d):
    return '[%s]' % ','.join(str(x) for x in d)


def gen_sweep_elementwise():
    for key, d in DIMS.items():
        f, s, c = 'f32' + dims_text(d), 's32' + dims_text(d), 'c64' + dims_text(d)
        p = 'pred' + dims_text(d)
        for op in UNARY_FLOAT:
            module('u_%s_%s' % (op, key), [f], ['r = %s %s(p0)' % (f, op)])
        for op in UNARY_INT:
            module('ui_%s_%s' % (op, key), [s], ['r = %s %s(p0)' % (s, op)])
        module('real_%s' % key, [c], ['r = %s real(p0)' % f])
        module('imag_%s' % key, [c], ['r = %s imag(p0)' % f])
        module('isfinite_%s' % key, [f], ['r = %s is-finite(p0)' % p])
        for op in BINARY_FLOAT:
            module('b_%s_%s' % (op, key), [f, f], ['r = %s %s(p0, p1)' % (f, op)])
        for op in BINARY_INT:
            module('bi_%s_%s' % (op, key), [s, s], ['r = %s %s(p0, p1)' % (s, op)])
        module('complex_%s' % key, [f, f], ['r = %s complex(p0, p1)' % c])
        module('compare_%s' % key, [f, f], ['r = %s compare(p0, p1), direction=LT' % p])
        module('compare_type_%s' % key, [f, f],
               ['r = %s compare(p0, p1), direction=LT, type=TOTALORDER' % p])
        module('select_%s' % key, [p, f, f], ['r = %s select(p0, p1, p2)' % f])
        module('clamp_%s' % key, [f, f, f], ['r = %s clamp(p0, p1, p2)' % f])
        module('clamp_scalar_bounds_%s' % key, ['f32[]', f, 'f32[]'],
               ['r = %s clamp(p0, p1, p2)' % f])
        module('convert_%s' % key, [f], ['r = %s convert(p0)' % s])
        module('bitcast_convert_%s' % key, [f], ['r = %s bitcast-convert(p0)' % ('u32' + dims_text(d))])
        module('reduce_precision_%s' % key, [f],
               ['r = %s reduce-precision(p0), exponent_bits=5, mantissa_bits=10' % f])
        module('stochastic_convert_%s' % key, [f, 'u32' + dims_text(d)],
               ['r = %s stochastic-convert(p0, p1)' % ('s16' + dims_text(d))])
        module('stochastic_convert_float_%s' % key, [f, 'u32' + dims_text(d)],
               ['r = %s stochastic-convert(p0, p1)' % ('bf16' + dims_text(d))],
               norun='stochastic rounding to a float type: no rule in the operation semantics')
        module('map_%s' % key, [f, f], ['r = %s map(p0, p1), to_apply=add_f32' % f],
               comps=ADD_F32)
        module('map_dims_%s' % key, [f, f],
               ['r = %s map(p0, p1), dimensions={%s}, to_apply=add_f32'
                % (f, ','.join(str(i) for i in range(len(d)))), ], comps=ADD_F32)
    module('bitcast_convert_widen_r0', ['u8[4]'], ['r = f32[] bitcast-convert(p0)'])
    module('bitcast_convert_narrow_r0', ['f32[]'], ['r = u8[4] bitcast-convert(p0)'])
    module('bitcast_convert_narrow_z', ['f32[0]'], ['r = u16[0,2] bitcast-convert(p0)'])
    module('mulhi_r0', ['s32[]', 's32[]'], ['r = s32[] mulhi(p0, p1)'])


def gen_sweep_shape():
    module('bitcast_r0', ['f32[]'], ['r = f32[1,1] bitcast(p0)'])
    module('bitcast_z', ['f32[0,3]'], ['r = f32[3,0] bitcast(p0)'])
    module('broadcast_r0_r0', ['f32[]'], ['r = f32[] broadcast(p0), dimensions={}'])
    module('broadcast_r0_z', ['f32[]'], ['r = f32[0,2] broadcast(p0), dimensions={}'])
    module('broadcast_z', ['f32[0]'], ['r = f32[2,0] broadcast(p0), dimensions={1}'])
    module('concat_one', ['f32[2]'], ['r = f32[2] concatenate(p0), dimensions={0}'])
    module('concat_z', ['f32[0,2]', 'f32[3,2]', 'f32[0,2]'],
           ['r = f32[3,2] concatenate(p0, p1, p2), dimensions={0}'])
    module('concat_all_z', ['f32[0]', 'f32[0]'], ['r = f32[0] concatenate(p0, p1), dimensions={0}'])
    module('copy_r0', ['f32[]'], ['r = f32[] copy(p0)'])
    module('copy_z', ['f32[0,4]'], ['r = f32[0,4] copy(p0)'])
    module('copy_tuple', ['(f32[2], s32[])'], ['r = (f32[2], s32[]) copy(p0)'])
    module('copy_start_done', ['f32[2,3]'],
           ['cs = (f32[2,3], f32[2,3], u32[]) copy-start(p0)', 'r = f32[2,3] copy-done(cs)'])
    module('copy_start_done_r0', ['s8[]'],
           ['cs = (s8[], s8[], u32[]) copy-start(p0)', 'r = s8[] copy-done(cs)'])
    module('copy_start_done_z', ['f32[0,3]'],
           ['cs = (f32[0,3], f32[0,3], u32[]) copy-start(p0)', 'r = f32[0,3] copy-done(cs)'])
    module('copy_start_prefetch', ['f32[4]'],
           ['cs = (f32[4]{0:S(1)}, f32[4]{0}, u32[]) copy-start(p0), cross_program_prefetch_index=0',
            'r = f32[4]{0:S(1)} copy-done(cs)'])
    module('copy_done_of_parameter', ['(f32[2], f32[2], u32[])'], ['r = f32[2] copy-done(p0)'])
    module('copy_start_of_tuple', ['(f32[2], s32[])'],
           ['cs = ((f32[2], s32[]), (f32[2], s32[]), u32[]) copy-start(p0)',
            'r = (f32[2], s32[]) copy-done(cs)'])
    module('copy_start_tuple_root', ['f32[3]'],
           ['r = (f32[3], f32[3], u32[]) copy-start(p0)'])
    module('dynamic_slice_r0', ['f32[]'], ['r = f32[] dynamic-slice(p0), dynamic_slice_sizes={}'])
    module('dus_r0', ['f32[]', 'f32[]'], ['r = f32[] dynamic-update-slice(p0, p1)'])
    module('dus_r0_index_vector', ['f32[]', 'f32[]'],
           ['i = s32[0] constant({})', 'a = f32[] dynamic-slice(p0, i), dynamic_slice_sizes={}',
            'r = f32[] dynamic-update-slice(a, p1, i)'])
    module('dynamic_slice_z', ['f32[0,3]', 's32[]', 's32[]'],
           ['r = f32[0,2] dynamic-slice(p0, p1, p2), dynamic_slice_sizes={0,2}'])
    module('dynamic_slice_z_size', ['f32[4,3]', 's32[]', 's32[]'],
           ['r = f32[0,2] dynamic-slice(p0, p1, p2), dynamic_slice_sizes={0,2}'])
    module('dus_z', ['f32[0,3]', 'f32[0,2]', 's32[]', 's32[]'],
           ['r = f32[0,3] dynamic-update-slice(p0, p1, p2, p3)'])
    module('dus_z_update', ['f32[4,3]', 'f32[0,2]', 's32[]', 's32[]'],
           ['r = f32[4,3] dynamic-update-slice(p0, p1, p2, p3)'])
    module('get_dimension_size', ['f32[0,3]'], ['r = s32[] get-dimension-size(p0), dimensions={0}'])
    module('set_dimension_size', ['f32[4,3]'],
           ['n = s32[] constant(2)', 'r = f32[<=4,3] set-dimension-size(p0, n), dimensions={0}'])
    module('iota_z', [], ['r = s32[0,3] iota(), iota_dimension=1'])
    module('iota_r1', [], ['r = f32[5] iota(), iota_dimension=0'])
    module('pad_r0', ['f32[]', 'f32[]'], ['r = f32[] pad(p0, p1), padding='], valid=False)
    module('pad_z', ['f32[0,2]', 'f32[]'], ['r = f32[3,2] pad(p0, p1), padding=1_2x0_0'])
    module('pad_z_interior', ['f32[0]', 'f32[]'], ['r = f32[2] pad(p0, p1), padding=1_1_5'])
    module('pad_negative_to_z', ['f32[3]', 'f32[]'], ['r = f32[0] pad(p0, p1), padding=-1_-2'])
    module('reshape_r0', ['f32[]'], ['r = f32[1,1,1] reshape(p0)'])
    module('reshape_to_r0', ['f32[1,1]'], ['r = f32[] reshape(p0)'])
    module('reshape_z', ['f32[0,3]'], ['r = f32[3,0,2] reshape(p0)'])
    module('reverse_r0', ['f32[]'], ['r = f32[] reverse(p0), dimensions={}'])
    module('reverse_z', ['f32[0,3]'], ['r = f32[0,3] reverse(p0), dimensions={0,1}'])
    module('slice_r0', ['f32[]'], ['r = f32[] slice(p0), slice={}'])
    module('slice_z', ['f32[4,3]'], ['r = f32[0,3] slice(p0), slice={[2:2], [0:3]}'])
    module('slice_z_strided', ['f32[0,3]'], ['r = f32[0,1] slice(p0), slice={[0:0:2], [1:3:2]}'])
    module('transpose_r0', ['f32[]'], ['r = f32[] transpose(p0), dimensions={}'])
    module('transpose_z', ['f32[0,3]'], ['r = f32[3,0] transpose(p0), dimensions={1,0}'])
    module('dynamic_reshape', ['f32[6]'],
           ['a = s32[] constant(2)', 'b = s32[] constant(3)',
            'r = f32[<=2,<=3] dynamic-reshape(p0, a, b)'])
    module('dynamic_reshape_z', ['f32[0,4]'],
           ['a = s32[] constant(0)', 'r = f32[<=8] dynamic-reshape(p0, a)'], valid=False)
    module('shuffle_r1', ['f32[4]'], ['r = f32[4] shuffle(p0)'],
           norun='shuffle: no semantics to implement (not in the operation semantics)')


def gen_sweep_indexing():
    module('gather_r0_operand', ['f32[3]', 's32[]'],
           ['r = f32[] gather(p0, p1), offset_dims={}, collapsed_slice_dims={0}, '
            'start_index_map={0}, index_vector_dim=0, slice_sizes={1}'])
    module('gather_z_indices', ['f32[3,2]', 's32[0,1]'],
           ['r = f32[0,2] gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, '
            'start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}'])
    module('gather_z_operand', ['f32[0,2]', 's32[2,1]'],
           ['r = f32[2,0,2] gather(p0, p1), offset_dims={1,2}, collapsed_slice_dims={}, '
            'start_index_map={0}, index_vector_dim=1, slice_sizes={0,2}'])
    module('scatter_r0', ['f32[]', 's32[0]', 'f32[]'],
           ['r = f32[] scatter(p0, p1, p2), update_window_dims={}, inserted_window_dims={}, '
            'scatter_dims_to_operand_dims={}, index_vector_dim=0, to_apply=add_f32'],
           comps=ADD_F32)
    module('scatter_z_updates', ['f32[3]', 's32[0,1]', 'f32[0]'],
           ['r = f32[3] scatter(p0, p1, p2), update_window_dims={}, inserted_window_dims={0}, '
            'scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32'],
           comps=ADD_F32)
    module('scatter_z_operand', ['f32[0,2]', 's32[2,1]', 'f32[2,0,2]'],
           ['r = f32[0,2] scatter(p0, p1, p2), update_window_dims={1,2}, inserted_window_dims={}, '
            'scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32'],
           comps=ADD_F32)


def gen_sweep_reduce():
    module('reduce_r0', ['f32[]', 'f32[]'],
           ['r = f32[] reduce(p0, p1), dimensions={}, to_apply=add_f32'], comps=ADD_F32)
    module('reduce_z_all', ['f32[0,3]', 'f32[]'],
           ['r = f32[] reduce(p0, p1), dimensions={0,1}, to_apply=add_f32'], comps=ADD_F32)
    module('reduce_z_keep', ['f32[0,3]', 'f32[]'],
           ['r = f32[3] reduce(p0, p1), dimensions={0}, to_apply=add_f32'], comps=ADD_F32)
    module('reduce_z_out', ['f32[0,3]', 'f32[]'],
           ['r = f32[0] reduce(p0, p1), dimensions={1}, to_apply=add_f32'], comps=ADD_F32)
    module('reduce_none', ['f32[2,3]', 'f32[]'],
           ['r = f32[2,3] reduce(p0, p1), dimensions={}, to_apply=add_f32'], comps=ADD_F32)
    module('reduce_window_nowindow_r0', ['f32[]', 'f32[]'],
           ['r = f32[] reduce-window(p0, p1), to_apply=add_f32'], comps=ADD_F32)
    module('reduce_window_nowindow_r1', ['f32[3]', 'f32[]'],
           ['r = f32[3] reduce-window(p0, p1), to_apply=add_f32'], comps=ADD_F32, valid=False)
    module('reduce_window_size1', ['f32[2,3]', 'f32[]'],
           ['r = f32[2,3] reduce-window(p0, p1), window={size=1x1}, to_apply=add_f32'],
           comps=ADD_F32)
    module('reduce_window_z', ['f32[0,3]', 'f32[]'],
           ['r = f32[0,2] reduce-window(p0, p1), window={size=1x2}, to_apply=add_f32'],
           comps=ADD_F32)
    module('reduce_window_z_out', ['f32[2,3]', 'f32[]'],
           ['r = f32[0,3] reduce-window(p0, p1), window={size=3x1}, to_apply=add_f32'],
           comps=ADD_F32)
    module('reduce_window_variadic_r0', ['f32[]', 'f32[]', 'f32[]', 'f32[]'],
           ['r = (f32[], f32[]) reduce-window(p0, p1, p2, p3), to_apply=add2'],
           comps='add2 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n'
                 '  c = f32[] parameter(2)\n  d = f32[] parameter(3)\n'
                 '  x = f32[] add(a, c)\n  y = f32[] maximum(b, d)\n'
                 '  ROOT r = (f32[], f32[]) tuple(x, y)\n}\n')
    module('select_and_scatter_r0', ['f32[]', 'f32[]', 'f32[]'],
           ['r = f32[] select-and-scatter(p0, p1, p2), select=ge_f32, scatter=add_f32'],
           comps=ADD_F32 + GE_F32)
    module('select_and_scatter_z', ['f32[0,4]', 'f32[0,2]', 'f32[]'],
           ['r = f32[0,4] select-and-scatter(p0, p1, p2), window={size=1x2 stride=1x2}, '
            'select=ge_f32, scatter=add_f32'], comps=ADD_F32 + GE_F32)


def gen_sweep_sort_dot():
    module('sort_z', ['f32[0]'], ['r = f32[0] sort(p0), dimensions={0}, to_apply=lt_f32'],
           comps=LT_F32)
    module('sort_z2', ['f32[3,0]'], ['r = f32[3,0] sort(p0), dimensions={0}, to_apply=lt_f32'],
           comps=LT_F32)
    module('sort_nodims', ['f32[4]'], ['r = f32[4] sort(p0), to_apply=lt_f32'], comps=LT_F32,
           valid=False)
    module('sort_stable', ['f32[4]'],
           ['r = f32[4] sort(p0), dimensions={0}, is_stable=true, to_apply=lt_f32'], comps=LT_F32)
    module('topk_k0', ['f32[5]'], ['r = (f32[0], s32[0]) topk(p0), k=0, largest=true'])
    module('topk_z', ['f32[2,0]'], ['r = (f32[2,0], s32[2,0]) topk(p0), k=0, largest=true'])
    module('topk_nolargest', ['f32[5]'], ['r = (f32[2], s32[2]) topk(p0), k=2'])
    module('dot_r0', ['f32[]', 'f32[]'], ['r = f32[] dot(p0, p1)'])
    module('dot_outer', ['f32[2]', 'f32[3]'], ['r = f32[2,3] dot(p0, p1)'])
    module('dot_z_contract', ['f32[2,0]', 'f32[0,3]'],
           ['r = f32[2,3] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}'])
    module('dot_z_out', ['f32[0,4]', 'f32[4,3]'],
           ['r = f32[0,3] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}'])
    module('dot_z_batch', ['f32[0,2,4]', 'f32[0,4,3]'],
           ['r = f32[0,2,3] dot(p0, p1), lhs_batch_dims={0}, rhs_batch_dims={0}, '
            'lhs_contracting_dims={2}, rhs_contracting_dims={1}'])
    module('conv_nowindow', ['f32[2,3]', 'f32[3,4]'],
           ['r = f32[2,4] convolution(p0, p1), dim_labels=bf_io->bf'])
    module('conv_z_batch', ['f32[0,3,5]', 'f32[2,3,4]'],
           ['r = f32[0,4,4] convolution(p0, p1), window={size=2}, dim_labels=bf0_oi0->bf0'],
           valid=False)
    module('conv_z_batch_ok', ['f32[0,5,3]', 'f32[2,3,4]'],
           ['r = f32[0,4,4] convolution(p0, p1), window={size=2}, dim_labels=b0f_0io->b0f'])
    module('conv_z_feature', ['f32[2,5,0]', 'f32[2,0,4]'],
           ['r = f32[2,4,4] convolution(p0, p1), window={size=2}, dim_labels=b0f_0io->b0f'])
    module('conv_z_spatial', ['f32[2,0,3]', 'f32[1,3,4]'],
           ['r = f32[2,0,4] convolution(p0, p1), window={size=1}, dim_labels=b0f_0io->b0f'])
    module('cholesky_z', ['f32[0,0]'], ['r = f32[0,0] cholesky(p0), lower=true'])
    module('cholesky_nolower', ['f32[2,2]'],
           ['t = f32[2,2] transpose(p0), dimensions={1,0}', 'm = f32[2,2] multiply(p0, t)',
            'r = f32[2,2] cholesky(m)'])
    module('triangular_solve_z', ['f32[0,0]', 'f32[0,3]'],
           ['r = f32[0,3] triangular-solve(p0, p1), left_side=true, lower=true, '
            'transpose_a=NO_TRANSPOSE'])
    module('triangular_solve_no_transpose_a', ['f32[3,3]', 'f32[2,3]'],
           ['r = f32[2,3] triangular-solve(p0, p1), lower=true'])
    module('triangular_solve_defaults', ['f32[3,3]', 'f32[2,3]'],
           ['r = f32[2,3] triangular-solve(p0, p1), transpose_a=NO_TRANSPOSE'])
    module('triangular_solve_z_rhs', ['f32[3,3]', 'f32[3,0]'],
           ['r = f32[3,0] triangular-solve(p0, p1), left_side=true, lower=true, '
            'transpose_a=NO_TRANSPOSE'])
    module('bn_training_z', ['f32[0,3]', 'f32[3]', 'f32[3]'],
           ['r = (f32[0,3], f32[3], f32[3]) batch-norm-training(p0, p1, p2), epsilon=0.001, '
            'feature_index=1'])
    module('bn_inference_z', ['f32[0,3]', 'f32[3]', 'f32[3]', 'f32[3]', 'f32[3]'],
           ['r = f32[0,3] batch-norm-inference(p0, p1, p2, p3, p4), epsilon=0.001, '
            'feature_index=1'])
    module('bn_inference_zf', ['f32[2,0]', 'f32[0]', 'f32[0]', 'f32[0]', 'f32[0]'],
           ['r = f32[2,0] batch-norm-inference(p0, p1, p2, p3, p4), epsilon=0.001, '
            'feature_index=1'])


def gen_sweep_fft():
    module('fft_pad', ['c64[3]'], ['r = c64[3] fft(p0), fft_type=FFT, fft_length={5}'])
    module('fft_truncate', ['c64[2,6]'], ['r = c64[2,6] fft(p0), fft_type=FFT, fft_length={4}'])
    module('ifft_mixed_2d', ['c128[3,4]'],
           ['r = c128[3,4] fft(p0), fft_type=IFFT, fft_length={5,2}'])
    module('fft_zero_length', ['c64[2,3]'], ['r = c64[2,3] fft(p0), fft_type=FFT, fft_length={0}'])
    module('fft_zero_operand', ['c64[2,0]'], ['r = c64[2,0] fft(p0), fft_type=FFT, fft_length={4}'])
    module('fft_zero_both', ['c64[0]'], ['r = c64[0] fft(p0), fft_type=FFT, fft_length={0}'])
    module('rfft_zero', ['f32[2,0]'], ['r = c64[2,0] fft(p0), fft_type=RFFT, fft_length={0}'])
    module('irfft_zero', ['c64[2,0]'], ['r = f32[2,0] fft(p0), fft_type=IRFFT, fft_length={0}'])
    module('irfft_zero_from_one', ['c64[2,1]'],
           ['r = f32[2,0] fft(p0), fft_type=IRFFT, fft_length={0}'])
    module('rfft_zero_lead', ['f32[0,4]'],
           ['r = c64[0,3] fft(p0), fft_type=RFFT, fft_length={0,4}'])
    module('irfft_zero_lead', ['c64[0,3]'],
           ['r = f32[0,4] fft(p0), fft_type=IRFFT, fft_length={0,4}'])
    # XLA's shape inference accepts a negative length for FFT; its evaluator
    # refuses it, and so does the check here.
    module('fft_negative_length', ['c64[3]'], ['r = c64[3] fft(p0), fft_type=FFT, fft_length={-2}'],
           valid=False)
    module('rfft_mismatch', ['f32[6]'], ['r = c64[3] fft(p0), fft_type=RFFT, fft_length={4}'],
           valid=False)


def gen_sweep_rng_control():
    module('rng_r0', ['f32[]', 'f32[]'], ['r = f32[] rng(p0, p1), distribution=rng_uniform'])
    module('rng_z', ['f32[]', 'f32[]'], ['r = f32[0,2] rng(p0, p1), distribution=rng_normal'])
    module('rng_bit_generator_r0', ['u64[2]'],
           ['r = (u64[2], u32[]) rng-bit-generator(p0), algorithm=rng_default'])
    module('rng_bit_generator_z', ['u64[2]'],
           ['r = (u64[2], u32[0,3]) rng-bit-generator(p0), algorithm=rng_three_fry'])
    module('rng_bit_generator_noalg', ['u64[2]'],
           ['r = (u64[2], u32[4]) rng-bit-generator(p0)'], valid=False)
    module('rng_get_and_update_state', [],
           ['r = u64[2] rng-get-and-update-state(), delta=1'])
    module('after_all_empty', [], ['r = token[] after-all()'])
    module('add_dependency', ['f32[]'],
           ['t = token[] after-all()', 'r = f32[] add-dependency(p0, t)'])
    module('tuple_empty', [], ['r = () tuple()'])
    module('tuple_nested_z', ['f32[0]'], ['e = () tuple()', 'r = ((), f32[0]) tuple(e, p0)'])
    module('gte_nested', ['((f32[], s32[0]), f32[2])'],
           ['a = (f32[], s32[0]) get-tuple-element(p0), index=0',
            'r = s32[0] get-tuple-element(a), index=1'])
    module('opt_barrier_r0', ['f32[]'], ['r = f32[] opt-barrier(p0)'])
    module('opt_barrier_tuple', ['f32[]', 's32[0]'],
           ['t = (f32[], s32[0]) tuple(p0, p1)', 'r = (f32[], s32[0]) opt-barrier(t)'])
    module('partition_id', [], ['r = u32[] partition-id()'])
    module('replica_id', [], ['r = u32[] replica-id()'])
    module('call_r0', ['f32[]', 'f32[]'], ['r = f32[] call(p0, p1), to_apply=add_f32'],
           comps=ADD_F32)
    module('call_noargs', [], ['r = f32[] call(), to_apply=one'],
           comps='one {\n  ROOT c = f32[] constant(1)\n}\n')
    module('conditional_pred_r0', ['pred[]', 'f32[]', 'f32[]'],
           ['r = f32[] conditional(p0, p1, p2), true_computation=neg, false_computation=id'],
           comps='neg {\n  x = f32[] parameter(0)\n  ROOT r = f32[] negate(x)\n}\n'
                 'id {\n  x = f32[] parameter(0)\n  ROOT r = f32[] copy(x)\n}\n')
    module('conditional_index_oob', ['s32[]', 'f32[0]'],
           ['r = f32[0] conditional(p0, p1), branch_computations={b0}'],
           comps='b0 {\n  x = f32[0] parameter(0)\n  ROOT r = f32[0] copy(x)\n}\n')
    module('while_r0', ['s32[]'],
           ['r = s32[] while(p0), condition=cond, body=body'],
           comps='cond {\n  x = s32[] parameter(0)\n  c = s32[] constant(3)\n'
                 '  ROOT r = pred[] compare(x, c), direction=LT\n}\n'
                 'body {\n  x = s32[] parameter(0)\n  c = s32[] constant(1)\n'
                 '  ROOT r = s32[] add(x, c)\n}\n')
    module('while_empty_tuple', [],
           ['t = () tuple()', 'r = () while(t), condition=cond, body=body'],
           comps='cond {\n  x = () parameter(0)\n  ROOT r = pred[] constant(false)\n}\n'
                 'body {\n  x = () parameter(0)\n  ROOT r = () tuple()\n}\n')
    module('custom_call_noop', ['f32[]'],
           ['r = f32[] custom-call(p0), custom_call_target="no.such.target"'],
           norun='an unknown custom-call target cannot run')
    module('domain_r0', ['f32[]'],
           ['r = f32[] domain(p0), domain={kind="sharding", entry={maximal device=0}, '
            'exit={maximal device=0}}'])
    module('async_call', ['f32[]', 'f32[]'],
           ['s = ((f32[], f32[]), f32[], u32[]) call-start(p0, p1), to_apply=add_f32',
            'r = f32[] call-done(s)'], comps=ADD_F32)
    module('async_start_done', ['f32[2]'],
           ['s = ((f32[2]), f32[2], s32[]) async-start(p0), calls=wrapped',
            'r = f32[2] async-done(s)'],
           comps='wrapped {\n  x = f32[2] parameter(0)\n  ROOT r = f32[2] negate(x)\n}\n')
    module('all_reduce_r0', ['f32[]'],
           ['r = f32[] all-reduce(p0), replica_groups={}, to_apply=add_f32'], comps=ADD_F32)
    module('all_reduce_z', ['f32[0,2]'],
           ['r = f32[0,2] all-reduce(p0), replica_groups={}, to_apply=add_f32'], comps=ADD_F32)
    module('all_reduce_nogroups', ['f32[2]'],
           ['r = f32[2] all-reduce(p0), to_apply=add_f32'], comps=ADD_F32)
    module('all_reduce_start_done_r0', ['f32[]'],
           ['s = f32[] all-reduce-start(p0), replica_groups={}, to_apply=add_f32',
            'r = f32[] all-reduce-done(s)'], comps=ADD_F32)
    module('all_gather_z', ['f32[0,2]'],
           ['r = f32[0,2] all-gather(p0), replica_groups={}, dimensions={0}'])
    module('all_gather_start_done', ['f32[2]'],
           ['s = (f32[2], f32[2]) all-gather-start(p0), replica_groups={}, dimensions={0}',
            'r = f32[2] all-gather-done(s)'])
    module('all_to_all_r1', ['f32[2]'],
           ['r = f32[2] all-to-all(p0), replica_groups={}, dimensions={0}'])
    module('all_to_all_tuple_r0', ['f32[]', 'f32[]'],
           ['r = (f32[], f32[]) all-to-all(p0, p1), replica_groups={{0}}'], valid=False)
    module('all_to_all_tuple_one', ['f32[]'],
           ['r = (f32[]) all-to-all(p0), replica_groups={{0}}'])
    module('reduce_scatter_z', ['f32[0]'],
           ['r = f32[0] reduce-scatter(p0), replica_groups={}, dimensions={0}, to_apply=add_f32'],
           comps=ADD_F32)
    module('collective_permute_r0', ['f32[]'],
           ['r = f32[] collective-permute(p0), source_target_pairs={}'])
    module('collective_permute_self', ['f32[0]'],
           ['r = f32[0] collective-permute(p0), source_target_pairs={{0,0}}'])
    module('collective_permute_start_done', ['f32[]'],
           ['s = (f32[], f32[], u32[], u32[]) collective-permute-start(p0), '
            'source_target_pairs={{0,0}}', 'r = f32[] collective-permute-done(s)'])
    module('collective_reduce', ['f32[3]'],
           ['r = f32[3] collective-reduce(p0), replica_groups={}, to_apply=add_f32'],
           comps=ADD_F32,
           norun='collective-reduce: no semantics to implement (not in the operation semantics)')
    module('collective_broadcast_r0', ['f32[]'],
           ['r = f32[] collective-broadcast(p0), replica_groups={{0}}'])



def gen_sweep_more():
    # Constants and literals of rank 0 and with zero-sized dimensions.
    module('constant_z1', [], ['r = f32[0] constant({})'])
    module('constant_z2', [], ['r = f32[2,0] constant({ {}, {} })'])
    module('constant_z0_2', [], ['r = f32[0,3] constant({})'])
    module('constant_r0_pred', [], ['r = pred[] constant(true)'])
    module('constant_tuple_z', [], ['r = (f32[0], s32[]) constant(({}, 3))'])
    for src, dst in (('pred', 'f32'), ('f32', 'pred'), ('s8', 'f16'), ('f64', 'u64'),
                     ('f32', 'c64'), ('bf16', 's4'), ('u4', 'f8e4m3fn')):
        for key, d in (('r0', []), ('z', [0, 2])):
            module('convert_%s_%s_%s' % (src, dst, key), [src + dims_text(d)],
                   ['r = %s convert(p0)' % (dst + dims_text(d))])
    module('reduce_precision_f16_r0', ['f16[]'],
           ['r = f16[] reduce-precision(p0), exponent_bits=2, mantissa_bits=1'])
    module('select_scalar_pred', ['pred[]', 'f32[3]', 'f32[3]'], ['r = f32[3] select(p0, p1, p2)'])
    module('variadic_reduce_r0', ['f32[]', 's32[]', 'f32[]', 's32[]'],
           ['r = (f32[], s32[]) reduce(p0, p1, p2, p3), dimensions={}, to_apply=argmax'],
           comps='argmax {\n  a = f32[] parameter(0)\n  b = s32[] parameter(1)\n'
                 '  c = f32[] parameter(2)\n  d = s32[] parameter(3)\n'
                 '  m = f32[] maximum(a, c)\n  i = s32[] minimum(b, d)\n'
                 '  ROOT r = (f32[], s32[]) tuple(m, i)\n}\n')
    module('variadic_reduce_z', ['f32[0,2]', 's32[0,2]', 'f32[]', 's32[]'],
           ['r = (f32[2], s32[2]) reduce(p0, p1, p2, p3), dimensions={0}, to_apply=argmax'],
           comps='argmax {\n  a = f32[] parameter(0)\n  b = s32[] parameter(1)\n'
                 '  c = f32[] parameter(2)\n  d = s32[] parameter(3)\n'
                 '  m = f32[] maximum(a, c)\n  i = s32[] minimum(b, d)\n'
                 '  ROOT r = (f32[], s32[]) tuple(m, i)\n}\n')
    module('sort_two_z', ['f32[0,3]', 's32[0,3]'],
           ['r = (f32[0,3], s32[0,3]) sort(p0, p1), dimensions={1}, to_apply=lt2'],
           comps='lt2 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n'
                 '  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n'
                 '  ROOT r = pred[] compare(a, b), direction=LT\n}\n')
    module('gather_sorted', ['f32[4,2]', 's32[3,1]'],
           ['r = f32[3,2] gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, '
            'start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}, indices_are_sorted=true'])
    module('gather_implicit_index_dim', ['f32[4,2]', 's32[3]'],
           ['r = f32[3,2] gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, '
            'start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}'])
    module('scatter_unique', ['f32[4]', 's32[2,1]', 'f32[2]'],
           ['r = f32[4] scatter(p0, p1, p2), update_window_dims={}, inserted_window_dims={0}, '
            'scatter_dims_to_operand_dims={0}, index_vector_dim=1, unique_indices=true, '
            'indices_are_sorted=true, to_apply=add_f32'], comps=ADD_F32)
    module('scatter_implicit_index_dim', ['f32[4]', 's32[2]', 'f32[2]'],
           ['r = f32[4] scatter(p0, p1, p2), update_window_dims={}, inserted_window_dims={0}, '
            'scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32'],
           comps=ADD_F32)
    module('iota_r1_z', [], ['r = u8[0] iota(), iota_dimension=0'])
    module('broadcast_z_both', ['f32[0,2]'], ['r = f32[0,3,2] broadcast(p0), dimensions={0,2}'])
    module('all_reduce_tuple_r0_z', ['f32[]', 'f32[0]'],
           ['r = (f32[], f32[0]) all-reduce(p0, p1), replica_groups={}, to_apply=add_f32'],
           comps=ADD_F32)
    module('all_gather_r1_nogroups', ['f32[2]'], ['r = f32[2] all-gather(p0), dimensions={0}'])
    module('infeed_r0', [], ['t = token[] after-all()', 'r = (f32[], token[]) infeed(t)'],
           norun='infeed needs data from the host')
    module('outfeed_r0', ['f32[]'], ['t = token[] after-all()',
                                     'r = token[] outfeed(p0, t), outfeed_shape=f32[]'])
    module('outfeed_z', ['f32[0]'], ['t = token[] after-all()', 'r = token[] outfeed(p0, t)'])
    module('send_recv_r0', ['f32[]'],
           ['t = token[] after-all()',
            's = (f32[], u32[], token[]) send(p0, t), channel_id=1',
            'rv = (f32[], u32[], token[]) recv(t), channel_id=1',
            'sd = token[] send-done(s), channel_id=1',
            'rd = (f32[], token[]) recv-done(rv), channel_id=1',
            'r = f32[] get-tuple-element(rd), index=0'],
           norun='a device send/recv needs the source_target_pairs frontend attribute')
    module('conv_groups_omitted', ['f32[1,4,4]', 'f32[3,4,2]'],
           ['r = f32[1,2,2] convolution(p0, p1), window={size=3}, dim_labels=bf0_io0->bf0'],
           valid=False)
    module('conv_feature_groups', ['f32[1,4,5]', 'f32[2,4,3]'],
           ['r = f32[1,4,3] convolution(p0, p1), window={size=3}, dim_labels=bf0_io0->bf0, '
            'feature_group_count=2'])
    module('conv_batch_groups_z', ['f32[2,0,5]', 'f32[3,0,4]'],
           ['r = f32[1,4,3] convolution(p0, p1), window={size=3}, dim_labels=bf0_io0->bf0, '
            'batch_group_count=2'], valid=False)
    module('dot_precision', ['f32[2,3]', 'f32[3]'],
           ['r = f32[2] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, '
            'operand_precision={highest,default}'])
    module('dot_preferred_type', ['s8[2,3]', 's8[3]'],
           ['r = s32[2] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}'])
    module('map_r0_unary', ['f32[]'], ['r = f32[] map(p0), dimensions={}, to_apply=neg'],
           comps='neg {\n  x = f32[] parameter(0)\n  ROOT r = f32[] negate(x)\n}\n')
    module('map_z_noargs_comp', ['f32[0,2]'], ['r = f32[0,2] map(p0), to_apply=neg'],
           comps='neg {\n  x = f32[] parameter(0)\n  ROOT r = f32[] negate(x)\n}\n')
    module('rng_uniform_s32_r0', ['s32[]', 's32[]'],
           ['r = s32[] rng(p0, p1), distribution=rng_uniform'])
    module('rng_bit_generator_u64_r0', ['u64[2]'],
           ['r = (u64[2], u64[]) rng-bit-generator(p0), algorithm=rng_philox'])
    module('async_update', ['f32[2]'],
           ['s = ((f32[2]), f32[2], s32[]) async-start(p0), calls=wrapped',
            'u = ((f32[2]), f32[2], s32[]) async-update(s)',
            'r = f32[2] async-done(u)'],
           comps='wrapped {\n  x = f32[2] parameter(0)\n  ROOT r = f32[2] negate(x)\n}\n')
    module('fusion_r0', ['f32[]', 'f32[]'],
           ['r = f32[] fusion(p0, p1), kind=kLoop, calls=fused'],
           comps='fused {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n'
                 '  ROOT r = f32[] multiply(a, b)\n}\n')
    module('while_z_state', ['f32[0]', 's32[]'],
           ['t = (f32[0], s32[]) tuple(p0, p1)',
            'r = (f32[0], s32[]) while(t), condition=cond, body=body'],
           comps='cond {\n  x = (f32[0], s32[]) parameter(0)\n  i = s32[] get-tuple-element(x), index=1\n'
                 '  c = s32[] constant(2)\n  ROOT r = pred[] compare(i, c), direction=LT\n}\n'
                 'body {\n  x = (f32[0], s32[]) parameter(0)\n  a = f32[0] get-tuple-element(x), index=0\n'
                 '  i = s32[] get-tuple-element(x), index=1\n  c = s32[] constant(1)\n'
                 '  j = s32[] add(i, c)\n  ROOT r = (f32[0], s32[]) tuple(a, j)\n}\n')
    module('cholesky_batch_z', ['f32[0,3,3]'], ['r = f32[0,3,3] cholesky(p0), lower=true'])
    module('bn_grad_z', ['f32[0,3]', 'f32[3]', 'f32[3]', 'f32[3]', 'f32[0,3]'],
           ['r = (f32[0,3], f32[3], f32[3]) batch-norm-grad(p0, p1, p2, p3, p4), epsilon=0.001, '
            'feature_index=1'])
    module('bn_training_r1', ['f32[3]', 'f32[3]', 'f32[3]'],
           ['r = (f32[3], f32[3], f32[3]) batch-norm-training(p0, p1, p2), epsilon=0.001, '
            'feature_index=0'])


ALL_TYPES = ['pred', 's2', 's4', 's8', 's16', 's32', 's64', 'u2', 'u4', 'u8', 'u16', 'u32', 'u64',
             'f16', 'bf16', 'f32', 'f64', 'c64', 'c128', 'f8e5m2', 'f8e4m3', 'f8e4m3fn',
             'f8e4m3fnuz', 'f8e4m3b11fnuz', 'f8e5m2fnuz', 'f8e3m4', 'f8e8m0fnu', 'f6e2m3fn',
             'f6e3m2fn', 'f4e2m1fn']


def gen_sweep_types():
    """Data movement and the common arithmetic on every element type, at rank
    0 and with a zero-sized dimension."""
    for t in ALL_TYPES:
        arith = t != 'pred' and t != 'f8e8m0fnu'
        for key, d in (('r0', []), ('z', [0, 2]), ('r1', [3])):
            sh = t + dims_text(d)
            n = '%s_%s' % (t, key)
            module('t_copy_' + n, [sh], ['r = %s copy(p0)' % sh])
            # XLA refuses complex to real conversions.
            module('t_convert_f32_' + n, [sh], ['r = %s convert(p0)' % ('f32' + dims_text(d))],
                   valid=t[0] != 'c')
            module('t_convert_from_f32_' + n, ['f32' + dims_text(d)], ['r = %s convert(p0)' % sh])
            module('t_compare_' + n, [sh, sh],
                   ['r = %s compare(p0, p1), direction=%s' % ('pred' + dims_text(d),
                                                               'EQ' if t[0] == 'c' else 'GE')])
            module('t_select_' + n, ['pred' + dims_text(d), sh, sh],
                   ['r = %s select(p0, p1, p2)' % sh])
            module('t_reshape_' + n, [sh], ['r = %s reshape(p0)' % (t + dims_text(d + [1]))])
            module('t_broadcast_' + n, [sh],
                   ['r = %s broadcast(p0), dimensions={%s}'
                    % (t + dims_text([2] + d), ','.join(str(i + 1) for i in range(len(d))))])
            module('t_reverse_' + n, [sh],
                   ['r = %s reverse(p0), dimensions={%s}' % (sh, ','.join(map(str, range(len(d)))))])
            module('t_tuple_' + n, [sh], ['t = (%s, %s) tuple(p0, p0)' % (sh, sh),
                                          'r = %s get-tuple-element(t), index=1' % sh])
            module('t_dus_' + n, [sh, sh] + ['s32[]'] * len(d),
                   ['r = %s dynamic-update-slice(%s)'
                    % (sh, ', '.join(['p0', 'p1'] + ['p%d' % (i + 2) for i in range(len(d))]))])
            if d:
                module('t_concat_' + n, [sh, sh],
                       ['r = %s concatenate(p0, p1), dimensions={0}'
                        % (t + dims_text([2 * d[0]] + d[1:]))])
                module('t_pad_' + n, [sh, t + '[]'],
                       ['r = %s pad(p0, p1), padding=%s'
                        % (t + dims_text([x + 2 for x in d]), 'x'.join(['1_1'] * len(d)))])
                module('t_transpose_' + n, [sh],
                       ['r = %s transpose(p0), dimensions={%s}'
                        % (t + dims_text(d[::-1]), ','.join(map(str, range(len(d) - 1, -1, -1))))])
                module('t_slice_' + n, [sh],
                       ['r = %s slice(p0), slice={%s}'
                        % (t + dims_text([0] + d[1:]),
                           ', '.join(['[0:0]'] + ['[0:%d]' % x for x in d[1:]]))])
            if arith:
                module('t_add_' + n, [sh, sh], ['r = %s add(p0, p1)' % sh])
                module('t_multiply_' + n, [sh, sh], ['r = %s multiply(p0, p1)' % sh])
                comp = scalar_comp('add_' + t.replace('_', ''), t, 'add')
                module('t_reduce_' + n, [sh, t + '[]'],
                       ['r = %s[] reduce(p0, p1), dimensions={%s}, to_apply=add_%s'
                        % (t, ','.join(map(str, range(len(d)))), t.replace('_', ''))],
                       comps=comp)
                if t[0] != 'c':
                    module('t_maximum_' + n, [sh, sh], ['r = %s maximum(p0, p1)' % sh])
                    module('t_sort_' + n, [t + dims_text(d or [1])],
                           ['r = %s sort(p0), dimensions={0}, to_apply=lt' % (t + dims_text(d or [1]))],
                           comps='lt {\n  a = %s[] parameter(0)\n  b = %s[] parameter(1)\n'
                                 '  ROOT r = pred[] compare(a, b), direction=LT\n}\n' % (t, t))


SCAN_BODY = ('body {\n  x = s32[] parameter(0)\n  c = s32[] parameter(1)\n'
             '  s = s32[] add(x, c)\n  ROOT r = (s32[], s32[]) tuple(s, s)\n}\n')


def gen_sweep_dot_family():
    module('ragged_dot_z_groups', ['f32[0,3]', 'f32[2,3,4]', 's32[2]'],
           ['r = f32[0,4] ragged-dot(p0, p1, p2), lhs_contracting_dims={1}, '
            'rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}'])
    module('ragged_dot_zero_groups_count', ['f32[4,3]', 'f32[0,3,2]', 's32[0]'],
           ['r = f32[4,2] ragged-dot(p0, p1, p2), lhs_contracting_dims={1}, '
            'rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}'])
    module('ragged_dot_z_contract', ['f32[4,0]', 'f32[2,0,2]'],
           ['g = s32[2] constant({1, 3})',
            'r = f32[4,2] ragged-dot(p0, p1, g), lhs_contracting_dims={1}, '
            'rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}'])
    module('scaled_dot_z', ['f32[0,32]', 'f32[32,3]', 'f32[0,1]', 'f32[1,3]'],
           ['r = f32[0,3] scaled-dot(p0, p1, p2, p3), lhs_contracting_dims={1}, '
            'rhs_contracting_dims={0}'])
    module('scaled_dot_scalar_scales', ['f32[2,32]', 'f32[32,3]', 'f32[]', 'f32[]'],
           ['r = f32[2,3] scaled-dot(p0, p1, p2, p3), lhs_contracting_dims={1}, '
            'rhs_contracting_dims={0}'])
    module('scan_z', ['s32[2,0]', 's32[2]'],
           ['r = (s32[2,0], s32[2]) scan(p0, p1), dimensions={1}, num_carries=1, '
            'to_apply=body'], comps=SCAN_BODY)
    module('scan_defaults', ['s32[2,3]', 's32[2]'],
           ['r = (s32[2,3], s32[2]) scan(p0, p1), dimensions={1}, num_carries=1, to_apply=body'],
           comps=SCAN_BODY)
    module('gather_scalar_operand', ['f32[]', 's32[0]'],
           ['r = f32[] gather(p0, p1), offset_dims={}, collapsed_slice_dims={}, '
            'start_index_map={}, index_vector_dim=0, slice_sizes={}'])
    module('scatter_scalar_operand', ['f32[]', 's32[0]', 'f32[]'],
           ['r = f32[] scatter(p0, p1, p2), update_window_dims={}, inserted_window_dims={}, '
            'scatter_dims_to_operand_dims={}, index_vector_dim=0, to_apply=add_f32'],
           comps=ADD_F32)
    module('dynamic_slice_index_vector', ['f32[4,3]', 's32[2]'],
           ['r = f32[2,2] dynamic-slice(p0, p1), dynamic_slice_sizes={2,2}'], valid=False)
    module('bn_inference_r1', ['f32[3]', 'f32[3]', 'f32[3]', 'f32[3]', 'f32[3]'],
           ['r = f32[3] batch-norm-inference(p0, p1, p2, p3, p4), epsilon=0.001, '
            'feature_index=0'])
    # Each branch takes exactly one operand in XLA.
    module('conditional_no_operands', ['s32[]'],
           ['r = f32[] conditional(p0), branch_computations={b0, b1}'],
           comps='b0 {\n  ROOT c = f32[] constant(1)\n}\nb1 {\n  ROOT c = f32[] constant(2)\n}\n',
           valid=False)
    module('call_tuple_param', ['(f32[], s32[0])'],
           ['r = s32[0] call(p0), to_apply=pick'],
           comps='pick {\n  t = (f32[], s32[0]) parameter(0)\n'
                 '  ROOT r = s32[0] get-tuple-element(t), index=1\n}\n')
    module('while_token_state', [],
           ['t = token[] after-all()', 'i = s32[] constant(0)',
            's = (token[], s32[]) tuple(t, i)',
            'r = (token[], s32[]) while(s), condition=cond, body=body'],
           comps='cond {\n  x = (token[], s32[]) parameter(0)\n'
                 '  i = s32[] get-tuple-element(x), index=1\n  c = s32[] constant(2)\n'
                 '  ROOT r = pred[] compare(i, c), direction=LT\n}\n'
                 'body {\n  x = (token[], s32[]) parameter(0)\n'
                 '  t = token[] get-tuple-element(x), index=0\n'
                 '  i = s32[] get-tuple-element(x), index=1\n  c = s32[] constant(1)\n'
                 '  j = s32[] add(i, c)\n  ROOT r = (token[], s32[]) tuple(t, j)\n}\n')
    module('get_tuple_element_token', [],
           ['t = token[] after-all()', 'u = (token[]) tuple(t)',
            'r = token[] get-tuple-element(u), index=0'])
    module('opt_barrier_token', [],
           ['t = token[] after-all()', 'u = (token[]) tuple(t)', 'r = (token[]) opt-barrier(u)'])
    module('after_all_two', [],
           ['a = token[] after-all()', 'b = token[] after-all()', 'r = token[] after-all(a, b)'])
    module('partition_id_in_tuple', [],
           ['a = u32[] partition-id()', 'b = u32[] replica-id()', 'r = (u32[], u32[]) tuple(a, b)'])
    module('reduce_precision_zero_bits', ['f32[3]'],
           ['r = f32[3] reduce-precision(p0), exponent_bits=1, mantissa_bits=0'])
    module('iota_rank3_last', [], ['r = bf16[2,0,3] iota(), iota_dimension=2'])
    # Non-default layouts on empty and padded arrays.
    module('copy_relayout_z', ['f32[0,3]{0,1}'], ['r = f32[0,3]{1,0} copy(p0)'])
    module('transpose_layout_z', ['f32[2,0]{0,1}'],
           ['r = f32[0,2]{0,1} transpose(p0), dimensions={1,0}'])
    module('fft_pad_layout', ['c64[3,2]{0,1}'],
           ['r = c64[3,2]{0,1} fft(p0), fft_type=FFT, fft_length={5}'])
    module('copy_start_layout', ['f32[2,3]{0,1}'],
           ['cs = (f32[2,3]{1,0}, f32[2,3]{0,1}, u32[]) copy-start(p0)',
            'r = f32[2,3]{1,0} copy-done(cs)'])
    module('rng_normal_f16', ['f16[]', 'f16[]'],
           ['r = f16[2] rng(p0, p1), distribution=rng_normal'])


FLOAT_TYPES_ALL = ['f16', 'bf16', 'f64', 'f8e5m2', 'f8e4m3', 'f8e4m3fn', 'f8e4m3fnuz',
                   'f8e4m3b11fnuz', 'f8e5m2fnuz', 'f8e3m4', 'f6e2m3fn', 'f6e3m2fn', 'f4e2m1fn']
INT_TYPES_ALL = ['s2', 's4', 's8', 's16', 's64', 'u2', 'u4', 'u8', 'u16', 'u32', 'u64']


def gen_sweep_elementwise_types():
    """Every unary and binary elementwise op on every element type it takes,
    at rank 0 (f32 and s32 are in gen_sweep_elementwise)."""
    for t in FLOAT_TYPES_ALL:
        for op in UNARY_FLOAT:
            module('ut_%s_%s' % (op, t), [t + '[]'], ['r = %s[] %s(p0)' % (t, op)])
        for op in BINARY_FLOAT:
            module('bt_%s_%s' % (op, t), [t + '[]', t + '[]'], ['r = %s[] %s(p0, p1)' % (t, op)])
        module('isfinite_%s' % t, [t + '[1,0]'], ['r = pred[1,0] is-finite(p0)'])
        module('clamp_%s' % t, [t + '[]'] * 3, ['r = %s[] clamp(p0, p1, p2)' % t])
    for t in INT_TYPES_ALL:
        unary = UNARY_INT if t[0] == 's' else [op for op in UNARY_INT if op not in ('abs', 'sign')]
        for op in unary:
            module('uti_%s_%s' % (op, t), [t + '[]'], ['r = %s[] %s(p0)' % (t, op)])
        for op in BINARY_INT + ['subtract', 'multiply', 'minimum', 'mulhi']:
            module('bti_%s_%s' % (op, t), [t + '[]', t + '[]'], ['r = %s[] %s(p0, p1)' % (t, op)])
        module('clampi_%s' % t, [t + '[]'] * 3, ['r = %s[] clamp(p0, p1, p2)' % t])
    for op in ('and', 'or', 'xor'):
        module('bp_%s' % op, ['pred[]', 'pred[]'], ['r = pred[] %s(p0, p1)' % op])
    module('not_pred', ['pred[0]'], ['r = pred[0] not(p0)'])
    for t in ('c64', 'c128'):
        for op in ('exponential', 'log', 'sqrt', 'rsqrt', 'tanh', 'negate', 'sign', 'cosine',
                   'sine', 'log-plus-one', 'exponential-minus-one', 'cbrt', 'tan', 'logistic'):
            module('uc_%s_%s' % (op, t), [t + '[]'], ['r = %s[] %s(p0)' % (t, op)])
        for op in ('add', 'subtract', 'multiply', 'divide', 'power'):
            module('bc_%s_%s' % (op, t), [t + '[]', t + '[]'], ['r = %s[] %s(p0, p1)' % (t, op)])
        module('absc_%s' % t, [t + '[]'], ['r = %s[] abs(p0)' % ('f32' if t == 'c64' else 'f64')])


def gen_sweep_collective_modes():
    """Collectives in every group mode (channel_id, use_global_device_ids) on
    one device."""
    bodies = {
        'ar_channel': ['r = f32[3] all-reduce(p0), channel_id=1, replica_groups={}, '
                       'to_apply=add_f32'],
        'ar_global': ['r = f32[3] all-reduce(p0), channel_id=1, replica_groups={{0}}, '
                      'use_global_device_ids=true, to_apply=add_f32'],
        'ag_channel': ['r = f32[3] all-gather(p0), channel_id=1, replica_groups={}, '
                       'dimensions={0}'],
        'ag_global': ['r = f32[3] all-gather(p0), channel_id=1, replica_groups={{0}}, '
                      'use_global_device_ids=true, dimensions={0}'],
        'rs_channel': ['r = f32[3] reduce-scatter(p0), channel_id=1, replica_groups={}, '
                       'dimensions={0}, to_apply=add_f32'],
        'a2a_channel': ['r = f32[3] all-to-all(p0), channel_id=1, replica_groups={}, '
                        'dimensions={0}'],
        'cp_channel': ['r = f32[3] collective-permute(p0), channel_id=1, '
                       'source_target_pairs={{0,0}}'],
        'cb_channel': ['r = f32[3] collective-broadcast(p0), channel_id=1, '
                       'replica_groups={{0}}'],
        'ar_tuple_channel': ['r = (f32[3], f32[3]) all-reduce(p0, p0), channel_id=1, '
                             'replica_groups={}, to_apply=add_f32'],
        'cp_start_empty_pairs': ['s = (f32[3], f32[3], u32[], u32[]) collective-permute-start(p0), '
                                 'source_target_pairs={}',
                                 'r = f32[3] collective-permute-done(s)'],
        'ragged_all_to_all_one': ['o = f32[3] constant({0, 0, 0})', 'off = s32[1] constant({0})',
                                  'sz = s32[1] constant({3})',
                                  'r = f32[3] ragged-all-to-all(p0, o, off, sz, off, sz), '
                                  'replica_groups={{0}}'],
    }
    for name, body in bodies.items():
        module('coll_' + name, ['f32[3]'], body, comps=ADD_F32)

def gen_sweep():
    gen_sweep_elementwise()
    gen_sweep_shape()
    gen_sweep_indexing()
    gen_sweep_reduce()
    gen_sweep_sort_dot()
    gen_sweep_fft()
    gen_sweep_rng_control()
    gen_sweep_more()
    gen_sweep_types()
    gen_sweep_dot_family()
    gen_sweep_elementwise_types()
    gen_sweep_collective_modes()


def run_sweep(hlovm):
    gen_sweep()
    bad = []
    refused = []
    with tempfile.TemporaryDirectory() as d:
        for name, text, valid, norun in SWEEP:
            path = os.path.join(d, name + '.hlo')
            with open(path, 'w') as f:
                f.write(text)
            chk = subprocess.run([hlovm, 'check', path], capture_output=True, text=True)
            if chk.returncode != 0:
                msg = (chk.stderr or chk.stdout).strip().splitlines()
                msg = msg[0] if msg else ''
                if valid:
                    refused.append(name)
                    print('REFUSED %s: %s' % (name, msg))
                else:
                    print('refused (as XLA) %s: %s' % (name, msg))
                continue
            run = subprocess.run([hlovm, 'run', '--random', path], capture_output=True,
                                 text=True, timeout=120)
            if run.returncode != 0:
                msg = (run.stderr or run.stdout).strip().splitlines()
                msg = msg[-1] if msg else ''
                if norun:
                    print('does not run (known: %s) %s: %s' % (norun, name, msg))
                    continue
                bad.append(name)
                print('RUN FAILS %s: %s' % (name, msg))
            elif not valid:
                print('accepted (XLA refuses) %s' % name)
    print('%d modules; %d pass check but fail run; %d refused that XLA accepts' %
          (len(SWEEP), len(bad), len(refused)))
    return 1 if bad or refused else 0


# ---------------------------------------------------------------------------
# Self-checking cases.
# ---------------------------------------------------------------------------

CASES = []
RNG = np.random.default_rng(20261127)


def new(family, name):
    c = Case('edge', family, name)
    CASES.append(c)
    return c


def attr(values):
    return '{' + ','.join(str(v) for v in values) + '}'


def small(t, dims):
    """Small exact values (multiples of 1/4) of type `t`."""
    n = int(np.prod(dims)) if dims else 1
    if t in ('c64', 'c128'):
        a = RNG.integers(-8, 8, n) / 4 + 1j * RNG.integers(-8, 8, n) / 4
    elif t.startswith('f'):
        a = RNG.integers(-40, 40, n) / 4
    elif t == 'pred':
        a = RNG.integers(0, 2, n).astype(bool)
    else:
        a = RNG.integers(-50, 50, n) if t.startswith('s') else RNG.integers(0, 100, n)
    return np.asarray(a).reshape(dims)


def fft_ref(x, kind, lengths):
    """XLA's evaluator: each transform reads its input truncated or padded with
    zeros to `lengths` along the innermost axes, and its result is truncated
    or padded with zeros back to the operand's dimensions."""
    k = len(lengths)
    axes = tuple(range(x.ndim - k, x.ndim))
    wide = x.astype(np.complex128)
    if 0 in lengths:
        return np.zeros_like(wide)
    work = np.zeros(wide.shape[:-k] + tuple(lengths), np.complex128)
    src = tuple([slice(None)] * (x.ndim - k) +
                [slice(0, min(n, l)) for n, l in zip(x.shape[-k:], lengths)])
    work[src] = wide[src]
    out = np.fft.fftn(work, axes=axes) if kind == 'FFT' else np.fft.ifftn(work, axes=axes)
    res = np.zeros_like(wide)
    res[src] = out[src]
    return res


def gen_fft_cases():
    specs = [
        ('fft_c64_pad_3_to_5', 'FFT', 'c64', [3], [5]),
        ('fft_c64_truncate_6_to_4', 'FFT', 'c64', [2, 6], [4]),
        ('ifft_c64_pad_2d', 'IFFT', 'c64', [2, 3, 2], [4, 3]),
        ('ifft_c128_mixed_2d', 'IFFT', 'c128', [3, 4], [5, 2]),
        ('fft_c128_truncate_3d', 'FFT', 'c128', [3, 4, 5], [2, 4, 3]),
        ('fft_c64_zero_length', 'FFT', 'c64', [2, 3], [0]),
        ('ifft_c64_zero_length_2d', 'IFFT', 'c64', [2, 3], [2, 0]),
        ('fft_c64_zero_operand', 'FFT', 'c64', [2, 0], [4]),
    ]
    for name, kind, t, dims, lengths in specs:
        x = small(t, dims).astype(np.complex64 if t == 'c64' else np.complex128)
        want = fft_ref(x, kind, lengths)
        c = new('fft', name)
        xc = c.const(t, x)
        r = c.op(shape(t, dims), 'fft(%s), fft_type=%s, fft_length=%s' % (ref(xc), kind,
                                                                         attr(lengths)),
                 root=True)
        scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
        c.check_almost(r, t, want, (2e-5 if t == 'c64' else 1e-12) * scale)
    # Zero-sized real transforms: nothing to compute, shapes as XLA infers.
    c = new('fft', 'irfft_f32_zero_length_from_one')
    xc = c.const('c64', np.zeros([2, 1], np.complex64))
    r = c.op(shape('f32', [2, 0]), 'fft(%s), fft_type=IRFFT, fft_length={0}' % ref(xc), root=True)
    c.check(r, 'f32', np.zeros([2, 0], np.float32))
    c = new('fft', 'rfft_f32_zero_leading_length')
    xc = c.const('f32', np.zeros([0, 4], np.float32))
    r = c.op(shape('c64', [0, 3]), 'fft(%s), fft_type=RFFT, fft_length={0,4}' % ref(xc), root=True)
    c.check(r, 'c64', np.zeros([0, 3], np.complex64))


def gen_copy_start_cases():
    for t, dims in (('f32', [2, 3]), ('s8', []), ('c128', [0, 2]), ('pred', [4])):
        x = small(t, dims)
        c = new('copy', 'copy_start_done_%s_%s' % (t, 'x'.join(map(str, dims)) or 'r0'))
        xc = c.const(t, x)
        s = shape(t, dims)
        cs = c.op(tuple_shape(s, s, 'u32[]'), 'copy-start(%s)' % ref(xc))
        r = c.op(s, 'copy-done(%s)' % ref(cs), root=True)
        c.check(r, t, x)
    # A copy-start that changes the layout, as between memory spaces.
    x = small('f32', [2, 3])
    c = new('copy', 'copy_start_done_f32_column_major_to_row_major')
    xc = c.const('f32', x, layout=[0, 1])
    cs = c.op(tuple_shape(shape('f32', [2, 3]), shape('f32', [2, 3], [0, 1]), 'u32[]'),
              'copy-start(%s)' % ref(xc))
    r = c.op(shape('f32', [2, 3]), 'copy-done(%s)' % ref(cs), root=True)
    c.check(r, 'f32', x)
    # The whole copy-start tuple: destination, source and a context.
    x = small('f32', [3])
    c = new('copy', 'copy_start_tuple_elements')
    xc = c.const('f32', x)
    s = shape('f32', [3])
    cs = c.op(tuple_shape(s, s, 'u32[]'), 'copy-start(%s)' % ref(xc))
    dst = c.op(s, 'get-tuple-element(%s), index=0' % ref(cs))
    src = c.op(s, 'get-tuple-element(%s), index=1' % ref(cs))
    done = c.op(s, 'copy-done(%s)' % ref(cs))
    r = c.op(tuple_shape(s, s, s), 'tuple(%s, %s, %s)' % (ref(dst), ref(src), ref(done)),
             root=True)
    c.check(dst, 'f32', x)
    c.check(src, 'f32', x)
    c.check(done, 'f32', x)


def gen_scalar_cases():
    # dynamic-slice and dynamic-update-slice of a scalar take no start indices.
    c = new('dynamic-update-slice', 'dus_f32_rank0')
    a = c.const('f32', np.float32(2.5))
    u = c.const('f32', np.float32(-7.25))
    r = c.op('f32[]', 'dynamic-update-slice(%s, %s)' % (ref(a), ref(u)), root=True)
    c.check(r, 'f32', np.float32(-7.25))
    c = new('dynamic-update-slice', 'dus_s64_rank0_then_add')
    a = c.const('s64', np.int64(5))
    u = c.const('s64', np.int64(-9))
    d = c.op('s64[]', 'dynamic-update-slice(%s, %s)' % (ref(a), ref(u)))
    r = c.op('s64[]', 'add(%s, %s)' % (ref(d), ref(a)), root=True)
    c.check(r, 's64', np.int64(-4))
    c.check(a, 's64', np.int64(5))
    c = new('dynamic-slice', 'dynamic_slice_f32_rank0')
    a = c.const('f32', np.float32(3.75))
    r = c.op('f32[]', 'dynamic-slice(%s), dynamic_slice_sizes={}' % ref(a), root=True)
    c.check(r, 'f32', np.float32(3.75))
    # reduce-window without window= has a window of no dimensions: it folds
    # the one element of a scalar operand into the init value.
    c = new('reduce-window', 'reduce_window_f32_rank0_no_window')
    c.comp(binary_comp('add', 'f32', 'add'))
    a = c.const('f32', np.float32(1.5))
    i = c.const('f32', np.float32(10.0))
    r = c.op('f32[]', 'reduce-window(%s, %s), to_apply=%%add' % (ref(a), ref(i)), root=True)
    c.check(r, 'f32', np.float32(11.5))
    c = new('reduce-window', 'reduce_window_s32_rank0_no_window_max')
    c.comp(binary_comp('mx', 's32', 'maximum'))
    a = c.const('s32', np.int32(-4))
    i = c.const('s32', np.int32(-10))
    r = c.op('s32[]', 'reduce-window(%s, %s), to_apply=%%mx' % (ref(a), ref(i)), root=True)
    c.check(r, 's32', np.int32(-4))
    c = new('select-and-scatter', 'select_and_scatter_f32_rank0_no_window')
    c.comp(binary_comp('add', 'f32', 'add'))
    c.comp('%ge (a: f32[], b: f32[]) -> pred[] {\n  %a = f32[] parameter(0)\n'
           '  %b = f32[] parameter(1)\n  ROOT %r = pred[] compare(f32[] %a, f32[] %b), '
           'direction=GE\n}')
    a = c.const('f32', np.float32(1.5))
    s = c.const('f32', np.float32(4.0))
    i = c.const('f32', np.float32(0.5))
    r = c.op('f32[]', 'select-and-scatter(%s, %s, %s), select=%%ge, scatter=%%add'
             % (ref(a), ref(s), ref(i)), root=True)
    c.check(r, 'f32', np.float32(4.5))



def gen_rank0_and_empty_cases():
    """Rank-0 operands and zero-sized dimensions through the ops whose edge
    forms the other generators do not cover."""
    f = lambda v: np.float32(v)  # noqa: E731
    # dot of two scalars (no contracting dimensions) is their product.
    c = new('dot', 'dot_f32_rank0')
    a, b = c.const('f32', f(2.5)), c.const('f32', f(-4.0))
    r = c.op('f32[]', 'dot(%s, %s)' % (ref(a), ref(b)), root=True)
    c.check(r, 'f32', f(-10.0))
    # dot of vectors without contracting dimensions: the outer product.
    c = new('dot', 'dot_s32_outer_product')
    x, y = np.array([1, -2], np.int32), np.array([3, 0, 5], np.int32)
    a, b = c.const('s32', x), c.const('s32', y)
    r = c.op(shape('s32', [2, 3]), 'dot(%s, %s)' % (ref(a), ref(b)), root=True)
    c.check(r, 's32', np.outer(x, y))
    # reduce of a scalar over no dimensions folds it into the init value once.
    c = new('reduce', 'reduce_f32_rank0_no_dimensions')
    c.comp(binary_comp('add', 'f32', 'add'))
    a, i = c.const('f32', f(1.25)), c.const('f32', f(10.0))
    r = c.op('f32[]', 'reduce(%s, %s), dimensions={}, to_apply=%%add' % (ref(a), ref(i)),
             root=True)
    c.check(r, 'f32', f(11.25))
    c = new('reduce', 'reduce_f32_no_dimensions_rank2')
    c.comp(binary_comp('mul', 'f32', 'multiply'))
    x = small('f32', [2, 3]).astype(np.float32)
    a, i = c.const('f32', x), c.const('f32', f(2.0))
    r = c.op(shape('f32', [2, 3]), 'reduce(%s, %s), dimensions={}, to_apply=%%mul'
             % (ref(a), ref(i)), root=True)
    c.check(r, 'f32', x * 2)
    c = new('reduce', 'reduce_variadic_zero_rows_gives_inits')
    c.comp('%argmax (a: f32[], b: s32[], c: f32[], d: s32[]) -> (f32[], s32[]) {\n'
           '  %a = f32[] parameter(0)\n  %b = s32[] parameter(1)\n  %c = f32[] parameter(2)\n'
           '  %d = s32[] parameter(3)\n  %m = f32[] maximum(f32[] %a, f32[] %c)\n'
           '  %i = s32[] minimum(s32[] %b, s32[] %d)\n'
           '  ROOT %r = (f32[], s32[]) tuple(f32[] %m, s32[] %i)\n}')
    v = c.const('f32', np.zeros([0, 3], np.float32))
    k = c.const('s32', np.zeros([0, 3], np.int32))
    iv, ik = c.const('f32', f(-np.inf)), c.const('s32', np.int32(-1))
    r = c.op(tuple_shape(shape('f32', [3]), shape('s32', [3])),
             'reduce(%s, %s, %s, %s), dimensions={0}, to_apply=%%argmax'
             % (ref(v), ref(k), ref(iv), ref(ik)), root=True)
    r0 = c.op(shape('f32', [3]), 'get-tuple-element(%s), index=0' % ref(r))
    r1 = c.op(shape('s32', [3]), 'get-tuple-element(%s), index=1' % ref(r))
    c.check(r0, 'f32', np.full([3], -np.inf, np.float32))
    c.check(r1, 's32', np.full([3], -1, np.int32))
    # reduce-window whose windows all lie in the padding yield the init value.
    c = new('reduce-window', 'reduce_window_f32_zero_rows_padded')
    c.comp(binary_comp('add', 'f32', 'add'))
    a, i = c.const('f32', np.zeros([0, 3], np.float32)), c.const('f32', f(0.5))
    r = c.op(shape('f32', [2, 2]), 'reduce-window(%s, %s), window={size=1x2 pad=1_1x0_0}, '
             'to_apply=%%add' % (ref(a), ref(i)), root=True)
    c.check(r, 'f32', np.full([2, 2], 0.5, np.float32))
    # scatter of no updates and dynamic-update-slice of an empty update leave
    # the operand as it is.
    c = new('scatter', 'scatter_f32_no_updates')
    c.comp(binary_comp('add', 'f32', 'add'))
    x = small('f32', [4]).astype(np.float32)
    a = c.const('f32', x)
    idx = c.const('s32', np.zeros([0, 1], np.int32))
    up = c.const('f32', np.zeros([0], np.float32))
    r = c.op(shape('f32', [4]), 'scatter(%s, %s, %s), update_window_dims={}, '
             'inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, '
             'to_apply=%%add' % (ref(a), ref(idx), ref(up)), root=True)
    c.check(r, 'f32', x)
    c = new('dynamic-update-slice', 'dus_s16_empty_update')
    x = small('s16', [3, 2]).astype(np.int16)
    a = c.const('s16', x)
    u = c.const('s16', np.zeros([0, 2], np.int16))
    i0, i1 = c.const('s32', np.int32(2)), c.const('s32', np.int32(1))
    r = c.op(shape('s16', [3, 2]), 'dynamic-update-slice(%s, %s, %s, %s)'
             % (ref(a), ref(u), ref(i0), ref(i1)), root=True)
    c.check(r, 's16', x)
    # Scalars through the shape ops.
    for op, attrs in (('transpose', 'dimensions={}'), ('reverse', 'dimensions={}'),
                      ('slice', 'slice={}'), ('broadcast', 'dimensions={}'), ('copy', '')):
        c = new(op, '%s_c64_rank0' % op)
        a = c.const('c64', np.complex64(1.5 - 2.25j))
        r = c.op('c64[]', '%s(%s)%s' % (op, ref(a), ', ' + attrs if attrs else ''), root=True)
        c.check(r, 'c64', np.complex64(1.5 - 2.25j))
    c = new('transpose', 'transpose_f64_zero_rows')
    a = c.const('f64', np.zeros([0, 3], np.float64))
    r = c.op(shape('f64', [3, 0]), 'transpose(%s), dimensions={1,0}' % ref(a), root=True)
    c.check(r, 'f64', np.zeros([3, 0], np.float64))
    # Scalar select, clamp and map.
    c = new('select', 'select_and_clamp_rank0')
    p = c.const('pred', np.bool_(False))
    a, b = c.const('f32', f(3.5)), c.const('f32', f(-1.0))
    sel = c.op('f32[]', 'select(%s, %s, %s)' % (ref(p), ref(a), ref(b)))
    lo, hi = c.const('f32', f(0.0)), c.const('f32', f(2.0))
    cl = c.op('f32[]', 'clamp(%s, %s, %s)' % (ref(lo), ref(a), ref(hi)))
    r = c.op(tuple_shape('f32[]', 'f32[]'), 'tuple(%s, %s)' % (ref(sel), ref(cl)), root=True)
    c.check(sel, 'f32', f(-1.0))
    c.check(cl, 'f32', f(2.0))
    c = new('map', 'map_s32_rank0')
    c.comp(binary_comp('sub', 's32', 'subtract'))
    a, b = c.const('s32', np.int32(7)), c.const('s32', np.int32(9))
    r = c.op('s32[]', 'map(%s, %s), dimensions={}, to_apply=%%sub' % (ref(a), ref(b)), root=True)
    c.check(r, 's32', np.int32(-2))
    # A loop whose state holds an empty array.
    c = new('while', 'while_empty_array_in_state')
    c.comp('%cond (x: (f32[0], s32[])) -> pred[] {\n  %x = (f32[0], s32[]) parameter(0)\n'
           '  %i = s32[] get-tuple-element((f32[0], s32[]) %x), index=1\n'
           '  %n = s32[] constant(3)\n'
           '  ROOT %r = pred[] compare(s32[] %i, s32[] %n), direction=LT\n}')
    c.comp('%body (x: (f32[0], s32[])) -> (f32[0], s32[]) {\n  %x = (f32[0], s32[]) parameter(0)\n'
           '  %a = f32[0] get-tuple-element((f32[0], s32[]) %x), index=0\n'
           '  %i = s32[] get-tuple-element((f32[0], s32[]) %x), index=1\n'
           '  %one = s32[] constant(1)\n  %j = s32[] add(s32[] %i, s32[] %one)\n'
           '  ROOT %r = (f32[0], s32[]) tuple(f32[0] %a, s32[] %j)\n}')
    a, i = c.const('f32', np.zeros([0], np.float32)), c.const('s32', np.int32(0))
    t = c.op(tuple_shape(shape('f32', [0]), 's32[]'), 'tuple(%s, %s)' % (ref(a), ref(i)))
    w = c.op(tuple_shape(shape('f32', [0]), 's32[]'), 'while(%s), condition=%%cond, body=%%body'
             % ref(t), root=True)
    n = c.op('s32[]', 'get-tuple-element(%s), index=1' % ref(w))
    c.check(n, 's32', np.int32(3))
    # Linear algebra on empty matrices, topk of nothing, convolution of an
    # empty batch.
    c = new('cholesky', 'cholesky_f32_0x0')
    a = c.const('f32', np.zeros([0, 0], np.float32))
    r = c.op(shape('f32', [0, 0]), 'cholesky(%s), lower=true' % ref(a), root=True)
    c.check(r, 'f32', np.zeros([0, 0], np.float32))
    c = new('topk', 'topk_f32_k0')
    a = c.const('f32', small('f32', [5]).astype(np.float32))
    r = c.op(tuple_shape(shape('f32', [0]), shape('s32', [0])), 'topk(%s), k=0, largest=true'
             % ref(a), root=True)
    v = c.op(shape('f32', [0]), 'get-tuple-element(%s), index=0' % ref(r))
    c.check(v, 'f32', np.zeros([0], np.float32))
    c = new('convolution', 'conv_f32_empty_batch')
    a = c.const('f32', np.zeros([0, 5, 3], np.float32))
    k = c.const('f32', small('f32', [2, 3, 4]).astype(np.float32))
    r = c.op(shape('f32', [0, 4, 4]), 'convolution(%s, %s), window={size=2}, dim_labels=b0f_0io->b0f'
             % (ref(a), ref(k)), root=True)
    c.check(r, 'f32', np.zeros([0, 4, 4], np.float32))
    # A convolution without window= and no spatial dimensions is a matmul.
    c = new('convolution', 'conv_f32_no_window_no_spatial')
    x = small('f32', [2, 3]).astype(np.float32)
    w = small('f32', [3, 4]).astype(np.float32)
    a, k = c.const('f32', x), c.const('f32', w)
    r = c.op(shape('f32', [2, 4]), 'convolution(%s, %s), dim_labels=bf_io->bf' % (ref(a), ref(k)),
             root=True)
    c.check(r, 'f32', (x.astype(np.float64) @ w.astype(np.float64)).astype(np.float32))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == '--sweep':
        return run_sweep(sys.argv[2])
    gen_fft_cases()
    gen_copy_start_cases()
    gen_scalar_cases()
    gen_rank0_and_empty_cases()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'cases')
    counts = write_cases(CASES, root, source=SOURCE)
    for group, n in sorted(counts.items()):
        print('%s: %d cases' % (group, n))
    return 0


if __name__ == '__main__':
    sys.exit(main())
