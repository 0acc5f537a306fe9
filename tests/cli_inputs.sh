#!/usr/bin/env bash
# `dirac simulate --inputs`: a mass driven by a force input from a CSV against the analytic
# solution; errors for unknown columns, non-monotone t, bad values; inputs in the lagrangian.
# usage: cli_inputs.sh PATH-TO-DIRAC SOURCE-DIR
. "$(dirname "$0")/support/cli.sh"
src=$(absolute "$2")
cd "$tmp" || exit 1
model=$src/examples/fmi/driven_mass.dirac

# Piecewise-constant force, switching on step boundaries (dt = 0.01): F = 1 on [0, 0.5),
# -2 on [0.5, 1.2), 0.5 from 1.2. The implicit midpoint rule is exact for constant
# acceleration (x_{k+1} - x_k = h (v_k + v_{k+1})/2 integrates a linear v exactly), so with the
# force held over each step the result is the analytic piecewise-quadratic solution up to
# rounding: tolerance 1e-12 (about 1e3 rounding errors of values of size 1).
printf 't,F\n0,1\n0.5,-2\n1.2,0.5\n' > steps.csv
"$dirac" simulate "$model" --inputs steps.csv --inputs-interp step -q -o steps_out.csv
check "step inputs run" test -s steps_out.csv
python3 - steps_out.csv <<'PY' || fail=1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
m = 2.0
def exact(t):   # x(t), v(t) of m x'' = F(t), x(0) = v(0) = 0
    x = v = 0.0
    t0 = 0.0
    for t1, F in ((0.5, 1.0), (1.2, -2.0), (1e9, 0.5)):
        dt = min(t, t1) - t0
        if dt <= 0:
            break
        x += v * dt + F / m * dt * dt / 2
        v += F / m * dt
        t0 = t1
    return x, v
err = max(max(abs(float(r["x"]) - exact(float(r["t"]))[0]),
              abs(float(r["x'"]) - exact(float(r["t"]))[1])) for r in rows)
ok = err < 1e-12 and len(rows) == 201
print(("ok    " if ok else "FAILED"), " step input vs analytic: max error %.2e over %d rows" % (err, len(rows)))
sys.exit(0 if ok else 1)
PY

# Linear interpolation of a ramp F = 3 t, sampled at the start of each step and held over it
# (zero-order hold per step). Exact solution of the held force: v_k = (h/m) sum_{j<k} F_j and
# x_k = sum_j (h v_j + h^2 F_j/(2m)) (same exactness of the midpoint rule), to 1e-12; and the
# distance to the continuous x = t^3/(2m) halves with h (first order, from the hold).
printf 't,F\n0,0\n10,30\n' > ramp.csv
for dt in 0.01 0.005; do
  "$dirac" simulate "$model" --inputs ramp.csv --dt $dt -q -o ramp_$dt.csv
done
python3 - ramp_0.01.csv ramp_0.005.csv <<'PY' || fail=1
import csv, sys
m = 2.0
errs = []
ok = True
for path, h in zip(sys.argv[1:], (0.01, 0.005)):
    rows = list(csv.DictReader(open(path)))
    x = v = 0.0
    held = 0.0
    for k, r in enumerate(rows):
        t = k * h
        held = max(held, abs(float(r["x"]) - x), abs(float(r["x'"]) - v))
        F = 3.0 * t
        x += h * v + h * h * F / (2 * m)
        v += h * F / m
    ok = ok and held < 1e-12
    t_end = float(rows[-1]["t"])
    errs.append(abs(float(rows[-1]["x"]) - t_end ** 3 / (2 * m)))
    print("       dt %g: held-force error %.2e, continuous error %.3e" % (h, held, errs[-1]))
ratio = errs[0] / errs[1]
ok = ok and 1.8 < ratio < 2.2
print(("ok    " if ok else "FAILED"), " linear input: zero-order hold exact, order-1 ratio %.3f" % ratio)
sys.exit(0 if ok else 1)
PY

