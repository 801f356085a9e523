"""Index structures the kernels walk: patterns and units (horizontal), groups (vertical).

Horizontal releases: a row's attribute ``a`` is latent within its group's cell.
Rows with the same sensitive value and the same cell of ``a`` are exchangeable
given ``pi``; they form one *pattern*, drawn together. Cells of a single value
are observed, not latent, and go to ``base_counts``. A *unit* is the set of rows
of one group sharing a sensitive value; Lemma 1 sums over units.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import EncodedRelease

__all__ = ["HorizontalLayout", "VerticalLayout", "horizontal_layout", "vertical_layout"]


@dataclass(eq=False)
class HorizontalLayout:
    pat_s: np.ndarray  # (P,) sensitive code of each pattern
    pat_n: np.ndarray  # (P,) rows in the pattern
    pat_ptr: np.ndarray  # (P+1,) CSR into pat_vals
    pat_vals: np.ndarray  # flat codes of the pattern's cell, ascending
    base_counts: np.ndarray  # (S, D) counts of observed (single-value) cells
    row_pat: np.ndarray  # (N, A) pattern of each row's attribute, -1 when observed
    unit_s: np.ndarray
    unit_n: np.ndarray
    unit_pat: np.ndarray  # (U, A)
    unit_fixed: np.ndarray  # (U, A) flat code when the cell is one value
    gunit_ptr: np.ndarray  # (G+1,) units of each group (units sorted by group)
    d_groups_ptr: np.ndarray  # (D+1,) CSR: groups whose cell holds flat code d
    d_groups: np.ndarray

    @property
    def n_patterns(self) -> int:
        return int(self.pat_s.shape[0])

    def max_cell(self) -> int:
        return int(np.diff(self.pat_ptr).max()) if self.n_patterns else 1

    def uniform_marginals(self) -> np.ndarray:
        """Random-worlds row marginals: every value of the cell equally likely."""
        sizes = np.diff(self.pat_ptr)
        return np.repeat(1.0 / np.maximum(sizes, 1), sizes)


def horizontal_layout(enc: EncodedRelease) -> HorizontalLayout:
    release = enc.release
    n, n_attr, n_s, width = enc.n_rows, enc.n_attr, enc.n_s, enc.width
    groups = release.row_group
    n_groups = release.n_groups
    row_pat = np.full((n, n_attr), -1, dtype=np.int64)
    base_counts = np.zeros((n_s, width), dtype=np.int64)
    pat_s, pat_n, pat_cells = [], [], []
    d_lists: list[list[np.ndarray]] = [[] for _ in range(width)]
    for a, column in enumerate(enc.qi):
        cells = np.asarray(release.cells[column], dtype=bool)
        off = int(enc.attr_off[a])
        bad = ~cells[groups, enc.r_code[:, a]]
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"row {i + 1}: {column} is outside its group's published cell")
        uniq, cell_id = np.unique(cells, axis=0, return_inverse=True)
        cell_id = cell_id.reshape(-1)
        sizes = uniq.sum(axis=1)
        for v in range(cells.shape[1]):
            d_lists[off + v].append(np.flatnonzero(cells[:, v]))
        row_cell = cell_id[groups]
        single = sizes[row_cell] == 1
        np.add.at(base_counts, (enc.s_code[single], enc.r_d[single, a]), 1)
        latent = np.flatnonzero(~single)
        if latent.size:
            keys = np.stack([enc.s_code[latent], row_cell[latent]], axis=1)
            ukeys, inverse, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
            row_pat[latent, a] = len(pat_s) + inverse.reshape(-1)
            for (s, cid), cnt in zip(ukeys.tolist(), counts.tolist()):
                pat_s.append(s)
                pat_n.append(cnt)
                pat_cells.append(np.flatnonzero(uniq[cid]) + off)
    pat_ptr = np.concatenate([[0], np.cumsum([len(c) for c in pat_cells])]).astype(np.int64)
    pat_vals = np.concatenate(pat_cells).astype(np.int64) if pat_cells else np.zeros(0, dtype=np.int64)
    # Units: (group, sensitive value) pairs, sorted by group.
    keys = np.stack([groups, enc.s_code], axis=1)
    ukeys, first, counts = np.unique(keys, axis=0, return_index=True, return_counts=True)
    unit_pat = row_pat[first]
    unit_fixed = np.where(unit_pat < 0, enc.r_d[first], -1)
    gunit_ptr = np.searchsorted(ukeys[:, 0], np.arange(n_groups + 1)).astype(np.int64)
    d_sizes = [sum(len(x) for x in lst) for lst in d_lists]
    d_groups_ptr = np.concatenate([[0], np.cumsum(d_sizes)]).astype(np.int64)
    d_groups = (np.concatenate([np.concatenate(lst) if lst else np.zeros(0, dtype=np.int64) for lst in d_lists])
                .astype(np.int64) if width else np.zeros(0, dtype=np.int64))
    return HorizontalLayout(np.asarray(pat_s, dtype=np.int64), np.asarray(pat_n, dtype=np.int64), pat_ptr,
                            pat_vals, base_counts, row_pat, ukeys[:, 1].astype(np.int64), counts.astype(np.int64),
                            unit_pat.astype(np.int64), unit_fixed.astype(np.int64), gunit_ptr, d_groups_ptr, d_groups)


@dataclass(eq=False)
class VerticalLayout:
    group_ptr: np.ndarray  # (G+1,)
    group_rows: np.ndarray  # rows ordered by group

    def random_worlds_row_s(self, enc: EncodedRelease) -> np.ndarray:
        """``P_RW(S_k = s)``: the share of ``s`` in row k's group (uniform pairings)."""
        groups = enc.release.row_group
        table = np.zeros((enc.release.n_groups, enc.n_s))
        np.add.at(table, (groups, enc.s_code), 1.0)
        table /= table.sum(axis=1, keepdims=True)
        return table[groups]


def vertical_layout(enc: EncodedRelease) -> VerticalLayout:
    groups = enc.release.row_group
    order = np.argsort(groups, kind="stable").astype(np.int64)
    ptr = np.searchsorted(groups[order], np.arange(enc.release.n_groups + 1)).astype(np.int64)
    return VerticalLayout(ptr, order)
