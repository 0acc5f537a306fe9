"""Overhead of the Python package per step, on the pendulum (examples/pendulum.dirac, midpoint,
dt = 1e-3, 20 000 steps, every row kept).

  python: Model.simulate(t_end=20) — chunks of steps, rows written by libdirac into numpy
  C:      the same run as one libdirac call (dirac_run_advance over all steps into one buffer):
          the steps, the rows and the summary statistics, with no Python in the loop
  CLI:    dirac simulate --out /dev/null (adds the formatting of the CSV, %.17g)

Each time is the median of 9 runs, python and C interleaved and timed by the process's CPU
time (less sensitive than wall time to other processes on the machine); the overhead is (python - C) / C.
Usage: python3 bench/python_overhead.py [PATH/TO/dirac]   (run in a venv with the package)
"""
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import dirac
from dirac._lib import ffi, lib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(ROOT, "examples", "pendulum.dirac")
REPEAT = 9


def median_times(clock, *fns):
    """Median time of each function by `clock`, the runs interleaved (so that a change of the
    machine's load affects all alike)."""
    times = [[] for _ in fns]
    for _ in range(REPEAT):
        for fn, record in zip(fns, times):
            start = clock()
            fn()
            record.append(clock() - start)
    return [statistics.median(t) for t in times]


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "dirac")
    model = dirac.load(MODEL)
    steps = model.simulate(t_end=20.0).summary["steps"]

    def python_run():
        model.simulate(t_end=20.0)

    def c_run():
        sim = model.simulator()._sim
        out = ffi.new("dirac_run **")
        lib.dirac_run_create(sim, 20.0, 1, out, ffi.NULL)
        table = np.empty((steps + 2, len(model.columns)))
        buf = ffi.cast("double *", ffi.from_buffer(table))
        lib.dirac_run_row(out[0], buf)
        lib.dirac_run_advance(out[0], steps, buf + len(model.columns), steps + 1, ffi.NULL)
        lib.dirac_run_destroy(out[0])

    def cli_run():
        subprocess.run([cli, "simulate", MODEL, "--out", "/dev/null", "-q"], check=True)

    python_run(), c_run()   # warm up
    t_py, t_c = median_times(time.process_time, python_run, c_run)
    print("pendulum, midpoint, %d steps, every row kept (median of %d)" % (steps, REPEAT))
    print("  python simulate: %7.1f ns/step" % (1e9 * t_py / steps))
    print("  C (one call):    %7.1f ns/step" % (1e9 * t_c / steps))
    print("  overhead:        %+7.1f %%" % (100 * (t_py - t_c) / t_c))
    if os.access(cli, os.X_OK):
        t_cli, = median_times(time.perf_counter, cli_run)
        print("  CLI to /dev/null:%7.1f ns/step (wall time; process start, model compilation "
              "and CSV formatting included)" % (1e9 * t_cli / steps))


if __name__ == "__main__":
    main()
