"""Shared helpers for the group anonymization tests."""
from __future__ import annotations

import numpy as np
import pandas as pd

from anonstudio.data.table import Role, Table

ADULT_QI = ("age", "workclass", "education", "marital-status", "race", "sex", "native-country", "salary")


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
