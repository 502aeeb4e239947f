#!/usr/bin/env bash
# Command-line tests of `hlovm run` and `hlovm conformance`: inputs, exit
# codes, .npy output, process isolation. Usage: cli_test.sh path/to/hlovm
set -uo pipefail
hlovm=$1
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

source scripts/cli_expect.sh  # expect, expect_output, expect_error

# hlovm run: literal inputs; relu(x*w+b) computed by hand.
expect "relu example" 0 "$hlovm" run examples/relu_affine.hlo 'f32[2,3] {{1, -2, 3}, {-4, 5, -6}}' \
  'f32[2,3] {{0.5, 0.5, 0.5}, {2, 2, 2}}' 'f32[3] {1, 0, -10}'
expect_output "relu example" "{ 1.5, 0, 0 }"
expect_output "relu example" "{ 0, 10, 0 }"
# The scan example: running sums by hand.
# --flush_denormals computes as XLA:CPU does: the subnormal product
# (smallest normal / 4) is written as zero, a normal one is not.
printf 'HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  q = f32[2] constant({0.25, 2})\n  ROOT m = f32[2] multiply(a, q)\n}\n' >"$tmp/subnormal.hlo"
expect "subnormals kept" 0 "$hlovm" run "$tmp/subnormal.hlo" 'f32[2] {1.17549435e-38, 1.17549435e-38}'
expect_output "subnormals kept" "{2.93873588e-39, 2.3509887e-38}"
expect "subnormals flushed" 0 "$hlovm" run --flush_denormals "$tmp/subnormal.hlo" \
  'f32[2] {1.17549435e-38, 1.17549435e-38}'
expect_output "subnormals flushed" "{0, 2.3509887e-38}"

expect "scan example" 0 "$hlovm" run examples/scan_loop.hlo 'f32[8] {1, 2, 3, 4, 5, 6, 7, 8}'
expect_output "scan example" "{1, 3, 6, 10, 15, 21, 28, 36}"
# `hlovm FILE.hlo` is `hlovm run FILE.hlo`; a bare value takes the parameter's shape.
expect "bare value" 0 "$hlovm" examples/newton_loop.hlo '{4, 16, 1, 0.25}'
expect_output "bare value" "{2, 4, 1, 0.5}"
# --random is deterministic per seed and differs between seeds.
expect "random seed 7" 0 "$hlovm" run examples/newton_loop.hlo --random=7
cp "$tmp/out" "$tmp/seed7"
expect "random seed 7 again" 0 "$hlovm" run --random --seed=7 examples/newton_loop.hlo
cmp -s "$tmp/out" "$tmp/seed7" || { echo "FAIL: --random=7 is not deterministic"; failures=$((failures + 1)); }
expect "random seed 8" 0 "$hlovm" run examples/newton_loop.hlo --random=8
cmp -s "$tmp/out" "$tmp/seed7" && { echo "FAIL: seeds 7 and 8 gave the same values"; failures=$((failures + 1)); }
# Bad input exits 2 with a clear message.
expect "no inputs" 2 "$hlovm" run examples/newton_loop.hlo
expect_error "no inputs" "takes 1 input, 0 given"
expect "wrong shape" 2 "$hlovm" run examples/newton_loop.hlo 'f32[3] {1, 2, 3}'
expect_error "wrong shape" "is f32[3], but parameter 0 is f32[4]"
expect "bad literal" 2 "$hlovm" run examples/newton_loop.hlo 'f32[4] {1, 2'
expect "missing file" 2 "$hlovm" run "$tmp/none.hlo"
expect "missing npy" 2 "$hlovm" run examples/newton_loop.hlo "$tmp/none.npy"
printf 'not numpy' >"$tmp/bad.npy"
expect "bad npy" 2 "$hlovm" run examples/newton_loop.hlo "$tmp/bad.npy"
expect_error "bad npy" "not a valid .npy file"
expect "bad --elided" 2 "$hlovm" run --elided=maybe examples/newton_loop.hlo '{1, 2, 3, 4}'
cat >"$tmp/huge.hlo" <<'HLO'
HloModule huge
ENTRY %main (x: f32[100000000000]) -> f32[100000000000] {
  %x = f32[100000000000] parameter(0)
  ROOT %n = f32[100000000000] negate(%x)
}
HLO
expect "huge shape" 2 "$hlovm" run "$tmp/huge.hlo" --random
# Bad-input sweep: every case is a clear error with exit 2 (exit 1 for
# `check`, whose job is to report a failed check), never a crash.
expect "too many inputs" 2 "$hlovm" run examples/newton_loop.hlo '{1, 2, 3, 4}' '{1, 2, 3, 4}'
expect_error "too many inputs" "takes 1 input, 2 given"
expect "huge literal input" 2 "$hlovm" run examples/newton_loop.hlo 'f32[100000000000] {}'
expect_error "huge literal input" "cannot allocate"
npy() {  # file, header dict, data bytes (printf format)
  python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
h = sys.argv[2].encode()
h += b' ' * (64 - (10 + len(h) + 1) % 64) + b'\n'
data = bytes(sys.argv[3], 'latin-1').decode('unicode_escape').encode('latin-1')
open(sys.argv[1], 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h + data)
PY
}
if command -v python3 >/dev/null; then
  npy "$tmp/huge.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000,), }" ''
  expect "huge npy" 2 "$hlovm" run examples/newton_loop.hlo "$tmp/huge.npy"
  expect_error "huge npy" "truncated"
  npy "$tmp/short.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }" '\x00\x00\x00\x00'
  expect "short npy" 2 "$hlovm" run examples/newton_loop.hlo "$tmp/short.npy"
  npy "$tmp/overflow.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }" ''
  expect "overflowing npy shape" 2 "$hlovm" run examples/newton_loop.hlo "$tmp/overflow.npy"
  npy "$tmp/negative.npy" "{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }" ''
  expect "negative npy shape" 2 "$hlovm" run examples/newton_loop.hlo "$tmp/negative.npy"
  npy "$tmp/object.npy" "{'descr': '|O', 'fortran_order': False, 'shape': (4,), }" ''
  expect "object npy" 2 "$hlovm" run examples/newton_loop.hlo "$tmp/object.npy"
  npy "$tmp/s64.npy" "{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }" \
    '\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'
  expect "npy of the wrong type" 2 "$hlovm" run examples/newton_loop.hlo "$tmp/s64.npy"
  expect_error "npy of the wrong type" "but parameter 0 is f32[4]"
