"""Kernels of the independent k^m-anonymity verifier (``anonstudio.verifiers.kmanon``).

Deliberately separate from the anonymizer's kernels: plain merge-intersection
of sorted lists, exact rejection sampling driven by pre-drawn uniforms.

Slow reference: tests/reference/kmanon_reference.py::fraction_k_anonymous,
tests/reference/kmanon_reference.py::partition_records
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["intersect_count", "count_up_to", "draw_uniform_itemsets", "generalized_supports", "records_of_lists"]


@njit(nogil=True, cache=True)
def intersect_count(lists_indptr, lists, ids, n_ids):
    """Size of the intersection of the sorted lists ``ids[:n_ids]`` (CSR ``lists_indptr``/``lists``)."""
    # start from the shortest list and keep it as the running intersection
    best = 0
    for a in range(1, n_ids):
        if lists_indptr[ids[a] + 1] - lists_indptr[ids[a]] < lists_indptr[ids[best] + 1] - lists_indptr[ids[best]]:
            best = a
    lo = lists_indptr[ids[best]]
    hi = lists_indptr[ids[best] + 1]
    cur = lists[lo:hi].copy()
    n = hi - lo
    for a in range(n_ids):
        if a == best or n == 0:
            continue
        o_lo = lists_indptr[ids[a]]
        o_hi = lists_indptr[ids[a] + 1]
        i = 0
        j = o_lo
        w = 0
        while i < n and j < o_hi:
            if cur[i] < lists[j]:
                i += 1
            elif cur[i] > lists[j]:
                j += 1
            else:
                cur[w] = cur[i]
                w += 1
                i += 1
                j += 1
        n = w
    return n


@njit(nogil=True, cache=True)
def _contains(lists, lo, hi, x):
    while lo < hi:
        mid = (lo + hi) >> 1
        if lists[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo < lists.shape[0] and lists[lo] == x


@njit(nogil=True, cache=True)
def count_up_to(lists_indptr, lists, ids, n_ids, cap):
    """``min(size of the intersection, cap)``: walk the shortest list, binary-search the others."""
    best = 0
    for a in range(1, n_ids):
        if lists_indptr[ids[a] + 1] - lists_indptr[ids[a]] < lists_indptr[ids[best] + 1] - lists_indptr[ids[best]]:
            best = a
    count = 0
    for t in range(lists_indptr[ids[best]], lists_indptr[ids[best] + 1]):
        x = lists[t]
        ok = True
        for a in range(n_ids):
            if a != best and not _contains(lists, lists_indptr[ids[a]], lists_indptr[ids[a] + 1], x):
                ok = False
                break
        if ok:
            count += 1
            if count >= cap:
                return count
    return count


@njit(nogil=True, cache=True)
def draw_uniform_itemsets(uniforms, cum_weights, indptr, indices, post_indptr, post_records, ell, out, want):
    """Exact uniform ell-itemsets of Omega^ell by rejection, from pre-drawn uniforms.

    Propose: a record with probability proportional to C(|D_u|, ell), then a
    uniform ell-subset of it; ``x`` is proposed with probability
    ``supp(x) / W``. Accept with probability ``1 / supp(x)``: every itemset of
    Omega^ell is then equally likely. Each proposal uses one row of
    ``uniforms`` (``ell + 2`` columns). Returns (accepted, proposals used).
    """
    total = cum_weights[cum_weights.shape[0] - 1]
    got = 0
    pick = np.empty(ell, dtype=np.int64)
    ids = np.empty(ell, dtype=np.int64)
    row = 0
    while row < uniforms.shape[0] and got < want:
        target = uniforms[row, 0] * total
        u = np.searchsorted(cum_weights, target, side="right")
        if u >= cum_weights.shape[0]:
            u = cum_weights.shape[0] - 1
        lo = indptr[u]
        size = indptr[u + 1] - lo
        # partial Fisher-Yates on positions 0..size-1
        pos = np.arange(size)
        for a in range(ell):
            b = a + int(uniforms[row, 1 + a] * (size - a))
            if b >= size:
                b = size - 1
            t = pos[a]
            pos[a] = pos[b]
            pos[b] = t
            pick[a] = indices[lo + pos[a]]
        for a in range(ell):
            ids[a] = pick[a]
        # accept iff supp < 1/u: counting can stop at ceil(1/u)
        u_acc = uniforms[row, ell + 1]
        cap = np.int64(1.0 / u_acc) + 1 if u_acc > 1e-12 else np.int64(1) << 62
        supp = count_up_to(post_indptr, post_records, ids, ell, cap)
        if u_acc * supp < 1.0:
            pick.sort()
            for a in range(ell):
                out[got, a] = pick[a]
            got += 1
        row += 1
    return got, row


@njit(nogil=True, cache=True)
def generalized_supports(itemsets, part_of_item, part_indptr, part_records, out):
    """Support of each itemset's image (its set of partitions) in the generalized data."""
    ell = itemsets.shape[1]
    ids = np.empty(ell, dtype=np.int64)
    for r in range(itemsets.shape[0]):
        m = 0
        for a in range(ell):
            p = part_of_item[itemsets[r, a]]
            seen = False
            for b in range(m):
                if ids[b] == p:
                    seen = True
            if not seen:
                ids[m] = p
                m += 1
        out[r] = intersect_count(part_indptr, part_records, ids, m)


@njit(nogil=True, cache=True)
def records_of_lists(n_lists, indptr, list_of_entry):
    """CSR of the records of each list (item or partition), ascending and without repeats.

    ``list_of_entry[t]`` is the list of the item stored at ``indices[t]`` of
    the CSR records ``indptr``. A counting sort in record order: each list
    fills in ascending record order, so a repeat (two items of one partition
    in a record) is the list's last entry.
    """
    n_records = indptr.shape[0] - 1
    counts = np.zeros(n_lists + 1, dtype=np.int64)
    last = np.full(n_lists, -1, dtype=np.int64)
    for u in range(n_records):
        for t in range(indptr[u], indptr[u + 1]):
            g = list_of_entry[t]
            if last[g] != u:
                last[g] = u
                counts[g + 1] += 1
    lists_indptr = np.cumsum(counts)
    fill = lists_indptr[:-1].copy()
    records = np.empty(lists_indptr[n_lists], dtype=np.int64)
    last[:] = -1
    for u in range(n_records):
        for t in range(indptr[u], indptr[u + 1]):
            g = list_of_entry[t]
            if last[g] != u:
                last[g] = u
                records[fill[g]] = u
                fill[g] += 1
    return lists_indptr, records


def warm_up(read_only: bool = False) -> None:
    """Compile the kernels above on tiny inputs (see ``kernels.warmup``).

    ``read_only`` makes the data arrays read-only, as a loaded dataset's are (numba compiles the two apart).
    """
    indptr = np.array([0, 2, 4], dtype=np.int64)
    indices = np.array([0, 1, 0, 1], dtype=np.int32)
    indptr.flags.writeable = indices.flags.writeable = not read_only
    post_indptr = np.array([0, 2, 4], dtype=np.int64)
    post_records = np.array([0, 1, 0, 1], dtype=np.int64)
    cum = np.array([1.0, 2.0])
    out = np.empty((2, 2), dtype=np.int64)
    draw_uniform_itemsets(np.full((4, 4), 0.3), cum, indptr, indices, post_indptr, post_records, 2, out, 2)
    sup = np.empty(2, dtype=np.int64)
    generalized_supports(out, np.array([0, 0], dtype=np.int64), post_indptr, post_records, sup)
    records_of_lists(2, indptr, indices.astype(np.int64))

