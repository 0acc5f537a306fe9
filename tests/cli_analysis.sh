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

# linearize with inputs: B columns and D columns (m x'' = F, output a = F/m with m = 2: B = 1 in
# the momentum row, D = 1/m), and the input's value about which the model was linearised
"$dirac" linearize "$src/examples/fmi/driven_mass.dirac" --at initial -p F=3 >"$tmp/driven.json"
check "linearize with an input exits 0" test $? -eq 0
check "linearize: inputs, u0, B and D" py "import json; d = json.load(open('$tmp/driven.json')); assert d['inputs'] == ['F'] and d['u0'] == [3]; assert d['B'] == {'rows': 3, 'cols': 1, 'entries': [[1, 0, 1]]}; assert d['D'] == {'rows': 1, 'cols': 1, 'entries': [[0, 0, 0.5]]}; assert 'inputs_note' not in d"
# a torque tau on a pendulum (Cartesian, rod constraint) at its equilibrium sin(th) = tau/(m g l):
# B's column is the generalized force (-y, x)/l^2 = (cos th, sin th) in the momentum rows 3, 4
"$dirac" linearize "$src/examples/fmi/pendulum_torque.dirac" -p tau=0.5 --format mm -o "$tmp/torque" >/dev/null
check "linearize --format mm writes B and D" test -s "$tmp/torque_B.mtx" -a -s "$tmp/torque_D.mtx"
check "Matrix Market B: the torque's generalized force" py "
import math
rows = [l.split() for l in open('$tmp/torque_B.mtx') if not l.startswith('%')]
assert rows[0] == ['7', '1', '2'], rows[0]
th = math.asin(0.5 / 9.81)
got = {(int(r), int(c)): float(v) for r, c, v in rows[1:]}
assert set(got) == {(3, 1), (4, 1)}, got
assert abs(got[3, 1] - math.cos(th)) < 1e-10 and abs(got[4, 1] - math.sin(th)) < 1e-10, got"

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
