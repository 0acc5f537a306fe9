#!/usr/bin/env bash
# `dirac sweep` on this machine: 1000 short pendulum runs with 1 and 2 threads and 2 MPI ranks
# (speed-up), the sweep's own cost per run next to a 1 ms run, rank 0's time per message, and
# from it (by a discrete-event simulation of the protocol) the efficiency at 1000 ranks.
#   bench/sweep.sh [BUILD-DIR]     (default build/; dirac-mpi is used when it was built)
# Prints a Markdown table (docs/sweeps.md, "Measured"). Wall and CPU seconds are both given:
# on a shared machine the wall-clock speed-up is only meaningful when the cores are idle
# (the load average is printed).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
dirac=$build/dirac
mpi=$build/dirac-mpi
model=$top/examples/pendulum.dirac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
runs=1000

# timed COMMAND...: prints "wall cpu" seconds (cpu: user + system of the command and children,
# to the microsecond)
timed() {
  python3 -c '
import resource, subprocess, sys, time
start = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall = time.monotonic() - start
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f %.3f" % (wall, r.ru_utime + r.ru_stime))' "$@"
}
# the sweep of 1000 (or $2) runs of the pendulum over its length, to t_end = $1
sweep_args() { echo sweep "$model" --vary l=0.5:2:${2:-$runs} --t-end "$1" -q; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), cores: $(nproc)"

# A run's stepping cost: t_end such that the steps of one run take about 1 ms of CPU.
# the sweep's own cost per run: 3000 runs minus 1000 runs of no steps (the process's start,
# e.g. loading OpenBLAS, cancels)
read -r _ cpu0 < <(timed "$dirac" $(sweep_args 0) --out "$tmp/r.csv")
read -r _ cpu3 < <(timed "$dirac" $(sweep_args 0 3000) --out "$tmp/r.csv")
read -r _ cpu1 < <(timed "$dirac" $(sweep_args 0.2) --out "$tmp/r.csv")
step_ms=$(awk -v a="$cpu0" -v b="$cpu1" -v n=$runs 'BEGIN { print (b - a) / n / 200 * 1000 }')
t_end=$(awk -v s="$step_ms" 'BEGIN { n = 1 / s; if (n < 10) n = 10; printf "%.3f", n / 1000 }')
overhead_us=$(awk -v a="$cpu0" -v b="$cpu3" 'BEGIN { printf "%.0f", (b - a) / 2000 * 1e6 }')
echo "one step: $(awk -v s="$step_ms" 'BEGIN { printf "%.2f", s * 1000 }') us of CPU; a 1 ms run: t_end = $t_end (dt = 1e-3)"
echo "sweep cost per run (load, override, compile, create, RESULTS line; 3000 - 1000 runs of t_end = 0):" \
     "$overhead_us us of CPU = $(awk -v o="$overhead_us" 'BEGIN { printf "%.1f", o / 10 }') % of 1 ms"

echo
echo "| $runs pendulum runs of ~1 ms (t_end = $t_end) | wall s | CPU s | speed-up (wall) |"
echo "|---|---|---|---|"
read -r w1 c1 < <(timed "$dirac" $(sweep_args "$t_end") --out "$tmp/r.csv" --jobs 1)
echo "| 1 thread | $w1 | $c1 | 1.00 |"
read -r w2 c2 < <(timed "$dirac" $(sweep_args "$t_end") --out "$tmp/r.csv" --jobs 2)
echo "| 2 threads | $w2 | $c2 | $(awk -v a="$w1" -v b="$w2" 'BEGIN { printf "%.2f", a / b }') |"
if [ -x "$mpi" ] && command -v mpirun > /dev/null; then
  read -r w3 c3 < <(timed mpirun --oversubscribe --allow-run-as-root -np 2 "$mpi" sweep "$model" \
                    --vary l=0.5:2:$runs --t-end "$t_end" --out "$tmp/m.csv" -q)
  echo "| 2 MPI ranks (mpirun included) | $w3 | $c3 | $(awk -v a="$w1" -v b="$w3" 'BEGIN { printf "%.2f", a / b }') |"
  # rank 0's time per message and per result (receive, parse, store, write RESULTS), from
  # the sweep of 1 ms runs (chunks of about 20 runs) and from runs of no steps (one-run chunks
  # at first, then large ones)
  mpirun --oversubscribe --allow-run-as-root -np 2 "$mpi" sweep --stats "$model" \
    --vary l=0.5:2:$runs --t-end "$t_end" --out "$tmp/m1.csv" -q 2> "$tmp/stats" > /dev/null || true
  cat "$tmp/stats"
  us=$(sed -n 's/.*us per message, \([0-9.e+-]*\) us per result).*/\1/p' "$tmp/stats")
  echo
  echo "rank 0: $us us per run result (its busy time / results received) ->" \
       "$(awk -v u="$us" 'BEGIN { printf "%.0f", 1e6 / u }') runs per second"
  # Discrete-event simulation of the protocol at P ranks: rank 0 serves messages one at a time
  # (us each); a worker asks for a chunk with its mean run time, rank 0 hands out
  # clamp(0.02 s / mean, 1, left / (2 P)) runs, each result is one message.
  python3 - "$us" <<'PY'
import heapq, sys
s = float(sys.argv[1]) * 1e-6   # rank 0's time per run result (a chunk of n: n s)
def efficiency(P, runs_per_rank, run_time):
    """Runs done / (P - 1 workers x makespan); rank 0 only serves (FIFO, s per message)."""
    left = P * runs_per_rank
    heap, seq, t_free, makespan = [], 0, 0.0, 0.0
    for r in range(1, P):
        heap.append((0.0, r, 0, 0.0)); seq += 1     # (arrival, tiebreak, results, mean)
    heapq.heapify(heap)
    while heap:
        t, tie, kind, mean = heapq.heappop(heap)
        t_free = max(t, t_free) + s * max(kind, 1)   # a request carrying `kind` results
        n = min(left, max(1, min(int(0.02 / mean) if mean > 0 else 1, left // (2 * P))))
        left -= n
        if n:
            seq += 1
            heapq.heappush(heap, (t_free + n * run_time, seq, n, run_time))
            makespan = max(makespan, t_free + n * run_time)
    return P * runs_per_rank * run_time / ((P - 1) * makespan)
print()
print("| simulated: 1000 ranks, 100 runs each | efficiency |")
print("|---|---|")
for run_ms in (10.0, 1.0, 0.1):
    print("| %g ms runs | %.2f |" % (run_ms, efficiency(1000, 100, run_ms * 1e-3)))
PY
else
  echo "(dirac-mpi not built: no MPI rows)"
fi
