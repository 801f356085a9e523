"""The typed form of a group-anonymized table, shared by anonymizers, importers,
verifiers and the Bayesian threat analysis.

Horizontal schemes (k-anonymity, l-diversity by generalization) publish, for
every group, one generalized cell per quasi-identifier: a set of domain values
that each row of the group may have. Vertical schemes (Anatomy) publish each
group's quasi-identifier tuples exactly and its sensitive values as a separate
multiset, with the link between the two removed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from .domains import encode_column

__all__ = ["GroupRelease", "canonical_group_ids", "member_cells"]


@dataclass(eq=False)
class GroupRelease:
    """A group-anonymized release aligned with its cleartext table.

    Parameters
    ----------
    scheme
        ``"horizontal"`` (generalized cells) or ``"vertical"`` (Anatomy).
    qi
        Quasi-identifier column names, in order.
    sensitive
        The sensitive column name.
    domains
        Column -> ordered list of its domain values (for every qi column and the
        sensitive column). Value codes used below index these lists.
    row_group
        int64, one group id in ``0..n_groups-1`` per cleartext row.
    cells
        Column -> bool array ``(n_groups, len(domain))``; entry ``[g, v]`` is
        True when value ``v`` is inside group ``g``'s published cell. Required
        for horizontal releases. Vertical releases built by anonstudio fill it
        with the values present in each group (the support of the published
        multiset), which is what a reader of the anonymized table can see.
    labels
        Optional column -> list of the published cell text per group (e.g.
        ``"[20-29]"``, ``"4550*"``), for display and export.
    """

    scheme: Literal["horizontal", "vertical"]
    qi: list[str]
    sensitive: str
    domains: dict[str, list]
    row_group: np.ndarray
    cells: dict[str, np.ndarray] = field(default_factory=dict)
    labels: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.row_group = np.ascontiguousarray(self.row_group, dtype=np.int64)
        if self.scheme not in ("horizontal", "vertical"):
            raise ValueError(f"unknown scheme {self.scheme!r}")
        if self.scheme == "horizontal":
            missing = [c for c in self.qi if c not in self.cells]
            if missing:
                raise ValueError(f"horizontal release lacks cells for {missing}")
        for c, cell in self.cells.items():
            shape = (self.n_groups, len(self.domains[c]))
            if cell.shape != shape:
                raise ValueError(f"cells[{c!r}] has shape {cell.shape}, expected {shape}")

    @property
    def n_groups(self) -> int:
        return int(self.row_group.max()) + 1 if len(self.row_group) else 0

    @property
    def n_rows(self) -> int:
        return len(self.row_group)

    def group_rows(self, g: int) -> np.ndarray:
        """Row indices (cleartext order) of group ``g``."""
        return np.flatnonzero(self.row_group == g)

    def group_sizes(self) -> np.ndarray:
        return np.bincount(self.row_group, minlength=self.n_groups)

    def cell_values(self, column: str, g: int) -> list:
        """Domain values inside group ``g``'s cell of ``column``."""
        domain = self.domains[column]
        return [domain[v] for v in np.flatnonzero(self.cells[column][g])]

    def codes(self, table, column: str) -> np.ndarray:
        """int64 domain code of ``column`` for every cleartext row of ``table``.

        Values are matched by their text form (39 == 39.0 == "39").

        Raises
        ------
        ValueError
            A value is missing or not in the release's domain (names the row).
        """
        codes = encode_column(table.frame[column], self.domains[column])
        bad = np.flatnonzero(codes < 0)
        if len(bad):
            r = int(bad[0])
            raise ValueError(f"row {r + 1}: {column} = {table.frame[column].iloc[r]!r} is missing or "
                             "not in the release's domain")
        return codes

    def label(self, column: str, g: int) -> str | None:
        """The published text of a cell, when the producer recorded one."""
        texts = self.labels.get(column)
        return texts[g] if texts is not None else None

    def same_as(self, other: GroupRelease) -> bool:
        """Same scheme, columns, domains, grouping and cells (labels ignored)."""
        return (
            self.scheme == other.scheme
            and list(self.qi) == list(other.qi)
            and self.sensitive == other.sensitive
            and {c: list(d) for c, d in self.domains.items()} == {c: list(d) for c, d in other.domains.items()}
            and np.array_equal(self.row_group, other.row_group)
            and set(self.cells) == set(other.cells)
            and all(np.array_equal(self.cells[c], other.cells[c]) for c in self.cells)
        )


def canonical_group_ids(row_group: np.ndarray) -> np.ndarray:
    """Renumber groups ``0..G-1`` in order of their first row.

    Anonymizers and the CSV importer both number groups this way, so an export
    followed by an import reproduces ``row_group`` exactly.
    """
    row_group = np.asarray(row_group, dtype=np.int64)
    if row_group.size == 0:
        return row_group.copy()
    ids, first = np.unique(row_group, return_index=True)
    old_ids = ids[np.argsort(first, kind="stable")]  # old ids sorted by first appearance
    remap = np.empty(int(old_ids.max()) + 1, dtype=np.int64)
    remap[old_ids] = np.arange(len(old_ids))
    return remap[row_group]


def member_cells(row_group: np.ndarray, codes: np.ndarray, n_groups: int, domain_size: int, *,
                 fill_range: bool = False) -> np.ndarray:
    """``(n_groups, domain_size)`` cells holding the values present in each group.

    With ``fill_range`` the cell also holds every code between the group's
    smallest and largest code: the published range ``[min-max]`` of an ordered
    (numeric) column covers values no member has.
    """
    cells = np.zeros((n_groups, domain_size), dtype=bool)
    cells[row_group, codes] = True
    if fill_range and n_groups:
        lo = np.full(n_groups, domain_size, dtype=np.int64)
        hi = np.full(n_groups, -1, dtype=np.int64)
        np.minimum.at(lo, row_group, codes)
        np.maximum.at(hi, row_group, codes)
        span = np.arange(domain_size)
        cells = (span[None, :] >= lo[:, None]) & (span[None, :] <= hi[:, None])
    return cells
