#!/usr/bin/env bash
# `dirac import spice` and `dirac simulate NETLIST`: one comment per netlist line, -o, netlists
# recognised by extension and by content, SPICE numbers and case-insensitive names, the power
# balance of the per-element powers (Tellegen's theorem: sum of absorbed powers = 0), and
# FILE:LINE:COL errors for malformed or unsupported netlists (exit 2).
# usage: cli_import.sh PATH-TO-DIRAC SOURCE-DIR
. "$(dirname "$0")/support/cli.sh"
src=$(absolute "$2")
cd "$tmp" || exit 1

# every netlist line (not comments) has its comment in the model
cp "$src/tests/spice/rlc_ladder.cir" ladder.cir
"$dirac" import spice ladder.cir -o ladder.dirac
check "import -o writes the model" test -s ladder.dirac
all_lines() {
  local n=0 line
  while IFS= read -r line; do
    n=$((n + 1))
    case $line in ''|'*'*) continue ;; esac
    grep -qF "# ladder.cir:$n: " ladder.dirac || { echo "line $n has no comment"; return 1; }
  done < ladder.cir
}
check "one comment per netlist line (continuation lines too)" all_lines
check "1MH is 1 millihenry (SPICE's M is milli)" grep -q '^parameter l2 = 0.001 ' ladder.dirac

# the written model runs and gives what simulating the netlist gives
"$dirac" simulate ladder.dirac --out from_model.csv --quiet
"$dirac" simulate ladder.cir --out from_netlist.csv --quiet
check "simulate MODEL.dirac = simulate NETLIST" cmp -s from_model.csv from_netlist.csv
cp ladder.cir netlist_without_extension
"$dirac" simulate netlist_without_extension --out by_content.csv --quiet
check "a netlist is recognised by its .end line" cmp -s by_content.csv from_netlist.csv

# numbers, units, case
cat > units.sp <<'NET'
Units and case
V1 IN 0 DC 1
R1 in Mid 2.2MEG
R2 MID out 3kOhm
C1 OUT 0 10uF
L1 out 0 2mil
C2 out 0 4.7p
.TRAN 1m 2m
.END
NET
"$dirac" import spice units.sp -o units.dirac
check "2.2MEG" grep -q '^parameter r1 = 2200000 ' units.dirac
check "3kOhm (unit letters ignored)" grep -q '^parameter r2 = 3000 ' units.dirac
check "10uF" grep -q '^parameter c1 = 1e-05 ' units.dirac
check "4.7p is the double nearest 4.7e-12" grep -q '^parameter c2 = 4.7e-12 ' units.dirac
check "2mil" grep -q '^parameter l1 = 5.08e-05 ' units.dirac
check "case-insensitive node names" grep -q '^coordinate phi_mid, phi_out$' units.dirac

# Tellegen: the absorbed powers p_E sum to zero at every row. Not to rounding: the sum is
# v(a) times the residual of Kirchhoff's current law at node a (no capacitor), which dgrad
# imposes over each step, not at its ends; that residual is O(h^2), 7e-7 of the largest power
# at this step, so 1e-5 bounds it with room and still catches a wrong sign or a missing element
"$dirac" simulate "$src/tests/spice/rlc_series.cir" --out series.csv --quiet --t-end 1e-3
tellegen() {
  awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) if ($k ~ /^p_/) p[k] = 1; next }
    { s = 0; for (k in p) { s += $k; a = $k < 0 ? -$k : $k; if (a > big) big = a }
      s = s < 0 ? -s : s; if (s > worst) worst = s }
    END { printf "sum of powers %.2e of %.2e\n", worst, big; exit !(big > 0 && worst <= 1e-5 * big) }' series.csv
}
check "per-element powers balance (Tellegen)" tellegen

