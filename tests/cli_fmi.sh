#!/usr/bin/env bash
# `dirac export fmu`: every model of examples/fmi/ exported for FMI 2.0 and FMI 3.0, unpacked
# and run by the in-repo FMI host (tests/fmi_host.c: structural XML checks, dlopen, FMI calls).
# The FMU driven by the inputs of a CSV must give the trajectory of `dirac simulate --inputs`
# (same library, same steps: equal to rounding, asserted as |a - b| <= 1e-12 (1 + |b|)); FMU
# states give bit-identical continuations; bad calls return errors; a failing step returns an
# error with the state restored. Tunable parameters: tuning R and K of the DC motor between
# steps equals `dirac simulate` with R and K as inputs that step there; a tuned mass keeps the
# momentum (analytic). Physics through the FMU: the DC motor's steady speed K V / (R b + K^2)
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
export_and_unpack() {   # export_and_unpack NAME VERSION [ARGS...]: into NAME-fmiVERSION/
  local name=$1 version=$2
  shift 2
  rm -rf "$name-fmi$version"
  "$dirac" export fmu "$src/examples/fmi/$name.dirac" -o "$name.fmu" --fmi "$version" "$@" \
      2> export.err &&
    mkdir "$name-fmi$version" && (cd "$name-fmi$version" && unzip -q "../$name.fmu")
}
printf 't,F\n0,0\n0.5,1.5\n1,-2\n2,0\n' > ramp.csv
printf 't,F\n0,1\n' > one.csv
printf 't,V,tau_load\n0,0,0\n0.01,6,0\n0.6,6,0\n0.6001,6,-0.005\n' > motor.csv
printf 't,V\n0,6\n' > six.csv
printf 't,tau\n0,0\n1,4.905\n' > torque.csv
"$dirac" simulate "$src/examples/fmi/driven_mass.dirac" --inputs ramp.csv -q -o ref_mass.csv
"$dirac" simulate "$src/examples/fmi/dc_motor.dirac" --inputs motor.csv --t-end 1 -q \
  -o ref_motor.csv
"$dirac" simulate "$src/examples/fmi/pendulum_torque.dirac" --inputs torque.csv --t-end 3 -q \
  -o ref_pendulum.csv
# the DC motor with R and K as inputs (for the tuned parameters below)
old='parameter La = 0.01, R = 2.0, K = 0.05, J = 1e-3, b = 1e-3'
new='parameter La = 0.01, J = 1e-3, b = 1e-3\ninput R = 2.0\ninput K = 0.05'
sed -e "s/^$old\$/$new/" "$src/examples/fmi/dc_motor.dirac" > motor_inputs.dirac
grep -q '^input K = 0.05' motor_inputs.dirac || { echo "FAILED dc_motor.dirac changed"; exit 1; }
printf 't,V,R,K\n0,6,2,0.05\n0.30005,6,3.5,0.08\n' > tune.csv
"$dirac" simulate motor_inputs.dirac --inputs tune.csv --inputs-interp step --t-end 1 -q \
  -o ref_tuned.csv

