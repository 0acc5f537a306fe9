#!/usr/bin/env bash
# `output` expressions naming solution quantities like the CSV columns: mu.C, E, p.X, T.S,
# and accelerations x''.
# Compared with the analytic rod tension of a pendulum, with the CSV's own columns, and with
# the temperature of a heated body; errors for unknown names.
# usage: cli_outputs.sh PATH-TO-DIRAC SOURCE-DIR
. "$(dirname "$0")/support/cli.sh"
src=$(absolute "$2")
cat >"$tmp/compare.py" <<'PY'
import csv, sys
# compare.py FILE A B: max |A - B| / max |B| over the rows
rows = list(csv.DictReader(open(sys.argv[1])))
a, b = sys.argv[2], sys.argv[3]
print(max(abs(float(r[a]) - float(r[b])) for r in rows) / max(abs(float(r[b])) for r in rows))
PY
rel() { python3 "$tmp/compare.py" "$@"; }
below() { python3 -c "import sys; sys.exit(0 if float('$1') <= float('$2') else 1)"; }
between() { python3 -c "import sys; sys.exit(0 if float('$2') <= float('$1') <= float('$3') else 1)"; }

model=$src/tests/data/pendulum_outputs.dirac
# The tension from mu.rod against m (g cos θ + l θ'²) at the same row's state. How close they
# are is the method's multiplier accuracy at the step's end: midpoint's μ is the constraint
# impulse over the step divided by h (first order at the end point), dirac2's second order,
# rk4's fourth (μ of its index-reduced ODE), lobatto3's consistent with the end state.
declare -A order=([midpoint]=1 [dirac2]=2 [rk4]=4)
for method in midpoint dirac2 rk4 lobatto3 dgrad; do
  for dt in 1e-3 5e-4; do
    "$dirac" simulate "$model" --method $method --dt $dt --t-end 2 --out "$tmp/$method-$dt.csv" --quiet
  done
  # E, p.x as outputs equal the CSV columns E, p.x to rounding (1e-12 relative)
  check "$method: output E = column E" below "$(rel "$tmp/$method-1e-3.csv" energy E)" 1e-12
  check "$method: output p.x = column p.x" below "$(rel "$tmp/$method-1e-3.csv" px p.x)" 1e-12
  e1=$(rel "$tmp/$method-1e-3.csv" tension exact)
  e2=$(rel "$tmp/$method-5e-4.csv" tension exact)
  if [ "$method" = lobatto3 ]; then
    check "lobatto3: tension = m (g cos θ + l θ'^2) to rounding ($e1)" below "$e1" 1e-13
  elif [ "$method" = dgrad ]; then
    check "dgrad: tension within 2e-3 at h = 1e-3 ($e1)" below "$e1" 2e-3
  else
    p=${order[$method]}
    # halving h divides the error by 2^p (within 20%)
    check "$method: tension error ratio ~ 2^$p ($e1 / $e2)" between \
      "$(python3 -c "print($e1 / $e2)")" "$(python3 -c "print(0.8 * 2**$p)")" "$(python3 -c "print(1.2 * 2**$p)")"
  fi
done

# temperature T.S of a thermodynamic model
"$dirac" simulate "$src/tests/data/heating_outputs.dirac" --method dgrad --dt 1e-3 --t-end 2 --out "$tmp/heat.csv" --quiet
check "T.S output = column T.S" below "$(rel "$tmp/heat.csv" temp T.S)" 1e-14
check "T.S output = T0 exp(S/C)" below "$(rel "$tmp/heat.csv" temp exact_temp)" 1e-14
check "E output = column E (with internal energy)" below "$(rel "$tmp/heat.csv" energy E)" 1e-12

# an interaction's multiplier in a model with components
cp "$src/examples/interconnect/contact/block.dirac" "$tmp/"
sed 's/^output gap = .*/output push = mu.touch/' "$src/examples/interconnect/contact/contact.dirac" >"$tmp/contact.dirac"
"$dirac" simulate "$tmp/contact.dirac" --t-end 1 --out "$tmp/contact.csv" --quiet
check "mu.touch output = column mu.touch" below "$(rel "$tmp/contact.csv" push mu.touch)" 0

# interactions' forces and powers F.NAME.COORD, P.NAME in outputs, against their formulas:
# the two-form motor K d(armature.q) ^ d(rotor.theta) pushes the rotor with K armature.q', the
# constraint gear: rotor.theta = N load.phi acts on load.phi with mu.gear * (-N); their powers
# are zero (interactions do no work: exactly 0 for the two-form, whose terms cancel
# symbolically; the gear's two terms cancel to rounding, 1e-12 of the force times the speed)
for f in armature rotor pendulum; do cp "$src/examples/interconnect/dc_motor/$f.dirac" "$tmp/"; done
{ cat "$src/examples/interconnect/dc_motor/dc_motor.dirac"
  echo "output f_rotor = F.motor.rotor.theta, K_current = K*armature.q', p_motor = P.motor"
  echo "output f_load = F.gear.load.phi, minus_N_mu = -N*mu.gear, p_gear = P.gear"
  echo "output p_gear_scale = abs(mu.gear*N*load.phi') + abs(mu.gear*rotor.theta')"; } >"$tmp/dc_motor.dirac"
