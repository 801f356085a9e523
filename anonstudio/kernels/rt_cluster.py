"""Kernels of RT clustering and merging (``anonstudio.methods.rt.cluster`` / ``merge``): relational NCPs.

A *summary* is the generalized tuple of a group of records, as four arrays
indexed by group: ``lo``, ``hi`` (numeric columns), ``node`` (hierarchy
columns, global node ids) and ``bits`` (set columns, 64 values per word).
``rel`` bundles what the NCP of a summary needs:
``(num_span, anc, depth, leaves_under, hier_total, word_offset, set_total, weight)``.
"""
from __future__ import annotations

import numpy as np
from numba import njit, uint64

from .ncp import count_ncp, range_ncp

__all__ = [
    "lca", "merged_ncp", "merged_ncp_many", "summary_ncp_all", "merge_into", "cluster_seeds",
    "assign_leftovers", "build_summaries", "warm_up",
]


@njit(nogil=True, cache=True, inline="always")
def lca(anc, depth, a, b):
    """Lowest common ancestor of nodes ``a`` and ``b`` (``anc[v, d]``: ancestor of ``v`` at depth ``d``)."""
    if a == b:
        return a
    d = min(depth[a], depth[b])
    while anc[a, d] != anc[b, d]:
        d -= 1
    return anc[a, d]


@njit(nogil=True, cache=True, inline="always")
def popcount(x):
    x = x - ((x >> uint64(1)) & uint64(0x5555555555555555))
    x = (x & uint64(0x3333333333333333)) + ((x >> uint64(2)) & uint64(0x3333333333333333))
    x = (x + (x >> uint64(4))) & uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * uint64(0x0101010101010101)) >> uint64(56))


@njit(nogil=True, cache=True)
def merged_ncp(sa, a, sb, b, rel):
    """NCP of the generalized tuple of groups ``a`` (summaries ``sa``) and ``b`` (``sb``) together."""
    alo, ahi, anode, abits = sa
    blo, bhi, bnode, bbits = sb
    num_span, anc, depth, leaves, hier_total, word_offset, set_total, weight = rel
    total = 0.0
    for c in range(num_span.shape[0]):
        total += range_ncp(min(alo[a, c], blo[b, c]), max(ahi[a, c], bhi[b, c]), num_span[c])
    for c in range(hier_total.shape[0]):
        node = lca(anc, depth, anode[a, c], bnode[b, c])
        total += count_ncp(leaves[node], hier_total[c])
    for c in range(set_total.shape[0]):
        covered = 0
        for w in range(word_offset[c], word_offset[c + 1]):
            covered += popcount(abits[a, w] | bbits[b, w])
        total += count_ncp(float(covered), set_total[c])
    return total * weight


@njit(nogil=True, cache=True)
def merged_ncp_many(sa, a, sb, cands, rel, out):
    """``out[j] = merged_ncp(sa, a, sb, cands[j])``."""
    for j in range(cands.shape[0]):
        out[j] = merged_ncp(sa, a, sb, cands[j], rel)
    return out


@njit(nogil=True, cache=True)
def summary_ncp_all(s, rel, out):
    """NCP of every summary on its own."""
    for i in range(out.shape[0]):
        out[i] = merged_ncp(s, i, s, i, rel)
    return out


@njit(nogil=True, cache=True)
def merge_into(sa, a, sb, b, rel):
    """Widen summary ``a`` of ``sa`` to cover summary ``b`` of ``sb``."""
    alo, ahi, anode, abits = sa
    blo, bhi, bnode, bbits = sb
    anc = rel[1]
    depth = rel[2]
    for c in range(alo.shape[1]):
        alo[a, c] = min(alo[a, c], blo[b, c])
        ahi[a, c] = max(ahi[a, c], bhi[b, c])
    for c in range(anode.shape[1]):
        anode[a, c] = lca(anc, depth, anode[a, c], bnode[b, c])
    for w in range(abits.shape[1]):
        abits[a, w] |= bbits[b, w]


