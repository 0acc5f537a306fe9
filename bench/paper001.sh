#!/usr/bin/env bash
# Re-runs the experiments of paper 001 (Salnikov & Hamdouni; docs/paper001.md) in one command:
# configures a Release build with the benchmarks in build-bench/, builds bench/paper001.c, runs
# it, and prints the tables (markdown). CSV trajectories and the swept-region figure go to
# OUT_DIR (default build-bench/paper001/); the tables are also saved as OUT_DIR/tables.md.
#   bench/paper001.sh [OUT_DIR] [paper001 options, e.g. --every 4]
. "$(dirname "$0")/prelude.sh" build-bench paper001 "$@"

cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=Release -DDIRAC_BUILD_BENCH=ON \
      -DDIRAC_BUILD_TESTS=OFF -DDIRAC_BUILD_CLI=OFF > /dev/null
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target paper001 > /dev/null
"$build/bench/paper001" --out "$out" --examples "$top/examples" "${args[@]}" | tee "$out/tables.md"
if command -v rsvg-convert > /dev/null; then
  rsvg-convert "$out/pendulum_swept.svg" -o "$out/pendulum_swept.png"
fi
echo
echo "paper001: tables in $out/tables.md; CSV trajectories and figures in $out/:"
ls "$out"
