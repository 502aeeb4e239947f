#!/usr/bin/env bash
# Runs under mpirun print what the one-process run prints, byte for byte,
# and exit with its code: per-instance arguments (--per-replica), --infeed
# with every instance's outfeed, --random inputs of examples/dp_mlp_step.hlo
# (8 replicas), every float width's large all-reduce, large all-reduces
# over groups across and within processes (ranks out of process order),
# and asynchronous collectives with computation between -start and -done
# (whose results must also be the synchronous forms' bits), with one and
# with two instances a process, over shared memory and over TCP.
# Usage: inputs_test.sh HLOVM
set -uo pipefail
hlovm=$1
dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/../../.." && pwd)
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" -eq 0 ] && mpirun+=(--allow-run-as-root)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# A session directory of its own: launches at the same moment (ctest -j)
# race to create Open MPI's shared one.
export OMPI_MCA_orte_tmpdir_base=$out
failures=0
# check NAME INSTANCES ARGS...: compares `hlovm run ARGS` with mpirun runs.
check() {
  local name=$1 instances=$2
  shift 2
  "$hlovm" run "$@" >"$out/one" 2>"$out/one.err" </dev/null
  local expected=$?
  for per in 1 2; do
    for mca in "" "--mca btl self,tcp"; do
      # shellcheck disable=SC2086
      timeout -k 5 120 "${mpirun[@]}" $mca -n $((instances / per)) "$hlovm" run "$@" \
        >"$out/many" 2>"$out/many.err" </dev/null
      local rc=$?
      if [ $rc -ne $expected ] || ! cmp -s "$out/one" "$out/many"; then
        echo "FAIL: $name, $per instance(s) a process ${mca:-(shared memory)}: exit code $rc" \
             "(one process: $expected)"
        diff "$out/one" "$out/many" | head -5
        head -5 "$out/many.err"
        failures=$((failures + 1))
      fi
      # Only rank 0 says what one process says on stderr (the seed of
      # random inputs, once).
      local said_one said_many
      said_one=$(grep -c '^hlovm: random inputs' "$out/one.err")
      said_many=$(grep -c '^hlovm: random inputs' "$out/many.err")
      if [ "$said_one" != "$said_many" ]; then
        echo "FAIL: $name, $per instance(s) a process: the seed said $said_many times, not $said_one"
        failures=$((failures + 1))
      fi
    done
  done
  echo "$name: checked"
}
check ragged 2 --per-replica "$dir/ragged_args.hlo" \
  's32[4] {0,1,2,3}' 's32[2] {0,1}' 's32[2] {1,3}' 's32[2] {0,0}' 's32[2] {1,3}' \
  's32[4] {10,11,12,13}' 's32[2] {0,2}' 's32[2] {2,1}' 's32[2] {1,3}' 's32[2] {3,1}'
check feeds 4 --infeed='f32[3] {1,2,3}' "$dir/feeds.hlo"
check dp_mlp_step 8 --random=5 "$root/examples/dp_mlp_step.hlo"
check types 4 "$dir/cases/types_all_reduce_r4.hlo"
check groups 8 "$dir/cases/groups_all_reduce_r8.hlo"
check async_overlap 2 "$dir/async_overlap.hlo"
if [ "$(grep -c '^pred\[\] true,$' "$out/one")" -ne 2 ]; then
  echo "FAIL: async_overlap: an asynchronous result differs from the synchronous one"
  cat "$out/one"
  failures=$((failures + 1))
fi
# `hlovm bench` under mpirun times runs over the job's processes: rank 0
# alone reports (one report, one seed line), and every run succeeds.
timeout -k 5 120 "${mpirun[@]}" -n 4 "$hlovm" bench --random --iterations=3 \
  "$root/examples/dp_mlp_step.hlo" >"$out/bench" 2>"$out/bench.err" </dev/null
rc=$?
if [ $rc -ne 0 ] || [ "$(grep -c '^  run .*8 instances over 4 processes)$' "$out/bench")" -ne 1 ] ||
   [ "$(grep -c '^hlovm: random inputs' "$out/bench.err")" -ne 1 ]; then
  echo "FAIL: bench over 4 processes: exit code $rc"
  cat "$out/bench" "$out/bench.err" | head -20
  failures=$((failures + 1))
fi
[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "every run identical"
