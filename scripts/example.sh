#!/usr/bin/env bash
# Installs what is missing, builds (Release) and runs an example program.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target hlovm
example=${1:-examples/mlp.hlo}
echo "$ build/repl/hlovm run $example --random"
build/repl/hlovm run "$example" --random
