#!/usr/bin/env bash
# `dirac export fmu`: every model of examples/fmi/ exported, unpacked and run by the in-repo
# FMI host (tests/fmi_host.c: structural XML checks, dlopen, FMI 2.0 calls). The FMU driven by
# the inputs of a CSV must give the trajectory of `dirac simulate --inputs` (same library, same
# steps: equal to rounding, asserted as |a - b| <= 1e-12 (1 + |b|)); FMU states give
# bit-identical continuations; bad calls return errors; a failing step returns fmi2Error with
# the state restored. Physics through the FMU: the DC motor's steady speed K V / (R b + K^2)
# and the pendulum's equilibrium angle asin(tau / (m g l)).
# usage: cli_fmi.sh PATH-TO-DIRAC PATH-TO-FMI-HOST SOURCE-DIR
. "$(dirname "$0")/support/cli.sh"
host=$(absolute "$2")
src=$(absolute "$3")
for tool in zip unzip cc; do
  command -v $tool >/dev/null || { echo "FAILED $tool is missing (scripts/setup.sh)"; exit 1; }
done
cd "$tmp" || exit 1
# same_csv A B: equal columns and rows, values equal to 1e-12 (1 + |b|)
same_csv() {
  python3 - "$1" "$2" <<'PY'
import csv, sys
a = list(csv.reader(open(sys.argv[1])))
b = list(csv.reader(open(sys.argv[2])))
if a[0] != b[0] or len(a) != len(b):
    print("       header or length differs:", a[0], b[0], len(a), len(b))
    sys.exit(1)
worst = 0.0
for ra, rb in zip(a[1:], b[1:]):
    for x, y in zip(ra, rb):
        worst = max(worst, abs(float(x) - float(y)) / (1 + abs(float(y))))
print("       largest relative difference FMU vs dirac simulate: %.3g" % worst)
sys.exit(0 if worst <= 1e-12 else 1)
PY
}
export_and_unpack() {   # export_and_unpack NAME [ARGS...]
  local name=$1
  shift
  rm -rf "$name"
  "$dirac" export fmu "$src/examples/fmi/$name.dirac" -o "$name.fmu" "$@" 2> export.err &&
    mkdir "$name" && (cd "$name" && unzip -q "../$name.fmu")
}
# fmu_matches NAME INPUTS STEPS STATE-STEPS [SIMULATE-ARGS...]: the FMU NAME driven by the
# CSV INPUTS over STEPS steps gives the trajectory of `dirac simulate --inputs`, and its states
# continue bit-identically (over STATE-STEPS steps)
fmu_matches() {
  local name=$1 inputs=$2 steps=$3 state_steps=$4
  shift 4
  check "$name: run with inputs" "$host" "$name" run "$inputs" fmu.csv "$steps"
  "$dirac" simulate "$src/examples/fmi/$name.dirac" --inputs "$inputs" "$@" -q -o ref.csv
  check "$name: FMU = dirac simulate --inputs" same_csv fmu.csv ref.csv
  check "$name: state save/restore bit-identical" "$host" "$name" state "$state_steps"
}

# driven mass: a ramp force; every check of the host
check "export driven_mass" export_and_unpack driven_mass
check "driven_mass.fmu holds modelDescription.xml and the shared object" \
  test -f driven_mass/modelDescription.xml -a -f driven_mass/binaries/linux64/driven_mass.so
printf 't,F\n0,0\n0.5,1.5\n1,-2\n2,0\n' > ramp.csv
fmu_matches driven_mass ramp.csv 200 25
check "driven_mass: bad calls return errors" "$host" driven_mass misuse

# DC motor with a voltage step and a load torque
check "export dc_motor" export_and_unpack dc_motor
printf 't,V,tau_load\n0,0,0\n0.01,6,0\n0.6,6,0\n0.6001,6,-0.005\n' > motor.csv
fmu_matches dc_motor motor.csv 10000 50 --t-end 1
# steady speed under a constant V = 6 V, no load: K V / (R b + K^2) = 66.667 rad/s; after
# 5 s = 11 mechanical time constants J R / (R b + K^2) the transient is below 2e-5 of it
printf 't,V\n0,6\n' > six.csv
"$host" dc_motor run six.csv steady.csv 50000
check "dc_motor: steady speed K V/(R b + K^2) through the FMU" python3 - steady.csv <<'PY'
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[-1]
K, V, R, b = 0.05, 6.0, 2.0, 1e-3
w = K * V / (R * b + K * K)
print("       speed %.9g, analytic %.9g" % (float(r["speed"]), w))
sys.exit(0 if abs(float(r["speed"]) - w) < 2e-5 * w else 1)
PY

# pendulum with a torque input: constraint forces inside the FMU
check "export pendulum_torque" export_and_unpack pendulum_torque
printf 't,tau\n0,0\n1,4.905\n' > torque.csv
fmu_matches pendulum_torque torque.csv 3000 100 --t-end 3
# tau = m g l / 2 holds the pendulum at asin(1/2) = pi/6 once the swing has decayed (damping
# rate c/(2m) = 0.25/s: after 40 s, e^-10 of the initial swing, 5e-5 rad)
"$host" pendulum_torque run torque.csv still.csv 40000
check "pendulum_torque: equilibrium angle asin(tau/(m g l)) through the FMU" python3 - still.csv <<'PY'
import csv, math, sys
r = list(csv.DictReader(open(sys.argv[1])))[-1]
print("       angle %.9g, analytic %.9g" % (float(r["angle"]), math.pi / 6))
sys.exit(0 if abs(float(r["angle"]) - math.pi / 6) < 1e-4 else 1)
PY

# a step that fails (log of a negative input: not finite) returns fmi2Error, state restored
mkdir -p failing
cat > failing/failing.dirac <<'M'
model failing
input u = 1
coordinate x
lagrangian x'^2/2
force x: log(u)
initial x = 0, x' = 0
simulate method = midpoint, dt = 0.01, t_end = 1
M
"$dirac" export fmu failing/failing.dirac -o failing.fmu 2> export.err
rm -rf failing_fmu && mkdir failing_fmu && (cd failing_fmu && unzip -q ../failing.fmu)
check "failing step: fmi2Error, state restored, next step works" "$host" failing_fmu fail u -1

# -p at export, errors of the exporter
check "export with -p" "$dirac" export fmu "$src/examples/fmi/driven_mass.dirac" -p m=4 -o m4.fmu
unzip -p m4.fmu modelDescription.xml > m4.xml
check "-p m=4: the parameter's start is 4" grep -q '<Real start="4"/>' m4.xml
"$dirac" export fmu "$src/examples/fmi/driven_mass.dirac" --fmi 7 -o x.fmu 2> err.txt
check "--fmi 7: exit 2" test $? -eq 2
"$dirac" export fmu "$src/examples/fmi/driven_mass.dirac" -p nosuch=1 -o x.fmu 2> err.txt
check "-p unknown: exit 2" test $? -eq 2
"$dirac" export zip "$src/examples/fmi/driven_mass.dirac" 2> err.txt
check "unknown format: exit 2" test $? -eq 2
exit $fail
