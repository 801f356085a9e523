"""Publication of slots from their preimages (``methods/nonreciprocal/publish.py``).

For slot ``j`` with preimages ``P(j)`` (the originals whose graph edges enter
it): the base bitmap is the bit vote over ``P(j)`` (an item is in the base
when more than half of the preimages hold it; a tie gives 0), the distance
bitmap the items on which the preimages disagree, and the threshold the
largest Hamming distance between the base and a preimage.

Slow reference: tests/reference/nonreciprocal_reference.py::publish_reference
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import read_only

__all__ = ["publish_slots", "warm_up"]


@njit(nogil=True, cache=True)
def _vote_one(indptr, indices, pre, lo, hi, count, touched):
    """Count the items of preimages ``pre[lo:hi]``; return how many distinct items were touched."""
    nt = 0
    for q in range(lo, hi):
        x = pre[q]
        for p in range(indptr[x], indptr[x + 1]):
            it = indices[p]
            if count[it] == 0:
                touched[nt] = it
                nt += 1
            count[it] += 1
    return nt


@njit(nogil=True, cache=True)
def publish_slots(indptr, indices, pre_indptr, pre, n_items):
    """Base, distance and threshold of every slot.

    Returns
    -------
    base_indptr, base_items, dist_indptr, dist_items, threshold
        CSR item lists (sorted) and an int64 threshold per slot.
    """
    n = pre_indptr.shape[0] - 1
    count = np.zeros(n_items, dtype=np.int64)
    touched = np.zeros(n_items, dtype=np.int64)
    base_len = np.zeros(n, dtype=np.int64)
    dist_len = np.zeros(n, dtype=np.int64)
    for j in range(n):
        m = pre_indptr[j + 1] - pre_indptr[j]
        nt = _vote_one(indptr, indices, pre, pre_indptr[j], pre_indptr[j + 1], count, touched)
        for t in range(nt):
            c = count[touched[t]]
            if 2 * c > m:
                base_len[j] += 1
            if c < m:
                dist_len[j] += 1
            count[touched[t]] = 0
    base_indptr = np.zeros(n + 1, dtype=np.int64)
    dist_indptr = np.zeros(n + 1, dtype=np.int64)
    for j in range(n):
        base_indptr[j + 1] = base_indptr[j] + base_len[j]
        dist_indptr[j + 1] = dist_indptr[j] + dist_len[j]
    base_items = np.zeros(base_indptr[n], dtype=np.int32)
    dist_items = np.zeros(dist_indptr[n], dtype=np.int32)
    threshold = np.zeros(n, dtype=np.int64)
    in_base = np.zeros(n_items, dtype=np.bool_)
    for j in range(n):
        m = pre_indptr[j + 1] - pre_indptr[j]
        nt = _vote_one(indptr, indices, pre, pre_indptr[j], pre_indptr[j + 1], count, touched)
        items = np.sort(touched[:nt])
        b = base_indptr[j]
        d = dist_indptr[j]
        nb = 0
        for t in range(nt):
            it = items[t]
            c = count[it]
            if 2 * c > m:
                base_items[b] = it
                b += 1
                nb += 1
                in_base[it] = True
            if c < m:
                dist_items[d] = it
                d += 1
        worst = 0
        for q in range(pre_indptr[j], pre_indptr[j + 1]):
            x = pre[q]
            inter = 0
            for p in range(indptr[x], indptr[x + 1]):
                if in_base[indices[p]]:
                    inter += 1
            h = (indptr[x + 1] - indptr[x]) + nb - 2 * inter
            if h > worst:
                worst = h
        threshold[j] = worst
        for t in range(nt):
            count[items[t]] = 0
            in_base[items[t]] = False
    return base_indptr, base_items, dist_indptr, dist_items, threshold


def warm_up() -> None:
    """Compile the kernel on the bit vote of the paper ({1100, 1011, 0101} -> 1101).

    Data arrays are read-only, as a dataset's are (``kernels.read_only``).
    """
    indptr = read_only(np.array([0, 2, 5, 7], dtype=np.int64))
    indices = read_only(np.array([0, 1, 0, 2, 3, 1, 3], dtype=np.int32))
    publish_slots(indptr, indices, np.array([0, 3], dtype=np.int64), np.array([0, 1, 2], dtype=np.int64), 4)

