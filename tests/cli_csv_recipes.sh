#!/usr/bin/env bash
# docs/cli.md's recipes for reading the CSV keep the column names exactly: pandas.read_csv and
# numpy.genfromtxt(..., deletechars="") on real CSV files of the pendulum (x', mu.rod) and of
# two blocks in contact (qualified names a.x, F.touch.a.x), checked against the CSV header.
# usage: cli_csv_recipes.sh PATH-TO-DIRAC SOURCE-DIR
. "$(dirname "$0")/support/cli.sh"
src=$(absolute "$2")
# the Debian python3 that scripts/setup.sh equips with python3-numpy and python3-pandas
py=/usr/bin/python3
[ -x "$py" ] || py=python3
cd "$tmp" || exit 1
"$dirac" simulate "$src/examples/pendulum.dirac" --t-end 0.1 --out pendulum.csv -q
"$dirac" simulate "$src/examples/interconnect/contact/contact.dirac" --t-end 0.1 --out contact.csv -q
for csv in pendulum.csv contact.csv; do
  for reader in pandas numpy; do
    "$py" - "$csv" "$reader" <<'PY' >out.txt 2>&1
import sys
csv, reader = sys.argv[1], sys.argv[2]
header = open(csv).readline().rstrip("\n").split(",")
if reader == "pandas":
    import pandas
    df = pandas.read_csv(csv, float_precision="round_trip")   # the recipe of docs/cli.md
    names = list(df.columns)
    first = [float(df[name].iloc[0]) for name in header]
else:
    import numpy
    data = numpy.genfromtxt(csv, delimiter=",", names=True, deletechars="",
                            replace_space=" ")      # the recipe of docs/cli.md
    names = list(data.dtype.names)
    first = [float(data[name][0]) for name in header]
row = [float(v) for v in open(csv).readlines()[1].split(",")]
if names != header:
    print("names differ:", names, "header:", header)
    sys.exit(1)
if first != row:
    print("values of the first row differ:", first, row)
    sys.exit(1)
PY
    rc=$?
    check "$reader reads $csv with the header's names and values" test $rc -eq 0
    [ $rc -eq 0 ] || cat out.txt
  done
done
check "pendulum.csv has the names the recipe must keep" grep -q "x',y',p.x,p.y,mu.rod" pendulum.csv
check "contact.csv has qualified names" grep -q "a.x,b.x,.*F.touch.a.x" contact.csv
exit $fail
