"""Mondrian multidimensional local recoding (LeFevre, DeWitt, Ramakrishnan, ICDE 2006).

Start with the whole table as one partition. Repeatedly cut a partition at the
median of its widest quasi-identifier (width normalized by the attribute's
whole-table spread), into the rows ``<= median`` and ``> median`` (strict
Mondrian: equal values stay together, so published ranges never overlap
within an attribute's cut). A cut is *allowable* only when both halves keep at
least k rows and, if l is given, at least l distinct sensitive values; when
the widest attribute has no allowable cut the next widest is tried, and a
partition without any allowable cut becomes a published group.

Numeric attributes are published as the range ``[min-max]`` of the group
(covering every domain value in between); categorical attributes as the set
of values present in the group, cut at the median of their lexicographic
order, or, when a hierarchy is given for the column, of the hierarchy's
depth-first leaf order, so that cuts tend to keep siblings (e.g. countries of
one region) together.

Every intermediate state of the recursion is itself a valid release (each
partition satisfies k and l), so a cancelled run returns the partitions so far.
"""
from __future__ import annotations

import time

import numpy as np

from ...data.hierarchy import Hierarchy
from ...data.table import Table, value_text
from ...jobs import Progress
from .cells import cell_text
from .domains import EncodedTable
from .release import GroupRelease, canonical_group_ids, member_cells

__all__ = ["mondrian", "horizontal_release_from_groups"]


def _spans(enc: EncodedTable) -> list[tuple[np.ndarray | None, float]]:
    """Per attribute: domain values as floats (numeric) and the normaliser of its width."""
    out = []
    for j, c in enumerate(enc.qi):
        domain = enc.domains[c]
        if enc.numeric[j]:
            values = np.asarray(domain, dtype=float)
            out.append((values, max(float(values[-1] - values[0]), 1e-12)))
        else:
            out.append((None, float(max(len(domain) - 1, 1))))
    return out


def _split_keys(enc: EncodedTable, hierarchies) -> np.ndarray:
    """``(n_rows, len(qi))`` int64 keys whose order the median cuts follow.

    Domain codes (numeric or lexicographic order), except for categorical
    columns with a hierarchy: the value's position among the hierarchy's
    leaves in depth-first order. Values the hierarchy lacks go last.
    """
    keys = enc.codes.copy()
    for j, c in enumerate(enc.qi):
        tree = hierarchies.get(c)
        if tree is None or enc.numeric[j]:
            continue
        position = {label: i for i, label in enumerate(tree.leaf_labels)}
        domain = enc.domains[c]
        rank = np.asarray([position.get(value_text(v), len(position) + i) for i, v in enumerate(domain)])
        keys[:, j] = np.argsort(np.argsort(rank, kind="stable"), kind="stable")[enc.codes[:, j]]
    return keys


