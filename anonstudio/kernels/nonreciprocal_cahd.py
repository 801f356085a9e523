"""Group formation of the CAHD baseline (``methods/nonreciprocal/cahd.py``).

Correlation-aware anonymization of high-dimensional data (Ghinita, Kalnis,
Tao), adapted to one sensitive label per record as the paper's experiments
use it: records are scanned in the given order; the first record not yet
grouped seeds a group; a candidate list of up to ``alpha * (l - 1)`` ungrouped
records before and after it (in the order) whose labels differ from the
seed's supplies the ``l - 1`` partners nearest to the seed by Hamming
distance, with pairwise distinct labels. The group must take one record of
every label that would otherwise hold more than ``1/l`` of the records left
("critical"), so the rest stays l-eligible; when more than ``l`` labels are
critical, or fewer than ``2l`` records are left, the rest forms the last group.
Every group then has each label on at most ``1/l`` of its records.

Slow reference: tests/reference/nonreciprocal_reference.py::cahd_groups
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import read_only
from .nonreciprocal_order import hamming

__all__ = ["cahd_groups", "warm_up"]


@njit(nogil=True, cache=True)
def _unlink(nxt, prv, t):
    a = prv[t]
    b = nxt[t]
    if a >= 0:
        nxt[a] = b
    if b >= 0:
        prv[b] = a


@njit(nogil=True, cache=True)
def _nearest_candidate(cand, nc, order, labels, wanted, seed, indptr, indices):
    """The candidate rank with a wanted label nearest to the seed by Hamming distance (-1: none)."""
    best = -1
    best_h = 0
    for c in range(nc):
        u = cand[c]
        if wanted[labels[order[u]]]:
            h = hamming(indptr, indices, order[u], seed)
            if best < 0 or h < best_h:
                best = u
                best_h = h
    return best


@njit(nogil=True, cache=True)
def _nearest_rank(t, nxt, prv, order, labels, wanted):
    """The ungrouped rank nearest to ``t`` in the order (after first, then before) with a wanted label."""
    a = nxt[t]
    b = prv[t]
    while a >= 0 or b >= 0:
        if a >= 0:
            if wanted[labels[order[a]]]:
                return a
            a = nxt[a]
        if b >= 0:
            if wanted[labels[order[b]]]:
                return b
            b = prv[b]
    return -1


@njit(nogil=True, cache=True)
def cahd_groups(order, labels, n_labels, l, alpha, indptr, indices):
    """Group id of every record (groups numbered in order of their seeds)."""
    n = order.shape[0]
    group = np.full(n, -1, dtype=np.int64)
    counts = np.zeros(n_labels, dtype=np.int64)
    for t in range(n):
        counts[labels[order[t]]] += 1
    # doubly linked list over ranks of the ungrouped records
    nxt = np.arange(1, n + 1).astype(np.int64)
    nxt[n - 1] = -1
    prv = np.arange(-1, n - 1).astype(np.int64)
    left = n
    g = 0
    chosen = np.zeros(l, dtype=np.int64)
    in_group = np.zeros(n_labels, dtype=np.bool_)
    cand = np.zeros(2 * alpha * (l - 1) + 2, dtype=np.int64)
    wanted = np.zeros(n_labels, dtype=np.bool_)
    head = 0
    while left > 0:
        while group[order[head]] >= 0:
            head = nxt[head]
        t = head
        critical = 0
        for lab in range(n_labels):
            if counts[lab] * l > left - l:
                critical += 1
        if left < 2 * l or critical > l:
            u = t
            while u >= 0:
                group[order[u]] = g
                u = nxt[u]
            g += 1
            break
        if critical == l and counts[labels[order[t]]] * l <= left - l:
            # every member must be critical: the seed is the first record of a critical label
            u = nxt[t]
            while counts[labels[order[u]]] * l <= left - l:
                u = nxt[u]
            t = u
        seed = order[t]
        in_group[:] = False
        in_group[labels[seed]] = True
        size = 1
        chosen[0] = t
        # candidate list: nearest ungrouped ranks on both sides with another label
        nc = 0
        per_side = alpha * (l - 1)
        for side in range(2):
            u = nxt[t] if side == 0 else prv[t]
            taken = 0
            while u >= 0 and taken < per_side:
                if labels[order[u]] != labels[seed]:
                    cand[nc] = u
                    nc += 1
                    taken += 1
                u = nxt[u] if side == 0 else prv[u]
        # critical labels first: the candidate nearest the seed, else the nearest rank outside the list
        for lab in range(n_labels):
            if counts[lab] * l <= left - l or in_group[lab]:
                continue
            wanted[:] = False
            wanted[lab] = True
            best = _nearest_candidate(cand, nc, order, labels, wanted, seed, indptr, indices)
            if best < 0:
                best = _nearest_rank(t, nxt, prv, order, labels, wanted)
            chosen[size] = best
            size += 1
            in_group[lab] = True
        # then the nearest candidates with new labels, widening the scan if the list runs short
        while size < l:
            best = _nearest_candidate(cand, nc, order, labels, ~in_group, seed, indptr, indices)
            if best < 0:
                best = _nearest_rank(t, nxt, prv, order, labels, ~in_group)
            chosen[size] = best
            size += 1
            in_group[labels[order[best]]] = True
        for c in range(l):
            u = chosen[c]
            group[order[u]] = g
            counts[labels[order[u]]] -= 1
        for c in range(l):
            _unlink(nxt, prv, chosen[c])
        left -= l
        g += 1
    return group, g


def warm_up() -> None:
    """Compile the kernel on a tiny input."""
    order = np.arange(8, dtype=np.int64)
    # Label codes and the data's arrays are read-only in a real run (RecordLabels, TransactionData).
    labels = read_only(np.array([0, 1, 2, 0, 1, 2, 3, 3], dtype=np.int64))
    indptr = read_only(np.arange(9, dtype=np.int64))
    indices = read_only(np.arange(8, dtype=np.int32))
    cahd_groups(order, labels, 4, 2, 3, indptr, indices)