fi
printf '\x93NUMPY\x01\x00\x40\x00{' >"$tmp/cut.npy"
expect "truncated npy header" 2 "$hlovm" run examples/newton_loop.hlo "$tmp/cut.npy"
mkdir -p "$tmp/dir.npy" "$tmp/dir.hlo"
expect "directory as npy" 2 "$hlovm" run examples/newton_loop.hlo "$tmp/dir.npy"
expect_error "directory as npy" "is a directory"
: >"$tmp/empty.hlo"
printf 'garbage {{{ ] ) "' >"$tmp/garbage.hlo"
head -c 4096 /dev/urandom >"$tmp/binary.hlo"
printf 'HloModule m\nENTRY %%e {\n  ROOT %%c = f32[] constant(1)\n\x00\xff\xfe' >"$tmp/nul.hlo"
for f in empty garbage binary nul dir; do
  expect "run $f" 2 "$hlovm" run "$tmp/$f.hlo"
  expect "bare $f" 2 "$hlovm" "$tmp/$f.hlo"
  expect "dis $f" 2 "$hlovm" dis "$tmp/$f.hlo"
  expect "fmt $f" 2 "$hlovm" fmt "$tmp/$f.hlo"
  expect "fmt -i $f" 2 "$hlovm" fmt -i "$tmp/$f.hlo"
done
expect "run directory" 2 "$hlovm" run "$tmp/dir.hlo"
expect_error "run directory" "is a directory"
for cmd in check fmt dis; do
  expect "$cmd directory" 2 "$hlovm" "$cmd" "$tmp/dir.hlo"
  expect_error "$cmd directory" "is a directory"
done

