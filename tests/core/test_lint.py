"""ruff finds nothing in the code, the tests and the benchmarks ([tool.ruff] in pyproject.toml says what it checks).

To fix what ruff can fix by itself: ``ruff check --fix anonstudio tests benchmarks``; ``ruff check`` lists the rest.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _ruff() -> str | None:
    """The ruff executable installed with the test extra, else one on PATH."""
    try:
        from ruff.__main__ import find_ruff_bin
    except ImportError:
        return shutil.which("ruff")
    try:
        return str(find_ruff_bin())
    except FileNotFoundError:
        return shutil.which("ruff")


@pytest.mark.parametrize("tree", ["anonstudio", "tests", "benchmarks"])
def test_ruff_finds_nothing(tree):
    ruff = _ruff()
    if ruff is None:
        pytest.skip('ruff is not installed (it comes with the test extra: pip install -e ".[test]")')
    proc = subprocess.run([ruff, "check", "--no-cache", "--output-format", "concise", tree], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"ruff check {tree}:\n{proc.stdout}{proc.stderr}"
