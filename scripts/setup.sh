#!/usr/bin/env bash
# Installs the Debian packages that building and testing dirac need, only those missing.
# Idempotent; run as root on Debian 12 (uses sudo when not root and sudo exists).
set -euo pipefail

# libclang-rt-14-dev: the fuzzer's sanitizer runtimes (clang does not pull them in)
packages=(cmake make gcc clang libclang-rt-14-dev libc6-dev pkg-config gnuplot-nox ngspice
          liblapacke-dev libopenblas-dev libsuitesparse-dev libarpack2-dev
          # the Python package (python/, docs/python.md): build, install into a venv, test;
          # matplotlib and pandas are optional there (their features' tests are skipped without);
          # numpy and pandas also run docs/cli.md's CSV recipes (tests/cli_csv_recipes.sh)
          python3 python3-dev python3-venv python3-setuptools python3-wheel python3-cffi python3-numpy
          python3-pytest python3-matplotlib python3-pandas
          # dirac-mpi (the MPI sweep, docs/sweeps.md) and its test; the build works without them
          libopenmpi-dev openmpi-bin
          # HDF5 output of `dirac sweep` (--out RESULTS.h5, --trajectories FILE.h5; optional in
          # the build) and h5py, with which tests/cli_sweep_hdf5.sh reads the files back
          libhdf5-dev python3-h5py
          # `dirac export fmu` zips the FMU; tests/cli_fmi.sh unpacks it
          zip unzip)
# extra packages asked for by the caller (e.g. scripts/setup.sh gnuplot-nox)
packages+=("$@")

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root to install: ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
