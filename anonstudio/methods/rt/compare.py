"""Original vs published rows of an RT release (a :class:`~anonstudio.data.compare.Comparison`), and its clusters.

The published side shows what ANON.csv holds, cell for cell: the cluster
number written there (from 1), each demographic's generalized cell
(``[19-22]``, ``{1|2}``, a hierarchy label or ``*``) and the person's
published items: a generalized item (a hierarchy label or a set such as
``{a|b}``) is a partition chip, an item published as it is an item chip, a
sensitive item (never generalized) a sensitive chip. Every generalized item
of a cluster has a chip key of its own, given to the original items it
stands for too, so selecting a person highlights which of the cluster's
original items each of their published items covers. Rows and clusters are
numbered from 1 wherever they are shown (the tables, ``#12`` in a search, the
texts), as in ANON.csv; the arrays keep Python's positions from 0.

:meth:`RTComparison.cluster` describes one cluster for an inspector: its
generalized tuple beside the values it stands for, and each published item
with the cluster's items under it and how many of its people have it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...data.rows import Cell, Chip, Match, TableRows, capped
from ...data.table import Role, Table, value_text
from .result import RTResult
from .spec import items_word

__all__ = ["RTComparison", "ClusterItem", "ClusterView", "comparison_of"]

CLUSTER_COLUMN = "cluster"
ROW_TIP = "Row number, counted from 1 as in the anonymized table's rows."


@dataclass(frozen=True)
class ClusterItem:
    """One published item of a cluster: its label, chip kind, the cluster's items under it, and who has it."""

    label: str
    kind: str
    items: tuple[str, ...]
    stands_for: int  # dataset items it stands for (|ũ|); 1 for an item published as it is
    people: int


@dataclass(frozen=True)
class ClusterView:
    """What an inspector shows of one cluster."""

    cluster: int
    rows: np.ndarray
    ncp: float
    ul: float  # the cluster's mean UL (NaN when nothing is published)
    cells: tuple[tuple[str, str, str], ...]  # (column, published cell, original values in the cluster)
    items: tuple[ClusterItem, ...]

    @property
    def size(self) -> int:
        return len(self.rows)

    @property
    def number(self) -> int:
        """The cluster's number as people read it (ANON.csv's cluster column): from 1."""
        return self.cluster + 1


class _NumberedFromOne(TableRows):
    """Table rows whose row column counts from 1; ``#12`` finds the twelfth row."""

    def __init__(self, table: Table, chips=None):
        super().__init__(table, chips)
        self.column_tips = (ROW_TIP, *self.column_tips[1:])

    def cells(self, row: int) -> tuple[Cell, ...]:
        # The number is set here rather than shifted, so the base class's own numbering does not matter.
        return (str(row + 1), *super().cells(row)[1:])

    def search(self, text: str) -> Match:
        text = text.strip()
        if text.startswith("#") and text[1:].strip().isdigit():
            number = int(text[1:])
            rows = np.array([number - 1] if 1 <= number <= self.n_rows else [], dtype=np.int64)
            return Match(rows, f"row {number}" if len(rows) else f"no row {number}")
        return super().search(text)


class _Maps:
    """One cluster's generalization of items: item -> head, head -> label, |ũ| and chip key."""

    def __init__(self, result: RTResult, c: int, key_base: int):
        t = result.tres[c]
        self.head_of = dict(zip(t.items.tolist(), t.head.tolist()))
        self.size = dict(zip(t.head.tolist(), t.size.tolist()))
        self.label = result.token_labels(c)
        self.key = {h: key_base + i for i, h in enumerate(sorted(set(t.head.tolist())))}


class _OriginalRows(_NumberedFromOne):
    """The people as they are: row, demographics, then their items as chips keyed by what publishes them."""

    def __init__(self, table: Table, comparison: RTComparison):
        super().__init__(table)
        self.comparison = comparison
        self.column_tips = (*self.column_tips[:-1], "The person's items; a highlighted chip is covered by the "
                                                    "selected person's published item of the same colour.")

    def cells(self, row: int) -> tuple[Cell, ...]:
        return (*super().cells(row)[:-1], self.comparison.original_items(row))


