#!/usr/bin/env bash
# Command-line tests of `hlovm check` and `hlovm fmt` and of the exit codes
# every command documents: `check` refuses what `run` refuses (shape rules,
# custom-call targets, sizes) without running; each error names
# file:line:col, quotes the line with a caret and comes once, with no
# follow-on errors; unknown opcodes and attributes get a "did you mean";
# `fmt -i` keeps comments. Usage: check_cli_test.sh path/to/hlovm
set -uo pipefail
hlovm=$1
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

source scripts/cli_expect.sh  # expect, expect_output, expect_error
expect_errors() {  # description, how many `error:` lines stderr must hold
  local n
  n=$(grep -c 'error: ' "$tmp/err")
  if [ "$n" != "$2" ]; then
    echo "FAIL: $1: $n errors, expected $2"
    sed 's/^/  stderr: /' "$tmp/err" | head -12
    failures=$((failures + 1))
  fi
}

# --- check is as strict as run ----------------------------------------------
# A broadcast may not stretch a size-1 dimension (XLA's verifier).
cat >"$tmp/bcast.hlo" <<'HLO'
HloModule m

ENTRY main {
  %a = f32[2,1] parameter(0)
  %b = f32[2,5] broadcast(%a), dimensions={0,1}
  ROOT %r = f32[2,5] negate(%b)
}
HLO
expect "check broadcast" 1 "$hlovm" check "$tmp/bcast.hlo"
expect "run broadcast" 2 "$hlovm" run "$tmp/bcast.hlo" 'f32[2,1] {{1}, {2}}'
for cmd in check run; do
  "$hlovm" $cmd "$tmp/bcast.hlo" 'f32[2,1] {{1}, {2}}' >"$tmp/out" 2>"$tmp/err"
  expect_error "$cmd broadcast" "bcast.hlo:5:3: error: %b (broadcast): operand dimension 1 (size 1) maps to result dimension 1 (size 5)"
  expect_error "$cmd broadcast" "  %b = f32[2,5] broadcast(%a), dimensions={0,1}"
  expect_errors "$cmd broadcast" 1
done
sed -n 3p "$tmp/err" | grep -qx '  \^' || { echo "FAIL: run broadcast: no caret under column 3"; failures=$((failures + 1)); }

# An unknown custom-call target: found by compiling, located like the rest.
cat >"$tmp/target.hlo" <<'HLO'
HloModule m

ENTRY main {
  %a = f32[3,3] parameter(0)
  ROOT %b = (f32[3,3], s32[3], s32[]) custom-call(%a), custom_call_target="no_such_target_ffi"
}
HLO
expect "check target" 1 "$hlovm" check "$tmp/target.hlo"
expect_error "check target" "target.hlo:5:8: error: %b (custom-call): unknown custom-call target \"no_such_target_ffi\""
expect_errors "check target" 1
expect "run target" 2 "$hlovm" run --random "$tmp/target.hlo"
expect_error "run target" "target.hlo:5:8: error: %b (custom-call): unknown custom-call target"
expect_errors "run target" 1

# A shape beyond this machine's memory.
cat >"$tmp/huge.hlo" <<'HLO'
HloModule m