# errors: FILE:LINE:COL: error: naming the line and the element, exit 2
expect_error() {   # expect_error NAME LOCATION PATTERN  (netlist on stdin)
  cat > "$1.cir"
  local out
  out=$("$dirac" import spice "$1.cir" 2>&1 >/dev/null)
  local rc=$?
  if [ $rc -eq 2 ] && printf '%s\n' "$out" | grep -q "^$1.cir:$2: error: .*$3"; then
    echo "ok     error $1"
  else
    echo "FAILED error $1 (exit $rc):"; printf '%s\n' "$out"; fail=1
  fi
  out=$("$dirac" simulate "$1.cir" --out /dev/null 2>&1)
  if [ $? -ne 2 ] || ! printf '%s\n' "$out" | grep -q "^$1.cir:$2: error:"; then
    echo "FAILED simulate reports the error of $1"; fail=1
  fi
}
printf 'title\nV1 a 0 1\nD1 a 0 dmod\n.end\n' | expect_error diode 3:1 "'d1' (a diode)"
printf 'title\nV1 a 0 1\nR1 a 0 1k\nE1 b 0 a 0 2\n.end\n' | expect_error vcvs 4:1 "voltage-controlled voltage source"
printf 'title\nV1 a 0 1\nQ1 c b e qmod\n.end\n' | expect_error bjt 3:1 "bipolar transistor"
printf 'title\nV1 a 0 1\nR1 a 0 k1\n.end\n' | expect_error value 3:8 "unknown parameter"
printf 'title\nV1 a 0 1\nR1 a 0 {2*rr}\n.end\n' | expect_error param 3:11 "unknown parameter"
printf 'title\nV1 a 0 1\nX1 a 0 nothere\n.end\n' | expect_error subckt 3:8 "unknown subcircuit 'nothere'"
printf 'title\n.subckt two p q\nR1 p q 1\n.ends\nV1 a 0 1\nX1 a two\n.end\n' | expect_error ports 6:1 "connects 1 node, subcircuit 'two' has 2 ports"
printf 'title\n.model dmod d\nV1 a 0 1\nR1 a 0 1\n.end\n' | expect_error model 2:1 "unsupported directive '.model'"
printf 'title\nV1 a 0 PWL(0 0 1m 1\nR1 a 0 1\n.tran 1u 1m\n.end\n' | expect_error paren 2:11 "'(' of pwl is not closed"
printf 'title\nV1 a 0 PULSE(0 1 0 1u 1u 1m 2m)\nR1 a 0 1\n.end\n' | expect_error pulse 2:8 "PULSE needs a .tran"
printf 'title\nV1 a 0 1\nR1 a 0 1\nK1 R1 L2 0.5\n.end\n' | expect_error coupling 4:4 "'r1' is not an inductor"
printf 'title\nV1 a 0 PWL(0 0 2m 1 1m 2)\nR1 a 0 1\n.end\n' | expect_error pwl 2:21 "PWL times must not decrease"
printf 'title\n+ R1 a 0 1\n.end\n' | expect_error plus 2:1 "continuation line"
printf 'title\nV1 a 0 SFFM(0 1 1k 5 100)\nR1 a 0 1\n.end\n' | expect_error sffm 2:8 "unsupported source function 'sffm'"
printf 'title\nV1 a 0 1\nR1 a a 1\n.end\n' | expect_error shorted 3:6 "both terminals"
printf 'title\nV1 a 0 1\nR1 a 0 -5\n.end\n' | expect_error negative 3:8 "must be positive"
printf 'title\nV1 a 0 1\nR1 a 0 1\n.tran 1u 1m 0.5m\n.end\n' | expect_error tstart 4:13 "TSTART"


# ---- the energy of each element in the summary (docs/circuits.md, "Energy per element")
# An RC charged from 0 by a DC source V through R: v_C = V (1 - e^(-t/tau)), tau = RC, so over
# [0, T] with x = e^(-T/tau) the capacitor stores W_C = C V^2/2 (1 - x)^2, the resistor
# dissipates W_R = C V^2/2 (1 - x^2) and the source delivers C V^2 (1 - x) (absorbs -C V^2 (1 - x)).
# The summary's W_E = integral of p_E dt by the trapezoid rule over every step (not only the
# written rows: --every 97 must not change it) with dgrad, both second order: the relative
# error is C (h/tau)^2 (measured C = 0.25 for R and C); tolerance (h/tau)^2, and halving h
# must divide the error by 4 (observed order within 2 +- 0.25).
rc_netlist() {   # rc_netlist H: V = 2, R = 1k, C = 1u (tau = 1 ms), T = 10 tau, step H
  printf 'RC charged by a DC source\nV1 in 0 DC 2\nR1 in out 1k\nC1 out 0 1u\n.tran %s 10m 0 %s uic\n.end\n' "$1" "$1"
}
rc_netlist 2u > rc2.cir
rc_netlist 4u > rc4.cir
"$dirac" simulate rc2.cir --out rc2.csv --summary rc2.json -q
"$dirac" simulate rc2.cir --every 97 --out rc2_thin.csv --summary rc2_thin.json -q
"$dirac" simulate rc4.cir --out rc4.csv --summary rc4.json -q
py=/usr/bin/python3
[ -x "$py" ] || py=python3
check "RC: per-element energies against C V^2/2 (1-x)^2, C V^2/2 (1-x^2), -C V^2 (1-x); order 2" \
  "$py" - <<'PY'
