"""Results of simulations: the CSV columns as numpy arrays, and the run's summary."""
import difflib

import numpy as np


class Result:
    """A trajectory: ``t`` and every column of ``dirac simulate``'s CSV (same names and values),
    one row per kept step. ``r["x"]``, ``r["x'"]``, ``r["mu.rod"]`` are views into one
    rows x columns array (``table``), written by libdirac; ``summary`` holds the quantities
    of the CLI's JSON summary."""

    def __init__(self, columns, table, summary):
        self.columns = tuple(columns)
        self.table = table
        self.summary = summary
        self._index = {name: k for k, name in enumerate(self.columns)}

    @property
    def t(self):
        return self.table[:, 0]

    def __getitem__(self, name):
        try:
            return self.table[:, self._index[name]]
        except KeyError:
            close = difflib.get_close_matches(str(name), self.columns, n=3)
            hint = " (did you mean %s?)" % ", ".join(repr(c) for c in close) if close else ""
            raise KeyError("no column %r%s; columns: %s" % (name, hint, ", ".join(self.columns)))
        except TypeError:
            raise KeyError("columns are named by strings, got %r" % (name,))

    def __contains__(self, name):
        return name in self._index

    def __iter__(self):
        return iter(self.columns)

    def keys(self):
        return self.columns

    def __len__(self):
        return self.table.shape[0]

    def __repr__(self):
        s = self.summary
        return "<dirac.Result %s: %s, %d rows to t = %g, status %s>" % (
            s["model"], s["method"], len(self), s["t_final"], s["status"])

    def to_pandas(self):
        """A pandas DataFrame with one column per CSV column (pandas must be installed)."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("Result.to_pandas needs pandas (Debian: python3-pandas)") from e
        return pandas.DataFrame(np.array(self.table), columns=list(self.columns))

    def plot(self, y=None, x="t", ax=None, **kwargs):
        """Draws columns ``y`` (default: the coordinates, i.e. every column followed by its
        velocity NAME') against column ``x`` with matplotlib; returns the Axes."""
        try:
            import matplotlib.pyplot as plt
        except ImportError as e:
            raise ImportError("Result.plot needs matplotlib (Debian: python3-matplotlib)") from e
        if y is None:
            y = [c for c in self.columns if c + "'" in self._index]
        elif isinstance(y, str):
            y = [y]
        if ax is None:
            ax = plt.figure().add_subplot()
        for name in y:
            ax.plot(self[x], self[name], label=name, **kwargs)
        ax.set_xlabel(x + " (s)" if x == "t" else x)
        if len(y) > 1:
            ax.legend()
        elif y:
            ax.set_ylabel(y[0])
        ax.set_title("%s: %s, dt = %g" % (self.summary["model"], self.summary["method"],
                                          self.summary["dt"]))
        return ax
