"""Bad input gives exceptions with libdirac's messages, never a crash."""
import math
import random

import pytest

import dirac
from conftest import example

BAD_MODEL = """model bad
coordinate x
lagrangian x'^2/2 - k*x^2/2
"""


def test_model_error_has_location(tmp_path):
    path = tmp_path / "bad.dirac"
    path.write_text(BAD_MODEL)
    with pytest.raises(dirac.ModelError) as info:
        dirac.load(path)
    e = info.value
    assert (e.file, e.line, e.column) == (str(path), 3, 21)
    assert "k" in str(e) and "^" in str(e)   # the message, the source line and a caret
    assert e.status == "model error"


def test_loads_location():
    with pytest.raises(dirac.ModelError) as info:
        dirac.loads(BAD_MODEL, name="inline.dirac")
    assert (info.value.file, info.value.line) == ("inline.dirac", 3)


def test_missing_file():
    with pytest.raises(dirac.ModelError) as info:
        dirac.load("/nonexistent/model.dirac")
    assert info.value.status == "input/output error"
    assert info.value.line is None


def test_unknown_parameter_suggests():
    with pytest.raises(dirac.ModelError) as info:
        dirac.load(example("pendulum.dirac"), ll=2)
    assert "ll" in str(info.value) and "'l'" in str(info.value)


@pytest.mark.parametrize("value,kind", [(math.inf, ValueError), (math.nan, ValueError),
                                        ("2", TypeError), (True, TypeError), (None, TypeError)])
def test_bad_override_values(value, kind):
    with pytest.raises(kind):
        dirac.load(example("pendulum.dirac"), l=value)


def test_bad_override_names():
    for name in ["", "a=b", "x\0y"]:
        with pytest.raises(ValueError):
            dirac.load(example("pendulum.dirac"), {name: 1.0})


def test_nul_in_path_and_text():
    with pytest.raises(ValueError):
        dirac.load("examples/pendulum.dirac\0x")
    with pytest.raises(ValueError):
        dirac.loads("model a\0")


@pytest.mark.parametrize("kwargs,kind", [
    ({"method": "leapfrog"}, ValueError), ({"dt": -1.0}, ValueError), ({"dt": 0}, ValueError),
    ({"dt": math.nan}, ValueError), ({"t_end": -1.0}, ValueError), ({"every": 0}, ValueError),
    ({"every": 1.5}, TypeError), ({"dt": "1e-3"}, TypeError), ({"max_iter": 0}, ValueError),
    ({"tol": -1.0}, ValueError), ({"rtol": -1.0}, ValueError),
    ({"dt": 1e-9, "t_end": 1e9}, ValueError),      # more than 1e12 steps
])
def test_bad_settings(kwargs, kind):
    with pytest.raises(kind):
        dirac.load(example("pendulum.dirac")).simulate(**kwargs)


def test_no_final_time():
    model = dirac.loads("model m\ncoordinate x\nlagrangian x'^2/2 - x^2/2\n")
    with pytest.raises(ValueError, match="no step size"):
        model.simulate(t_end=1.0)
    with pytest.raises(ValueError, match="no final time"):
        model.simulate(dt=0.1)
    assert len(model.simulate(dt=0.1, t_end=1.0)) == 11


def test_inconsistent_initial_state():
    """x^2 + y^2 = 1 violated at the start: an error unless project_initial, which moves the
    state onto the constraint."""
    text = ("model p\ncoordinate x, y\nlagrangian (x'^2 + y'^2)/2 - 9.81*y\n"
            "constraint rod: x^2 + y^2 = 1\ninitial x = 0.5, y = -1\n")
    model = dirac.loads(text)
    with pytest.raises(dirac.ModelError, match="rod"):
        model.simulate(dt=1e-3, t_end=0.01)
    r = model.simulate(dt=1e-3, t_end=0.01, project_initial=True)
    assert abs(r["x"][0] ** 2 + r["y"][0] ** 2 - 1) <= 1e-12
    assert r.summary["projection_distance"] > 0


def test_unknown_column():
    r = dirac.load(example("pendulum.dirac")).simulate(t_end=0.01)
    with pytest.raises(KeyError, match="did you mean"):
        r["mu.rood"]
    with pytest.raises(KeyError):
        r[3]


def test_garbage_models_do_not_crash():
    """Random mutations of a valid model: every one loads, or raises ModelError."""
    text = open(example("pendulum.dirac")).read()
    alphabet = "()[]{}=+-*/^,.:'\"#\n 0123456789abcxyz_"
    rng = random.Random(16)
    outcomes = {"ok": 0, "error": 0}
    for _ in range(300):
        chars = list(text)
        for _ in range(rng.randint(1, 6)):
            i = rng.randrange(len(chars))
            op = rng.randrange(3)
            if op == 0:
                del chars[i]
            elif op == 1:
                chars.insert(i, rng.choice(alphabet))
            else:
                chars[i] = rng.choice(alphabet)
        try:
            model = dirac.loads("".join(chars))
            model.check()
            model.simulate(t_end=0.01)
            outcomes["ok"] += 1
        except (dirac.ModelError, dirac.SimulationError, ValueError):
            outcomes["error"] += 1
    assert outcomes["error"] > 0
