#!/usr/bin/env bash
# Restart: `dirac simulate --save-state FILE` then `--initial-state FILE` continues the run so
# that the two pieces equal the run in one piece bit for bit (the CSV rows byte for byte and the
# final state files), for every method of `dirac methods`, with fixed steps (split at a step
# chosen by --t-end) and adaptive ones (split at a step chosen by --max-steps, the way a
# wall-time limit or a signal splits a run); a --save-every run interrupted by --max-steps or by
# a failing step leaves a state that continues to the run that was not interrupted, for every
# method; and state files of another model, of other parameters, edited or damaged ones are
# refused with the reason.
# usage: cli_restart.sh PATH-TO-DIRAC SOURCE-DIR
. "$(dirname "$0")/support/cli.sh"
src=$(absolute "$2")

# the methods, from the tool itself (a new method is tested without editing this script)
methods=$("$dirac" methods | awk 'NR > 1 && $1 != "auto" && $2 ~ /^[0-9]+$/ { print $1 }')
check "methods listed" test -n "$methods"

# Models of every class: holonomic, nonholonomic, thermodynamic, degenerate (a circuit with
# resistors and a time-dependent source). Per model: dt, a span of a few dozen steps.
models="$src/examples/pendulum.dirac:0.01:0.3
$src/examples/knife_edge.dirac:0.01:0.3
$src/examples/thermo/adiabatic_piston.dirac:0.002:0.06
$src/tests/circuits/rlc_ladder.dirac:1e-6:3e-5"

# joined DIR NAME: the rows of NAME-a.csv, then those of NAME-b.csv after its header and its
# first row (the saved node, which NAME-a.csv ends with)
joined() {
  cat "$1/a.csv"
  tail -n +3 "$1/b.csv"
}

# split_equals_whole DIR MODEL METHOD DT T_END SPLIT_OPTIONS... : runs MODEL in one piece and in
# two (the first piece's options given), compares rows and final states byte for byte
split_equals_whole() {
  local dir=$1 model=$2 method=$3 dt=$4 t_end=$5
  shift 5
  mkdir -p "$dir"
  "$dirac" simulate "$model" --method "$method" --dt "$dt" --t-end "$t_end" "${extra[@]}" -q \
    --out "$dir/whole.csv" --save-state "$dir/whole.json" 2>"$dir/err"
  local rc=$?
  # 2: the method cannot run this model, the one reason to skip (bad input, exit 2, refused
  # by a message that names the method: no entropy, nonholonomic constraints for Lobatto, a
  # degenerate Lagrangian for the explicit methods, adaptive steps for dirac2); any other
  # failure of the whole run fails the test
  if [ $rc -ne 0 ]; then
    [ $rc -eq 2 ] && grep -q "^dirac simulate: error: .*method '$method'" "$dir/err" && return 2
    echo "the whole run failed (exit $rc): $(head -c 300 "$dir/err")"
    return 1
  fi
  "$dirac" simulate "$model" --method "$method" --dt "$dt" "${extra[@]}" -q "$@" \
    --out "$dir/a.csv" --save-state "$dir/a.json" 2>>"$dir/err"
  # continue: method, step and tolerances come from the state file
  "$dirac" simulate "$model" --t-end "$t_end" --initial-state "$dir/a.json" -q \
    --out "$dir/b.csv" --save-state "$dir/b.json" 2>>"$dir/err" || return 1
  joined "$dir" | cmp -s - "$dir/whole.csv" || return 1
  cmp -s "$dir/b.json" "$dir/whole.json" || return 1
  # the split is a real one: the first piece ended before the end
  [ "$(wc -l <"$dir/a.csv")" -lt "$(wc -l <"$dir/whole.csv")" ] || return 1
  return 0
}

