"""An RT result row by row, original beside published, for the tables and the cluster inspector (Qt-free).

Cells are lists of *chips* ``(text, kind)``: a demographic value or one item
each. Kinds: ``value`` (a value published as it is), ``generalized`` (a range,
a group or a set standing for several values), ``item`` (an item published as
it is), ``group`` (a generalized item standing for several items),
``sensitive`` (a sensitive item, never generalized). Everything is computed
per row on demand (and per cluster once), so a table of 30,000 people opens
at once.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....methods.rt.prepare import value_text
from ....methods.rt.result import RTResult
from ....methods.rt.spec import items_word

__all__ = ["Chip", "RTRows", "ClusterItem", "ClusterView"]

Chip = tuple[str, str]


@dataclass(frozen=True)
class ClusterItem:
    """One published item of a cluster: its label, kind, the cluster's items it stands for, and who has it."""

    label: str
    kind: str
    items: tuple[str, ...]
    stands_for: int  # dataset items under it (|ũ|); 1 for an item published as it is
    people: int


@dataclass(frozen=True)
class ClusterView:
    """What the inspector shows of one cluster."""

    cluster: int
    size: int
    rows: np.ndarray
    ncp: float
    ul: float
    cells: tuple[tuple[str, str, str], ...]  # (column, published cell, original values in the cluster)
    items: tuple[ClusterItem, ...]


