"""Gibbs sampler kernels for the Bayesian model of group-anonymized tables.

The model (Boreale, Corradi, Viscardi, TIFS 2020, Sections III and V): a
sensitive value ``s`` with ``pi_S ~ Dir(alpha)``, and each quasi-identifier
attribute ``a`` drawn given ``s`` from ``pi_{a|s} ~ Dir(beta[s, a])``,
attributes conditionally independent given ``s``. One *sweep* draws ``pi``
from its Dirichlet posterior given the current cleartext table (eq. 32), then
the latent part of every group given ``pi`` (eqs. 35-37).

What is observed and what is latent:

* horizontal schemes (k-anonymity, l-diversity): every row's sensitive value
  is published in clear; its quasi-identifier values are latent, constrained
  to the group's cell. Given ``pi`` the rows are independent and each
  attribute of a row is drawn from ``pi_{a|s}`` restricted to the cell (36).
  Rows sharing (sensitive value, attribute, cell) are exchangeable, so the
  kernel draws them together as one *pattern*; the table enters ``pi``'s
  update only through the counts it produces.
* vertical schemes (Anatomy): the quasi-identifier tuples of a group and its
  sensitive multiset are published; the pairing between them is latent. It is
  updated by one Metropolis step per group (37) whose proposal swaps the
  sensitive values of two rows (or shuffles the whole group).

Arrays use a flat layout: ``d = attr_off[a] + code`` indexes the
concatenation of all quasi-identifier domains, so ``counts``, ``beta`` and
``pi_r`` are ``(S, D)`` matrices. All state (RNG word, counts, current
pairing, accumulators) is owned by the caller so chunked runs are exactly
reproducible.

Slow reference: tests/reference/threat_reference.py::exact_learner_joint,
tests/reference/threat_reference.py::exact_posteriors
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .rng import first_above, make_state, randbelow, uniform

__all__ = [
    "gamma_draw",
    "draw_pi",
    "horizontal_sweeps",
    "vertical_sweeps",
    "horizontal_init",
    "vertical_init",
    "warm_up",
]

_TINY = 1e-300  # floor for Dirichlet components: keeps logs finite for tiny priors


@njit(nogil=True, cache=True)
def _normal(state, cache):
    """A standard normal (Marsaglia polar method); the pair's second variate waits in ``cache``.

    ``cache = [has_value, value]`` lives only for one :func:`draw_pi` call, so
    the stream never depends on how a run is cut into chunks.
    """
    if cache[0] != 0.0:
        cache[0] = 0.0
        return cache[1]
    while True:
        u = 2.0 * uniform(state) - 1.0
        v = 2.0 * uniform(state) - 1.0
        q = u * u + v * v
        if 0.0 < q < 1.0:
            f = math.sqrt(-2.0 * math.log(q) / q)
            cache[0] = 1.0
            cache[1] = v * f
            return u * f


@njit(nogil=True, cache=True)
def gamma_draw(state, shape, cache):
    """One Gamma(shape, 1) variate (Marsaglia and Tsang 2000; boosted for shape < 1).

    Shape exactly 1 (a uniform prior with no observation, the common case) is
    an exponential variate, drawn directly.
    """
    if shape == 1.0:
        return -math.log(1.0 - uniform(state))
    boost = 1.0
    if shape < 1.0:
        boost = uniform(state) ** (1.0 / shape)
        shape += 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = _normal(state, cache)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = uniform(state)
        if u < 1.0 - 0.0331 * x * x * x * x:
            return d * v * boost
        if math.log(u) < 0.5 * x * x + d * (1.0 - v + math.log(v)):
            return d * v * boost


@njit(nogil=True, cache=True)
def draw_pi(state, alpha, gamma_s, beta, counts, attr_off, pi_s, pi_r):
    """Draw ``pi`` from its posterior given the table's counts (eq. 32)."""
    n_s = alpha.shape[0]
    cache = np.zeros(2)
    total = 0.0
    for s in range(n_s):
        g = max(gamma_draw(state, alpha[s] + gamma_s[s], cache), _TINY)
        pi_s[s] = g
        total += g
    for s in range(n_s):
        pi_s[s] /= total
    n_attr = attr_off.shape[0] - 1
    for s in range(n_s):
        for a in range(n_attr):
            total = 0.0
            for d in range(attr_off[a], attr_off[a + 1]):
                g = max(gamma_draw(state, beta[s, d] + counts[s, d], cache), _TINY)
                pi_r[s, d] = g
                total += g
            for d in range(attr_off[a], attr_off[a + 1]):
                pi_r[s, d] /= total