# errors: exit 2 with the file and line
expect_error() {   # expect_error DESCRIPTION PATTERN ARGS...
  local what=$1 pattern=$2
  shift 2
  "$dirac" simulate "$model" -q -o /dev/null "$@" 2> err.txt
  local rc=$?
  check "$what (exit $rc)" test $rc -eq 2
  check "$what: message" grep -q -- "$pattern" err.txt
}
printf 't,F,G\n0,1,2\n' > unknown.csv
expect_error "unknown column" "unknown.csv:1: unknown column 'G' (model 'driven_mass' has the inputs F)" --inputs unknown.csv
printf 't,F\n0,1\n1,2\n1,3\n' > nonmono.csv
expect_error "non-monotone t" "nonmono.csv:4: t must increase strictly" --inputs nonmono.csv
printf 't,F\n0,1\n1,nan\n' > nan.csv
expect_error "NaN value" "nan.csv:3: not a finite number: nan" --inputs nan.csv
printf 'time,F\n0,1\n' > first.csv
expect_error "first column not t" "the first column must be 't'" --inputs first.csv
printf 't,F,F\n0,1,1\n' > dup.csv
expect_error "duplicate column" "duplicate column F" --inputs dup.csv
printf 't,F\n0,1,2\n' > wide.csv
expect_error "too many columns" "wide.csv:2: too many columns" --inputs wide.csv
printf 't,F\n' > empty.csv
expect_error "no rows" "no rows after the header" --inputs empty.csv
expect_error "missing file" "cannot read 'nope.csv'" --inputs nope.csv
expect_error "bad interpolation" "'linear' or 'step'" --inputs-interp cubic

# an input in the lagrangian is refused where it is written
cat > in_lagrangian.dirac <<'M'
model bad
input k = 1
coordinate x
lagrangian x'^2/2 - k*x^2/2
initial x = 1
M
"$dirac" check in_lagrangian.dirac > /dev/null 2> err.txt
check "input in the lagrangian: exit 2" test $? -eq 2
check "input in the lagrangian: located message" grep -q "in_lagrangian.dirac:4:1: error: the lagrangian depends on an input" err.txt
# a parameter cannot be computed from an input
printf 'model bad2\ninput u = 1\nparameter k = 2*u\ncoordinate x\nlagrangian x'"'"'^2/2\nforce x: k\n' > in_param.dirac
"$dirac" check in_param.dirac > /dev/null 2> err.txt
check "parameter from an input: refused" grep -q "must be a constant (it depends on the state, on time or on an input)" err.txt
# the default is used without --inputs: F = 0, the mass stays at rest; -p sets the default
"$dirac" simulate "$model" -q -o rest.csv
check "default input: at rest" python3 -c "import csv,sys; r=list(csv.DictReader(open('rest.csv'))); sys.exit(0 if float(r[-1]['x'])==0.0 else 1)"
"$dirac" simulate "$model" -p F=4 -q -o pushed.csv
# x(2) = F t^2/(2m) = 4 exactly (midpoint exact for constant acceleration), to 1e-12
check "-p F=4 sets the default" python3 -c "import csv,sys; r=list(csv.DictReader(open('pushed.csv'))); sys.exit(0 if abs(float(r[-1]['x'])-4.0)<1e-12 else 1)"
# an indexed family of inputs: x[i]'' = u[i] from rest, u = (0, 1, 2) from the file, so
# x[i](1) = u[i]/2 (midpoint exact for constant acceleration; 1e-12)
cat > family.dirac <<'M'
model family
parameter N = 3
input u[i = 1..N] = 0
coordinate x[i = 1..N]
lagrangian sum(i = 1..N, x[i]'^2/2)
force x[i = 1..N]: u[i]
simulate dt = 0.1, t_end = 1
M
printf 't,u[2],u[3]\n0,1,2\n' > family.csv
"$dirac" simulate family.dirac --inputs family.csv -q -o family_out.csv
check "indexed inputs u[1..3]" python3 -c "
import csv, sys
r = list(csv.DictReader(open('family_out.csv')))[-1]
sys.exit(0 if all(abs(float(r['x[%d]' % i]) - u / 2) < 1e-12 for i, u in ((1, 0), (2, 1), (3, 2))) else 1)"
exit $fail
