"""Kernels of the Gray order and its segmentation (``methods/nonreciprocal/order.py``).

Records are sorted item-id lists (CSR). Bit 0 of a record's bitmap, the most
significant bit of its Gray code, is the smallest item id; a record's Gray
*rank* is the Gray-decoded value of that bitmap. No b-bit integer is ever
built: the binary digit ``p`` of the rank is the parity of the record's items
at positions ``<= p``, so two records compare at the first position ``p``
where their bitmaps differ. With ``c`` items shared before ``p``, the record
holding ``p`` ranks higher when ``c`` is even and lower when ``c`` is odd.

Slow reference: tests/reference/nonreciprocal_reference.py::gray_order_bigint
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import read_only

__all__ = ["gray_compare", "gray_sort", "hamming", "hamming_between", "adjacent_hamming", "segment_dp", "warm_up"]


@njit(nogil=True, cache=True)
def gray_compare(indptr, indices, a, b):
    """-1, 0 or 1 as the Gray rank of record ``a`` is below, equal to or above that of ``b``."""
    i = indptr[a]
    ie = indptr[a + 1]
    j = indptr[b]
    je = indptr[b + 1]
    shared = 0
    while i < ie and j < je:
        x = indices[i]
        y = indices[j]
        if x == y:
            shared += 1
            i += 1
            j += 1
            continue
        # first differing position: the smaller of the two items; a holds it iff x < y
        a_holds = x < y
        higher_a = a_holds if shared % 2 == 0 else not a_holds
        return 1 if higher_a else -1
    if i < ie:  # a holds the next differing position
        return 1 if shared % 2 == 0 else -1
    if j < je:
        return -1 if shared % 2 == 0 else 1
    return 0


@njit(nogil=True, cache=True)
def gray_sort(indptr, indices):
    """Record ids in ascending Gray rank; equal records keep file order (stable merge sort)."""
    n = indptr.shape[0] - 1
    src = np.arange(n).astype(np.int64)
    dst = np.empty(n, dtype=np.int64)
    width = 1
    while width < n:
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i = lo
            j = mid
            k = lo
            while i < mid and j < hi:
                # "<= 0" takes the left run on ties: stability
                if gray_compare(indptr, indices, src[i], src[j]) <= 0:
                    dst[k] = src[i]
                    i += 1
                else:
                    dst[k] = src[j]
                    j += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst[k] = src[j]
                j += 1
                k += 1
            lo = hi
        src, dst = dst, src
        width *= 2
    return src


@njit(nogil=True, cache=True, inline="always")
def hamming_between(indptr_a, items_a, a, indptr_b, items_b, b):
    """Hamming distance between list ``a`` of one CSR array and list ``b`` of another (sorted item ids)."""
    i = indptr_a[a]
    ie = indptr_a[a + 1]
    j = indptr_b[b]
    je = indptr_b[b + 1]
    common = 0
    while i < ie and j < je:
        x = items_a[i]
        y = items_b[j]
        if x == y:
            common += 1
            i += 1
            j += 1
        elif x < y:
            i += 1
        else:
            j += 1
    return (ie - indptr_a[a]) + (je - indptr_b[b]) - 2 * common


@njit(nogil=True, cache=True, inline="always")
def hamming(indptr, indices, a, b):
    """Hamming distance of the bitmaps of records ``a`` and ``b`` (size of the symmetric difference)."""
    return hamming_between(indptr, indices, a, indptr, indices, b)


@njit(nogil=True, cache=True)
def adjacent_hamming(indptr, indices, order):
    """``out[t] = H(order[t], order[(t + 1) % n])``: the cyclic neighbour distances of an order."""
    n = order.shape[0]
    out = np.zeros(n, dtype=np.int64)
    for t in range(n):
        out[t] = hamming(indptr, indices, order[t], order[(t + 1) % n])
    return out


@njit(nogil=True, cache=True)
def segment_dp(adj, n, seg_min, seg_max):
    """Segment boundaries minimising the Hamming distances cut at breakpoints (eq. 1).

    ``C(i) = min_{j in [i - seg_max, i - seg_min]} C(j) + cut(j)`` with
    ``C(0) = 0``; ``cut(j) = adj[j - 1]`` is the distance between positions
    ``j - 1`` and ``j`` of the order that a segment starting at ``j`` keeps
    fixed, and ``cut(0) = 0`` (there is no record before the first). When no
    sum of sizes in ``[seg_min, seg_max]`` equals ``n``, the last segment may
    be shorter (``j in [n - seg_max, n - 1]``); ``n < seg_min`` gives one
    segment. Ties go to the smallest ``j``.

    Returns
    -------
    (bounds, cost)
        ``bounds`` int64: segment ``s`` is positions ``bounds[s]:bounds[s + 1]``;
        ``cost`` the sum of the cut distances.
    """
    if n == 0:
        return np.zeros(1, dtype=np.int64), 0
    inf = np.int64(1) << 62
    cost = np.full(n + 1, inf, dtype=np.int64)
    back = np.full(n + 1, -1, dtype=np.int64)
    cost[0] = 0
    for i in range(1, n + 1):
        lo = max(0, i - seg_max)
        hi = i - seg_min
        for j in range(lo, hi + 1):
            if cost[j] >= inf:
                continue
            c = cost[j] + (adj[j - 1] if j > 0 else 0)
            if c < cost[i]:
                cost[i] = c
                back[i] = j
    if cost[n] >= inf:
        # the relaxed last segment: any size in [1, seg_max]
        for j in range(max(0, n - seg_max), n):
            if cost[j] >= inf:
                continue
            c = cost[j] + (adj[j - 1] if j > 0 else 0)
            if c < cost[n]:
                cost[n] = c
                back[n] = j
    count = 0
    i = n
    while i > 0:
        i = back[i]
        count += 1
    bounds = np.empty(count + 1, dtype=np.int64)
    i = n
    k = count
    while k >= 0:
        bounds[k] = i
        if i > 0:
            i = back[i]
        k -= 1
    return bounds, cost[n]


def warm_up() -> None:
    """Compile the kernels above on a tiny input.

    Data arrays are read-only, as a dataset's are (``kernels.read_only``).
    """
    indptr = read_only(np.array([0, 2, 3, 5], dtype=np.int64))
    indices = read_only(np.array([0, 1, 1, 0, 2], dtype=np.int32))
    order = gray_sort(indptr, indices)
    adj = adjacent_hamming(indptr, indices, order)
    segment_dp(adj, 3, 1, 2)

