"""Tests of the hlovm Python module (run by ctest as python_test).

Needs PYTHONPATH to hold build/python; HLOVM_BINARY names the hlovm binary
for the comparisons with the command line."""

import gc
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

import numpy as np
import pytest

import hlovm

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
BINARY = os.environ.get("HLOVM_BINARY", str(ROOT / "build" / "repl" / "hlovm"))

hlovm._hlovm._register_test_targets()


def identity(type_name, dims="5"):
    return hlovm.compile(f"""
HloModule identity_{type_name}
ENTRY e {{
  p = {type_name}[{dims}] parameter(0)
  ROOT t = ({type_name}[{dims}], {type_name}[{dims}]) tuple(p, p)
}}""")


ADD = """
HloModule add
ENTRY e {
  x = f32[8] parameter(0)
  y = f32[8] parameter(1)
  ROOT s = f32[8] add(x, y)
}"""

# A loop that never ends: only cancellation stops it.
FOREVER = """
HloModule forever
cond {
  c = s64[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  b = s64[] parameter(0)
  one = s64[] constant(1)
  ROOT n = s64[] add(b, one)
}
ENTRY e {
  z = s64[] parameter(0)
  ROOT w = s64[] while(z), condition=cond, body=body
}"""


# --- running modules --------------------------------------------------------


def test_mlp_example_gives_the_documented_values():
    m = hlovm.load(EXAMPLES / "mlp.hlo")
    x = np.array([[1, 2, 3], [-1, 0, 2]], np.float32)
    y = m(x)
    assert isinstance(y, np.ndarray) and y.dtype == np.float32
    np.testing.assert_array_equal(y, [[3.5, 0.5], [1, 0]])
    # The same from every compile option.
    for options in ({"passes": "none"}, {"fusion": False}, {"passes": "none", "fusion": False}):
        np.testing.assert_array_equal(hlovm.load(EXAMPLES / "mlp.hlo", **options)(x), y)
    np.testing.assert_array_equal(m.run(x, threads=2), y)


