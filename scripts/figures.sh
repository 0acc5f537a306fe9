#!/usr/bin/env bash
# Writes every figure of docs/figures.md into docs/figures/ (or OUT_DIR), in one command:
#   bash scripts/figures.sh [OUT_DIR]
# Builds build/dirac (scripts/build.sh; DIRAC=PATH uses another binary instead) and needs
# gnuplot (Debian gnuplot-nox, installed by scripts/setup.sh). The CSV trajectories and the
# small wrapper models that add derived columns (constraint residual, power flows, total
# entropy) go to build/figures/. About a minute on 2 cores; the pendulum runs over 10^4
# periods take most of it. Runs that fail (exit status 3: the explicit methods blow up) are
# kept: their CSV ends at the last good step, and the figure shows how far they got. When
# pngquant is installed the PNGs are quantised to 256 colours (about 2.5 times smaller, no
# visible difference).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-docs/figures}
cd "$top"
mkdir -p "$out"
if [ -z "${DIRAC:-}" ]; then
  bash scripts/build.sh build
  DIRAC=build/dirac
fi
command -v gnuplot >/dev/null 2>&1 || {
  echo "figures: gnuplot is not installed: run bash scripts/setup.sh (Debian package gnuplot-nox)" >&2
  exit 2
}
work=build/figures
mkdir -p "$work"

