"""Count queries and possible worlds for the independent evaluator (:mod:`anonstudio.evaluate`).

A query is a set of *atoms*: items (ids below ``n_items``), values of a
published sensitive column (ids up to ``qi_base``) and quasi-identifier values
(ids from ``qi_base``). :func:`count_queries` answers queries exactly on the
original (people holding every atom); :func:`estimate_queries` answers them on a
release by its natural estimator, a sum over published records of the chance
that the record holds every atom:

* the product of the records' atom probabilities ``a_prob`` (1 for an item or
  value published as such, ``1/|g|`` inside a generalized item or cell ``g``,
  a share of a published multiset) times, for quasi-identifier atoms, the
  probabilities ``qi_prob[class, atom - qi_base]`` of the record's class;
* for nonreciprocal releases, the share of the record's possible worlds that
  hold every item (:func:`world_share`): a possible world of a record with
  base B, distance bitmap D and threshold t is B with a set F ⊆ D of at most t
  items flipped, each such world equally likely.

Slow reference: tests/reference/evaluate_reference.py::world_share,
tests/reference/evaluate_reference.py::query_estimate
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["world_share", "log_worlds", "world_marginals", "count_queries", "estimate_queries"]

_KIND_BASE_DIST = 1
_KIND_DIST = 2


@njit(nogil=True, cache=True)
def _log_binom(n, r):
    if r < 0 or r > n:
        return -np.inf
    return math.lgamma(n + 1.0) - math.lgamma(r + 1.0) - math.lgamma(n - r + 1.0)


@njit(nogil=True, cache=True)
def log_worlds(d, t):
    """log of the number of possible worlds: sum over f = 0..min(t, d) of C(d, f)."""
    top = min(t, d)
    best = -np.inf
    for f in range(top + 1):
        best = max(best, _log_binom(d, f))
    total = 0.0
    for f in range(top + 1):
        total += math.exp(_log_binom(d, f) - best)
    return best + math.log(total)


@njit(nogil=True, cache=True)
def world_share(d, t, keep, flip, log_z):
    """Share of the worlds (d distance items, at most t flips; ``log_z`` = :func:`log_worlds`) in which
    ``keep`` given distance items stay unflipped and ``flip`` others are flipped."""
    top = min(t, d)
    if flip > top or keep + flip > d:
        return 0.0
    free = d - keep - flip
    best = -np.inf
    for f in range(flip, top + 1):
        best = max(best, _log_binom(free, f - flip))
    if best == -np.inf:
        return 0.0
    total = 0.0
    for f in range(flip, top + 1):
        total += math.exp(_log_binom(free, f - flip) - best)
    return min(1.0, math.exp(best + math.log(total) - log_z))


@njit(nogil=True, cache=True)
def world_marginals(a_indptr, a_kind, n_dist, threshold, out_prob, out_log_z):
    """Per record its worlds' log count, and per atom the share of worlds holding it."""
    n = a_indptr.shape[0] - 1
    for j in range(n):
        d = n_dist[j]
        t = threshold[j]
        lz = log_worlds(d, t)
        out_log_z[j] = lz
        keep = world_share(d, t, 1, 0, lz) if d > 0 else 1.0
        flip = world_share(d, t, 0, 1, lz) if d > 0 else 0.0
        for p in range(a_indptr[j], a_indptr[j + 1]):
            kind = a_kind[p]
            if kind == _KIND_BASE_DIST:
                out_prob[p] = keep
            elif kind == _KIND_DIST:
                out_prob[p] = flip
            else:
                out_prob[p] = 1.0


@njit(nogil=True, cache=True, inline="always")
def _find(values, lo, hi, x):
    while lo < hi:
        mid = (lo + hi) >> 1
        v = values[mid]
        if v < x:
            lo = mid + 1
        elif v > x:
            hi = mid
        else:
            return mid
    return -1