def test_matches_numpy_on_random_inputs():
    m = hlovm.compile("""
HloModule affine
ENTRY e {
  x = f32[16,32] parameter(0)
  w = f32[32,8] parameter(1)
  d = f32[16,8] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[16,8], f32[16,32]) tuple(d, x)
}""")
    rng = np.random.default_rng(1)
    x = rng.standard_normal((16, 32), np.float32)
    w = rng.standard_normal((32, 8), np.float32)
    d, x_back = m(x, w)
    np.testing.assert_allclose(d, x @ w, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(x_back, x)


def test_text_opt_dis_parameters_and_profile(capsys):
    m = hlovm.load(EXAMPLES / "mlp.hlo", passes="none")
    assert "HloModule mlp" in m.text
    assert m.parameters == [("x", "f32[2,3]{1,0}")]
    assert m.result_shape == "f32[2,2]{1,0}"
    opt = m.opt()
    assert opt.text.startswith("HloModule mlp")
    x = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(opt(x), m(x))
    m.dis()
    assert "dot" in capsys.readouterr().out
    assert "dot" in m.disassembly
    profile = m.profile(x)
    assert profile.rows and profile.by_opcode
    assert {"name", "calls", "self_ns", "share"} <= set(profile.rows[0])
    assert abs(sum(r["share"] for r in profile.by_opcode) - 1) < 0.05
    assert "instruction" in repr(profile) and "opcode" in repr(profile)
    np.testing.assert_array_equal(profile.result, m(x))


def test_replicated_all_reduce():
    m = hlovm.load(EXAMPLES / "allreduce_4.hlo")
    assert m.instances == 4
    xs = [np.array([1, 2, 0.5], np.float32) * (i + 1) for i in range(4)]
    results = m.run_replicated(xs)
    assert len(results) == 4
    total = sum(i * x for i, x in enumerate(xs))
    for r in results:
        np.testing.assert_array_equal(r, total)
    # One input list for all instances.
    for r in m.run_replicated([[xs[0]]]):
        np.testing.assert_array_equal(r, 6 * xs[0])


# --- element types ----------------------------------------------------------

SMALL_FLOAT_VALUES = np.array([1, 2, 0.5, 4, 1], np.float32)  # in every small float type
NATIVE = {
    "pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "c64": np.complex64, "c128": np.complex128,
}
SUB_BYTE_INTS = {"s2": [-2, -1, 0, 1, 1], "s4": [-8, -1, 0, 7, 3],
                 "u2": [0, 1, 2, 3, 3], "u4": [0, 1, 9, 15, 4]}


@pytest.mark.parametrize("type_name", hlovm.element_types())
def test_every_element_type_round_trips(type_name):
    m = identity(type_name)
    if type_name in NATIVE:
        dtype = NATIVE[type_name]
        if dtype is np.bool_:
            x = np.array([True, False, True, True, False])
        elif np.issubdtype(dtype, np.complexfloating):
            x = np.array([1 + 2j, -3.5j, 0, 7, 0.25 - 1j], dtype)
        else:
            x = np.array([1, 2, 3, 100, 0], dtype)
        a, b = m(x)
        assert a.dtype == dtype and b.dtype == dtype
        np.testing.assert_array_equal(a, x)
        np.testing.assert_array_equal(b, x)
        return
    if type_name in SUB_BYTE_INTS:
        values = np.array(SUB_BYTE_INTS[type_name])
        a, b = m(values)
        if not hlovm.HAVE_ML_DTYPES:
            assert a.dtype == (np.int8 if type_name[0] == "s" else np.uint8)
        np.testing.assert_array_equal(np.asarray(a, np.int64), values)
        np.testing.assert_array_equal(np.asarray(b, np.int64), values)
        bits, _ = m(values, raw=True)
        assert bits.dtype == np.uint8
        np.testing.assert_array_equal(bits & ((1 << int(type_name[1:])) - 1),
                                      values & ((1 << int(type_name[1:])) - 1))
        return
    # bf16 and the 8-, 6- and 4-bit floats: values in, values out (float32
    # without ml_dtypes), and the bits with raw=True, which go in again.
    a, b = m(SMALL_FLOAT_VALUES)
    if not hlovm.HAVE_ML_DTYPES:
        assert a.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(a, np.float32), SMALL_FLOAT_VALUES)
    bits, _ = m(SMALL_FLOAT_VALUES, raw=True)
    assert bits.dtype == (np.uint16 if type_name == "bf16" else np.uint8)
    if type_name == "bf16":
        np.testing.assert_array_equal(
            bits, (SMALL_FLOAT_VALUES.view(np.uint32) >> 16).astype(np.uint16))
    again, _ = m(bits, raw=True)
    np.testing.assert_array_equal(again, bits)
    values_again, _ = m(bits)
    np.testing.assert_array_equal(np.asarray(values_again, np.float32), SMALL_FLOAT_VALUES)


@pytest.mark.skipif(not hlovm.HAVE_ML_DTYPES, reason="ml_dtypes is not installed")
def test_ml_dtypes_arrays_in_and_out():
    import ml_dtypes

    m = identity("bf16")
    x = SMALL_FLOAT_VALUES.astype(ml_dtypes.bfloat16)
    a, _ = m(x)
    assert a.dtype == x.dtype
    np.testing.assert_array_equal(a.view(np.uint16), x.view(np.uint16))


def test_layouts_and_strides():
    m = hlovm.compile("""
HloModule sub
ENTRY e {
  a = f32[3,4] parameter(0)
  b = f32[3,4] parameter(1)
  ROOT s = f32[3,4] subtract(a, b)
}""")
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.ones((3, 4), np.float32)
    expected = a - b
    np.testing.assert_array_equal(m(np.asfortranarray(a), b), expected)
    big = np.arange(24, dtype=np.float32).reshape(3, 8)
    np.testing.assert_array_equal(m(big[:, ::2], b), big[:, ::2] - b)  # strided: copied
    np.testing.assert_array_equal(m(a.T.copy().T, b), expected)
    raw = np.zeros(12 * 4 + 1, np.uint8)[1:].view(np.float32).reshape(3, 4)  # misaligned
    raw[...] = a
    np.testing.assert_array_equal(m(raw, b), expected)
    np.testing.assert_array_equal(m(a.astype(">f4"), b), expected)  # byte-swapped
    np.testing.assert_array_equal(m(a.tolist(), 1.0 + np.zeros((3, 4), np.float32)), expected)
    # A result laid out column-major comes back with matching strides.
    col = hlovm.compile("""
HloModule col, entry_computation_layout={(f32[3,4]{1,0})->f32[3,4]{0,1}}
ENTRY e {
  a = f32[3,4] parameter(0)
  ROOT n = f32[3,4] negate(a)
}""")
    r = col(a)
    assert r.flags.f_contiguous
    np.testing.assert_array_equal(r, -a)


