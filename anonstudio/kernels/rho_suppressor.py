"""Numba kernels of SUPPRESSOR and SAMPLESUPPRESSOR (driver: ``methods/rho/suppressor.py``).

The published data D' is the ORIGINAL records plus one ``alive`` flag per item
occurrence, with indexes that are updated on every suppression. The kernels
take them as tuples (built by the driver's ``SuppressionState``):

``dp = (indptr, indices, alive, post_start, post_len, post_rec, c0, tot, bits, stamp, clock)``
    ``indptr``/``indices``: the original records (CSR, ids sorted per record);
    ``alive``: uint8 per occurrence, 1 while published; the records of D'
    holding item i are ``post_rec[post_start[i] : post_start[i] + post_len[i]]``
    (ascending), so ``post_len`` is the current support c'_i; ``c0`` the
    original supports; ``tot = [T, T']`` all occurrences of D and D';
    ``bits`` one record bitset per item (shape (0, 0) when too large), for
    intersecting Q of two or more frequent items; ``stamp[i]`` the ``clock``
    value of the last suppression in a record holding i.
``ep = (gmask, add_ptr, add_items, del_ptr, del_items)``
    E_u over data items: ``gmask`` marks the global set, ``add_*`` / ``del_*``
    are per-record CSR (sorted) of items added to / dropped from it.
``cache = (built, s_q, n_cand, cand)``
    For Q = {q}: supp_D'(Q) and the items e with q·supp(Q∪{e}) > p·supp(Q)
    ("candidates", ascending), valid while ``stamp[q] <= built[q]``. At
    ℓ = 1 every holder of a frequent item asks the same question, so the
    tally is done once per change instead of once per person.
``work = (recs, recs2, tally, touched, viol, words, q, pos, draw)``
    Scratch space.
``log = (log_meta, log_q, log_recs, ctr)``
    The repair log (columns :data:`LOG_COLUMNS`), Q per entry, the records
    edited, and ``ctr = [entries, records]``.

One adversary check (:func:`violated_items`) collects the records of D'
holding Q, then tallies the items of those records: an item can only break ρ
if it co-occurs with Q, so sensitive items that never co-occur are pruned
without being looked at.

Record choice (Alg. 1 line 14) is a partial Fisher-Yates shuffle of the
ascending records holding Q∪{e}, driven by one splitmix64 stream for the run
(:mod:`anonstudio.kernels.rng`); the pure-Python reference in
``tests/reference/rho_reference.py`` follows the same draw protocol.

Slow reference: tests/reference/rho_reference.py::suppressor, tests/reference/rho_reference.py::sample_suppressor
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from . import read_only
from .rng import first_above, make_state, randbelow, sample_without_replacement, uniform
from .support import in_record, trailing_zeros

__all__ = [
    "LOG_COLUMNS", "OK", "NEED_RULES", "NEED_LOG", "BUDGET", "RESUME_SLOTS",
    "suppression_numbers", "violated_items", "repair_one", "exact_chunk", "draw_and_check", "repair_rules",
    "active_users", "record_bits",
    "warm_up",
]

#: Columns of the repair log (one row per repaired rule).
LOG_COLUMNS = ("pass", "level", "user", "e", "d", "n", "s_q", "s_qe", "rec_start")
#: Return codes of the chunked kernels (BUDGET: the call's work budget ran out; call again to go on).
OK, NEED_RULES, NEED_LOG, BUDGET = 0, 1, 2, 3
#: Slots of :func:`exact_chunk`'s ``resume`` array (int64): a user's listing left half done, and the work done.
RESUME_SLOTS = 5


@njit(nogil=True, cache=True)
def _row_find(indptr, indices, r, item):
    """Position of ``item`` in original record ``r``, or -1 (the alive flag lives at that position)."""
    lo = indptr[r]
    hi = indptr[r + 1]
    k = lo + np.searchsorted(indices[lo:hi], item)
    return k if k < hi and indices[k] == item else -1


@njit(nogil=True, cache=True)
def _in_e(u, i, ep):
    """Whether data item ``i`` is in E_u."""
    gmask, add_ptr, add_items, del_ptr, del_items = ep
    if gmask[i]:
        return not in_record(del_items, del_ptr[u], del_ptr[u + 1], i)
    return in_record(add_items, add_ptr[u], add_ptr[u + 1], i)


@njit(nogil=True, cache=True)
def _collect(q, ell, dp, words, out):
    """Write the records of D' holding every item of ``q[:ell]`` to ``out`` (ascending); return their number.

    Scans the shortest posting list and looks the other items up in each
    record, or ANDs the items' record bitsets when that list is long.
    """
    indptr, indices, alive, post_start, post_len, post_rec, c0, tot, bits, stamp, clock = dp
    best = 0
    for t in range(1, ell):
        if post_len[q[t]] < post_len[q[best]]:
            best = t
    b = q[best]
    base = post_start[b]
    n_words = bits.shape[1]
    if ell > 1 and n_words > 0 and post_len[b] * 4 > n_words:
        for w in range(n_words):
            x = bits[q[0], w]
            for t in range(1, ell):
                x &= bits[q[t], w]
            words[w] = x
        s = 0
        for w in range(n_words):
            x = words[w]
            while x:
                out[s] = w * 64 + trailing_zeros(x)
                s += 1
                x &= x - np.uint64(1)
        return s
    s = 0
    for j in range(post_len[b]):
        r = post_rec[base + j]
        ok = True
        for t in range(ell):
            if t != best:
                k = _row_find(indptr, indices, r, q[t])
                if k < 0 or alive[k] == 0:
                    ok = False
                    break
        if ok:
            out[s] = r
            s += 1
    return s


@njit(nogil=True, cache=True)
def _in_q(q, ell, i):
    for t in range(ell):
        if q[t] == i:
            return True
    return False


@njit(nogil=True, cache=True)
def _tally(s_q, dp, work, p, qd, cand):
    """Items of the records ``recs[:s_q]`` held in more than ρ·s_q of them, ascending, into ``cand``."""
    indptr, indices, alive, post_start, post_len, post_rec, c0, tot, bits, stamp, clock = dp
    recs, recs2, tally, touched, viol, words, q, pos, draw = work
    nt = 0
    for j in range(s_q):
        r = recs[j]
        for k in range(indptr[r], indptr[r + 1]):
            if alive[k]:
                i = indices[k]
                if tally[i] == 0:
                    touched[nt] = i
                    nt += 1
                tally[i] += 1
    limit = p * s_q
    nc = 0
    for t in range(nt):
        i = touched[t]
        c = tally[i]
        tally[i] = 0
        if qd * c > limit:
            pos_ = nc
            while pos_ > 0 and cand[pos_ - 1] > i:
                cand[pos_] = cand[pos_ - 1]
                pos_ -= 1
            cand[pos_] = i
            nc += 1
    return nc


@njit(nogil=True, cache=True)
def violated_items(u, q, ell, p, qd, dp, ep, cache, work, out):
    """Items e ∈ E_u \\ Q with q·supp_D'(Q∪{e}) > p·supp_D'(Q), ascending, in ``out``; return their number.

    ρ = p/q is compared in integers (R-3): 0.3·10 is not 3 in floating point.
    supp_D'(Q) = 0 is safe (Definition 2, condition 2).
    """
    stamp = dp[9]
    clock = dp[10]
    built, c_sq, c_n, c_items = cache
    recs = work[0]
    words = work[5]
    if ell == 1 and c_items.shape[1] > 0:
        i0 = q[0]
        if built[i0] < stamp[i0]:
            s_q = _collect(q, 1, dp, words, recs)
            c_sq[i0] = s_q
            c_n[i0] = _tally(s_q, dp, work, p, qd, c_items[i0]) if s_q > 0 else 0
            built[i0] = clock[0]
        nv = 0
        for j in range(c_n[i0]):
            e = c_items[i0, j]
            if e != i0 and _in_e(u, e, ep):
                out[nv] = e
                nv += 1
        return nv
    s_q = _collect(q, ell, dp, words, recs)
    if s_q == 0:
        return 0
    viol = work[4]
    nc = _tally(s_q, dp, work, p, qd, viol)
    nv = 0
    for j in range(nc):
        e = viol[j]
        if not _in_q(q, ell, e) and _in_e(u, e, ep):
            out[nv] = e
            nv += 1
    return nv


@njit(nogil=True, cache=True)
def suppression_numbers(p, qd, s_q, s_qe):
    """N_s of eq. (7) for ρ = p/qd, exactly.

    (N_s(e), N_s(d ∈ Q)) = (⌈s_Qe − ρ·s_Q⌉, ⌈(s_Qe − ρ·s_Q)/(1 − ρ)⌉).

    In floating point ρ = 0.3, s_Q = s_Qe = 3 gives ⌈2.1/0.7⌉ = 4 instead of 3.
    """
    num = qd * s_qe - p * s_q
    return -((-num) // qd), -((-num) // (qd - p))


@njit(nogil=True, cache=True)
def _suppress(r, d, dp):
    """Remove item ``d`` from record ``r`` of D' (it must be there) and update every index."""
    indptr, indices, alive, post_start, post_len, post_rec, c0, tot, bits, stamp, clock = dp
    k = _row_find(indptr, indices, r, d)
    alive[k] = 0
    base = post_start[d]
    n = post_len[d]
    lo = base
    hi = base + n
    while lo < hi:
        mid = (lo + hi) >> 1
        if post_rec[mid] < r:
            lo = mid + 1
        else:
            hi = mid
    for j in range(lo, base + n - 1):
        post_rec[j] = post_rec[j + 1]
    post_len[d] = n - 1
    tot[1] -= 1
    if bits.shape[1] > 0:
        bits[d, r >> 6] &= ~(np.uint64(1) << np.uint64(r & 63))
    # every item of r may have lost a co-occurrence (or its own holder): cached tallies are stale
    clock[0] += 1
    for j in range(indptr[r], indptr[r + 1]):
        stamp[indices[j]] = clock[0]


