#!/usr/bin/env bash
# `dirac simulate` and `dirac methods`: CSV header and rows, --every, the JSON summary, -p,
# exit 2 for bad arguments, exit 3 (and a complete CSV) for a failing run; every example runs.
# usage: cli_simulate.sh PATH-TO-DIRAC SOURCE-DIR
. "$(dirname "$0")/support/cli.sh"
src=$(absolute "$2")
cd "$tmp" || exit 1
pendulum=$src/examples/pendulum.dirac
keys="model method dt steps t_end wall_seconds newton_iterations_mean newton_iterations_max
newton_failures constraint_residual_max velocity_constraint_residual_max energy_initial
energy_final energy_error_max entropy_initial entropy_final entropy_step_min final_state"

# has_keys FILE: the summary is JSON (parsed by python3 when there is one) with every key
has_keys() {
  if command -v python3 >/dev/null 2>&1; then
    python3 - "$1" $keys <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
missing = [k for k in sys.argv[2:] if k not in s]
if missing:
    print("missing keys:", missing)
sys.exit(1 if missing else 0)
EOF
  else
    local k
    for k in $keys; do grep -q "^  \"$k\": " "$1" || { echo "missing key $k"; return 1; }; done
  fi
}

# the pendulum with its defaults: header, rows, default output name, summary
"$dirac" simulate "$pendulum" --t-end 1 --summary sum.json 2>err; rc=$?
check "pendulum exits 0" test $rc -eq 0
check "default output is MODEL_NAME.csv" test -s pendulum.csv
check "pendulum: header row" test "$(head -n 1 pendulum.csv)" = "t,x,y,x',y',p.x,p.y,mu.rod,E,angle"
check "pendulum: 1000 steps -> 1001 rows" test "$(($(wc -l <pendulum.csv) - 1))" -eq 1001
check "pendulum: rows are complete and finite" csv_ok pendulum.csv
check "pendulum: first row is the initial state" grep -q '^0,0.47942553860420301,-0.87758256189037276,0,0,' pendulum.csv
check "pendulum: last row at t = 1" awk -F, 'END { exit !($1 > 1 - 1e-12 && $1 < 1 + 1e-12) }' pendulum.csv
check "summary has every key" has_keys sum.json
check "summary: model" test "$(json_value sum.json model)" = pendulum
check "summary: method" test "$(json_value sum.json method)" = midpoint
check "summary: steps" test "$(json_value sum.json steps)" = 1000
check "summary: entropy_initial is null without entropies" test "$(json_value sum.json entropy_initial)" = null
check "summary: final_state has x'" grep -q "^    \"x'\": " sum.json
check "summary: constraint_residual_max below 1e-9" \
  awk -v r="$(json_value sum.json constraint_residual_max)" 'BEGIN { exit !(r < 1e-9) }'

# --every: rows 0, 300, 600, 900 and the final step 1000
"$dirac" simulate "$pendulum" --t-end 1 --every 300 --out every.csv -q; rc=$?
check "--every 300 exits 0" test $rc -eq 0
check "--every 300: 5 rows (0, 300, 600, 900, final 1000)" test "$(($(wc -l <every.csv) - 1))" -eq 5
check "--every 300: times 0, 0.3, 0.6, 0.9, 1" \
  test "$(awk -F, 'NR > 1 { printf "%.6f ", $1 }' every.csv)" = "0.000000 0.300000 0.600000 0.900000 1.000000 "
"$dirac" simulate "$pendulum" --t-end=1 --every=100 --out=every2.csv -q
check "--opt=value forms" test "$(($(wc -l <every2.csv) - 1))" -eq 11

# t_end not a multiple of dt: equal steps, the last one ends past t_end
"$dirac" simulate "$pendulum" --dt 0.3 --t-end 1 --out steps.csv 2>err; rc=$?
check "--dt 0.3 --t-end 1 exits 0" test $rc -eq 0
check "--dt 0.3 --t-end 1: 4 equal steps, to t = 1.2" \
  awk -F, 'END { exit !(NR == 6 && $1 > 1.2 - 1e-12 && $1 < 1.2 + 1e-12) }' steps.csv
check "--dt 0.3 --t-end 1: a note says so" grep -q "not a multiple of dt" err

# -p overrides a parameter
"$dirac" simulate "$pendulum" -p l=2 --t-end 0.5 --out long.csv -q; rc=$?
check "-p l=2 exits 0" test $rc -eq 0
check "-p l=2: the rod is 2 m long at the end" \
  awk -F, 'END { r = sqrt($2 * $2 + $3 * $3); exit !(r > 2 - 1e-9 && r < 2 + 1e-9) }' long.csv
err=$("$dirac" simulate "$pendulum" -p ll=2 2>&1 >/dev/null); rc=$?
check "-p unknown parameter exits 2" test $rc -eq 2
check "-p unknown parameter: message" grep -q "unknown parameter 'll'" <<<"$err"