"$dirac" simulate "$tmp/dc_motor.dirac" --t-end 0.05 --out "$tmp/motor.csv" --quiet
check "F.motor.rotor.theta = K armature.q'" below "$(rel "$tmp/motor.csv" f_rotor K_current)" 0
check "F.motor.rotor.theta output = its CSV column" below "$(rel "$tmp/motor.csv" f_rotor F.motor.rotor.theta)" 0
check "F.gear.load.phi = -N mu.gear" below "$(rel "$tmp/motor.csv" f_load minus_N_mu)" 1e-15
check "P.motor = 0, P.gear = 0 to rounding" python3 -c "
import csv
for r in csv.DictReader(open('$tmp/motor.csv')):
    assert float(r['p_motor']) == 0, r['p_motor']
    assert abs(float(r['p_gear'])) <= 1e-12 * float(r['p_gear_scale']) + 1e-300, r"
printf 'model u\ncoordinate x, y\nlagrangian (x'"'"'^2 + y'"'"'^2)/2\nconstraint rod: x^2 + y^2 = 1\noutput a = P.rod\n' >"$tmp/u.dirac"
"$dirac" check "$tmp/u.dirac" >/dev/null 2>"$tmp/err"
check "P. of a model without interactions: exit 2" test $? -eq 2
check "P. of a model without interactions: says so" grep -q "u.dirac:5:12: error: 'P.rod': the model has no interactions" "$tmp/err"
sed 's/^output f_rotor = .*/output f = F.motor.load.phi/' "$tmp/dc_motor.dirac" >"$tmp/bad_motor.dirac"
"$dirac" check "$tmp/bad_motor.dirac" >/dev/null 2>"$tmp/err"
check "F. of a coordinate the interaction does not act on: says so" grep -q "'F.motor.load.phi' is not a column of the model's interactions" "$tmp/err"
printf 'model u\ncoordinate x\nlagrangian x'"'"'^2/2\noutput a = F.nosuch.x\n' >"$tmp/u.dirac"
"$dirac" check "$tmp/u.dirac" >/dev/null 2>"$tmp/err"
check "F. of an unknown interaction: says so" grep -q "u.dirac:4:12: error: 'F.nosuch.x': model 'u' has no interaction 'nosuch'" "$tmp/err"

# elements of indexed families: mu.link[i], p.x[i] of N pendulums started at different angles;
# the tension -2 l mu.link[i] against m (g cos th_i + l th_i'^2) at each row (midpoint's
# multiplier is first order at the step's end: measured 1.1e-3 relative at dt = 1e-3; 2e-3)
cat >"$tmp/pendulums.dirac" <<'EOF'
model pendulums
parameter N = 3, l = 1, g = 9.81
coordinate x[N], y[N]
lagrangian sum(i = 1..N, (x[i]'^2 + y[i]'^2)/2 - g*y[i])
constraint link[i = 1..N]: x[i]^2 + y[i]^2 = l^2
initial x[i = 1..N] = l*sin(0.3*i), y[i = 1..N] = -l*cos(0.3*i)
output tension[i = 1..N] = -2*l*mu.link[i], second = mu.link[2], px[i = 1..N] = p.x[i]
EOF
"$dirac" simulate "$tmp/pendulums.dirac" --dt 1e-3 --t-end 1 --out "$tmp/pendulums.csv" --quiet
check "mu.link[2] output = column mu.link[2]" below "$(rel "$tmp/pendulums.csv" second 'mu.link[2]')" 0
# p.x[i] = dL/dx[i]' = x[i]' at the node, the column p.x[i] the method's momentum: equal to
# rounding (1e-14 of the largest momentum)
for i in 1 2 3; do
  check "p.x[$i] output = column p.x[$i]" below "$(rel "$tmp/pendulums.csv" "px[$i]" "p.x[$i]")" 1e-14
done
cat >"$tmp/tension.py" <<'PY'
import csv, sys
worst = 0
for r in csv.DictReader(open(sys.argv[1])):
    for i in (1, 2, 3):
        y, vx, vy = (float(r[k % i]) for k in ("y[%d]", "x[%d]'", "y[%d]'"))
        exact = 9.81 * (-y) + vx * vx + vy * vy   # g cos th + l th'^2 with l = 1
        worst = max(worst, abs(float(r["tension[%d]" % i]) - exact) / exact)
