"""Original vs published, row by row: what a method family hands to the side-by-side view.

A family adapts its release to :class:`Comparison` (Qt-free, in its own
package, e.g. ``methods/group_anonymize/compare.py``); the studio's
``SideBySideView`` shows the two row sources next to each other, scrolls and
selects them together, highlights the selected row's group (all rows of an
equivalence class or cluster) and its chip keys (the partitions its items
fell into), and draws generalized cells as chips.
"""
from __future__ import annotations

from typing import Protocol

import numpy as np

from .rows import RowSource

__all__ = ["Comparison", "check_comparison"]


class Comparison(Protocol):
    """A release aligned row by row with the data it was made from.

    Attributes
    ----------
    title
        One line naming the release ("k-anonymous table by Mondrian, 3,208 groups").
    group_word
        What a group of rows is called: ``"group"``, ``"cluster"``, ``"partition"``.
    original, published
        The two row sources; row ``r`` of each is the same person.
    """

    title: str
    group_word: str
    original: RowSource
    published: RowSource

    def row_groups(self) -> np.ndarray | None:
        """The group of every row (int64, -1: none), or None when the release does not group rows."""

    def highlight_keys(self, row: int) -> tuple[int, ...]:
        """Chip keys to highlight, in both views, when ``row`` is selected (e.g. its partitions)."""

    def describe(self, row: int) -> str:
        """One plain line about ``row``'s group or partitions, shown under the views."""


def check_comparison(comparison: Comparison) -> None:
    """ValueError unless the two sides have the same rows and the groups one entry per row."""
    n = comparison.original.n_rows
    if comparison.published.n_rows != n:
        raise ValueError(f"the original has {n:,} rows but the release {comparison.published.n_rows:,}")
    groups = comparison.row_groups()
    if groups is not None and len(groups) != n:
        raise ValueError(f"{len(groups):,} group ids for {n:,} rows")
