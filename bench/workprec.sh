#!/usr/bin/env bash
# Work-precision benchmark (issue 8): every libdirac method against GSL odeiv2 (rk4imp, rk8pd)
# and SUNDIALS IDA (GGL index-2 formulation) on the pendulum, the double pendulum, an RLC
# circuit and a stiff slider-crank, plus a 10^4-period pendulum run. One command:
#   bench/workprec.sh [OUT_DIR] [workprec options, e.g. --quick]
# Prints the tables (markdown; also saved as OUT_DIR/tables.md, default build-workprec/out/),
# writes the raw points (OUT_DIR/workprec.csv, longrun.csv) and the figure
# docs/figures/workprec.png (gnuplot). Takes about 3 minutes (plus the build).
#
# Set-up step of this benchmark only (not of the tests, not in scripts/setup.sh): installs the
# peers libgsl-dev and libsundials-dev, and gnuplot-nox for the figure, with apt-get when they
# are missing and we are root.
. "$(dirname "$0")/prelude.sh" build-workprec out "$@"

missing=()
[ -f /usr/include/gsl/gsl_odeiv2.h ] || missing+=(libgsl-dev)
[ -f /usr/include/ida/ida.h ] || missing+=(libsundials-dev)
command -v gnuplot > /dev/null || missing+=(gnuplot-nox)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    echo "bench/workprec.sh: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y "${missing[@]}" > /dev/null 2>&1 || {
      apt-get update > /dev/null && apt-get install -y "${missing[@]}" > /dev/null
    }
  else
    echo "bench/workprec.sh: missing ${missing[*]} (run as root to install them)" >&2
  fi
fi

cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release -DDIRAC_BUILD_BENCH=ON \
      -DDIRAC_BUILD_TESTS=OFF -DDIRAC_BUILD_CLI=OFF \
      -UWORKPREC_GSL_INCLUDE_DIR -UWORKPREC_GSL_LIBRARY -UWORKPREC_GSLCBLAS_LIBRARY \
      -UWORKPREC_IDA_INCLUDE_DIR -UWORKPREC_IDA_LIBRARY -UWORKPREC_NVECSERIAL_LIBRARY \
      -UWORKPREC_SUNMATDENSE_LIBRARY -UWORKPREC_SUNLINSOLDENSE_LIBRARY > /dev/null
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target workprec > /dev/null

# One BLAS thread: the peers are single-threaded, and libdirac's small dense solves gain
# nothing from threads.
mkdir -p "$top/docs/figures"
OPENBLAS_NUM_THREADS=1 "$build/bench/workprec" --models "$top/bench/models" --out "$out" \
    --figure "$top/docs/figures/workprec.png" "${args[@]}" | tee "$out/tables.md"

if command -v gnuplot > /dev/null; then
  gnuplot "$out/workprec.gp"
  echo
  echo "bench/workprec.sh: figure docs/figures/workprec.png"
else
  echo "bench/workprec.sh: gnuplot not found; the figure's script is $out/workprec.gp"
fi
echo "bench/workprec.sh: tables in $out/tables.md; points in $out/workprec.csv, $out/longrun.csv"