@njit(nogil=True, cache=True)
def _posterior_means(alpha, gamma_s, beta, beta0, counts, attr_of, n_rows, ps, means):
    """``ps[s] = E[pi_s | t]`` and ``means[s, d] = E[pi_{d|s} | t]``: eq. (20) factors."""
    alpha0 = 0.0
    for s in range(alpha.shape[0]):
        alpha0 += alpha[s]
    for s in range(alpha.shape[0]):
        ps[s] = (alpha[s] + gamma_s[s]) / (alpha0 + n_rows)
        for d in range(beta.shape[1]):
            means[s, d] = (beta[s, d] + counts[s, d]) / (beta0[s, attr_of[d]] + gamma_s[s])


@njit(nogil=True, cache=True)
def _tuple_weight(first, table, s, codes, row):
    """``first[s] * prod_a table[s, codes[row, a]]`` over the known attributes (code >= 0)."""
    v = first[s]
    for a in range(codes.shape[1]):
        d = codes[row, a]
        if d >= 0:
            v *= table[s, d]
    return v


@njit(nogil=True, cache=True)
def _accumulate_estimates(mode, ps, means, pi_s, pi_r, eval_d, eval_acc, pts_s, pts_d, pts_acc, scratch):
    """Add one kept sample's learner quantities to the running sums.

    ``mode == 0`` (predictive): ``eval_acc[u, s] += E[f(s, r_u | pi) | t]``, the
    Rao-Blackwellized joint whose average is ``p_L(s, r_u | t*)`` (eq. 23).
    ``mode == 1`` (average): ``eval_acc[u, s] += f(s | r_u, pi)`` (eq. 24).
    ``pts_acc[i] += E[f(s_i, r_i | pi) | t]`` at fixed points (for TV / ETV).
    Attribute entries ``-1`` in ``eval_d`` are unknown and skipped (eq. 15).
    """
    n_s = ps.shape[0]
    for u in range(eval_d.shape[0]):
        if mode == 0:
            for s in range(n_s):
                eval_acc[u, s] += _tuple_weight(ps, means, s, eval_d, u)
        else:
            tot = 0.0
            for s in range(n_s):
                scratch[s] = _tuple_weight(pi_s, pi_r, s, eval_d, u)
                tot += scratch[s]
            for s in range(n_s):
                eval_acc[u, s] += scratch[s] / tot
    for i in range(pts_d.shape[0]):
        pts_acc[i] += _tuple_weight(ps, means, pts_s[i], pts_d, i)


