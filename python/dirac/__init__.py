"""dirac: Lagrange-Dirac (port-Lagrangian) systems with structure-preserving integrators.

Python bindings of libdirac: load a ``.dirac`` model, analyse it, simulate it into numpy
arrays, or step it in a control loop. Documentation: docs/python.md in the repository.

    >>> import dirac
    >>> m = dirac.load("examples/pendulum.dirac", l=2.0)
    >>> r = m.simulate(t_end=1.0)
    >>> r["x"][-1], r.summary["constraint_residual_max"]
"""
from ._errors import DiracError, ModelError, SimulationError
from ._model import Model, load, loads, methods, version
from ._result import Result
from ._simulator import Simulator

__all__ = ["DiracError", "ModelError", "SimulationError", "Model", "Result", "Simulator",
           "load", "loads", "methods", "version"]
__version__ = version()