declare -A ran_fixed ran_adaptive
i=0
while IFS=: read -r model dt span; do
  name=$(basename "$model" .dirac)
  for method in $methods; do
    # fixed steps: the first piece ends at step 7 (--t-end 7 dt)
    extra=()
    split=$(awk -v dt="$dt" 'BEGIN { printf "%.17g", 7 * dt }')
    split_equals_whole "$tmp/$i" "$model" "$method" "$dt" "$span" --t-end "$split"
    rc=$?
    if [ $rc -ne 2 ]; then
      check "$name, $method, fixed steps: split at step 7 = whole run" test $rc -eq 0
      ran_fixed[$method]=1
    fi
    i=$((i + 1))
    [ "$method" = dirac2 ] && continue   # two-step: fixed steps only
    # adaptive steps: the first piece stops after 3 accepted steps (--max-steps, exit 3)
    extra=(--rtol 1e-9 --atol 1e-12)
    split_equals_whole "$tmp/$i" "$model" "$method" "$dt" "$span" --t-end "$span" --max-steps 3
    rc=$?
    if [ $rc -ne 2 ]; then
      check "$name, $method, adaptive steps: split at step 3 = whole run" test $rc -eq 0
      ran_adaptive[$method]=1
    fi
    i=$((i + 1))
  done
done <<<"$models"
for method in $methods; do
  check "$method ran split with fixed steps on some model" test -n "${ran_fixed[$method]:-}"
  [ "$method" = dirac2 ] ||
    check "$method ran split with adaptive steps on some model" test -n "${ran_adaptive[$method]:-}"
done

