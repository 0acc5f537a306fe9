#!/usr/bin/env bash
# `dirac sweep` and `dirac-mpi sweep`: grid order, the period of a pendulum swept over its
# length against the exact formula, failure rows, trajectories equal to `dirac simulate`,
# Latin-hypercube strata, seed reproducibility, independence of --jobs and of MPI ranks.
# usage: cli_sweep.sh PATH-TO-DIRAC SOURCE-DIR [PATH-TO-DIRAC-MPI]
. "$(dirname "$0")/support/cli.sh"
src=$(absolute "$2")
mpi=$(absolute "${3:-}")
cd "$tmp" || exit 1
pendulum=$src/examples/pendulum.dirac

# same_results A B: the same rows, column for column, except wall_seconds (the last column)
same_results() {
  python3 - "$1" "$2" <<'PY'
import csv, sys
a = list(csv.reader(open(sys.argv[1])))
b = list(csv.reader(open(sys.argv[2])))
assert a[0][-1] == "wall_seconds" and b[0][-1] == "wall_seconds"
ok = len(a) == len(b) and all(x[:-1] == y[:-1] for x, y in zip(a, b))
if not ok:
    print("results differ:", len(a), len(b))
sys.exit(0 if ok else 1)
PY
}

# ---- the grid: row count and order (the last --vary varies fastest), log ranges
"$dirac" sweep "$pendulum" --vary l=1:3:3 --vary theta0=1e-2:1:3:log --t-end 0.01 \
  --out grid.csv -q
check "grid sweep exits 0" test $? -eq 0
check "grid: 9 runs in index order, last --vary fastest, log range ends exact" python3 - <<'PY'
import csv, math
rows = list(csv.DictReader(open("grid.csv")))
ls = [float(r["l"]) for r in rows]
ths = [float(r["theta0"]) for r in rows]
assert [int(r["index"]) for r in rows] == list(range(9))
assert ls == [1, 1, 1, 2, 2, 2, 3, 3, 3], ls
assert ths[0:3] == ths[3:6] == ths[6:9]
assert ths[0] == 1e-2 and ths[2] == 1.0
# the middle of a log range is the geometric mean (10^-1), to rounding
assert abs(ths[1] - 0.1) < 1e-15, ths[1]
assert all(r["status"] == "ok" for r in rows)
PY

# ---- the period of a pendulum of length l and amplitude theta0 from its trajectory
"$dirac" sweep "$pendulum" --vary l=0.25,1,4 --vary theta0=0.1,1.5 --t-end 12 --dt 1e-3 \
  --jobs 2 --out period.csv --trajectories traj -q
check "period sweep exits 0" test $? -eq 0
check "period: 6 trajectory files" test "$(ls traj | wc -l)" -eq 6
# Exact period T = 4 sqrt(l/g) K(sin(theta0/2)), K(k) = pi / (2 AGM(1, sqrt(1 - k^2))).
# The measured one: mean spacing of the zero crossings of x (linear interpolation between rows;
# x'' = 0 at x = 0, so the interpolation error is O(h^3)). The implicit midpoint rule's period
# error is (omega h)^2/12 relative for the linearised pendulum (its frequency is
# (2/h) arctan(omega h/2)): 3.3e-6 at l = 0.25, h = 1e-3 (measured worst 5.4e-6 with the
# amplitude 1.5, where the effective omega is amplitude-dependent); tolerance 2e-5. The
# small-angle formula 2 pi sqrt(l/g) misses theta0 = 1.5 by 15 %, so the check can fail.
check "period: matches 4 sqrt(l/g) K(sin(theta0/2)) within 2e-5 (relative)" python3 - <<'PY'
import csv, math
g = 9.81
def agm(a, b):
    while abs(a - b) > 1e-16 * a:
        a, b = (a + b) / 2, math.sqrt(a * b)
    return a
def K(k):
    return math.pi / (2 * agm(1.0, math.sqrt(1 - k * k)))
worst = 0
for r in csv.DictReader(open("period.csv")):
    l, th = float(r["l"]), float(r["theta0"])
    t, x = [], []
    for row in csv.DictReader(open("traj/run_%06d.csv" % int(r["index"]))):
        t.append(float(row["t"])); x.append(float(row["x"]))
    cross = [t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])
             for i in range(len(x) - 1) if x[i] != 0 and x[i] * x[i + 1] <= 0]
    measured = 2 * (cross[-1] - cross[0]) / (len(cross) - 1)
    exact = 4 * math.sqrt(l / g) * K(math.sin(th / 2))
    err = abs(measured / exact - 1)
    worst = max(worst, err)
    assert err < 2e-5, (l, th, measured, exact, err)
    assert len(cross) >= 5
