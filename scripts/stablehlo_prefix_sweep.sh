#!/usr/bin/env bash
# Feeds prefixes of every StableHLO program in
# ../shared/conformance/stablehlo-mlir to the StableHLO frontend: each must
# give a module or a located error, never a crash (every prefix of programs
# up to 32 KiB, about 4000 of each larger one). The quick ctest
# (stablehlo_parser_test) sweeps a sample of the same programs.
# Usage: scripts/stablehlo_prefix_sweep.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" --target stablehlo_parser_test
HLOVM_STABLEHLO_SWEEP=1 "$build/frontend/stablehlo_parser_test" \
  --gtest_filter='StableHloParser.PrefixesOfTheConformancePrograms'
