"""Candidate counting for the independent evaluator (:mod:`anonstudio.evaluate`).

An attacker knows a target's quasi-identifier values (a *tuple*) and a set K of
the target's items. A published record ``j`` is a candidate when

* its class (its published quasi-identifier cells) covers the tuple: the bit
  ``rec_class[j]`` of the tuple's cover, the AND over the tuple's values of
  ``colbits[row]`` (one bit per class whose cell in that column holds the value);
* every known item is among its atoms ``a_atoms[a_indptr[j]:a_indptr[j + 1]]``
  (sorted), and the known items of kind 2 (nonreciprocal: outside the base,
  in the distance bitmap) number at most ``budget[j]``.

With no known item the candidates are whole classes (``class_size``), and the
sums of the atoms' probabilities per class come from ``cs_*``. Otherwise the
records holding the known item with the shortest posting list are tested one
by one. For each candidate the kernel adds up ``a_prob`` of each of the
target's sensitive atoms not in K: the attacker's confidence that the target
holds that value is that sum over the number of candidates.

:func:`exact_targets` enumerates every m-subset of every target's pool (in
``itertools.combinations`` order); :func:`sampled_pairs` draws a target
uniformly, then m of its items uniformly, from a caller-owned RNG state.

Slow reference: tests/reference/evaluate_reference.py::candidates, tests/reference/evaluate_reference.py::risk_measures
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .rng import randbelow, sample_without_replacement

__all__ = ["exact_targets", "sampled_pairs", "KIND_CERTAIN", "KIND_BASE_DIST", "KIND_DIST", "NO_BUDGET"]

#: Atom kinds: published as such; nonreciprocal base item that the distance bitmap may flip out; distance-only item.
KIND_CERTAIN = 0
KIND_BASE_DIST = 1
KIND_DIST = 2
#: Budget of records without a threshold.
NO_BUDGET = np.int64(1) << np.int64(62)
#: Tolerance of "held by more than a fraction rho": sums of probabilities are not exact in binary.
_TOL = 1e-9


@njit(nogil=True, cache=True, inline="always")
def _find(values, lo, hi, x):
    """Index of ``x`` in the sorted ``values[lo:hi]``, or -1."""
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
def _cover(rows, colbits, valid, out):
    """``out`` = the classes whose cells hold every value of the tuple (``rows``: its rows of ``colbits``)."""
    for w in range(valid.shape[0]):
        out[w] = valid[w]
    for q in range(rows.shape[0]):
        r = rows[q]
        for w in range(valid.shape[0]):
            out[w] &= colbits[r, w]


@njit(nogil=True, cache=True, inline="always")
def _has(bits, c):
    return (bits[c >> 6] >> np.uint64(c & 63)) & np.uint64(1)


@njit(nogil=True, cache=True, inline="always")
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(nogil=True, cache=True, inline="always")
def _low_bit(x):
    """Index of the lowest set bit of a non-zero word."""
    return _popcount((x & (~x + np.uint64(1))) - np.uint64(1))


@njit(nogil=True, cache=True)
def _count_bits(known, mk, own, sens, ns, acc, a_indptr, a_atoms, a_prob, budget,
                abits, nzw_indptr, nzw, uprob, dbits, min_budget, lowb):
    """:func:`_count` on per-atom record bit sets (one class): the candidates are the AND of the known items'
    sets, restricted to the words where the rarest known item has records."""
    best = known[0]
    for q in range(1, mk):
        x = known[q]
        if nzw_indptr[x + 1] - nzw_indptr[x] < nzw_indptr[best + 1] - nzw_indptr[best]:
            best = x
    check_cost = mk > min_budget
    count = 0
    for e in range(nzw_indptr[best], nzw_indptr[best + 1]):
        w = nzw[e]
        word = abits[best, w]
        for q in range(mk):
            word &= abits[known[q], w]
            if word == 0:
                break
        if word == 0:
            continue
        if check_cost:  # nonreciprocal: drop records where too many known items lie outside the base
            costly = np.uint64(0)
            for q in range(mk):
                costly |= dbits[known[q], w]
            # Only records with a known item outside their base, and a threshold below m, can exceed it.
            costly &= word & lowb[w]
            while costly:
                b = _low_bit(costly)
                bit = np.uint64(1) << np.uint64(b)
                costly ^= bit
                cost = 0
                for q in range(mk):
                    cost += np.int64((dbits[known[q], w] >> np.uint64(b)) & np.uint64(1))
                if cost > budget[w * 64 + b]:
                    word &= ~bit
            if word == 0:
                continue
        count += _popcount(word)
        for q in range(ns):
            s = sens[q]
            if uprob[s] >= 0.0:
                acc[q] += uprob[s] * _popcount(word & abits[s, w])
            else:
                rest = word
                while rest:
                    b = _low_bit(rest)
                    rest ^= np.uint64(1) << np.uint64(b)
                    j = w * 64 + b
                    p = _find(a_atoms, a_indptr[j], a_indptr[j + 1], s)
                    if p >= 0:
                        acc[q] += a_prob[p]
    own_ok = False
    if own >= 0:
        ow = own >> 6
        ob = np.uint64(own & 63)
        own_ok = True
        cost = 0
        for q in range(mk):
            if not (abits[known[q], ow] >> ob) & np.uint64(1):
                own_ok = False
                break
            if check_cost:
                cost += np.int64((dbits[known[q], ow] >> ob) & np.uint64(1))
        if own_ok and cost > budget[own]:
            own_ok = False
    return count, own_ok


@njit(nogil=True, cache=True)
def _count(known, mk, cover, own, sens, ns, acc, mark, stamp,
           rec_class, class_size, cs_indptr, cs_atoms, cs_sum,
           a_indptr, a_atoms, a_kind, a_prob, budget, post_indptr, post_recs,
           abits, nzw_indptr, nzw, uprob, dbits, min_budget, lowb):
    """Candidates of one (target, K): (count, own record a candidate, distinct sensitive values or -1).

    ``acc[:ns]`` receives, per sensitive atom ``sens[q]``, the sum of its probability over the candidates.
    With bit sets (``abits`` has rows: releases of one class) the candidates of a known set are counted by
    :func:`_count_bits`, otherwise by testing the records of the rarest known item.
    """
    for q in range(ns):
        acc[q] = 0.0
    count = 0
    own_ok = False
    if mk == 0:
        distinct = 0
        stamp[0] += 1
        for w in range(cover.shape[0]):
            bits = cover[w]
            while bits:
                b = _low_bit(bits)
                bits ^= np.uint64(1) << np.uint64(b)
                c = w * 64 + b
                count += class_size[c]
                lo = cs_indptr[c]
                hi = cs_indptr[c + 1]
                for q in range(ns):
                    p = _find(cs_atoms, lo, hi, sens[q])
                    if p >= 0:
                        acc[q] += cs_sum[p]
                for p in range(lo, hi):
                    if cs_sum[p] > 0.0 and mark[cs_atoms[p]] != stamp[0]:
                        mark[cs_atoms[p]] = stamp[0]
                        distinct += 1
        if own >= 0 and _has(cover, rec_class[own]):
            own_ok = True
        return count, own_ok, distinct
    if abits.shape[0] > 0:
        for q in range(ns):
            acc[q] = 0.0
        count, own_ok = _count_bits(known, mk, own, sens, ns, acc, a_indptr, a_atoms, a_prob, budget,
                                    abits, nzw_indptr, nzw, uprob, dbits, min_budget, lowb)
        return count, own_ok, -1
    best = known[0]
    for q in range(1, mk):
        x = known[q]
        if post_indptr[x + 1] - post_indptr[x] < post_indptr[best + 1] - post_indptr[best]:
            best = x
    for e in range(post_indptr[best], post_indptr[best + 1]):
        j = post_recs[e]
        if not _has(cover, rec_class[j]):
            continue
        lo = a_indptr[j]
        hi = a_indptr[j + 1]
        cost = 0
        ok = True
        for q in range(mk):
            p = _find(a_atoms, lo, hi, known[q])
            if p < 0:
                ok = False
                break
            if a_kind[p] == KIND_DIST:
                cost += 1
        if not ok or cost > budget[j]:
            continue
        count += 1
        if j == own:
            own_ok = True
        for q in range(ns):
            p = _find(a_atoms, lo, hi, sens[q])
            if p >= 0:
                acc[q] += a_prob[p]
    return count, own_ok, -1


@njit(nogil=True, cache=True)
def _next_combination(idx, mk, size):
    """Advance ``idx[:mk]`` to the next mk-subset of range(size) in lexicographic order; False after the last."""
    q = mk - 1
    while q >= 0 and idx[q] == size - mk + q:
        q -= 1
    if q < 0:
        return False
    idx[q] += 1
    for r in range(q + 1, mk):
        idx[r] = idx[r - 1] + 1
    return True


@njit(nogil=True, cache=True)
def _sensitive_left(sens_atoms, s0, s1, known, mk, out):
    """The target's sensitive atoms not among the known ones, into ``out``; how many."""
    ns = 0
    for s in range(s0, s1):
        x = sens_atoms[s]
        hit = False
        for q in range(mk):
            if known[q] == x:
                hit = True
                break
        if not hit:
            out[ns] = x
            ns += 1
    return ns


