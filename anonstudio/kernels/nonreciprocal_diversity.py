"""The label-spaced order of the diverse ring (``methods/nonreciprocal/diversity.py``).

Reorders the Gray-TSP order so that every cyclic window of ``w = 2l - 1``
consecutive records carries distinct labels, while staying close to the
input order: position ``t`` takes the earliest record (in the input order)
whose label is off its cool-down of ``w - 1`` positions, unless some label is
about to miss its deadline. A label's deadline is the last position its next
copy may take so that its remaining copies still fit, ``w`` apart, before the
end of the cycle (which wraps to its first copy); the label with the earliest
deadline goes first once that deadline is within ``margin`` positions.
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["spaced_order", "windows_distinct", "warm_up"]


@njit(nogil=True, cache=True)
def spaced_order(order, labels, n_labels, w, margin):
    """A label-spaced version of ``order``, or an empty array when this margin fails.

    Parameters
    ----------
    order
        Record ids in their utility order (Gray-TSP).
    labels
        Label code of each record (``0..n_labels - 1``).
    w
        Window length (``2l - 1``): two records with one label end up at
        least ``w`` positions apart, cyclically.
    margin
        How early (in positions) a label's deadline overrides the input order.
    """
    n = order.shape[0]
    counts = np.zeros(n_labels, dtype=np.int64)
    for t in range(n):
        counts[labels[order[t]]] += 1
    start = np.zeros(n_labels + 1, dtype=np.int64)
    for lab in range(n_labels):
        start[lab + 1] = start[lab] + counts[lab]
    queue = np.zeros(n, dtype=np.int64)  # ranks of each label's records, ascending
    fill = start[:n_labels].copy()
    for t in range(n):
        lab = labels[order[t]]
        queue[fill[lab]] = t
        fill[lab] += 1
    head = start[:n_labels].copy()
    remaining = counts.copy()
    last = np.full(n_labels, -1, dtype=np.int64)
    first = np.full(n_labels, -1, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    big = np.int64(1) << 62
    for t in range(n):
        urgent = -1
        urgent_deadline = big
        near = -1
        near_rank = big
        for lab in range(n_labels):
            if remaining[lab] == 0:
                continue
            bound = n - 1 if first[lab] < 0 else n - w + first[lab]
            deadline = bound - (remaining[lab] - 1) * w
            if deadline < t:
                return np.empty(0, dtype=np.int64)
            if last[lab] >= 0 and t - last[lab] < w:
                continue
            rank = queue[head[lab]]
            if deadline < urgent_deadline or (deadline == urgent_deadline and rank < queue[head[urgent]]):
                urgent = lab
                urgent_deadline = deadline
            if rank < near_rank:
                near = lab
                near_rank = rank
        if near < 0:
            return np.empty(0, dtype=np.int64)
        lab = urgent if urgent_deadline - t <= margin else near
        out[t] = order[queue[head[lab]]]
        head[lab] += 1
        remaining[lab] -= 1
        last[lab] = t
        if first[lab] < 0:
            first[lab] = t
    if not windows_distinct(out, labels, n_labels, w):
        return np.empty(0, dtype=np.int64)
    return out


@njit(nogil=True, cache=True)
def windows_distinct(order, labels, n_labels, w):
    """True when any two records of one label are at least ``w`` apart around the cycle."""
    n = order.shape[0]
    first = np.full(n_labels, -1, dtype=np.int64)
    last = np.full(n_labels, -1, dtype=np.int64)
    for t in range(n):
        lab = labels[order[t]]
        if last[lab] >= 0 and t - last[lab] < w:
            return False
        if first[lab] < 0:
            first[lab] = t
        last[lab] = t
    for lab in range(n_labels):
        if first[lab] >= 0 and n - last[lab] + first[lab] < w and last[lab] != first[lab]:
            return False
        if first[lab] >= 0 and last[lab] == first[lab] and n < w:
            return False
    return True


def warm_up() -> None:
    """Compile the kernels above on a tiny input."""
    order = np.arange(9, dtype=np.int64)
    labels = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2], dtype=np.int64)
    spaced_order(order, labels, 3, 3, 0)
