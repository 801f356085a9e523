"""Kernels of the un-generalization pass of exact σ-k^m levels under an item hierarchy.

Splitting a cut node into its children can only lower the supports of the
generalized itemsets that hold one of the new partitions; every other
itemset keeps its records. So a split keeps k^ell-anonymity exactly when
every generalized j-itemset (j <= ell) with at least one new partition has
``k`` records, and only the records touching the split partition can hold
one. :func:`new_itemset_keys` writes those itemsets of those records as
packed keys (the key layout of :mod:`.generalized_support`: sorted ids + 1,
``bits`` each, no flag bit); :func:`smallest_run` finds the rarest, and
:func:`itemset_support` re-counts one such itemset when the split is tried
again later.

Slow reference: tests/reference/kmanon_reference.py::new_itemsets,
tests/reference/kmanon_reference.py::relax_reference
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import read_only
from .generalized_support import next_combination, record_parts

__all__ = ["new_itemset_keys", "smallest_run", "itemset_support", "warm_up"]


@njit(nogil=True, cache=True, inline="always")
def _comb(n, r):
    if r < 0 or r > n:
        return 0
    c = 1
    for t in range(1, r + 1):
        c = c * (n - r + t) // t
    return c


@njit(nogil=True, cache=True)
def new_itemset_keys(indptr, indices, records, label, is_new, j, bits, max_len, out, limit):
    """Keys of the j-itemsets with a new partition, over ``records``; returns their number.

    Writes the first ``len(out)`` keys and counts the rest (sum over records
    of ``C(|P|, j) - C(|old P|, j)``), so a caller with too small a buffer
    learns the size to call again with; an empty ``out`` only counts.
    Returns ``limit + 1`` as soon as the number passes ``limit`` (the
    caller's budget). A record's j-itemsets with a new partition are
    enumerated as a new part times an old part, so a long record with one new
    partition costs ``C(|P| - 1, j - 1)``, not ``C(|P|, j)``.
    """
    parts = np.empty(max_len + 1, dtype=np.int64)
    counts = np.empty(max_len + 1, dtype=np.int64)  # items per partition: record_parts fills it, unused here
    newp = np.empty(max_len + 1, dtype=np.int64)
    oldp = np.empty(max_len + 1, dtype=np.int64)
    ia = np.empty(j, dtype=np.int64)
    ib = np.empty(j, dtype=np.int64)
    cap = out.shape[0]
    n = 0
    for r in range(records.shape[0]):
        u = records[r]
        m = record_parts(indices, indptr[u], indptr[u + 1], label, parts, counts)
        if m < j:
            continue
        nn = 0
        no = 0
        for t in range(m):
            if is_new[parts[t]]:
                newp[nn] = parts[t]
                nn += 1
            else:
                oldp[no] = parts[t]
                no += 1
        if n >= cap:
            n += _comb(m, j) - _comb(no, j)
            if n > limit:
                return limit + 1
            continue
        for a in range(1, min(j, nn) + 1):
            b = j - a
            if b > no:
                continue
            for x in range(a):
                ia[x] = x
            while True:
                for x in range(b):
                    ib[x] = x
                while True:
                    # merge the two sorted picks into one sorted key
                    key = np.uint64(0)
                    x = 0
                    y = 0
                    while x < a or y < b:
                        if y >= b or (x < a and newp[ia[x]] < oldp[ib[y]]):
                            v = newp[ia[x]]
                            x += 1
                        else:
                            v = oldp[ib[y]]
                            y += 1
                        key = (key << np.uint64(bits)) | np.uint64(v + 1)
                    if n < cap:
                        out[n] = key
                    n += 1
                    if n > limit:
                        return limit + 1
                    if b == 0 or not next_combination(ib, b, no):
                        break
                if not next_combination(ia, a, nn):
                    break
    return n


@njit(nogil=True, cache=True)
def smallest_run(sorted_keys):
    """(length, start) of the first shortest run of equal values; (0, -1) for no keys."""
    n = sorted_keys.shape[0]
    if n == 0:
        return 0, -1
    best = n + 1
    where = -1
    start = 0
    for t in range(1, n + 1):
        if t == n or sorted_keys[t] != sorted_keys[t - 1]:
            if t - start < best:
                best = t - start
                where = start
            start = t
    return best, where


@njit(nogil=True, cache=True)
def itemset_support(indptr, indices, records, label, parts, k):
    """``min(k, records among ``records`` whose items' labels cover every id in ``parts``)``."""
    n = 0
    seen = np.zeros(parts.shape[0], dtype=np.bool_)
    for r in range(records.shape[0]):
        u = records[r]
        seen[:] = False
        hit = 0
        for t in range(indptr[u], indptr[u + 1]):
            p = label[indices[t]]
            for a in range(parts.shape[0]):
                if parts[a] == p and not seen[a]:
                    seen[a] = True
                    hit += 1
        if hit == parts.shape[0]:
            n += 1
            if n >= k:
                return k
    return n


def warm_up() -> None:
    """Compile the kernels on tiny inputs (see ``kernels.warmup``), with read-only data arrays as a dataset's."""
    indptr = read_only(np.array([0, 2, 3], dtype=np.int64))
    indices = read_only(np.array([0, 1, 1], dtype=np.int32))
    records = np.array([0, 1], dtype=np.int32)
    label = np.array([0, 1], dtype=np.int32)
    is_new = np.array([False, True])
    n = new_itemset_keys(indptr, indices, records, label, is_new, 2, 2, 2, np.empty(0, dtype=np.uint64), 10)
    out = np.empty(n, dtype=np.uint64)
    new_itemset_keys(indptr, indices, records, label, is_new, 2, 2, 2, out, 10)
    out.sort()
    smallest_run(out)
    itemset_support(indptr, indices, records, label, np.array([0, 1], dtype=np.int64), 2)
