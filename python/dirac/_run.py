"""A run to a final time: libdirac writes the rows straight into a preallocated numpy array,
in chunks of steps; between chunks Python may handle signals (Ctrl-C) and other threads run
(the GIL is released during each chunk)."""
import math
import time

import numpy as np

from ._errors import SimulationError
from ._lib import ffi, lib
from ._model import _status_name, _text
from ._result import Result

# Each chunk should take between these wall times: short enough for a prompt Ctrl-C, long
# enough that the Python overhead per chunk (a few microseconds) is negligible.
_CHUNK_SECONDS = (0.005, 0.05)
_MAX_INITIAL_ROWS = 1 << 18


def _number(x):
    """A summary number: None where the CLI's JSON has null (undefined or not finite)."""
    return float(x) if x is not None and math.isfinite(x) else None


def _evaluation(model):
    """The summary's "evaluation": generated code or tapes (cli.md, the JSON summary)."""
    e = ffi.new("dirac_model_evaluation *")
    lib.dirac_model_evaluation_info(model._m, e)
    return {"path": "compiled" if e.compiled else "tape", "cached": bool(e.cached),
            "compile_seconds": float(e.compile_seconds), "statements": int(e.statements),
            "reason": None if e.compiled else _text(e.reason)}


def run(model, sim, settings, t_end=None, every=None):
    """Advances `sim` over t_end (default: settings["t_end"]) and returns the Result."""
    t_end = settings["t_end"] if t_end is None else t_end
    every = settings["every"] if every is None else every
    out = ffi.new("dirac_run **")
    err = ffi.new("dirac_error *")
    status = lib.dirac_run_create(sim, t_end, every, out, err)
    if status != lib.DIRAC_OK:
        raise ValueError(_text(err.message))
    handle = ffi.gc(out[0], lib.dirac_run_destroy)
    stats = lib.dirac_run_statistics(handle)
    columns = len(model.columns)
    adaptive = settings["rtol"] > 0 or settings["atol"] > 0
    # rows: the initial one, every every-th step, the last step, and one spare for the last
    # good step of a run that stops early
    planned = stats.steps_planned // every + 3
    capacity = planned if not adaptive else max(64, planned)
    capacity = min(capacity, _MAX_INITIAL_ROWS)
    table = np.empty((capacity, columns))
    buf = ffi.cast("double *", ffi.from_buffer(table))
    lib.dirac_run_row(handle, buf)
    written = ffi.new("long *")
    chunk = 64
    interrupt = None
    start = time.perf_counter()
    try:
        while not lib.dirac_run_finished(handle):
            rows = 1 + stats.rows
            room = capacity - rows - 1
            if room <= 0:
                bigger = np.empty((2 * capacity, columns))
                bigger[:rows] = table[:rows]
                table, buf, capacity = (bigger, ffi.cast("double *", ffi.from_buffer(bigger)),
                                        2 * capacity)
                continue
            t0 = time.perf_counter()
            lib.dirac_run_advance(handle, chunk, buf + rows * columns, room, written)
            elapsed = time.perf_counter() - t0
            if elapsed < _CHUNK_SECONDS[0] and chunk < (1 << 30):
                chunk *= 2
            elif elapsed > _CHUNK_SECONDS[1] and chunk > 1:
                chunk //= 2
    except KeyboardInterrupt as e:
        interrupt = e
    wall = time.perf_counter() - start
    rows = 1 + stats.rows
    if lib.dirac_run_finish(handle, buf + rows * columns):
        rows += 1
    failed = stats.status != lib.DIRAC_OK
    error = None
    if failed:
        error = _text(lib.dirac_sim_errmsg(sim)) or _status_name(stats.status)
    result = Result(model.columns, table[:rows],
                    _summary(model, sim, settings, t_end, every, stats, rows, wall,
                             "failed" if failed else "interrupted" if interrupt else "ok", error))
    if failed:
        raise SimulationError(error, _status_name(stats.status), partial=result)
    if interrupt is not None:
        interrupt.partial = result
        raise interrupt
    return result