for v in 2 3; do
  if [ $v = 2 ]; then platform=linux64; else platform=x86_64-linux; fi
  # driven mass: a ramp force; every check of the host
  check "FMI $v: export driven_mass" export_and_unpack driven_mass $v
  check "FMI $v: driven_mass.fmu holds modelDescription.xml and binaries/$platform/driven_mass.so" \
    test -f driven_mass-fmi$v/modelDescription.xml \
         -a -f driven_mass-fmi$v/binaries/$platform/driven_mass.so
  check "FMI $v: driven_mass: run with inputs" "$host" driven_mass-fmi$v run ramp.csv fmu.csv 200
  check "FMI $v: driven_mass: FMU = dirac simulate --inputs" same_csv fmu.csv ref_mass.csv
  check "FMI $v: driven_mass: state save/restore bit-identical" "$host" driven_mass-fmi$v state 25
  check "FMI $v: driven_mass: bad calls return errors" "$host" driven_mass-fmi$v misuse
  # the mass m tuned from 2 to 4 at t = 1 under F = 1: the momentum p = F t carries over, and
  # x(t) = 1/4 + (t^2 - 1)/8 after it (the midpoint rule is exact for a constant force: the
  # bound is rounding, 1e-12)
  check "FMI $v: driven_mass: m tuned at t = 1" "$host" driven_mass-fmi$v run one.csv tuned.csv \
    200 1 m=4
  check "FMI $v: driven_mass: tuned m keeps p, x(2) = 5/8" python3 - tuned.csv <<'PY'
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[-1]
x, p = float(r["x"]), float(r["p.x"])
print("       x(2) = %.17g (5/8), p(2) = %.17g (2)" % (x, p))
sys.exit(0 if abs(x - 0.625) < 1e-12 and abs(p - 2) < 1e-12 else 1)
PY

  # DC motor with a voltage step and a load torque
  check "FMI $v: export dc_motor" export_and_unpack dc_motor $v
  check "FMI $v: dc_motor: run with inputs" "$host" dc_motor-fmi$v run motor.csv fmu.csv 10000
  check "FMI $v: dc_motor: FMU = dirac simulate --inputs" same_csv fmu.csv ref_motor.csv
  check "FMI $v: dc_motor: state save/restore bit-identical" "$host" dc_motor-fmi$v state 50
  # tunable parameters = inputs held piecewise constant: R (in a force) and K (in the
  # two-form) tuned before the first step after t = 0.30005 give the trajectory of the model
  # with R and K as inputs that step there (equal to rounding)
  check "FMI $v: dc_motor: R, K tuned at t = 0.3001" "$host" dc_motor-fmi$v run six.csv tuned.csv \
    10000 0.30005 R=3.5 0.30005 K=0.08
  check "FMI $v: dc_motor: tuned R, K = dirac simulate with R, K inputs" \
    same_csv tuned.csv ref_tuned.csv

  # pendulum with a torque input: constraint forces inside the FMU
  check "FMI $v: export pendulum_torque" export_and_unpack pendulum_torque $v
  check "FMI $v: pendulum_torque: run with inputs" "$host" pendulum_torque-fmi$v run torque.csv \
    fmu.csv 3000
  check "FMI $v: pendulum_torque: FMU = dirac simulate --inputs" same_csv fmu.csv ref_pendulum.csv
  check "FMI $v: pendulum_torque: state save/restore bit-identical" "$host" \
    pendulum_torque-fmi$v state 100
  # l set in initialization mode after the state was read: the initial y = -l follows
  check "FMI $v: pendulum_torque: l = 2 in initialization mode gives y(0) = -2" \
    "$host" pendulum_torque-fmi$v init l 2 y -2
done

# --static-lapack: OpenBLAS, LAPACKE and KLU from their static archives (scripts/setup.sh
# installs them); the shared object then needs no LAPACK, BLAS or KLU library, only
# libgfortran.so.5 and the C library, and runs as before
check "FMI 3: export pendulum_torque --static-lapack" \
  export_and_unpack pendulum_torque 3 --static-lapack
needs_no_lapack() {   # the shared object $1 lists its needs, and no LAPACK, BLAS or KLU
  readelf -d "$1" | grep NEEDED > needed.txt &&
    ! grep -q -E 'blas|lapack|klu|amd|suitesparse' needed.txt
}
check "--static-lapack: no shared LAPACK, BLAS or KLU needed" \
  needs_no_lapack pendulum_torque-fmi3/binaries/x86_64-linux/pendulum_torque.so
check "--static-lapack: run with inputs" "$host" pendulum_torque-fmi3 run torque.csv fmu.csv 3000
check "--static-lapack: FMU = dirac simulate --inputs" same_csv fmu.csv ref_pendulum.csv

