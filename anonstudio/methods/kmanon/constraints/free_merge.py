"""Free merging: any two partitions may merge.

Default error: a flat-hierarchy NCP. An occurrence of an item in a partition
of ``s`` items loses ``(s - 1) / (n - 1)`` of its information (``n`` items in
all): 0 for an ungeneralized item, 1 when everything is one partition. The
error is the average over all item occurrences, so merging two rare items is
cheap and merging two frequent ones is expensive (frequency-aware, like the
paper's occurrence-weighted geographic error). Merges are scored in one
vectorized pass over all partners.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ....metrics.ncp import categorical_ncp
from ..partition_state import PartitionState
from .base import Constraint, ConstraintRun, ErrorFunction, ErrorRun, Move

__all__ = ["FreeMerge", "FlatNcpError"]


class _FreeRun(ConstraintRun):
    def moves(self, p: int) -> Sequence[Move]:
        return [tuple(sorted((p, q))) for q in self.state.members if q != p]

    def best_move(self, parts, error: ErrorRun):
        ids = self.state.partition_ids()
        best = None
        for p in parts:
            p = int(p)
            others = ids[ids != p]
            if len(others) == 0:
                continue
            costs = error.pair_costs(p, others)
            j = int(np.argmin(costs))
            # argmin picks the smallest partner id among ties; moves are then
            # compared as sorted tuples, like the generic version.
            cand = (float(costs[j]), tuple(sorted((p, int(others[j])))))
            if best is None or cand < best:
                best = cand
        return best


class FreeMerge(Constraint):
    """Any two partitions may merge (no constraint)."""

    name = "free"

    def bind(self, state: PartitionState) -> ConstraintRun:
        return _FreeRun(state)

    def default_error(self) -> ErrorFunction:
        return FlatNcpError()


class _FlatNcpRun(ErrorRun):
    def __init__(self, state: PartitionState, occ: np.ndarray):
        super().__init__(state, occ.sum())
        self.n_items = state.n_items
        self.occ = occ.astype(np.float64).copy()  # occurrences per partition
        self.size = np.ones(state.n_items, dtype=np.float64)  # items per partition

    def cost(self, move: Move) -> float:
        occ = self.occ[list(move)]
        size = self.size[list(move)]
        merged = categorical_ncp(size.sum(), self.n_items)
        return float(occ.sum() * merged - (occ * categorical_ncp(size, self.n_items)).sum())

    def pair_costs(self, p: int, others: np.ndarray) -> np.ndarray:
        # cost() of every pair in one pass: the "normalized" NCP is linear in the size, so merging p and o
        # adds occ_p * size_o + occ_o * size_p over (n_items - 1).
        unit = categorical_ncp(2.0, self.n_items)  # 1 / (n_items - 1)
        return (self.occ[p] * self.size[others] + self.occ[others] * self.size[p]) * unit

    def merged(self, move: Move, keep: int) -> None:
        self.total += self.cost(move)
        idx = list(move)
        occ, size = self.occ[idx].sum(), self.size[idx].sum()
        self.occ[idx] = 0.0
        self.size[idx] = 0.0
        self.occ[keep], self.size[keep] = occ, size


class FlatNcpError(ErrorFunction):
    """Average over occurrences of ``(partition size - 1) / (n_items - 1)``."""

    name = "ncp"
    unit = ""

    def bind(self, state: PartitionState) -> ErrorRun:
        occ = np.array([state.users(i) for i in range(state.n_items)], dtype=np.float64)
        return _FlatNcpRun(state, occ)
