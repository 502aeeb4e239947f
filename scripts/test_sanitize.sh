#!/usr/bin/env bash
# The address+undefined sanitizer build and everything run under it:
# configures and builds build-asan (Debug, -fsanitize=address,undefined, leaks
# detected at exit), runs every ctest target, both conformance suites (each must
# keep the pass rate in conformance/*_threshold.txt) and a mutation sweep
# (scripts/mutation_sweep.py). Prints the time of each stage.
#
# Environment: HLOVM_JOBS (default: the number of cores), HLOVM_SWEEP_COUNT
# (mutants, default 3000), HLOVM_SWEEP_SECONDS (the sweep's time budget,
# default 360), HLOVM_SWEEP_SEED (default 1). Set up the machine first
# (scripts/setup.sh).
#
# Measured on the 2-core CI machine with a cold compiler cache: build 619 s
# (-O1 -g1), ctest 315 s (80 targets), the suites 24 s and 20 s, 600 mutants
# 69 s (about 115 s a thousand): about 20 minutes in all with 3000 mutants,
# and the build is a relink where the cache holds the objects.
set -euo pipefail
cd "$(dirname "$0")/.."
# Objects are cached by paths relative to the checkout, and -g1 debug
# information does not tie them to the folder, so a clone elsewhere reuses them.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
jobs=${HLOVM_JOBS:-$(nproc)}
sweep_count=${HLOVM_SWEEP_COUNT:-3000}
sweep_seconds=${HLOVM_SWEEP_SECONDS:-360}
sweep_seed=${HLOVM_SWEEP_SEED:-1}
build=build-asan

# Leaks are errors; so is any undefined behaviour (the build does not recover).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

times=()
stage_start=0
begin() { echo "== $1"; stage_start=$SECONDS; }
end() { times+=("$(printf '%-26s %5ds' "$1" $((SECONDS - stage_start)))"); }
report() {
  echo "== times"
  printf '%s\n' "${times[@]}"
}
trap report EXIT

begin "configure + build"
# Every setting the sanitizers depend on is given here, so a cache left by an
# earlier configure (other flags, another build type) cannot carry over.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DHLOVM_SANITIZE=address \
  -DCMAKE_CXX_FLAGS= -DCMAKE_C_FLAGS= -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" \
  -DHLOVM_BUILD_TESTS=ON -DHLOVM_BUILD_BENCH=OFF \
  -DHLOVM_FUZZ=OFF >/dev/null
cmake --build "$build" -j "$jobs"
# A compiler cache hands back objects by a hash of the command line, so the
# objects are sanitized ones if the commands are; check both ends.
if ! grep -q -- '-fsanitize=address,undefined' "$build/compile_commands.json"; then
  echo "test_sanitize: $build compiles without -fsanitize=address,undefined" >&2
  exit 1
fi
for symbol in __asan_init __ubsan_handle; do
  if ! grep -q -a "$symbol" "$build/repl/hlovm"; then
    echo "test_sanitize: $build/repl/hlovm lacks $symbol: not a sanitized binary" >&2
    exit 1
  fi
done
end "configure + build"

status=0
begin "ctest"
ctest --test-dir "$build" --output-on-failure -j "$jobs" || status=1
end "ctest"

hlovm=$build/repl/hlovm
mkdir -p "$build/conformance-reports"
run_suite() {  # name, path, threshold file
  local name=$1 path=$2 threshold
  threshold=$(tr -d ' \n' <"$3")
  begin "conformance $name"
  echo "   ($path, required pass rate $threshold)"
  "$hlovm" conformance --jobs="$jobs" --timeout=600 --min_pass_rate="$threshold" \
    --junit="$build/conformance-reports/$name.xml" --json="$build/conformance-reports/$name.json" \
    "$path" >"$build/conformance-reports/$name.txt" || status=1
  # The failure lines and the summary (the whole output is in the .txt file).
  grep -E '^(FAILED|ERRORED) ' "$build/conformance-reports/$name.txt" | head -40 || true
  sed -n '/^family /,$p' "$build/conformance-reports/$name.txt" | tail -4
  end "conformance $name"
}
run_suite suite conformance/cases conformance/suite_threshold.txt
if [ -d ../shared/conformance/stablehlo ]; then
  run_suite stablehlo ../shared/conformance/stablehlo conformance/stablehlo_threshold.txt
else
  echo "== conformance: ../shared/conformance/stablehlo not found; skipped"
fi
# The same programs as StableHLO MLIR text (frontend/stablehlo/).
if [ -d ../shared/conformance/stablehlo-mlir ]; then
  run_suite stablehlo-mlir ../shared/conformance/stablehlo-mlir conformance/stablehlo_mlir_threshold.txt
else
  echo "== conformance: ../shared/conformance/stablehlo-mlir not found; skipped"
fi

begin "mutation sweep"
/usr/bin/python3 scripts/mutation_sweep.py --hlovm="$hlovm" --count="$sweep_count" \
  --seconds="$sweep_seconds" --jobs="$jobs" --seed="$sweep_seed" \
  --keep="$build/mutation-failures" || status=1
end "mutation sweep"
exit $status