# physics through the FMU (FMI 3.0)
# steady speed under a constant V = 6 V, no load: K V / (R b + K^2) = 66.667 rad/s; after
# 5 s = 11 mechanical time constants J R / (R b + K^2) the transient is below 2e-5 of it
"$host" dc_motor-fmi3 run six.csv steady.csv 50000
check "dc_motor: steady speed K V/(R b + K^2) through the FMU" python3 - steady.csv <<'PY'
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[-1]
K, V, R, b = 0.05, 6.0, 2.0, 1e-3
w = K * V / (R * b + K * K)
print("       speed %.9g, analytic %.9g" % (float(r["speed"]), w))
sys.exit(0 if abs(float(r["speed"]) - w) < 2e-5 * w else 1)
PY
# tau = m g l / 2 holds the pendulum at asin(1/2) = pi/6 once the swing has decayed (damping
# rate c/(2m) = 0.25/s: after 40 s, e^-10 of the initial swing, 5e-5 rad)
"$host" pendulum_torque-fmi3 run torque.csv still.csv 40000
check "pendulum_torque: equilibrium angle asin(tau/(m g l)) through the FMU" \
  python3 - still.csv <<'PY'
import csv, math, sys
r = list(csv.DictReader(open(sys.argv[1])))[-1]
print("       angle %.9g, analytic %.9g" % (float(r["angle"]), math.pi / 6))
sys.exit(0 if abs(float(r["angle"]) - math.pi / 6) < 1e-4 else 1)
PY

# a step that fails (log of a negative input: not finite) returns an error, state restored
mkdir -p models
cat > models/failing.dirac <<'M'
model failing
input u = 1
coordinate x
lagrangian x'^2/2
force x: log(u)
initial x = 0, x' = 0
simulate method = midpoint, dt = 0.01, t_end = 1
M
# a chain whose length N sizes a family: N is fixed (a new N is refused), k is tunable
cat > models/chain.dirac <<'M'
model chain
parameter N = 3, k = 2
coordinate x[N]
lagrangian sum(i = 1..N, x[i]'^2/2 - k/2*x[i]^2)
initial x[i = 1..N] = i, x[i = 1..N]' = 0
simulate method = midpoint, dt = 0.01, t_end = 1
M
for v in 2 3; do
  rm -rf failing_fmu chain_fmu && mkdir failing_fmu chain_fmu
  "$dirac" export fmu models/failing.dirac --fmi $v -o failing.fmu 2> export.err
  (cd failing_fmu && unzip -q ../failing.fmu)
  check "FMI $v: failing step: error, state restored, next step works" \
    "$host" failing_fmu fail u -1
  "$dirac" export fmu models/chain.dirac --fmi $v -o chain.fmu 2> export.err
  (cd chain_fmu && unzip -q ../chain.fmu)
  check "FMI $v: chain: N fixed" grep -q 'name="N".*variability="fixed"' \
    chain_fmu/modelDescription.xml
  check "FMI $v: chain: k tunable" grep -q 'name="k".*variability="tunable"' \
    chain_fmu/modelDescription.xml
  check "FMI $v: chain: a new N is refused at initialization" "$host" chain_fmu resize N 4
  check "FMI $v: chain: state with tuning bit-identical" "$host" chain_fmu state 20
  check "FMI $v: chain: bad calls (N set after initialization) return errors" \
    "$host" chain_fmu misuse
done

# a family of parameters whose element n[2] sizes the coordinates: only n[2] is fixed
cat > models/sized.dirac <<'M'
model sized
parameter n[i = 1..3] = i + 1
parameter c = 2
coordinate x[n[2]]
lagrangian sum(i = 1..n[2], x[i]'^2/2 - c*n[1]/2*x[i]^2)
initial x[i = 1..n[2]] = 1, x[i = 1..n[2]]' = 0
simulate method = midpoint, dt = 0.01, t_end = 1
M
"$dirac" export fmu models/sized.dirac --fmi 3 -o sized.fmu 2> export.err
unzip -p sized.fmu modelDescription.xml > sized.xml
check "family of parameters: n[2] fixed" grep -q 'name="n\[2\]".*variability="fixed"' sized.xml
check "family of parameters: n[1], n[3], c tunable" \
  test "$(grep -c 'variability="tunable"' sized.xml)" = 3

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
