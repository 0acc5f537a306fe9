"""Shared helpers of the Python package's tests: the repository, the dirac tool (to compare
with), and reading its CSV and JSON output."""
import csv
import json
import os
import subprocess

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")


def example(*parts):
    return os.path.join(EXAMPLES, *parts)


def cli_path():
    path = os.environ.get("DIRAC_CLI", os.path.join(ROOT, "build", "dirac"))
    if not os.access(path, os.X_OK):
        pytest.fail("the dirac tool is needed to compare with: build it (bash scripts/build.sh "
                    "build) or set DIRAC_CLI (looked for %s)" % path)
    return path


def run_cli(tmp_path, model, *args):
    """Runs `dirac simulate MODEL ARGS` writing CSV and summary; returns (exit status, column
    names, rows x columns array, summary dict)."""
    out, summary = tmp_path / "out.csv", tmp_path / "summary.json"
    proc = subprocess.run([cli_path(), "simulate", model, *args, "--out", str(out),
                           "--summary", str(summary), "-q"], capture_output=True, text=True)
    names, rows = [], []
    if out.exists():
        with open(out, newline="") as f:
            reader = csv.reader(f)
            names = next(reader)
            rows = [[float(x) for x in row] for row in reader]   # %.17g reads back exactly
    data = np.array(rows, dtype=float).reshape(len(rows), len(names))
    info = json.loads(summary.read_text()) if summary.exists() else None
    return proc.returncode, names, data, info


def assert_bitwise_equal(a, b):
    """Equal doubles bit for bit (NaN matches NaN)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, (a.shape, b.shape)
    nan = np.isnan(a)
    assert (nan == np.isnan(b)).all()
    same = a.view(np.uint64) == b.view(np.uint64)
    bad = ~same & ~nan
    assert not bad.any(), "first difference at %s: %r vs %r" % (
        np.argwhere(bad)[0], a[bad][0], b[bad][0])
