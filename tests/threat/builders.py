"""Small releases built by hand for the threat-analysis tests."""
from __future__ import annotations

import numpy as np
import pandas as pd

from anonstudio.methods.group_anonymize.release import GroupRelease

DISEASES = ["Heart", "Flu", "Stomach", "HIV", "Diabetes"]
NATIONS = ["Malaysia", "Japan", "China", "India"]
# Example 1 reads "4550*" as the ten codes 45500..45509 (and "5550*" alike):
# that is what makes the paper's count of 6.4e5 compatible tables come out.
ZIPS = [45500 + i for i in range(10)] + [55500 + i for i in range(10)] + [66601, 77701]


def example1_frame() -> pd.DataFrame:
    """Table I(a) of the paper."""
    return pd.DataFrame({
        "nationality": ["Malaysia", "Japan", "Japan", "Japan", "China", "Japan", "India", "Malaysia"],
        "zip": [45501, 45502, 55503, 55504, 66601, 66601, 77701, 77701],
        "disease": ["Heart", "Flu", "Flu", "Stomach", "HIV", "Diabetes", "Flu", "Heart"],
    })


def _cells(groups_values: list[set], domain: list) -> np.ndarray:
    return np.array([[v in vals for v in domain] for vals in groups_values])


def example1_release() -> GroupRelease:
    """Table I(b): 2-anonymous, 2-diverse by local recoding."""
    nat = _cells([{"Malaysia", "Japan"}, {"Japan"}, {"China", "Japan"}, {"India", "Malaysia"}], NATIONS)
    zips = _cells([set(range(45500, 45510)), set(range(55500, 55510)), {66601}, {77701}], ZIPS)
    return GroupRelease("horizontal", ["nationality", "zip"], "disease",
                        {"nationality": NATIONS, "zip": ZIPS, "disease": DISEASES},
                        np.array([0, 0, 1, 1, 2, 2, 3, 3]), {"nationality": nat, "zip": zips})


def coded_release(scheme: str, s: list[int], r: list[list[int]], groups: list[int], sizes: list[int],
                  n_s: int, cells: list[list[set]] | None = None) -> tuple[pd.DataFrame, GroupRelease]:
    """A release over integer codes: columns ``a0, a1, ...`` and ``s``; ``cells[g][a]`` for horizontal."""
    columns = [f"a{a}" for a in range(len(sizes))]
    frame = pd.DataFrame({c: [row[a] for row in r] for a, c in enumerate(columns)})
    frame["s"] = s
    domains = {c: list(range(k)) for c, k in zip(columns, sizes)}
    domains["s"] = list(range(n_s))
    cell_arrays = {}
    if cells is not None:
        for a, c in enumerate(columns):
            cell_arrays[c] = np.array([[v in cells[g][a] for v in range(sizes[a])] for g in range(len(cells))])
    return frame, GroupRelease(scheme, columns, "s", domains, np.asarray(groups), cell_arrays)
