#!/usr/bin/env bash
# `dirac simulate --output-times`: rows exactly at the requested times (the time column holds
# them as given), with adaptive steps (landing on each) and fixed ones (times on the grid),
# against the harmonic oscillator's x(t) = x0 cos(w t); off-grid times with fixed steps, bad
# lists and conflicting options are refused; a restarted run (adaptive or fixed steps, from a
# node that is no output time) writes the remaining times.
# usage: cli_output_times.sh PATH-TO-DIRAC SOURCE-DIR
. "$(dirname "$0")/support/cli.sh"
src=$(absolute "$2")
osc=$src/examples/harmonic_oscillator.dirac   # x0 = 0.1, w = 2, x' = 0 at t = 0

# rows_at FILE TOL TIMES...: the rows' times are exactly TIMES (as decimal numbers) and
# |x - x0 cos(w t)| <= TOL at each
rows_at() {
  python3 - "$@" <<'PY'
import csv, math, sys
path, tol, times = sys.argv[1], float(sys.argv[2]), [float(t) for t in sys.argv[3:]]
rows = list(csv.DictReader(open(path)))
assert [float(r['t']) for r in rows] == times, [r['t'] for r in rows]
worst = max(abs(float(r['x']) - 0.1 * math.cos(2 * float(r['t']))) for r in rows)
assert worst <= tol, worst
PY
}

times="0.1 0.35 1.234 2.5 3"
list=$(echo $times | tr ' ' ,)
# adaptive: each method lands on each time. Tolerance: the controller keeps each step's error
# below rtol = 1e-10 of the scale x0 = 0.1; over the hundreds to thousands of steps to t = 3
# the global error grows to 1.4e-8 (order-2 methods, measured); 1e-7 bounds it, while a row a
# step (>= 1e-3) off its time would be off by w x0 1e-3 = 2e-4.
for method in rk4 midpoint lobatto3 dgrad; do
  "$dirac" simulate "$osc" --method "$method" --rtol 1e-10 --atol 1e-12 --output-times "$list" \
    -q -o "$tmp/a.csv"
  check "adaptive $method: rows at $list, x = x0 cos(2t)" rows_at "$tmp/a.csv" 1e-7 $times
done
# fixed steps: the times on the grid of dt = 1e-3; midpoint's phase error w^3 h^2 t / 24 x0
# = 7e-8 at t = 2; 1e-6 bounds it
"$dirac" simulate "$osc" --dt 1e-3 --output-times 0:0.25:2 -q -o "$tmp/f.csv"
check "fixed steps: rows at 0:0.25:2" rows_at "$tmp/f.csv" 1e-6 0 0.25 0.5 0.75 1 1.25 1.5 1.75 2
# dirac2 (two-step, fixed steps only) on its grid; rk4 (order 4): error 1e-12 x0 scale
"$dirac" simulate "$osc" --method dirac2 --dt 1e-3 --output-times 0.5,1.5 -q -o "$tmp/d.csv"
check "dirac2: rows at 0.5, 1.5" rows_at "$tmp/d.csv" 1e-6 0.5 1.5
"$dirac" simulate "$osc" --method rk4 --dt 1e-3 --output-times 0.3,0.7 -q -o "$tmp/r.csv"
check "rk4 fixed: rows at 0.3, 0.7 (0.3 = 300 dt up to rounding)" rows_at "$tmp/r.csv" 1e-12 0.3 0.7
# a file of times: white space, commas, comments
printf '# when to look\n0.2, 0.4\n\n1.6 # late\n' >"$tmp/times.txt"
"$dirac" simulate "$osc" --rtol 1e-10 --atol 1e-12 --output-times "$tmp/times.txt" -q -o "$tmp/t.csv"
check "times from a file" rows_at "$tmp/t.csv" 1e-7 0.2 0.4 1.6
# the run ends at the last time when --t-end is not given (the model says t_end = 20)
"$dirac" simulate "$osc" --dt 1e-3 --output-times 0.5 --summary "$tmp/s.json" -q -o "$tmp/e.csv"
check "t_end defaults to the last output time" python3 -c "
import json; s = json.load(open('$tmp/s.json')); assert s['steps'] == 500, s['steps']"