print("largest relative period error %.2e" % worst)
PY
check "trajectory of run 5 equals 'dirac simulate -p l=4 -p theta0=1.5' byte for byte" \
  bash -c "'$dirac' simulate '$pendulum' -p l=4 -p theta0=1.5 --t-end 12 --dt 1e-3 --out sim.csv -q \
           && cmp -s sim.csv traj/run_000005.csv"

# ---- failure rows: l = 0 makes the constraint degenerate (invalid); l = 1e-7 makes
# omega h = 10 and Newton's method fails at the first step; the other runs are unaffected
"$dirac" sweep "$pendulum" --vary l=1,0,1e-7,2 --t-end 0.5 --out fail.csv -q 2>/dev/null
check "a sweep with failing runs exits 3" test $? -eq 3
check "failure rows: statuses, messages, and complete ok rows" python3 - <<'PY'
import csv, math
rows = list(csv.DictReader(open("fail.csv")))
assert [r["status"] for r in rows] == ["ok", "invalid", "failed", "ok"], rows
assert "error:" in rows[1]["message"] and "rod" in rows[1]["message"]
assert "Newton" in rows[2]["message"]
assert rows[0]["message"] == "" and rows[3]["message"] == ""
assert all(math.isfinite(float(rows[k]["x"])) for k in (0, 3))
assert math.isnan(float(rows[1]["x"]))
# the failed run reports the last good step, the initial node
assert float(rows[2]["t_final"]) == 0 and int(rows[2]["steps"]) == 0
PY

# ---- a worker parses the model once and sets each run's values on its spec: every row equals
# `dirac simulate` of its values, also the run after an invalid one (l = 0: the worker loads
# the file again) and with a -p option that the varied parameter overrides
"$dirac" sweep "$pendulum" -p g=5 -p l=9 --vary l=2,0,1.5,0.75 --t-end 0.3 --out reuse.csv \
  -q 2>/dev/null
check "reused spec: exit 3 (one invalid run)" test $? -eq 3
for l in 2 1.5 0.75; do
  "$dirac" simulate "$pendulum" -p g=5 -p l=$l --t-end 0.3 --out "l$l.csv" -q
done
check "reused spec: each row's final state equals 'dirac simulate -p g=5 -p l=L'" python3 - <<'PY'
import csv
rows = list(csv.DictReader(open("reuse.csv")))
assert [r["status"] for r in rows] == ["ok", "invalid", "ok", "ok"], rows
for k, l in ((0, "2"), (2, "1.5"), (3, "0.75")):
    last = list(csv.DictReader(open("l%s.csv" % l)))[-1]
    for name in ("x", "y", "x'", "mu.rod"):
        assert float(rows[k][name]) == float(last[name]), (l, name, rows[k][name], last[name])
PY

# ---- a parameter whose value changes the model's structure mid-sweep: c = 0 folds the
# friction force away (another generated source than c > 0), so the runs alternate between
# two objects of generated code; each row's final state equals `dirac simulate` of its value
# (the same library path: %.17g both ways), and two threads give the same rows
"$dirac" sweep "$src/examples/scale/chain.dirac" -p N=3 --vary c=0,0.5,0,2,0.5 --t-end 0.2 \
  --out structure1.csv -q
check "structure changes mid-sweep: exit 0" test $? -eq 0
"$dirac" sweep "$src/examples/scale/chain.dirac" -p N=3 --vary c=0,0.5,0,2,0.5 --t-end 0.2 \
  --jobs 2 --out structure2.csv -q
check "structure changes mid-sweep: 2 threads equal 1 row for row" \
  same_results structure1.csv structure2.csv
for c in 0 2; do
  "$dirac" simulate "$src/examples/scale/chain.dirac" -p N=3 -p c=$c --t-end 0.2 --out "c$c.csv" -q
done
check "structure changes mid-sweep: final states equal 'dirac simulate' of each c" python3 - <<'PY'
import csv
rows = list(csv.DictReader(open("structure1.csv")))
assert [r["status"] for r in rows] == ["ok"] * 5, rows
for c, k in (("0", 0), ("0", 2), ("2", 3)):
    last = list(csv.DictReader(open("c%s.csv" % c)))[-1]
    for name in ("x[1]", "y[3]", "x[3]'"):
        assert float(rows[k][name]) == float(last[name]), (c, k, name, rows[k][name], last[name])
