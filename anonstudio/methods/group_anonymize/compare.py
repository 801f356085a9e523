"""Original vs published rows of a group-anonymized table (a :class:`~anonstudio.data.compare.Comparison`).

The published side shows what the published CSV holds, cell for cell: the
group number written as ``gid`` (1..G), each quasi-identifier's generalized
cell (``[20-29]``, ``{a|b}``, ``*``) as a chip for horizontal schemes, and
the group's sensitive multiset for Anatomy.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...data.rows import Chip, TableRows, cell_chip
from ...data.table import Role, Table, value_text

# The published CSV's own cell texts, so that the view and the file say the same.
from .published_csv import group_multisets, horizontal_cell_texts
from .release import GroupRelease

__all__ = ["GroupComparison", "comparison_of"]

GROUP_COLUMN = "group"


def _cell_chips(release: GroupRelease, column: str, texts: list[str]) -> dict[str, Chip]:
    """Text -> chip of every published cell of ``column``; the kind comes from how many values the cell holds."""
    held = release.cells[column].sum(axis=1)
    size = len(release.domains[column])
    kinds = {}
    for text, n in zip(texts, held.tolist()):
        kinds[text] = Chip(text, "value" if n == 1 else "suppressed" if n == size else "general")
    return kinds


class GroupComparison:
    """A :class:`~anonstudio.data.compare.Comparison` of a :class:`GroupRelease` and its cleartext table.

    Parameters
    ----------
    table
        The cleartext rows the release is aligned with (``GroupAnonymizeResult.table``:
        rows with a missing value already dropped).
    release
        The release.
    title
        One line naming the release (default: its scheme and group count).
    """

    group_word = "group"

    def __init__(self, table: Table, release: GroupRelease, title: str = ""):
        if release.n_rows != table.n_rows:
            raise ValueError(f"the release has {release.n_rows:,} rows but the table has {table.n_rows:,}")
        self.release = release
        self.table = table
        columns = [*release.qi, release.sensitive]
        roles = {c: Role.QUASI_IDENTIFIER for c in release.qi} | {release.sensitive: Role.SENSITIVE}
        frame = table.frame[columns].reset_index(drop=True)
        self.original = TableRows(Table(frame, roles, table.name))
        published = {GROUP_COLUMN: release.row_group + 1}
        chips = {}
        groups = release.row_group
        if release.scheme == "horizontal":
            for c in release.qi:
                texts = horizontal_cell_texts(release, c)
                published[c] = np.asarray(texts, dtype=object)[groups]
                lookup = _cell_chips(release, c, texts)
                chips[c] = lambda text, lookup=lookup: lookup.get(text) or cell_chip(text)
            published[release.sensitive] = frame[release.sensitive].to_numpy()
        else:
            for c in release.qi:
                published[c] = frame[c].to_numpy()
            published[release.sensitive] = np.asarray(group_multisets(release, table), dtype=object)[groups]
            chips[release.sensitive] = lambda text: Chip(text, "general")
        self.published = TableRows(Table(pd.DataFrame(published), roles, f"{table.name} (published)"), chips)
        self.published.column_tips = (
            "Row number, counted from 1 as in the workbenches and the published file.",
            "The row's group: the number written to the published file's group column (gid).",
            *self.published.column_tips[2:])
        sizes = release.group_sizes()
        self.title = title or (f"{'Generalized' if release.scheme == 'horizontal' else 'Anatomy'} release: "
                               f"{release.n_rows:,} rows in {release.n_groups:,} groups of "
                               f"{int(sizes.min()) if len(sizes) else 0}–{int(sizes.max()) if len(sizes) else 0}")
        self._sizes = sizes

    def row_groups(self) -> np.ndarray:
        return self.release.row_group

    def highlight_keys(self, row: int) -> tuple[int, ...]:
        return ()

    def describe(self, row: int) -> str:
        release = self.release
        g = int(release.row_group[row])
        members = release.group_rows(g)
        sensitive = self.table.frame[release.sensitive].iloc[members]
        distinct = int(sensitive.nunique(dropna=True))
        head = (f"Row {row + 1} is in group {g + 1} of {release.n_groups:,}: {len(members):,} rows with "
                f"{distinct} distinct {release.sensitive} value{'s' if distinct != 1 else ''}")
        if release.scheme == "horizontal":
            cells = ", ".join(f"{c} {self.published.cells(row)[2 + j][0].text}" for j, c in enumerate(release.qi))
            return f"{head}. Published for all of them: {cells}."
        own = value_text(self.table.frame[release.sensitive].iloc[row])
        return (f"{head}. Its quasi-identifiers are published exactly; its {release.sensitive} ({own}) only as "
                "one of the group's bag of values.")


def comparison_of(result) -> GroupComparison:
    """The comparison of a :class:`~anonstudio.methods.group_anonymize.result.GroupAnonymizeResult` (a run's
    ``result``; for a threat analysis its ``release``)."""
    if result.release is None:
        raise ValueError("the run has no release to compare")
    return GroupComparison(result.table, result.release, result.text)