# --help lists the commands that exist; no command at all is a usage error.
expect "help" 0 "$hlovm" --help
expect_output "help" "hlovm run"
expect_output "help" "hlovm conformance"
expect "command help" 0 "$hlovm" run --help
expect_output "command help" "Usage: hlovm run"
# Each command takes only its own flags: another one is a usage error (exit 2)
# that names the command and the flag, and `COMMAND --help` lists them.
expect "check --replicas" 2 "$hlovm" check --replicas=4 examples/newton_loop.hlo
expect_error "check --replicas" "hlovm check: unknown flag --replicas (hlovm check takes: --split_input_file)"
expect "fmt --threads" 2 "$hlovm" fmt --threads=2 examples/newton_loop.hlo
expect_error "fmt --threads" "hlovm fmt: unknown flag --threads"
expect "dis --random" 2 "$hlovm" dis --random examples/newton_loop.hlo
expect_error "dis --random" "hlovm dis: unknown flag --random"
expect "conformance --partitions" 2 "$hlovm" conformance --partitions=2 conformance/cases
expect_error "conformance --partitions" "hlovm conformance: unknown flag --partitions"
expect "REPL --passes" 2 bash -c "echo 'x = f32[2] constant({1, 2})' | '$hlovm' --passes=none"
expect_error "REPL --passes" "hlovm repl: unknown flag --passes"
expect "no such flag" 2 "$hlovm" run --frobnicate examples/newton_loop.hlo '{1, 2, 3, 4}'
expect_error "no such flag" "hlovm run: unknown flag --frobnicate"
expect "bad flag value" 2 "$hlovm" run --threads=many examples/newton_loop.hlo '{1, 2, 3, 4}'
expect_error "bad flag value" "--threads: 'many' is not an integer"
# Every numeric flag has a range (repl/options.h): a value outside it is a
# usage error that names the flag and the range.
range_case() {  # expected stderr text, command words...
  local message=$1
  shift
  expect "range: $*" 2 "$hlovm" "$@"
  expect_error "range: $*" "$message"
}
nl=examples/newton_loop.hlo
range_case "hlovm run: --replicas=-1 is out of range (accepted: 0 or more)" run --replicas=-1 $nl --random
range_case "--partitions=-1 is out of range (accepted: 0 or more)" run --partitions=-1 $nl --random
range_case "--threads=-2 is out of range (accepted: 0 to 4096)" run --threads=-2 $nl --random
range_case "--collective_timeout=nan is out of range (accepted: more than 0, at most 1000000)" \
  run --collective_timeout=nan $nl --random
range_case "--collective_timeout=inf is out of range" run --collective_timeout=inf $nl --random
range_case "--collective_timeout=0 is out of range" run --collective_timeout=0 $nl --random
range_case "hlovm conformance: --jobs=-1 is out of range (accepted: 0 to 4096)" \
  conformance --jobs=-1 conformance/cases
range_case "--timeout=0 is out of range (accepted: more than 0, at most 1000000)" \
  conformance --timeout=0 conformance/cases
range_case "--timeout=-1 is out of range" conformance --timeout=-1 conformance/cases
range_case "--timeout=nan is out of range" conformance --timeout=nan conformance/cases
range_case "--memory_limit_mb=-1 is out of range (accepted: 0 to 1073741824)" \
  conformance --memory_limit_mb=-1 conformance/cases
range_case "--min_pass_rate=2 is out of range (accepted: -1 to 1)" \
  conformance --min_pass_rate=2 conformance/cases
range_case "--iterations=0 is out of range (accepted: 1 or more)" bench --iterations=0 $nl --random
range_case "--warmup=-1 is out of range (accepted: 0 or more)" bench --warmup=-1 $nl --random
range_case "--top=0 is out of range (accepted: 1 or more)" bench --top=0 $nl --random
range_case "--op_name_depth=0 is out of range (accepted: 1 or more)" bench --op_name_depth=0 $nl --random
range_case "--peak_gflops=-1 is out of range (accepted: 0 or more, finite)" \
  bench --peak_gflops=-1 $nl --random
range_case "--by must be instruction or op_name, not 'opcode'" bench --by=opcode $nl --random
range_case "--seed: '-1' is not a non-negative integer" run --seed=-1 $nl --random
expect "range: repl --threads=-1" 2 "$hlovm" repl --threads=-1 </dev/null
expect_error "range: repl --threads=-1" "hlovm repl: --threads=-1 is out of range"
expect "range in help" 0 "$hlovm" conformance --help
expect_output "range in help" "(default: 120; accepted: more than 0, at most 1000000)"
# A flag that takes a file takes it only as --flag=FILE: `--json --iterations=3`
# is a usage error, and no file named `--iterations=3` appears.
mkdir -p "$tmp/cwd"
expect "bench --json without a file" 2 bash -c \
  "cd '$tmp/cwd' && exec '$hlovm' bench --json --iterations=3 '$PWD/examples/scan_loop.hlo' --random"
expect_error "bench --json without a file" "hlovm bench: --json takes its FILE only as --json=FILE"
[ -e "$tmp/cwd/--iterations=3" ] && { echo "FAIL: bench wrote a file named --iterations=3"; failures=$((failures + 1)); }
[ -z "$(ls -A "$tmp/cwd")" ] || { echo "FAIL: bench --json left files: $(ls -A "$tmp/cwd")"; failures=$((failures + 1)); }
expect "run --output without a directory" 2 "$hlovm" run --output "$tmp/cwd" examples/newton_loop.hlo '{1, 2, 3, 4}'
expect "bench --json=FILE" 0 "$hlovm" bench --json="$tmp/bench.json" --iterations 2 --warmup=0 \
  examples/scan_loop.hlo --random
