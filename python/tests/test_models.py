"""Models' names, parameters (with overrides, indexed and qualified), analysis, equations."""
import math

import numpy as np

import dirac
from conftest import example

SPRINGS = """model springs
parameter N = 3
parameter k[i = 1..N] = i
coordinate x[N]
lagrangian sum(i = 1..N, x[i]'^2/2 - k[i]*x[i]^2/2)
initial x[i = 1..N] = 1
simulate method = midpoint, dt = 1e-3, t_end = 1
"""


def test_names_and_parameters():
    m = dirac.load(example("pendulum.dirac"), l=2.0)
    assert m.name == "pendulum"
    assert m.coordinates == ("x", "y")
    assert m.constraints == ("rod",)
    assert m.outputs == ("angle",)
    assert m.parameters == {"m": 1.0, "g": 9.81, "l": 2.0, "theta0": 0.5}
    assert m.columns == ("t", "x", "y", "x'", "y'", "p.x", "p.y", "mu.rod", "E", "angle")
    assert m.defaults == {"method": "midpoint", "dt": 1e-3, "t_end": 20.0}
    assert m.initial_state["x"] == 2.0 * math.sin(0.5)


def test_derived_parameters_follow_overrides():
    """w = sqrt(k/m) is recomputed from the overridden k."""
    m = dirac.load(example("harmonic_oscillator.dirac"), k=9)
    assert m.parameters["w"] == 3.0


def test_indexed_override():
    """{"k[3]": 2}: only the third spring changes; each x_i = cos(sqrt(k_i) t) within the
    midpoint method's phase error t k^(3/2) h^2 / 12 (see test_cli_equivalence)."""
    m = dirac.loads(SPRINGS, {"k[3]": 2})
    assert m.parameters == {"N": 3.0, "k[1]": 1.0, "k[2]": 2.0, "k[3]": 2.0}
    r = m.simulate()
    for i, k in enumerate([1.0, 2.0, 2.0], start=1):
        bound = r.t * k ** 1.5 * 1e-6 / 12
        assert (np.abs(r["x[%d]" % i] - np.cos(math.sqrt(k) * r.t)) <= bound + 1e-15).all()
    assert np.array_equal(r["x[2]"], r["x[3]"])


def test_family_size_override():
    m = dirac.load(example("scale", "chain.dirac"), N=3)
    assert len(m.coordinates) == 6 and m.constraints == ("rod", "link[2]", "link[3]")


def test_qualified_override():
    m = dirac.load(example("interconnect", "dc_motor", "dc_motor.dirac"), {"rotor.J": 2e-3})
    assert m.parameters["rotor.J"] == 2e-3
    assert "F.motor.rotor.theta" in m.columns and "P.motor" in m.columns


def test_check():
    a = dirac.load(example("knife_edge.dirac")).check()
    assert a["constraints"][0]["kind"] == "nonholonomic"
    assert a["constraints"][0]["integrable"] is False
    a = dirac.load(example("lc_circuit.dirac")).check()
    assert a["lagrangian"] == "degenerate"
    a = dirac.load(example("interconnect", "dc_motor", "dc_motor.dirac")).check()
    assert a["subsystem_count"] > 0 and a["interconnection_angle"] <= 1e-12
    assert {i["name"] for i in a["interactions"]} == {"motor", "gear"}


def test_equations():
    text = dirac.load(example("pendulum.dirac")).equations()
    assert "rod" in text
    assert "align" in dirac.load(example("pendulum.dirac")).equations(latex=True)


def test_methods_and_version():
    names = [m["name"] for m in dirac.methods()]
    assert "midpoint" in names and "rk4" in names
    assert dirac.version().count(".") == 2
