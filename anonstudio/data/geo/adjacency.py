"""Cell adjacency as CSR arrays (plain int arrays a numba kernel can walk).

Two cells are neighbours when their boundaries have at least one common point
(paper 000, footnote 6), so cells meeting only at a corner are neighbours too.
"Common" is tested with a small distance tolerance because clipped Voronoi
vertices carry floating-point rounding.
"""
from __future__ import annotations

import numpy as np
import shapely

__all__ = ["cell_adjacency", "expand_site_adjacency", "pairs_to_csr"]


def pairs_to_csr(rows: np.ndarray, cols: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric CSR (int64 indptr, int32 sorted indices) from undirected pairs; drops self loops."""
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    keep = rows != cols
    rows, cols = rows[keep], cols[keep]
    both_r = np.concatenate([rows, cols])
    both_c = np.concatenate([cols, rows])
    keys = np.unique(both_r * n + both_c)
    r = keys // n
    c = (keys % n).astype(np.int32)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=n), out=indptr[1:])
    return indptr, c


def cell_adjacency(cells: np.ndarray, tolerance: float) -> tuple[np.ndarray, np.ndarray]:
    """CSR adjacency of polygons whose boundaries come within ``tolerance``."""
    tree = shapely.STRtree(cells)
    a, b = tree.query(cells, predicate="dwithin", distance=tolerance)
    return pairs_to_csr(a, b, len(cells))


def expand_site_adjacency(
    site_indptr: np.ndarray, site_indices: np.ndarray, site_of_item: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Item adjacency from site adjacency: items of neighbouring sites, and co-located items."""
    n_items = len(site_of_item)
    n_sites = len(site_indptr) - 1
    order = np.argsort(site_of_item, kind="stable")
    items_indptr = np.zeros(n_sites + 1, dtype=np.int64)
    np.cumsum(np.bincount(site_of_item, minlength=n_sites), out=items_indptr[1:])
    if n_sites == n_items:
        # One item per site: relabel sites as items.
        item_of_site = order
        rows = item_of_site[np.repeat(np.arange(n_sites), np.diff(site_indptr))]
        cols = item_of_site[site_indices]
        return pairs_to_csr(rows, cols, n_items)
    rows, cols = [], []
    site_rows = np.repeat(np.arange(n_sites), np.diff(site_indptr))
    for s, t in zip(site_rows.tolist(), site_indices.tolist()):
        members_s = order[items_indptr[s] : items_indptr[s + 1]]
        members_t = order[items_indptr[t] : items_indptr[t + 1]]
        rows.append(np.repeat(members_s, len(members_t)))
        cols.append(np.tile(members_t, len(members_s)))
    for s in np.flatnonzero(np.diff(items_indptr) > 1).tolist():
        members = order[items_indptr[s] : items_indptr[s + 1]]
        rows.append(np.repeat(members, len(members)))
        cols.append(np.tile(members, len(members)))
    rows_a = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    cols_a = np.concatenate(cols) if cols else np.zeros(0, np.int64)
    return pairs_to_csr(rows_a, cols_a, n_items)