grep -q '"iterations": 2' "$tmp/bench.json" || { echo "FAIL: bench --json=FILE"; failures=$((failures + 1)); }
# The flags of run still work for run, in every spelling: --flag=value,
# --flag value, dashes for underscores, --noflag, before the command.
expect "run flags" 0 "$hlovm" run --threads 2 --passes=none --no-fusion --nodump_after_passes \
  --fft-plan=estimate --elided=zeros examples/scan_loop.hlo 'f32[8] {1, 2, 3, 4, 5, 6, 7, 8}'
expect_output "run flags" "{1, 3, 6, 10, 15, 21, 28, 36}"
expect "flags before the command" 0 "$hlovm" --threads 1 run --flush_denormals=false \
  examples/scan_loop.hlo 'f32[8] {1, 2, 3, 4, 5, 6, 7, 8}'
expect_output "flags before the command" "{1, 3, 6, 10, 15, 21, 28, 36}"
expect "dis flags" 0 "$hlovm" dis --passes=none --no_fusion --dump-after-passes examples/scan_loop.hlo
# --fft_plan is a compile option of the module: dis shows each fft's mode.
printf 'HloModule m\nENTRY e {\n  x = c64[2,16] parameter(0)\n  ROOT f = c64[2,16] fft(x), fft_type=FFT, fft_length={16}\n}\n' >"$tmp/fft.hlo"
expect "dis fft estimate" 0 "$hlovm" dis "$tmp/fft.hlo"
expect_output "dis fft estimate" "batch=2 chunk=2 estimate"
expect "dis fft measure" 0 env XDG_CACHE_HOME="$tmp/cache" "$hlovm" dis --fft_plan=measure "$tmp/fft.hlo"
expect_output "dis fft measure" "batch=2 chunk=2 measure"
[ -f "$tmp/cache/hlovm/fftwf_wisdom" ] || { echo "FAIL: --fft_plan=measure kept no wisdom"; failures=$((failures + 1)); }
expect "bad --passes" 2 "$hlovm" opt --passes=nonsense examples/scan_loop.hlo
expect_error "bad --passes" "hlovm opt: unknown pass 'nonsense'"
# Per-command help lists that command's flags and no others.
expect "run help flags" 0 "$hlovm" run --help
expect_output "run help flags" "--replicas=N"
expect_output "run help flags" "--output=DIR"
expect_output "run help flags" "--passes=none|default|LIST"
expect "check help" 0 "$hlovm" check --help
expect_output "check help" "Usage: hlovm check"
expect_output "check help" "--split_input_file"
grep -qF -- "--replicas" "$tmp/out" && { echo "FAIL: check --help lists --replicas"; failures=$((failures + 1)); }
expect "bench help" 0 "$hlovm" bench --help
expect_output "bench help" "--json=FILE"
expect_output "bench help" "--iterations=N"
expect "repl help" 0 "$hlovm" repl --help
expect_output "repl help" "--echo"
expect "helpfull" 0 "$hlovm" --helpfull
expect_output "helpfull" "--memory_limit_mb=MIB"
# No command is the REPL; with stdin not a terminal it reads a script.
expect "no command: the REPL" 0 bash -c "echo 'x = f32[2] constant({1, 2})' | '$hlovm'"
expect_output "no command: the REPL" "x = f32[2] {1, 2}"
expect "REPL script error" 1 bash -c "echo 'y = add(x, x)' | '$hlovm'"
for f in empty garbage binary nul; do
  expect "check $f" 1 "$hlovm" check "$tmp/$f.hlo"
done
for f in garbage binary nul; do
  expect "check --split_input_file $f" 1 "$hlovm" check --split_input_file "$tmp/$f.hlo"
done
expect "check missing" 2 "$hlovm" check "$tmp/none.hlo"
expect "dis missing" 2 "$hlovm" dis "$tmp/none.hlo"
expect "fmt missing" 2 "$hlovm" fmt "$tmp/none.hlo"
expect "run usage" 2 "$hlovm" run
expect "dis usage" 2 "$hlovm" dis
expect "fmt usage" 2 "$hlovm" fmt
expect "check usage" 2 "$hlovm" check
expect "unknown command" 2 "$hlovm" frobnicate
cmp -s "$tmp/garbage.hlo" <(printf 'garbage {{{ ] ) "') || { echo "FAIL: fmt -i rewrote a file that does not parse"; failures=$((failures + 1)); }