class _PublishedRows(_NumberedFromOne):
    """The release: row, cluster, generalized demographics (chips), published items (chips)."""

    def __init__(self, table: Table, chips, comparison: RTComparison):
        super().__init__(table, chips)
        self.comparison = comparison
        self.columns = (*self.columns, comparison.items_title)
        self.column_tips = (ROW_TIP,
                            "The person's cluster: the number in the cluster column of the anonymized table.",
                            *self.column_tips[2:],
                            "The person's published items: generalized items (green) stand for several items.")

    def cells(self, row: int) -> tuple[Cell, ...]:
        return (*super().cells(row), self.comparison.published_items(row))

    def sort_order(self, column: int, descending: bool = False) -> np.ndarray | None:
        return None if column == len(self.columns) - 1 else super().sort_order(column, descending)


class RTComparison:
    """A :class:`~anonstudio.data.compare.Comparison` of an RT result and the people it was made from.

    Raises ValueError for a result that publishes nothing (an infeasible bound).
    """

    group_word = "cluster"

    def __init__(self, result: RTResult, title: str = ""):
        if result.feasible is False or not result.tres:
            raise ValueError("nothing is published: the loss bound cannot be met")
        self.result = result
        problem = result.problem
        self.qi = list(result.params.qi)
        self.items_title = items_word(result.params)
        self._trans, self._vocab, self._sensitive = problem.transactions, problem.transactions.vocab, problem.sensitive
        heads = [len(np.unique(t.head)) for t in result.tres]
        self._key_base = np.concatenate([[0], np.cumsum(heads)]).astype(np.int64)
        self._maps: dict[int, _Maps] = {}
        frame = result.data.table.frame
        roles = {c: Role.QUASI_IDENTIFIER for c in self.qi} | {self.items_title: Role.SENSITIVE}
        texts = [";".join(self._vocab[i] for i in self._trans.record(u).tolist()) for u in range(problem.n)]
        original = frame[self.qi].reset_index(drop=True).assign(**{self.items_title: texts})
        self.original = _OriginalRows(Table(original, roles, result.data.table.name), self)
        cells = result.cells()
        groups = result.assignment
        published = {CLUSTER_COLUMN: groups.astype(np.int64) + 1}  # as ANON.csv numbers them
        chips = {}
        for j, column in enumerate(self.qi):
            column_texts = np.asarray([row[j] for row in cells], dtype=object)
            published[column] = column_texts[groups]
            values = set(frame[column].map(value_text).tolist())
            chips[column] = lambda text, values=values: Chip(
                text, "suppressed" if text == "*" else "value" if text in values else "general")
        self.published = _PublishedRows(Table(pd.DataFrame(published), roles, f"{result.data.table.name} (published)"),
                                        chips, self)
        sizes = result.cluster_sizes
        self.title = title or (f"(k, k^m)-anonymous release: {problem.n:,} people in {len(sizes):,} clusters of "
                               f"{int(sizes.min()):,}–{int(sizes.max()):,}")
        self._members = result.cluster_rows()

    # ---------------------------------------------------------- protocol
    def row_groups(self) -> np.ndarray:
        return self.result.assignment.astype(np.int64)

    def highlight_keys(self, row: int) -> tuple[int, ...]:
        return tuple(chip.key for chip in self.published_items(row) if chip.key >= 0)

    def describe(self, row: int) -> str:
        c = int(self.result.assignment[row])
        size = len(self._members[c])
        cells = ", ".join(f"{q} {v}" for q, v in zip(self.qi, self.result.cells()[c]) if v != "*")
        items = self.published_items(row)
        shown = ", ".join(chip.text for chip in items[:6]) + (" …" if len(items) > 6 else "")
        hidden = [q for q, v in zip(self.qi, self.result.cells()[c]) if v == "*"]
        others = "1 other person" if size == 2 else f"{size - 1:,} other people"
        return (f"Row {row + 1} is published in cluster {c + 1} with {others}: "
                + (cells or "no demographic kept") + (f" ({', '.join(hidden)} hidden)" if hidden else "")
                + f"; {self.items_title}: {shown or 'none'}.")

    # -------------------------------------------------------------- items
    def _cluster_maps(self, c: int) -> _Maps:
        maps = self._maps.get(c)
        if maps is None:
            maps = self._maps[c] = _Maps(self.result, c, int(self._key_base[c]))
        return maps

    def original_items(self, row: int) -> tuple[Chip, ...]:
        maps = self._cluster_maps(int(self.result.assignment[row]))
        chips = []
        for item in self._trans.record(row).tolist():
            if self._sensitive[item]:
                chips.append(Chip(self._vocab[item], "sensitive"))
            else:
                chips.append(Chip(self._vocab[item], "item", maps.key[maps.head_of[item]]))
        return capped(chips)

    def published_items(self, row: int) -> tuple[Chip, ...]:
        """The person's published items, in item order (as ANON.csv lists them)."""
        maps = self._cluster_maps(int(self.result.assignment[row]))
        tokens: dict[int, Chip] = {}
        for item in self._trans.record(row).tolist():
            if self._sensitive[item]:
                tokens[item] = Chip(self._vocab[item], "sensitive")
                continue
            head = maps.head_of[item]
            if head not in tokens:
                label = maps.label[head]
                plain = maps.size.get(head, 1.0) <= 1.0 and label == self._vocab[item]
                tokens[head] = Chip(label, "item" if plain else "partition", maps.key[head])
        return capped([tokens[k] for k in sorted(tokens)])

    # ------------------------------------------------------------ cluster
    def cluster(self, c: int) -> ClusterView:
        """One cluster for an inspector (see the module docstring)."""
        result = self.result
        rows = self._members[c]
        frame = result.data.table.frame
        cells = []
        for j, q in enumerate(self.qi):
            # Sorted as the column's own values (numbers numerically), written as the release writes them.
            distinct = [value_text(v) for v in sorted(set(frame[q].to_numpy()[rows].tolist()))]
            shown = ", ".join(distinct[:8]) + (f" … ({len(distinct):,} values)" if len(distinct) > 8 else "")
            cells.append((q, result.cells()[c][j], shown))
        maps = self._cluster_maps(c)
        people: dict[int, set[int]] = {}
        under: dict[int, set[int]] = {}
        sensitive: dict[int, int] = {}
        for u in rows.tolist():
            for item in self._trans.record(u).tolist():
                if self._sensitive[item]:
                    sensitive[item] = sensitive.get(item, 0) + 1
                    continue
                head = maps.head_of[item]
                people.setdefault(head, set()).add(u)
                under.setdefault(head, set()).add(item)
        items = []
        for head in sorted(under, key=lambda h: (-len(people[h]), maps.label[h])):
            names = tuple(self._vocab[i] for i in sorted(under[head]))
            stands = max(int(round(maps.size.get(head, 1.0))), 1)
            plain = stands == 1 and names == (maps.label[head],)
            items.append(ClusterItem(maps.label[head], "item" if plain else "partition", names, stands,
                                     len(people[head])))
        for item, count in sorted(sensitive.items(), key=lambda kv: (-kv[1], self._vocab[kv[0]])):
            items.append(ClusterItem(self._vocab[item], "sensitive", (self._vocab[item],), 1, count))
        ul = result.tres[c].ul_sum / max(len(rows), 1)
        return ClusterView(c, rows, float(result.cluster_ncp[c]), float(ul), tuple(cells), tuple(items))


def comparison_of(result: RTResult) -> RTComparison:
    """The comparison of an RT result (a run's ``result``); ValueError when it publishes nothing."""
    return RTComparison(result)
