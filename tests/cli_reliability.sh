#!/usr/bin/env bash
# `dirac simulate`, `check`, `plot` when things go wrong: nothing the user has is lost, nothing
# hangs, every failure has its exit status (docs/cli.md, "Exit status").
#   - outputs never replace the model or a component file (./NAME, absolute path, symbolic
#     link, hard link), nor each other (--out r.csv --summary ./r.csv);
#   - a run that fails before it starts leaves an existing summary as it was;
#   - SIGTERM, SIGHUP, SIGINT sent to a running simulation and SIGPIPE from a closed pipe end
#     the run after a step with complete files (every row whole, the summary "interrupted");
#   - two runs writing one --out leave one whole file;
#   - write errors (/dev/full) on the CSV and the summary exit 3;
#   - a state that becomes non-finite stops the run (exit 3) with only finite rows;
#   - a CSV estimated above 10 GB is refused without --force; --max-wall stops a run with
#     exit 3 and the summary saying why;
#   - devices and FIFOs as model, component or CSV to plot are refused at once;
#   - check prints a valid model whose equations are too long (exit 0);
#   - out of memory is exit 4, also under a memory limit that made OpenBLAS spin forever.
# usage: cli_reliability.sh PATH-TO-DIRAC SOURCE-DIR
. "$(dirname "$0")/support/cli.sh"
src=$(absolute "$2")
cd "$tmp" || exit 1
pendulum=$src/examples/pendulum.dirac
# times_increase FILE: the t column strictly increases
times_increase() {
  awk -F, 'NR > 2 && !($1 > prev) { print "row " NR ": t = " $1 " after " prev; bad = 1; exit }
           NR > 1 { prev = $1 } END { exit bad }' "$1"
}
# json FILE EXPRESSION: evaluates a python expression on the summary `s`
json() {
  python3 -c "import json, sys; s = json.load(open(sys.argv[1])); print($2)" "$1" 2>&1
}
# no_temporaries: no temporary output (.NAME.XXXXXX) left in the directory
no_temporaries() {
  [ -z "$(ls -A | grep '^\.' )" ] || { ls -A; return 1; }
}

# --- the model and its components are never overwritten ------------------------------------
cp "$pendulum" m.dirac
cp m.dirac m.orig
mkdir sub
ln -s m.dirac link.csv
ln m.dirac hard.csv
for spelling in ./m.dirac "$PWD/m.dirac" sub/../m.dirac link.csv hard.csv; do
  "$dirac" simulate m.dirac --t-end 0.01 --out "$spelling" -q 2>err; rc=$?
  check "--out $spelling: exit 2" test $rc -eq 2
  check "--out $spelling: says it refuses" grep -q "refusing to overwrite the model file" err
  "$dirac" simulate m.dirac --t-end 0.01 --out r.csv --summary "$spelling" -q 2>err; rc=$?
  check "--summary $spelling: exit 2" test $rc -eq 2
  check "model unchanged after --out/--summary $spelling" cmp -s m.dirac m.orig
done
check "nothing written by the refused runs" test ! -e r.csv
# a component file (two blocks in contact share block.dirac)
cp -r "$src/examples/interconnect/contact" contact
cp contact/block.dirac block.orig
"$dirac" simulate contact/contact.dirac --t-end 0.01 --out contact/./block.dirac -q 2>err; rc=$?
check "--out COMPONENT: exit 2" test $rc -eq 2
check "--out COMPONENT: names the component file" grep -q "refusing to overwrite the component file" err
"$dirac" simulate contact/contact.dirac --t-end 0.01 --summary "$PWD/contact/block.dirac" -q 2>err
check "--summary COMPONENT: refused" grep -q "refusing to overwrite the component file" err
check "component file unchanged" cmp -s contact/block.dirac block.orig
# the default output name MODEL_NAME.csv is checked too: a model file named pendulum.csv
cp "$pendulum" pendulum.csv
cp pendulum.csv pendulum.orig
"$dirac" simulate pendulum.csv --t-end 0.01 -q 2>err; rc=$?
check "default output onto the model file: exit 2" test $rc -eq 2
check "default output onto the model file: unchanged" cmp -s pendulum.csv pendulum.orig
rm pendulum.csv pendulum.orig

# --- outputs never replace each other --------------------------------------------------------
"$dirac" simulate m.dirac --t-end 0.01 --out r.csv --summary ./r.csv -q 2>err; rc=$?
check "--out r.csv --summary ./r.csv: exit 2" test $rc -eq 2
check "--out r.csv --summary ./r.csv: says why" grep -q "name the same file" err
check "--out r.csv --summary ./r.csv: nothing written" test ! -e r.csv

# --- a run that fails before it starts leaves the summary alone ------------------------------
echo '{"keep": 1}' > keep.json
cp keep.json keep.orig
"$dirac" simulate m.dirac --summary keep.json --out nodir/x.csv -q 2>err; rc=$?
check "CSV in a missing directory: exit 2" test $rc -eq 2
check "existing summary unchanged by a run that never started" cmp -s keep.json keep.orig
echo 'old,csv' > old.csv
"$dirac" simulate m.dirac --out old.csv --summary nodir/s.json -q 2>err; rc=$?
check "summary in a missing directory: exit 3 (the run was done)" test $rc -eq 3
check "summary in a missing directory: message" grep -q "writing the summary 'nodir/s.json' failed" err
check "the run's CSV is complete all the same" csv_ok old.csv
check "no temporary files left" no_temporaries

