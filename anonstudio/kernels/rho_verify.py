"""Numba kernels of the independent ρ-uncertainty checker (``anonstudio/verifiers/rho.py``).

Written apart from the suppressor's kernels on purpose: here adversaries are
first grouped by their itemset Q (sorted rows), the records of D' holding Q
come from a merge intersection of the checker's own posting lists, and every
e ∈ E_u is tested by counting how many of those records hold it (a second
intersection), rather than by tallying co-occurring items.

The recount of util_mining (the support of every subset of every record)
writes each subset as one uint64 key, its sorted items (id + 1) packed
``bits`` bits apiece, and counts a block of records by sorting its keys
(:func:`count_subsets`); blocks are merged by :func:`merge_counts`.

Slow reference: tests/reference/rho_reference.py::unsafe_adversaries,
tests/reference/rho_recount_reference.py::all_subset_counts
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import read_only

__all__ = ["holders", "check_groups", "distinct_positions", "subset_keys", "count_subsets", "merge_counts",
           "decode_keys", "warm_up"]


@njit(nogil=True, cache=True)
def _merge(a, n, post_rec, lo, hi, out, write):
    """|a[:n] ∩ post_rec[lo:hi]| (both ascending); the common records go to ``out`` when ``write``."""
    i = 0
    j = lo
    k = 0
    while i < n and j < hi:
        x = a[i]
        y = post_rec[j]
        if x < y:
            i += 1
        elif x > y:
            j += 1
        else:
            if write:
                out[k] = x
            k += 1
            i += 1
            j += 1
    return k


@njit(nogil=True, cache=True)
def holders(q, ell, post_ptr, post_rec, out, tmp):
    """Records of D' holding every item of ``q[:ell]`` (merge intersection of posting lists) into ``out``."""
    first = q[0]
    n = post_ptr[first + 1] - post_ptr[first]
    for j in range(n):
        out[j] = post_rec[post_ptr[first] + j]
    for t in range(1, ell):
        item = q[t]
        n = _merge(out, n, post_rec, post_ptr[item], post_ptr[item + 1], tmp, True)
        for j in range(n):
            out[j] = tmp[j]
        if n == 0:
            break
    return n


@njit(nogil=True, cache=True)
def check_groups(rows, users, starts, post_ptr, post_rec, e_global, e_ptr, e_items, p, qd,
                 unsafe, worst_e, s_q_out, s_qe_out, recs, tmp, memo, memo_items):
    """Check adversaries (users[j], rows[j]) whose rows are sorted so equal Q are adjacent.

    ``starts`` delimits the groups of equal Q. For each adversary, every
    e ∈ E_u \\ Q (``e_global`` items for everyone, plus the user's own
    ``e_items``) is tested: unsafe iff q·supp(Q∪{e}) > p·supp(Q) with
    supp(Q) > 0. supp(Q∪{e}) is computed once per group and e (``memo``,
    −1 = not yet; ``memo_items`` lists the entries to reset). Writes per
    adversary ``unsafe`` (0/1) and its worst rule (``worst_e``, ``s_q_out``,
    ``s_qe_out``, highest supp(Q∪{e})).
    """
    ell = rows.shape[1]
    n_groups = starts.shape[0] - 1
    n_global = e_global.shape[0]
    q = np.empty(ell, dtype=np.int32)
    for g in range(n_groups):
        a = starts[g]
        b = starts[g + 1]
        for t in range(ell):
            q[t] = rows[a, t]
        s_q = holders(q, ell, post_ptr, post_rec, recs, tmp)
        n_memo = 0
        for j in range(a, b):
            unsafe[j] = 0
            worst_e[j] = -1
            s_q_out[j] = s_q
            s_qe_out[j] = 0
            if s_q == 0:
                continue
            u = users[j]
            total = n_global + e_ptr[u + 1] - e_ptr[u]
            for k in range(total):
                e = e_global[k] if k < n_global else e_items[e_ptr[u] + k - n_global]
                in_q = False
                for t in range(ell):
                    if q[t] == e:
                        in_q = True
                if in_q:
                    continue
                c = memo[e]
                if c < 0:
                    c = _merge(recs, s_q, post_rec, post_ptr[e], post_ptr[e + 1], tmp, False)
                    memo[e] = c
                    memo_items[n_memo] = e
                    n_memo += 1
                if qd * c > p * s_q:
                    unsafe[j] = 1
                    if c > s_qe_out[j]:
                        s_qe_out[j] = c
                        worst_e[j] = e
        for k in range(n_memo):
            memo[memo_items[k]] = -1


@njit(nogil=True, cache=True)
def distinct_positions(lengths, uniforms, out):
    """``out[s]``: ell distinct positions in [0, lengths[s]) from ell uniforms (a uniform ell-subset).

    Draw t picks the x-th of the lengths[s] − t positions still free: x is
    shifted past the taken positions in ascending order.
    """
    n, ell = uniforms.shape
    taken = np.empty(max(ell, 1), dtype=np.int64)
    for s in range(n):
        k = lengths[s]
        for t in range(ell):
            x = np.int64(uniforms[s, t] * (k - t))
            if x >= k - t:
                x = k - t - 1
            pos = x
            for w in range(t):
                if taken[w] <= pos:
                    pos += 1
                else:
                    break
            out[s, t] = pos
            w = t
            while w > 0 and taken[w - 1] > pos:
                taken[w] = taken[w - 1]
                w -= 1
            taken[w] = pos
    return out