# --- zero copy and ownership -------------------------------------------------


def address_module(dims, type_name="f32"):
    return hlovm.compile(f"""
HloModule address
ENTRY e {{
  p = {type_name}[{dims}] parameter(0)
  ROOT a = u64[] custom-call(p), custom_call_target="hlovm.test.address_of"
}}""")


def test_inputs_are_read_in_place():
    m = address_module("1000,16")
    x = np.random.default_rng(0).standard_normal((1000, 16), np.float32)
    assert int(m(x)) == x.ctypes.data
    view = np.arange(64, dtype=np.float32)[16:]  # an offset into a larger buffer
    assert int(address_module("48")(view)) == view.ctypes.data
    for type_name, dtype in (("s64", np.int64), ("c128", np.complex128), ("pred", np.bool_)):
        y = np.zeros(10, dtype)
        assert int(address_module("10", type_name)(y)) == y.ctypes.data
    # Strided inputs are copied first.
    strided = np.zeros(2000 * 16, np.float32).reshape(2000, 16)[::2]
    assert int(m(strided)) != strided.ctypes.data


RSS_SCRIPT = textwrap.dedent("""
    import resource, sys
    import numpy as np, hlovm
    n = int(sys.argv[2]) << 20  # MiB of float32 / 4
    m = hlovm.compile(f'''
    HloModule sum
    add {{
      a = f32[] parameter(0)
      b = f32[] parameter(1)
      ROOT s = f32[] add(a, b)
    }}
    ENTRY e {{
      x = f32[{n}] parameter(0)
      z = f32[] constant(0)
      ROOT r = f32[] reduce(x, z), dimensions={{0}}, to_apply=add
    }}''')
    if sys.argv[1] == "copy":  # misaligned floats: copied before the run
        x = np.ones(4 * n + 1, np.uint8)[1:].view(np.float32)
    else:
        x = np.ones(n, np.float32)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    r = m(x)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print((after - before) * 1024 / (4 * n))
""")


