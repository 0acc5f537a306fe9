"""Simulations in threads: results equal serial runs, the GIL is released while libdirac
computes, Ctrl-C stops a run cleanly."""
import _thread
import threading
import time

import pytest

import dirac
from conftest import assert_bitwise_equal, example


def test_two_threads_equal_serial_runs():
    """Two runs at once in two threads (one shared model, one other model) give the serial
    runs' results bit for bit: simulations share nothing mutable."""
    pendulum = dirac.load(example("pendulum.dirac"))
    motor = dirac.load(example("interconnect", "dc_motor", "dc_motor.dirac"))
    jobs = [(pendulum, {"t_end": 3.0}), (pendulum, {"t_end": 3.0, "method": "rk4"}),
            (motor, {"t_end": 0.3})]
    serial = [m.simulate(**kw) for m, kw in jobs]
    parallel = [None] * len(jobs)

    def work(i):
        m, kw = jobs[i]
        parallel[i] = m.simulate(**kw)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, b in zip(serial, parallel):
        assert_bitwise_equal(a.table, b.table)


def test_gil_released_during_a_call():
    """One libdirac call of about 0.2 s (dirac_run_advance over a whole run) in a thread:
    the main thread keeps running Python code meanwhile. With the GIL held it could not run
    at all between the call's start and end."""
    from dirac._lib import ffi, lib
    model = dirac.load(example("pendulum.dirac"))
    sim = model.simulator()._sim
    out = ffi.new("dirac_run **")
    assert lib.dirac_run_create(sim, 1e9, 1000000, out, ffi.NULL) == lib.DIRAC_OK
    run = ffi.gc(out[0], lib.dirac_run_destroy)
    rows = ffi.new("double[]", 10 * len(model.columns))
    written = ffi.new("long *")
    window = {}

    def work():
        window["start"] = time.perf_counter()
        lib.dirac_run_advance(run, 60000, rows, 10, written)   # ~0.2 s of steps, no rows
        window["end"] = time.perf_counter()

    stamps = []
    thread = threading.Thread(target=work)
    thread.start()
    while thread.is_alive():
        stamps.append(time.perf_counter())
    thread.join()
    inside = [s for s in stamps if window["start"] < s < window["end"]]
    assert window["end"] - window["start"] > 0.02
    assert len(inside) > 100


def test_ctrl_c_stops_a_run_cleanly():
    """A KeyboardInterrupt (what Ctrl-C raises) during a long run stops it within a chunk
    (≤ 0.05 s of steps), carries the result so far, and the model stays usable."""
    model = dirac.load(example("pendulum.dirac"))
    timer = threading.Timer(0.3, _thread.interrupt_main)
    start = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt) as info:
        model.simulate(t_end=1e5, every=1000)     # 1e8 steps: minutes
    elapsed = time.perf_counter() - start
    timer.join()
    assert elapsed < 2.0
    partial = info.value.partial
    assert partial.summary["status"] == "interrupted"
    assert partial.summary["steps"] > 0
    assert partial.t[-1] == partial.summary["t_final"]   # ends at the last good step
    assert len(model.simulate(t_end=0.1)) == 101
