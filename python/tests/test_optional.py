"""to_pandas and plot, when pandas and matplotlib are installed (skipped otherwise)."""
import numpy as np
import pytest

import dirac
from conftest import example


def test_to_pandas():
    pandas = pytest.importorskip("pandas")
    r = dirac.load(example("pendulum.dirac")).simulate(t_end=0.1)
    frame = r.to_pandas()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns) == list(r.columns)
    assert np.array_equal(frame["mu.rod"].to_numpy(), r["mu.rod"])


def test_plot(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    r = dirac.load(example("pendulum.dirac")).simulate(t_end=0.5)
    ax = r.plot()
    assert [line.get_label() for line in ax.get_lines()] == ["x", "y"]
    ax.figure.savefig(tmp_path / "pendulum.png")
    assert (tmp_path / "pendulum.png").stat().st_size > 1000