# --summary - and --out -
"$dirac" simulate "$pendulum" --t-end 0.1 --out out.csv --summary - -q >stdout.json; rc=$?
check "--summary - exits 0" test $rc -eq 0
check "--summary - prints the JSON summary on stdout" has_keys stdout.json
out=$("$dirac" simulate "$pendulum" --t-end 0.01 --out - -q); rc=$?
check "--out - exits 0" test $rc -eq 0
check "--out - prints the CSV on stdout" test "$(head -n 1 <<<"$out")" = "t,x,y,x',y',p.x,p.y,mu.rod,E,angle"
check "--out - prints 11 rows" test "$(($(wc -l <<<"$out") - 1))" -eq 11

# every method runs the pendulum
methods=$("$dirac" methods); rc=$?
check "methods exits 0" test $rc -eq 0
check "methods lists midpoint with its order" grep -Eq '^midpoint +[0-9]+ +[a-z]' <<<"$methods"
for m in $(awk 'NR > 1 && /^[a-z][a-z0-9_]* +[0-9]+ / { print $1 }' <<<"$methods"); do
  "$dirac" simulate "$pendulum" --method "$m" --t-end 0.5 --out m.csv -q; rc=$?
  check "method $m runs the pendulum" test $rc -eq 0
done
check "help lists simulate" grep -Eq '^  simulate +[a-z]' <<<"$("$dirac" help)"

# bad arguments: exit 2 with a message
expect2() {   # expect2 DESCRIPTION MESSAGE-PATTERN ARGS...
  local what=$1 pattern=$2
  shift 2
  local err rc
  err=$("$dirac" simulate "$@" 2>&1 >/dev/null); rc=$?
  check "$what exits 2" test $rc -eq 2
  check "$what: message" grep -q -- "$pattern" <<<"$err"
}
expect2 "unknown method" "unknown method 'leapfrog'" "$pendulum" --method leapfrog
expect2 "--dt 0" "dt must be positive" "$pendulum" --dt 0
expect2 "--dt -1" "dt must be positive" "$pendulum" --dt -1
expect2 "--dt abc" "dt needs a number" "$pendulum" --dt abc
expect2 "--every 0" "every needs a positive integer" "$pendulum" --every 0
expect2 "--t-end -1" "t-end must not be negative" "$pendulum" --t-end -1
expect2 "missing file" "missing.dirac" "$tmp/missing.dirac"
expect2 "unknown option" "unknown option '--frobnicate'" "$pendulum" --frobnicate
expect2 "--out - with --summary -" "cannot both use standard output" "$pendulum" --out - --summary -
expect2 "no model" "usage: dirac simulate" --dt 1
printf 'model nodefaults\ncoordinate x\nlagrangian x'"'"'^2/2 - x^2/2\ninitial x = 1\n' >nodefaults.dirac
expect2 "no dt anywhere" "no step size" nodefaults.dirac --t-end 1
expect2 "no t_end anywhere" "no final time" nodefaults.dirac --dt 0.1
printf 'model off\ncoordinate x, y\nlagrangian (x'"'"'^2 + y'"'"'^2)/2 - 9.81*y\nconstraint rod: x^2 + y^2 = 1\ninitial x = 1, y = -1\n' >off.dirac
expect2 "inconsistent initial state" "constraint 'rod'" off.dirac --dt 0.01 --t-end 0.1
# the library names options.project_initial; the tool shows its flag
expect2 "inconsistent initial state: the flag" "or use --project-initial" off.dirac --dt 0.01 --t-end 0.1
printf 'model broken\ncoordinate x\nlagrangian x'"'"'^2 + y\n' >broken.dirac
expect2 "model error" "broken.dirac:3:19: error: unknown name 'y'" broken.dirac --dt 0.1 --t-end 1
"$dirac" simulate off.dirac --dt 0.01 --t-end 0.1 --project-initial --out off.csv 2>err; rc=$?
check "--project-initial exits 0" test $rc -eq 0
check "--project-initial: a note says how far" grep -q "projected onto the constraints" err
check "--project-initial: the first row is on the constraint" \
  awk -F, 'NR == 2 { r = $2 * $2 + $3 * $3; exit !(r > 1 - 1e-9 && r < 1 + 1e-9) }' off.csv

