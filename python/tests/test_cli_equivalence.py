"""The package's results equal the dirac tool's CSV bit for bit, and its summary equals the
tool's JSON summary, on models of every kind of column: constraints (mu.), outputs,
interactions of components (F., P.), thermodynamics (S., T.), indexed families; fixed and
adaptive steps, every > 1, overrides, failed runs."""

import numpy as np
import pytest

import dirac
from conftest import assert_bitwise_equal, example, run_cli

# (model file, keyword arguments of simulate, the same as CLI options, overrides)
CASES = [
    ("pendulum.dirac", {"t_end": 2.0, "every": 10}, ["--t-end", "2", "--every", "10"], {}),
    ("pendulum.dirac", {"t_end": 1.0, "method": "rk4"}, ["--t-end", "1", "--method", "rk4"],
     {"l": 2.0}),
    ("pendulum.dirac", {"t_end": 2.0, "rtol": 1e-6, "atol": 1e-8, "every": 3},
     ["--t-end", "2", "--rtol", "1e-6", "--atol", "1e-8", "--every", "3"], {}),
    # adaptive from dt = 0.1: 3510 steps where 20 were planned, so the rows array grows
    ("pendulum.dirac", {"t_end": 2.0, "dt": 0.1, "rtol": 1e-9, "atol": 1e-11},
     ["--t-end", "2", "--dt", "0.1", "--rtol", "1e-9", "--atol", "1e-11"], {}),
    (("interconnect", "dc_motor", "dc_motor.dirac"), {"t_end": 0.05, "every": 7},
     ["--t-end", "0.05", "--every", "7"], {"rotor.J": 2e-3}),
    (("thermo", "two_bodies.dirac"), {"t_end": 5.0}, ["--t-end", "5"], {}),
    (("thermo", "cylinder_piston.dirac"), {"t_end": 0.2}, ["--t-end", "0.2"], {}),
    ("knife_edge.dirac", {"t_end": 1.0}, ["--t-end", "1"], {}),
    (("scale", "chain.dirac"), {"t_end": 0.2, "every": 5}, ["--t-end", "0.2", "--every", "5"],
     {"N": 4}),
    # a run that raises warnings (first-order Euler stretches the rod): the same sentences
    ("pendulum.dirac", {"t_end": 5.0, "method": "euler"}, ["--t-end", "5", "--method", "euler"],
     {}),
]


def _path(name):
    return example(*name) if isinstance(name, tuple) else example(name)


def _cli_overrides(overrides):
    args = []
    for name, value in overrides.items():
        args += ["-p", "%s=%r" % (name, float(value))]
    return args


def _compare_summaries(py, cli):
    # wall time differs; the CSV path exists only for the tool; the compile time and whether
    # the generated code came from the cache differ between the two processes
    skip = {"wall_seconds", "csv", "evaluation"}
    assert py["evaluation"]["path"] == cli["evaluation"]["path"]
    assert py["evaluation"]["statements"] == cli["evaluation"]["statements"]
    assert list(py) == list(cli), "keys differ"
    for key in py:
        if key in skip:
            continue
        assert py[key] == cli[key], "summary[%r]: %r (Python) vs %r (CLI)" % (key, py[key], cli[key])


@pytest.mark.parametrize("name,kwargs,cli_args,overrides", CASES,
                         ids=lambda c: str(c) if not isinstance(c, dict) else None)
def test_equal_to_cli(tmp_path, name, kwargs, cli_args, overrides):
    path = _path(name)
    model = dirac.load(path, overrides)
    result = model.simulate(**kwargs)
    status, names, data, summary = run_cli(tmp_path, path, *cli_args, *_cli_overrides(overrides))
    assert status == 0
    assert list(result.columns) == names
    assert_bitwise_equal(result.table, data)
    for k, column in enumerate(names):
        assert_bitwise_equal(result[column], data[:, k])
    assert_bitwise_equal(result.t, data[:, 0])
    _compare_summaries(result.summary, summary)


def test_failed_run_partial_equals_cli(tmp_path):
    """rk4 with a large step on the pendulum blows up after 80 steps: the partial result is
    the CLI's CSV of the failed run (up to the last good step), the summary its summary."""
    path = example("pendulum.dirac")
    model = dirac.load(path)
    with pytest.raises(dirac.SimulationError) as info:
        model.simulate(method="rk4", dt=0.5, t_end=100)
    status, names, data, summary = run_cli(tmp_path, path, "--method", "rk4", "--dt", "0.5",
                                           "--t-end", "100")
    assert status == 3
    partial = info.value.partial
    assert len(partial) > 2 and partial.summary["status"] == "failed"
    assert_bitwise_equal(partial.table, data)
    _compare_summaries(partial.summary, summary)
    assert info.value.status == "non-finite value (NaN or infinity)"
    assert "non-finite" in str(info.value) and str(info.value) == summary["error"]


def test_failure_in_first_step(tmp_path):
    """Newton fails in the first step: the partial result is the initial row only."""
    model = dirac.load(example("pendulum.dirac"))
    with pytest.raises(dirac.SimulationError) as info:
        model.simulate(dt=5.0)
    partial = info.value.partial
    assert len(partial) == 1 and partial.t[0] == 0.0
    assert "Newton" in str(info.value)
    status, _, data, summary = run_cli(tmp_path, example("pendulum.dirac"), "--dt", "5")
    assert status == 3
    assert_bitwise_equal(partial.table, data)
    _compare_summaries(partial.summary, summary)


def test_pendulum_on_its_constraint_with_override():
    """With l = 2 every node lies on x^2 + y^2 = 4: the midpoint method enforces the
    constraint at each node to Newton's tolerance (1e-10 relative on the updates), so 1e-12
    absolute on l^2 = 4 holds with rounding to spare; l = 1 would miss it by 3."""
    result = dirac.load(example("pendulum.dirac"), l=2.0).simulate(t_end=2.0)
    residual = np.abs(result["x"] ** 2 + result["y"] ** 2 - 4.0)
    assert residual.max() <= 1e-12


def test_harmonic_oscillator_second_order():
    """x(t) = x0 cos(w t). The midpoint method turns with the frequency w_h = (2/h) atan(w h/2)
    >= w - w^3 h^2/12, so |x_h(t) - x(t)| <= x0 t (w - w_h) <= x0 t w^3 h^2 / 12 (a bound, no
    tolerance); the error falls by 4 (±10 %) when h halves (order 2)."""
    model = dirac.load(example("harmonic_oscillator.dirac"))
    errors = []
    for dt in (0.02, 0.01):
        r = model.simulate(dt=dt, t_end=5.0)
        errors.append(np.abs(r["x"] - r["x_exact"]).max())
        assert errors[-1] <= 0.1 * 5.0 * 2.0 ** 3 * dt ** 2 / 12
    assert 3.6 <= errors[0] / errors[1] <= 4.4
