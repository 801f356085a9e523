"""Spatial contiguity: partitions are unions of touching Voronoi cells (paper Section VI-C).

Two partitions may merge only if their cells touch, so every partition stays
one contiguous region. The error is the paper's: the occurrence-weighted
average distance in metres between each item (tower) and the centroid of its
partition's merged polygon; an unmerged item is published as itself and has
no error (as the paper's "original" map, Figure 3a, has none). Both use
:class:`anonstudio.data.geo.ContiguityGeometry`, which prices a merge from
area-weighted cell centroids without building polygon unions.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..partition_state import PartitionState
from .base import Constraint, ConstraintRun, ConstraintStateError, ErrorFunction, ErrorRun, Move

if TYPE_CHECKING:  # the geometry (scipy.spatial, shapely) is imported by a contiguity run only, not by every k^m run
    from ....data.geo import VoronoiCells

__all__ = ["Contiguity", "CentroidDistanceError"]

_EXTRA = "contiguity"


class _ContiguityRun(ConstraintRun):
    """Keeps a ContiguityGeometry in step with the partition state.

    The geometry keeps the id of the larger part on a merge, the state the
    smallest id, so ids are translated both ways.
    """

    def __init__(self, state: PartitionState, cells: VoronoiCells):
        from ....data.geo import ContiguityGeometry

        super().__init__(state)
        weights = np.array([state.users(i) for i in range(state.n_items)], dtype=np.float64)
        self.geom = ContiguityGeometry(cells, weights)
        self.geo_of: dict[int, int] = {i: i for i in range(state.n_items)}
        self.ours_of: dict[int, int] = {i: i for i in range(state.n_items)}
        state.extras[_EXTRA] = self

    def neighbours(self, p: int) -> list[int]:
        return sorted(self.ours_of[g] for g in self.geom.neighbours(self.geo_of[p]))

    def moves(self, p: int) -> Sequence[Move]:
        return [tuple(sorted((p, q))) for q in self.neighbours(p)]

    def best_move(self, parts, error: ErrorRun):
        best = None
        for p in parts:
            p = int(p)
            qs = self.neighbours(p)
            if not qs:
                continue
            costs = self.geom.merge_costs(self.geo_of[p], [self.geo_of[q] for q in qs])
            for q, c in zip(qs, costs.tolist()):
                cand = (c, tuple(sorted((p, q))))
                if best is None or cand < best:
                    best = cand
        return best

    def merged(self, move: Move, keep: int) -> None:
        a, b = move
        ga, gb = self.geo_of.pop(a), self.geo_of.pop(b)
        del self.ours_of[ga], self.ours_of[gb]
        g = self.geom.merge(ga, gb)
        self.geo_of[keep] = g
        self.ours_of[g] = keep

    def area_m2(self, p: int) -> float:
        return self.geom.area_km2(self.geo_of[p]) * 1e6


class Contiguity(Constraint):
    """Merge only partitions whose Voronoi cells touch.

    Parameters
    ----------
    cells
        Voronoi cells of the items (``anonstudio.data.geo.build_voronoi``), in item order.
    """

    name = "contiguity"

    def __init__(self, cells: VoronoiCells):
        self.cells = cells

    def bind(self, state: PartitionState) -> ConstraintRun:
        if self.cells.n_items != state.n_items:
            raise ValueError(f"{self.cells.n_items} cells for {state.n_items} items")
        return _ContiguityRun(state, self.cells)

    def default_error(self) -> ErrorFunction:
        return CentroidDistanceError()


class _CentroidRun(ErrorRun):
    def __init__(self, state: PartitionState, run: _ContiguityRun):
        super().__init__(state, run.geom.total_weight)
        self.run = run

    @property
    def value(self) -> float:
        return self.run.geom.error

    def cost(self, move: Move) -> float:
        a, b = move
        return self.run.geom.merge_cost(self.run.geo_of[a], self.run.geo_of[b])

    def merged(self, move: Move, keep: int) -> None:
        pass  # the geometry updates itself when the constraint merges

    def partition_area(self, p: int) -> float | None:
        return self.run.area_m2(p)


class CentroidDistanceError(ConstraintStateError):
    """Mean distance (m) from each item occurrence to its partition polygon's centroid."""

    name = "distance"
    unit = "m"
    extra_key = _EXTRA
    constraint_name = "contiguity"

    def make_run(self, state: PartitionState, shared: _ContiguityRun) -> ErrorRun:
        return _CentroidRun(state, shared)
