"""Test-wide set-up: Qt offscreen, fixed numba cache location, shared fixtures."""
from __future__ import annotations

import os
from pathlib import Path

# Before any Qt import: no display is needed, on CI or a developer machine.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """Small test files shipped with the repository (tests/data)."""
    return DATA