@njit(nogil=True, cache=True)
def count_queries(q_indptr, q_atoms, p_indptr, p_atoms, post_indptr, post_people, out):
    """People holding every atom of each query (``p_*``: each person's sorted atoms, ``post_*``: postings)."""
    for i in range(q_indptr.shape[0] - 1):
        q0 = q_indptr[i]
        q1 = q_indptr[i + 1]
        best = q_atoms[q0]
        for q in range(q0 + 1, q1):
            x = q_atoms[q]
            if post_indptr[x + 1] - post_indptr[x] < post_indptr[best + 1] - post_indptr[best]:
                best = x
        count = 0
        for e in range(post_indptr[best], post_indptr[best + 1]):
            u = post_people[e]
            ok = True
            for q in range(q0, q1):
                if _find(p_atoms, p_indptr[u], p_indptr[u + 1], q_atoms[q]) < 0:
                    ok = False
                    break
            if ok:
                count += 1
        out[i] = count


@njit(nogil=True, cache=True)
def estimate_queries(q_indptr, q_atoms, qi_base, rec_class, class_size, qi_prob,
                     a_indptr, a_atoms, a_kind, a_prob, post_indptr, post_recs,
                     worlds, n_dist, threshold, log_z, out):
    """The release's estimate of each query (``q_atoms`` sorted: record atoms first, then quasi-identifier
    atoms); ``worlds`` selects the possible-worlds estimate of nonreciprocal releases."""
    n_classes = class_size.shape[0]
    for i in range(q_indptr.shape[0] - 1):
        q0 = q_indptr[i]
        q1 = q_indptr[i + 1]
        split = q0
        while split < q1 and q_atoms[split] < qi_base:
            split += 1
        total = 0.0
        if split == q0:  # quasi-identifier values only: whole classes
            for c in range(n_classes):
                w = float(class_size[c])
                for q in range(split, q1):
                    w *= qi_prob[c, q_atoms[q] - qi_base]
                total += w
            out[i] = total
            continue
        best = q_atoms[q0]
        for q in range(q0 + 1, split):
            x = q_atoms[q]
            if post_indptr[x + 1] - post_indptr[x] < post_indptr[best + 1] - post_indptr[best]:
                best = x
        for e in range(post_indptr[best], post_indptr[best + 1]):
            j = post_recs[e]
            c = rec_class[j]
            w = 1.0
            for q in range(split, q1):
                w *= qi_prob[c, q_atoms[q] - qi_base]
            if w == 0.0:
                continue
            lo = a_indptr[j]
            hi = a_indptr[j + 1]
            keep = 0
            flip = 0
            for q in range(q0, split):
                p = _find(a_atoms, lo, hi, q_atoms[q])
                if p < 0:
                    w = 0.0
                    break
                if worlds:
                    if a_kind[p] == _KIND_BASE_DIST:
                        keep += 1
                    elif a_kind[p] == _KIND_DIST:
                        flip += 1
                else:
                    w *= a_prob[p]
            if w == 0.0:
                continue
            if worlds and n_dist[j] > 0:
                w *= world_share(n_dist[j], threshold[j], keep, flip, log_z[j])
            total += w
        out[i] = total


def warm_up() -> None:
    """Compile the kernels on a two-record release (see ``kernels.warmup``); the evaluator passes writable
    arrays only."""
    a_indptr = np.array([0, 2, 3], dtype=np.int64)
    a_atoms = np.array([0, 1, 1], dtype=np.int64)
    a_kind = np.array([0, 2, 1], dtype=np.int8)
    n_dist = np.array([1, 1], dtype=np.int64)
    threshold = np.array([1, 1], dtype=np.int64)
    post_indptr = np.array([0, 1, 3], dtype=np.int64)
    post_recs = np.array([0, 0, 1], dtype=np.int64)
    q_indptr = np.array([0, 1, 3], dtype=np.int64)
    q_atoms = np.array([1, 0, 1], dtype=np.int64)
    rec_class = np.zeros(2, dtype=np.int64)
    class_size = np.array([2], dtype=np.int64)
    qi_prob = np.zeros((1, 0))
    prob = np.zeros(3)
    log_z = np.zeros(2)
    world_marginals(a_indptr, a_kind, n_dist, threshold, prob, log_z)
    count_queries(q_indptr, q_atoms, a_indptr, a_atoms, post_indptr, post_recs, np.zeros(2, dtype=np.int64))
    out = np.zeros(2)
    for worlds in (False, True):
        estimate_queries(q_indptr, q_atoms, 2, rec_class, class_size, qi_prob, a_indptr, a_atoms, a_kind, prob,
                         post_indptr, post_recs, worlds, n_dist, threshold, log_z, out)