# a model large enough for the sparse solver (KLU, whose pivot order a continued run chooses
# anew): a nonlinear chain of 100 masses
cat >"$tmp/chain.dirac" <<'EOF'
model chain
parameter N = 100, m = 1, k = 100, amp = 0.3
coordinate x[N]
lagrangian sum(i = 1..N, m/2*x[i]'^2) - k/2*x[1]^2 - k/2*x[N]^2 -
           sum(i = 1..N-1, k/2*(x[i+1] - x[i])^2 + k*(x[i+1] - x[i])^4)
initial x[i = 1..N] = amp*sin(i)
EOF
extra=()
split_equals_whole "$tmp/chain" "$tmp/chain.dirac" midpoint 0.01 0.3 --t-end 0.1
check "nonlinear chain of 100 (sparse solver), midpoint: split = whole run" test $? -eq 0

# every K-th row counts from the first run's start: rows of the pieces = rows of the whole
pend=$src/examples/pendulum.dirac
"$dirac" simulate "$pend" --dt 0.01 --t-end 1 --every 4 -q -o "$tmp/w4.csv"
"$dirac" simulate "$pend" --dt 0.01 --t-end 0.37 --every 4 -q -o "$tmp/a4.csv" \
  --save-state "$tmp/s4.json"
"$dirac" simulate "$pend" --t-end 1 --every 4 -q -o "$tmp/b4.csv" --initial-state "$tmp/s4.json"
# the first piece ends with step 37 (its last step, not a multiple of 4): drop that row and the
# second piece's first row (the same node)
check "--every 4: the pieces' rows are the whole run's" \
  cmp -s <(head -n -1 "$tmp/a4.csv"; tail -n +3 "$tmp/b4.csv") "$tmp/w4.csv"

# --save-every: checkpoints during the run; the last one continues like the end state
"$dirac" simulate "$pend" --dt 0.01 --t-end 0.5 --rtol 1e-6 -q -o "$tmp/c.csv" \
  --save-state "$tmp/cp.json" --save-every 0.2 --max-steps 45 2>/dev/null
check "a stopped run saves its last good step" python3 -c "
import json, csv
s = json.load(open('$tmp/cp.json')); rows = list(csv.DictReader(open('$tmp/c.csv')))
assert s['step'] == 45 and s['t'] == float(rows[-1]['t']) and len(rows) == 46, s"

# ... and continues to the run in one piece: rows and final state byte for byte
"$dirac" simulate "$pend" --dt 0.01 --t-end 0.5 --rtol 1e-6 -q -o "$tmp/cw.csv" \
  --save-state "$tmp/cw.json"
"$dirac" simulate "$pend" --t-end 0.5 -q -o "$tmp/c2.csv" --save-state "$tmp/c2.json" \
  --initial-state "$tmp/cp.json"
check "--save-every, stopped by --max-steps: the last checkpoint continues to the whole run" \
  cmp -s <(cat "$tmp/c.csv"; tail -n +3 "$tmp/c2.csv") "$tmp/cw.csv"
check "--save-every, stopped by --max-steps: final state = the whole run's" \
  cmp -s "$tmp/c2.json" "$tmp/cw.json"

# --save-every in a run interrupted by a failing step, for every method, with fixed and
# adaptive steps: the input u turns negative at t = 0.255 (held from there, --inputs-interp
# step), so sqrt(u) fails the first step that starts after it. The state the run leaves (its
# last checkpoint, at the last good step) continues, with the input repaired, to the run that
# never failed: rows byte for byte, and the final state file (adaptive steps: its readable
# state and time; the snapshot also counts the failure's rejected trials, a statistic that no
# step reads).
cat >"$tmp/driven.dirac" <<'EOF'
model driven
input u = 1
coordinate x
lagrangian 1/2*x'^2 - 1/2*x^2
force x: sqrt(u) - 1
initial x = 0.5
EOF
printf 't,u\n0,1\n0.255,1\n' >"$tmp/good.csv"
printf 't,u\n0,1\n0.255,-1\n' >"$tmp/bad.csv"
# readable_equal A.json B.json: the same time, step and readable state
readable_equal() {
  python3 -c "
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
key = lambda s: (s['t'], s['step'], s['state'])
assert key(a) == key(b), (a['t'], b['t'])" "$1" "$2"
}
for method in $methods; do
  for steps in fixed adaptive; do
    extra=(--method "$method" --dt 0.01 --t-end 1 --inputs-interp step -q)
    if [ $steps = adaptive ]; then
      [ "$method" = dirac2 ] && continue   # two-step: fixed steps only
      extra+=(--rtol 1e-8 --atol 1e-10)
    fi
    d=$tmp/fail-$method-$steps
    mkdir -p "$d"
    "$dirac" simulate "$tmp/driven.dirac" "${extra[@]}" --inputs "$tmp/good.csv" \
      -o "$d/whole.csv" --save-state "$d/whole.json" 2>"$d/err"
    "$dirac" simulate "$tmp/driven.dirac" "${extra[@]}" --inputs "$tmp/bad.csv" \
      -o "$d/a.csv" --save-state "$d/a.json" --save-every 0.1 2>>"$d/err"
    check "$method, $steps steps: the run fails at the bad input (exit 3)" test $? -eq 3
    "$dirac" simulate "$tmp/driven.dirac" --t-end 1 --inputs "$tmp/good.csv" \
      --inputs-interp step -q -o "$d/b.csv" --save-state "$d/b.json" \
      --initial-state "$d/a.json" 2>>"$d/err"
    check "$method, $steps steps: the state of the failed run continues to the whole run" \
      cmp -s <(cat "$d/a.csv"; tail -n +3 "$d/b.csv") "$d/whole.csv"
    if [ $steps = fixed ]; then
      check "$method, fixed steps: final state = the whole run's" cmp -s "$d/b.json" "$d/whole.json"
    else
      check "$method, adaptive steps: final state = the whole run's" \
        readable_equal "$d/b.json" "$d/whole.json"
    fi
  done
done

# a failed run saves its last good step (Newton cannot converge with one iteration)
"$dirac" simulate "$pend" --dt 0.01 --t-end 0.5 --max-iter 1 -o "$tmp/f.csv" \
  --save-state "$tmp/f.json" 2>"$tmp/f.err"
check "failed run: exit 3" test $? -eq 3
check "failed run: the state names the way on" grep -q "continue with --initial-state" "$tmp/f.err"
check "failed run: state at the last good step" python3 -c "
import json, csv
s = json.load(open('$tmp/f.json')); rows = list(csv.DictReader(open('$tmp/f.csv')))
assert s['t'] == float(rows[-1]['t']) and s['state']['x'] == float(rows[-1]['x']), (s['t'], rows[-1])"

# ---- refusals -----------------------------------------------------------------------------
"$dirac" simulate "$pend" --dt 0.01 --t-end 0.1 -q -o "$tmp/p.csv" --save-state "$tmp/p.json"
refuse() {   # refuse DESCRIPTION PATTERN MODEL OPTIONS...: exit 2 and PATTERN in the message
  local what=$1 pattern=$2
  shift 2
  "$dirac" simulate "$@" -q -o "$tmp/r.csv" 2>"$tmp/r.err"
  local rc=$?
  check "$what: exit 2" test $rc -eq 2
  check "$what: says so" grep -q -- "$pattern" "$tmp/r.err"
}
refuse "state of another model" "is a state of model 'pendulum', not of 'double_pendulum'" \
  "$src/examples/double_pendulum.dirac" --t-end 1 --initial-state "$tmp/p.json"
refuse "other parameter values" "other parameter values: l = 1 in the state, 2 now" \
  "$pend" -p l=2 --t-end 1 --initial-state "$tmp/p.json"
sed 's/m\*g\*y/2*m*g*y/' "$pend" >"$tmp/pendulum.dirac"
refuse "other equations" "the equations differ" \
  "$tmp/pendulum.dirac" --t-end 1 --initial-state "$tmp/p.json"
sed 's/coordinate x, y/coordinate x, y, z/; s/m\/2\*(x/m\/2*(z'"'"'^2 + x/' "$pend" >"$tmp/pendulum.dirac"
refuse "other coordinates" "its coordinate 3 is missing, the model's is 'z'" \
  "$tmp/pendulum.dirac" --t-end 1 --initial-state "$tmp/p.json"
python3 - "$tmp" <<'EOF'
import json, sys
d = sys.argv[1]
s = json.load(open(d + '/p.json'))
h = s['snapshot']['hex']
bad = dict(s); bad['snapshot'] = dict(s['snapshot'], hex=h[:100] + ('1' if h[100] != '1' else '2') + h[101:])
json.dump(bad, open(d + '/damaged.json', 'w'))
bad = dict(s); bad['state'] = dict(s['state'], x=s['state']['x'] + 1e-9)
json.dump(bad, open(d + '/edited.json', 'w'))
bad = dict(s, version=1)
json.dump(bad, open(d + '/v1.json', 'w'))
json.dump(dict(s, version=3), open(d + '/v3.json', 'w'))
open(d + '/truncated.json', 'w').write(open(d + '/p.json').read()[:500])
EOF
refuse "damaged snapshot" "is damaged: the checksum" "$pend" --t-end 1 --initial-state "$tmp/damaged.json"
refuse "edited state" "was edited or damaged: \"state\" has x = " \
  "$pend" --t-end 1 --initial-state "$tmp/edited.json"
refuse "other version" "is a state file of version 1; this dirac reads version 4" \
  "$pend" --t-end 1 --initial-state "$tmp/v1.json"
# version 3 held midpoint's predictor history in the order before the ring (src/predictor.h)
refuse "version 3" "is a state file of version 3; this dirac reads version 4" \
  "$pend" --t-end 1 --initial-state "$tmp/v3.json"
refuse "truncated file" "is not a dirac state file (not JSON: line" \
  "$pend" --t-end 1 --initial-state "$tmp/truncated.json"
refuse "a CSV file" "is not a dirac state file" "$pend" --t-end 1 --initial-state "$tmp/p.csv"
refuse "missing file" "cannot read the state" "$pend" --t-end 1 --initial-state "$tmp/none.json"
refuse "other step size" "\-\-dt 0.02 differs from the run saved" \
  "$pend" --dt 0.02 --t-end 1 --initial-state "$tmp/p.json"
refuse "other method" "\-\-method rk4 differs" \
  "$pend" --method rk4 --t-end 1 --initial-state "$tmp/p.json"
refuse "end before the saved time" "is before the saved state's time" \
  "$pend" --t-end 0.05 --initial-state "$tmp/p.json"
refuse "--save-every alone" "\-\-save-every needs --save-state" "$pend" --save-every 1
# an endless input stops at the reader's 64 MB limit (not read until memory runs out)
refuse "endless state file" "File too large" "$pend" --t-end 1 --initial-state /dev/zero

exit $fail
