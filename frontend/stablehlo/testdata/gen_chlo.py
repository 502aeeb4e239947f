# Writes chlo_ops.mlir (run: /usr/bin/python3 gen_chlo.py > chlo_ops.mlir): the
# expected values are the exact functions from mpmath, rounded to the type.
import mpmath as mp, struct, math
mp.mp.dps = 40
def f32(v): return struct.unpack('f', struct.pack('f', float(v)))[0]
def fmt(v):
    if v != v: return '0x7FC00000'
    if v == math.inf: return '0x7F800000'
    if v == -math.inf: return '0xFF800000'
    return repr(float(v))
def arr(vals, ty, n=None):
    return 'dense<[' + ', '.join(fmt(v) for v in vals) + ']> : tensor<%dx%s>' % (len(vals), ty)
lines = []
cnt = [0]
def case(op, ins, ref, ty, tol, note):
    cnt[0] += 1
    k = cnt[0]
    n = len(ins[0])
    lines.append('    // %s (%s)' % (op, note))
    names = []
    for j, xs in enumerate(ins):
        lines.append('    %%in%d_%d = stablehlo.constant %s' % (k, j, arr(xs, ty)))
        names.append('%%in%d_%d' % (k, j))
    exp = [ref(*a) for a in zip(*ins)]
    lines.append('    %%exp%d = stablehlo.constant %s' % (k, arr(exp, ty)))
    t = 'tensor<%dx%s>' % (n, ty)
    lines.append('    %%r%d = chlo.%s %s : %s' % (k, op, ', '.join(names), ' -> '.join([t]*2) if len(ins)==1 else '(%s) -> %s' % (', '.join([t]*len(ins)), t)))
    if tol is None:
        lines.append('    stablehlo.custom_call @check.expect_eq(%%r%d, %%exp%d) {has_side_effect = true} : (%s, %s) -> ()' % (k, k, t, t))
    else:
        lines.append('    stablehlo.custom_call @check.expect_almost_eq(%%r%d, %%exp%d) {has_side_effect = true, tolerance = %s : f64} : (%s, %s) -> ()' % (k, k, tol, t, t))
R = lambda f: (lambda *a: float(f(*[mp.mpf(x) for x in a])))
erfc = R(mp.erfc); erfinv = R(mp.erfinv)
i1e = R(lambda x: mp.besseli(1, x) * mp.exp(-abs(x)))
lgam = R(lambda x: mp.log(abs(mp.gamma(x))))
dig = R(mp.digamma); zeta = R(lambda s, q: mp.zeta(s, q))
polyg = R(lambda n, x: mp.polygamma(int(n), x))
ex = [-3.0, -1.5, -0.5, 0.0, 0.3, 1.0, 2.5, 5.0]
case('erfc', [ex], erfc, 'f32', '2.0e-07', 'Cephes, f32')
case('erfc', [ex], erfc, 'f64', '1.0e-15', 'Cephes, f64')
case('erfc', [[-1.0, 0.0, 0.5, 2.0]], erfc, 'f16', '2.0e-04', 'computed in f32')
case('erfc', [[-1.0, 0.0, 0.5, 2.0]], erfc, 'bf16', '1.6e-03', 'computed in f32')
ei = [-0.99, -0.5, 0.0, 0.1, 0.5, 0.9, 0.999]
case('erf_inv', [[f32(v) for v in ei]], erfinv, 'f32', '2.0e-06', 'Giles, f32')
case('erf_inv', [ei], erfinv, 'f64', '1.0e-14', 'Giles, f64')
case('erf_inv', [[-1.0, 1.0]], lambda x: math.copysign(math.inf, x), 'f32', None, 'edges')
bi = [-10.0, -1.0, 0.0, 0.5, 2.0, 8.0, 9.0, 30.0]
case('bessel_i1e', [bi], i1e, 'f32', '1.0e-06', 'Chebyshev, f32')
case('bessel_i1e', [bi], i1e, 'f64', '1.0e-16', 'Chebyshev, f64')
case('bessel_i1e', [[-1.0, 0.5, 2.0]], i1e, 'bf16', '4.0e-04', 'computed in f32')
lg = [-2.5, -0.5, 0.1, 0.5, 1.0, 2.0, 3.5, 10.0, 100.0]
case('lgamma', [lg], lgam, 'f32', '1.0e-05', 'Lanczos, f32')
case('lgamma', [lg], lgam, 'f64', '1.0e-13', 'Lanczos, f64')
case('lgamma', [[0.0, -1.0, math.inf]], lambda x: math.inf, 'f32', None, 'poles and infinity')
dg = [-2.5, -0.5, 0.25, 1.0, 2.0, 5.0, 30.0]
case('digamma', [dg], dig, 'f32', '2.0e-06', 'Lanczos, f32')
case('digamma', [dg], dig, 'f64', '1.0e-13', 'Lanczos, f64')
case('digamma', [[1.0, 2.0]], dig, 'f16', '2.0e-04', 'computed in f32')
case('zeta', [[2.0, 3.0, 4.0, 2.5, 1.5], [1.0, 1.0, 2.0, 0.5, 3.0]], zeta, 'f32', '2.0e-06', 'Euler-Maclaurin, f32')
case('zeta', [[2.0, 3.0, 4.0, 2.5, 1.5], [1.0, 1.0, 2.0, 0.5, 3.0]], zeta, 'f64', '1.0e-13', 'Euler-Maclaurin, f64')
case('polygamma', [[0.0, 1.0, 2.0, 3.0, 1.0], [1.0, 1.0, 2.0, 0.5, 7.5]], polyg, 'f32', '2.0e-04', 'via zeta and lgamma, f32')
case('polygamma', [[0.0, 1.0, 2.0, 3.0, 1.0], [1.0, 1.0, 2.0, 0.5, 7.5]], polyg, 'f64', '1.0e-11', 'via zeta and lgamma, f64')
def nextafter32(x, y):
    if x != x or y != y: return math.nan
    if x == y: return y
    if x == 0: return math.copysign(struct.unpack('f', struct.pack('I', 1))[0], y)
    i = struct.unpack('i', struct.pack('f', x))[0]
    i += 1 if (y > x) == (x > 0) else -1
    return struct.unpack('f', struct.pack('i', i))[0]