def test_a_large_input_costs_no_copy():
    """Peak RSS grows by < 5% of a 1 GiB input; a misaligned 256 MiB input,
    which is copied, shows the measurement sees a copy."""
    env = dict(os.environ)
    run = lambda mode, mib: float(subprocess.run(  # noqa: E731
        [sys.executable, "-c", RSS_SCRIPT, mode, str(mib // 4)], env=env, check=True,
        capture_output=True, text=True).stdout)
    in_place = run("view", 1024)
    assert in_place < 0.05, in_place
    copied = run("copy", 256)
    assert copied > 0.9, copied


def test_results_own_the_vm_buffers_and_outlive_the_module():
    m = identity("f32", "1000")
    x = np.arange(1000, dtype=np.float32)
    a, b = m(x)
    del m
    gc.collect()
    assert not a.flags.owndata and a.base is not None  # a capsule owns the buffer
    assert a.ctypes.data != x.ctypes.data and a.ctypes.data != b.ctypes.data
    a += 1  # writable, and ours alone
    np.testing.assert_array_equal(a, x + 1)
    np.testing.assert_array_equal(b, x)


def test_threads_calling_one_module_get_identical_results():
    m = hlovm.compile("""
HloModule work
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[256,256] parameter(0)
  d = f32[256,256] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[256,256] tanh(d)
  z = f32[] constant(0)
  ROOT r = f32[256] reduce(t, z), dimensions={1}, to_apply=add
}""")
    x = np.random.default_rng(3).standard_normal((256, 256), np.float32) / 16
    expected = m(x, threads=1)
    results, errors = [], []

    def work():
        try:
            for _ in range(10):
                results.append(m(x, threads=2))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 60
    for r in results:
        assert r.tobytes() == expected.tobytes()


def test_the_gil_is_released_while_a_module_runs():
    m = hlovm.compile(FOREVER.replace("pred[] constant(true)", "pred[] compare(c, lim), direction=LT")
                      .replace("c = s64[] parameter(0)",
                               "c = s64[] parameter(0)\n  lim = s64[] constant(30000000)"))
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    start = time.perf_counter()
    assert int(m(np.int64(0))) == 30000000
    elapsed = time.perf_counter() - start
    done.set()
    t.join()
    during = [x for x in ticks if start < x < start + elapsed]
    assert elapsed > 0.05
    assert len(during) > 0.2 * elapsed / 0.002, (len(during), elapsed)


CTRL_C_SCRIPT = "\n".join([
    "import os, signal, threading, time",
    "import numpy as np, hlovm",
    f"m = hlovm.compile({FOREVER!r})",
    "threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()",
    "start = time.time()",
    "try:",
    "    m(np.int64(0))",
    "    print('finished')",
    "except KeyboardInterrupt:",
    "    print('interrupted after %.1f s' % (time.time() - start))",
    "# The module runs again afterwards.",
    f"add = hlovm.compile({ADD!r})",
    "print(add(np.ones(8, np.float32), np.ones(8, np.float32))[0])",
])


def test_ctrl_c_cancels_a_run():
    out = subprocess.run([sys.executable, "-c", CTRL_C_SCRIPT], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    assert lines[0].startswith("interrupted after"), out.stdout
    assert float(lines[0].split()[2]) < 5
    assert lines[1] == "2.0"


CTRL_C_REPLICATED_SCRIPT = "\n".join([
    "import os, signal, threading, time",
    "import numpy as np, hlovm",
    f"m = hlovm.compile({FOREVER.replace('HloModule forever', 'HloModule forever, replica_count=2')!r})",
    "threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()",
    "start = time.time()",
    "try:",
    "    m.run_replicated([np.int64(0)])",
    "    print('finished')",
    "except KeyboardInterrupt:",
    "    print('interrupted after %.1f s' % (time.time() - start))",
])


def test_ctrl_c_cancels_a_replicated_run():
    out = subprocess.run([sys.executable, "-c", CTRL_C_REPLICATED_SCRIPT], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("interrupted after"), out.stdout
    assert float(out.stdout.split()[2]) < 5


# --- errors -----------------------------------------------------------------


def test_parse_error_carries_its_location():
    with pytest.raises(hlovm.ParseError) as info:
        hlovm.compile("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT q = f32[2] frobnicate(p)\n}",
                      file_name="bad.hlo")
    e = info.value
    assert (e.file, e.line) == ("bad.hlo", 4)
    assert e.column > 1
    assert "frobnicate" in e.caret and e.caret.splitlines()[1].strip() == "^"
    assert isinstance(e, hlovm.Error)


def test_verify_error_carries_its_location():
    with pytest.raises(hlovm.VerifyError) as info:
        hlovm.compile("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT q = f32[3] negate(p)\n}")
    e = info.value
    assert e.line == 4 and e.column > 1 and e.file == ""
    assert "negate" in e.caret


def test_check_failure():
    m = hlovm.compile("""
HloModule checked
ENTRY e {
  x = f32[3] parameter(0)
  expected = f32[3] constant({1, 2, 3})
  check = () custom-call(x, expected), custom_call_target="check.expect_eq", custom_call_has_side_effect=true
  ROOT r = f32[3] negate(x)
}""")
    np.testing.assert_array_equal(m(np.array([1, 2, 3], np.float32)), [-1, -2, -3])
    with pytest.raises(hlovm.CheckFailure) as info:
        m(np.array([1, 5, 3], np.float32))
    assert info.value.index == (1,)
    assert info.value.actual == "5" and info.value.expected == "2"


def test_wrong_inputs_are_value_errors_naming_the_parameter():
    m = hlovm.compile(ADD)
    x = np.ones(8, np.float32)
    with pytest.raises(ValueError, match=r"takes 2 inputs \(x, y\), got 1"):
        m(x)
    with pytest.raises(ValueError, match=r"parameter 1 \(y\).*f32\[8\].*float64"):
        m(x, np.ones(8))
    with pytest.raises(ValueError, match=r"parameter 0 \(x\).*shape \(9,\)"):
        m(np.ones(9, np.float32), x)
    with pytest.raises(ValueError, match=r"instance 2: parameter 0 \(x\)"):
        hlovm.load(EXAMPLES / "allreduce_4.hlo").run_replicated(
            [np.ones(3, np.float32)] * 2 + [np.ones(4, np.float32)] + [np.ones(3, np.float32)])


def test_calls_take_threads_and_raw_by_keyword_only():
    m = hlovm.compile(ADD)
    x = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(m(x, x, threads=1, raw=False), 2 * x)
    np.testing.assert_array_equal(m.__call__(x, x, threads=2), 2 * x)
    with pytest.raises(TypeError, match="unexpected keyword argument 'thread'"):
        m(x, x, thread=1)
    with pytest.raises(TypeError):
        m(x, x, threads="two")


def test_every_kind_of_input_array_gives_the_same_result():
    """Contiguous aligned arrays are read directly; the others (strided,
    Fortran-ordered, byte-swapped, misaligned, lists, scalars) go through the
    general path: all give the same values."""
    m = hlovm.compile("""
HloModule m
ENTRY e {
  x = f32[3,4] parameter(0)
  y = f32[3,4] parameter(1)
  ROOT s = f32[3,4] subtract(x, y)
}""")
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    y = np.full((3, 4), 0.5, np.float32)
    expected = x - y
    misaligned = np.zeros(48 + 1, np.uint8)[1:].view(np.float32).reshape(3, 4)
    misaligned[...] = x
    for a in [x, np.asfortranarray(x), x.astype(">f4"), misaligned, x.tolist(),
              np.arange(24, dtype=np.float32).reshape(3, 8)[:, ::2] * 0 + x]:
        np.testing.assert_array_equal(m(a, y), expected)
    np.testing.assert_array_equal(m(x, 0.5 * np.ones((3, 4), np.float32)), expected)


# --- .npz -------------------------------------------------------------------


def test_npz_round_trips(tmp_path):
    m = hlovm.compile(ADD)
    rng = np.random.default_rng(5)
    inputs = {"y": rng.standard_normal(8, np.float32), "x": rng.standard_normal(8, np.float32)}
    np.savez(tmp_path / "in.npz", **inputs)
    loaded = hlovm.load_npz(tmp_path / "in.npz")
    assert list(loaded) == ["y", "x"]
    args = hlovm.arguments(m, loaded)  # by parameter name
    np.testing.assert_array_equal(args[0], inputs["x"])
    result = m(*args)
    hlovm.save_npz(tmp_path / "out.npz", result)
    back = hlovm.load_npz(tmp_path / "out.npz")
    assert back["result0"].tobytes() == result.tobytes()
    # By order when the names differ.
    np.savez(tmp_path / "anon.npz", inputs["x"], inputs["y"])
    np.testing.assert_array_equal(m(*hlovm.arguments(m, hlovm.load_npz(tmp_path / "anon.npz"))),
                                  result)
    # Bad files: an error, never a crash.
    (tmp_path / "bad.npz").write_bytes((tmp_path / "in.npz").read_bytes()[:100])
    with pytest.raises(Exception):
        hlovm.load_npz(tmp_path / "bad.npz")
    np.savez(tmp_path / "pickle.npz", o=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ValueError):
        hlovm.load_npz(tmp_path / "pickle.npz")


# --- the conformance cases, from Python and from the command line ------------


def conformance_sample():
    cases = sorted((ROOT / "conformance" / "cases").rglob("*.hlo"))
    return cases[::12]  # about 100 cases, every family


@pytest.mark.parametrize("case", conformance_sample(), ids=lambda p: p.stem)
def test_conformance_cases_match_the_command_line(case, tmp_path):
    cli = subprocess.run([BINARY, "run", f"--output={tmp_path}", str(case)], capture_output=True,
                         text=True, timeout=120)
    try:
        module = hlovm.load(case)
        result = module() if module.instances == 1 else tuple(module.run_replicated([[]]))
    except hlovm.CheckFailure:
        assert cli.returncode == 1, cli.stdout + cli.stderr
        return
    except hlovm.Error:
        assert cli.returncode != 0
        return
    assert cli.returncode == 0, cli.stderr
    leaves = []

    def flatten(r):
        if isinstance(r, tuple):
            for x in r:
                flatten(x)
        elif r is not None:
            leaves.append(r)

    flatten(result)
    # The files in the order written: "wrote DIR/result_0.npy[ (note)]".
    files = [line.split()[1] for line in cli.stdout.splitlines() if line.startswith("wrote ")]
    assert len(files) == len(leaves), (files, len(leaves))
    for f, leaf in zip(files, leaves):
        expected = np.load(f)
        got = np.asarray(leaf)
        if got.dtype != expected.dtype:  # types NumPy lacks: compare the values
            got = got.astype(expected.dtype)
        assert got.shape == expected.shape
        assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(expected).tobytes(), f
