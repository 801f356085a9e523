"""Slow, obvious reference of the ρ checker's util_mining recount: every subset of every record, counted.

Records are lists of item ids; each subset is the tuple of its items in ascending order, counted in a Python
``Counter`` (what the checker did before the recount became a kernel).
"""
from __future__ import annotations

import collections
import itertools


def all_subset_counts(records: list[list[int]]) -> dict[tuple[int, ...], int]:
    """Support of every non-empty itemset occurring in ``records`` (a subset of a record)."""
    counts: collections.Counter = collections.Counter()
    for record in records:
        items = sorted(record)
        for size in range(1, len(items) + 1):
            counts.update(itertools.combinations(items, size))
    return dict(counts)
