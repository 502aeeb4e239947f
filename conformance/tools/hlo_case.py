"""Helpers that write self-checking HLO conformance cases.

A case is an HLO module whose ENTRY computation has no parameters: inputs
and expected values are constants, and check.* custom-calls compare
(actual, expected) as ../shared/conformance/FORMAT.md defines. Expected
values come from NumPy or from hand computation in the generator scripts,
never from hlovm.
"""

import math
import re
import os
import struct

import numpy as np

NP_TYPES = {
    'pred': np.bool_, 's8': np.int8, 's16': np.int16, 's32': np.int32, 's64': np.int64,
    'u8': np.uint8, 'u16': np.uint16, 'u32': np.uint32, 'u64': np.uint64,
    'f16': np.float16, 'f32': np.float32, 'f64': np.float64,
    'c64': np.complex64, 'c128': np.complex128,
}
FLOAT_TYPES = ('f16', 'f32', 'f64')
INT_TYPES = ('s8', 's16', 's32', 's64', 'u8', 'u16', 'u32', 'u64')
SIGNED_TYPES = ('s8', 's16', 's32', 's64')
UNSIGNED_TYPES = ('u8', 'u16', 'u32', 'u64')


def arr(t, values):
    """A NumPy array of HLO element type `t`."""
    return np.array(values, dtype=NP_TYPES[t])


def fmt_float(t, x):
    x = float(x)
    if math.isnan(x):
        return '-nan' if math.copysign(1.0, x) < 0 else 'nan'
    if math.isinf(x):
        return 'inf' if x > 0 else '-inf'
    if x == 0:
        return '-0.0' if math.copysign(1.0, x) < 0 else '0'
    text = ('%.17g' if t == 'f64' else '%.9g') % x
    return text


def fmt_scalar(t, x):
    if t == 'pred':
        return 'true' if bool(x) else 'false'
    if t in FLOAT_TYPES:
        return fmt_float(t, x)
    if t in ('c64', 'c128'):
        part = 'f64' if t == 'c128' else 'f32'
        return '(%s, %s)' % (fmt_float(part, x.real), fmt_float(part, x.imag))
    return str(int(x))


def fmt_literal(t, a):
    a = np.asarray(a)
    if a.ndim == 0:
        return fmt_scalar(t, a[()])

    def rec(sub):
        if sub.ndim == 1:
            return '{' + ', '.join(fmt_scalar(t, v) for v in sub) + '}'
        return '{ ' + ', '.join(rec(s) for s in sub) + ' }'
    if a.shape[0] == 0:
        return '{}'
    return rec(a)


def shape(t, dims, layout=None):
    """'f32[2,3]{1,0}': default row-major layout unless `layout` is given."""
    dims = list(dims)
    if t in ('token',):
        return 'token[]'
    text = '%s[%s]' % (t, ','.join(str(d) for d in dims))
    if not dims:
        return text
    if layout is None:
        layout = list(range(len(dims) - 1, -1, -1))
    return text + '{' + ','.join(str(d) for d in layout) + '}'


def plain(t, dims):
    """Shape without layout, as computation headers print it."""
    return '%s[%s]' % (t, ','.join(str(d) for d in dims))


