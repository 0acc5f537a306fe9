"""The stepping interface agrees with simulate bit for bit."""
import numpy as np
import pytest

import dirac
from conftest import assert_bitwise_equal, example


def test_steps_equal_simulate():
    model = dirac.load(example("interconnect", "dc_motor", "dc_motor.dirac"))
    r = model.simulate(t_end=0.01)
    s = model.simulator()
    rows = [s.row()]
    for _ in range(len(r) - 1):
        s.step()
        rows.append(s.row())
    assert_bitwise_equal(np.array(rows), r.table)
    state = s.state
    assert state["t"] == r.t[-1] and state["armature.q'"] == r["armature.q'"][-1]
    assert_bitwise_equal(s.q, r.table[-1, 1:1 + len(model.coordinates)])
    assert s.steps == len(r) - 1


def test_continue_with_simulate():
    """Stepping 100 steps then simulating 0.9 s more equals one run of 1 s."""
    model = dirac.load(example("pendulum.dirac"))
    whole = model.simulate(t_end=1.0)
    s = model.simulator()
    s.step(100)
    rest = s.simulate(0.9)
    assert_bitwise_equal(rest.table[0], whole.table[100])
    assert_bitwise_equal(rest.table[-1], whole.table[-1])


def test_failed_step_keeps_last_good_state():
    s = dirac.load(example("pendulum.dirac")).simulator(dt=5.0)
    before = s.row()
    with pytest.raises(dirac.SimulationError, match="Newton"):
        s.step()
    assert_bitwise_equal(s.row(), before)


def test_restore_state_continues_bit_for_bit():
    """A state saved after 37 steps and restored into a new simulator (every method, fixed and
    adaptive steps) continues exactly as the simulator that never stopped."""
    model = dirac.load(example("pendulum.dirac"))
    for method in ["midpoint", "dirac1", "dirac2", "dgrad", "euler", "rk4", "lobatto3",
                   "lobatto4"]:
        for adaptive in ([{}] if method == "dirac2" else [{}, {"rtol": 1e-8, "atol": 1e-10}]):
            whole = model.simulator(method=method, dt=0.01, **adaptive)
            whole.step(37)
            state = whole.save_state()
            whole.step(20)
            other = model.simulator(method=method, dt=0.01, **adaptive)
            other.restore_state(state)
            assert other.steps == 37
            other.step(20)
            assert_bitwise_equal(other.row(), whole.row())


def test_restore_state_refuses_foreign_bytes():
    s = dirac.load(example("pendulum.dirac")).simulator()
    other = dirac.load(example("double_pendulum.dirac")).simulator()
    before = s.row()
    with pytest.raises(ValueError, match="not a state"):
        s.restore_state(other.save_state())
    with pytest.raises(ValueError, match="not a state"):
        s.restore_state(b"dirac")
    assert_bitwise_equal(s.row(), before)