@njit(nogil=True, cache=True)
def _score(d, n_d, post_len, c0, log_t, log_t1, t1):
    """F(d) of eq. (8): D'(d)·ln(D'(d)/D(d)) / N_s(d).

    ln(D'(d)/D(d)) is (ln c'_d − ln c_d) + (ln T − ln T'), so that equal counts
    give bit-identical F (exact ties, R-8). A negative F divided by N favours
    the larger N: a quirk of the literal formula, kept on purpose.
    """
    c = post_len[d]
    # math.log on both counts (not a precomputed numpy log, which may differ by an ulp)
    ratio = (math.log(c) - math.log(c0[d])) + (log_t - log_t1)
    return (c / t1) * ratio / n_d


@njit(nogil=True, cache=True)
def repair_one(pass_no, level, u, q, ell, e, p, qd, dp, rng, work, log):
    """Re-check rule Q→e on D' and, if still above ρ, suppress the argmax-F item from N_s records (Alg. 1, 11-14).

    Returns the number of occurrences suppressed (0 if the rule no longer breaks ρ).
    """
    indptr, indices, alive, post_start, post_len, post_rec, c0, tot, bits, stamp, clock = dp
    recs, recs2, tally, touched, viol, words, qq, pos, draw = work
    log_meta, log_q, log_recs, ctr = log
    s_q = _collect(q, ell, dp, words, recs)
    m = 0
    for j in range(s_q):
        r = recs[j]
        k = _row_find(indptr, indices, r, e)
        if k >= 0 and alive[k] != 0:
            recs2[m] = r
            m += 1
    if m == 0 or qd * m <= p * s_q:
        return 0
    n_e, n_q = suppression_numbers(p, qd, s_q, m)
    t1 = tot[1]
    log_t = math.log(tot[0])
    log_t1 = math.log(t1)
    best = e
    best_n = n_e
    best_f = _score(e, n_e, post_len, c0, log_t, log_t1, t1)
    for t in range(ell):
        d = q[t]
        f = _score(d, n_q, post_len, c0, log_t, log_t1, t1)
        # larger F; then smaller N_s; then d = e; then the smaller item id
        better = False
        if f > best_f:
            better = True
        elif f == best_f:
            if n_q < best_n:
                better = True
            elif n_q == best_n and best != e and d < best:
                better = True
        if better:
            best = d
            best_n = n_q
            best_f = f
    # partial Fisher-Yates over the ascending records holding Q∪{e}
    for j in range(best_n):
        t = j + randbelow(rng, m - j)
        tmp = recs2[j]
        recs2[j] = recs2[t]
        recs2[t] = tmp
    row = ctr[0]
    start = ctr[1]
    for j in range(best_n):
        r = recs2[j]
        _suppress(r, best, dp)
        log_recs[start + j] = r
    log_meta[row, 0] = pass_no
    log_meta[row, 1] = level
    log_meta[row, 2] = u
    log_meta[row, 3] = e
    log_meta[row, 4] = best
    log_meta[row, 5] = best_n
    log_meta[row, 6] = s_q
    log_meta[row, 7] = m
    log_meta[row, 8] = start
    for t in range(log_q.shape[1]):
        log_q[row, t] = q[t] if t < ell else -1
    ctr[0] = row + 1
    ctr[1] = start + best_n
    return best_n