assert worst < 2e-3, worst
PY
check "tension[i] = g cos th_i + l th_i'^2 (each pendulum its own)" \
  python3 "$tmp/tension.py" "$tmp/pendulums.csv"
# T.S[i] of an entropy family against T0 exp(S_i / C) (the same formula: to rounding)
cat >"$tmp/ts.dirac" <<'EOF'
model ts
parameter m = 1.0, k = 100.0, c = 2.0, C = 0.5, T0 = 300, x0 = 0.5
coordinate x
entropy S[2]
lagrangian m/2*x'^2 - k/2*x^2 - sum(i = 1..2, C*T0*exp(S[i]/C))
friction x -> S[1]: -c*x'
heat S[1], S[2]: 0.1
initial x = x0, x' = 0
output temp[i = 1..2] = T.S[i], exact[i = 1..2] = T0*exp(S[i]/C)
EOF
"$dirac" simulate "$tmp/ts.dirac" --dt 1e-3 --t-end 1 --out "$tmp/ts.csv" --quiet
for i in 1 2; do
  check "T.S[$i] output = T0 exp(S[$i]/C)" below "$(rel "$tmp/ts.csv" "temp[$i]" "exact[$i]")" 1e-14
done
printf 'model u\ncoordinate x[2]\nlagrangian x[1]'"'"'^2/2 + x[2]'"'"'^2/2\noutput a = mu.x[1]\n' >"$tmp/u.dirac"
"$dirac" check "$tmp/u.dirac" >/dev/null 2>"$tmp/err"
check "mu. of a coordinate family: says so" grep -q "u.dirac:4:12: error: 'mu.x\[...\]': model 'u' has no indexed constraint 'x'" "$tmp/err"

# errors: unknown constraint, derived names outside outputs, a model's own E wins
printf 'model u\ncoordinate x\nlagrangian x'"'"'^2/2\noutput a = mu.nosuch\n' >"$tmp/u.dirac"
"$dirac" check "$tmp/u.dirac" >/dev/null 2>"$tmp/err"
check "unknown constraint: exit 2" test $? -eq 2
check "unknown constraint: located message" grep -q "u.dirac:4:12: error: 'mu.nosuch': model 'u' has no constraint 'nosuch'" "$tmp/err"
printf 'model v\ncoordinate x\nlagrangian x'"'"'^2/2 - E\n' >"$tmp/v.dirac"
"$dirac" check "$tmp/v.dirac" >/dev/null 2>&1
check "E outside outputs: still unknown" test $? -eq 2
printf 'model w\nparameter E = 7\ncoordinate x\nlagrangian x'"'"'^2/2\noutput e = E\n' >"$tmp/w.dirac"
"$dirac" simulate "$tmp/w.dirac" --t-end 0.01 --dt 1e-3 --out "$tmp/w.csv" --quiet
check "a parameter named E wins" grep -q ',7$' "$tmp/w.csv"
# accelerations x'' (tests/test_outputs.c checks them against the exact pendulum): at each
# row's state, the closed form of the Cartesian pendulum from the differentiated constraint
# r.r'' + |r'|^2 = 0 with r'' = -g e_y + lam r: lam = (g y - |r'|^2)/|r|^2, x'' = lam x,
# y'' = -g + lam y (rk4 leaves the rod, so |r| is kept); to rounding (1e-12 of |a| ~ 10)
cat >"$tmp/accel.dirac" <<'EOF2'
model accel
parameter m = 2, g = 9.81
coordinate x, y
lagrangian m/2*(x'^2 + y'^2) - m*g*y
constraint rod: x^2 + y^2 = 1
initial x = 0.6, y = -0.8
output ax = x'', ay = y''
EOF2
"$dirac" simulate "$tmp/accel.dirac" --method rk4 --dt 1e-3 --t-end 1 --out "$tmp/accel.csv" --quiet
check "x'' and y'' equal the pendulum's closed form at every row" python3 -c "
import csv
rows = 0
for r in csv.DictReader(open('$tmp/accel.csv')):
    x, y, vx, vy = (float(r[k]) for k in ('x', 'y', \"x'\", \"y'\"))
    lam = (9.81 * y - (vx * vx + vy * vy)) / (x * x + y * y)
    assert abs(float(r['ax']) - lam * x) <= 1e-12 * 10, r
    assert abs(float(r['ay']) - (-9.81 + lam * y)) <= 1e-12 * 10, r
    rows += 1
assert rows == 1001, rows"
printf 'model u\ncoordinate x\nlagrangian x'"'"'^2/2\nforce x: -x'"''"'\n' >"$tmp/u.dirac"
"$dirac" check "$tmp/u.dirac" >/dev/null 2>"$tmp/err"
check "x'' outside outputs: exit 2" test $? -eq 2
check "x'' outside outputs: located message" grep -q "u.dirac:4:11: error: the acceleration x'' can be used only in outputs" "$tmp/err"
exit $fail
