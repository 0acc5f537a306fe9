#!/usr/bin/env bash
# `initial NAME = VALUE fixed | guess`: --project-initial keeps fixed start values, moves the
# free ones onto the constraints (against the hand-solved loop of a slider-crank), says which
# moved, and refuses when the fixed ones over-determine the constraints.
# usage: cli_fixed_start.sh PATH-TO-DIRAC SOURCE-DIR
. "$(dirname "$0")/support/cli.sh"
src=$(absolute "$2")
model=$src/tests/data/slider_crank_fixed.dirac
"$dirac" simulate "$model" --project-initial --out "$tmp/a.csv" 2>"$tmp/err"
check "fixed start: exit 0" test $? -eq 0
# first data row: th = 0.4 and th' = 2 exactly; x, x' on the loop and its rate (1e-12: the
# Gauss-Newton projection stops at a residual of 1e-14 of the coordinates' scale)
check "th kept, x on the loop, th' kept, x' from the rate" python3 -c "
import csv, math
r = next(csv.DictReader(open('$tmp/a.csv')))
R, th, w = 0.1, 0.4, 2.0
root = math.sqrt(0.3**2 - (R*math.sin(th))**2)
assert float(r['th']) == 0.4 and float(r[\"th'\"]) == 2.0, r
assert abs(float(r['x']) - (R*math.cos(th) + root)) < 1e-12, r
assert abs(float(r[\"x'\"]) + R*math.sin(th)*w*(1 + R*math.cos(th)/root)) < 1e-12, r
"
check "report: x moved, th kept" grep -q 'moved x: 0.35 -> 0.389567918' "$tmp/err"
check "report: th kept (fixed)" grep -q "kept th = 0.4 (fixed)" "$tmp/err"
# without 'fixed' the least-change projection moves the crank angle too
sed 's/ fixed//g' "$model" >"$tmp/free.dirac"
"$dirac" simulate "$tmp/free.dirac" --project-initial --out "$tmp/b.csv" 2>"$tmp/err"
check "free start: th moves" python3 -c "
import csv
r = next(csv.DictReader(open('$tmp/b.csv')))
assert float(r['th']) != 0.4, r
"
# both positions fixed: the constraint cannot be met by moving nothing
sed 's/x = 0.35 guess/x = 0.35 fixed/' "$model" >"$tmp/over.dirac"
"$dirac" simulate "$tmp/over.dirac" --project-initial --out "$tmp/c.csv" 2>"$tmp/err"
check "over-determined: exit 2" test $? -eq 2
check "over-determined: says why" grep -q "marked 'fixed' over-determine the constraints" "$tmp/err"
# 'fixed' on an entropy variable, and elsewhere than after an initial value
printf 'model e\ncoordinate x\nentropy S\nlagrangian x'"'"'^2/2 - exp(S)\ninitial S = 1 fixed\n' >"$tmp/e.dirac"
"$dirac" check "$tmp/e.dirac" >/dev/null 2>"$tmp/err"
check "fixed entropy: exit 2" test $? -eq 2
check "fixed entropy: located message" grep -q "e.dirac:5:9: error: 'fixed' applies to coordinates" "$tmp/err"
printf 'model f\ncoordinate x\nlet a = 2 fixed\nlagrangian a*x'"'"'^2/2\n' >"$tmp/f.dirac"
"$dirac" check "$tmp/f.dirac" >/dev/null 2>"$tmp/err"
check "fixed after a let: exit 2" test $? -eq 2
exit $fail
