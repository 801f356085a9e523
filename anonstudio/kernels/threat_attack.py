"""Attacker posterior over a horizontal release by Lemma 1 (Boreale et al. 2020, eq. 8 and 15).

``p_A(s | y) ∝ sum over rows j with s_j = s of P(R_j ∈ g^{-1}(y) | t*)``. In a
horizontal release the rows of one group with the same sensitive value are
exchangeable (a *unit*), and the posterior factorizes over attributes, so a
unit contributes ``n_unit * prod_{a known} m_unit,a(y_a)`` where ``m`` is the
row marginal of attribute ``a`` (from the sampler, or uniform over the cell for
the random-worlds model). Only groups whose cell holds the victim's value of
the most selective known attribute are visited.

Slow reference: tests/reference/threat_reference.py::exact_posteriors
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["lemma1_horizontal", "warm_up"]


@njit(nogil=True, cache=True)
def _find(sorted_vals, lo, hi, x):
    """Index of ``x`` in ``sorted_vals[lo:hi]`` or -1."""
    while lo < hi:
        m = (lo + hi) >> 1
        v = sorted_vals[m]
        if v == x:
            return m
        if v < x:
            lo = m + 1
        else:
            hi = m
    return -1


@njit(nogil=True, cache=True)
def lemma1_horizontal(eval_d, d_groups_ptr, d_groups, gunit_ptr, unit_s, unit_n, unit_pat, unit_fixed,
                      pat_ptr, pat_vals, marg, out):
    """Unnormalized ``p_A`` (or ``p_RW``) for every victim tuple.

    Parameters
    ----------
    eval_d
        ``(U, A)`` flat codes of the victim tuples, -1 where the attacker does not know the attribute.
    d_groups_ptr, d_groups
        CSR: groups whose cell holds flat code ``d``.
    gunit_ptr
        CSR from group to its units; ``unit_s``, ``unit_n`` their sensitive value and size.
    unit_pat, unit_fixed
        Per unit and attribute: the pattern holding the marginal (-1 when the
        cell is a single value, then ``unit_fixed`` is that flat code).
    pat_ptr, pat_vals, marg
        Pattern cells (flat codes sorted ascending) and the marginal of each entry.
    out
        ``(U, S)`` output, overwritten.
    """
    out[:, :] = 0.0
    n_attr = eval_d.shape[1]
    for u in range(eval_d.shape[0]):
        best = -1
        best_len = 1 << 62
        for a in range(n_attr):
            d = eval_d[u, a]
            if d >= 0:
                length = d_groups_ptr[d + 1] - d_groups_ptr[d]
                if length < best_len:
                    best_len = length
                    best = d
        if best < 0:
            continue
        for gi in range(d_groups_ptr[best], d_groups_ptr[best + 1]):
            g = d_groups[gi]
            for unit in range(gunit_ptr[g], gunit_ptr[g + 1]):
                v = float(unit_n[unit])
                for a in range(n_attr):
                    d = eval_d[u, a]
                    if d < 0:
                        continue
                    p = unit_pat[unit, a]
                    if p < 0:
                        if unit_fixed[unit, a] != d:
                            v = 0.0
                            break
                    else:
                        j = _find(pat_vals, pat_ptr[p], pat_ptr[p + 1], d)
                        if j < 0:
                            v = 0.0
                            break
                        v *= marg[j]
                if v > 0.0:
                    out[u, unit_s[unit]] += v


def warm_up() -> None:
    """Compile on a one-group, one-unit release."""
    i64 = np.int64
    out = np.zeros((1, 1))
    lemma1_horizontal(np.zeros((1, 1), dtype=i64), np.array([0, 1], dtype=i64), np.zeros(1, dtype=i64),
                      np.array([0, 1], dtype=i64), np.zeros(1, dtype=i64), np.ones(1, dtype=i64),
                      np.full((1, 1), -1, dtype=i64), np.zeros((1, 1), dtype=i64),
                      np.array([0, 1], dtype=i64), np.zeros(1, dtype=i64), np.ones(1), out)
