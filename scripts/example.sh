#!/usr/bin/env bash
# Installs what is missing, builds (Release) and runs an example program.
#   scripts/example.sh [FILE.hlo [INPUT...]]   (no inputs: --random)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target hlovm
example=${1:-examples/scan_loop.hlo}
if (($# > 1)); then
  args=("${@:2}")
elif [ "$example" = examples/scan_loop.hlo ]; then
  args=('f32[8] {1, 2, 3, 4, 5, 6, 7, 8}')
elif [ "$example" = examples/newton_loop.hlo ]; then
  args=('f32[4] {2, 9, 0.25, 1e6}')
else
  args=(--random)
fi
echo "$ build/repl/hlovm run $example ${args[*]}"
build/repl/hlovm run "$example" "${args[@]}"