# restart with output times: the second piece writes the times after the saved node
"$dirac" simulate "$osc" --rtol 1e-9 --atol 1e-12 --output-times 0:0.1:2 -q -o "$tmp/w.csv" \
  --save-state "$tmp/w.json"
"$dirac" simulate "$osc" --rtol 1e-9 --atol 1e-12 --output-times 0:0.1:2 -q -o "$tmp/p1.csv" \
  --save-state "$tmp/p.json" --max-steps 40 2>/dev/null
"$dirac" simulate "$osc" --output-times 0:0.1:2 -q -o "$tmp/p2.csv" --initial-state "$tmp/p.json"
check "restart with output times: the pieces' rows are the whole run's" \
  cmp -s <(cat "$tmp/p1.csv"; tail -n +2 "$tmp/p2.csv") "$tmp/w.csv"
"$dirac" simulate "$osc" --output-times 0:0.1:2 -q -o "$tmp/p2.csv" --initial-state "$tmp/p.json" \
  --save-state "$tmp/p2.json"
check "restart with output times: the same final state" cmp -s "$tmp/p2.json" "$tmp/w.json"

# restart with fixed steps: the continued run starts at a node t0 = 0.7 that is no output time
# and writes the later times of the grid 0:0.3:2.1, exactly; midpoint's phase error
# w^3 h^2 t / 24 x0 = 2.8e-7 at h = 2e-3, t = 2.1, bounded by 1e-6
"$dirac" simulate "$osc" --dt 2e-3 --output-times 0:0.3:2.1 -q -o "$tmp/fw.csv" \
  --save-state "$tmp/fw.json"
"$dirac" simulate "$osc" --dt 2e-3 --t-end 0.7 --output-times 0:0.3:0.6 -q -o "$tmp/f1.csv" \
  --save-state "$tmp/f1.json"
"$dirac" simulate "$osc" --t-end 2.1 --output-times 0:0.3:2.1 -q -o "$tmp/f2.csv" \
  --initial-state "$tmp/f1.json" --save-state "$tmp/f2.json"
# (the range's times are a + i h in doubles: 3 x 0.3 = 0.89999999999999991)
check "fixed-step restart at t0 = 0.7: rows at 0.9 .. 2.1" rows_at "$tmp/f2.csv" 1e-6 \
  $(python3 -c 'print(*(repr(i * 0.3) for i in range(3, 8)))')
check "fixed-step restart: the pieces' rows are the whole run's" \
  cmp -s <(cat "$tmp/f1.csv"; tail -n +2 "$tmp/f2.csv") "$tmp/fw.csv"
check "fixed-step restart: the same final state" cmp -s "$tmp/f2.json" "$tmp/fw.json"

refuse() {   # refuse DESCRIPTION PATTERN OPTIONS...: exit 2 and PATTERN in the message
  local what=$1 pattern=$2
  shift 2
  "$dirac" simulate "$osc" "$@" -q -o "$tmp/x.csv" 2>"$tmp/x.err"
  local rc=$?
  check "$what: exit 2" test $rc -eq 2
  check "$what: says so" grep -q -- "$pattern" "$tmp/x.err"
}
refuse "off the fixed grid" "output time 0.35 is not a node of the fixed steps" \
  --dt 0.1 --output-times 0.35
refuse "not increasing" "the times must increase" --dt 0.1 --output-times 0.5,0.2
refuse "after t_end" "output time 3 is after t_end = 2" --dt 0.1 --t-end 2 --output-times 1,3
refuse "before the start" "before the start" --dt 0.1 --output-times=-1,1
refuse "with --every" "give one" --dt 0.1 --every 2 --output-times 1
refuse "not times" "neither a range" --dt 0.1 --output-times "$tmp/none.txt"
refuse "bad range" "step H > 0" --dt 0.1 --output-times 0:-1:2
printf '0.1\nzero\n' >"$tmp/bad.txt"
refuse "bad file" "line 2: 'zero' is not a time" --dt 0.1 --output-times "$tmp/bad.txt"

exit $fail
