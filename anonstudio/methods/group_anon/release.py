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

__all__ = ["GroupRelease"]


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
        Horizontal only: column -> bool array ``(n_groups, len(domain))``; entry
        ``[g, v]`` is True when value ``v`` is inside group ``g``'s published cell.
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
            for c in self.qi:
                shape = (self.n_groups, len(self.domains[c]))
                if self.cells[c].shape != shape:
                    raise ValueError(f"cells[{c!r}] has shape {self.cells[c].shape}, expected {shape}")

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
