"""Fixtures for group anonymization tests: the paper's Table I and an Adult slice."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from anonstudio.data.table import Role, Table

HERE = Path(__file__).resolve().parent.parent / "data" / "group_anonymize"


@pytest.fixture
def ga_data() -> Path:
    return HERE


@pytest.fixture
def table1() -> Table:
    """Paper 004, Table I(a): Nat and ZIP quasi-identifiers, disease sensitive."""
    frame = pd.read_csv(HERE / "table1a_original.csv")
    return Table(frame, {"ID": Role.IDENTIFIER, "Dis": Role.SENSITIVE}, name="table1")


@pytest.fixture(scope="session")
def adult2000() -> Table:
    frame = pd.read_csv(HERE / "adult_2000.csv")
    return Table(frame, {"occupation": Role.SENSITIVE, "relationship": Role.INSENSITIVE}, name="adult2000")
