#!/usr/bin/env bash
# `dirac equilibrium`, `dirac linearize`, `dirac modes`: output formats, JSON keys, Matrix
# Market files, and errors (exit 2 for bad input, 3 when no equilibrium is found).
# usage: cli_analysis.sh PATH-TO-DIRAC SOURCE-DIR
. "$(dirname "$0")/support/cli.sh"
src=$(absolute "$2")
py() { python3 -c "$1"; }

# equilibrium: the hanging double pendulum
"$dirac" equilibrium "$src/examples/double_pendulum.dirac" -p th1=0.2 -p th2=0.1 --json >"$tmp/eq.json"
check "equilibrium --json exits 0" test $? -eq 0
check "equilibrium: y2 = -2 l" py "import json; e = json.load(open('$tmp/eq.json'))['equilibrium']; assert abs(e['q']['y2'] + 2) < 1e-12 and abs(e['mu']['rod2'] + 4.905) < 1e-10"
out=$("$dirac" equilibrium "$src/examples/pendulum.dirac")
check "equilibrium text lists mu.rod" grep -Eq '^  mu.rod +-4.9' <<<"$out"

# modes: JSON keys and the pendulum's sqrt(g/l)
"$dirac" modes "$src/examples/pendulum.dirac" -p l=2 --json >"$tmp/modes.json"
check "modes --json exits 0" test $? -eq 0
check "modes: frequencies, modes, equilibrium" py "import json, math; d = json.load(open('$tmp/modes.json')); assert set(['frequencies', 'modes', 'equilibrium']) <= set(d); assert abs(d['frequencies'][0] - math.sqrt(9.81/2)) < 1e-12; assert abs(d['modes'][0]['x'] - 1) < 1e-12"
"$dirac" modes "$src/tests/data/spring_chain.dirac" --count 3 --json >"$tmp/chain.json"
check "modes --count 3 gives 3" py "import json; assert len(json.load(open('$tmp/chain.json'))['frequencies']) == 3"
"$dirac" modes "$src/tests/data/spring_chain.dirac" -p N=3000 --count 2 >"$tmp/big.txt"
check "modes: sparse path beyond the dense limit" grep -q 'sparse, ARPACK' "$tmp/big.txt"

# linearize: JSON and Matrix Market
"$dirac" linearize "$src/examples/pendulum.dirac" >"$tmp/lin.json"
check "linearize exits 0" test $? -eq 0
check "linearize: state names and matrices" py "import json; d = json.load(open('$tmp/lin.json')); assert d['state'] == ['q.x', 'q.y', 'v.x', 'v.y', 'p.x', 'p.y', 'mu.rod']; assert all(k in d for k in 'EABCDMKG'); assert d['reduced']['dim'] == 1; assert d['inputs'] == []"
"$dirac" linearize "$src/examples/pendulum.dirac" --at initial --format mm -o "$tmp/pend" >/dev/null
check "linearize --format mm writes E and A" test -s "$tmp/pend_E.mtx" -a -s "$tmp/pend_A.mtx" -a -s "$tmp/pend.json"
check "Matrix Market header" grep -q '^%%MatrixMarket matrix coordinate real general$' "$tmp/pend_A.mtx"

# errors
"$dirac" modes "$src/examples/knife_edge.dirac" 2>"$tmp/err"
check "no equilibrium: exit 3" test $? -eq 3
check "no equilibrium: says so" grep -q 'no static equilibrium' "$tmp/err"
"$dirac" modes "$src/examples/pendulum.dirac" --count 0 2>/dev/null
check "--count 0: exit 2" test $? -eq 2
"$dirac" linearize "$src/examples/pendulum.dirac" --at somewhere 2>/dev/null
check "--at somewhere: exit 2" test $? -eq 2
"$dirac" linearize "$src/examples/pendulum.dirac" --format mm 2>/dev/null
check "--format mm without -o: exit 2" test $? -eq 2
"$dirac" equilibrium "$src/examples/pendulum.dirac" -p nosuch=1 2>"$tmp/err"
check "unknown parameter: exit 2" test $? -eq 2
"$dirac" equilibrium 2>/dev/null
check "no model: exit 2" test $? -eq 2
exit $fail
