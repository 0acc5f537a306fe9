#!/usr/bin/env bash
# `dirac sweep --out RESULTS.h5 --trajectories FILE.h5` (and `dirac-mpi sweep`, whose rank 0
# writes both): read back with h5py, every value equals the CSV output of the same sweep
# exactly (the same doubles, the same integers and texts, column for column in the CSV's
# order), failing runs included; each run's trajectory group equals its CSV file.
# usage: cli_sweep_hdf5.sh PATH-TO-DIRAC SOURCE-DIR [PATH-TO-DIRAC-MPI]
. "$(dirname "$0")/support/cli.sh"
src=$(absolute "$2")
mpi=$(absolute "${3:-}")
cd "$tmp" || exit 1
pendulum=$src/examples/pendulum.dirac
# the Debian python3 that scripts/setup.sh equips with python3-h5py and python3-numpy
py=/usr/bin/python3
[ -x "$py" ] || py=python3
check "python3 has h5py (scripts/setup.sh installs python3-h5py)" "$py" -c "import h5py"

# same_as_csv RESULTS.csv RESULTS.h5 [ignore-wall]: the HDF5 table holds the CSV's rows
same_as_csv() {
  "$py" - "$@" <<'PY'
import csv, math, sys, h5py, numpy as np
rows = list(csv.reader(open(sys.argv[1])))
header, rows = rows[0], rows[1:]
with h5py.File(sys.argv[2], "r") as f:
    table = f["results"][()]
assert list(table.dtype.names) == header, (table.dtype.names, header)
assert len(table) == len(rows), (len(table), len(rows))
skip = {"wall_seconds"} if len(sys.argv) > 3 else set()
for i, row in enumerate(rows):
    for name, text in zip(header, row):
        if name in skip:
            continue
        value = table[name][i]
        kind = table.dtype[name].kind
        if kind == "i":
            assert int(value) == int(text), (i, name, value, text)
        elif kind == "f":
            x = float(text)   # %.17g: the exact double
            assert (math.isnan(x) and math.isnan(value)) or x == value, (i, name, value, text)
        else:   # variable-length UTF-8 text: bytes in h5py's structured arrays
            assert value.decode("utf-8") == text, (i, name, value, text)
PY
}

# ---- RESULTS and trajectories, CSV and HDF5, of one sweep with failing runs: l = 0 is
# invalid (no trajectory), l = 1e-7 fails at the first step (a trajectory of one row)
"$dirac" sweep "$pendulum" --vary l=1,0,1e-7,2 --vary theta0=0.3,1 --t-end 0.5 --every 7 \
  --out r.csv --trajectories traj -q 2>/dev/null
check "CSV sweep with failing runs exits 3" test $? -eq 3
"$dirac" sweep "$pendulum" --vary l=1,0,1e-7,2 --vary theta0=0.3,1 --t-end 0.5 --every 7 \
  --out r.h5 --trajectories traj.h5 --jobs 2 -q 2>/dev/null
check "HDF5 sweep with failing runs exits 3" test $? -eq 3
check "RESULTS.h5 equals RESULTS.csv value for value (wall_seconds aside)" \
  same_as_csv r.csv r.h5 ignore-wall
check "failure rows are records with their status" "$py" - <<'PY'
import h5py
t = h5py.File("r.h5", "r")["results"][()]
assert [s.decode() for s in t["status"]] == ["ok", "ok", "invalid", "invalid", "failed",
                                             "failed", "ok", "ok"], t["status"]
assert b"Newton" in t["message"][4]
PY
check "trajectories.h5: a group per run that has a CSV file, equal to it value for value" \
  "$py" - <<'PY'
import csv, glob, math, os, h5py
files = sorted(glob.glob("traj/run_*.csv"))
with h5py.File("traj.h5", "r") as f:
    assert sorted(f.keys()) == [os.path.basename(p)[:-4] for p in files], (list(f.keys()), files)
    assert len(files) == 6   # the two invalid runs never started
    for path in files:
        g = f[os.path.basename(path)[:-4]]
        assert g.attrs["index"] == int(path[-10:-4])
        d = g["trajectory"]
        rows = list(csv.reader(open(path)))
        names = [n.decode() if isinstance(n, bytes) else n for n in d.attrs["columns"]]
        assert names == rows[0], (names, rows[0])
        data = d[()]
        assert data.shape == (len(rows) - 1, len(rows[0])), (data.shape, len(rows))
        for i, row in enumerate(rows[1:]):
            for j, text in enumerate(row):
                x = float(text)
                assert x == data[i, j] or (math.isnan(x) and math.isnan(data[i, j])), (path, i, j)
