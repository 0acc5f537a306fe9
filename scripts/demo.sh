#!/usr/bin/env bash
# The main job: set up, build, simulate the Cartesian pendulum of paper 001 with the default
# structure-preserving integrator, and show the result (first and last rows of the trajectory
# and the run's summary: energy-balance error, constraint residuals, Newton statistics).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh build
csv=build/pendulum.csv
./build/dirac simulate examples/pendulum.dirac --out "$csv" --summary build/pendulum.json --quiet
echo "== trajectory ($csv; $(($(wc -l <"$csv") - 1)) rows): first and last rows"
head -n 3 "$csv" | cut -d, -f1-9
echo "..."
tail -n 2 "$csv" | cut -d, -f1-9
echo "== summary (build/pendulum.json)"
cat build/pendulum.json
