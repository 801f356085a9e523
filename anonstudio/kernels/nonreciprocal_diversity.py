"""The label-spaced order of the diverse ring (``methods/nonreciprocal/diversity.py``).

Reorders the Gray-TSP order so that any two records with one label are at
least ``w = 2l - 1`` positions apart around the cycle (every cyclic window of
``w`` records carries distinct labels), while staying close to the input
order. Position ``t`` takes the earliest record, in the input order, whose
label is off its cool-down and whose placement keeps the rest feasible:

* every label's remaining copies still fit ``w`` apart before its end of the
  cycle (which wraps to its first copy), and
* the remaining counts still admit a schedule: with ``M`` the largest
  remaining count, held by ``c`` labels, ``(M - 1) w + c`` positions are needed
  (the classic condition of scheduling with a cool-down).

When no candidate passes, the available label with the most remaining
copies goes (the classic greedy). The result is checked; the driver falls
back to other layouts if it is not valid.

Slow reference: tests/reference/nonreciprocal_reference.py::windows_distinct
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import read_only
from .nonreciprocal_order import hamming

__all__ = ["spaced_order", "swap_same_labels", "windows_distinct", "warm_up", "LOCAL", "MOST_REMAINING"]

#: Strategies of :func:`spaced_order`.
LOCAL = 0
MOST_REMAINING = 1


@njit(nogil=True, cache=True)
def _by_label(seq, labels, n_labels):
    """Positions of ``seq`` grouped by label, ascending within a label (a counting sort).

    Returns ``(start, grouped, slot)``: label ``lab`` holds
    ``grouped[start[lab]:start[lab + 1]]``; ``slot[t]`` is where position ``t``
    sits in ``grouped``.
    """
    n = seq.shape[0]
    start = np.zeros(n_labels + 1, dtype=np.int64)
    for t in range(n):
        start[labels[seq[t]] + 1] += 1
    for lab in range(n_labels):
        start[lab + 1] += start[lab]
    grouped = np.zeros(n, dtype=np.int64)
    slot = np.zeros(n, dtype=np.int64)
    fill = start[:n_labels].copy()
    for t in range(n):
        lab = labels[seq[t]]
        grouped[fill[lab]] = t
        slot[t] = fill[lab]
        fill[lab] += 1
    return start, grouped, slot


@njit(nogil=True, cache=True)
def _feasible_after(t, lab, n, w, n_labels, remaining, last, first):
    """Whether placing ``lab`` at position ``t`` keeps the necessary conditions for the rest."""
    big = 0
    held = 0
    for x in range(n_labels):
        r = remaining[x] - (1 if x == lab else 0)
        if r <= 0:
            continue
        lx = t if x == lab else last[x]
        fx = (t if first[x] < 0 else first[x]) if x == lab else first[x]
        nxt = t + 1 if lx < 0 else max(t + 1, lx + w)
        end = n - 1 if fx < 0 else n - w + fx
        if nxt + (r - 1) * w > end:
            return False
        if r > big:
            big = r
            held = 1
        elif r == big:
            held += 1
    if big > 0 and (big - 1) * w + held > n - t - 1:
        return False
    return True


@njit(nogil=True, cache=True)
def spaced_order(order, labels, n_labels, w, strategy):
    """A label-spaced version of ``order``, or an empty array when this strategy fails.

    Parameters
    ----------
    order
        Record ids in their utility order (Gray-TSP).
    labels
        Label code of each record (``0..n_labels - 1``).
    w
        Window length (``2l - 1``).
    strategy
        LOCAL (earliest feasible record of the input order) or MOST_REMAINING
        (the available label with the most copies left, its earliest record).
    """
    n = order.shape[0]
    start, queue, _ = _by_label(order, labels, n_labels)  # ranks of each label's records, ascending
    head = start[:n_labels].copy()
    remaining = start[1:] - start[:n_labels]
    last = np.full(n_labels, -1, dtype=np.int64)
    first = np.full(n_labels, -1, dtype=np.int64)
    cand = np.zeros(n_labels, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    for t in range(n):
        nc = 0
        for lab in range(n_labels):
            if remaining[lab] > 0 and (last[lab] < 0 or t - last[lab] >= w):
                cand[nc] = lab
                nc += 1
        if nc == 0:
            return np.empty(0, dtype=np.int64)
        pick = -1
        if strategy == LOCAL:
            # candidates by the input rank of their earliest record (selection: usually the first passes)
            tried = 0
            while tried < nc:
                best = -1
                for c in range(nc):
                    lab = cand[c]
                    if lab >= 0 and (best < 0 or queue[head[lab]] < queue[head[cand[best]]]):
                        best = c
                lab = cand[best]
                cand[best] = -1
                tried += 1
                if _feasible_after(t, lab, n, w, n_labels, remaining, last, first):
                    pick = lab
                    break
            if pick < 0:
                nc = 0  # rebuild the candidate list for the fallback rule
                for lab in range(n_labels):
                    if remaining[lab] > 0 and (last[lab] < 0 or t - last[lab] >= w):
                        cand[nc] = lab
                        nc += 1
        if pick < 0:
            for c in range(nc):
                lab = cand[c]
                if pick < 0 or remaining[lab] > remaining[pick] or (
                        remaining[lab] == remaining[pick] and queue[head[lab]] < queue[head[pick]]):
                    pick = lab
        out[t] = order[queue[head[pick]]]
        head[pick] += 1
        remaining[pick] -= 1
        last[pick] = t
        if first[pick] < 0:
            first[pick] = t
    if not windows_distinct(out, labels, n_labels, w):
        return np.empty(0, dtype=np.int64)
    return out


@njit(nogil=True, cache=True)
def _near_cost(indptr, indices, out, p, rec, span, skip):
    """Sum of H(rec, out[p + d]) for 0 < |d| <= span (cyclic), leaving out position ``skip``."""
    n = out.shape[0]
    total = 0
    for d in range(1, span + 1):
        for q in ((p - d) % n, (p + d) % n):
            if q != skip:
                total += hamming(indptr, indices, rec, out[q])
    return total


@njit(nogil=True, cache=True)
def swap_same_labels(indptr, indices, out, labels, n_labels, reach, passes, span):
    """Shorten the windows of ``out`` by swapping records that share a label.

    The cost is the sum of ``H`` between records at most ``span`` positions
    apart (``span = 1``: the cyclic Hamming sum; ``span = l - 1``: every pair
    inside the ring's windows of ``l``). A swap keeps the label sequence,
    hence the spacing. Each record is tried against the ``reach`` nearest
    copies of its label on either side; an improving swap is applied at once.
    Positions whose neighbourhood did not change since they were last tried are
    skipped (don't-look bits). Stops after ``passes`` passes or a pass without
    improvement. Returns the
    total change of the cost (<= 0).
    """
    n = out.shape[0]
    # swaps keep every position's label, so these stay valid throughout
    start, spots, index = _by_label(out, labels, n_labels)
    counts = start[1:] - start[:n_labels]
    total = 0
    active = np.ones(n, dtype=np.bool_)  # don't-look bits: positions whose surroundings changed
    for _ in range(passes):
        improved = 0
        for p in range(n):
            if not active[p]:
                continue
            active[p] = False
            lab = labels[out[p]]
            c = counts[lab]
            if c < 2:
                continue
            k = index[p] - start[lab]
            for d in range(1, min(reach, c - 1) + 1):
                for sign in (-1, 1):
                    q = spots[start[lab] + (k + sign * d) % c]
                    a = out[p]
                    b = out[q]
                    # same-label copies are at least 2l - 1 > 2 span apart: the two neighbourhoods are disjoint
                    before = _near_cost(indptr, indices, out, p, a, span, q) + _near_cost(indptr, indices, out, q, b,
                                                                                          span, p)
                    after = _near_cost(indptr, indices, out, p, b, span, q) + _near_cost(indptr, indices, out, q, a,
                                                                                         span, p)
                    if after < before:
                        out[p] = b
                        out[q] = a
                        total += after - before
                        improved += 1
                        for e in range(-span, span + 1):
                            active[(p + e) % n] = True
                            active[(q + e) % n] = True
        if improved == 0:
            break
    return total


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
    # Label codes and the data's arrays are read-only in a real run (RecordLabels, TransactionData).
    labels = read_only(np.array([0, 0, 0, 1, 1, 1, 2, 2, 2], dtype=np.int64))
    spaced_order(order, labels, 3, 3, LOCAL)
    spaced_order(order, labels, 3, 3, MOST_REMAINING)
    indptr = read_only(np.arange(10, dtype=np.int64))
    indices = read_only(np.arange(9, dtype=np.int32))
    swap_same_labels(indptr, indices, order.copy(), labels, 3, 2, 2, 1)