class Case:
    """Collects the instructions of one case's ENTRY computation."""

    def __init__(self, group, family, name, note=None):
        self.group = group
        self.family = family
        self.name = name
        self.note = note
        self.computations = []
        self.lines = []
        self.root = None
        self.root_shape = None
        self.checks = []
        self.counter = 0

    def fresh(self, base):
        self.counter += 1
        return '%s.%d' % (base, self.counter)

    def const(self, t, a, layout=None, name=None):
        a = np.asarray(a, dtype=NP_TYPES[t])
        n = name or self.fresh('c')
        s = shape(t, a.shape, layout)
        self.lines.append('%%%s = %s constant(%s)' % (n, s, fmt_literal(t, a)))
        return ('%' + n, s)

    def op(self, result_shape, text, name=None, root=False):
        """Adds `%name = result_shape text`; text is e.g. 'add(%a, %b)' with
        operands written with their shapes by the caller via ref()."""
        n = name or self.fresh('v')
        prefix = 'ROOT ' if root else ''
        self.lines.append('%s%%%s = %s %s' % (prefix, n, result_shape, text))
        if root:
            self.root = '%' + n
            self.root_shape = result_shape
        return ('%' + n, result_shape)

    def comp(self, text):
        """Adds a computation. Instruction names must be unique in a module,
        so every name defined in it gets the suffix `_<k>` (k: the
        computation's number), header parameter names included."""
        text = text.strip('\n')
        k = len(self.computations) + 1
        header, _, body = text.partition('\n')
        names = re.findall(r'^\s*(?:ROOT\s+)?%([\w.\-]+)\s*=', body, flags=re.M)
        for n in sorted(set(names), key=len, reverse=True):
            body = re.sub(r'%' + re.escape(n) + r'(?![\w.\-])', '%%%s_%d' % (n, k), body)
            header = re.sub(r'([(,]\s*)' + re.escape(n) + r'(\s*:)', r'\g<1>%s_%d\2' % (n, k),
                            header)
        self.computations.append(header + '\n' + body)

    def check(self, actual, t, expected, kind='check.expect_eq', config=None, layout=None):
        exp = self.const(t, expected, layout=layout, name=self.fresh('expected'))
        n = self.fresh('check')
        line = ('%%%s = () custom-call(%s, %s), custom_call_target="%s", '
                'custom_call_has_side_effect=true' % (n, ref(actual), ref(exp), kind))
        if config is not None:
            line += ', backend_config="%s"' % config.replace('"', '\\"')
        self.checks.append(line)

    def check_close(self, actual, t, expected, max_ulp):
        self.check(actual, t, expected, 'check.expect_close',
                   '{"max_ulp_difference":%d,"min_ulp_difference":0}' % max_ulp)

    def check_almost(self, actual, t, expected, tolerance):
        self.check(actual, t, expected, 'check.expect_almost_eq',
                   '{"tolerance":%r}' % tolerance)

    def text(self):
        assert self.root is not None, self.name
        out = ['// source: hand-computed, conformance/tools/gen_cases.py',
               '// family: %s' % self.family]
        if self.note:
            out.append('// note: %s' % self.note)
        out.append('HloModule %s, entry_computation_layout={()->%s}' %
                   (self.name, self.root_shape))
        out.append('')
        for c in self.computations:
            out.append(c)
            out.append('')
        plain_root = strip_layouts(self.root_shape)
        out.append('ENTRY %%main () -> %s {' % plain_root)
        for line in self.lines + self.checks:
            out.append('  ' + line)
        out.append('}')
        return '\n'.join(out) + '\n'


def strip_layouts(s):
    out = []
    depth = 0
    i = 0
    # Remove '{...}' groups that follow ']' (layouts).
    while i < len(s):
        if s[i] == '{' and i > 0 and s[i - 1] == ']':
            j = s.index('}', i)
            i = j + 1
            continue
        out.append(s[i])
        i += 1
    return ''.join(out)


def ref(v):
    """'f32[2]{0} %name' for an operand."""
    name, s = v
    return '%s %s' % (s, name)


def tuple_shape(*shapes):
    return '(' + ', '.join(shapes) + ')'


def write_cases(cases, root_dir, source=None):
    """Writes each case to ROOT/GROUP/NAME.hlo; `source` (e.g. 'numpy,
    conformance/tools/gen_x.py') replaces the default source line."""
    names = set()
    counts = {}
    for c in cases:
        key = (c.group, c.name)
        assert key not in names, key
        names.add(key)
        d = os.path.join(root_dir, c.group)
        os.makedirs(d, exist_ok=True)
        text = c.text()
        if source is not None:
            text = text.replace('// source: hand-computed, conformance/tools/gen_cases.py',
                                '// source: ' + source, 1)
        with open(os.path.join(d, c.name + '.hlo'), 'w') as f:
            f.write(text)
        counts[c.group] = counts.get(c.group, 0) + 1
    return counts


# Scalar computations used by reduce, scatter, sort, map, ...
def binary_comp(name, t, op):
    return ('%%%s (a: %s[], b: %s[]) -> %s[] {\n'
            '  %%a = %s[] parameter(0)\n'
            '  %%b = %s[] parameter(1)\n'
            '  ROOT %%r = %s[] %s(%s[] %%a, %s[] %%b)\n'
            '}' % (name, t, t, t, t, t, t, op, t, t))


def compare_comp(name, t, direction, ctype=None):
    extra = ', type=%s' % ctype if ctype else ''
    return ('%%%s (a: %s[], b: %s[]) -> pred[] {\n'
            '  %%a = %s[] parameter(0)\n'
            '  %%b = %s[] parameter(1)\n'
            '  ROOT %%r = pred[] compare(%s[] %%a, %s[] %%b), direction=%s%s\n'
            '}' % (name, t, t, t, t, t, t, direction, extra))


def f32_bits(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]