class _Counted:
    """Which columns' keys are counted with one bincount per partition: those of at most ``limit`` distinct
    keys (a wider column, such as a weight with thousands of values, would make every small partition walk
    its whole domain). ``slot[j]`` is column j's place among them (-1: sorted instead)."""

    def __init__(self, keys: np.ndarray, limit: int = 4096):
        sizes = keys.max(axis=0) + 1 if keys.size else np.zeros(keys.shape[1], np.int64)
        narrow = (sizes <= limit) & ((keys.min(axis=0) >= 0) if keys.size else True)
        self.columns = np.flatnonzero(narrow)
        self.sizes = sizes[self.columns].astype(np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(np.int64)
        self.total = int(self.sizes.sum())
        self.slot = np.full(keys.shape[1], -1, dtype=np.int64)
        self.slot[self.columns] = np.arange(len(self.columns))
        self.starts = [int(self.offsets[i]) if i >= 0 else -1 for i in self.slot.tolist()]
        self.ends = [int(self.offsets[i] + self.sizes[i]) if i >= 0 else -1 for i in self.slot.tolist()]
        # Each row's keys of the counted columns moved into one range of bins, once for the whole table.
        self.shifted = np.ascontiguousarray(keys[:, self.columns] + self.offsets)


def _cut(rows: np.ndarray, enc: EncodedTable, keys: np.ndarray, spans, k: int, l: int | None,
         counted: _Counted):
    """The two halves of the best allowable median cut of ``rows``, or None."""
    n = len(rows)
    if n < 2 * k:
        return None
    # The distinct keys and their counts of every narrow column from one bincount over the partition (a sort
    # per column and partition was most of Mondrian's time on Adult); wide columns still sort.
    tally = np.bincount(counted.shifted[rows].ravel(), minlength=counted.total) if counted.columns.size else None
    per_attr = []
    for j, (values, norm) in enumerate(spans):
        if counted.starts[j] >= 0:
            column = tally[counted.starts[j]:counted.ends[j]]
            uniq = column.nonzero()[0]
            counts = column[uniq]
        else:
            uniq, counts = np.unique(keys[rows, j], return_counts=True)
        if len(uniq) < 2:
            continue
        width = (values[uniq[-1]] - values[uniq[0]]) if values is not None else (len(uniq) - 1)
        per_attr.append((-width / norm, j, uniq, counts))
    per_attr.sort(key=lambda t: (t[0], t[1]))  # widest first; ties by column order
    for _, j, uniq, counts in per_attr:
        below = np.cumsum(counts)[:-1]  # rows <= uniq[i], for every cut keeping both sides non-empty
        i = int(np.argmin(np.abs(below - n / 2.0)))
        n_left = int(below[i])
        if n_left < k or n - n_left < k:
            continue
        left = keys[rows, j] <= uniq[i]
        if l is not None:
            s = enc.s_codes[rows]
            if len(np.unique(s[left])) < l or len(np.unique(s[~left])) < l:
                continue
        return rows[left], rows[~left]
    return None


def horizontal_release_from_groups(enc: EncodedTable, row_group: np.ndarray) -> GroupRelease:
    """Horizontal release whose cells are the tightest cells covering each group.

    Numeric attributes get the range between the group's smallest and largest
    value, categorical ones the set of values present.
    """
    row_group = canonical_group_ids(row_group)
    n_groups = int(row_group.max()) + 1
    cells, labels = {}, {}
    for j, c in enumerate(enc.qi):
        domain = enc.domains[c]
        cells[c] = member_cells(row_group, enc.codes[:, j], n_groups, len(domain), fill_range=enc.numeric[j])
        # Groups share cells (one sex, one race...): each distinct cell is worded once.
        worded: dict[bytes, str] = {}
        labels[c] = []
        for g in range(n_groups):
            key = cells[c][g].tobytes()
            if key not in worded:
                worded[key] = cell_text(domain, cells[c][g], enc.numeric[j])
            labels[c].append(worded[key])
    return GroupRelease("horizontal", list(enc.qi), enc.sensitive, enc.domains, row_group, cells, labels)


def mondrian(table: Table, params, progress: Progress, *, hierarchies: dict[str, Hierarchy] | None = None
             ) -> tuple[GroupRelease, bool, dict]:
    """Mondrian k-anonymity (with distinct l-diversity when ``params.l`` is set).

    ``hierarchies`` (column -> Hierarchy) only order categorical values for cutting.

    Returns
    -------
    release, complete, info
        ``complete`` is False after a cancel; the release is then coarser but valid.
    """
    enc = EncodedTable(table, params.qi, params.sensitive)
    k, l = int(params.k), params.l
    enc.check_feasible(k, l)
    spans = _spans(enc)
    keys = _split_keys(enc, hierarchies or {})
    counted = _Counted(keys)
    n = enc.n_rows
    pending = [np.arange(n, dtype=np.int64)]
    final: list[np.ndarray] = []
    rows_done = 0
    cuts = 0
    complete = True
    last = time.perf_counter()
    while pending:
        # Checked every cut (cheap) so a cancel is honoured at once; progress is reported every 0.1 s.
        if progress.cancelled():
            complete = False
            break
        rows = pending.pop()
        halves = _cut(rows, enc, keys, spans, k, l, counted)
        if halves is None:
            final.append(rows)
            rows_done += len(rows)
        else:
            pending.extend(halves)
            cuts += 1
        if time.perf_counter() - last > 0.1:
            progress.set(0.95 * rows_done / n, f"Mondrian: {len(final)} groups final, {len(pending)} to cut")
            last = time.perf_counter()
    row_group = np.empty(n, dtype=np.int64)
    for g, rows in enumerate(final + pending):
        row_group[rows] = g
    progress.set(0.97, "Mondrian: building cells")
    release = horizontal_release_from_groups(enc, row_group)
    progress.set(1.0, f"Mondrian: {release.n_groups} groups")
    return release, complete, {"cuts": cuts, "n_groups": release.n_groups}