# a failing run: exit 3, the message, the CSV complete up to the last good step, the summary
rm -f pendulum.csv
err=$("$dirac" simulate "$pendulum" --method midpoint --dt 5 --summary fail.json 2>&1 >/dev/null); rc=$?
check "--dt 5 fails with exit 3" test $rc -eq 3
check "--dt 5: 'dirac simulate: error: ' and the reason" grep -q "^dirac simulate: error: step 1 .*Newton" <<<"$err"
check "--dt 5: the CSV has the header and the initial row" csv_ok pendulum.csv
check "--dt 5: summary written, with every key" has_keys fail.json
check "--dt 5: summary says failed" test "$(json_value fail.json status)" = failed
check "--dt 5: summary counts the Newton failure" test "$(json_value fail.json newton_failures)" = 1
# x'' = x^3 from x = 1, x' = 1/sqrt(2): x = 1/(1 - t/sqrt(2)) blows up at t = 1.414
printf 'model blowup\ncoordinate x\nlagrangian x'"'"'^2/2 + x^4/4\ninitial x = 1, x'"'"' = 1/sqrt(2)\nsimulate dt = 1e-3, t_end = 2, every = 7\n' >blowup.dirac
"$dirac" simulate blowup.dirac --summary blowup.json 2>err; rc=$?
check "blow-up fails with exit 3" test $rc -eq 3
check "blow-up: message says when" grep -q "^dirac simulate: error: step [0-9]* from t = 1\.4" err
check "blow-up: every CSV row complete and finite" csv_ok blowup.csv
steps=$(json_value blowup.json steps)
check "blow-up: the last row is the last good step" \
  awk -F, -v s="$steps" 'END { exit !(s > 1000 && $1 > s * 1e-3 - 1e-9 && $1 < s * 1e-3 + 1e-9) }' blowup.csv

# warnings (docs/cli.md): rk4 on a constraint that has no solution for t > 1
printf 'model dep2\ncoordinate x, y\nlagrangian (x'"'"'^2 + y'"'"'^2)/2\nconstraint circle: x^2 + y^2 = 1\nconstraint drive: y = t\ninitial x = 1, y'"'"' = 1\nsimulate dt = 0.125, t_end = 2\n' >dep2.dirac
"$dirac" simulate dep2.dirac --method rk4 --out dep2.csv --summary dep2.json -q 2>err; rc=$?
check "warnings: a nonsense run still exits 0" test $rc -eq 0
check "warnings: printed as 'dirac simulate: warning: ...'" \
  grep -q "^dirac simulate: warning: constraint 'circle' is violated" err
check "warnings: listed in the summary" python3 -c "
import json, sys
s = json.load(open('dep2.json'))
sys.exit(not (s['status'] == 'ok' and any('constraint \\'circle\\'' in w for w in s['warnings'])))"
"$dirac" simulate dep2.dirac --method rk4 --out dep2.csv --summary dep2.json -q --strict 2>err; rc=$?
check "warnings: --strict exits 3" test $rc -eq 3
check "warnings: --strict says why" grep -q "^dirac simulate: error: the run raised warnings and --strict was given" err
check "warnings: --strict marks the summary failed" grep -q '^  "status": "failed",$' dep2.json
check "warnings: --strict keeps the CSV" csv_ok dep2.csv
# a non-finite output fails the step where it appears (x = cos t, sqrt(x) from t > pi/2)
printf 'model o\ncoordinate x\nlagrangian x'"'"'^2/2 - x^2/2\ninitial x = 1\noutput s = sqrt(x)\nsimulate dt = 0.01, t_end = 4\n' >o.dirac
"$dirac" simulate o.dirac --out o.csv -q 2>err; rc=$?
check "non-finite output: exit 3" test $rc -eq 3
check "non-finite output: message names the step, time and output" \
  grep -q "^dirac simulate: error: step 158 at t = 1\.58[0-9]* (midpoint): output 's' became NaN" err
check "non-finite output: the CSV ends at the last good step, finite" csv_ok o.csv
check "non-finite output: last row t = 1.57" test "$(tail -n 1 o.csv | cut -d, -f1)" = 1.5700000000000001

# library messages name the C API's options (options.adaptive_atol, options.dt); the tool
# names its flags instead (cli/library_message.c). x'' = 4 x^3 from x = 1 blows up at
# t = 0.927, where the adaptive step size with rtol alone (atol 0) falls below the resolution
# of t; one Newton iteration cannot solve a pendulum's step.
printf 'model blowup\ncoordinate x\nlagrangian x'"'"'^2/2 + x^4\ninitial x = 1\n' >blowup.dirac
"$dirac" simulate blowup.dirac --dt 0.01 --t-end 2 --rtol 1e-8 -q -o blowup.csv 2>err
check "step size failure: exit 3" test $? -eq 3
check "step size failure: names --atol" grep -q "give an absolute tolerance (--atol)" err
check "step size failure: no library option named" sh -c '! grep -q "options\." err'
"$dirac" simulate "$pendulum" --dt 0.01 --t-end 0.1 --max-iter 1 -q -o newton.csv 2>err
check "Newton failure: names --dt" grep -q "try a smaller step (--dt)" err
check "Newton failure: no library option named" sh -c '! grep -q "options\." err'

# every example runs with its own simulate settings
while IFS= read -r -d '' model; do
  name=${model#$src/}
  "$dirac" simulate "$model" --out ex.csv --summary ex.json -q --strict 2>err; rc=$?
  check "simulate $name exits 0 without warnings (--strict)" test $rc -eq 0
  [ $rc -eq 0 ] || cat err
  check "simulate $name: \"warnings\": [] in the summary" grep -q '^  "warnings": \[\],$' ex.json
  check "simulate $name: CSV complete and finite" csv_ok ex.csv
done < <(find "$src/examples" -name '*.dirac' -print0 | sort -z)
exit $fail