@njit(nogil=True, cache=True)
def exact_chunk(level, u0, u1, pass_no, repair, p, qd, dp, ep, active, cache, rng, rule_u, rule_q, rule_e, n_rules,
                work, log, stats, budget, resume):
    """SUPPRESSOR at one level for users ``u0 .. u1-1`` in file order (Alg. 1, lines 6-14).

    Per user the violated rules R_u^ℓ are listed first (Q ⊆ D_u of the
    ORIGINAL record, lexicographic; e ascending), then repaired in that order,
    each re-checked on the current D'. With ``repair=False`` the rules are only
    listed, accumulating in ``rule_*`` from ``n_rules`` on (a scan of the
    original data for the rule browser).

    Returns ``(next_user, code, n_rules)``: code OK when ``u1`` was reached,
    NEED_RULES / NEED_LOG when the rule list or the log must grow before
    ``next_user`` can be processed (nothing of that user has been done yet),
    BUDGET when ``budget`` adversaries were checked in this call: one user's
    listing may then be half done, and ``resume`` (int64, :data:`RESUME_SLOTS`)
    holds it ([1, rules listed, adversaries checked, first rule]; the next
    combination is in ``work``), so a call from ``next_user`` goes on exactly
    where this one stopped. A user with C(|D_u|, ℓ) in the tens of thousands
    thus never holds the caller (and its cancel) for long, and the result
    does not depend on where the calls were split. ``resume[4]`` gets the
    adversaries checked in this call. ``stats`` accumulates [users with
    R ≠ ∅, rules found, rules repaired, occurrences suppressed, adversaries
    checked].
    """
    indptr, indices = dp[0], dp[1]
    viol = work[4]
    q = work[6]
    pos = work[7]
    log_meta = log[0]
    ctr = log[3]
    cap = rule_e.shape[0]
    spent = 0
    resume[4] = 0
    for u in range(u0, u1):
        lo = indptr[u]
        k = indptr[u + 1] - lo
        if k < level or active[u] == 0:
            continue
        if resume[0] == 1 and u == u0:
            # the listing of u stopped for the budget: the next combination is already in pos
            resume[0] = 0
            nr = resume[1]
            checked = resume[2]
            first = resume[3]
        else:
            resume[0] = 0
            first = n_rules if not repair else 0
            nr = first
            for t in range(level):
                pos[t] = t
            checked = 0
        while True:
            for t in range(level):
                q[t] = indices[lo + pos[t]]
            checked += 1
            spent += 1
            nv = violated_items(u, q, level, p, qd, dp, ep, cache, work, viol)
            if nr + nv > cap:
                resume[4] = spent
                return u, NEED_RULES, first
            for j in range(nv):
                rule_u[nr] = u
                for t in range(level):
                    rule_q[nr, t] = q[t]
                rule_e[nr] = viol[j]
                nr += 1
            # next combination of positions, lexicographic
            t = level - 1
            while t >= 0 and pos[t] == k - level + t:
                t -= 1
            if t < 0:
                break
            pos[t] += 1
            for w in range(t + 1, level):
                pos[w] = pos[w - 1] + 1
            if spent >= budget:
                resume[0] = 1
                resume[1] = nr
                resume[2] = checked
                resume[3] = first
                resume[4] = spent
                return u, BUDGET, first
        if repair and nr > 0 and ctr[0] + nr > log_meta.shape[0]:
            resume[4] = spent
            return u, NEED_LOG, first
        stats[4] += checked
        if nr > first:
            stats[0] += 1
            stats[1] += nr - first
        if repair:
            for j in range(nr):
                for t in range(level):
                    q[t] = rule_q[j, t]
                done = repair_one(pass_no, level, u, q, level, rule_e[j], p, qd, dp, rng, work, log)
                if done > 0:
                    stats[2] += 1
                    stats[3] += done
        else:
            n_rules = nr
        if spent >= budget and u + 1 < u1:
            resume[4] = spent
            return u + 1, BUDGET, n_rules
    resume[4] = spent
    return u1, OK, n_rules


