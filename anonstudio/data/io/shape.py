"""How the first lines of a file split into fields: the sniffers' view of delimited text.

Sniffers use it to recognise a CSV/TSV even when its rows do not all have
the same number of fields, so that a broken CSV is handed to a CSV loader,
which then names the bad line, instead of being read as something else.
"""
from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Shape", "delimited_shape", "RAGGED_SCORE"]

#: Sniff confidence for a delimited file whose rows disagree on their number of
#: fields: enough to beat "looks like nothing", below any consistent file.
RAGGED_SCORE = 0.3

#: Share of lines that must contain the separator for the text to count as delimited.
_MIN_SHARE = 0.8


@dataclass(frozen=True)
class Shape:
    """Field counts of sample lines under one separator."""

    sep: str
    counts: tuple[int, ...]  # fields per row (quotes respected)
    rows: tuple[tuple[str, ...], ...]

    @property
    def first(self) -> int:
        """Fields on the first row: the loaders measure every row against it."""
        return self.counts[0]

    @property
    def ragged(self) -> bool:
        return any(c != self.counts[0] for c in self.counts)

    def share(self, n_fields: int) -> float:
        return sum(c == n_fields for c in self.counts) / len(self.counts)


def delimited_shape(lines: Sequence[str], candidates: Sequence[str] = (",", "\t", ";")) -> Shape | None:
    """The candidate separator most lines contain (at least 80 %), with the rows it gives.

    None when no candidate is on enough lines (the text is not delimited).
    Ties go to the earlier candidate.
    """
    sample = [ln for ln in lines if ln.strip()]
    if not sample:
        return None
    best = None
    for sep in candidates:
        hits = sum(sep in ln for ln in sample)
        if hits >= _MIN_SHARE * len(sample) and (best is None or hits > best[0]):
            best = (hits, sep)
    if best is None:
        return None
    sep = best[1]
    try:
        rows = tuple(tuple(r) for r in csv.reader(sample, delimiter=sep, skipinitialspace=True))
    except csv.Error:
        return None
    rows = tuple(r for r in rows if r)
    if not rows:
        return None
    return Shape(sep, tuple(len(r) for r in rows), rows)