# .npy output, read back as input (written by hlovm, read by hlovm: the
# bytes NumPy writes are checked by core/npy_test.cc).
expect "npy output" 0 "$hlovm" run examples/newton_loop.hlo '{81, 1, 16, 256}' --output="$tmp/out_dir"
[ -f "$tmp/out_dir/result.npy" ] || { echo "FAIL: no result.npy"; failures=$((failures + 1)); }
expect "npy input" 0 "$hlovm" run examples/newton_loop.hlo "$tmp/out_dir/result.npy"
expect_output "npy input" "{3, 1, 2, 4}"
# --output creates only its own directory, never a chain of them from a
# mistyped path; a missing parent or a file in the way is a usage error.
expect "output in a missing directory" 2 "$hlovm" run examples/newton_loop.hlo '{81, 1, 16, 256}' \
  --output="$tmp/no_such/x/y"
expect_error "output in a missing directory" "--output=$tmp/no_such/x/y: $tmp/no_such/x is not an existing directory"
[ -e "$tmp/no_such" ] && { echo "FAIL: --output created $tmp/no_such"; failures=$((failures + 1)); }
expect "output with a trailing slash" 0 "$hlovm" run examples/newton_loop.hlo '{81, 1, 16, 256}' \
  --output="$tmp/out_dir2/"
[ -f "$tmp/out_dir2/result.npy" ] || { echo "FAIL: no out_dir2/result.npy"; failures=$((failures + 1)); }
expect "output into an existing directory" 0 "$hlovm" run examples/newton_loop.hlo '{81, 1, 16, 256}' \
  --output="$tmp/out_dir"
# (--output=FILE.npy|.npz|.json writes one file; any other name is a directory.)
printf 'x' >"$tmp/out_dir/plain_file"
expect "output over a file" 2 "$hlovm" run examples/newton_loop.hlo '{81, 1, 16, 256}' \
  --output="$tmp/out_dir/plain_file"
expect_error "output over a file" "plain_file: not a directory"
# Elided constants: XLA's counter fill, with a warning; zeros; or an error.
cat >"$tmp/elided.hlo" <<'HLO'
HloModule elided
ENTRY %main () -> s32[11] {
  ROOT %a = s32[11] constant({...})
}
HLO
expect "elided xla" 0 "$hlovm" run "$tmp/elided.hlo"
expect_output "elided xla" "{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}"
expect_error "elided xla" "1 elided constant"
expect "elided zeros" 0 "$hlovm" run --elided=zeros "$tmp/elided.hlo"
expect_output "elided zeros" "{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}"
expect "elided error" 2 "$hlovm" run --elided=error "$tmp/elided.hlo"

# hlovm conformance: a passing, a failing and a hanging case.
mkdir -p "$tmp/cases"
cat >"$tmp/cases/pass.hlo" <<'HLO'
// family: add
HloModule pass, entry_computation_layout={()->s32[2]{0}}
ENTRY %main () -> s32[2] {
  %a = s32[2]{0} constant({1, 2})
  ROOT %r = s32[2]{0} add(s32[2]{0} %a, s32[2]{0} %a)
  %e = s32[2]{0} constant({2, 4})
  %check = () custom-call(s32[2]{0} %r, s32[2]{0} %e), custom_call_target="check.expect_eq", custom_call_has_side_effect=true
}
HLO
sed -e 's/pass/fail/' -e 's/{2, 4}/{2, 5}/' "$tmp/cases/pass.hlo" >"$tmp/cases/fail.hlo"
cat >"$tmp/cases/hang.hlo" <<'HLO'
// family: while
HloModule hang, entry_computation_layout={()->s32[]}
%cond (p: s32[]) -> pred[] {
  %p = s32[] parameter(0)
  ROOT %t = pred[] constant(true)
}
%body (q: s32[]) -> s32[] {
  ROOT %q = s32[] parameter(0)
}
ENTRY %main () -> s32[] {
  %z = s32[] constant(0)
  ROOT %w = s32[] while(s32[] %z), condition=%cond, body=%body
  %check = () custom-call(s32[] %w, s32[] %z), custom_call_target="check.expect_eq", custom_call_has_side_effect=true
}
HLO
expect "conformance pass" 0 "$hlovm" conformance "$tmp/cases/pass.hlo"
expect "conformance compare threads" 0 "$hlovm" conformance --compare_threads "$tmp/cases/pass.hlo"
expect "conformance exec children" 0 "$hlovm" conformance --exec_children "$tmp/cases/pass.hlo"
expect "conformance list" 0 "$hlovm" conformance --list "$tmp/cases"
expect_output "conformance list" "hang"
expect "conformance mixed" 1 "$hlovm" conformance --jobs=2 --timeout=2 \
  --junit="$tmp/r.xml" --json="$tmp/r.json" "$tmp/cases"
