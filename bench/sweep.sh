#!/usr/bin/env bash
# `dirac sweep` on this machine: 1000 short pendulum runs with 1 and 2 threads and 2 MPI ranks
# (speed-up), the sweep's own cost per run next to a 1 ms run, rank 0's time per message, and
# from it (by a discrete-event simulation of the protocol) the efficiency at 1000 ranks.
#   bench/sweep.sh [BUILD-DIR]     (default build/; dirac-mpi is used when it was built)
# Prints a Markdown table (docs/sweeps.md, "Measured"). Wall and CPU seconds are both given:
# on a shared machine the wall-clock speed-up is only meaningful when the cores are idle
# (the load average is printed). As root, a shared machine's other jobs can be kept mostly
# off the cores by running the script in a scheduling group of its own at the highest priority:
#   setsid bash -c 'echo -20 > /proc/self/autogroup && exec bash bench/sweep.sh'
# (Linux autogroups: the group's weight against the other sessions'; mpirun's ranks inherit it). "In program" is the time the sweep reports itself: its runs
# for `dirac sweep`, from MPI_Init to RESULTS written for dirac-mpi (mpirun's start of the
# processes and its end are outside it).
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
# (quiet unless $3 is "loud": the summary line gives the in-program time)
sweep_args() { echo sweep "$model" --vary l=0.5:2:${2:-$runs} --t-end "$1" $([ "${3:-}" = loud ] || echo -q); }

