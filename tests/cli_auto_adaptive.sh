#!/usr/bin/env bash
# `dirac simulate` without --method (auto: the choice and its reason in the summary), and
# adaptive runs: --rtol finishes for every one-step method on a holonomic model, dirac2 refuses
# it at once, --max-steps bounds an adaptive run (exit 3, at most N + 2 CSV lines).
# usage: cli_auto_adaptive.sh PATH-TO-DIRAC SOURCE-DIR
. "$(dirname "$0")/support/cli.sh"
src=$(absolute "$2")
cd "$tmp" || exit 1

# auto: a model without a method in its simulate line
cat > heat.dirac <<'EOF'
model heat
coordinate x
entropy S
lagrangian x'^2/2 - 50*x^2 - 0.5*300*exp(S/0.5)
friction x -> S: -2*x'
initial x = 0.5
simulate dt = 1e-3, t_end = 1
EOF
"$dirac" simulate heat.dirac --summary heat.json --out heat.csv -q; rc=$?
check "auto runs a thermodynamic model" test $rc -eq 0
check "auto chose dgrad" test "$(json_value heat.json method)" = dgrad
check "method_requested is auto" test "$(json_value heat.json method_requested)" = auto
check "method_reason names the class" test "$(json_value heat.json method_reason)" = "entropy variables"
check "first law to rounding by default" python3 -c "
import json; s = json.load(open('heat.json')); assert s['energy_error_max'] <= 1e-12 * s['energy_initial'], s['energy_error_max']"
sed 's/simulate dt/simulate method = midpoint, dt/' heat.dirac > heat_mid.dirac
"$dirac" simulate heat_mid.dirac --summary mid.json --out mid.csv -q
check "an explicit method is kept" test "$(json_value mid.json method)" = midpoint
check "and recorded as requested" test "$(json_value mid.json method_requested)" = midpoint
out=$("$dirac" methods)
check "dirac methods lists auto" grep -q '^auto ' <<<"$out"

# adaptive: every one-step method finishes the pendulum (holonomic) at rtol 1e-6
for m in midpoint dgrad dirac1 lobatto3 lobatto4 rk4 euler; do
  "$dirac" simulate "$src/examples/pendulum.dirac" --method "$m" --rtol 1e-6 --t-end 2 \
    --out a.csv --summary a.json -q; rc=$?
  check "$m --rtol 1e-6 finishes (rc $rc, t_final $(json_value a.json t_final))" \
    test $rc -eq 0 -a "$(json_value a.json t_final)" = 2
done
# constrained textbook models: dgrad on a mass-coupled nonholonomic sleigh and a closed loop,
# lobatto4 on the closed loop (both used to collapse their step size mid-run)
for case in "chaplygin_sleigh dgrad" "four_bar dgrad" "four_bar lobatto4" "slider_crank lobatto3"; do
  set -- $case
  "$dirac" simulate "$src/tests/textbook/$1.dirac" --method "$2" --rtol 1e-6 --atol 1e-9 \
    --dt 1e-3 --t-end 2 --out t.csv --summary t.json -q; rc=$?
  check "$2 --rtol on $1 finishes (rc $rc, t_final $(json_value t.json t_final))" \
    test $rc -eq 0 -a "$(json_value t.json t_final)" = 2
done
err=$("$dirac" simulate "$src/examples/pendulum.dirac" --method dirac2 --rtol 1e-6 --out d.csv 2>&1); rc=$?
check "dirac2 refuses --rtol at once" test $rc -eq 2
check "with the reason" grep -q "two-step method" <<<"$err"
check "and writes no CSV" test ! -e d.csv
err=$("$dirac" simulate "$src/examples/pendulum.dirac" --method euler --rtol 1e-9 --max-steps 500 \
  --out cap.csv --summary cap.json 2>&1); rc=$?
check "--max-steps stops an adaptive run with exit 3" test $rc -eq 3
check "the message says so" grep -q "reached --max-steps = 500" <<<"$err"
check "the CSV is bounded (header, initial row, 500 steps)" test "$(wc -l < cap.csv)" -eq 502
check "the summary says failed" test "$(json_value cap.json status)" = failed
err=$("$dirac" simulate "$src/examples/pendulum.dirac" --max-steps 10 --out f.csv 2>&1); rc=$?
check "--max-steps refuses a longer fixed-step run before step 1" test $rc -eq 2 -a ! -e f.csv
exit $fail