expect_output "conformance mixed" "FAILED fail: check.expect_eq"
expect_output "conformance mixed" "at {1}: actual 4, expected 5"
expect_output "conformance mixed" "ERRORED hang: timed out"
expect_output "conformance mixed" "passed 1 of 3 cases"
grep -q 'failures="1" errors="1"' "$tmp/r.xml" || { echo "FAIL: junit counts"; failures=$((failures + 1)); }
grep -q '"pass_rate"' "$tmp/r.json" || { echo "FAIL: json summary"; failures=$((failures + 1)); }
expect "conformance filter" 0 "$hlovm" conformance --filter='^pass$' "$tmp/cases"
expect "conformance min pass rate met" 0 "$hlovm" conformance --timeout=2 --min_pass_rate=0.3 "$tmp/cases"
expect "conformance min pass rate missed" 1 "$hlovm" conformance --timeout=2 --min_pass_rate=0.5 "$tmp/cases"
expect "conformance bad regex" 2 "$hlovm" conformance --filter='(' "$tmp/cases"
expect "conformance no such path" 2 "$hlovm" conformance "$tmp/nothing"
# Odd selections: nothing to run is bad input, never "100 %"; a link loop
# and a path given twice run each case once; a case without checks errs.
mkdir -p "$tmp/empty" "$tmp/odd"
expect "conformance empty folder" 2 "$hlovm" conformance "$tmp/empty"
expect_error "conformance empty folder" "no .hlo case files"
expect "conformance filter matches nothing" 2 "$hlovm" conformance --filter='^none$' "$tmp/cases"
cp "$tmp/cases/pass.hlo" "$tmp/odd/pass.hlo"
ln -s . "$tmp/odd/loop"
expect "conformance loop and twice" 0 "$hlovm" conformance "$tmp/odd" "$tmp/odd" "$tmp/odd/loop/pass.hlo"
expect_output "conformance loop and twice" "passed 1 of 1 cases"
mkfifo "$tmp/odd/fifo.hlo"
expect "conformance fifo" 2 "$hlovm" conformance "$tmp/odd"
expect_error "conformance fifo" "fifo.hlo: a FIFO"
rm "$tmp/odd/fifo.hlo"
grep -v 'check' "$tmp/cases/pass.hlo" >"$tmp/odd/unchecked.hlo"
expect "conformance no checks" 1 "$hlovm" conformance "$tmp/odd"
expect_output "conformance no checks" "ERRORED unchecked: the case has no checks"

# hlovm bench: timings, memory, the profile tables and a trace that parses as
# JSON with one complete event per executed instruction and loop iteration.
expect "bench" 0 "$hlovm" bench --iterations=2 examples/scan_loop.hlo 'f32[8] {1, 2, 3, 4, 5, 6, 7, 8}'
expect_output "bench" "run       min"
expect_output "bench" "peak RSS"
expect "bench profile" 0 "$hlovm" bench --random --iterations=1 --profile --top=3 \
  --peak-gflops=100 --peak-gbps=20 --trace="$tmp/trace.json" examples/scan_loop.hlo
expect_output "bench profile" "by opcode (self time; top 3"
expect_output "bench profile" "by instruction (self time"
expect_output "bench profile" "roofline 100.0 GFLOP/s, 20.0 GB/s (given)"
if command -v python3 >/dev/null; then
  python3 - "$tmp/trace.json" <<'PY' || { echo "FAIL: bench trace"; failures=$((failures + 1)); }
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
slices = [e for e in events if e["ph"] == "X"]
iterations = [e for e in slices if e.get("cat") == "iteration"]
assert len(iterations) == 8, len(iterations)          # the scan runs 8 trips
assert all(e["dur"] >= 0 and "ts" in e for e in slices)
loop = [e for e in slices if e.get("cat") == "while"]
assert len(loop) == 1 and all(loop[0]["ts"] <= e["ts"] for e in iterations)
PY
fi
expect "bench by op_name" 0 "$hlovm" bench --random --iterations=1 --profile --by=op_name \
  --peak-gflops=100 --peak-gbps=20 examples/mlp.hlo
