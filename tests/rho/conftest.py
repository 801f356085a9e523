"""Fixtures of the rho tests."""
from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "rho"


@pytest.fixture
def rho_data() -> Path:
    """tests/data/rho: the note's examples A and B, a file with empty lines."""
    return DATA