@njit(nogil=True, cache=True)
def exact_targets(order, lo, hi, m, k, rho,
                  pool_indptr, pool_items, sens_indptr, sens_atoms, own, tuple_of, tuple_rows,
                  colbits, valid, rec_class, class_size, cs_indptr, cs_atoms, cs_sum,
                  a_indptr, a_atoms, a_kind, a_prob, budget, post_indptr, post_recs, n_atoms,
                  abits, nzw_indptr, nzw, uprob, dbits, min_budget, lowb,
                  out_pairs, out_pr, out_risk, out_attr, out_min_count, out_min_at, out_max_conf, out_conf_at,
                  out_conf_atom, out_min_distinct):
    """Every known set of the targets ``order[lo:hi]``; outputs at positions ``i - lo``.

    Per target: the number of known sets, the sums over them of [own record a candidate] / candidates,
    of [own a candidate and fewer than k candidates] and of [own a candidate and a sensitive value held by
    more than rho of the candidates]; among known sets whose own record is a candidate, the fewest
    candidates (and the set's index in combinations order), the highest confidence (index, atom) and the
    fewest distinct sensitive values (-1 when not counted).
    """
    n_words = valid.shape[0]
    cover = np.empty(n_words, dtype=np.uint64)
    idx = np.empty(max(m, 1), dtype=np.int64)
    known = np.empty(max(m, 1), dtype=np.int64)
    max_sens = 1
    for i in range(lo, hi):
        u = order[i]
        max_sens = max(max_sens, sens_indptr[u + 1] - sens_indptr[u])
    acc = np.empty(max_sens, dtype=np.float64)
    sens = np.empty(max_sens, dtype=np.int64)
    mark = np.zeros(n_atoms, dtype=np.int64)
    stamp = np.zeros(1, dtype=np.int64)
    last = -1
    for i in range(lo, hi):
        u = order[i]
        t = tuple_of[u]
        if t != last:
            _cover(tuple_rows[t], colbits, valid, cover)
            last = t
        p0 = pool_indptr[u]
        size = pool_indptr[u + 1] - p0
        mk = min(size, m)
        for q in range(mk):
            idx[q] = q
        pairs = 0
        pr = 0.0
        risk = 0
        attr = 0
        min_count = np.int64(-1)
        min_at = np.int64(-1)
        max_conf = -1.0
        conf_at = np.int64(-1)
        conf_atom = np.int64(-1)
        min_distinct = np.int64(-1)
        while True:
            for q in range(mk):
                known[q] = pool_items[p0 + idx[q]]
            ns = _sensitive_left(sens_atoms, sens_indptr[u], sens_indptr[u + 1], known, mk, sens)
            count, own_ok, distinct = _count(known, mk, cover, own[u], sens, ns, acc, mark, stamp,
                                             rec_class, class_size, cs_indptr, cs_atoms, cs_sum,
                                             a_indptr, a_atoms, a_kind, a_prob, budget, post_indptr, post_recs,
                                             abits, nzw_indptr, nzw, uprob, dbits, min_budget, lowb)
            if own_ok:
                pr += 1.0 / count
                if count < k:
                    risk += 1
                if min_count < 0 or count < min_count:
                    min_count = count
                    min_at = pairs
                if distinct >= 0 and (min_distinct < 0 or distinct < min_distinct):
                    min_distinct = distinct
                disclosed = False
                for q in range(ns):
                    conf = acc[q] / count
                    if acc[q] > rho * count + _TOL:
                        disclosed = True
                    if conf > max_conf:
                        max_conf = conf
                        conf_at = pairs
                        conf_atom = sens[q]
                if disclosed:
                    attr += 1
            pairs += 1
            if not _next_combination(idx, mk, size):
                break
        o = i - lo
        out_pairs[o] = pairs
        out_pr[o] = pr
        out_risk[o] = risk
        out_attr[o] = attr
        out_min_count[o] = min_count
        out_min_at[o] = min_at
        out_max_conf[o] = max_conf
        out_conf_at[o] = conf_at
        out_conf_atom[o] = conf_atom
        out_min_distinct[o] = min_distinct