expect_output "bench by op_name" "by op_name (self time"
expect "bench bad --by" 2 "$hlovm" bench --by=nothing examples/mlp.hlo
expect "bench missing file" 2 "$hlovm" bench "$tmp/none.hlo"
expect "bench wrong inputs" 2 "$hlovm" bench examples/newton_loop.hlo
expect_error "bench wrong inputs" "takes 1 input, 0 given"
# Multi-instance runs: one line for identical results, one per instance
# otherwise; a collective a peer skips fails every instance at once (exit 1).
cat >"$tmp/ar.hlo" <<'HLO'
HloModule ar, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[3] parameter(0)
  ROOT r = f32[3] all-reduce(p), replica_groups={}, to_apply=add
}
HLO
expect "replicas folded" 0 "$hlovm" run "$tmp/ar.hlo" 'f32[3] {1, 2, 3}'
expect_output "replicas folded" "replicas 0-1: f32[3] {2, 4, 6}"
expect "replicas override + per-replica" 0 "$hlovm" run --replicas=3 --per-replica "$tmp/ar.hlo" \
  'f32[3] {1, 2, 3}' 'f32[3] {1, 0, 0}' 'f32[3] {0, 0, 1}'
expect_output "replicas override + per-replica" "replicas 0-2: f32[3] {2, 2, 4}"
expect "per-replica input count" 2 "$hlovm" run --per-replica "$tmp/ar.hlo" 'f32[3] {1, 2, 3}'
expect "replicas npy output" 0 "$hlovm" run --replicas=2 --per-replica "$tmp/ar.hlo" \
  'f32[3] {1, 2, 3}' 'f32[3] {1, 0, 0}' --output="$tmp/ar_out"
expect_output "replicas npy output" "replica1_result.npy"
expect "replica result read back" 0 "$hlovm" run "$tmp/ar.hlo" "$tmp/ar_out/replica1_result.npy"
expect_output "replica result read back" "replicas 0-1: f32[3] {4, 4, 6}"
for r in 0 1; do
  [ -f "$tmp/ar_out/replica${r}_result.npy" ] || { echo "FAIL: no replica${r}_result.npy"; failures=$((failures + 1)); }
done
cat >"$tmp/pid.hlo" <<'HLO'
HloModule pid, replica_count=1, num_partitions=2
ENTRY e {
  ROOT p = u32[] partition-id()
}
HLO
expect "per instance lines" 0 "$hlovm" run "$tmp/pid.hlo"
expect_output "per instance lines" "replica 0 partition 1: u32[] 1"
cat >"$tmp/skip.hlo" <<'HLO'
HloModule skip, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
reduce_it {
  p = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(p), replica_groups={{0,1}}, to_apply=add
}
keep {
  ROOT p = f32[4] parameter(0)
}
ENTRY e {
  id = u32[] replica-id()
  zero = u32[] constant(0)
  is0 = pred[] compare(id, zero), direction=EQ
  x = f32[4] constant({1, 2, 3, 4})
  ROOT c = f32[4] conditional(is0, x, x), true_computation=reduce_it, false_computation=keep
}
HLO
expect "skipped collective" 1 timeout 5 "$hlovm" run --collective-timeout=30 "$tmp/skip.hlo"
expect_error "skipped collective" "replica 1 has already finished without taking part"
cat >"$tmp/feed.hlo" <<'HLO'
HloModule feed
ENTRY e {
  t = token[] after-all()
  in = (f32[2], token[]) infeed(t)
  v = f32[2] get-tuple-element(in), index=0
  o = token[] outfeed(v, t), outfeed_shape=f32[2]{0}
  ROOT r = f32[2] add(v, v)
}
HLO
expect "infeed and outfeed" 0 "$hlovm" run --infeed='f32[2] {1, 2}' "$tmp/feed.hlo"
expect_output "infeed and outfeed" "outfeed: f32[2] {1, 2}"
expect "empty infeed" 1 "$hlovm" run "$tmp/feed.hlo"
# Host transfers (send/recv with is_host_transfer=true) use the same queues.
cat >"$tmp/host.hlo" <<'HLO'
HloModule host
ENTRY e {
  t = token[] after-all()
  r = (f32[3], u32[], token[]) recv(t), channel_id=1, is_host_transfer=true
  rd = (f32[3], token[]) recv-done(r), channel_id=1, is_host_transfer=true
  v = f32[3] get-tuple-element(rd), index=0
  d = f32[3] add(v, v)
  s = (f32[3], u32[], token[]) send(d, t), channel_id=2, is_host_transfer=true
  sd = token[] send-done(s), channel_id=2, is_host_transfer=true
  ROOT out = f32[3] negate(v)
}
HLO
expect "host transfer" 0 "$hlovm" run --infeed='f32[3] {1, 2, 3}' "$tmp/host.hlo"
expect_output "host transfer" "outfeed: f32[3] {2, 4, 6}"
expect_output "host transfer" "f32[3] {-1, -2, -3}"
expect "host recv with nothing queued" 1 "$hlovm" run "$tmp/host.hlo"