# in-program seconds: `dirac sweep` prints "... in S s" (its runs), dirac-mpi --stats prints
# "S s from MPI_Init to RESULTS written"
inside() { sed -n -e 's/.* in \([0-9.e+-]*\) s; results.*/\1/p' -e 's/.* \([0-9.e+-]*\) s from MPI_Init.*/\1/p' "$1" | head -1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
smaller() { awk -v a="$1" -v b="$2" 'BEGIN { print (b < a ? b : a) }'; }
# best COMMAND: "wall cpu in-program" seconds, each the least of 3 runs of the shell command
# (on a shared machine the least disturbed run is the closest to the code's own time); the
# standard error of the last run is kept in $tmp/err
best() {
  local w c i bw= bc= bi=
  for _ in 1 2 3; do
    read -r w c < <(timed bash -c "$1 2> '$tmp/err'")
    i=$(inside "$tmp/err")
    i=${i:-0}
    bw=$(smaller "${bw:-$w}" "$w")
    bc=$(smaller "${bc:-$c}" "$c")
    bi=$(smaller "${bi:-$i}" "$i")
  done
  echo "$bw $bc $bi"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), cores: $(nproc); each time the least of 3 runs"

# A run's stepping cost: t_end such that the steps of one run take about 1 ms of CPU.
# the sweep's own cost per run: 3000 runs minus 1000 runs of no steps (the process's start,
# e.g. loading OpenBLAS, cancels)
read -r _ cpu0 _ < <(best "'$dirac' $(sweep_args 0) --out '$tmp/r.csv'")
read -r _ cpu3 _ < <(best "'$dirac' $(sweep_args 0 3000) --out '$tmp/r.csv'")
read -r _ cpu1 _ < <(best "'$dirac' $(sweep_args 0.2) --out '$tmp/r.csv'")
step_ms=$(awk -v a="$cpu0" -v b="$cpu1" -v n=$runs 'BEGIN { print (b - a) / n / 200 * 1000 }')
t_end=$(awk -v s="$step_ms" 'BEGIN { n = 1 / s; if (n < 10) n = 10; printf "%.3f", n / 1000 }')
overhead_us=$(awk -v a="$cpu0" -v b="$cpu3" 'BEGIN { printf "%.0f", (b - a) / 2000 * 1e6 }')
echo "one step: $(awk -v s="$step_ms" 'BEGIN { printf "%.2f", s * 1000 }') us of CPU; a 1 ms run: t_end = $t_end (dt = 1e-3)"
echo "sweep cost per run (load, override, compile, create, RESULTS line; 3000 - 1000 runs of t_end = 0):" \
     "$overhead_us us of CPU = $(awk -v o="$overhead_us" 'BEGIN { printf "%.1f", o / 10 }') % of 1 ms"

echo
echo "| $runs pendulum runs of ~1 ms (t_end = $t_end) | wall s (process) | in program s | CPU s | speed-up (wall) | speed-up (in program) |"
echo "|---|---|---|---|---|---|"
read -r w1 c1 i1 < <(best "'$dirac' $(sweep_args "$t_end" $runs loud) --out '$tmp/r.csv' --jobs 1")
echo "| 1 thread | $w1 | $i1 | $c1 | 1.00 | 1.00 |"
read -r w2 c2 i2 < <(best "'$dirac' $(sweep_args "$t_end" $runs loud) --out '$tmp/r.csv' --jobs 2")
echo "| 2 threads | $w2 | $i2 | $c2 | $(ratio "$w1" "$w2") | $(ratio "$i1" "$i2") |"
if [ -x "$mpi" ] && command -v mpirun > /dev/null; then
  read -r w0 _ _ < <(best "mpirun --oversubscribe --allow-run-as-root -np 2 true")
  read -r w3 c3 i3 < <(best "mpirun --oversubscribe --allow-run-as-root -np 2 '$mpi' sweep \
                             --stats '$model' --vary l=0.5:2:$runs --t-end '$t_end' \
                             --out '$tmp/m.csv' -q > /dev/null")
  cp "$tmp/err" "$tmp/stats"
  echo "| 2 MPI ranks (wall: mpirun included) | $w3 | $i3 | $c3 | $(ratio "$w1" "$w3") | $(ratio "$i1" "$i3") |"
  # mpirun's start and end are a constant: a sweep 5 times longer
  long=$((5 * runs))
  read -r w4 c4 i4 < <(best "'$dirac' $(sweep_args "$t_end" $long loud) --out '$tmp/r.csv' --jobs 1")
  read -r w5 c5 i5 < <(best "mpirun --oversubscribe --allow-run-as-root -np 2 '$mpi' sweep \
                             --stats '$model' --vary l=0.5:2:$long --t-end '$t_end' \
                             --out '$tmp/m.csv' -q > /dev/null")
  echo "| $long runs: 1 thread | $w4 | $i4 | $c4 | 1.00 | 1.00 |"
  echo "| $long runs: 2 MPI ranks (wall: mpirun included) | $w5 | $i5 | $c5 | $(ratio "$w4" "$w5") | $(ratio "$i4" "$i5") |"
  echo
  echo "mpirun -np 2 true: $w0 s (Open MPI's start and end alone)"
  cat "$tmp/stats"
  # rank 0's CPU time per message (a) and per run result it carries (b), from two sweeps:
  # the 1 ms runs above (chunks of a few runs) and 20000 runs of no steps (large chunks);
  # busy = a messages + b results, solved for a and b
  mpirun --oversubscribe --allow-run-as-root -np 2 "$mpi" sweep --stats "$model" \
    --vary l=0.5:2:20000 --t-end 0 --out "$tmp/m0.csv" -q 2> "$tmp/stats0" > /dev/null || true
  cat "$tmp/stats0"
  fields() { sed -n 's/.*handled \([0-9]*\) messages carrying \([0-9]*\) results in \([0-9.e+-]*\) s busy.*/\1 \2 \3/p' "$1"; }
  read -r m1 r1 b1 < <(fields "$tmp/stats")
  read -r m2 r2 b2 < <(fields "$tmp/stats0")
  read -r a b < <(awk -v m1="$m1" -v r1="$r1" -v b1="$b1" -v m2="$m2" -v r2="$r2" -v b2="$b2" 'BEGIN {
    d = m1 * r2 - m2 * r1; a = (b1 * r2 - b2 * r1) / d; b = (m1 * b2 - m2 * b1) / d
    if (!(d != 0 && a >= 0 && b >= 0)) { a = 0; b = (b1 + b2) / (r1 + r2) }   # per result only
    printf "%.3g %.3g\n", a * 1e6, b * 1e6 }')
  echo
  echo "rank 0: $a us per message + $b us per run result ->" \
       "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.0f", 1e6 / (b + a / 20) }') runs per second in chunks of 20"
  # Discrete-event simulation of the protocol at P ranks: rank 0 serves messages one at a
  # time (a + b n for a message carrying n results) and computes nothing at that scale (its
  # computing thread is one core of 1000); a worker asks for a chunk with its mean run time,
  # rank 0 hands out clamp(0.02 s max(1, P / 50) / mean, 1, left / (2 P)) runs
  # (cli/mpi/dirac_mpi.c: chunk_size), the results travel with the next request.
  python3 - "$a" "$b" <<'PY'
import heapq, sys
a, b = float(sys.argv[1]) * 1e-6, float(sys.argv[2]) * 1e-6
def efficiency(P, runs_per_rank, run_time):
    """Runs done / (P - 1 workers x makespan); rank 0 serves requests in arrival order."""
    left = P * runs_per_rank
    heap, seq, t_free, makespan = [], 0, 0.0, 0.0
    for r in range(1, P):
        heap.append((0.0, r, 0, 0.0)); seq += 1     # (arrival, tiebreak, results, mean)
    heapq.heapify(heap)
    while heap:
        t, tie, carried, mean = heapq.heappop(heap)
        t_free = max(t, t_free) + a + b * carried
        seconds = 0.02 * max(1.0, P / 50)
        n = min(left, max(1, min(int(seconds / mean) if mean > 0 else 1, left // (2 * P))))
        left -= n
        makespan = max(makespan, t_free)
        if n:
            seq += 1
            heapq.heappush(heap, (t_free + n * run_time, seq, n, run_time))
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