# show ARGS...: prints the command, quoting the arguments that need it
show() {
  local a line="+ dirac"
  for a in "$@"; do
    if [[ $a =~ ^[-A-Za-z0-9_./:=,+^]+$ ]]; then line+=" $a"; else line+=" \"$a\""; fi
  done
  echo "$line"
}
# sim CSV MODEL ARGS...: `dirac simulate`, keeping a failed run (exit 3)
sim() {
  local csv=$1 rc=0
  shift
  show simulate "$@" --out "$csv"
  "$DIRAC" simulate "$@" --out "$csv" || rc=$?
  [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || exit "$rc"
}
plot() {
  show plot "$@"
  "$DIRAC" plot "$@"
}

# the pendulum of paper 001 at theta0 = pi/4 from rest; its period (complete elliptic integral,
# docs/paper001.md) is T = 2.0862558726 s
theta0=0.785398163397448
t100=208.62558726          # 100 T
t10000=20862.558726        # 10^4 T

# the main job's run (examples/pendulum.dirac as it is): the default figure, x and y against t
sim "$work/pendulum.csv" examples/pendulum.dirac --every 10 --quiet
plot "$work/pendulum.csv" --title "pendulum (examples/pendulum.dirac), midpoint, dt = 0.001" \
  -o "$out/pendulum.png"

# paper 001 Figures 1-2: regions swept in the x-y plane after 100 periods, dt = 0.005
for m in euler dirac1 dirac2 midpoint; do
  sim "$work/swept_$m.csv" examples/pendulum.dirac -p theta0=$theta0 --method $m --dt 0.005 \
    --t-end $t100 --every 2 --quiet
done
plot "$work/swept_euler.csv" "$work/swept_dirac1.csv" --label euler --label dirac1 --xy x,y \
  --xrange -2:2 --yrange -2:2 --xlabel "x (m)" --ylabel "y (m)" \
  --title "pendulum, theta0 = pi/4, dt = 0.005, 100 periods: euler vs dirac1" \
  -o "$out/pendulum_swept_euler_dirac1.png"
plot "$work/swept_dirac1.csv" "$work/swept_midpoint.csv" "$work/swept_dirac2.csv" \
  --label dirac1 --label midpoint --label dirac2 --xy x,y --xrange -1.2:1.2 --yrange -2:0.4 \
  --xlabel "x (m)" --ylabel "y (m)" \
  --title "pendulum, theta0 = pi/4, dt = 0.005, 100 periods: dirac1, midpoint, dirac2" \
  -o "$out/pendulum_swept_dirac1_midpoint_dirac2.png"
plot "$work/swept_dirac1.csv" "$work/swept_midpoint.csv" --label dirac1 --label midpoint \
  --phase x --xlabel "x (m)" --ylabel "x' (m/s)" \
  --title "pendulum, theta0 = pi/4, dt = 0.005, 100 periods: phase portrait of x" \
  -o "$out/pendulum_phase_dirac1_midpoint.png"

# paper 001 Figures 4-7, analogues: joint angles of the Ziegler columns, dt = 0.01
for m in euler dirac1 dirac2 midpoint; do
  sim "$work/ziegler2_$m.csv" examples/ziegler2.dirac --method $m --dt 0.01 --t-end 52.6 \
    --quiet
  sim "$work/ziegler8_$m.csv" examples/ziegler8.dirac --method $m --dt 0.01 --t-end 74.5 \
    --every 2 --quiet
done
plot "$work/ziegler2_euler.csv" "$work/ziegler2_midpoint.csv" --label euler --label midpoint \
  --y angle1,angle2 --xrange 0:10 --ylabel "joint angle (rad)" \
  --title "Ziegler column, 2 rods, dt = 0.01: euler vs midpoint" \
  -o "$out/ziegler2_euler_midpoint.png"
plot "$work/ziegler2_dirac1.csv" "$work/ziegler2_dirac2.csv" "$work/ziegler2_midpoint.csv" \
  --label dirac1 --label dirac2 --label midpoint --y angle1 --xrange 45:52.6 \
  --ylabel "angle1 (rad)" \
  --title "Ziegler column, 2 rods, dt = 0.01: the last 7.6 s of 40 periods" \
  -o "$out/ziegler2_dirac1_dirac2_midpoint.png"
plot "$work/ziegler8_dirac1.csv" "$work/ziegler8_midpoint.csv" --label dirac1 --label midpoint \
  --y angle1,angle8 --ylabel "joint angle (rad)" \
  --title "Ziegler column, 8 rods, dt = 0.01: dirac1 vs midpoint" \
  -o "$out/ziegler8_dirac1_midpoint.png"
plot "$work/ziegler8_dirac2.csv" "$work/ziegler8_midpoint.csv" --label dirac2 --label midpoint \
  --y angle1 --ylabel "angle1 (rad)" \
  --title "Ziegler column, 8 rods, dt = 0.01: dirac2 vs midpoint" \
  -o "$out/ziegler8_dirac2_midpoint.png"

# energy error and constraint residual over 10^4 periods, dt = 0.01, every method; the CSV
# has no residual column, so a wrapper model adds one as an output
cat >"$work/pendulum_residual.dirac" <<'EOF'
# examples/pendulum.dirac with its constraint residual phi = x^2 + y^2 - l^2 as a column
model pendulum_residual
component pendulum = pendulum() from "../../examples/pendulum.dirac"
output residual_rod = pendulum.x^2 + pendulum.y^2 - pendulum.l^2
EOF
methods="euler rk4 dirac1 dirac2 midpoint dgrad"
files=()
labels=()
for m in $methods; do
  sim "$work/long_$m.csv" "$work/pendulum_residual.dirac" -p pendulum.theta0=$theta0 \
    --method $m --dt 0.01 --t-end $t10000 --every 200 --quiet
  files+=("$work/long_$m.csv")
  labels+=(--label "$m")
done
plot "${files[@]}" "${labels[@]}" --errors=energy --yrange 1e-16:1e3 \
  --title "pendulum, theta0 = pi/4, dt = 0.01, 10^4 periods: energy error" \
  -o "$out/pendulum_energy_error.png"
plot "${files[@]}" "${labels[@]}" --errors=constraints --yrange 1e-17:1e3 \
  --ylabel "|x^2 + y^2 - l^2| (m^2)" \
  --title "pendulum, theta0 = pi/4, dt = 0.01, 10^4 periods: constraint residual" \
  -o "$out/pendulum_constraint_residual.png"

# interconnection: the DC motor lifting a pendulum through a gearbox
dc=examples/interconnect/dc_motor/dc_motor.dirac
if [ -f "$dc" ]; then
  cat >"$work/dc_motor_power.dirac" <<'EOF'
# examples/interconnect/dc_motor with its power flows as columns (W)
model dc_motor_power
component dc = dc_motor() from "../../examples/interconnect/dc_motor/dc_motor.dirac"
output P_source = dc.armature.V0*dc.armature.q'                 # delivered by the source
output P_resistor = dc.armature.R*dc.armature.q'^2              # lost in the armature
output P_motor = dc.K*dc.armature.q'*dc.rotor.theta'            # electrical -> mechanical
output P_bearing = dc.rotor.b*dc.rotor.theta'^2                 # lost in the bearing
EOF
  sim "$work/dc_motor.csv" "$work/dc_motor_power.dirac" --dt 1e-4 --t-end 5 --every 10 --quiet
  plot "$work/dc_motor.csv" --y dc.load.phi,dc.phi_static --ylabel "angle (rad)" \
    --title "DC motor lifting a pendulum: pendulum angle and its static angle" \
    -o "$out/dc_motor_angle.png"
  plot "$work/dc_motor.csv" --y dc.current --ylabel "armature current (A)" \
    --title "DC motor lifting a pendulum: armature current" -o "$out/dc_motor_current.png"
  plot "$work/dc_motor.csv" --y P_source,P_resistor,P_motor,P_bearing,P.dc.motor,P.dc.gear \
    --ylabel "power (W)" --title "DC motor lifting a pendulum: power flows" \
    -o "$out/dc_motor_power.png"
else
  echo "figures: note: $dc does not exist: no DC motor figures"
fi

# thermodynamics: the adiabatic piston, method dgrad
ap=examples/thermo/adiabatic_piston.dirac
if [ -f "$ap" ]; then
  cat >"$work/adiabatic_piston_entropy.dirac" <<'EOF'
# examples/thermo/adiabatic_piston.dirac with the total entropy as a column (J/K)
model adiabatic_piston_entropy
component gas = adiabatic_piston() from "../../examples/thermo/adiabatic_piston.dirac"
output S_total = gas.S1 + gas.S2
EOF
  sim "$work/adiabatic_piston.csv" "$work/adiabatic_piston_entropy.dirac" --method dgrad \
    --dt 2e-3 --t-end 20 --every 5 --quiet
  plot "$work/adiabatic_piston.csv" --y T.gas.S1,T.gas.S2 --xrange 0:8 \
    --ylabel "temperature (K)" --title "adiabatic piston, dgrad, dt = 0.002: temperatures" \
    -o "$out/adiabatic_piston_temperatures.png"
  plot "$work/adiabatic_piston.csv" --y S.gas.S1,S.gas.S2,S_total --xrange 0:8 \
    --ylabel "entropy (J/K)" --title "adiabatic piston, dgrad, dt = 0.002: entropies" \
    -o "$out/adiabatic_piston_entropy.png"
else
  echo "figures: note: $ap does not exist: no thermodynamic figures"
fi

# optional: 256-colour PNGs, about 2.5 times smaller and indistinguishable (Debian pngquant)
if command -v pngquant >/dev/null 2>&1; then
  pngquant --force --ext .png --speed 1 --skip-if-larger -- "$out"/*.png || true
fi
echo "figures: written to $out:"
ls -l "$out"
