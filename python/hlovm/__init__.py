"""hlovm from Python: compile XLA HLO text and run it with NumPy arrays.

    import numpy as np, hlovm
    m = hlovm.load("examples/mlp.hlo")     # or hlovm.compile(text, passes=..., fusion=...)
    y = m(x, w1, w2)                       # NumPy in, NumPy out (tuple results as tuples)
    ys = m.run_replicated([x0, x1, x2, x3])
    print(m.profile(x, w1, w2))

Inputs whose dtype matches the parameter (and whose data is aligned to the
element size, in any dense layout) are read in place without a copy;
results are NumPy arrays over the VM's own result buffers. Element types
NumPy lacks (bf16, the f8/f6/f4 types, s2/s4/u2/u4) come back as ml_dtypes
arrays when ml_dtypes is importable; otherwise small floats come back as
float32 values and sub-byte integers as int8/uint8 values, and raw=True
returns the stored bits (uint8/uint16) instead. HLOVM_NO_ML_DTYPES=1 in the
environment takes the path without ml_dtypes even where it is installed.
"""

import os as _os

from ._hlovm import (  # noqa: F401
    CheckFailure,
    Error,
    Module,
    ParseError,
    VerifyError,
    compile,
    element_types,
)
from . import _hlovm

__all__ = [
    "CheckFailure", "Error", "Module", "ParseError", "VerifyError", "Profile", "compile",
    "load", "load_npz", "save_npz", "arguments", "element_types", "HAVE_ML_DTYPES",
]

# HLO element type names -> ml_dtypes type names.
_ML_DTYPES = {
    "bf16": "bfloat16",
    "f8e5m2": "float8_e5m2",
    "f8e4m3": "float8_e4m3",
    "f8e4m3fn": "float8_e4m3fn",
    "f8e4m3fnuz": "float8_e4m3fnuz",
    "f8e4m3b11fnuz": "float8_e4m3b11fnuz",
    "f8e5m2fnuz": "float8_e5m2fnuz",
    "f8e3m4": "float8_e3m4",
    "f8e8m0fnu": "float8_e8m0fnu",
    "f6e2m3fn": "float6_e2m3fn",
    "f6e3m2fn": "float6_e3m2fn",
    "f4e2m1fn": "float4_e2m1fn",
    "s2": "int2",
    "s4": "int4",
    "u2": "uint2",
    "u4": "uint4",
}

try:
    import ml_dtypes as _ml_dtypes
except ImportError:
    _ml_dtypes = None
HAVE_ML_DTYPES = _ml_dtypes is not None
if _ml_dtypes is not None and not _os.environ.get("HLOVM_NO_ML_DTYPES"):
    _found = {}
    for _hlo, _name in _ML_DTYPES.items():
        if hasattr(_ml_dtypes, _name):
            _found[_hlo] = getattr(_ml_dtypes, _name)
    _hlovm._set_extra_dtypes(_found)
elif _os.environ.get("HLOVM_NO_ML_DTYPES"):
    HAVE_ML_DTYPES = False


def load(path, **options):
    """Compiles the HLO text in the file at `path` (options as for compile)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    options.setdefault("file_name", str(path))
    return compile(text, **options)


def load_npz(path):
    """The arrays of a .npz file as a dict (name -> array), in file order.

    Object arrays (pickles) are refused."""
    import numpy as np

    with np.load(path, allow_pickle=False) as npz:
        return {name: npz[name] for name in npz.files}


def save_npz(path, results, names=None):
    """Writes results (an array, a tuple of arrays, or a dict) to a .npz file;
    unnamed arrays are called result0, result1, ..."""
    import numpy as np

    if isinstance(results, dict):
        arrays = dict(results)
    else:
        if not isinstance(results, (tuple, list)):
            results = (results,)
        names = names or [f"result{i}" for i in range(len(results))]
        arrays = dict(zip(names, results))
    np.savez(path, **arrays)


def arguments(module, named):
    """Orders a dict of arrays (e.g. from load_npz) as `module`'s parameters:
    by parameter name where every name matches, otherwise in the dict's order."""
    names = [name for name, _ in module.parameters]
    if all(name in named for name in names):
        return [named[name] for name in names]
    values = list(named.values())
    if len(values) != len(names):
        raise ValueError(
            f"the module takes {len(names)} inputs ({', '.join(names)}), "
            f"the file holds {len(values)} ({', '.join(named)})")
    return values


class Profile:
    """One profiled run: .rows (by instruction, longest self time first),
    .by_opcode, .total_ns (busy time of all threads) and .result."""

    def __init__(self, rows, by_opcode, total_ns, result):
        self.rows = rows
        self.by_opcode = by_opcode
        self.total_ns = total_ns
        self.result = result

    @staticmethod
    def _table(rows, title):
        lines = [f"{title:<32} {'calls':>7} {'self us':>10} {'share':>7}  detail"]
        for r in rows:
            lines.append(
                f"{r['name'][:32]:<32} {r['calls']:>7} {r['self_ns'] / 1e3:>10.1f} "
                f"{100 * r['share']:>6.1f}%  {r['detail']}")
        return "\n".join(lines)

    def __repr__(self):
        return (f"total {self.total_ns / 1e3:.1f} us\n"
                + self._table(self.by_opcode, "opcode") + "\n\n"
                + self._table(self.rows, "instruction"))
