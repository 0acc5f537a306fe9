"""The examples of docs/python.md run as written (every ```python block, in order, in one
namespace, from the repository's root), and so does the figure script of examples/python/."""
import importlib
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

DOC = os.path.join(ROOT, "docs", "python.md")


def _blocks():
    text = open(DOC, encoding="utf-8").read()
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def _missing(module):
    try:
        importlib.import_module(module)
        return False
    except ImportError:
        return True


def test_doc_examples(monkeypatch, capsys):
    blocks = _blocks()
    assert len(blocks) >= 6
    monkeypatch.chdir(ROOT)
    namespace = {"__name__": "docs_python_md"}
    ran = 0
    for block in blocks:
        needs = [m for m in ("matplotlib", "pandas") if m in block and _missing(m)]
        if needs:
            continue   # the optional features' examples need their modules
        exec(compile(block, DOC, "exec"), namespace)
        ran += 1
    assert ran >= len(blocks) - 1
    out = capsys.readouterr().out
    assert "nonholonomic False" in out and "degenerate" in out


def test_figure_script(tmp_path):
    if _missing("matplotlib"):
        pytest.skip("matplotlib is not installed")
    script = os.path.join(ROOT, "examples", "python", "pendulum_and_motor.py")
    proc = subprocess.run([sys.executable, script, str(tmp_path)], capture_output=True,
                          text=True, env=dict(os.environ, MPLBACKEND="Agg"))
    assert proc.returncode == 0, proc.stderr
    for name in ("pendulum.png", "dc_motor.png"):
        assert (tmp_path / name).stat().st_size > 10000
    # the gyrator does no work: its ports' powers cancel to rounding
    power = float(re.search(r"max \|P.motor\| = (\S+) W", proc.stdout).group(1))
    assert power < 1e-12
