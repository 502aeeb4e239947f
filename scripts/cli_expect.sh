# The checks the command-line test scripts share (conformance/cli_test.sh,
# repl/tests/io_test.sh, repl/tests/check_cli_test.sh). The sourcing script
# sets `tmp` (a scratch directory) and `failures` (a count) first; each
# check that fails prints FAIL with the command's output and adds one.

expect() {  # description, expected exit code, command...
  local what=$1 code=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" != "$code" ]; then
    echo "FAIL: $what: exit $rc, expected $code"
    sed 's/^/  stdout: /' "$tmp/out" | head -5
    sed 's/^/  stderr: /' "$tmp/err" | head -8
    failures=$((failures + 1))
  fi
}
expect_output() {  # description, text that stdout must contain
  if ! grep -qF -- "$2" "$tmp/out"; then
    echo "FAIL: $1: stdout lacks '$2'"
    sed 's/^/  stdout: /' "$tmp/out" | head -5
    failures=$((failures + 1))
  fi
}
expect_error() {  # description, text that stderr must contain
  if ! grep -qF -- "$2" "$tmp/err"; then
    echo "FAIL: $1: stderr lacks '$2'"
    sed 's/^/  stderr: /' "$tmp/err" | head -8
    failures=$((failures + 1))
  fi
}