# friction dissipates: with c = 2 the chain ends with less energy than with c = 0
assert float(rows[3]["energy"]) < float(rows[0]["energy"])
PY

# a parameter that sizes a family changes the columns: such runs are invalid rows; with
# -p N=3 the base model has 3 links and the run with N = 3 is ok
"$dirac" sweep "$src/examples/scale/chain.dirac" -p N=3 --vary N=3,4 --t-end 0.01 \
  --out family.csv -q 2>/dev/null
check "family size varied: exit 3" test $? -eq 3
check "family size varied: N = 3 ok, N = 4 invalid (variables differ)" python3 - <<'PY'
import csv
rows = list(csv.DictReader(open("family.csv")))
assert [r["status"] for r in rows] == ["ok", "invalid"], rows
assert "variables differ" in rows[1]["message"]
PY

# ---- quality warnings as `dirac simulate` raises them: dirac1 at 20 times the model's step
# stretches the rod (docs/cli.md, "Warnings"); --strict makes such runs failed
"$dirac" sweep "$pendulum" --vary l=1,2 --method dirac1 --dt 0.02 --t-end 10 --out warn.csv -q
check "warnings: the sweep exits 0 without --strict" test $? -eq 0
"$dirac" sweep "$pendulum" --vary l=1,2 --method dirac1 --dt 0.02 --t-end 10 --strict \
  --out strict.csv -q
check "warnings: --strict exits 3" test $? -eq 3
check "warnings: counted and listed; --strict marks the runs failed" python3 - <<'PY'
import csv
w = list(csv.DictReader(open("warn.csv")))
s = list(csv.DictReader(open("strict.csv")))
assert all(r["status"] == "ok" and int(r["warnings"]) >= 1 for r in w), w
assert all("constraint 'rod' is violated" in r["warning_messages"] for r in w)
assert all(r["status"] == "failed" and "--strict" in r["message"] for r in s)
g = list(csv.DictReader(open("grid.csv")))
assert all(r["warnings"] == "0" and r["warning_messages"] == "" for r in g)
PY

# ---- Latin hypercube: with N samples every stratum [k/N, (k+1)/N) of each distribution
# function holds exactly one sample
"$dirac" sweep "$pendulum" --samples 40 --seed 11 --vary 'l=uniform(0.5,2)' \
  --vary 'theta0=normal(0.5,0.1)' --vary 'g=loguniform(1,100)' --t-end 0.01 --out lhs.csv -q
check "sample sweep exits 0" test $? -eq 0
check "Latin hypercube: one sample per stratum in every dimension" python3 - <<'PY'
import csv, math
rows = list(csv.DictReader(open("lhs.csv")))
N = len(rows)
assert N == 40
F = {"l": lambda v: (v - 0.5) / 1.5,
     "theta0": lambda v: 0.5 * math.erfc(-(v - 0.5) / 0.1 / math.sqrt(2)),
     "g": lambda v: math.log(v) / math.log(100)}
for name, cdf in F.items():
    strata = sorted(int(math.floor(N * cdf(float(r[name])))) for r in rows)
    assert strata == list(range(N)), (name, strata)
PY
"$dirac" sweep "$pendulum" --samples 40 --seed 11 --vary 'l=uniform(0.5,2)' \
  --vary 'theta0=normal(0.5,0.1)' --vary 'g=loguniform(1,100)' --t-end 0.01 --jobs 3 \
  --out lhs3.csv -q
check "samples: the same seed gives the same results with --jobs 3" same_results lhs.csv lhs3.csv
"$dirac" sweep "$pendulum" --samples 40 --seed 12 --vary 'l=uniform(0.5,2)' \
  --vary 'theta0=normal(0.5,0.1)' --vary 'g=loguniform(1,100)' --t-end 0.01 --out lhs12.csv -q
check "samples: another seed gives other samples" bash -c '! cmp -s <(cut -d, -f2 lhs.csv) <(cut -d, -f2 lhs12.csv)'

# ---- threads: RESULTS are the same for any --jobs
"$dirac" sweep "$pendulum" --vary l=0.5:2:7 --vary theta0=0.1,1,3 --t-end 0.3 --out j1.csv -q
"$dirac" sweep "$pendulum" --vary l=0.5:2:7 --vary theta0=0.1,1,3 --t-end 0.3 --out j3.csv \
  --jobs 3 -q