class RTRows:
    """Rows of an RT result (``published=False`` when nothing may be published: infeasible runs)."""

    def __init__(self, result: RTResult):
        self.result = result
        problem = result.problem
        self.frame = result.data.table.frame
        self.qi = list(result.params.qi)
        self.items_title = items_word(result.params)
        self.original_columns = ["row", *self.qi, self.items_title]
        self.published_columns = ["cluster", *self.qi, self.items_title]
        self.n = problem.n
        self.assignment = result.assignment
        self.sizes = result.cluster_sizes
        self.published = bool(result.tres) and result.feasible is not False
        self.cells = result.cells() if len(self.sizes) else []
        self._members = result.cluster_rows()
        self._vocab = problem.transactions.vocab
        self._sensitive = problem.sensitive
        self._trans = problem.transactions
        self._originals = [self.frame[c].map(value_text).to_numpy(dtype=object) for c in self.qi]
        self._cluster_items: dict[int, tuple[dict[int, int], dict[int, str], dict[int, float]]] = {}

    # ------------------------------------------------------------ per row
    def cluster_of(self, row: int) -> int:
        return int(self.assignment[row])

    def members(self, cluster: int) -> np.ndarray:
        return self._members[cluster]

    def original_cells(self, row: int) -> list[list[Chip]]:
        """One chip list per column of :attr:`original_columns`: row number (from 1), values, items."""
        out: list[list[Chip]] = [[(f"{row + 1:,}", "value")]]
        out += [[(str(col[row]), "value")] for col in self._originals]
        out.append([(self._vocab[i], "sensitive" if self._sensitive[i] else "item")
                    for i in self._trans.record(row).tolist()])
        return out

    def published_cells(self, row: int) -> list[list[Chip]]:
        """One chip list per column of :attr:`published_columns` (empty when nothing is published)."""
        if not self.published:
            return [[] for _ in self.published_columns]
        c = self.cluster_of(row)
        out: list[list[Chip]] = [[(f"{c + 1:,}", "value")]]
        for j, col in enumerate(self._originals):
            cell = self.cells[c][j]
            out.append([(cell, "value" if cell == col[row] else "generalized")])
        out.append(self._published_items(row, c))
        return out

    def _cluster_maps(self, c: int) -> tuple[dict[int, int], dict[int, str], dict[int, float]]:
        """Item -> head, head -> label, head -> |ũ| of cluster ``c`` (cached)."""
        maps = self._cluster_items.get(c)
        if maps is None:
            t = self.result.tres[c]
            head_of = dict(zip(t.items.tolist(), t.head.tolist()))
            sizes = dict(zip(t.head.tolist(), t.size.tolist()))
            maps = (head_of, self.result.token_labels(c), sizes)
            self._cluster_items[c] = maps
        return maps

    def _published_items(self, row: int, c: int) -> list[Chip]:
        head_of, labels, sizes = self._cluster_maps(c)
        tokens: dict[int, Chip] = {}
        for item in self._trans.record(row).tolist():
            if self._sensitive[item]:
                tokens[item] = (self._vocab[item], "sensitive")
            else:
                head = head_of[item]
                label = labels[head]
                plain = sizes.get(head, 1.0) <= 1.0 and label == self._vocab[item]
                tokens[head] = (label, "item" if plain else "group")
        return [tokens[key] for key in sorted(tokens)]

    def describe(self, row: int) -> str:
        """One line about the row's cluster."""
        c = self.cluster_of(row)
        size = int(self.sizes[c])
        if not self.published:
            return (f"Row {row + 1:,} would be in cluster {c + 1:,} of Cluster's {len(self.sizes):,} clusters, with "
                    f"{size - 1:,} others; nothing may be published.")
        cells = ", ".join(f"{q} {v}" for q, v in zip(self.qi, self.cells[c]))
        return (f"Row {row + 1:,} is published in cluster {c + 1:,} with {size - 1:,} other people: {cells}; "
                f"{self.items_title} generalized within the cluster.")

    # -------------------------------------------------------------- order
    def order(self, by_cluster: bool, only_cluster: int | None = None) -> np.ndarray:
        """Rows to list: input order, or cluster after cluster; or only one cluster's rows."""
        if only_cluster is not None:
            return self.members(only_cluster)
        if by_cluster:
            return np.argsort(self.assignment, kind="stable")
        return np.arange(self.n)

    # ------------------------------------------------------------ cluster
    def cluster(self, c: int) -> ClusterView:
        """The inspector's view of cluster ``c``."""
        rows = self.members(c)
        size = len(rows)
        cells = []
        for j, q in enumerate(self.qi):
            # Sorted as the column's own values (numbers numerically), then written as the release writes them.
            distinct = [value_text(v) for v in sorted(set(self.frame[q].to_numpy()[rows].tolist()))]
            shown = ", ".join(distinct[:8]) + (f" … ({len(distinct):,} values)" if len(distinct) > 8 else "")
            cells.append((q, self.cells[c][j] if self.cells else "", shown))
        items: list[ClusterItem] = []
        ul = float("nan")
        if self.published:
            head_of, labels, sizes = self._cluster_maps(c)
            people: dict[int, set[int]] = {}
            members: dict[int, list[int]] = {}
            sensitive: dict[int, int] = {}
            for u in rows.tolist():
                for item in self._trans.record(u).tolist():
                    if self._sensitive[item]:
                        sensitive[item] = sensitive.get(item, 0) + 1
                        continue
                    head = head_of[item]
                    people.setdefault(head, set()).add(u)
                    group = members.setdefault(head, [])
                    if item not in group:
                        group.append(item)
            for head in sorted(members, key=lambda h: (-len(people[h]), labels[h])):
                label = labels[head]
                names = tuple(self._vocab[i] for i in sorted(members[head]))
                stands = int(round(sizes.get(head, 1.0)))
                plain = stands <= 1 and names == (label,)
                items.append(ClusterItem(label, "item" if plain else "group", names, max(stands, 1),
                                         len(people[head])))
            for item, count in sorted(sensitive.items(), key=lambda kv: (-kv[1], self._vocab[kv[0]])):
                items.append(ClusterItem(self._vocab[item], "sensitive", (self._vocab[item],), 1, count))
            ul = self.result.tres[c].ul_sum / max(size, 1)
        return ClusterView(c, size, rows, float(self.result.cluster_ncp[c]), ul, tuple(cells), tuple(items))