@njit(nogil=True, cache=True)
def _rule_hash(q, ell, e):
    h = np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(e)
    for t in range(ell):
        h = (h ^ np.uint64(q[t])) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(29)
    return h


@njit(nogil=True, cache=True)
def draw_and_check(level, n_s, pool, cum, state, p, qd, dp, ep, cache, work, rule_q, rule_e, table, acc):
    """Draw ``n_s`` more adversaries of size ``level`` and list the rules they break (Alg. 2, lines 7-8).

    A user is drawn uniformly from ``pool`` (users with ≥ ``level`` items in
    the original data) when ``cum`` is empty (the paper's sampler), else with
    weight C(|D_u|, level) through the cumulative weights ``cum`` (uniform
    over A^ℓ); then a uniform ``level``-subset of the original record.

    R_S (distinct rules Q→e, in order of first appearance) goes to
    ``rule_q``/``rule_e``; ``table`` (size a power of two, zeroed) dedups them.
    A level's draws may be split over several calls (so that a cancel is
    seen between them): ``state`` (the level's stream), ``table`` and
    ``acc = [rules so far, unsafe samples so far]`` carry over, so the rules
    listed do not depend on the split. Returns ``(n_rules, code)``;
    NEED_RULES means the rule list is too small (the caller grows it and
    repeats the level from its seed, with ``acc`` and ``table`` zeroed).
    """
    indptr, indices = dp[0], dp[1]
    viol = work[4]
    q = work[6]
    draw = work[8]
    cap = rule_e.shape[0]
    mask = np.uint64(table.shape[0] - 1)
    n_pool = pool.shape[0]
    nr = acc[0]
    unsafe = acc[1]
    for _s in range(n_s):
        if cum.shape[0] == 0:
            u = pool[randbelow(state, n_pool)]
        else:
            u = pool[first_above(cum, n_pool, uniform(state) * cum[n_pool - 1])]
        lo = indptr[u]
        sample_without_replacement(state, indices[lo:indptr[u + 1]], level, draw)
        # insertion sort: Q in ascending item order
        for t in range(level):
            v = draw[t]
            w = t
            while w > 0 and q[w - 1] > v:
                q[w] = q[w - 1]
                w -= 1
            q[w] = v
        nv = violated_items(u, q, level, p, qd, dp, ep, cache, work, viol)
        if nv > 0:
            unsafe += 1
        for j in range(nv):
            e = viol[j]
            slot = _rule_hash(q, level, e) & mask
            found = False
            while table[slot] != 0:
                idx = table[slot] - 1
                if rule_e[idx] == e:
                    same = True
                    for t in range(level):
                        if rule_q[idx, t] != q[t]:
                            same = False
                            break
                    if same:
                        found = True
                        break
                slot = (slot + np.uint64(1)) & mask
            if found:
                continue
            if nr >= cap:
                return nr, NEED_RULES
            for t in range(level):
                rule_q[nr, t] = q[t]
            rule_e[nr] = e
            nr += 1
            table[slot] = nr
    acc[0] = nr
    acc[1] = unsafe
    return nr, OK


