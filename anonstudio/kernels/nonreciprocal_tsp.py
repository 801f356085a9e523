"""Shortest Hamiltonian path with both ends fixed, per segment (``methods/nonreciprocal/tsp.py``).

A segment is a run of records in Gray order; its first and last records stay
in place, the interior is reordered to shorten the sum of Hamming distances
between consecutive records. Small segments (at most ``EXACT_MAX`` records)
are solved exactly by a Held-Karp dynamic programme; larger ones by a seeded
descent of 2-opt and Or-opt moves over neighbour lists with don't-look bits,
started from the Gray order and followed by a fixed number of double-bridge
kicks (iterated local search), keeping the best path. Both only ever accept a
strictly shorter path, so the result is never worse than the Gray order.

Slow reference: tests/reference/nonreciprocal_reference.py::held_karp
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import read_only
from .rng import randbelow

__all__ = [
    "EXACT_MAX", "segment_distances", "path_cost", "exact_path", "local_search", "improve_segments", "warm_up",
]

#: Segments with at most this many records are solved exactly (Held-Karp).
EXACT_MAX = 12
#: Candidate neighbours per node in the local search.
NEIGHBOURS = 10


@njit(nogil=True, cache=True)
def segment_distances(indptr, indices, recs, stamp):
    """Hamming distances between the records ``recs`` (int32 matrix).

    ``stamp`` is an int64 scratch array of length ``n_items`` holding values
    below ``-1`` or unused marks; it is left marked with ``-1 - a`` values,
    which the next call overwrites (each record stamps its own items before
    the records after it count the overlap).
    """
    s = recs.shape[0]
    d = np.zeros((s, s), dtype=np.int32)
    for a in range(s):
        ra = recs[a]
        tag = -2 - a
        for p in range(indptr[ra], indptr[ra + 1]):
            stamp[indices[p]] = tag
        la = indptr[ra + 1] - indptr[ra]
        for b in range(a + 1, s):
            rb = recs[b]
            common = 0
            for p in range(indptr[rb], indptr[rb + 1]):
                if stamp[indices[p]] == tag:
                    common += 1
            h = la + (indptr[rb + 1] - indptr[rb]) - 2 * common
            d[a, b] = h
            d[b, a] = h
    for a in range(s):  # leave no tag that a later call could mistake for its own
        ra = recs[a]
        for p in range(indptr[ra], indptr[ra + 1]):
            stamp[indices[p]] = 0
    return d


@njit(nogil=True, cache=True)
def path_cost(d, tour):
    total = 0
    for t in range(tour.shape[0] - 1):
        total += d[tour[t], tour[t + 1]]
    return total


@njit(nogil=True, cache=True)
def exact_path(d, key):
    """Optimal path from node 0 to node ``s - 1`` through all others (Held-Karp).

    Among optimal paths, the one whose sequence of ``key`` values is
    lexicographically smallest (``key`` = record ids, so the result does not
    depend on the order of equal-cost candidates).
    """
    s = d.shape[0]
    tour = np.arange(s).astype(np.int64)
    if s <= 3:
        return tour
    m = s - 2  # interior nodes 1..s-2 are bits 0..m-1
    full = (1 << m) - 1
    inf = np.int64(1) << 60
    # f[mask, v]: shortest path from interior node v through the interior nodes
    # in mask (v not in mask) to the end node
    f = np.full((1 << m, m), inf, dtype=np.int64)
    for v in range(m):
        f[0, v] = d[v + 1, s - 1]
    for mask in range(1, full + 1):
        for v in range(m):
            if mask & (1 << v):
                continue
            best = inf
            for w in range(m):
                if mask & (1 << w):
                    c = d[v + 1, w + 1] + f[mask ^ (1 << w), w]
                    if c < best:
                        best = c
            f[mask, v] = best
    by_key = np.argsort(key[1:s - 1], kind="mergesort")
    remaining = full
    cur = 0  # the start node (not an interior bit)
    for t in range(1, s - 1):
        target = inf
        for v in range(m):
            if remaining & (1 << v):
                c = d[cur, v + 1] + f[remaining ^ (1 << v), v]
                if c < target:
                    target = c
        for r in range(m):
            v = by_key[r]
            if remaining & (1 << v):
                if d[cur, v + 1] + f[remaining ^ (1 << v), v] == target:
                    tour[t] = v + 1
                    remaining ^= 1 << v
                    cur = v + 1
                    break
    tour[s - 1] = s - 1
    return tour


@njit(nogil=True, cache=True, inline="always")
def _reverse(tour, pos, lo, hi):
    while lo < hi:
        a = tour[lo]
        b = tour[hi]
        tour[lo] = b
        pos[b] = lo
        tour[hi] = a
        pos[a] = hi
        lo += 1
        hi -= 1


@njit(nogil=True, cache=True, inline="always")
def _push(queue, inq, head_tail, node):
    if not inq[node]:
        s = queue.shape[0]
        queue[head_tail[1] % s] = node
        head_tail[1] += 1
        inq[node] = True


@njit(nogil=True, cache=True)
def _two_opt(d, nbr, tour, pos, a, queue, inq, ht):
    """Try the 2-opt moves that give node ``a`` a nearer neighbour; apply the first improving one."""
    s = tour.shape[0]
    p = pos[a]
    for direction in range(2):
        if direction == 0:
            if p == s - 1:
                continue
            b = tour[p + 1]
        else:
            if p == 0:
                continue
            b = tour[p - 1]
        dab = d[a, b]
        for r in range(nbr.shape[1]):
            c = nbr[a, r]
            if c < 0:
                break
            g1 = dab - d[a, c]
            if g1 <= 0:
                break
            q = pos[c]
            if direction == 0:
                if q > p + 1:
                    if q == s - 1:
                        continue
                    e = tour[q + 1]
                    delta = d[a, c] + d[b, e] - dab - d[c, e]
                    lo, hi = p + 1, q
                elif q < p - 1:
                    e = tour[q + 1]
                    delta = d[c, a] + d[e, b] - d[c, e] - dab
                    lo, hi = q + 1, p
                else:
                    continue
            else:
                if q < p - 1:
                    if q == 0:
                        continue
                    e = tour[q - 1]
                    delta = d[e, b] + d[c, a] - d[e, c] - dab
                    lo, hi = q, p - 1
                elif q > p + 1:
                    e = tour[q - 1]
                    delta = d[b, e] + d[a, c] - dab - d[e, c]
                    lo, hi = p, q - 1
                else:
                    continue
            if delta < 0:
                _reverse(tour, pos, lo, hi)
                _push(queue, inq, ht, a)
                _push(queue, inq, ht, b)
                _push(queue, inq, ht, c)
                _push(queue, inq, ht, e)
                return delta
    return 0


@njit(nogil=True, cache=True)
def _move_block(tour, pos, x, y, u, reverse, buf):
    """Move positions ``x..y`` to sit right after position ``u`` (``u`` outside the block), maybe reversed."""
    s = tour.shape[0]
    k = 0
    for t in range(s):
        if x <= t <= y:
            continue
        buf[k] = tour[t]
        k += 1
        if t == u:
            if reverse:
                for z in range(y, x - 1, -1):
                    buf[k] = tour[z]
                    k += 1
            else:
                for z in range(x, y + 1):
                    buf[k] = tour[z]
                    k += 1
    for t in range(s):
        tour[t] = buf[t]
        pos[buf[t]] = t


@njit(nogil=True, cache=True)
def _or_opt(d, nbr, tour, pos, a, queue, inq, ht, buf):
    """Try moving a block of 1-3 records that starts or ends at ``a`` next to one of its neighbours."""
    s = tour.shape[0]
    p = pos[a]
    for length in range(1, 4):
        for side in range(2):
            if side == 0:
                x, y = p, p + length - 1
            else:
                if length == 1:
                    continue
                x, y = p - length + 1, p
            if x < 1 or y > s - 2:
                continue
            f = tour[x]
            e = tour[y]
            prev = tour[x - 1]
            nxt = tour[y + 1]
            g0 = d[prev, f] + d[e, nxt] - d[prev, nxt]
            if g0 <= 0:
                continue
            for end in range(2):
                node = f if end == 0 else e
                for r in range(nbr.shape[1]):
                    c = nbr[node, r]
                    if c < 0 or d[node, c] >= g0:
                        break
                    q = pos[c]
                    if x <= q <= y:
                        continue
                    for variant in range(2):
                        # the new edge node-c; the insertion gap is (u, u + 1)
                        if variant == 0:
                            u = q  # after c
                        else:
                            u = q - 1  # before c
                        if u < 0 or u + 1 > s - 1 or (x - 1 <= u <= y):
                            continue
                        uu = tour[u]
                        vv = tour[u + 1]
                        # which block end touches uu decides the orientation
                        if end == 0:
                            rev = variant == 1  # f next to c: c before f (forward) or after it (reversed)
                        else:
                            rev = variant == 0  # e next to c: c after e (forward) or before it (reversed)
                        if rev:
                            delta = d[uu, e] + d[f, vv] - d[uu, vv] - g0
                        else:
                            delta = d[uu, f] + d[e, vv] - d[uu, vv] - g0
                        if delta < 0:
                            _move_block(tour, pos, x, y, u, rev, buf)
                            _push(queue, inq, ht, prev)
                            _push(queue, inq, ht, nxt)
                            _push(queue, inq, ht, f)
                            _push(queue, inq, ht, e)
                            _push(queue, inq, ht, uu)
                            _push(queue, inq, ht, vv)
                            return delta
    return 0


@njit(nogil=True, cache=True)
def _descend(d, nbr, tour, pos, queue, inq, ht, buf):
    """Apply improving moves until none of the queued nodes has one; return the total change."""
    s = queue.shape[0]
    total = 0
    while ht[0] < ht[1]:
        a = queue[ht[0] % s]
        ht[0] += 1
        inq[a] = False
        delta = _two_opt(d, nbr, tour, pos, a, queue, inq, ht)
        if delta == 0:
            delta = _or_opt(d, nbr, tour, pos, a, queue, inq, ht, buf)
        if delta < 0:
            total += delta
            _push(queue, inq, ht, a)
    return total


@njit(nogil=True, cache=True)
def _neighbours(d, k):
    s = d.shape[0]
    k = min(k, s - 1)
    out = np.full((s, max(k, 1)), -1, dtype=np.int64)
    for a in range(s):
        row = d[a].astype(np.int64) * (s + 1) + np.arange(s)  # distance, then node id
        row[a] = np.int64(1) << 60
        idx = np.argsort(row, kind="mergesort")
        for r in range(k):
            out[a, r] = idx[r]
    return out


@njit(nogil=True, cache=True)
def local_search(d, state, kicks):
    """A short path from node 0 to node ``s - 1``, started from ``0, 1, ..., s - 1``.

    Seeded descent (2-opt and Or-opt over neighbour lists, nodes visited in a
    random order) followed by ``kicks`` double-bridge perturbations of the
    interior, each followed by a descent and kept only when strictly shorter.
    """
    s = d.shape[0]
    tour = np.arange(s).astype(np.int64)
    if s <= 3:
        return tour
    nbr = _neighbours(d, NEIGHBOURS)
    pos = np.arange(s).astype(np.int64)
    queue = np.empty(s, dtype=np.int64)
    inq = np.zeros(s, dtype=np.bool_)
    ht = np.zeros(2, dtype=np.int64)
    buf = np.empty(s, dtype=np.int64)
    perm = np.arange(s).astype(np.int64)
    for i in range(s - 1, 0, -1):
        j = randbelow(state, i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    for i in range(s):
        _push(queue, inq, ht, perm[i])
    cost = path_cost(d, tour) + _descend(d, nbr, tour, pos, queue, inq, ht, buf)
    if kicks <= 0 or s < 8:
        return tour
    best = tour.copy()
    best_cost = cost
    for _ in range(kicks):
        # cut points 1 <= p1 < p2 < p3 <= s - 1: A B C D -> A C B D keeps both ends
        p1 = 1 + randbelow(state, s - 3)
        p2 = p1 + 1 + randbelow(state, s - 2 - p1)
        p3 = p2 + 1 + randbelow(state, s - 1 - p2)
        k = 0
        for t in range(p1):
            buf[k] = best[t]
            k += 1
        for t in range(p2, p3):
            buf[k] = best[t]
            k += 1
        for t in range(p1, p2):
            buf[k] = best[t]
            k += 1
        for t in range(p3, s):
            buf[k] = best[t]
            k += 1
        for t in range(s):
            tour[t] = buf[t]
            pos[buf[t]] = t
        mid = p1 + (p3 - p2)  # where B now starts
        for t in (p1 - 1, p1, mid - 1, mid, p3 - 1, p3):
            _push(queue, inq, ht, tour[t])
        _descend(d, nbr, tour, pos, queue, inq, ht, buf)
        c = path_cost(d, tour)
        if c < best_cost:
            best_cost = c
            best[:] = tour
    return best


@njit(nogil=True, cache=True)
def improve_segments(indptr, indices, order, bounds, first, last, seeds, kicks, n_items, out, before, after):
    """Reorder the interiors of segments ``first..last - 1`` of ``order`` into ``out``.

    ``bounds`` are the segment boundaries (positions in ``order``); ``seeds``
    one RNG seed per segment, so the result does not depend on how segments
    are split among calls or threads. ``before``/``after`` receive each
    segment's linear path length in Gray and in the improved order.
    """
    stamp = np.zeros(n_items, dtype=np.int64)
    for sgm in range(first, last):
        lo = bounds[sgm]
        hi = bounds[sgm + 1]
        recs = order[lo:hi].copy()
        d = segment_distances(indptr, indices, recs, stamp)
        base = path_cost(d, np.arange(hi - lo))
        if hi - lo <= EXACT_MAX:
            tour = exact_path(d, recs)
        else:
            state = np.empty(1, dtype=np.uint64)
            state[0] = seeds[sgm]
            tour = local_search(d, state, kicks)
        c = path_cost(d, tour)
        if c > base:  # cannot happen (only improving moves), but never publish a worse order
            tour = np.arange(hi - lo)
            c = base
        for t in range(hi - lo):
            out[lo + t] = recs[tour[t]]
        before[sgm] = base
        after[sgm] = c


def warm_up() -> None:
    """Compile the kernels above on tiny inputs.

    Data arrays are read-only, as a dataset's are (``kernels.read_only``).
    """
    rng = np.random.default_rng(0)
    lists = [np.sort(rng.choice(12, size=4, replace=False)) for _ in range(16)]
    indptr = np.zeros(17, dtype=np.int64)
    indptr[1:] = np.cumsum([len(x) for x in lists])
    indices = np.concatenate(lists).astype(np.int32)
    indptr, indices = read_only(indptr), read_only(indices)
    order = np.arange(16, dtype=np.int64)
    out = order.copy()
    bounds = np.array([0, 6, 16], dtype=np.int64)
    seeds = np.array([1, 2], dtype=np.uint64)
    before = np.zeros(2, dtype=np.int64)
    after = np.zeros(2, dtype=np.int64)
    improve_segments(indptr, indices, order, bounds, 0, 2, seeds, 2, 12, out, before, after)

