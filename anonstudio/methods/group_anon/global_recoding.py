"""Full-domain global recoding: one generalization level per attribute, chosen optimally.

Every quasi-identifier has a ladder of generalization levels
(:mod:`~anonstudio.methods.group_anon.levels`). A *level vector* picks one rung
per attribute; recoding every value to its node at that rung groups rows with
equal recoded tuples. The search looks for the vector whose release meets k
(and distinct l-diversity when l is set) with the least information loss.

Information loss of a vector is the mean over rows and attributes of each
cell's normalized size (the NCP of Xu et al.: for numbers the node's value
spread over the column's spread, for categories (values in node - 1) /
(domain size - 1)). It is a sum of per-attribute terms that only grow with the
level, so visiting vectors in order of increasing loss and stopping at the
first one that meets k and l yields an optimal vector; coarser vectors are
never checked. k-anonymity and distinct l-diversity are monotone (merging
groups keeps them), so the all-``*`` vector is always valid when the whole
table is, and a cancelled search returns it marked incomplete.

No rows are suppressed.
"""
from __future__ import annotations

import time
from typing import Mapping, Sequence

import numpy as np

from ...data.table import Table
from ...jobs import Progress
from .domains import EncodedTable
from .levels import AttributeLevels, default_levels
from .release import GroupRelease, canonical_group_ids

__all__ = ["global_recoding", "level_loss", "LATTICE_LIMIT"]

#: Largest number of level vectors the search enumerates.
LATTICE_LIMIT = 5_000_000


def level_loss(levels: AttributeLevels, domain: Sequence, numeric: bool, row_codes: np.ndarray) -> np.ndarray:
    """Mean NCP over the rows of one attribute at each of its levels."""
    out = np.empty(levels.n_levels)
    values = np.asarray(domain, dtype=float) if numeric else None
    for h in range(levels.n_levels):
        node_of = levels.node_of[h]
        n_nodes = len(levels.node_labels[h])
        if numeric:
            lo = np.full(n_nodes, np.inf)
            hi = np.full(n_nodes, -np.inf)
            np.minimum.at(lo, node_of, values)
            np.maximum.at(hi, node_of, values)
            span = max(values[-1] - values[0], 1e-12)
            per_value = (hi - lo)[node_of] / span
        else:
            size = np.bincount(node_of, minlength=n_nodes)
            per_value = (size[node_of] - 1) / max(len(domain) - 1, 1)
        out[h] = float(per_value[row_codes].mean())
    return out


