#!/usr/bin/env bash
# Instructions per step (callgrind, load-independent) of libdirac's lobatto4, dgrad and midpoint
# and of the hand-written codes of the same schemes (bench/fixedpoint_reference.c,
# bench/rattle_reference.c) on the pendulum and the double pendulum of bench_simulate:
# the difference of runs of 2000 and 4000 steps divided by 2000, so set-up is excluded.
#   bench/step_instructions.sh [BUILD_DIR [H]]   (BUILD_DIR: a build with -DDIRAC_BUILD_BENCH=ON;
#                                                 default build-bench; H default 1e-3)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-bench}
h=${2:-1e-3}
exe=$build/bench/bench_simulate
command -v valgrind >/dev/null || { echo "step_instructions.sh: valgrind is needed" >&2; exit 1; }
[ -x "$exe" ] || { echo "step_instructions.sh: $exe not built (-DDIRAC_BUILD_BENCH=ON)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() {   # STEPPER PROBLEM STEPS -> instructions of the whole run
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$exe" --run "$1" "$2" "$h" "$3" \
        2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
per_step() { echo $(( ($(count "$1" "$2" 4000) - $(count "$1" "$2" 2000)) / 2000 )); }
echo "instructions per step, h = $h (callgrind; (4000-step run − 2000-step run) / 2000)"
echo
echo "| problem | method | libdirac | hand code of the same scheme | ratio |"
echo "|---|---|---|---|---|"
for problem in pendulum double; do
    for pair in midpoint:hand-rattle lobatto4:hand-lobatto4 dgrad:hand-dgrad; do
        method=${pair%%:*} hand=${pair#*:}
        a=$(per_step "$method" $problem) b=$(per_step "$hand" $problem)
        printf '| %s | %s | %d | %d (%s) | %s |\n' $problem "$method" "$a" "$b" "$hand" \
            "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", a / b }')"
    done
done
