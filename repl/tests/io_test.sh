#!/usr/bin/env bash
# Command-line tests of the inputs and outputs of `hlovm run` and `hlovm
# bench`: no input padded or converted unless asked, .npy/.npz files as NumPy
# writes them (fixtures made here with NumPy), --random's seed and
# --save-inputs, and the result forms (--print, --output).
# Usage: io_test.sh path/to/hlovm [python3]
set -uo pipefail
hlovm=$(realpath "$1")
python=${2:-/usr/bin/python3}
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

source scripts/cli_expect.sh  # expect, expect_output, expect_error
check() {  # description, python snippet that must exit 0 (tmp is $T)
  if ! T="$tmp" "$python" -c "$2"; then
    echo "FAIL: $1"
    failures=$((failures + 1))
  fi
}

#===--- Nothing padded: every element must be given ----------------------===#
expect "scalar shaped literal for f32[8]" 2 "$hlovm" run examples/scan_loop.hlo 'f32[8] 5'
expect_error "scalar shaped literal for f32[8]" "one value given for f32[8], which has 8 elements"
expect_error "scalar shaped literal for f32[8]" "input 0 ('f32[8] 5') for parameter 0 (%input: f32[8])"
expect "bare scalar for f32[8]" 2 "$hlovm" run examples/scan_loop.hlo 5
expect_error "bare scalar for f32[8]" "one value given for f32[8]"
expect_error "bare scalar for f32[8]" "(or fill(VALUE) to repeat one value)"
[ -s "$tmp/out" ] && { echo "FAIL: a refused input printed a result"; failures=$((failures + 1)); }
expect "elided value" 2 "$hlovm" run examples/scan_loop.hlo '{...}'
expect_error "elided value" "gives none of the 8 elements"
expect "too few elements" 2 "$hlovm" run examples/scan_loop.hlo '{1, 2}'
expect_error "too few elements" "input 0 ('{1, 2}') for parameter 0 (%input: f32[8]): expects 8 elements in the []th element, but sees 2"
# fill(VALUE) is the explicit way to repeat one value.
expect "fill" 0 "$hlovm" run examples/scan_loop.hlo 'fill(5)'
expect_output "fill" "f32[8] {5, 10, 15, 20, 25, 30, 35, 40}"
expect "fill of a non-number" 2 "$hlovm" run examples/scan_loop.hlo 'fill(x)'
# --infeed values too.
printf 'HloModule feed\nENTRY e {\n  t = token[] after-all()\n  in = (f32[2], token[]) infeed(t)\n  ROOT v = f32[2] get-tuple-element(in), index=0\n}\n' >"$tmp/feed.hlo"
expect "infeed scalar for f32[2]" 2 "$hlovm" run --infeed='f32[2] 1' "$tmp/feed.hlo"
expect_error "infeed scalar for f32[2]" "one value given for f32[2]"
expect "infeed" 0 "$hlovm" run --infeed='f32[2] {1, 2}' "$tmp/feed.hlo"
expect_output "infeed" "f32[2] {1, 2}"
# The REPL's :run reads inputs the same way.
printf ':load examples/scan_loop.hlo\n:run 5\n:run f32[8] 5\n:run {1, 1, 1, 1, 1, 1, 1, 1}\n' >"$tmp/repl.txt"
expect "repl :run scalar" 1 "$hlovm" --echo <"$tmp/repl.txt"
expect_output "repl :run scalar" "one value given for f32[8], which has 8 elements"
expect_output "repl :run scalar" "f32[8] {1, 2, 3, 4, 5, 6, 7, 8}"
grep -qF "{5, 5, 10" "$tmp/out" && { echo "FAIL: repl padded"; failures=$((failures + 1)); }
grep -qF "{5, 0, 0" "$tmp/out" && { echo "FAIL: repl zero-padded"; failures=$((failures + 1)); }