class _Checker:
    """Groups rows under a level vector and tests k / l, caching recoded columns."""

    def __init__(self, enc: EncodedTable, levels: list[AttributeLevels], k: int, l: int | None):
        self.enc, self.levels, self.k, self.l = enc, levels, k, l
        self._recoded: dict[tuple[int, int], np.ndarray] = {}
        self.n_sensitive = len(enc.domains[enc.sensitive])

    def recoded(self, j: int, h: int) -> np.ndarray:
        key = (j, h)
        if key not in self._recoded:
            self._recoded[key] = self.levels[j].node_of[h][self.enc.codes[:, j]]
        return self._recoded[key]

    def groups(self, vector: Sequence[int]) -> np.ndarray:
        """Group id of every row (0..G-1, sorted by recoded tuple)."""
        radices = [len(self.levels[j].node_labels[h]) for j, h in enumerate(vector)]
        if float(np.prod(np.asarray(radices, dtype=float))) < 2.0**62:
            key = np.zeros(self.enc.n_rows, dtype=np.int64)
            for j, h in enumerate(vector):
                key = key * radices[j] + self.recoded(j, h)
            return np.unique(key, return_inverse=True)[1].astype(np.int64)
        stacked = np.stack([self.recoded(j, h) for j, h in enumerate(vector)], axis=1)
        return np.unique(stacked, axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)

    def satisfies(self, groups: np.ndarray) -> bool:
        if np.bincount(groups).min() < self.k:
            return False
        if self.l is None:
            return True
        pairs = np.unique(groups * self.n_sensitive + self.enc.s_codes)
        return int(np.bincount(pairs // self.n_sensitive).min()) >= self.l


def _release(enc: EncodedTable, levels: list[AttributeLevels], vector: Sequence[int], groups: np.ndarray) -> GroupRelease:
    row_group = canonical_group_ids(groups)
    n_groups = int(row_group.max()) + 1
    first_row = np.unique(row_group, return_index=True)[1]
    cells, labels = {}, {}
    for j, c in enumerate(enc.qi):
        lv, h = levels[j], vector[j]
        node = lv.node_of[h][enc.codes[first_row, j]]  # every row of a group shares its node
        cells[c] = lv.node_cells(h)[node]
        labels[c] = [lv.node_labels[h][x] for x in node]
    return GroupRelease("horizontal", list(enc.qi), enc.sensitive, enc.domains, row_group, cells, labels)


def global_recoding(
    table: Table,
    params,
    progress: Progress,
    *,
    hierarchies: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
) -> tuple[GroupRelease, bool, dict]:
    """Optimal full-domain generalization meeting k (and l).

    Parameters
    ----------
    hierarchies
        Column -> :class:`~anonstudio.data.hierarchy.Hierarchy` (or leaf-to-root
        label paths); columns without one use intervals (numeric) or a flat
        value -> ``*`` hierarchy.
    """
    enc = EncodedTable(table, params.qi, params.sensitive)
    k, l = int(params.k), params.l
    enc.check_feasible(k, l)
    hierarchies = hierarchies or {}
    unknown = sorted(set(hierarchies) - set(enc.qi))
    if unknown:
        raise ValueError(f"hierarchies given for columns that are not quasi-identifiers: {', '.join(unknown)}")
    levels = [default_levels(c, enc.domains[c], hierarchies.get(c)) for c in enc.qi]
    shape = tuple(lv.n_levels for lv in levels)
    size = int(np.prod(np.asarray(shape, dtype=float)))
    if size > LATTICE_LIMIT:
        raise ValueError(f"{size} generalization level combinations exceed the limit of {LATTICE_LIMIT}; "
                         "use fewer quasi-identifiers or shallower hierarchies")
    losses = [level_loss(lv, enc.domains[c], enc.numeric[j], enc.codes[:, j]) for j, (c, lv) in enumerate(zip(enc.qi, levels))]
    grid = np.indices(shape).reshape(len(shape), -1).T  # every level vector
    total = sum(losses[j][grid[:, j]] for j in range(len(shape))) / len(shape)
    height = grid.sum(axis=1)
    # Increasing loss; ties: lower height, then lexicographic (np.lexsort keys are last-major).
    order = np.lexsort((*[grid[:, j] for j in reversed(range(len(shape)))], height, np.round(total, 12)))
    checker = _Checker(enc, levels, k, l)
    last = time.perf_counter()
    checked = 0
    for checked, idx in enumerate(order, start=1):
        if progress.cancelled():
            break
        vector = tuple(int(h) for h in grid[idx])
        groups = checker.groups(vector)
        if checker.satisfies(groups):
            release = _release(enc, levels, vector, groups)
            progress.set(1.0, f"global recoding: levels {vector}")
            return release, True, {"levels": dict(zip(enc.qi, vector)), "loss": float(total[idx]),
                                   "checked": checked, "lattice": size, "n_groups": release.n_groups}
        if time.perf_counter() - last > 0.1:
            progress.set(checked / size, f"global recoding: {checked} of {size} level vectors checked")
            last = time.perf_counter()
    # Cancelled (the loop cannot end otherwise: the top vector always satisfies a feasible table).
    top = tuple(n - 1 for n in shape)
    release = _release(enc, levels, top, checker.groups(top))
    return release, False, {"levels": dict(zip(enc.qi, top)), "checked": checked, "lattice": size,
                            "n_groups": release.n_groups}
