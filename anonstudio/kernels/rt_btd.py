"""Kernels of the bit-vector transaction distance (``anonstudio.methods.rt.btd``).

BTD(r1, r2) = (|b1 ⊕ b2| + 1) / (|b1 ∧ b2| + 1) · |b1 ∨ b2| over the
non-sensitive items; with ``c`` common items and ``s = |r1| + |r2|`` it is
``(s − 2c + 1)(s − c) / (c + 1)``, so only the intersection size is needed.
For fixed ``s`` it falls with ``c``, so ``(s + 1) s`` bounds every pair of
lengths summing to ``s``: with each cluster's records listed longest first,
the search for the largest pair stops as soon as the bound cannot beat the
best pair found (sparse data: usually after the first pair).

Slow reference: tests/reference/rt_reference.py::ref_cluster_btd
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["pair_btd", "cross_max", "intra_max", "btd_rows", "merge_rows", "union_btd", "warm_up"]


@njit(nogil=True, cache=True, inline="always")
def _bound(s):
    return (s + 1.0) * s


@njit(nogil=True, cache=True)
def pair_btd(indptr, indices, a, b):
    """BTD of records ``a`` and ``b`` (CSR of sorted non-sensitive item ids)."""
    i = indptr[a]
    ie = indptr[a + 1]
    j = indptr[b]
    je = indptr[b + 1]
    s = (ie - i) + (je - j)
    c = 0
    while i < ie and j < je:
        x = indices[i]
        y = indices[j]
        if x < y:
            i += 1
        elif x > y:
            j += 1
        else:
            c += 1
            i += 1
            j += 1
    return (s - 2.0 * c + 1.0) * (s - c) / (c + 1.0)


@njit(nogil=True, cache=True)
def _best_pair(rows_a, rows_b, same, indptr, indices, lengths, best):
    """Largest BTD over pairs of ``rows_a`` x ``rows_b`` (both longest first; ``same``: pairs within one list)."""
    for x in range(rows_a.shape[0]):
        la = lengths[rows_a[x]]
        first = x + 1 if same else 0
        if first >= rows_b.shape[0] or _bound(la + lengths[rows_b[first]]) <= best:
            break
        for y in range(first, rows_b.shape[0]):
            if _bound(la + lengths[rows_b[y]]) <= best:
                break
            v = pair_btd(indptr, indices, rows_a[x], rows_b[y])
            if v > best:
                best = v
    return best


@njit(nogil=True, cache=True)
def cross_max(rows_a, rows_b, indptr, indices, lengths):
    """Largest BTD between a record of ``rows_a`` and one of ``rows_b`` (both longest first)."""
    return _best_pair(rows_a, rows_b, False, indptr, indices, lengths, -1.0)


@njit(nogil=True, cache=True)
def intra_max(rows, indptr, indices, lengths):
    """Largest BTD between two records of ``rows`` (longest first); 0 for fewer than two."""
    return _best_pair(rows, rows, True, indptr, indices, lengths, 0.0)


@njit(nogil=True, cache=True)
def btd_rows(start, stop, cl_ptr, cl_rows, indptr, indices, lengths, cross, intra):
    """Fill ``intra[c]`` and ``cross[c, d] = cross[d, c]`` for ``start <= c < stop``, ``d > c``."""
    n = cl_ptr.shape[0] - 1
    for c in range(start, stop):
        rows_c = cl_rows[cl_ptr[c]:cl_ptr[c + 1]]
        intra[c] = intra_max(rows_c, indptr, indices, lengths)
        for d in range(c + 1, n):
            v = cross_max(rows_c, cl_rows[cl_ptr[d]:cl_ptr[d + 1]], indptr, indices, lengths)
            cross[c, d] = v
            cross[d, c] = v


@njit(nogil=True, cache=True)
def merge_rows(cross, intra, a, b):
    """Cluster ``b`` merges into ``a``: its BTD row and column fold into ``a``'s (O(clusters))."""
    intra[a] = max(intra[a], intra[b], cross[a, b])
    for d in range(cross.shape[0]):
        v = max(cross[a, d], cross[b, d])
        cross[a, d] = v
        cross[d, a] = v
        cross[b, d] = -1.0
        cross[d, b] = -1.0
    cross[a, a] = -1.0
    intra[b] = -1.0


@njit(nogil=True, cache=True)
def union_btd(cross, intra, seed, cands, out):
    """``out[j]`` = BTD(seed ∪ cands[j]) = max of both clusters' BTDs and their cross pairs."""
    for j in range(cands.shape[0]):
        c = cands[j]
        out[j] = max(intra[seed], intra[c], cross[seed, c])
    return out


def warm_up() -> None:
    """Compile the kernels above on tiny inputs (see ``kernels.warmup``)."""
    indptr = np.array([0, 2, 3, 3], dtype=np.int64)
    indices = np.array([0, 1, 1], dtype=np.int32)
    lengths = np.diff(indptr)
    cl_ptr = np.array([0, 2, 3], dtype=np.int64)
    cl_rows = np.array([0, 1, 2], dtype=np.int64)
    cross = np.zeros((2, 2))
    intra = np.zeros(2)
    btd_rows(0, 2, cl_ptr, cl_rows, indptr, indices, lengths, cross, intra)
    union_btd(cross, intra, 0, np.array([1], dtype=np.int64), np.empty(1))
    merge_rows(cross, intra, 0, 1)
