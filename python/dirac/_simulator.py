"""Stepping a model one step at a time (control loops)."""
import numpy as np

from ._errors import SimulationError
from ._lib import ffi, lib
from ._model import _status_name, _text


class Simulator:
    """A simulation advanced by the caller: ``step()``, then read ``t``, ``state`` or
    ``row()``. A failed step raises SimulationError and leaves the state at the last good
    step. Parameters are folded into the compiled model, so they cannot change during a run:
    load the model again with other values instead."""

    def __init__(self, model, settings, project_initial):
        self.model = model
        self.settings = settings
        self._sim, self._keep = model._create_sim(settings, project_initial)
        out = ffi.new("dirac_run **")
        err = ffi.new("dirac_error *")
        if lib.dirac_run_create(self._sim, 0.0, 1, out, err) != lib.DIRAC_OK:
            raise MemoryError(_text(err.message))
        self._row_writer = ffi.gc(out[0], lib.dirac_run_destroy)   # rows of the current node
        self._row = np.empty(len(model.columns))
        self._row_ptr = ffi.cast("double *", ffi.from_buffer(self._row))

    @property
    def t(self):
        """The current time."""
        return lib.dirac_sim_time(self._sim)

    @property
    def steps(self):
        """Steps taken."""
        return lib.dirac_sim_step_count(self._sim)

    def step(self, count=1):
        """Takes ``count`` steps (each of the step size, or adaptive)."""
        sim = self._sim
        for _ in range(count):
            status = lib.dirac_sim_step(sim)
            if status != lib.DIRAC_OK:
                message = _text(lib.dirac_sim_errmsg(sim)) or _status_name(status)
                raise SimulationError(message, _status_name(status), partial=None)
        return self

    def save_state(self):
        """The simulation's state as bytes: everything the next steps read (the node, the
        multipliers, inputs, a two-step method's history, Newton's guesses, the adaptive
        controller). ``restore_state`` continues from it bit for bit, in this simulator or
        another one of the same model and settings on this machine (the bytes are its doubles).
        For files that move between runs of the tool, use ``dirac simulate --save-state``."""
        size = lib.dirac_sim_state_size(self._sim)
        buffer = ffi.new("unsigned char[]", size)
        status = lib.dirac_sim_state_save(self._sim, buffer, size)
        if status != lib.DIRAC_OK:
            raise MemoryError(_status_name(status))
        return bytes(ffi.buffer(buffer, size))

    def restore_state(self, state):
        """Goes back (or on) to a state from ``save_state``; ValueError, with the simulator
        unchanged, for bytes that are not a state of a simulation of this shape."""
        data = bytes(state)
        if lib.dirac_sim_state_restore(self._sim, data, len(data)) != lib.DIRAC_OK:
            raise ValueError("not a state of this simulation (another model, method or "
                             "settings, or damaged bytes)")
        return self

    def row(self):
        """The current node as a numpy array, in the order of ``model.columns``."""
        lib.dirac_run_row(self._row_writer, self._row_ptr)
        return self._row.copy()

    @property
    def state(self):
        """The current node as a dict: every CSV column by name (t, x, x', p.x, mu.rod, ...)."""
        return dict(zip(self.model.columns, self.row().tolist()))

    @property
    def q(self):
        """Positions (in the order of ``model.coordinates``)."""
        return np.array(ffi.unpack(lib.dirac_sim_q(self._sim), len(self.model.coordinates)))

    @property
    def v(self):
        """Velocities."""
        return np.array(ffi.unpack(lib.dirac_sim_v(self._sim), len(self.model.coordinates)))

    @property
    def energy(self):
        return lib.dirac_sim_energy(self._sim)

    @property
    def constraint_residual(self):
        """max |φ(q, t)| over the holonomic constraints now."""
        return lib.dirac_sim_constraint_residual(self._sim)

    def simulate(self, t_end, every=1):
        """Continues as Model.simulate does, over ``t_end`` more time from the current state;
        returns the Result of that stretch (its first row is the current node)."""
        from ._run import run
        s = dict(self.settings)
        return run(self.model, self._sim, s, t_end=float(t_end), every=int(every))