@njit(nogil=True, cache=True)
def _record_pi(kept, pi_s, pi_r, batch_size, batch_sums, batch_counts, trace_idx, trace):
    """Batch sums of every pi component (Geweke) and full traces of chosen ones."""
    n_s = pi_s.shape[0]
    b = kept // batch_size
    if b < batch_sums.shape[0]:
        batch_counts[b] += 1
        for s in range(n_s):
            batch_sums[b, s] += pi_s[s]
        width = pi_r.shape[1]
        for s in range(n_s):
            for d in range(width):
                batch_sums[b, n_s + s * width + d] += pi_r[s, d]
    if kept < trace.shape[0]:
        width = pi_r.shape[1]
        for j in range(trace_idx.shape[0]):
            k = trace_idx[j]
            if k < n_s:
                trace[kept, j] = pi_s[k]
            else:
                k -= n_s
                trace[kept, j] = pi_r[k // width, k % width]


@njit(nogil=True, cache=True)
def _fill_cum(s, lo, hi, vals, pi_r, cum):
    """Cumulative weights ``pi_r[s, v]`` over a cell; returns the total."""
    total = 0.0
    for j in range(lo, hi):
        total += pi_r[s, vals[j]]
        cum[j - lo] = total
    return total


@njit(nogil=True, cache=True)
def _draw_pattern(state, s, lo, hi, vals, pi_r, cum):
    """One value of a pattern's cell, with probability proportional to ``pi_r[s, v]``."""
    total = _fill_cum(s, lo, hi, vals, pi_r, cum)
    return vals[lo + first_above(cum, hi - lo, uniform(state) * total)]


@njit(nogil=True, cache=True)
def _resample_patterns(state, pat_s, pat_n, pat_ptr, pat_vals, base_counts, pi_r, counts, cum,
                       kept_flag, marg_acc):
    """Redraw every latent cell value given ``pi`` (36) and rebuild the counts."""
    n_s, width = counts.shape
    for s in range(n_s):
        for d in range(width):
            counts[s, d] = base_counts[s, d]
    guide = np.empty(cum.shape[0], dtype=np.int64)
    for p in range(pat_s.shape[0]):
        s = pat_s[p]
        lo = pat_ptr[p]
        hi = pat_ptr[p + 1]
        size = hi - lo
        total = _fill_cum(s, lo, hi, pat_vals, pi_r, cum)
        if pat_n[p] < 8 or size < 8:
            for _ in range(pat_n[p]):
                counts[s, pat_vals[lo + first_above(cum, size, uniform(state) * total)]] += 1
        else:
            # Many draws from one large cell: a guide table (Chen and Asau 1974) makes each
            # inverse-CDF draw O(1) on average instead of a binary search.
            j = 0
            for k in range(size):
                threshold = k * total / size
                while j < size - 1 and cum[j] <= threshold:
                    j += 1
                guide[k] = j
            for _ in range(pat_n[p]):
                x = uniform(state) * total
                j = guide[min(int(x * size / total), size - 1)]
                while j < size - 1 and cum[j] <= x:
                    j += 1
                while j > 0 and cum[j - 1] > x:  # guards against rounding at bucket edges
                    j -= 1
                counts[s, pat_vals[lo + j]] += 1
        if kept_flag:
            # Rao-Blackwellized marginal of one row of the pattern: pi restricted to the cell.
            for j in range(lo, hi):
                marg_acc[j] += pi_r[s, pat_vals[j]] / total


@njit(nogil=True, cache=True)
def horizontal_init(state, pat_s, pat_n, pat_ptr, pat_vals, base_counts, counts, cum):
    """Initial table: every latent value uniform within its cell."""
    ones = np.ones(counts.shape)
    dummy = np.zeros(1)
    _resample_patterns(state, pat_s, pat_n, pat_ptr, pat_vals, base_counts, ones, counts, cum, False, dummy)


@njit(nogil=True, cache=True)
def _is_kept(it, burn_in, thin):
    return it >= burn_in and (it - burn_in) % thin == 0


@njit(nogil=True, cache=True)
def horizontal_sweeps(state, it0, n_sweeps, burn_in, thin, kept0,
                      alpha, gamma_s, beta, beta0, attr_off, attr_of, n_rows,
                      pat_s, pat_n, pat_ptr, pat_vals, base_counts,
                      counts, pi_s, pi_r, cum,
                      mode, eval_d, eval_acc, pts_s, pts_d, pts_acc, marg_acc,
                      batch_size, batch_sums, batch_counts, trace_idx, trace,
                      track_s, track_pat, track_out):
    """Run ``n_sweeps`` sweeps of the horizontal-scheme Gibbs sampler from sweep ``it0``.

    Returns the number of kept samples after the chunk (``kept0`` plus those
    kept here). Kept sweeps are ``it >= burn_in`` with ``(it - burn_in) % thin == 0``.
    Tracked rows (``track_pat[k, a]`` = pattern of row k's attribute a, -1 if
    its cell is one value) get one value per attribute drawn from their full
    conditional, the categorical series for the Weiss diagnostic.
    """
    n_s, width = counts.shape
    ps = np.empty(n_s)
    means = np.empty((n_s, width))
    scratch = np.empty(n_s)
    kept = kept0
    for it in range(it0, it0 + n_sweeps):
        draw_pi(state, alpha, gamma_s, beta, counts, attr_off, pi_s, pi_r)
        keep = _is_kept(it, burn_in, thin)
        _resample_patterns(state, pat_s, pat_n, pat_ptr, pat_vals, base_counts, pi_r, counts, cum, keep, marg_acc)
        if keep:
            _posterior_means(alpha, gamma_s, beta, beta0, counts, attr_of, n_rows, ps, means)
            _accumulate_estimates(mode, ps, means, pi_s, pi_r, eval_d, eval_acc, pts_s, pts_d, pts_acc, scratch)
            _record_pi(kept, pi_s, pi_r, batch_size, batch_sums, batch_counts, trace_idx, trace)
            if kept < track_out.shape[0]:
                for k in range(track_pat.shape[0]):
                    for a in range(track_pat.shape[1]):
                        p = track_pat[k, a]
                        if p >= 0:
                            track_out[kept, k, a] = _draw_pattern(state, track_s[k], pat_ptr[p], pat_ptr[p + 1],
                                                                  pat_vals, pi_r, cum)
                        else:
                            track_out[kept, k, a] = -1
            kept += 1
    return kept


@njit(nogil=True, cache=True)
def vertical_init(state, group_ptr, group_rows, s_of_row, r_d, counts):
    """Initial pairing: the sensitive values of every group shuffled uniformly."""
    for g in range(group_ptr.shape[0] - 1):
        lo = group_ptr[g]
        n = group_ptr[g + 1] - lo
        for i in range(n - 1, 0, -1):
            j = randbelow(state, i + 1)
            a = group_rows[lo + i]
            b = group_rows[lo + j]
            tmp = s_of_row[a]
            s_of_row[a] = s_of_row[b]
            s_of_row[b] = tmp
    counts[:, :] = 0
    for k in range(r_d.shape[0]):
        for a in range(r_d.shape[1]):
            counts[s_of_row[k], r_d[k, a]] += 1


@njit(nogil=True, cache=True)
def _row_log_f(logpi, s, r_d, k):
    v = 0.0
    for a in range(r_d.shape[1]):
        v += logpi[s, r_d[k, a]]
    return v


@njit(nogil=True, cache=True)
def _move_row(counts, r_d, k, s_old, s_new):
    for a in range(r_d.shape[1]):
        d = r_d[k, a]
        counts[s_old, d] -= 1
        counts[s_new, d] += 1


@njit(nogil=True, cache=True)
def _swap_step(state, lo, n, group_rows, s_of_row, r_d, logpi, counts, stats):
    i = randbelow(state, n)
    j = randbelow(state, n - 1)
    if j >= i:
        j += 1
    ki = group_rows[lo + i]
    kj = group_rows[lo + j]
    si = s_of_row[ki]
    sj = s_of_row[kj]
    if si == sj:
        return  # the proposal equals the current state
    delta = (_row_log_f(logpi, sj, r_d, ki) + _row_log_f(logpi, si, r_d, kj)
             - _row_log_f(logpi, si, r_d, ki) - _row_log_f(logpi, sj, r_d, kj))
    stats[0] += 1
    if delta >= 0.0 or uniform(state) < math.exp(delta):
        stats[1] += 1
        s_of_row[ki] = sj
        s_of_row[kj] = si
        _move_row(counts, r_d, ki, si, sj)
        _move_row(counts, r_d, kj, sj, si)


@njit(nogil=True, cache=True)
def _permutation_step(state, lo, n, group_rows, s_of_row, r_d, logpi, counts, stats, proposal):
    for i in range(n):
        proposal[i] = s_of_row[group_rows[lo + i]]
    for i in range(n - 1, 0, -1):
        j = randbelow(state, i + 1)
        tmp = proposal[i]
        proposal[i] = proposal[j]
        proposal[j] = tmp
    delta = 0.0
    changed = False
    for i in range(n):
        k = group_rows[lo + i]
        if proposal[i] != s_of_row[k]:
            changed = True
            delta += _row_log_f(logpi, proposal[i], r_d, k) - _row_log_f(logpi, s_of_row[k], r_d, k)
    if not changed:
        return
    stats[0] += 1
    if delta >= 0.0 or uniform(state) < math.exp(delta):
        stats[1] += 1
        for i in range(n):
            k = group_rows[lo + i]
            if proposal[i] != s_of_row[k]:
                _move_row(counts, r_d, k, s_of_row[k], proposal[i])
                s_of_row[k] = proposal[i]


@njit(nogil=True, cache=True)
def vertical_sweeps(state, it0, n_sweeps, burn_in, thin, kept0,
                    alpha, gamma_s, beta, beta0, attr_off, attr_of, n_rows,
                    group_ptr, group_rows, r_d, s_of_row, proposal_kind, moves_per_group,
                    counts, pi_s, pi_r, stats,
                    mode, eval_d, eval_acc, pts_s, pts_d, pts_acc, row_s_acc,
                    batch_size, batch_sums, batch_counts, trace_idx, trace,
                    track_rows, track_out):
    """Run ``n_sweeps`` Metropolis-within-Gibbs sweeps for a vertical (Anatomy) release.

    ``s_of_row[k]`` is the sensitive value currently paired with quasi-identifier
    row ``k``. ``proposal_kind`` 0 swaps two rows of a group, 1 shuffles the
    whole group; both proposals are symmetric, so the acceptance ratio is the
    likelihood ratio (37). ``stats`` counts [proposals that change the state,
    accepted ones]. Returns the number of kept samples after the chunk.
    """
    n_s, width = counts.shape
    ps = np.empty(n_s)
    means = np.empty((n_s, width))
    scratch = np.empty(n_s)
    logpi = np.empty((n_s, width))
    max_n = 1
    for g in range(group_ptr.shape[0] - 1):
        max_n = max(max_n, group_ptr[g + 1] - group_ptr[g])
    proposal = np.empty(max_n, dtype=s_of_row.dtype)
    kept = kept0
    for it in range(it0, it0 + n_sweeps):
        draw_pi(state, alpha, gamma_s, beta, counts, attr_off, pi_s, pi_r)
        for s in range(n_s):
            for d in range(width):
                logpi[s, d] = math.log(pi_r[s, d])
        for g in range(group_ptr.shape[0] - 1):
            lo = group_ptr[g]
            n = group_ptr[g + 1] - lo
            if n < 2:
                continue
            for _ in range(moves_per_group):
                if proposal_kind == 0:
                    _swap_step(state, lo, n, group_rows, s_of_row, r_d, logpi, counts, stats)
                else:
                    _permutation_step(state, lo, n, group_rows, s_of_row, r_d, logpi, counts, stats, proposal)
        if _is_kept(it, burn_in, thin):
            for k in range(s_of_row.shape[0]):
                row_s_acc[k, s_of_row[k]] += 1.0
            _posterior_means(alpha, gamma_s, beta, beta0, counts, attr_of, n_rows, ps, means)
            _accumulate_estimates(mode, ps, means, pi_s, pi_r, eval_d, eval_acc, pts_s, pts_d, pts_acc, scratch)
            _record_pi(kept, pi_s, pi_r, batch_size, batch_sums, batch_counts, trace_idx, trace)
            if kept < track_out.shape[0]:
                for j in range(track_rows.shape[0]):
                    track_out[kept, j, 0] = s_of_row[track_rows[j]]
            kept += 1
    return kept


def warm_up() -> None:
    """Compile the sampler kernels on a two-row table (see ``kernels.warmup``)."""
    state = make_state(1)
    alpha = np.ones(2)
    gamma_s = np.array([1, 1], dtype=np.int64)
    beta = np.ones((2, 2))
    beta0 = np.full((2, 1), 2.0)
    attr_off = np.array([0, 2], dtype=np.int64)
    attr_of = np.zeros(2, dtype=np.int64)
    counts = np.zeros((2, 2), dtype=np.int64)
    pi_s, pi_r = np.empty(2), np.empty((2, 2))
    eval_d = np.zeros((1, 1), dtype=np.int64)
    eval_acc = np.zeros((1, 2))
    pts_s = np.zeros(1, dtype=np.int64)
    pts_d = np.zeros((1, 1), dtype=np.int64)
    pts_acc = np.zeros(1)
    batch_sums = np.zeros((1, 6))
    batch_counts = np.zeros(1, dtype=np.int64)
    trace_idx = np.zeros(1, dtype=np.int64)
    trace = np.zeros((1, 1))
    pat_s = np.array([0, 1], dtype=np.int64)
    pat_n = np.array([1, 1], dtype=np.int64)
    pat_ptr = np.array([0, 2, 4], dtype=np.int64)
    pat_vals = np.array([0, 1, 0, 1], dtype=np.int64)
    cum = np.empty(2)
    base = np.zeros((2, 2), dtype=np.int64)
    horizontal_init(state, pat_s, pat_n, pat_ptr, pat_vals, base, counts, cum)
    track_out = np.zeros((1, 1, 1), dtype=np.int64)
    for mode in (0, 1):
        horizontal_sweeps(state, 0, 1, 0, 1, 0, alpha, gamma_s, beta, beta0, attr_off, attr_of, 2,
                          pat_s, pat_n, pat_ptr, pat_vals, base, counts, pi_s, pi_r, cum,
                          mode, eval_d, eval_acc, pts_s, pts_d, pts_acc, np.zeros(4), 1, batch_sums, batch_counts,
                          trace_idx, trace, np.zeros(1, dtype=np.int64), np.zeros((1, 1), dtype=np.int64), track_out)
    group_ptr = np.array([0, 2], dtype=np.int64)
    group_rows = np.array([0, 1], dtype=np.int64)
    r_d = np.array([[0], [1]], dtype=np.int64)
    s_of_row = np.array([0, 1], dtype=np.int64)
    vertical_init(state, group_ptr, group_rows, s_of_row, r_d, counts)
    for kind in (0, 1):
        vertical_sweeps(state, 0, 1, 0, 1, 0, alpha, gamma_s, beta, beta0, attr_off, attr_of, 2,
                        group_ptr, group_rows, r_d, s_of_row, kind, 1, counts, pi_s, pi_r, np.zeros(2, dtype=np.int64),
                        0, eval_d, eval_acc, pts_s, pts_d, pts_acc, np.zeros((2, 2)), 1, batch_sums, batch_counts,
                        trace_idx, trace, np.zeros(1, dtype=np.int64), track_out)
