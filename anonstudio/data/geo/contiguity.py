"""Incremental partition geometry for greedy merging (Algorithm 2 of paper 000).

:class:`ContiguityGeometry` keeps a partition of the items whose parts are
merged two at a time, only ever with a neighbouring part (cells touching), and
answers "how much would the geographic error grow if parts a and b merged?"
without building polygon unions (see the centroid identity in
:mod:`anonstudio.kernels.geography`).

Error (paper 000, Section VI-C)::

    err = sum_i f_i * dist(x_i, centre of i's partition) / sum_i f_i

with ``f_i`` the number of records containing item ``i`` and the centre the
centroid of the union of the partition's cells (footnote 7).

Singletons. Footnote 7 defines the centre of a partition obtained by merging
cells. An item that was never merged is released as itself, so by default its
centre is its own position and the error of the unchanged dataset is 0, as an
error between a dataset and itself must be (``singleton_centre="item"``). The
literal alternative, the centroid of the item's own cell, is available as
``singleton_centre="cell"``.
"""
from __future__ import annotations

import numpy as np

from ...kernels.geography import link_merge, list_error_sum, merge_error_delta, merge_error_deltas
from .voronoi import VoronoiCells

__all__ = ["ContiguityGeometry", "SINGLETON_CENTRES"]

#: Where an unmerged item's partition centre is: at the item, or at its cell's centroid.
SINGLETON_CENTRES = ("item", "cell")


