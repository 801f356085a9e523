"""Geographic error for items given as points (no cells): distance to the partition's centre.

Used with the hierarchy and free-merge constraints when item coordinates are
known. The centre of a partition is the plain mean of its items' points (the
area-weighted centroid of the contiguity constraint needs cells). The error is
the occurrence-weighted average distance in metres, as in paper Section VI-C.
"""
from __future__ import annotations

import numpy as np

from ..partition_state import PartitionState
from .base import ErrorFunction, ErrorRun, Move

__all__ = ["PointCentroidError"]


class _PointRun(ErrorRun):
    def __init__(self, state: PartitionState, xy: np.ndarray):
        occ = np.array([state.users(i) for i in range(state.n_items)], dtype=np.float64)
        super().__init__(state, occ.sum())
        self.xy = xy
        self.occ_item = occ
        self.err = np.zeros(state.n_items, dtype=np.float64)

    def _error_of(self, items: np.ndarray) -> float:
        pts = self.xy[items]
        centre = pts.mean(axis=0)
        return float((self.occ_item[items] * np.hypot(*(pts - centre).T)).sum())

    def cost(self, move: Move) -> float:
        items = np.concatenate([np.asarray(self.state.members[p]) for p in move if p in self.state.members])
        return self._error_of(items) - float(self.err[list(move)].sum())

    def merged(self, move: Move, keep: int) -> None:
        items = np.asarray(self.state.members[keep])
        new = self._error_of(items)
        self.total += new - float(self.err[list(move)].sum())
        self.err[list(move)] = 0.0
        self.err[keep] = new


class PointCentroidError(ErrorFunction):
    """Occurrence-weighted mean distance (metres) from each item to its partition's centre."""

    name = "distance"
    unit = "m"

    def __init__(self, xy: np.ndarray):
        self.xy = np.asarray(xy, dtype=np.float64)

    def bind(self, state: PartitionState) -> ErrorRun:
        if self.xy.shape != (state.n_items, 2):
            raise ValueError(f"coordinates must have shape ({state.n_items}, 2)")
        return _PointRun(state, self.xy)
