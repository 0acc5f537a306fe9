#!/usr/bin/env bash
# The main job: set up, build, simulate the Cartesian pendulum of paper 001 with the default
# structure-preserving integrator, and show the result (first and last rows of the trajectory
# and the run's summary: energy-balance error, constraint residuals, Newton statistics) and
# draw its figure (build/pendulum.png, with gnuplot).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh build
csv=build/pendulum.csv
./build/dirac simulate examples/pendulum.dirac --out "$csv" --summary build/pendulum.json --quiet \
  --plot build/pendulum.png
echo "== trajectory ($csv; $(($(wc -l <"$csv") - 1)) rows): first and last rows"
head -n 3 "$csv" | cut -d, -f1-9
echo "..."
tail -n 2 "$csv" | cut -d, -f1-9
echo "== summary (build/pendulum.json)"
cat build/pendulum.json
echo "== figure: build/pendulum.png (x and y against time; open it with any image viewer)"
