#!/usr/bin/env bash
# Builds the benchmarks in Release and runs them.
#   bench/run.sh [--quick]        (--quick: sizes up to N = 1000, shorter timings)
# Set-up step of the benchmark only (not of the tests): installs the baseline libmatheval
# (Debian package libmatheval-dev) when it is missing and we are root.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/build-bench"

if ! [ -f /usr/include/matheval.h ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    echo "bench/run.sh: installing libmatheval-dev (benchmark baseline)"
    apt-get install -y libmatheval-dev > /dev/null || {
      apt-get update > /dev/null && apt-get install -y libmatheval-dev > /dev/null
    } || echo "bench/run.sh: could not install libmatheval-dev; the comparison will be skipped"
  else
    echo "bench/run.sh: libmatheval-dev missing (not root): the comparison will be skipped"
  fi
fi

cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release -DDIRAC_BUILD_BENCH=ON \
      -DDIRAC_BUILD_TESTS=OFF -DDIRAC_BUILD_CLI=OFF -UMATHEVAL_LIBRARY -UMATHEVAL_INCLUDE_DIR > /dev/null
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target bench_expr > /dev/null
"$build/bench/bench_expr" "$@"

# Time steppers: every method vs a hand-written RATTLE, lobatto4 and dgrad vs hand-written codes
# of their schemes (bench/bench_simulate.c; instructions per step: bench/step_instructions.sh).
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target bench_simulate > /dev/null
"$build/bench/bench_simulate" "$@"

# Scale: time and memory against N up to 10^5 coordinates (bench/bench_scale.c).
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target bench_scale > /dev/null
if [ "${1:-}" = "--quick" ]; then
  "$build/bench/bench_scale" 1000
else
  "$build/bench/bench_scale" 100000
fi