# Hostile shapes and counts: exit 2 with the reason, no crash, no hang.
printf 'HloModule m\nENTRY e {\n  p = f32[0,4611686018427387904,4] parameter(0)\n  ROOT t = f32[4,4611686018427387904,0] transpose(p), dimensions={2,1,0}\n}\n' >"$tmp/zero.hlo"
expect "zero-size huge check" 1 "$hlovm" check "$tmp/zero.hlo"
expect_error "zero-size huge check" "zero.hlo:3:3: error: %p (parameter): shape f32[0,4611686018427387904,4] has no elements"
expect "zero-size huge run" 2 "$hlovm" run "$tmp/zero.hlo" 'f32[0,4611686018427387904,4] {}'
printf 'HloModule m\nENTRY e {\n  p = f32[3] parameter(0)\n  ROOT b = f32[3,4611686018427387904] broadcast(p), dimensions={0}\n}\n' >"$tmp/bcast.hlo"
expect "broadcast past int64" 2 "$hlovm" run "$tmp/bcast.hlo" 'f32[3] {1, 2, 3}'
expect_error "broadcast past int64" "shape f32[3,4611686018427387904] has more than 2^63 - 1 elements"
printf 'HloModule m\nENTRY e {\n  a = f32[1,4,4,1] parameter(0)\n  w = f32[2,2,1,1] parameter(1)\n  ROOT c = f32[?,3,3,1] convolution(a, w), window={size=2x2}, dim_labels=b01f_01io->b01f\n}\n' >"$tmp/unbounded.hlo"
expect "unbounded convolution" 1 "$hlovm" check "$tmp/unbounded.hlo"
expect_error "unbounded convolution" "has an unbounded dynamic dimension"
expect "replicas past the cap" 2 timeout 20 "$hlovm" run --replicas=100000 "$tmp/ar.hlo" 'f32[3] {1, 2, 3}'
expect_error "replicas past the cap" "100000 replicas x 1 partitions are more than the 1024 instances"
expect "replicas past int64" 2 timeout 20 "$hlovm" run --replicas=9223372036854775807 "$tmp/ar.hlo" 'f32[3] {1, 2, 3}'
sed 's/replica_count=2/replica_count=-3/' "$tmp/ar.hlo" >"$tmp/neg.hlo"
expect "negative replica_count" 1 "$hlovm" check "$tmp/neg.hlo"
expect_error "negative replica_count" "neg.hlo:1:29: error: replica_count must be at least 1, not -3"
sed 's/replica_count=2/replica_count=4, num_partitions=4611686018427387904/' "$tmp/ar.hlo" >"$tmp/rp.hlo"
expect "R x P overflow" 1 "$hlovm" check "$tmp/rp.hlo"
expect_error "R x P overflow" "4 replicas x 4611686018427387904 partitions are more than"

# StableHLO MLIR input: run, fmt --to=hlo (HLO text that check accepts), -i refused.
mlir=frontend/stablehlo/testdata/control_flow.mlir
expect "run .mlir" 0 "$hlovm" run "$mlir"
expect_output "run .mlir" "f32[] 8"
expect "fmt --to=hlo" 0 "$hlovm" fmt --to=hlo "$mlir"
cp "$tmp/out" "$tmp/from_mlir.hlo"
expect "check fmt --to=hlo output" 0 "$hlovm" check "$tmp/from_mlir.hlo"
cp "$mlir" "$tmp/keep.mlir"
expect "fmt -i .mlir" 2 "$hlovm" fmt -i "$tmp/keep.mlir"
expect_error "fmt -i .mlir" "is StableHLO text; -i would rewrite it as HLO"
expect "fmt --to=mlir" 2 "$hlovm" fmt --to=mlir "$mlir"
printf 'func.func @main() -> () {\n  %%0 = stablehlo.frobnicate : tensor<f32>\n  return\n}\n' >"$tmp/bad.mlir"
expect "unknown StableHLO op" 2 "$hlovm" run "$tmp/bad.mlir"
expect_error "unknown StableHLO op" "bad.mlir:2:8: error: unsupported operation 'stablehlo.frobnicate'"

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "all command-line tests passed"
