#!/usr/bin/env bash
# Installs every build dependency of hlovm from Debian packages. Idempotent:
# packages already present are skipped, and nothing is fetched when all are.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config ccache
  libabsl-dev libre2-dev libtbb-dev libfftw3-dev
  libgtest-dev libgmock-dev libhwy-dev libbenchmark-dev libedit-dev
  python3-numpy python3-dev pybind11-dev python3-pytest  # the Python module and its tests
  graphviz  # `hlovm graph` draws svg and png with its `dot`
  liblapack-dev  # LAPACK for the lapack_*_ffi custom-call targets
  zlib1g-dev  # .npz archives (core/npz.cc)
  libopenblas-dev  # reference for bench/dot_bench only; the product never links it
  openmpi-bin libopenmpi-dev  # `mpirun -n N hlovm run ...` (vm/mpi_run.h); optional to build
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