@njit(nogil=True, cache=True)
def cluster_seeds(positions, alive, n_alive, assignment, first_cluster, k, sr, rel):
    """Phase 1 of Cluster for a chunk of seeds.

    For each seed (``alive[positions[t]]``, positions drawn by the caller),
    the ``k - 1`` alive records of lowest NCP(G({seed, r})) join it; ties go
    to the lower row (``alive`` is kept in row order). The cluster gets id
    ``first_cluster + t``; its rows leave ``alive``. Returns the new ``n_alive``.
    """
    dist = np.empty(alive.shape[0], dtype=np.float64)
    for t in range(positions.shape[0]):
        pos = positions[t]
        s = alive[pos]
        for j in range(n_alive):
            dist[j] = np.inf if j == pos else merged_ncp(sr, s, sr, alive[j], rel)
        need = k - 1
        cid = first_cluster + t
        assignment[s] = cid
        if need > 0:
            threshold = np.partition(dist[:n_alive], need - 1)[need - 1]
            below = 0
            for j in range(n_alive):
                if dist[j] < threshold:
                    below += 1
            equal_left = need - below
            for j in range(n_alive):
                d = dist[j]
                if d < threshold:
                    assignment[alive[j]] = cid
                elif d == threshold and equal_left > 0:
                    assignment[alive[j]] = cid
                    equal_left -= 1
        w = 0
        for j in range(n_alive):
            if assignment[alive[j]] < 0:
                alive[w] = alive[j]
                w += 1
        n_alive = w
    return n_alive


@njit(nogil=True, cache=True)
def assign_leftovers(rows, sr, sc, n_clusters, assignment, rel):
    """Phase 2 of Cluster: each row joins the cluster whose tuple it widens least (ties: lower id)."""
    for t in range(rows.shape[0]):
        r = rows[t]
        best = -1
        best_ncp = np.inf
        for c in range(n_clusters):
            v = merged_ncp(sc, c, sr, r, rel)
            if v < best_ncp:
                best_ncp = v
                best = c
        assignment[r] = best
        merge_into(sc, best, sr, r, rel)


@njit(nogil=True, cache=True)
def build_summaries(indptr, rows, sr, sc, rel):
    """Summary ``c`` of ``sc`` := generalization of records ``rows[indptr[c]:indptr[c + 1]]`` of ``sr``."""
    lo, hi, node, bits = sc
    rlo, rhi, rnode, rbits = sr
    for c in range(indptr.shape[0] - 1):
        first = rows[indptr[c]]
        lo[c, :] = rlo[first, :]
        hi[c, :] = rhi[first, :]
        node[c, :] = rnode[first, :]
        bits[c, :] = rbits[first, :]
        for t in range(indptr[c] + 1, indptr[c + 1]):
            merge_into(sc, c, sr, rows[t], rel)


def _tiny():
    lo = np.array([[1.0], [3.0], [2.0]])
    node = np.array([[1], [2], [2]], dtype=np.int32)
    bits = np.array([[1], [2], [1]], dtype=np.uint64)
    anc = np.array([[0, 0], [0, 1], [0, 2]], dtype=np.int32)
    rel = (np.array([2.0]), anc, np.array([0, 1, 1], dtype=np.int32), np.array([2.0, 1.0, 1.0]),
           np.array([2.0]), np.array([0, 1], dtype=np.int64), np.array([2.0]), 1.0 / 3.0)
    return (lo, lo.copy(), node, bits), rel


def warm_up() -> None:
    """Compile the kernels above on tiny inputs (see ``kernels.warmup``)."""
    sr, rel = _tiny()
    merged_ncp_many(sr, 0, sr, np.array([1, 2], dtype=np.int64), rel, np.empty(2))
    summary_ncp_all(sr, rel, np.empty(3))
    alive = np.arange(3, dtype=np.int64)
    assignment = np.full(3, -1, dtype=np.int64)
    n_alive = cluster_seeds(np.array([0], dtype=np.int64), alive, 3, assignment, 0, 2, sr, rel)
    sc = tuple(a[:1].copy() for a in sr)
    build_summaries(np.array([0, 2], dtype=np.int64), np.flatnonzero(assignment == 0), sr, sc, rel)
    assign_leftovers(alive[:n_alive], sr, sc, 1, assignment, rel)