def _summary(model, sim, s, t_end, every, stats, rows, wall, status, error):
    """The quantities of the CLI's JSON summary (docs/cli.md), keys in the same order."""
    steps = stats.steps
    adaptive = s["rtol"] > 0 or s["atol"] > 0
    ns = len(model.entropies)
    out = {"model": model.name, "model_file": model.file, "parameters": list(model.overrides),
           "method": _text(lib.dirac_sim_method(sim)), "method_requested": s["method"],
           "method_reason": _text(lib.dirac_sim_method_reason(sim)), "status": status, "error": error, "dt": s["dt"],
           "steps": steps, "steps_planned": stats.steps_planned}
    if adaptive:
        out["adaptive_rtol"] = s["rtol"]
        out["adaptive_atol"] = s["atol"]
        out["step_size_min"] = _number(stats.step_size_min) if steps > 0 else None
        out["step_size_max"] = _number(stats.step_size_max) if steps > 0 else None
        out["rejected_steps"] = lib.dirac_sim_rejected_steps(sim)
    final = _final_state(model, sim)
    entropy_final = sum(final["S." + name] for name in model.entropies)
    out.update({
        "t_end": t_end,
        "t_final": lib.dirac_sim_time(sim),
        "every": every,
        "csv": None,
        "rows": rows,
        "wall_seconds": wall,
        "evaluation": _evaluation(model),
        "projection_distance": _number(stats.projection_distance),
        "newton_iterations_mean": (stats.newton_iterations_sum / steps if steps > 0 else None),
        "newton_iterations_max": stats.newton_iterations_max,
        "newton_failures": stats.newton_failures,
        "constraint_residual_max": _number(stats.constraint_residual_max),
        "velocity_constraint_residual_max": _number(stats.velocity_constraint_residual_max),
        "energy_initial": _number(stats.energy_initial),
        "energy_final": _number(lib.dirac_sim_energy(sim)),
        "work": _number(lib.dirac_sim_work(sim) - stats.work_initial),
        "energy_error_max": _number(stats.energy_error_max),
        "entropy_initial": _number(stats.entropy_initial) if ns > 0 else None,
        "entropy_final": _number(entropy_final) if ns > 0 else None,
        "entropy_step_min": _number(stats.entropy_step_min) if ns > 0 and steps > 0 else None,
        "interactions": list(model.interactions),
        "interaction_power_max": (_number(stats.interaction_power_max)
                                  if model.interactions else None),
    })
    # the run's errors relative to the model's scales and the warnings they raise
    quality = ffi.new("dirac_sim_quality *")
    lib.dirac_sim_quality_get(sim, quality)
    constrained = len(model.constraints) > 0
    out.update({
        "energy_error_relative": _number(quality.energy_error),
        "constraint_error_relative": _number(quality.constraint_error) if constrained else None,
        "velocity_constraint_error_relative": (_number(quality.velocity_constraint_error)
                                               if constrained else None),
        "entropy_decrease_relative": _number(quality.entropy_decrease) if ns > 0 else None,
        "warnings": [_text(lib.dirac_sim_warning(sim, k))
                     for k in range(lib.dirac_sim_warning_count(sim))],
        "final_state": {k: _number(v) for k, v in final.items()},
    })
    return out


def _final_state(model, sim):
    """Coordinates NAME, velocities NAME', momenta p.NAME and entropies S.NAME now."""
    q, v, p = lib.dirac_sim_q(sim), lib.dirac_sim_v(sim), lib.dirac_sim_p(sim)
    s = lib.dirac_sim_s(sim)
    out = {name: q[i] for i, name in enumerate(model.coordinates)}
    out.update({name + "'": v[i] for i, name in enumerate(model.coordinates)})
    out.update({"p." + name: p[i] for i, name in enumerate(model.coordinates)})
    out.update({"S." + name: s[i] for i, name in enumerate(model.entropies)})
    return out
