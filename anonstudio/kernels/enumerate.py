"""Exact counting of m-itemsets by enumerating every m-subset of every record.

Each m-subset becomes one uint64 key (item ids packed ``bits`` bits apiece, in
increasing order, so sorting the keys sorts the itemsets); after sorting, a run
of equal keys is one itemset and its length is the itemset's support.

To bound memory the work is split by the *smallest* item of the subset: a chunk
covers the subsets whose smallest item lies in ``[lo, hi)``. Within a chunk the
smallest item is stored as ``item - lo`` in the top bits, which leaves room for
``(m - 1) * bits`` bits of the other items.

Slow reference: tests/reference/uniqueness_reference.py::omega
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "subsets_by_smallest_item",
    "enumerate_keys",
    "count_runs",
    "radix_sort",
    "item_bits",
    "plan_chunks",
    "warm_up",
]


def item_bits(n_items: int) -> int:
    """Bits needed to store one item id."""
    return max(int(n_items - 1).bit_length(), 1)


@njit(nogil=True, cache=True)
def _binom(n, k):
    if k < 0 or n < k:
        return 0.0
    r = 1.0
    for i in range(k):
        r = r * (n - i) / (i + 1)
    return r


@njit(nogil=True, cache=True)
def subsets_by_smallest_item(indptr, indices, n_items, m):
    """Number of m-subsets (over all records) whose smallest item is ``i``, per item (float64)."""
    out = np.zeros(n_items, dtype=np.float64)
    for u in range(indptr.shape[0] - 1):
        start = indptr[u]
        length = indptr[u + 1] - start
        for p in range(length - m + 1):
            out[indices[start + p]] += _binom(length - p - 1, m - 1)
    return out


@njit(nogil=True, cache=True)
def enumerate_keys(indptr, indices, m, lo, hi, bits, out):
    """Write the key of every m-subset whose smallest item is in ``[lo, hi)`` into ``out``.

    ``out`` must have room for all of them (see :func:`subsets_by_smallest_item`).
    Returns the number of keys written.
    """
    n = 0
    pos = np.empty(m, dtype=np.int64)
    shift_first = np.uint64((m - 1) * bits)
    ubits = np.uint64(bits)
    for u in range(indptr.shape[0] - 1):
        start = indptr[u]
        length = indptr[u + 1] - start
        if length < m:
            continue
        for p in range(length - m + 1):
            first = indices[start + p]
            if first < lo:
                continue
            if first >= hi:
                break
            head = np.uint64(first - lo) << shift_first
            if m == 1:
                out[n] = head
                n += 1
                continue
            # Walk the (m-1)-combinations of positions p+1 .. length-1 in lexicographic order.
            k = m - 1
            for j in range(k):
                pos[j] = p + 1 + j
            while True:
                key = head
                for j in range(k):
                    key |= np.uint64(indices[start + pos[j]]) << (ubits * np.uint64(k - 1 - j))
                out[n] = key
                n += 1
                j = k - 1
                while j >= 0 and pos[j] == length - k + j:
                    j -= 1
                if j < 0:
                    break
                pos[j] += 1
                for t in range(j + 1, k):
                    pos[t] = pos[t - 1] + 1
    return n


@njit(nogil=True, cache=True)
def radix_sort(keys, tmp, key_bits):
    """Sort ``keys`` (uint64 below ``2**key_bits``) with an LSD radix sort, 11 bits per pass.

    ``tmp`` is scratch of the same length. Returns whichever of the two arrays
    holds the sorted keys. Several times faster than a comparison sort here
    because the keys only use ``key_bits`` (typically 20-50) bits.
    """
    n = keys.shape[0]
    radix = 11
    buckets = 1 << radix
    mask = np.uint64(buckets - 1)
    count = np.empty(buckets, dtype=np.int64)
    src = keys
    dst = tmp
    shift = 0
    while shift < key_bits:
        count[:] = 0
        ushift = np.uint64(shift)
        for i in range(n):
            count[(src[i] >> ushift) & mask] += 1
        total = 0
        for b in range(buckets):
            c = count[b]
            count[b] = total
            total += c
        for i in range(n):
            v = src[i]
            d = (v >> ushift) & mask
            dst[count[d]] = v
            count[d] += 1
        src, dst = dst, src
        shift += radix
    return src


@njit(nogil=True, cache=True)
def count_runs(sorted_keys):
    """``(distinct keys, keys occurring exactly once)`` of a sorted array."""
    n = sorted_keys.shape[0]
    distinct = 0
    single = 0
    i = 0
    while i < n:
        j = i + 1
        while j < n and sorted_keys[j] == sorted_keys[i]:
            j += 1
        distinct += 1
        if j - i == 1:
            single += 1
        i = j
    return distinct, single


def plan_chunks(per_item: np.ndarray, m: int, bits: int, max_keys: int) -> list[tuple[int, int, int]]:
    """Split items into ranges ``(lo, hi, keys)`` of at most ``max_keys`` subsets each.

    A single item holding more than ``max_keys`` subsets gets a range of its own.
    Ranges also stay narrow enough that ``item - lo`` fits in the bits left over
    by the other ``m - 1`` items.

    Raises
    ------
    ValueError
        If ``(m - 1) * bits`` already exceeds 63 bits.
    """
    spare = 64 - (m - 1) * bits
    if spare < 1:
        raise ValueError(f"{m}-itemsets over {1 << bits} items do not fit in 64-bit keys")
    max_width = 1 << min(spare, 62)
    chunks = []
    lo = 0
    n_items = len(per_item)
    while lo < n_items:
        hi = lo
        keys = 0
        while hi < n_items and hi - lo < max_width and (hi == lo or keys + per_item[hi] <= max_keys):
            keys += int(per_item[hi])
            hi += 1
        if keys:
            chunks.append((lo, hi, keys))
        lo = hi
    return chunks


def warm_up() -> None:
    """Compile the kernels on a two-record dataset."""
    from .support import tiny_dataset

    indptr, indices, _, _ = tiny_dataset()
    per_item = subsets_by_smallest_item(indptr, indices, 3, 2)
    out = np.empty(int(per_item.sum()), dtype=np.uint64)
    n = enumerate_keys(indptr, indices, 2, 0, 3, 2, out)
    count_runs(radix_sort(out[:n], np.empty(n, dtype=np.uint64), 4))
