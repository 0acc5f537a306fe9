#!/usr/bin/env bash
# The library's limits seen from the tool: --max-model-memory, a step longer than the interval,
# settings of the simulate line.
# usage: cli_model_limits.sh PATH-TO-DIRAC SOURCE-DIR
. "$(dirname "$0")/support/cli.sh"
src=$(absolute "$2")

# three levels of 4-element component families: 64 oscillators
for l in 1 2 3; do
  printf 'model l%d\ncomponent c[i = 1..4] = l%d() from "l%d.dirac"\n' $l $((l + 1)) $((l + 1)) >"$tmp/l$l.dirac"
done
printf "model l4\ncoordinate x\nlagrangian x'^2/2 - x^2/2\ninitial x = 1\n" >"$tmp/l4.dirac"
"$dirac" check "$tmp/l1.dirac" >/dev/null 2>"$tmp/err"
check "nested families compile under the default limit" test $? -eq 0
"$dirac" check "$tmp/l1.dirac" --max-model-memory 100K >/dev/null 2>"$tmp/err"
rc=$?
check "--max-model-memory 100K refuses them (exit 2)" test $rc -eq 2
check "  with the estimate and the location" grep -q "l[0-9].dirac:2:11: error: the expanded model is too large.*an estimated" "$tmp/err"
"$dirac" simulate "$tmp/l1.dirac" --dt 0.1 --t-end 0.2 --out "$tmp/o.csv" --max-model-memory 100K 2>"$tmp/err"
check "simulate --max-model-memory 100K refuses them (exit 2)" test $? -eq 2
"$dirac" check "$tmp/l1.dirac" --max-model-memory abc >/dev/null 2>"$tmp/err"
check "--max-model-memory abc is bad input" test $? -eq 2

"$dirac" simulate "$src/examples/pendulum.dirac" --dt 1e300 --out "$tmp/p.csv" 2>"$tmp/err"
check "--dt 1e300 (no step in the interval) is refused (exit 2)" test $? -eq 2
check "  saying so" grep -q "no step would be taken" "$tmp/err"

printf "model e\ncoordinate x\nlagrangian x'^2/2\nsimulate dt = 0.1, t_end = 1, every = 2.5\n" >"$tmp/e.dirac"
"$dirac" simulate "$tmp/e.dirac" --out "$tmp/e.csv" 2>"$tmp/err"
check "simulate every = 2.5 is a model error (exit 2)" test $? -eq 2
check "  at FILE:LINE:COL" grep -q "e.dirac:4:31: error: simulate setting 'every' must be a whole number" "$tmp/err"
exit $fail