nx = [1.0, 1.0, 0.0, 0.0, -0.0, 1.0, -2.0, 3.4028234663852886e38]
ny = [2.0, 0.0, 1.0, -1.0, 0.0, 1.0, -3.0, math.inf]
case('next_after', [nx, ny], nextafter32, 'f32', None, 'bit patterns')
case('next_after', [[1.0, 0.0], [2.0, -1.0]], lambda x, y: math.nextafter(x, y), 'f64', None, 'bit patterns')
case('square', [[-3.0, 0.5, 1.0e20]], lambda x: f32(x * x), 'f32', None, 'x * x, f32')
lines.append('''    // square (integer and complex; the real part is exactly 0 where |re| == |im|)
    %sqi = stablehlo.constant dense<[-7, 3]> : tensor<2xi32>
    %sqi_r = chlo.square %sqi : tensor<2xi32> -> tensor<2xi32>
    %sqi_e = stablehlo.constant dense<[49, 9]> : tensor<2xi32>
    stablehlo.custom_call @check.expect_eq(%sqi_r, %sqi_e) {has_side_effect = true} : (tensor<2xi32>, tensor<2xi32>) -> ()
    %sqc = stablehlo.constant dense<[(1.0, 2.0), (0.1, -0.1), (3.0, 0.0)]> : tensor<3xcomplex<f32>>
    %sqc_r = chlo.square %sqc : tensor<3xcomplex<f32>> -> tensor<3xcomplex<f32>>
    %sqc_e = stablehlo.constant dense<[(-3.0, 4.0), (0.0, -0.020000001415610313), (9.0, 0.0)]> : tensor<3xcomplex<f32>>
    stablehlo.custom_call @check.expect_eq(%sqc_r, %sqc_e) {has_side_effect = true} : (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>) -> ()
    // is_inf, is_pos_inf, is_neg_inf
    %inf_x = stablehlo.constant dense<[0x7F800000, 0xFF800000, 1.0, 0x7FC00000]> : tensor<4xf32>
    %isinf = chlo.is_inf %inf_x : tensor<4xf32> -> tensor<4xi1>
    %isinf_e = stablehlo.constant dense<[true, true, false, false]> : tensor<4xi1>
    stablehlo.custom_call @check.expect_eq(%isinf, %isinf_e) {has_side_effect = true} : (tensor<4xi1>, tensor<4xi1>) -> ()
    %ispos = chlo.is_pos_inf %inf_x : tensor<4xf32> -> tensor<4xi1>
    %ispos_e = stablehlo.constant dense<[true, false, false, false]> : tensor<4xi1>
    stablehlo.custom_call @check.expect_eq(%ispos, %ispos_e) {has_side_effect = true} : (tensor<4xi1>, tensor<4xi1>) -> ()
    %isneg = chlo.is_neg_inf %inf_x : tensor<4xf32> -> tensor<4xi1>
    %isneg_e = stablehlo.constant dense<[false, true, false, false]> : tensor<4xi1>
    stablehlo.custom_call @check.expect_eq(%isneg, %isneg_e) {has_side_effect = true} : (tensor<4xi1>, tensor<4xi1>) -> ()''')
body = '\n'.join(lines)
print('''// Self-checking: the chlo ops lowered to XLA's CHLO decompositions
// (frontend/stablehlo/chlo_decompositions.cc). Expected values are the exact
// functions (mpmath, 40 digits) rounded to the element type; the tolerances
// (absolute) are within 10x of the error measured at these inputs: a few
// f32 ulps (about 13 at polygamma(3, 0.5) = 97.4), 1e-13 or better for f64,
// under one ulp for f16/bf16 (computed in f32 and rounded). next_after and
// the edge cases are exact.
// Generated by testdata/gen_chlo.py.
module @chlo_ops {
  func.func public @main() {
''' + body + '''
    return
  }
}''')
