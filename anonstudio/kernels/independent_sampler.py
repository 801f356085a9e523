"""Independent uniform draws from Omega^ell by rejection (the alternative to Algorithm 1's chain).

The proposal is the one the size-weighted chain of
:mod:`anonstudio.kernels.mcmc_sampler` uses: a record ``u`` with probability
``C(|D_u|, ell) / Z``, then ``ell`` of its items uniformly. An itemset ``x`` is
thus proposed with probability ``supp(x) / Z``. Accepting it with probability
``1 / supp(x)`` makes every itemset of Omega^ell equally likely per proposal,
``1 / Z``: the accepted itemsets are exactly uniform and independent, with no
burn-in and no thinning. The expected number of proposals per sample is
``Z / |Omega^ell|``.

The acceptance test needs no exact support: with ``x`` uniform on [0, 1),
``x <= 1 / supp`` holds iff fewer than ``floor(1 / x) + 1`` records contain the
itemset, so counting stops at that bound. Most proposals are frequent itemsets,
recognised as such after a couple of matches.

Single items need no proposal: Omega^1 is the set of items that occur, drawn
directly. Records are picked with Walker's alias method: two memory reads per pick
instead of a binary search over millions of cumulative weights.

Slow reference: tests/reference/uniqueness_reference.py::omega, tests/reference/uniqueness_reference.py::support
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .mcmc_sampler import insertion_sort, sample_record_items
from .rng import make_state, uniform
from .support import (
    MODE_AUTO,
    MODE_LISTS,
    all_have_rows,
    build_bitsets,
    build_summaries,
    count_two_level,
    rarest_item,
    support_weight_bounded,
)

# A walk entry (a random bit test) costs about this many summary words (streamed).
_WALK_VS_SUMMARY = 4

__all__ = ["build_alias", "draw_independent", "warm_up"]


@njit(nogil=True, cache=True)
def build_alias(weights):
    """Walker/Vose alias table of non-negative ``weights`` (not all zero).

    Returns
    -------
    (prob float64 (n,), alias int64 (n,))
        Pick ``i`` uniformly, keep it with probability ``prob[i]``, else take
        ``alias[i]``: index ``j`` comes out with probability ``weights[j] / sum``.
    """
    n = weights.shape[0]
    scaled = weights * (n / weights.sum())
    prob = np.ones(n)
    alias = np.arange(n)
    small = np.empty(n, dtype=np.int64)
    large = np.empty(n, dtype=np.int64)
    n_small = 0
    n_large = 0
    for i in range(n):
        if scaled[i] < 1.0:
            small[n_small] = i
            n_small += 1
        else:
            large[n_large] = i
            n_large += 1
    while n_small > 0 and n_large > 0:
        n_small -= 1
        s = small[n_small]
        n_large -= 1
        g = large[n_large]
        prob[s] = scaled[s]
        alias[s] = g
        scaled[g] = (scaled[g] + scaled[s]) - 1.0
        if scaled[g] < 1.0:
            small[n_small] = g
            n_small += 1
        else:
            large[n_large] = g
            n_large += 1
    # Whatever is left has (up to rounding) probability 1 of keeping itself.
    return prob, alias


@njit(nogil=True, cache=True, inline="always")
def _below(rng, n):
    """An int uniform on [0, n) from 53 random bits (relative bias below n / 2**53)."""
    return min(np.int64(uniform(rng) * n), n - 1)


@njit(nogil=True, cache=True, inline="always")
def _alias_pick(rng, prob, alias):
    # Column and coin come from separate draws, so the coin resolves prob[i]
    # to 2**-53 whatever the table size (a shared draw keeps only ~30 bits of
    # coin at 4 million records, and tiny prob[i] would round to zero).
    i = _below(rng, prob.shape[0])
    return i if uniform(rng) < prob[i] else alias[i]


@njit(nogil=True, cache=True, inline="always")
def _bounded_support(cand, limit, ones, indptr, indices, post_indptr, post_records, bit_row, bits, summary, mode):
    """Support of ``cand``, exact below ``limit`` (else at least ``limit``).

    Where every item has a bitset row, the two-level AND is used unless the
    rarest posting list is short enough to walk: a walk tests ``ell - 1``
    bits per entry at random, the two-level AND streams ``ell`` summary words
    per 64 row words (a few ns each) and then visits the flagged words.
    """
    ell = cand.shape[0]
    if ell >= 2 and summary.shape[1] > 0 and mode != MODE_LISTS and all_have_rows(cand, bit_row):
        _, rare_len = rarest_item(cand, post_indptr)
        if rare_len * (ell - 1) > _WALK_VS_SUMMARY * summary.shape[1] * ell:
            return count_two_level(cand, bit_row, bits, summary, limit)
    supp, _ = support_weight_bounded(cand, ones, indptr, indices, post_indptr, post_records, bit_row, bits, mode,
                                     1.0, limit)
    return supp


@njit(nogil=True, cache=True)
def draw_independent(rng, counters, wanted, max_proposals, prob, alias, eligible, indptr, indices, post_indptr,
                     post_records, ones, bit_row, bits, summary, mode, out_items, out_supp, out_start):
    """Accept up to ``wanted`` itemsets into ``out_items[out_start:]``; returns how many.

    Stops early after ``max_proposals`` proposals, so callers can draw in
    bounded chunks (progress, cancel) and resume: the random stream, and hence
    the accepted itemsets, do not depend on where a chunk ends.

    Parameters
    ----------
    rng
        :mod:`anonstudio.kernels.rng` state.
    counters
        int64 (2,): proposals made, itemsets accepted (running totals).
    prob, alias
        :func:`build_alias` over ``C(|D_u|, ell)`` of the ``eligible`` records.
    ones
        float64 ones, one per record (the support kernel's weights).
    summary
        :func:`~anonstudio.kernels.support.build_summaries` of ``bits``
        (shape (0, 0): count without it).
    out_supp
        Receives the exact support of each accepted itemset.
    """
    ell = out_items.shape[1]
    cand = np.empty(ell, dtype=np.int32)
    got = 0
    if ell == 1:
        # Omega^1 is just the items that occur: draw them directly.
        n_items = post_indptr.shape[0] - 1
        for _ in range(max_proposals):
            if got >= wanted:
                break
            item = _below(rng, n_items)
            supp = post_indptr[item + 1] - post_indptr[item]
            counters[0] += 1
            if supp > 0:
                out_items[out_start + got, 0] = item
                out_supp[out_start + got] = supp
                got += 1
                counters[1] += 1
        return got
    for _ in range(max_proposals):
        if got >= wanted:
            break
        u = eligible[_alias_pick(rng, prob, alias)]
        sample_record_items(rng, indices, indptr[u], indptr[u + 1] - indptr[u], ell, cand)
        insertion_sort(cand)
        x = uniform(rng)
        counters[0] += 1
        # Accept iff supp <= 1 / x, i.e. supp < floor(1 / x) + 1: count up to that bound.
        limit = np.floor(1.0 / x) + 1.0 if x > 0.0 else np.inf
        supp = _bounded_support(cand, limit, ones, indptr, indices, post_indptr, post_records, bit_row, bits,
                                summary, mode)
        if supp < limit:
            out_items[out_start + got, :] = cand
            out_supp[out_start + got] = supp
            got += 1
            counters[1] += 1
    return got


def warm_up() -> None:
    """Compile the kernels on a three-record dataset."""
    from .support import tiny_dataset

    indptr, indices, post_indptr, post_records = tiny_dataset()
    bit_row, bits = build_bitsets(indptr, indices, 3)
    eligible = np.array([0, 1], dtype=np.int32)
    prob, alias = build_alias(np.array([1.0, 3.0]))
    out_items = np.empty((2, 2), dtype=np.int32)
    out_supp = np.empty(2, dtype=np.int64)
    for summary in (build_summaries(bits), np.zeros((0, 0), dtype=np.uint64)):
        draw_independent(make_state(1), np.zeros(2, dtype=np.int64), 2, 100, prob, alias, eligible, indptr, indices,
                         post_indptr, post_records, np.ones(3), bit_row, bits, summary, MODE_AUTO, out_items,
                         out_supp, 0)
