"""The Gray order of set-valued records and its segmentation (paper §4.1, eq. 1).

Bit order (implementation note, T2): bit 0 of a record's bitmap, the most
significant bit of its Gray code, is the smallest item id of the dataset
(item ids follow the dataset's vocabulary, numeric labels in numeric order).
The paper's worked example needs this order (column 1 = MSB).
"""
from __future__ import annotations

import numpy as np

from ...data.transactions import TransactionData
from ...kernels.nonreciprocal_order import adjacent_hamming, gray_sort, segment_dp

__all__ = ["BIT_ORDER", "gray_order", "neighbour_distances", "cyclic_hamming", "segment_bounds"]

#: Recorded in the run's JSON.
BIT_ORDER = "ascending item id (bit 0, the most significant bit of the Gray code, is the smallest item id)"


def gray_order(data: TransactionData) -> np.ndarray:
    """Record ids in ascending Gray rank (int64); equal records keep file order; the empty set comes first."""
    return gray_sort(data.indptr, data.indices)


def neighbour_distances(data: TransactionData, order: np.ndarray) -> np.ndarray:
    """``H(order[t], order[(t + 1) % n])`` for every position ``t`` (int64)."""
    return adjacent_hamming(data.indptr, data.indices, np.ascontiguousarray(order, dtype=np.int64))


def cyclic_hamming(data: TransactionData, order: np.ndarray | None = None) -> int:
    """Sum of Hamming distances between cyclically consecutive records of ``order`` (input order if None).

    The paper's 14 -> 12 -> 10 of §4.3 are cyclic sums (T3).
    """
    if order is None:
        order = np.arange(data.n_records, dtype=np.int64)
    if len(order) < 2:
        return 0
    return int(neighbour_distances(data, order).sum())


def segment_bounds(data: TransactionData, order: np.ndarray, seg_min: int, seg_max: int) -> tuple[np.ndarray, int]:
    """Optimal segmentation of ``order`` for the TSP step (eq. 1).

    Segment sizes lie in ``[seg_min, seg_max]``; the sum of the Hamming
    distances across the cuts is minimal. When ``n`` is not a sum of allowed
    sizes (351-599 records for 300-350, T4) the last segment may be shorter;
    fewer than ``seg_min`` records make one segment.

    Returns
    -------
    (bounds, cut_cost)
        Segment ``s`` covers positions ``bounds[s]:bounds[s + 1]`` of ``order``.
    """
    n = len(order)
    adj = neighbour_distances(data, order) if n else np.zeros(0, dtype=np.int64)
    bounds, cost = segment_dp(adj, n, int(seg_min), int(seg_max))
    return bounds, int(cost)
