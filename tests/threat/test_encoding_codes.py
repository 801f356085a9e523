"""Encoding a column by its distinct values gives the codes and the errors of the cell-by-cell lookup."""
from __future__ import annotations

from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

from anonstudio.methods.threat import model

CASES = [
    (pd.Series(["a", "b", "a"]), ["a", "b"]),
    (pd.Series(["a", "b", "a", None]), ["a", "b"]),
    (pd.Series(["a", "c"]), ["a", "b"]),
    (pd.Series([1, 2, 3, 1]), [1, 2, 3]),
    (pd.Series([1.0, 2.0, np.nan]), [1, 2]),
    (pd.Series([39.0, 2.5]), [39, 2.5]),
    (pd.Series([True, 1, 0, False], dtype=object), [True, False, 1, 0]),  # equal values with two texts
    (pd.Series([Decimal("1.0"), 1], dtype=object), ["1.0", "1"]),
    (pd.Series(["x", "y"], dtype="string"), ["x", "y"]),
    (pd.Series(["x", pd.NA], dtype="string"), ["x"]),
    (pd.Series(pd.Categorical(["a", "b", "a"])), ["a", "b"]),
]


def _outcome(fn):
    try:
        return "codes", fn().tolist()
    except ValueError as exc:
        return "error", str(exc)


@pytest.mark.parametrize("series, domain", CASES)
def test_codes_equal_the_cell_by_cell_lookup(series, domain):
    index = {model.text_of(v): i for i, v in enumerate(domain)}
    fast = _outcome(lambda: model._codes(series, domain, "c"))
    slow = _outcome(lambda: model._codes_by_cell(series, index, "c"))
    assert fast == slow