#===--- .npy and .npz as NumPy writes them --------------------------------===#
mod() {  # file, parameter shape, result shape, root (uses %p)
  printf 'HloModule m\nENTRY e {\n  p = %s parameter(0)\n  ROOT r = %s %s\n}\n' "$2" "$3" "$4" >"$1"
}
mod "$tmp/f32.hlo" 'f32[4]' 'f32[4]' 'add(p, p)'
mod "$tmp/s32.hlo" 's32[]' 's32[]' 'add(p, p)'
mod "$tmp/bf16.hlo" 'bf16[3]' 'bf16[3]' 'add(p, p)'
mod "$tmp/f8.hlo" 'f8e4m3fn[3]' 'f32[3]' 'convert(p)'
mod "$tmp/s4.hlo" 's4[4]' 's32[4]' 'convert(p)'
mod "$tmp/u16.hlo" 'u16[2]' 'u16[2]' 'add(p, p)'
mod "$tmp/f16.hlo" 'f16[2]' 'f16[2]' 'add(p, p)'
mod "$tmp/c128.hlo" 'c128[2]' 'c128[2]' 'multiply(p, p)'
mod "$tmp/pred.hlo" 'pred[3]' 'pred[3]' 'not(p)'
mod "$tmp/f64.hlo" 'f64[2]' 'f64[2]' 'add(p, p)'
mod "$tmp/t.hlo" 'f32[2,3]' 'f32[3,2]' 'transpose(p), dimensions={1,0}'
printf 'HloModule two\nENTRY e {\n  x = f32[2] parameter(0)\n  w = s32[] parameter(1)\n  c = f32[] convert(w)\n  b = f32[2] broadcast(c), dimensions={}\n  ROOT r = f32[2] multiply(x, b)\n}\n' >"$tmp/two.hlo"
"$python" - "$tmp" <<'PY' || { echo "FAIL: making the NumPy fixtures"; exit 1; }
import sys, struct, numpy as np
t = sys.argv[1]
np.save(f'{t}/n.npy', 6)                                   # int64 scalar
np.save(f'{t}/f64x4.npy', np.array([1, 2.5, -3, 4]))       # float64
np.save(f'{t}/f32x4.npy', np.array([1, 2.5, -3, 4], np.float32))
np.save(f'{t}/big.npy', np.array([1, 2.5, -3, 4], '>f4'))  # big-endian
np.save(f'{t}/u16.npy', np.array([7, 65000], np.uint16))
np.save(f'{t}/f16.npy', np.array([0.5, -2], np.float16))
np.save(f'{t}/c128.npy', np.array([1 + 2j, -1j]))
np.save(f'{t}/bool.npy', np.array([True, False, True]))
np.save(f'{t}/f64x2.npy', np.array([0.1, 1e300]))
np.save(f'{t}/fortran.npy', np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
np.save(f'{t}/nonint.npy', np.array(2.5))
np.save(f'{t}/toolarge.npy', np.array(2**40))
np.save(f'{t}/f32x3.npy', np.array([1, 1.00390625, -3], np.float32))
def raw(path, descr, shape, data):  # a .npy as NumPy writes ml_dtypes arrays
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += ' ' * (63 - (10 + len(header)) % 64) + '\n'
    open(path, 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode() + data)
raw(f'{t}/bf16.npy', '<V2', '(3,)', struct.pack('<3H', 0x3fc0, 0xc120, 0x3f80))  # 1.5 -10 1
raw(f'{t}/bf16name.npy', 'bfloat16', '(3,)', struct.pack('<3H', 0x3fc0, 0xc120, 0x3f80))
raw(f'{t}/f8.npy', '<V1', '(3,)', bytes([0x38, 0xb0, 0x7e]))  # f8e4m3fn: 1 -0.5 448
raw(f'{t}/s4.npy', '|V1', '(4,)', bytes([0x07, 0xf8, 0xff, 0x0d]))  # 7 -8 -1 -3
raw(f'{t}/s4bad.npy', '|V1', '(4,)', bytes([0x07, 0x7f, 0xff, 0x0d]))
np.save(f'{t}/object.npy', np.array([1, 'a', None], dtype=object), allow_pickle=True)
np.save(f'{t}/strings.npy', np.array(['ab', 'c']))
np.save(f'{t}/struct.npy', np.zeros(2, dtype=[('a', '<f4'), ('b', '<i4')]))
data = open(f'{t}/f32x4.npy', 'rb').read()
open(f'{t}/cut.npy', 'wb').write(data[:-3])
np.savez(f'{t}/named.npz', w=np.array(3, np.int32), x=np.array([1, 2], np.float32))
np.savez(f'{t}/ordered.npz', np.array([1, 2], np.float32), np.array(3, np.int32))
np.savez_compressed(f'{t}/compressed.npz', x=np.array([1, 2], np.float32), w=np.array(3, np.int32))
np.savez(f'{t}/partial.npz', x=np.array([1, 2], np.float32), y=np.array(3, np.int32))
np.savez(f'{t}/pickle.npz', x=np.array([1, None], dtype=object))
zdata = open(f'{t}/compressed.npz', 'rb').read()
open(f'{t}/cut.npz', 'wb').write(zdata[:len(zdata) // 2])
PY

# NumPy's defaults (int64, float64) for s32/f32 parameters: refused, naming
# both types and the flag; converted with --convert-inputs.
expect "int64 npy for s32" 2 "$hlovm" run "$tmp/s32.hlo" "$tmp/n.npy"
expect_error "int64 npy for s32" "is s64[], but parameter 0 is s32[] (%p); --convert-inputs converts"
expect "int64 npy converted" 0 "$hlovm" run --convert-inputs "$tmp/s32.hlo" "$tmp/n.npy"
expect_output "int64 npy converted" "s32[] 12"
expect "float64 npy for f32" 2 "$hlovm" run "$tmp/f32.hlo" "$tmp/f64x4.npy"
expect_error "float64 npy for f32" "is f64[4], but parameter 0 is f32[4]"
expect "float64 npy converted" 0 "$hlovm" run --convert-inputs "$tmp/f32.hlo" "$tmp/f64x4.npy"
expect_output "float64 npy converted" "f32[4] {2, 5, -6, 8}"
expect "float to int must be integral" 2 "$hlovm" run --convert-inputs "$tmp/s32.hlo" "$tmp/nonint.npy"
expect_error "float to int must be integral" "element 0 (2.5) of f64[] cannot become s32: it is not an integer"
expect "int must fit" 2 "$hlovm" run --convert-inputs "$tmp/s32.hlo" "$tmp/toolarge.npy"
expect_error "int must fit" "does not fit in s32"
# f32 for bf16 is not rounded silently.
expect "f32 npy for bf16" 2 "$hlovm" run "$tmp/bf16.hlo" "$tmp/f32x3.npy"
expect_error "f32 npy for bf16" "is f32[3], but parameter 0 is bf16[3]"
expect "f32 npy rounded to bf16" 0 "$hlovm" run --convert-inputs "$tmp/bf16.hlo" "$tmp/f32x3.npy"
expect_output "f32 npy rounded to bf16" "bf16[3] {2, 2, -6}"
# Literal inputs follow the same rule.
expect "f32 literal for bf16" 2 "$hlovm" run "$tmp/bf16.hlo" 'f32[3] {1, 2, 3}'
expect_error "f32 literal for bf16" "--convert-inputs"
# Every NumPy dtype of the parameter's type, either byte order, Fortran order.
expect "big-endian f32" 0 "$hlovm" run "$tmp/f32.hlo" "$tmp/big.npy"
expect_output "big-endian f32" "f32[4] {2, 5, -6, 8}"
expect "uint16" 0 "$hlovm" run "$tmp/u16.hlo" "$tmp/u16.npy"
expect_output "uint16" "u16[2] {14, 64464}"
expect "float16" 0 "$hlovm" run "$tmp/f16.hlo" "$tmp/f16.npy"
expect_output "float16" "f16[2] {1, -4}"
expect "complex128" 0 "$hlovm" run "$tmp/c128.hlo" "$tmp/c128.npy"
expect_output "complex128" "c128[2] {(-3, 4), (-1, 0)}"
expect "bool" 0 "$hlovm" run "$tmp/pred.hlo" "$tmp/bool.npy"
expect_output "bool" "pred[3] {0, 1, 0}"
expect "float64" 0 "$hlovm" run "$tmp/f64.hlo" "$tmp/f64x2.npy"
expect_output "float64" "f64[2] {0.2, 2e+300}"
expect "fortran order" 0 "$hlovm" run "$tmp/t.hlo" "$tmp/fortran.npy"
expect_output "fortran order" "{ 0, 3 },"
expect_output "fortran order" "{ 2, 5 }"
# ml_dtypes: bf16 as '<V2' (or named), float8/int4 as raw 'V1'.
expect "ml_dtypes bf16" 0 "$hlovm" run "$tmp/bf16.hlo" "$tmp/bf16.npy"
expect_output "ml_dtypes bf16" "bf16[3] {3, -20, 2}"
expect "bfloat16 descr" 0 "$hlovm" run "$tmp/bf16.hlo" "$tmp/bf16name.npy"
expect_output "bfloat16 descr" "bf16[3] {3, -20, 2}"
expect "ml_dtypes float8" 0 "$hlovm" run "$tmp/f8.hlo" "$tmp/f8.npy"
expect_output "ml_dtypes float8" "f32[3] {1, -0.5, 448}"
expect "ml_dtypes int4" 0 "$hlovm" run "$tmp/s4.hlo" "$tmp/s4.npy"
expect_output "ml_dtypes int4" "s32[4] {7, -8, -1, -3}"
expect "int4 out of range" 2 "$hlovm" run "$tmp/s4.hlo" "$tmp/s4bad.npy"
expect_error "int4 out of range" "is not a s4 value"
expect "V1 for f32" 2 "$hlovm" run "$tmp/f32.hlo" "$tmp/f8.npy"
expect_error "V1 for f32" "raw 1-byte elements"
# Bad files: clear errors, never a crash.
expect "object npy" 2 "$hlovm" run "$tmp/f32.hlo" "$tmp/object.npy"
expect_error "object npy" "Python objects (stored with pickle, which hlovm never loads)"
expect "string npy" 2 "$hlovm" run "$tmp/f32.hlo" "$tmp/strings.npy"
expect_error "string npy" "strings"
expect "structured npy" 2 "$hlovm" run "$tmp/f32.hlo" "$tmp/struct.npy"
expect_error "structured npy" "a structured array (fields 'a': <f4, 'b': <i4)"
expect "truncated npy" 2 "$hlovm" run "$tmp/f32.hlo" "$tmp/cut.npy"
expect_error "truncated npy" "the data is truncated"
# .npz: by name, by order, deflated.
expect "npz by name" 0 "$hlovm" run "$tmp/two.hlo" "$tmp/named.npz"
expect_output "npz by name" "f32[2] {3, 6}"
expect "npz by order" 0 "$hlovm" run "$tmp/two.hlo" "$tmp/ordered.npz"
expect_output "npz by order" "f32[2] {3, 6}"
expect "npz deflated" 0 "$hlovm" run "$tmp/two.hlo" "$tmp/compressed.npz"
expect_output "npz deflated" "f32[2] {3, 6}"
expect "npz with some names" 2 "$hlovm" run "$tmp/two.hlo" "$tmp/partial.npz"
expect_error "npz with some names" "no array is named after parameter 1 (w)"
expect "npz with a pickle" 2 "$hlovm" run "$tmp/f32.hlo" "$tmp/pickle.npz"
expect_error "npz with a pickle" "pickle.npz:x: unsupported .npy dtype '|O'"
expect "truncated npz" 2 "$hlovm" run "$tmp/two.hlo" "$tmp/cut.npz"
expect_error "truncated npz" "not a valid .npz file"
expect "npz for bench" 0 "$hlovm" bench --iterations=1 --warmup=0 "$tmp/two.hlo" "$tmp/named.npz"
expect "convert for bench" 0 "$hlovm" bench --iterations=1 --warmup=0 --convert-inputs "$tmp/s32.hlo" "$tmp/n.npy"

#===--- --random: the seed is printed; --save-inputs -----------------------===#
expect "random seed printed" 0 "$hlovm" run examples/newton_loop.hlo --random --seed=5 \
  --save-inputs="$tmp/saved"
expect_error "random seed printed" "hlovm: random inputs, --seed=5"
expect_error "random inputs saved" "saved the inputs to $tmp/saved/0_a.npy"
cp "$tmp/out" "$tmp/random.out"
expect "saved inputs rerun" 0 "$hlovm" run examples/newton_loop.hlo "$tmp/saved/0_a.npy"
cmp -s "$tmp/out" "$tmp/random.out" || { echo "FAIL: saved inputs give another result"; failures=$((failures + 1)); }
expect "save to npz" 0 "$hlovm" run "$tmp/bf16.hlo" --random=3 --save-inputs="$tmp/in.npz"
cp "$tmp/out" "$tmp/random.out"
expect "npz inputs rerun" 0 "$hlovm" run "$tmp/bf16.hlo" "$tmp/in.npz"
cmp -s "$tmp/out" "$tmp/random.out" || { echo "FAIL: saved bf16 npz gives another result"; failures=$((failures + 1)); }
check "saved inputs load in NumPy" "
import numpy as np, os
x = np.load(os.environ['T'] + '/saved/0_a.npy'); assert x.dtype == np.float32 and x.shape == (4,)
z = np.load(os.environ['T'] + '/in.npz'); assert z['p'].dtype == np.dtype('V2') and z['p'].shape == (3,)"

#===--- Results: summarized, full, none, json, files ----------------------===#
printf 'HloModule big\nENTRY e {\n  ROOT i = s32[100,100] iota(), iota_dimension=1\n}\n' >"$tmp/big.hlo"
expect "summary" 0 "$hlovm" run "$tmp/big.hlo"
expect_output "summary" "  { 0, 1, 2, ..., 97, 98, 99 },"
expect_output "summary" "  ...,"
expect_error "summary" "--print=full prints every element"
[ "$(wc -l <"$tmp/out")" -le 10 ] || { echo "FAIL: summary printed $(wc -l <"$tmp/out") lines"; failures=$((failures + 1)); }
expect "print full" 0 "$hlovm" run --print=full "$tmp/big.hlo"
[ "$(wc -l <"$tmp/out")" = 102 ] || { echo "FAIL: --print=full printed $(wc -l <"$tmp/out") lines"; failures=$((failures + 1)); }
expect "print none" 0 "$hlovm" run --print=none "$tmp/big.hlo"
[ -s "$tmp/out" ] && { echo "FAIL: --print=none printed"; failures=$((failures + 1)); }
expect "print json" 0 "$hlovm" run --print=json "$tmp/big.hlo"
cp "$tmp/out" "$tmp/big.json"
check "json parses" "
import json, os
r = json.load(open(os.environ['T'] + '/big.json'))['result']
assert r['dtype'] == 's32' and r['shape'] == [100, 100] and r['data'][7][42] == 42"
expect "bad print" 2 "$hlovm" run --print=fancy "$tmp/big.hlo"
expect_error "bad print" "--print must be summary, full, none or json"
expect "output npz" 0 "$hlovm" run --output="$tmp/r.npz" examples/relu_affine.hlo --random=1
expect_output "output npz" "wrote $tmp/r.npz"
expect "output npy" 0 "$hlovm" run --output="$tmp/r.npy" "$tmp/big.hlo"
expect "output json" 0 "$hlovm" run --output="$tmp/r.json" "$tmp/big.hlo"
expect "output dir" 0 "$hlovm" run --output="$tmp/rdir" "$tmp/big.hlo"
expect_output "output dir" "wrote $tmp/rdir/result.npy"
check "outputs load" "
import json, os, numpy as np
T = os.environ['T']
a = np.load(T + '/r.npy'); assert a.shape == (100, 100) and a[3, 99] == 99
assert (np.load(T + '/rdir/result.npy') == a).all()
assert json.load(open(T + '/r.json'))['result']['data'][0][5] == 5
z = np.load(T + '/r.npz'); assert z['result'].shape == (2, 3)"
expect "output npy of a tuple" 2 "$hlovm" run --output="$tmp/t.npy" examples/mlp_train.hlo --random=1
expect_error "output npy of a tuple" "a .npy file holds one"
# A replicated module's results, one set per replica.
expect "replicated json" 0 "$hlovm" run --print=json examples/allreduce_4.hlo '{1, 2, 0.5}'
expect_output "replicated json" '"replica": 3'
expect "replicated summary" 0 "$hlovm" run examples/allreduce_4.hlo '{1, 2, 0.5}'
expect_output "replicated summary" "replicas 0-3: f32[3] {6, 12, 3}"

if [ "$failures" != 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "io_test: all passed"