@njit(nogil=True, cache=True)
def subset_keys(indptr, indices, first, last, bits, out):
    """Every non-empty subset of records ``first`` .. ``last`` − 1 as a key into ``out`` from 0; returns the count.

    A record's items must be ascending. The subset of mask ``low | 1 << h`` (``low < 1 << h``) is the one of
    ``low`` with item ``h`` appended, so each key is one shift and one or from a key written before it.
    """
    shift = np.uint64(bits)
    pos = 0
    for u in range(first, last):
        a = indptr[u]
        k = indptr[u + 1] - a
        base = pos - 1  # the subset of mask ``mask`` (>= 1) goes to out[base + mask]
        for h in range(k):
            item = np.uint64(indices[a + h] + 1)
            top = 1 << h
            out[base + top] = item
            for low in range(1, top):
                out[base + top + low] = (out[base + low] << shift) | item
        pos += (1 << k) - 1
    return pos


@njit(nogil=True, cache=True)
def _runs(keys, counts, n):
    """Equal keys of ``keys[:n]`` (sorted) made one, their ``counts`` added (None: 1 each); returns the arrays."""
    m = 0
    for i in range(n):
        if i == 0 or keys[i] != keys[i - 1]:
            m += 1
    out_keys = np.empty(m, dtype=np.uint64)
    out_counts = np.zeros(m, dtype=np.int64)
    j = -1
    for i in range(n):
        if i == 0 or keys[i] != keys[i - 1]:
            j += 1
            out_keys[j] = keys[i]
        out_counts[j] += 1 if counts is None else counts[i]
    return out_keys, out_counts


@njit(nogil=True, cache=True)
def count_subsets(indptr, indices, first, last, bits, total):
    """Distinct subset keys of records ``first`` .. ``last`` − 1 (ascending) and how many records hold each.

    ``total`` is the number of non-empty subsets of those records (the sum of 2^len − 1).
    """
    keys = np.empty(total, dtype=np.uint64)
    n = subset_keys(indptr, indices, first, last, bits, keys)
    keys = keys[:n]
    keys.sort()
    return _runs(keys, None, n)


@njit(nogil=True, cache=True)
def merge_counts(keys, counts):
    """Counts of the blocks (their keys and counts one after the other) added key by key, keys ascending.

    Integer sums do not depend on the order of the blocks, so any split of the records gives the same arrays.
    """
    order = np.argsort(keys, kind="mergesort")
    return _runs(keys[order], counts[order], keys.shape[0])


@njit(nogil=True, cache=True)
def decode_keys(keys, bits, width, out):
    """``out[j]``: the item ids of key j, ascending, padded with −1 to ``width``; returns the lengths."""
    mask = (np.uint64(1) << np.uint64(bits)) - np.uint64(1)
    shift = np.uint64(bits)
    lengths = np.zeros(keys.shape[0], dtype=np.int64)
    for j in range(keys.shape[0]):
        key = keys[j]
        k = 0
        while key != 0:
            k += 1
            key >>= shift
        key = keys[j]
        for t in range(width):
            out[j, t] = -1
        for t in range(k - 1, -1, -1):
            out[j, t] = np.int64(key & mask) - 1
            key >>= shift
        lengths[j] = k
    return lengths


def warm_up() -> None:
    """Compile the kernels on a tiny input (see ``kernels.warmup``).

    Data arrays are read-only, as a dataset's are (``kernels.read_only``).
    """
    post_ptr = np.array([0, 2, 3], dtype=np.int64)
    post_rec = np.array([0, 1, 0], dtype=np.int32)
    rows = np.array([[0], [1]], dtype=np.int32)
    users = np.array([0, 1], dtype=np.int32)
    starts = np.array([0, 1, 2], dtype=np.int64)
    e_global = np.array([1], dtype=np.int32)
    e_ptr = np.zeros(3, dtype=np.int64)
    e_items = np.zeros(0, dtype=np.int32)
    out = np.zeros(2, dtype=np.uint8)
    worst = np.zeros(2, dtype=np.int32)
    sq = np.zeros(2, dtype=np.int64)
    sqe = np.zeros(2, dtype=np.int64)
    recs = np.empty(2, dtype=np.int32)
    tmp = np.empty(2, dtype=np.int32)
    check_groups(rows, users, starts, post_ptr, post_rec, e_global, e_ptr, e_items, 1, 2, out, worst, sq, sqe,
                 recs, tmp, np.full(2, -1, dtype=np.int64), np.empty(2, dtype=np.int32))
    pos = np.empty((2, 2), dtype=np.int64)
    distinct_positions(np.array([3, 2], dtype=np.int64), np.array([[0.5, 0.9], [0.1, 0.2]]), pos)
    indptr = read_only(np.array([0, 2, 2, 3], dtype=np.int64))
    indices = read_only(np.array([0, 1, 1], dtype=np.int32))
    keys, counts = count_subsets(indptr, indices, 0, 3, 2, 4)
    keys, counts = merge_counts(np.concatenate((keys, keys)), np.concatenate((counts, counts)))
    decode_keys(keys, 2, 2, np.empty((len(keys), 2), dtype=np.int64))
