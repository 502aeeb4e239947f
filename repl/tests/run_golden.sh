#!/bin/sh
# Golden transcripts of the REPL read from piped stdin: runs
# `hlovm --echo < NAME.txt` in a scratch folder holding copies of the example
# modules, appends the exit code (and `hlovm check`/`hlovm run` of any module
# the session saved), and compares with NAME.golden.
#   run_golden.sh HLOVM EXAMPLES_DIR GOLDEN_DIR [--update]
set -u
hlovm=$1
examples=$2
dir=$3
update=${4:-}
failed=0
for input in "$dir"/*.txt; do
  name=$(basename "$input" .txt)
  scratch=$(mktemp -d)
  cp "$examples"/*.hlo "$scratch"/
  # v.npy: f32[4] {1, 2, 3, 4} (NumPy format version 1.0, written by hand).
  printf '\223NUMPY\001\000v\000{'"'"'descr'"'"': '"'"'<f4'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (4,), }' > "$scratch/v.npy"
  printf '%*s\n' 60 '' >> "$scratch/v.npy"
  printf '\000\000\200\077\000\000\000\100\000\000\100\100\000\000\200\100' >> "$scratch/v.npy"
  flags="--echo"
  case "$name" in *fail_fast*) flags="--echo --fail-fast" ;; esac
  (
    cd "$scratch" || exit 2
    "$hlovm" $flags < "$input" 2>&1
    echo "[exit code $?]"
    if [ -f session.hlo ]; then
      echo "[hlovm check session.hlo]"
      "$hlovm" check session.hlo 2>&1
      echo "[hlovm run session.hlo]"
      "$hlovm" run session.hlo 2>&1
    fi
  ) | sed -e 's/^\(compile\|run\): *min .*/\1: (times)/' > "$scratch/actual"
  if [ "$update" = "--update" ]; then
    cp "$scratch/actual" "$dir/$name.golden"
    echo "updated $name.golden"
  elif diff -u "$dir/$name.golden" "$scratch/actual"; then
    echo "ok   $name"
  else
    echo "FAIL $name"
    failed=1
  fi
  rm -rf "$scratch"
done
exit $failed
