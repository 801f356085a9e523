"""Fixtures for group anonymization tests: the paper's Table I and an Adult slice."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonstudio.data.table import Role, Table

HERE = Path(__file__).resolve().parent.parent / "data" / "group_anon"


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


ADULT_QI = "age,workclass,education,marital-status,race,sex,native-country,salary"


def random_table(seed: int, n: int | None = None) -> Table:
    """Small random table: two integer and two categorical quasi-identifiers, one sensitive column."""
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(20, 90))
    frame = pd.DataFrame({
        "age": rng.integers(18, 18 + int(rng.integers(5, 40)), n),
        "zip": rng.integers(100, 100 + int(rng.integers(2, 12)), n),
        "sex": rng.choice(["F", "M"], n),
        "job": rng.choice(["a", "b", "c", "d", "e"][: int(rng.integers(2, 6))], n),
        "disease": rng.choice([f"s{i}" for i in range(int(rng.integers(4, 8)))], n),
    })
    return Table(frame, {"disease": Role.SENSITIVE}, name=f"random{seed}")