check "threads: --jobs 3 equals --jobs 1 row for row" same_results j1.csv j3.csv

# ---- bad input: exit 2 with a message
bad() {   # bad DESCRIPTION PATTERN ARGS...
  local what=$1 pattern=$2
  shift 2
  "$dirac" sweep "$@" >out.txt 2>err.txt
  local rc=$?
  check "bad input: $what (exit 2)" test $rc -eq 2
  check "bad input: $what (message)" grep -q -- "$pattern" err.txt
}
bad "unknown parameter" "unknown parameter 'lenght'" "$pendulum" --vary lenght=1,2 --out r.csv
bad "malformed range" "expected A:B:N" "$pendulum" --vary l=1:2 --out r.csv
bad "distribution without --samples" "give --samples" "$pendulum" --vary "l=uniform(1,2)" --out r.csv
bad "list with --samples" "must be a distribution" "$pendulum" --samples 3 --vary l=1,2 --out r.csv
bad "no --out" "give --out" "$pendulum" --vary l=1,2
bad "no --vary" "nothing to vary" "$pendulum" --out r.csv

# ---- MPI: 2 ranks give the serial results row for row
if [ -n "$mpi" ] && command -v mpirun >/dev/null 2>&1; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0   # Open MPI's own leaks
  mpirun --oversubscribe --allow-run-as-root -np 2 "$mpi" sweep "$pendulum" --vary l=0.5:2:7 \
    --vary theta0=0.1,1,3 --t-end 0.3 --out m2.csv -q
  check "MPI: 2 ranks exit 0" test $? -eq 0
  check "MPI: 2 ranks equal the serial sweep row for row" same_results j1.csv m2.csv
  mpirun --oversubscribe --allow-run-as-root -np 2 "$mpi" sweep "$pendulum" --vary l=1,0,1e-7,2 \
    --t-end 0.5 --out mfail.csv -q 2>/dev/null
  check "MPI: failing runs exit 3" test $? -eq 3
  check "MPI: failure rows equal the serial ones" same_results fail.csv mfail.csv
  mpirun --oversubscribe --allow-run-as-root -np 2 "$mpi" sweep "$pendulum" --samples 40 \
    --seed 11 --vary 'l=uniform(0.5,2)' --vary 'theta0=normal(0.5,0.1)' --vary 'g=loguniform(1,100)' \
    --t-end 0.01 --out mlhs.csv -q
  check "MPI: samples equal the serial ones" same_results lhs.csv mlhs.csv
  # A rank killed during the sweep (SIGKILL): with mpirun --enable-recovery the others go on;
  # rank 0 takes the silent rank as lost after --rank-timeout, reruns its unfinished runs,
  # and RESULTS is complete and equal to the serial one.
  "$dirac" sweep "$pendulum" --vary l=0.5:2:400 --t-end 0.5 --out kserial.csv -q
  timeout 300 mpirun --oversubscribe --allow-run-as-root --enable-recovery -np 3 "$mpi" sweep \
    --rank-timeout 5 "$pendulum" --vary l=0.5:2:400 --t-end 0.5 --out "$tmp/killed.csv" -q \
    2> killed.err &
  job=$!
  victim=
  for _ in $(seq 600); do   # wait until runs are coming in, then kill the last rank
    lines=$(cat "$tmp/killed.csv" 2>/dev/null | wc -l)
    if [ "$lines" -ge 20 ]; then
      # the process of rank 2 (Open MPI puts the rank in OMPI_COMM_WORLD_RANK)
      for pid in $(pgrep -f -- "--out $tmp/killed.csv"); do
        if [ "$(cat /proc/$pid/comm 2>/dev/null)" = dirac-mpi ] &&
           tr '\0' '\n' < /proc/$pid/environ 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=2; then
          victim=$pid
        fi
      done
      [ -n "$victim" ] && break
    fi
    sleep 0.05
  done
  lines=$(wc -l < "$tmp/killed.csv")
  if [ -n "$victim" ] && [ "$lines" -lt 300 ]; then
    kill -9 "$victim"
    wait "$job"
    check "MPI: a killed rank is reported as lost" grep -q "taken as lost" killed.err
    check "MPI: with a killed rank RESULTS is still complete and equal to the serial one" \
      same_results kserial.csv killed.csv
  else
    wait "$job"
    echo "skip   MPI killed rank (the sweep ended before a rank could be killed: $lines lines)"
  fi
else
  echo "skip   MPI (dirac-mpi not built)"
fi

exit $fail