@njit(nogil=True, cache=True)
def sampled_pairs(state, n_draws, m,
                  pool_indptr, pool_items, sens_indptr, sens_atoms, own, tuple_of, tuple_rows,
                  colbits, valid, rec_class, class_size, cs_indptr, cs_atoms, cs_sum,
                  a_indptr, a_atoms, a_kind, a_prob, budget, post_indptr, post_recs, n_atoms,
                  abits, nzw_indptr, nzw, uprob, dbits, min_budget, lowb,
                  out_target, out_known, out_count, out_own, out_max_conf, out_conf_atom):
    """``n_draws`` (target, K) pairs: a target uniformly, then a uniform m-subset of its pool (all of it when
    shorter, sorted into ``out_known`` padded with -1); per draw the candidates, whether the own record is
    one, and the highest confidence in a sensitive value not in K (-1 without one) and its atom."""
    n_targets = own.shape[0]
    n_words = valid.shape[0]
    cover = np.empty(n_words, dtype=np.uint64)
    known = np.empty(max(m, 1), dtype=np.int64)
    picked = np.empty(max(m, 1), dtype=pool_items.dtype)
    max_sens = 1
    for u in range(n_targets):
        max_sens = max(max_sens, sens_indptr[u + 1] - sens_indptr[u])
    acc = np.empty(max_sens, dtype=np.float64)
    sens = np.empty(max_sens, dtype=np.int64)
    mark = np.zeros(n_atoms, dtype=np.int64)
    stamp = np.zeros(1, dtype=np.int64)
    for i in range(n_draws):
        u = randbelow(state, n_targets)
        _cover(tuple_rows[tuple_of[u]], colbits, valid, cover)
        p0 = pool_indptr[u]
        size = pool_indptr[u + 1] - p0
        mk = min(size, m)
        if mk == size:
            for q in range(mk):
                known[q] = pool_items[p0 + q]
        else:
            sample_without_replacement(state, pool_items[p0:p0 + size], mk, picked)
            for q in range(mk):
                known[q] = picked[q]
            # insertion sort: the pools are sorted, and a reader expects the known set sorted too
            for q in range(1, mk):
                x = known[q]
                r = q - 1
                while r >= 0 and known[r] > x:
                    known[r + 1] = known[r]
                    r -= 1
                known[r + 1] = x
        for q in range(m):
            out_known[i, q] = known[q] if q < mk else -1
        ns = _sensitive_left(sens_atoms, sens_indptr[u], sens_indptr[u + 1], known, mk, sens)
        count, own_ok, distinct = _count(known, mk, cover, own[u], sens, ns, acc, mark, stamp,
                                         rec_class, class_size, cs_indptr, cs_atoms, cs_sum,
                                         a_indptr, a_atoms, a_kind, a_prob, budget, post_indptr, post_recs,
                                         abits, nzw_indptr, nzw, uprob, dbits, min_budget, lowb)
        out_target[i] = u
        out_count[i] = count
        out_own[i] = own_ok
        best = -1.0
        atom = np.int64(-1)
        if count > 0:
            for q in range(ns):
                conf = acc[q] / count
                if conf > best:
                    best = conf
                    atom = sens[q]
        out_max_conf[i] = best
        out_conf_atom[i] = atom