PY

# ---- docs/sweeps.md's pandas recipe reads the table
check "pandas: DataFrame of /results with decoded texts" "$py" - <<'PY'
try:
    import pandas as pd
except ImportError:
    raise SystemExit(0)   # pandas is optional (python3-pandas)
import h5py
with h5py.File("r.h5", "r") as f:
    df = pd.DataFrame(f["results"][()])
for column in df.columns[df.dtypes == object]:
    df[column] = df[column].str.decode("utf-8")
assert list(df["status"]).count("ok") == 4
assert df.loc[df["status"] == "ok", "l"].tolist() == [1.0, 1.0, 2.0, 2.0]
PY

# ---- a thermodynamic model (its extra column entropy_step_min) and a sample sweep
"$dirac" sweep "$src/examples/thermo/spring_heating.dirac" --samples 5 --seed 3 \
  --vary "c=uniform(0.5,4)" --t-end 0.2 --out s.csv -q 2>/dev/null
rc_csv=$?
"$dirac" sweep "$src/examples/thermo/spring_heating.dirac" --samples 5 --seed 3 \
  --vary "c=uniform(0.5,4)" --t-end 0.2 --out s.h5 -q 2>/dev/null
check "sample sweep: same exit status for CSV and HDF5" test $? -eq $rc_csv
check "sample sweep: RESULTS.h5 equals RESULTS.csv" same_as_csv s.csv s.h5 ignore-wall

# ---- bad input
"$dirac" sweep "$pendulum" --vary l=1,2 --out same.h5 --trajectories same.h5 2>err.txt
check "the same file for --out and --trajectories: exit 2" test $? -eq 2
check "the same file for --out and --trajectories: message" grep -q "name the same file" err.txt
"$dirac" sweep "$pendulum" --vary l=1,2 --out no/such/dir/r.h5 2>err.txt
check "an HDF5 file that cannot be created: exit 2 with its name" \
  bash -c "test $? -eq 2 && grep -q 'no/such/dir/r.h5' err.txt"

# ---- MPI: rank 0 writes RESULTS.h5, equal to the serial sweep's
if [ -n "$mpi" ] && command -v mpirun >/dev/null 2>&1; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0   # Open MPI's own leaks
  mpirun --oversubscribe --allow-run-as-root -np 2 "$mpi" sweep "$pendulum" \
    --vary l=1,0,1e-7,2 --vary theta0=0.3,1 --t-end 0.5 --every 7 --out m.h5 -q 2>/dev/null
  check "MPI: 2 ranks with failing runs exit 3" test $? -eq 3
  check "MPI: RESULTS.h5 of 2 ranks equals the serial RESULTS.csv" same_as_csv r.csv m.h5 ignore-wall
  # trajectories computed on the worker ranks travel to rank 0 with their results (24 runs,
  # so that every rank computes some)
  "$dirac" sweep "$pendulum" --vary l=1,0,1e-7,2 --vary theta0=0.1:1.5:6 --t-end 0.5 --every 7 \
    --out r24.csv --trajectories traj24.h5 -q 2>/dev/null
  mpirun --oversubscribe --allow-run-as-root -np 3 "$mpi" sweep "$pendulum" \
    --vary l=1,0,1e-7,2 --vary theta0=0.1:1.5:6 --t-end 0.5 --every 7 --out m3.h5 \
    --trajectories mt.h5 -q 2>/dev/null
  check "MPI: 3 ranks with trajectories exit 3" test $? -eq 3
  check "MPI: RESULTS.h5 of 3 ranks equals the serial RESULTS.csv" same_as_csv r24.csv m3.h5 ignore-wall
  check "MPI: the trajectory file of 3 ranks (written by rank 0) equals the serial one" \
    "$py" - <<'PY'
import h5py, numpy as np
with h5py.File("traj24.h5", "r") as a, h5py.File("mt.h5", "r") as b:
    assert sorted(a.keys()) == sorted(b.keys()), (list(a.keys()), list(b.keys()))
    for name in a:
        x, y = a[name]["trajectory"], b[name]["trajectory"]
        assert a[name].attrs["index"] == b[name].attrs["index"]
        assert list(x.attrs["columns"]) == list(y.attrs["columns"])
        assert x.shape == y.shape and np.array_equal(x[()], y[()], equal_nan=True), name
PY
else
  echo "skip   MPI (dirac-mpi not built)"
fi

exit $fail
