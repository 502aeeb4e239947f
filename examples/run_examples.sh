#!/usr/bin/env bash
# Runs every examples/*.hlo with deterministic random inputs: each must exit 0.
# Usage: run_examples.sh path/to/hlovm
set -uo pipefail
hlovm=$(realpath "$1")
cd "$(dirname "$0")"
failures=0
count=0
for f in *.hlo; do
  count=$((count + 1))
  if ! "$hlovm" run "$f" --random=1 >/dev/null; then
    echo "FAIL: $f"
    failures=$((failures + 1))
  fi
done
echo "$((count - failures)) passed, $failures failed"
[ "$failures" = 0 ]