ENTRY main {
  %a = f32[] parameter(0)
  ROOT %b = f32[100000,100000,100000] broadcast(%a), dimensions={}
}
HLO
expect "check huge" 1 "$hlovm" check "$tmp/huge.hlo"
expect_error "check huge" "huge.hlo:5:8: error: %b (broadcast): shape f32[100000,100000,100000] needs 4000000000000000 bytes"
expect_errors "check huge" 1
expect "run huge" 2 "$hlovm" run --random "$tmp/huge.hlo"
expect_error "run huge" "huge.hlo:5:8: error: %b (broadcast): shape f32[100000,100000,100000] needs"
# Every example checks clean (what run accepts, check accepts).
expect "check examples" 0 "$hlovm" check examples/*.hlo

# --- one error per mistake ----------------------------------------------------
cp examples/scan_loop.hlo "$tmp/scan.hlo"
# A missing ')': one error, not a second "expects '}'".
sed 's/ROOT %more = pred\[\] compare(%cond_i, %length)/ROOT %more = pred[] compare(%cond_i, %length/' \
  "$tmp/scan.hlo" >"$tmp/paren.hlo"
expect "missing paren" 1 "$hlovm" check "$tmp/paren.hlo"
expect_error "missing paren" "paren.hlo:11:49: error: expects ')' at the end of operands, before attribute direction"
expect_errors "missing paren" 1
sed 's/%cond_i = s32\[\] get-tuple-element(%cond_state), index=0/%cond_i = s32[] get-tuple-element(%cond_state/' \
  "$tmp/scan.hlo" >"$tmp/paren2.hlo"
expect "missing paren at line end" 1 "$hlovm" check "$tmp/paren2.hlo"
expect_errors "missing paren at line end" 1
expect_error "missing paren at line end" "paren2.hlo:10:3: error: expects ',' or ')' after operand"
# An unknown opcode in a ROOT: one error with a suggestion; no error about
# the computation's signature naming another instruction as its root.
sed 's/ROOT %more = pred\[\] compare/ROOT %more = pred[] compar/' "$tmp/scan.hlo" >"$tmp/opcode.hlo"
expect "unknown opcode" 1 "$hlovm" check "$tmp/opcode.hlo"
expect_error "unknown opcode" "opcode.hlo:11:23: error: expects opcode but sees: compar, error: Unknown opcode: compar (did you mean compare?)"
expect_errors "unknown opcode" 1
# An unknown attribute near a known one.
sed 's/dynamic_slice_sizes={1}/dynamic_slice_size={1}/' "$tmp/scan.hlo" >"$tmp/attr.hlo"
expect "unknown attribute" 1 "$hlovm" check "$tmp/attr.hlo"
expect_error "unknown attribute" "attr.hlo:20:40: error: unknown attribute dynamic_slice_size (did you mean dynamic_slice_sizes?)"
expect_errors "unknown attribute" 1
expect "unknown attribute run" 2 "$hlovm" run "$tmp/attr.hlo" 'f32[8] {1, 2, 3, 4, 5, 6, 7, 8}'
expect_errors "unknown attribute run" 1
# Two independent mistakes are both reported.
sed -e 's/ROOT %more = pred\[\] compare/ROOT %more = pred[] compar/' \
    -e 's/dynamic_slice_sizes={1}/dynamic_slice_size={1}/' "$tmp/scan.hlo" >"$tmp/two.hlo"
expect "two mistakes" 1 "$hlovm" check "$tmp/two.hlo"
expect_errors "two mistakes" 2

# --- exit codes: 0 success, 1 a check failed, 2 bad input or usage -----------
for cmd in run check fmt dis bench opt conformance; do
  expect "$cmd unknown flag" 2 "$hlovm" $cmd --no_such_flag examples/newton_loop.hlo
  expect_error "$cmd unknown flag" "hlovm $cmd: unknown flag --no_such_flag"
done
expect "implicit run unknown flag" 2 "$hlovm" examples/newton_loop.hlo --no_such_flag
expect "repl unknown flag" 2 "$hlovm" --no_such_flag </dev/null
expect "unknown command" 2 "$hlovm" no_such_command
expect "check usage" 2 "$hlovm" check
expect "check valid" 0 "$hlovm" check examples/newton_loop.hlo
expect "check invalid" 1 "$hlovm" check "$tmp/bcast.hlo"
expect "check unreadable" 2 "$hlovm" check "$tmp/none.hlo"
expect "fmt invalid" 0 "$hlovm" fmt "$tmp/bcast.hlo"  # it parses: fmt does not verify
expect "fmt unparsable" 2 "$hlovm" fmt "$tmp/opcode.hlo"
expect "run invalid" 2 "$hlovm" run "$tmp/bcast.hlo" 'f32[2,1] {{1}, {2}}'
# --help (and each command's) states them as the README does.
for help in "--help" "check --help" "run --help" "fmt --help"; do
  expect "help $help" 0 "$hlovm" $help
  grep -qF "Exit codes: 0 success, 1 the program or a check failed, 2 bad input or usage" "$tmp/out" ||
    { echo "FAIL: $help does not state the exit codes"; failures=$((failures + 1)); }
done
grep -qF "Exit codes: 0 success, 1 the program or a check failed, 2 bad input or usage" README.md ||
  { echo "FAIL: the README does not state the exit codes"; failures=$((failures + 1)); }

# --- fmt keeps comments ---------------------------------------------------------
for f in examples/*.hlo; do
  name=$(basename "$f")
  cp "$f" "$tmp/$name"
  expect "fmt -i $name" 0 "$hlovm" fmt -i "$tmp/$name"
  # Every comment line of the original is still there.
  grep -o '//.*' "$f" | sed 's/[[:space:]]*$//' | sort >"$tmp/want"
  grep -o '//.*' "$tmp/$name" | sed 's/[[:space:]]*$//' | sort >"$tmp/got"
  if ! diff -q "$tmp/want" "$tmp/got" >/dev/null; then
    echo "FAIL: fmt -i $name lost comments:"
    diff "$tmp/want" "$tmp/got" | head -5
    failures=$((failures + 1))
  fi
  # The header stays the file's first lines.
  if [ "$(head -1 "$f")" != "$(head -1 "$tmp/$name")" ]; then
    echo "FAIL: fmt -i $name moved the header comment"
    failures=$((failures + 1))
  fi
  # Formatting is idempotent and the result still checks.
  cp "$tmp/$name" "$tmp/again.hlo"
  expect "fmt -i again $name" 0 "$hlovm" fmt -i "$tmp/again.hlo"
  cmp -s "$tmp/$name" "$tmp/again.hlo" || { echo "FAIL: fmt $name is not idempotent"; failures=$((failures + 1)); }
  expect "check formatted $name" 0 "$hlovm" check "$tmp/$name"
done
# Trailing and block comments stay with their instruction.
cat >"$tmp/comments.hlo" <<'HLO'
/* A file-level block comment. */
HloModule m

// Doubles its input.
ENTRY main {
  %a = f32[2] parameter(0)  // the input
  // the sum
  ROOT %r = f32[2] add(%a, %a)
}
// the end
HLO
expect "fmt comments" 0 "$hlovm" fmt "$tmp/comments.hlo"
cat >"$tmp/want" <<'TXT'
/* A file-level block comment. */
HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}

// Doubles its input.
ENTRY %main (a: f32[2]) -> f32[2] {
  %a = f32[2]{0} parameter(0) // the input
  // the sum
  ROOT %r = f32[2]{0} add(f32[2]{0} %a, f32[2]{0} %a)
}

// the end
TXT
diff -u "$tmp/want" "$tmp/out" || { echo "FAIL: fmt comments"; failures=$((failures + 1)); }

if [ "$failures" -gt 0 ]; then
  echo "$failures check/fmt cli test(s) failed"
  exit 1
fi
echo "check/fmt cli tests passed"