def _tiny():
    """Two people, two published records, one class: the arrays of a plain release of {0,1} and {1}."""
    pool_indptr = np.array([0, 2, 3], dtype=np.int64)
    pool_items = np.array([0, 1, 1], dtype=np.int32)
    sens_indptr = np.array([0, 1, 1], dtype=np.int64)
    sens_atoms = np.array([1], dtype=np.int64)
    own = np.array([0, 1], dtype=np.int64)
    tuple_of = np.zeros(2, dtype=np.int64)
    tuple_rows = np.zeros((1, 0), dtype=np.int64)
    colbits = np.zeros((0, 1), dtype=np.uint64)
    valid = np.ones(1, dtype=np.uint64)
    rec_class = np.zeros(2, dtype=np.int64)
    class_size = np.array([2], dtype=np.int64)
    cs_indptr = np.array([0, 1], dtype=np.int64)
    cs_atoms = np.array([1], dtype=np.int64)
    cs_sum = np.array([2.0])
    a_indptr = np.array([0, 2, 3], dtype=np.int64)
    a_atoms = np.array([0, 1, 1], dtype=np.int64)
    a_kind = np.zeros(3, dtype=np.int8)
    a_prob = np.ones(3)
    budget = np.full(2, NO_BUDGET, dtype=np.int64)
    post_indptr = np.array([0, 1, 3], dtype=np.int64)
    post_recs = np.array([0, 0, 1], dtype=np.int64)
    return [pool_indptr, pool_items, sens_indptr, sens_atoms, own, tuple_of, tuple_rows, colbits, valid, rec_class,
            class_size, cs_indptr, cs_atoms, cs_sum, a_indptr, a_atoms, a_kind, a_prob, budget, post_indptr,
            post_recs, 2]


