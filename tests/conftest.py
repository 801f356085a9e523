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


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels():
    """Compile (or load from the cache) every numba kernel once, so test durations measure tests."""
    from anonstudio.kernels.warmup import warm_up_all

    return warm_up_all()
