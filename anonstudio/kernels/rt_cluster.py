"""Kernels of RT clustering and merging (``anonstudio.methods.rt.cluster`` / ``merge``): generalized extents.

A *summary* is the generalized tuple of a group of records, as four arrays
indexed by group: ``lo``, ``hi`` (numeric columns), ``node`` (hierarchy
columns, global node ids) and ``bits`` (set columns, 64 values per word).
``rel`` bundles what widening summaries needs: ``(anc, depth, leaves_under,
word_offset)``.

The kernels return *extents*: per column, how much the generalized cell
spans (``hi - lo``, leaves under the common ancestor, values in the set),
columns in the order numeric, hierarchy, set. The NCP of an extent is
computed by :mod:`anonstudio.metrics.ncp`, the project's one NCP.

Slow reference: tests/reference/rt_reference.py::ref_ncp, tests/reference/rt_reference.py::ref_cluster
"""
from __future__ import annotations

import numpy as np
from numba import njit, uint64

__all__ = ["lca", "popcount", "merged_extents", "summary_extents", "merge_into", "build_summaries", "warm_up"]


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


@njit(nogil=True, cache=True, inline="always")
def _extent_row(sa, a, sb, b, rel, out, j):
    alo, ahi, anode, abits = sa
    blo, bhi, bnode, bbits = sb
    anc, depth, leaves, word_offset = rel
    n_num = alo.shape[1]
    n_hier = anode.shape[1]
    for c in range(n_num):
        out[j, c] = max(ahi[a, c], bhi[b, c]) - min(alo[a, c], blo[b, c])
    for c in range(n_hier):
        out[j, n_num + c] = leaves[lca(anc, depth, anode[a, c], bnode[b, c])]
    for c in range(word_offset.shape[0] - 1):
        covered = 0
        for w in range(word_offset[c], word_offset[c + 1]):
            covered += popcount(abits[a, w] | bbits[b, w])
        out[j, n_num + n_hier + c] = covered


@njit(nogil=True, cache=True)
def merged_extents(sa, a, sb, cands, rel, out):
    """``out[j]``: extents of the generalized tuple of group ``a`` of ``sa`` with group ``cands[j]`` of ``sb``."""
    for j in range(cands.shape[0]):
        _extent_row(sa, a, sb, cands[j], rel, out, j)
    return out


@njit(nogil=True, cache=True)
def summary_extents(s, rel, out):
    """Extents of every summary on its own."""
    for i in range(out.shape[0]):
        _extent_row(s, i, s, i, rel, out, i)
    return out


@njit(nogil=True, cache=True)
def merge_into(sa, a, sb, b, rel):
    """Widen summary ``a`` of ``sa`` to cover summary ``b`` of ``sb``."""
    alo, ahi, anode, abits = sa
    blo, bhi, bnode, bbits = sb
    anc = rel[0]
    depth = rel[1]
    for c in range(alo.shape[1]):
        alo[a, c] = min(alo[a, c], blo[b, c])
        ahi[a, c] = max(ahi[a, c], bhi[b, c])
    for c in range(anode.shape[1]):
        anode[a, c] = lca(anc, depth, anode[a, c], bnode[b, c])
    for w in range(abits.shape[1]):
        abits[a, w] |= bbits[b, w]


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
    rel = (anc, np.array([0, 1, 1], dtype=np.int32), np.array([2.0, 1.0, 1.0]), np.array([0, 1], dtype=np.int64))
    return (lo, lo.copy(), node, bits), rel


def warm_up() -> None:
    """Compile the kernels above on tiny inputs (see ``kernels.warmup``)."""
    sr, rel = _tiny()
    merged_extents(sr, 0, sr, np.array([1, 2], dtype=np.int64), rel, np.empty((2, 3)))
    summary_extents(sr, rel, np.empty((3, 3)))
    sc = tuple(a[:1].copy() for a in sr)
    build_summaries(np.array([0, 2], dtype=np.int64), np.array([0, 1], dtype=np.int64), sr, sc, rel)
    merge_into(sc, 0, sr, 2, rel)