# --- terminating signals end the run cleanly -------------------------------------------------
# job control gives the background run its own process group with SIGINT not ignored, as a
# foreground run in a terminal has it
set -m
for sig in TERM HUP INT; do
  rm -f sig.csv sig.json
  "$dirac" simulate "$pendulum" --t-end 100000 --every 7 --out sig.csv --summary sig.json -q \
      2>sig.err &
  pid=$!
  for _ in $(seq 100); do   # until the run is under way (a temporary CSV exists)
    sleep 0.1
    [ -n "$(ls -A | grep '^\.sig\.csv\.')" ] && break
  done
  sleep 0.5
  kill -$sig $pid
  wait $pid; rc=$?
  case $sig in TERM) want=143 ;; HUP) want=129 ;; INT) want=130 ;; esac
  check "SIG$sig: exit $want" test $rc -eq $want
  check "SIG$sig: message names the signal" grep -q "interrupted by SIG$sig at t = " sig.err
  check "SIG$sig: every CSV row whole and finite" csv_ok sig.csv
  check "SIG$sig: summary says interrupted" test "$(json sig.json 's["status"]')" = interrupted
  # the last row is the last good step, which is the summary's final time
  last_t=$(tail -n 1 sig.csv | cut -d, -f1)
  check "SIG$sig: last CSV row is the summary's t_final" \
      test "$(json sig.json "s['t_final'] == float('$last_t')")" = True
  check "SIG$sig: summary's row count is the CSV's" \
      test "$(json sig.json 's["rows"]')" -eq "$(($(wc -l <sig.csv) - 1))"
  check "SIG$sig: no temporary files left" no_temporaries
done
set +m
# SIGPIPE: the reader of the CSV goes away
"$dirac" simulate "$pendulum" --t-end 10000 --out - --summary pipe.json \
    2>pipe.err | head -n 2 >/dev/null
rc=${PIPESTATUS[0]}
check "SIGPIPE: exit 141" test $rc -eq 141
check "SIGPIPE: summary says interrupted" test "$(json pipe.json 's["status"]')" = interrupted

# --- two runs writing one --out: one whole file ----------------------------------------------
"$dirac" simulate "$pendulum" --t-end 20 --out same.csv -q &
"$dirac" simulate "$pendulum" --t-end 20 -p l=2 --out same.csv -q &
wait
check "concurrent runs: every row whole" csv_ok same.csv
check "concurrent runs: times increase" times_increase same.csv
check "concurrent runs: one run's 20001 rows" test "$(($(wc -l <same.csv) - 1))" -eq 20001
check "concurrent runs: no temporary files left" no_temporaries

# --- write errors ----------------------------------------------------------------------------
if [ -w /dev/full ]; then
  "$dirac" simulate "$pendulum" --t-end 1 --out /dev/full -q 2>err; rc=$?
  check "CSV to /dev/full: exit 3" test $rc -eq 3
  check "CSV to /dev/full: says why" grep -q "writing '/dev/full' failed: No space left on device" err
  "$dirac" simulate "$pendulum" --t-end 1 --out full.csv --summary /dev/full -q 2>err; rc=$?
  check "summary to /dev/full: exit 3" test $rc -eq 3
  check "summary to /dev/full: says why" grep -q "writing the summary '/dev/full' failed: No space" err
fi

# --- a state that becomes non-finite ---------------------------------------------------------
# L = v^2/2 + x^4: the force 4 x^3 pushes x to infinity in finite time (t = 1/sqrt(2) from
# x = 1 at rest); the explicit methods have no Newton solve that could fail first
printf "model blow\ncoordinate x\nlagrangian x'^2/2 + x^4\ninitial x = 1\n" > blow.dirac
for method in rk4 euler; do
  "$dirac" simulate blow.dirac --method $method --dt 0.1 --t-end 10 --out blow.csv \
      --summary blow.json -q 2>err; rc=$?
  check "non-finite state ($method): exit 3" test $rc -eq 3
  check "non-finite state ($method): says so" grep -q "non-finite" err
  check "non-finite state ($method): rows up to the last finite step" csv_ok blow.csv
  check "non-finite state ($method): summary failed" test "$(json blow.json 's["status"]')" = failed
done