class ContiguityGeometry:
    """A partition of the items under merges of neighbouring parts.

    Partition ids are item ids: initially every item is its own partition
    ``p == i``; a merge keeps one of the two ids. All state lives in plain
    arrays (attributes without underscore) so a numba kernel may take them over.

    Parameters
    ----------
    cells
        Voronoi cells of the items.
    weights
        Occurrences of each item (``TransactionData.item_frequencies``).
    labels
        Optional starting partition (item -> any label); each part must be
        connected in the cell adjacency graph.
    singleton_centre
        ``"item"`` (default) or ``"cell"``, see the module docstring.
    """

    def __init__(self, cells: VoronoiCells, weights: np.ndarray, labels: np.ndarray | None = None, *,
                 singleton_centre: str = "item"):
        if singleton_centre not in SINGLETON_CENTRES:
            raise ValueError(f"singleton_centre must be one of {SINGLETON_CENTRES}, got {singleton_centre!r}")
        n = cells.n_items
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != (n,):
            raise ValueError(f"weights must have length {n}, got {weights.shape}")
        if (weights < 0).any():
            raise ValueError("weights must be non-negative")
        self.cells = cells
        self.singleton_centre = singleton_centre
        self.x = np.ascontiguousarray(cells.coords[:, 0])
        self.y = np.ascontiguousarray(cells.coords[:, 1])
        self.f = weights
        self.total_weight = float(weights.sum())
        area = cells.item_areas_m2
        centroid = cells.cell_centroids
        self.label = np.arange(n, dtype=np.int32)
        self.head = np.arange(n, dtype=np.int32)
        self.tail = np.arange(n, dtype=np.int32)
        self.nxt = np.full(n, -1, dtype=np.int32)
        self.size = np.ones(n, dtype=np.int32)
        self.part_area = area.copy()
        self.part_mx = area * centroid[:, 0]
        self.part_my = area * centroid[:, 1]
        self.part_w = weights.copy()
        if singleton_centre == "cell":
            self.part_err = weights * np.hypot(self.x - centroid[:, 0], self.y - centroid[:, 1])
        else:
            self.part_err = np.zeros(n)
        self._neighbours: list[set[int]] = [set(cells.neighbours(i).tolist()) for i in range(n)]
        self.n_partitions = n
        if labels is not None:
            self._merge_to(np.asarray(labels))

    # ---------------------------------------------------------------- queries
    @property
    def error_sum(self) -> float:
        """``sum_i f_i * dist(x_i, centre)`` over all items (metre-occurrences)."""
        return float(self.part_err.sum())

    @property
    def error(self) -> float:
        """The paper's average error in metres (0 when there are no occurrences)."""
        return self.error_sum / self.total_weight if self.total_weight > 0 else 0.0

    def partitions(self) -> np.ndarray:
        """Ids of the current partitions (ascending)."""
        return np.flatnonzero(self.size > 0).astype(np.int32)

    def members(self, p: int) -> np.ndarray:
        """Items of partition ``p`` (ascending)."""
        return np.flatnonzero(self.label == p).astype(np.int32)

    def neighbours(self, p: int) -> list[int]:
        """Partitions whose cells touch partition ``p`` (ascending)."""
        return sorted(self._neighbours[p])

    def centroid(self, p: int) -> tuple[float, float]:
        """Centre of partition ``p`` (metres): the centroid of the union of its cells,
        or the item itself for an unmerged item when ``singleton_centre="item"``."""
        if self.size[p] == 1 and self.singleton_centre == "item":
            return float(self.x[p]), float(self.y[p])
        return float(self.part_mx[p] / self.part_area[p]), float(self.part_my[p] / self.part_area[p])

    def area_km2(self, p: int) -> float:
        return float(self.part_area[p] / 1e6)

    def merge_cost(self, a: int, b: int) -> float:
        """Growth of :attr:`error` (metres) if partitions ``a`` and ``b`` merged."""
        self._check_pair(a, b)
        delta = merge_error_delta(a, b, self.head, self.nxt, self.x, self.y, self.f,
                                  self.part_area, self.part_mx, self.part_my, self.part_err)
        return delta / self.total_weight if self.total_weight > 0 else 0.0

    def merge_costs(self, a: int, candidates: np.ndarray | list[int]) -> np.ndarray:
        """:meth:`merge_cost` of ``a`` with each candidate partition."""
        others = np.asarray(candidates, dtype=np.int32).reshape(-1)
        for b in others.tolist():
            self._check_pair(a, b)
        out = np.empty(len(others), dtype=np.float64)
        merge_error_deltas(a, others, out, self.head, self.nxt, self.x, self.y, self.f,
                           self.part_area, self.part_mx, self.part_my, self.part_err)
        return out / self.total_weight if self.total_weight > 0 else np.zeros_like(out)

    # ---------------------------------------------------------------- updates
    def merge(self, a: int, b: int, keep: int | None = None) -> int:
        """Merge neighbouring partitions ``a`` and ``b``; return the surviving id.

        ``keep`` (``a`` or ``b``) names the survivor; by default the larger part
        survives (fewer items to relabel) and ties keep the smaller id.
        """
        self._check_pair(a, b)
        if b not in self._neighbours[a]:
            raise ValueError(f"partitions {a} and {b} are not neighbours; their union would not be contiguous")
        if keep is None:
            keep = a if (self.size[a], -a) >= (self.size[b], -b) else b
        elif keep not in (a, b):
            raise ValueError(f"keep must be {a} or {b}, got {keep}")
        gone = b if keep == a else a
        link_merge(keep, gone, self.head, self.tail, self.nxt, self.size, self.label, self.part_area,
                   self.part_mx, self.part_my, self.part_w, self.part_err, self.x, self.y, self.f)
        moved = self._neighbours[gone]
        self._neighbours[gone] = set()
        for q in moved:
            self._neighbours[q].discard(gone)
            if q != keep:
                self._neighbours[q].add(keep)
        self._neighbours[keep] |= moved
        self._neighbours[keep].discard(keep)
        self._neighbours[keep].discard(gone)
        self.n_partitions -= 1
        return keep

    def labels(self) -> np.ndarray:
        """Copy of the item -> partition id array."""
        return self.label.copy()

    def recompute_error_sum(self) -> float:
        """Error sum recomputed from scratch (a check against drift of the running sums)."""
        total = 0.0
        for p in self.partitions().tolist():
            if self.size[p] == 1 and self.singleton_centre == "item":
                continue
            cx, cy = self.centroid(p)
            total += list_error_sum(self.head[p], self.nxt, self.x, self.y, self.f, cx, cy)
        return total

    # --------------------------------------------------------------- helpers
    def _check_pair(self, a: int, b: int) -> None:
        if a == b:
            raise ValueError("cannot merge a partition with itself")
        for p in (a, b):
            if not (0 <= p < len(self.size)) or self.size[p] == 0:
                raise ValueError(f"{p} is not a current partition")

    def _merge_to(self, labels: np.ndarray) -> None:
        if labels.shape != self.label.shape:
            raise ValueError(f"labels must have length {len(self.label)}")
        # Grow each part by merging along adjacency edges inside it; a part
        # left in pieces was not connected.
        indptr, indices = self.cells.indptr, self.cells.indices
        for i in range(len(labels)):
            for j in indices[indptr[i] : indptr[i + 1]].tolist():
                if labels[i] == labels[j]:
                    a, b = int(self.label[i]), int(self.label[j])
                    if a != b:
                        self.merge(a, b)
        if self.n_partitions != len(np.unique(labels)):
            raise ValueError("a starting partition is not connected in the cell adjacency graph")
