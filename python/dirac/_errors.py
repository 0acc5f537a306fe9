"""Exceptions carrying libdirac's messages."""
import re

# FILE:LINE:COL: error: MESSAGE (the first located line of a model error)
_LOCATION = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+): error: ", re.MULTILINE)


class DiracError(Exception):
    """Base class of the package's errors; ``status`` is libdirac's status name."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        self.status = status


class ModelError(DiracError):
    """A model that cannot be loaded, overridden or compiled (or simulated from its initial
    state). ``file``, ``line`` and ``column`` locate the first error (None when the message
    has no location, e.g. an unknown parameter or a missing file); the message is libdirac's,
    with the source line and a caret."""

    def __init__(self, message, status=None):
        super().__init__(message.rstrip("\n"), status)
        match = _LOCATION.search(message)
        self.file = match.group("file") if match else None
        self.line = int(match.group("line")) if match else None
        self.column = int(match.group("column")) if match else None


class SimulationError(DiracError):
    """A step failed (Newton's method did not converge, a singular Jacobian, a non-finite
    state). ``partial`` is the Result up to the last good step (None if no step could be
    taken because the consistent initial state could not be computed)."""

    def __init__(self, message, status=None, partial=None):
        super().__init__(message.rstrip("\n"), status)
        self.partial = partial
