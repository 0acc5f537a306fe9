#!/usr/bin/env bash
# `dirac check`: every example passes; errors exit 2 with FILE:LINE:COL; -p is validated.
# usage: cli_check.sh PATH-TO-DIRAC SOURCE-DIR
. "$(dirname "$0")/support/cli.sh"
src=$(absolute "$2")

count=0
while IFS= read -r -d '' model; do
  count=$((count + 1))
  "$dirac" check "$model" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  check "check ${model#$src/} exits 0" test $rc -eq 0
  [ $rc -eq 0 ] || cat "$tmp/err"
done < <(find "$src/examples" -name '*.dirac' -print0 | sort -z)
check "examples exist" test "$count" -gt 0

out=$("$dirac" check "$src/examples/pendulum.dirac")
check "pendulum: sizes" grep -q '^sizes: 2 coordinates, 1 constraint, 0 entropy variables, 0 components$' <<<"$out"
check "pendulum: holonomic rod at residual 0" grep -Eq '^  rod +holonomic +residual 0.000e\+00' <<<"$out"
check "pendulum: regular Lagrangian" grep -q 'Lagrangian: regular (rank of d2L/dv2 = 2 of 2)' <<<"$out"
check "pendulum: momentum balance" grep -q 'd/dt p.y = -9.81 + mu.rod\*2\*y' <<<"$out"
out=$("$dirac" check "$src/examples/pendulum.dirac" -p m=2 --latex)
check "-p m=2 changes the equations" grep -q 'p_{x} &= 2 \\dot{x}' <<<"$out"

# integrability: how it is known (symbolically everywhere, or numerically at the initial state)
out=$("$dirac" check "$src/examples/knife_edge.dirac")
check "knife edge: non-integrable at the initial state" \
  grep -q 'blade .*non-integrable (Frobenius defect 1.000e+00 at the initial state)$' <<<"$out"
out=$("$dirac" check "$src/examples/lc_circuit.dirac")
check "KCL: integrable, shown symbolically" grep -q 'kcl .*integrable: d(omega) = 0 identically$' <<<"$out"
printf 'model h\ncoordinate x, y, z\nlagrangian (x'"'"'^2 + y'"'"'^2 + z'"'"'^2)/2\nconstraint c: z'"'"' - x^2*y'"'"' = 0\n' >"$tmp/h.dirac"
out=$("$dirac" check "$tmp/h.dirac")
check "defect zero only at the initial state is said so" \
  grep -q 'c .*Frobenius defect 0.000e+00: zero at the initial state, integrability elsewhere not shown$' <<<"$out"

# a zero conductance is no term: the entropy balance is 0 (text and LaTeX)
out=$("$dirac" check "$src/examples/thermo/two_bodies.dirac" -p kappa=0)
check "zero conductance: T.S1 * S1' = 0" grep -qx "  T.S1 \* S1' = 0" <<<"$out"
out=$("$dirac" check "$src/examples/thermo/two_bodies.dirac" -p kappa=0 --latex)
check "zero conductance (LaTeX): = 0" grep -qx 'T_{\\mathrm{S1}} \\dot \\mathrm{S1} &= 0 \\\\' <<<"$out"

printf 'model broken\ncoordinate x\nlagrangian x'"'"'^2 + y\n' >"$tmp/broken.dirac"
err=$("$dirac" check "$tmp/broken.dirac" 2>&1 >/dev/null); rc=$?
check "unknown name exits 2" test $rc -eq 2
check "unknown name reported at FILE:LINE:COL" grep -q "broken.dirac:3:19: error: unknown name 'y'" <<<"$err"
check "caret line under the column" grep -qx "                  ^" <<<"$err"

err=$("$dirac" check "$tmp/missing.dirac" 2>&1 >/dev/null); rc=$?
check "missing file exits 2" test $rc -eq 2
check "missing file is named" grep -q "missing.dirac" <<<"$err"

err=$("$dirac" check "$src/examples/pendulum.dirac" -p theta=2 2>&1 >/dev/null); rc=$?
check "-p unknown parameter exits 2" test $rc -eq 2
check "-p unknown parameter suggests" grep -q "did you mean" <<<"$err"
err=$("$dirac" check "$src/examples/pendulum.dirac" -p m=heavy 2>&1 >/dev/null); rc=$?
check "-p non-number exits 2" test $rc -eq 2

# --codegen: which evaluation path ran (generated code needs a C compiler; the tapes need none)
export DIRAC_CACHE_DIR="$tmp/cache"
out=$("$dirac" check "$src/examples/pendulum.dirac" --codegen off)
check "--codegen off: tapes" grep -q '^evaluation: tapes (turned off)$' <<<"$out"
out=$(CC=/nonexistent "$dirac" check "$src/examples/pendulum.dirac")
check "no compiler: tapes, saying why" grep -q "^evaluation: tapes (no C compiler: '/nonexistent'" <<<"$out"
if command -v "${CC:-cc}" >/dev/null; then
  out=$("$dirac" check "$src/examples/pendulum.dirac" --codegen auto)
  check "--codegen auto: compiled" grep -q '^evaluation: compiled C (.*, compiled in ' <<<"$out"
  out=$("$dirac" check "$src/examples/pendulum.dirac")
  check "second run: from the cache" grep -q '^evaluation: compiled C (.*, loaded from the cache in ' <<<"$out"
  "$dirac" simulate "$src/examples/pendulum.dirac" --t-end 0.01 --out "$tmp/p.csv" --summary "$tmp/s.json" -q
  check "summary: evaluation compiled" python3 -c "import json, sys; e = json.load(open('$tmp/s.json'))['evaluation']; sys.exit(not (e['path'] == 'compiled' and e['cached'] and e['reason'] is None))"
fi
"$dirac" simulate "$src/examples/pendulum.dirac" --t-end 0.01 --out "$tmp/p.csv" --summary "$tmp/s.json" -q --codegen off
check "summary: evaluation tape" python3 -c "import json, sys; e = json.load(open('$tmp/s.json'))['evaluation']; sys.exit(not (e['path'] == 'tape' and e['reason'] == 'turned off'))"
err=$("$dirac" check "$src/examples/pendulum.dirac" --codegen fast 2>&1 >/dev/null); rc=$?
check "--codegen fast exits 2" test $rc -eq 2
check "--codegen fast says the choices" grep -q "'auto' or 'off'" <<<"$err"
exit $fail
