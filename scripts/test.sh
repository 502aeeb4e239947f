#!/usr/bin/env bash
# Installs what is missing, builds (Release), runs every test, then the
# conformance suites: the project's own (conformance/cases), the StableHLO
# corpus (../shared/conformance/stablehlo, beside the repository) and its MLIR
# form (../shared/conformance/stablehlo-mlir). Each suite
# fails the run when its pass rate drops below the threshold kept in
# conformance/*_threshold.txt (raise them as ops land; never lower them).
# Every passing case also runs again with 1 and 2 executor threads
# (--compare_threads) and compiled without passes or fusion
# (--compare_passes); a case whose ROOT bits differ fails the run whatever
# the threshold. The multi-instance cases run again under mpirun and must
# print the one-process run's bytes. Last, scripts/test_sanitize.sh builds the address+undefined
# sanitizer variant and runs the unit tests, both suites and a mutation sweep
# under it (HLOVM_SKIP_SANITIZE=1 leaves that out of a quick local run).
set -euo pipefail
cd "$(dirname "$0")/.."
# The compiler cache keys objects by paths relative to the checkout, so a
# clone in another folder reuses what an earlier build compiled.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
bash scripts/setup.sh
jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

hlovm=build/repl/hlovm
mkdir -p build/conformance-reports
status=0
run_suite() {  # name, path, threshold file
  local name=$1 path=$2 threshold
  threshold=$(tr -d ' \n' <"$3")
  echo "== conformance: $name ($path), required pass rate $threshold"
  "$hlovm" conformance --jobs="$jobs" --timeout=120 --min_pass_rate="$threshold" \
    --compare_threads --compare_passes \
    --junit="build/conformance-reports/$name.xml" --json="build/conformance-reports/$name.json" \
    "$path" || status=1
}
run_suite suite conformance/cases conformance/suite_threshold.txt
if [ -d ../shared/conformance/stablehlo ]; then
  run_suite stablehlo ../shared/conformance/stablehlo conformance/stablehlo_threshold.txt
else
  echo "== conformance: ../shared/conformance/stablehlo not found; skipped"
fi
# The same programs as StableHLO MLIR text, read by frontend/stablehlo/.
if [ -d ../shared/conformance/stablehlo-mlir ]; then
  run_suite stablehlo-mlir ../shared/conformance/stablehlo-mlir conformance/stablehlo_mlir_threshold.txt
else
  echo "== conformance: ../shared/conformance/stablehlo-mlir not found; skipped"
fi
# The multi-instance cases of both suites under mpirun (vm/mpi_run.h): one
# process per instance, two instances a process, and over TCP (the path a
# run over several machines takes). Each passes when stdout and exit code
# are the one-process run's, byte for byte.
if grep -q '^HLOVM_MPIRUN:FILEPATH=/' build/CMakeCache.txt; then
  mpi_dirs=(conformance/cases)
  [ -d ../shared/conformance/stablehlo ] && mpi_dirs+=(../shared/conformance/stablehlo)
  for mode in mpi1:--mpi=1 mpi2:--mpi=2 mpi_tcp:--mpirun_args="--mca btl self,tcp"; do
    echo "== conformance under mpirun: --mpi ${mode#*:}"
    "$hlovm" conformance --jobs="$jobs" --timeout=120 --mpi "${mode#*:}" \
      --junit="build/conformance-reports/${mode%%:*}.xml" "${mpi_dirs[@]}" || status=1
  done
else
  echo "== conformance under mpirun: hlovm was built without MPI (scripts/setup.sh installs it); skipped"
fi
if [ "${HLOVM_SKIP_SANITIZE:-0}" != 1 ]; then
  bash scripts/test_sanitize.sh || status=1
fi
exit $status
