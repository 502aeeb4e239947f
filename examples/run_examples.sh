#!/usr/bin/env bash
# Runs every examples/*.hlo as its header says and checks the printed result
# against the header's expected value (examples/check_example.py); an example
# without one runs with deterministic random inputs and must exit 0.
# Usage: run_examples.sh path/to/hlovm
set -uo pipefail
hlovm=$(realpath "$1")
cd "$(dirname "$0")/.."
failures=0
count=0
for f in examples/*.hlo; do
  count=$((count + 1))
  if ! python3 examples/check_example.py "$hlovm" "$f"; then
    echo "FAIL: $f"
    failures=$((failures + 1))
  fi
done
echo "$((count - failures)) passed, $failures failed"
[ "$failures" = 0 ]