# --- long names in the summary ---------------------------------------------------------------
python3 -c "
I = 'a' * 600
open('long.dirac', 'w').write(f\"model m\ncoordinate {I}, {I}b\nlagrangian {I}'^2/2 + {I}b'^2/2\ninitial {I} = 1, {I}b' = 2\n\")"
"$dirac" simulate long.dirac --dt 0.1 --t-end 0.2 --out long.csv --summary long.json -q
check "600-character names: all 6 final_state keys, exact" \
    test "$(json long.json "sorted(s['final_state']) == sorted(['a'*600, 'a'*600+'b', 'a'*600+\"'\", 'a'*600+\"b'\", 'p.'+'a'*600, 'p.'+'a'*600+'b'])")" = True

# --- runaway runs ----------------------------------------------------------------------------
"$dirac" simulate "$pendulum" --dt 1e-10 --t-end 99 --out big.csv 2>err; rc=$?
check "a 250 TB CSV: refused with exit 2" test $rc -eq 2
check "a 250 TB CSV: says how large and what to do" grep -q "the run would write up to .* GB of CSV.*--force" err
check "a 250 TB CSV: nothing written" test ! -e big.csv
"$dirac" simulate "$pendulum" --dt 1e-10 --t-end 99 --out big.csv --summary big.json --force \
    --max-wall 1 -q 2>err; rc=$?
check "--force --max-wall 1: the run starts and stops with exit 3" test $rc -eq 3
check "--max-wall: the summary says stopped" test "$(json big.json 's["status"]')" = stopped
check "--max-wall: rows kept and whole" csv_ok big.csv
start=$(date +%s)
"$dirac" simulate "$pendulum" --t-end 1e6 --every 1000 --out wall.csv --summary wall.json \
    --max-wall 1 -q 2>err; rc=$?
check "--max-wall 1: exit 3" test $rc -eq 3
check "--max-wall 1: stopped within 30 s" test $(($(date +%s) - start)) -lt 30
check "--max-wall: the summary says why" grep -q "stopped by --max-wall 1 s at t = " wall.json
check "--max-wall: rows whole" csv_ok wall.csv
"$dirac" simulate "$pendulum" --max-wall 0 2>/dev/null; rc=$?
check "--max-wall 0: exit 2" test $rc -eq 2

# --- things that are not files ---------------------------------------------------------------
mkfifo fifo.dirac
timeout 20 "$dirac" check /dev/zero 2>err; rc=$?
check "check /dev/zero: exit 2 at once" test $rc -eq 2
check "check /dev/zero: says why" grep -q "not a regular file" err
timeout 20 "$dirac" check fifo.dirac 2>err; rc=$?
check "check FIFO: exit 2 at once" test $rc -eq 2
printf "model z\ncoordinate x\nlagrangian x'^2\ncomponent c = q() from \"/dev/zero\"\n" > z.dirac
timeout 20 "$dirac" simulate z.dirac --dt 0.1 --t-end 1 2>err; rc=$?
check "component /dev/zero: exit 2 at once" test $rc -eq 2
check "component /dev/zero: says why" grep -q "cannot read component file '/dev/zero': not a regular file" err
timeout 20 "$dirac" plot /dev/zero --y x -o z.png 2>err; rc=$?
check "plot /dev/zero: exit 2 at once" test $rc -eq 2

# --- check: long equations are not a failure -------------------------------------------------
python3 -c "open('product.dirac', 'w').write('model d\ncoordinate x\nlagrangian x\'^2 + ' + ' * '.join(['x'] * 10000) + '\n')"
"$dirac" check product.dirac >product.out 2>err; rc=$?
check "check, equations over 16 MB: exit 0" test $rc -eq 0
check "check, equations over 16 MB: a note instead" grep -q "(not printed: longer than 16777216 characters)" product.out
check "check, equations over 16 MB: the others printed" grep -q "p.x = 2\*x'" product.out

# --- out of memory: exit 4; no hang in OpenBLAS under a memory limit -------------------------
# (not under AddressSanitizer, whose shadow memory needs terabytes of address space)
if (ulimit -v 1000000; "$dirac" --version) >/dev/null 2>&1; then
  for i in 1 2 3 4 5; do
    (ulimit -v 200000; timeout 20 "$dirac" check "$pendulum" >/dev/null 2>&1); rc=$?
    check "check under ulimit -v 200000 (try $i): exit 0, no hang" test $rc -eq 0
  done
  (ulimit -v 200000; timeout 20 "$dirac" demo >/dev/null 2>&1); rc=$?
  check "demo under ulimit -v 200000: exit 0, no hang" test $rc -eq 0
  (ulimit -v 120000; timeout 20 "$dirac" check "$pendulum" >/dev/null 2>err); rc=$?
  check "check under ulimit -v 120000: exit 4, no hang" test $rc -eq 4
  check "check under ulimit -v 120000: out of memory" grep -q "out of memory" err
  (ulimit -v 400000; timeout 60 "$dirac" check "$src/examples/scale/chain.dirac" -p N=1000000 \
      >/dev/null 2>err); rc=$?
  check "check of 10^6 links under ulimit -v 400000: exit 4" test $rc -eq 4
  check "check of 10^6 links: says out of memory" grep -q "error: out of memory" err
  (ulimit -v 400000; timeout 60 "$dirac" simulate "$src/examples/scale/chain.dirac" \
      -p N=1000000 --t-end 0.01 --out c.csv >/dev/null 2>err); rc=$?
  check "simulate of 10^6 links under ulimit -v 400000: exit 4" test $rc -eq 4
else
  echo "skip   memory limits (the sanitizer build cannot run under ulimit -v)"
fi

exit $fail