@njit(nogil=True, cache=True)
def repair_rules(pass_no, level, j0, j1, rule_q, rule_e, p, qd, dp, rng, work, log, stats):
    """Repair rules ``j0 .. j1-1`` of R_S in order, each re-checked first (Alg. 2, lines 11-15).

    The log must have room. A level's repairs may be split over calls (the
    result is the same: one record stream, the same order). ``stats`` gets
    [rules repaired, occurrences suppressed].
    """
    q = work[6]
    for j in range(j0, j1):
        for t in range(level):
            q[t] = rule_q[j, t]
        done = repair_one(pass_no, level, -1, q, level, rule_e[j], p, qd, dp, rng, work, log)
        if done > 0:
            stats[0] += 1
            stats[1] += done


@njit(nogil=True, cache=True)
def active_users(indptr, indices, n_items, ep):
    """uint8 per user: 1 if some e ∈ E_u co-occurs in D with an item of D_u (others can never break ρ).

    Item neighbourhoods are bitsets over items; D' ⊆ D, so a pair that never
    co-occurs in D never co-occurs in D'.
    """
    gmask, add_ptr, add_items, del_ptr, del_items = ep
    n = indptr.shape[0] - 1
    words = (n_items + 63) >> 6
    nb = np.zeros((n_items, words), dtype=np.uint64)
    for r in range(n):
        lo = indptr[r]
        hi = indptr[r + 1]
        for a in range(lo, hi):
            ia = indices[a]
            for b in range(lo, hi):
                if a != b:
                    ib = indices[b]
                    nb[ia, ib >> 6] |= np.uint64(1) << np.uint64(ib & 63)
    gwords = np.zeros(words, dtype=np.uint64)
    for i in range(n_items):
        if gmask[i]:
            gwords[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
    out = np.zeros(n, dtype=np.uint8)
    acc = np.zeros(words, dtype=np.uint64)
    ev = np.zeros(words, dtype=np.uint64)
    for u in range(n):
        lo = indptr[u]
        hi = indptr[u + 1]
        if hi - lo == 0:
            continue
        for w in range(words):
            acc[w] = 0
            ev[w] = gwords[w]
        for k in range(del_ptr[u], del_ptr[u + 1]):
            i = del_items[k]
            ev[i >> 6] &= ~(np.uint64(1) << np.uint64(i & 63))
        for k in range(add_ptr[u], add_ptr[u + 1]):
            i = add_items[k]
            ev[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
        for k in range(lo, hi):
            i = indices[k]
            for w in range(words):
                acc[w] |= nb[i, w]
        for w in range(words):
            if acc[w] & ev[w]:
                out[u] = 1
                break
    return out


@njit(nogil=True, cache=True)
def record_bits(indptr, indices, n_items):
    """One bitset of records per item (uint64 words), for :func:`_collect`."""
    n = indptr.shape[0] - 1
    words = (n + 63) >> 6
    bits = np.zeros((n_items, words), dtype=np.uint64)
    for r in range(n):
        for k in range(indptr[r], indptr[r + 1]):
            bits[indices[k], r >> 6] |= np.uint64(1) << np.uint64(r & 63)
    return bits


def warm_up() -> None:
    """Compile the kernels on Table 2 of the paper (see ``kernels.warmup``).

    The data arrays are read-only, as ``methods.rho`` always passes them (:func:`anonstudio.kernels.read_only`):
    one variant to compile, whether the data were loaded or built in memory.
    """
    indptr = read_only(np.array([0, 2, 4, 6, 7], dtype=np.int64))
    indices = read_only(np.array([0, 1, 0, 1, 0, 1, 0], dtype=np.int32))
    n_items = 2
    c0 = np.bincount(indices, minlength=n_items).astype(np.int64)
    post_start = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum(c0, out=post_start[1:])
    post_start = read_only(post_start)  # the posting index comes with the data, read-only alike
    post_rec = np.repeat(np.arange(4, dtype=np.int32), np.diff(indptr))[np.argsort(indices, kind="stable")]
    for bits in (np.zeros((0, 0), dtype=np.uint64), record_bits(indptr, indices, n_items)):
        dp = (indptr, indices, np.ones(7, dtype=np.uint8), post_start, c0.copy(),
              np.ascontiguousarray(post_rec.astype(np.int32)), c0, np.array([7, 7], dtype=np.int64), bits.copy(),
              np.zeros(n_items, dtype=np.int64), np.zeros(1, dtype=np.int64))
        ep = (np.zeros(n_items, dtype=np.uint8), np.array([0, 1, 1, 1, 1], dtype=np.int64),
              np.array([1], dtype=np.int32), np.zeros(5, dtype=np.int64), np.zeros(0, dtype=np.int32))
        cache = (np.full(n_items, -1, dtype=np.int64), np.zeros(n_items, dtype=np.int64),
                 np.zeros(n_items, dtype=np.int64), np.zeros((n_items, n_items), dtype=np.int32))
        work = (np.empty(4, dtype=np.int32), np.empty(4, dtype=np.int32), np.zeros(n_items, dtype=np.int64),
                np.empty(n_items, dtype=np.int32), np.empty(n_items, dtype=np.int32),
                np.empty(max(bits.shape[1], 1), dtype=np.uint64), np.empty(2, dtype=np.int32),
                np.empty(2, dtype=np.int64), np.empty(2, dtype=np.int32))
        log = (np.empty((8, len(LOG_COLUMNS)), dtype=np.int64), np.empty((8, 2), dtype=np.int32),
               np.empty(7, dtype=np.int32), np.zeros(2, dtype=np.int64))
        active = active_users(indptr, indices, n_items, ep)
        rng = make_state(1)
        rule_u = np.empty(8, dtype=np.int32)
        rule_q = np.empty((8, 2), dtype=np.int32)
        rule_e = np.empty(8, dtype=np.int32)
        stats = np.zeros(5, dtype=np.int64)
        resume = np.zeros(RESUME_SLOTS, dtype=np.int64)
        for level in (1, 2):
            exact_chunk(level, 0, 4, 1, True, 1, 2, dp, ep, active, cache, rng, rule_u, rule_q, rule_e, 0, work,
                        log, stats, 1 << 40, resume)
        pool = np.arange(4, dtype=np.int32)
        for cum in (np.zeros(0, dtype=np.float64), np.arange(1, 5, dtype=np.float64)):
            n_rules, _ = draw_and_check(1, 4, pool, cum, make_state(2), 1, 2, dp, ep, cache, work, rule_q, rule_e,
                                        np.zeros(16, dtype=np.int64), np.zeros(2, dtype=np.int64))
            repair_rules(1, 1, 0, n_rules, rule_q, rule_e, 1, 2, dp, rng, work, log, stats)