def _tiny_bits(with_bits: bool):
    """Bit sets of :func:`_tiny`'s release (or none: the posting-list path)."""
    if not with_bits:
        return [np.zeros((0, 1), dtype=np.uint64), np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                np.zeros(0), np.zeros((0, 1), dtype=np.uint64), NO_BUDGET, np.zeros(1, dtype=np.uint64)]
    abits = np.array([[1], [3]], dtype=np.uint64)
    return [abits, np.array([0, 1, 2], dtype=np.int64), np.zeros(2, dtype=np.int64), np.ones(2),
            np.zeros((2, 1), dtype=np.uint64), NO_BUDGET, np.zeros(1, dtype=np.uint64)]


def warm_up() -> None:
    """Compile both drivers on two people (see ``kernels.warmup``); the evaluator passes writable arrays only."""
    n = 2
    order = np.arange(n, dtype=np.int64)
    for with_bits in (False, True):
        arrays = _tiny() + _tiny_bits(with_bits)
        outs = [np.zeros(n, np.int64), np.zeros(n), np.zeros(n, np.int64), np.zeros(n, np.int64),
                np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n), np.zeros(n, np.int64),
                np.zeros(n, np.int64), np.zeros(n, np.int64)]
        exact_targets(order, 0, n, 2, 2, 0.5, *arrays, *outs)
        state = np.array([np.uint64(1)], dtype=np.uint64)
        draws = 4
        sampled_pairs(state, draws, 1, *arrays, np.zeros(draws, dtype=np.int64),
                      np.zeros((draws, 1), dtype=np.int64), np.zeros(draws, dtype=np.int64),
                      np.zeros(draws, dtype=np.bool_), np.zeros(draws), np.zeros(draws, dtype=np.int64))