import json, math
V, C, tau, T = 2.0, 1e-6, 1e-3, 10e-3
x = math.exp(-T / tau)
exact = {"c1": C * V * V / 2 * (1 - x) ** 2, "r1": C * V * V / 2 * (1 - x * x),
         "v1": -C * V * V * (1 - x)}
err = {}
for h, name in ((2e-6, "rc2.json"), (4e-6, "rc4.json")):
    s = json.load(open(name))
    W = s["element_energy"]
    assert sorted(W) == ["c1", "r1", "v1"], W
    for e in exact:
        rel = abs(W[e] / exact[e] - 1)
        assert rel <= (h / tau) ** 2, (name, e, W[e], exact[e], rel)
        err[(h, e)] = rel
    # the power balance per element: what the source delivers and the resistor does not
    # dissipate is the change of stored energy
    dE = s["energy_final"] - s["energy_initial"]
    assert abs(-(W["v1"] + W["r1"]) - dE) <= (h / tau) ** 2 * dE, (name, W, dE)
    assert abs(s["element_energy_sum"]) <= 1e-12 * exact["r1"], s["element_energy_sum"]
for e in ("c1", "r1"):
    order = math.log2(err[(4e-6, e)] / err[(2e-6, e)])
    assert abs(order - 2) <= 0.25, (e, order, err)
print("relative errors at h = tau/500:", {e: "%.2e" % err[(2e-6, e)] for e in exact})
PY
check "RC: --every 97 gives the same element energies (accumulated per step)" "$py" - <<'PY'
import json
a = json.load(open("rc2.json"))["element_energy"]
b = json.load(open("rc2_thin.json"))["element_energy"]
assert a == b, (a, b)
PY

# Every element kind the import reads (R, C, L, K-coupled L, V and I with DC, SIN, PULSE, PWL,
# EXP, subcircuits): Tellegen's theorem makes the absorbed energies add up to 0, up to the
# KCL residual at nodes without a capacitor (O(h^2), bounded per sample by 1e-5 of the largest
# power above); the storage elements' energies add up to the change of stored energy E
# (trapezoid error O(h^2) at the netlists' omega h <= 2e-2: within 1e-6 of the sum of |W_E|).
for n in coupled rlc_parallel nested_subckt rl_step pwl_rlc wheatstone rlc_series; do
  "$dirac" simulate "$src/tests/spice/$n.cir" --every 1000 --out /dev/null --summary "$n.json" -q
done
check "every element kind: sum of W_E = 0 and storage W_E = change of stored energy" \
  "$py" - coupled rlc_parallel nested_subckt rl_step pwl_rlc wheatstone rlc_series <<'PY'
import json, sys
for n in sys.argv[1:]:
    s = json.load(open(n + ".json"))
    W = s["element_energy"]
    total = sum(abs(w) for w in W.values())
    kinds = {e.split("_")[-1][0] for e in W}   # x1_x2_c1 is c1 of a subcircuit
    assert kinds <= set("rclvi") and len(W) >= 3, (n, W)
    assert abs(s["element_energy_sum"]) <= 1e-5 * total, (n, s["element_energy_sum"], total)
    stored = sum(w for e, w in W.items() if e.split("_")[-1][0] in "cl")
    dE = s["energy_final"] - s["energy_initial"]
    assert abs(stored - dE) <= 1e-6 * total, (n, stored, dE, total)
PY

exit $fail
