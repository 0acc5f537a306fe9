"""Models: loading with parameter overrides, names, the analysis at the initial state."""
import math
import numbers
import os

from ._errors import ModelError, SimulationError
from ._lib import ffi, lib

# create failures that are numerical (the consistent initial state could not be computed)
_NUMERICAL = {"Newton iteration did not converge", "singular Jacobian",
              "non-finite value (NaN or infinity)", "out of memory",
              "linear-algebra routine failed"}


def _text(cdata):
    return None if cdata == ffi.NULL else ffi.string(cdata).decode("utf-8", "replace")


def _status_name(status):
    return _text(lib.dirac_status_string(status))


def version():
    """The version of the libdirac in use, "MAJOR.MINOR.PATCH"."""
    return _text(lib.dirac_version())


def methods():
    """The integrators: a list of dicts with name, order, preserves, summary."""
    out = []
    for i in range(lib.dirac_method_count()):
        info = lib.dirac_method(i)
        out.append({"name": _text(info.name), "order": info.order,
                    "preserves": _text(info.preserves), "summary": _text(info.summary)})
    return out


def _c_string(text, what):
    if not isinstance(text, str):
        raise TypeError("%s must be a string, not %s" % (what, type(text).__name__))
    data = text.encode("utf-8")
    if b"\0" in data:
        raise ValueError("%s must not contain a NUL character" % what)
    return data


def _assignment(name, value):
    """'NAME=VALUE' for dirac_spec_set_parameter; VALUE written so that it reads back exactly."""
    if not isinstance(name, str) or not name or "=" in name or "\0" in name:
        raise ValueError("bad parameter name %r" % (name,))
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("parameter %s: the value must be a real number, not %s"
                        % (name, type(value).__name__))
    x = float(value)
    if not math.isfinite(x):
        raise ValueError("parameter %s: the value must be finite, got %r" % (name, x))
    return "%s=%s" % (name, repr(x))


def _compile(spec_out, status, label, parameters, overrides):
    """Applies the overrides to a loaded spec and compiles it; raises ModelError."""
    spec = spec_out[0]
    if spec == ffi.NULL:
        raise MemoryError("out of memory loading %s" % label)
    spec = ffi.gc(spec, lib.dirac_spec_destroy)
    assignments = []
    merged = dict(parameters or {})
    merged.update(overrides)
    if status == lib.DIRAC_OK:
        for name, value in merged.items():
            text = _assignment(name, value)
            assignments.append(text)
            status = lib.dirac_spec_set_parameter(spec, text.encode("utf-8"))
            if status != lib.DIRAC_OK:
                break
    model = ffi.new("dirac_model **")
    if status == lib.DIRAC_OK:
        status = lib.dirac_model_compile(spec, model)
    if status != lib.DIRAC_OK:
        message = _text(lib.dirac_spec_errmsg(spec)) or _status_name(status)
        raise ModelError(message, _status_name(status))
    return ffi.gc(model[0], lib.dirac_model_destroy), assignments


def load(path, parameters=None, **overrides):
    """Loads, overrides and compiles the model file ``path``.

    Parameters are overridden by keyword (``l=2.0``) or, for names that are not Python
    identifiers (indexed ``k[3]``, qualified ``rotor.J``), by a dict: ``{"k[3]": 2}``.
    Raises ModelError (with file, line, column) for a bad model or override."""
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if "\0" in path:
        raise ValueError("path must not contain a NUL character")
    spec = ffi.new("dirac_spec **")
    status = lib.dirac_spec_load(os.fsencode(path), spec)
    handle, assignments = _compile(spec, status, path, parameters, overrides)
    return Model(handle, path, assignments)


def loads(text, parameters=None, name="<string>", **overrides):
    """Like load, for a model held in a string; ``name`` is the file name shown in messages
    (component files named in the model are read relative to the current directory)."""
    data = _c_string(text, "text")
    spec = ffi.new("dirac_spec **")
    status = lib.dirac_spec_parse(_c_string(name, "name"), data, len(data), spec)
    handle, assignments = _compile(spec, status, name, parameters, overrides)
    return Model(handle, name, assignments)


class Model:
    """A compiled model: immutable, shareable between simulations and threads."""

    def __init__(self, handle, file, overrides):
        self._m = handle
        self.file = file
        self.overrides = tuple(overrides)   # the "NAME=VALUE" overrides, as applied
        m = handle
        self.name = _text(lib.dirac_model_name(m))
        self.coordinates = tuple(_text(lib.dirac_model_coordinate_name(m, i))
                                 for i in range(lib.dirac_model_coordinate_count(m)))
        self.entropies = tuple(_text(lib.dirac_model_entropy_name(m, i))
                               for i in range(lib.dirac_model_entropy_count(m)))
        self.constraints = tuple(_text(lib.dirac_model_constraint_name(m, a))
                                 for a in range(lib.dirac_model_constraint_count(m)))
        self.outputs = tuple(_text(lib.dirac_model_output_name(m, k))
                             for k in range(lib.dirac_model_output_count(m)))
        self.interactions = tuple(_text(lib.dirac_model_interaction_name(m, k))
                                  for k in range(lib.dirac_model_interaction_count(m)))
        self.parameters = {_text(lib.dirac_model_parameter_name(m, k)):
                           lib.dirac_model_parameter_value(m, k)
                           for k in range(lib.dirac_model_parameter_count(m))}
        self.columns = tuple(self._column_name(k) for k in range(lib.dirac_model_column_count(m)))

    def _column_name(self, k):
        size = lib.dirac_model_column_name(self._m, k, ffi.NULL, 0)
        buf = ffi.new("char[]", size + 1)
        lib.dirac_model_column_name(self._m, k, buf, size + 1)
        return _text(buf)

    def __repr__(self):
        return "<dirac.Model %s: %d coordinates, %d constraints>" % (
            self.name, len(self.coordinates), len(self.constraints))

    @property
    def defaults(self):
        """The model's ``simulate`` line: a dict of the settings it gives."""
        d = ffi.new("dirac_simulate_defaults *")
        lib.dirac_model_simulate_defaults(self._m, d)
        out = {}
        if d.has_method and d.method != ffi.NULL:
            out["method"] = _text(d.method)
        for key in ("dt", "t_end", "every", "tol", "max_iter"):
            if getattr(d, "has_" + key):
                out[key] = getattr(d, key)
        return out

    @property
    def initial_state(self):
        """The initial state: a dict of coordinates NAME, velocities NAME' and entropies S.NAME."""
        n, ns = len(self.coordinates), len(self.entropies)
        q, v, s = ffi.new("double[]", n + 1), ffi.new("double[]", n + 1), ffi.new("double[]", ns + 1)
        lib.dirac_model_initial_state(self._m, q, v, s)
        out = {name: q[i] for i, name in enumerate(self.coordinates)}
        out.update({name + "'": v[i] for i, name in enumerate(self.coordinates)})
        out.update({"S." + name: s[i] for i, name in enumerate(self.entropies)})
        return out

    def check(self):
        """The analysis of ``dirac check`` at the initial state, as a dict: sizes; per constraint
        its kind, time dependence, residuals and integrability; ranks; whether the Lagrangian is
        regular; the interconnection check; the initial energy. Raises ModelError beyond the
        size the analysis handles."""
        m = self._m
        analysis = ffi.new("dirac_model_analysis *")
        err = ffi.new("dirac_error *")
        status = lib.dirac_model_analyze(m, analysis, err)
        if status != lib.DIRAC_OK:
            raise ModelError(_text(err.message) or _status_name(status), _status_name(status))
        try:
            n = len(self.coordinates)
            constraints = []
            for a, name in enumerate(self.constraints):
                holonomic = lib.dirac_model_constraint_kind(m, a) == lib.DIRAC_CONSTRAINT_HOLONOMIC
                entry = {"name": name, "kind": "holonomic" if holonomic else "nonholonomic",
                         "time_dependent": bool(lib.dirac_model_constraint_is_time_dependent(m, a)),
                         "residual": analysis.residual[a],
                         "velocity_residual": analysis.velocity_residual[a]}
                if not holonomic:
                    entry["integrable"] = bool(analysis.integrable[a])
                    entry["integrability_defect"] = analysis.integrability_defect[a]
                constraints.append(entry)
            interactions = []
            for k, name in enumerate(self.interactions):
                count = ffi.new("int *")
                coords = lib.dirac_model_interaction_coordinates(m, k, count)
                interactions.append({"name": name, "coordinates":
                                     [self.coordinates[coords[j]] for j in range(count[0])]})
            return {
                "model": self.name,
                "coordinates": n,
                "constraints": constraints,
                "entropy_variables": len(self.entropies),
                "components": lib.dirac_model_component_count(m),
                "constraint_rank": analysis.constraint_rank,
                "distribution_dim": analysis.distribution_dim,
                "velocity_hessian_rank": analysis.velocity_hessian_rank,
                "lagrangian": "regular" if analysis.velocity_hessian_rank == n else "degenerate",
                "subsystem_count": analysis.subsystem_count,
                "interconnection_angle": (None if math.isnan(analysis.interconnection_angle)
                                          else analysis.interconnection_angle),
                "interactions": interactions,
                "energy": analysis.energy,
            }
        finally:
            lib.dirac_model_analysis_free(analysis)

    def equations(self, latex=False):
        """The implicit Lagrange-Dirac equations as text (``latex=True``: a LaTeX align)."""
        f = lib.tmpfile()
        if f == ffi.NULL:
            raise OSError("cannot create a temporary file")
        try:
            err = ffi.new("dirac_error *")
            style = lib.DIRAC_EQUATIONS_LATEX if latex else lib.DIRAC_EQUATIONS_TEXT
            status = lib.dirac_model_write_equations(self._m, style, f, err)
            if status != lib.DIRAC_OK:
                raise ModelError(_text(err.message) or _status_name(status), _status_name(status))
            size = lib.ftell(f)
            lib.rewind(f)
            buf = ffi.new("char[]", size + 1)
            got = lib.fread(buf, 1, size, f)
            return ffi.unpack(buf, got).decode("utf-8", "replace")
        finally:
            lib.fclose(f)

    # ---- simulations --------------------------------------------------------------------

    def _settings(self, method, dt, t_end, every, tol, max_iter, rtol, atol, need_t_end):
        """Settings from the arguments, else the model's simulate line (as the CLI does)."""
        d = self.defaults
        method = method if method is not None else d.get("method", "auto")
        names = ["auto"] + [info["name"] for info in methods()]
        if not isinstance(method, str) or method not in names:
            raise ValueError("unknown method %r (available: %s)" % (method, ", ".join(names)))

        def real(name, value, default, ok, rule):
            if value is None:
                value = default
            if value is None:
                return None
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError("%s must be a number, not %s" % (name, type(value).__name__))
            value = float(value)
            if not (math.isfinite(value) and ok(value)):
                raise ValueError("%s must be %s, got %r" % (name, rule, value))
            return value

        def integer(name, value, default, high):
            if value is None:
                value = default
            if value is None:
                return None
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError("%s must be an integer, not %s" % (name, type(value).__name__))
            if not 1 <= value <= high:
                raise ValueError("%s must be an integer from 1 to %d, got %d" % (name, high, value))
            return int(value)

        s = {"method": method}
        s["dt"] = real("dt", dt, d.get("dt"), lambda x: x > 0, "positive")
        if s["dt"] is None:
            raise ValueError("no step size: give dt=H or 'simulate dt = H' in the model")
        s["t_end"] = real("t_end", t_end, d.get("t_end"), lambda x: x >= 0, "a number >= 0")
        if need_t_end and s["t_end"] is None:
            raise ValueError("no final time: give t_end=T or 'simulate t_end = T' in the model")
        s["every"] = integer("every", every, d.get("every", 1), 2**62)
        s["tol"] = real("tol", tol, d.get("tol"), lambda x: x > 0, "positive")
        s["max_iter"] = integer("max_iter", max_iter, d.get("max_iter"), 100000)
        s["rtol"] = real("rtol", rtol, 0.0, lambda x: x >= 0, "a number >= 0")
        s["atol"] = real("atol", atol, 0.0, lambda x: x >= 0, "a number >= 0")
        return s

    def _create_sim(self, s, project_initial):
        """A new dirac_sim (garbage-collected) and the objects it needs alive."""
        options = ffi.new("dirac_sim_options *")
        method = ffi.new("char[]", s["method"].encode())
        options.method = method
        options.dt = s["dt"]
        options.project_initial = 1 if project_initial else 0
        options.newton_rtol = s["tol"] or 0.0
        options.newton_max_iterations = s["max_iter"] or 0
        options.adaptive_rtol = s["rtol"]
        options.adaptive_atol = s["atol"]
        out = ffi.new("dirac_sim **")
        err = ffi.new("dirac_error *")
        status = lib.dirac_sim_create(self._m, options, out, err)
        if status != lib.DIRAC_OK:
            message = _text(err.message) or _status_name(status)
            if _status_name(status) in _NUMERICAL:
                raise SimulationError(message, _status_name(status), partial=None)
            raise ModelError(message, _status_name(status))
        return ffi.gc(out[0], lib.dirac_sim_destroy), (method, options)

    def simulate(self, method=None, dt=None, t_end=None, every=None, rtol=None, atol=None,
                 tol=None, max_iter=None, project_initial=False):
        """Runs the model from its initial state; returns a Result with every CSV column.

        Settings not given come from the model's ``simulate`` line, as for ``dirac simulate``:
        ``method`` (default "auto": chosen per model class, as by the CLI), step ``dt``, final time ``t_end``, ``every`` (keep
        every k-th step; the first and last are always kept), Newton's ``tol`` and
        ``max_iter``, adaptive step size with ``rtol``/``atol``, ``project_initial``.
        Raises SimulationError (``.partial``: the result up to the last good step) when a step
        fails; Ctrl-C raises KeyboardInterrupt with ``.partial`` likewise."""
        from ._run import run
        s = self._settings(method, dt, t_end, every, tol, max_iter, rtol, atol, True)
        sim, keep = self._create_sim(s, project_initial)
        return run(self, sim, s)

    def simulator(self, method=None, dt=None, rtol=None, atol=None, tol=None, max_iter=None,
                  project_initial=False):
        """A Simulator stepping the model from its initial state (control loops)."""
        from ._simulator import Simulator
        s = self._settings(method, dt, None, None, tol, max_iter, rtol, atol, False)
        return Simulator(self, s, project_initial)
