"""Algorithm 1 of Acs, Achara, Castelluccia (BigData 2015): uniform itemset sampling.

An independence Metropolis-Hastings chain over Omega^ell, the ell-itemsets that
occur in at least one record. Each step proposes C by picking a record uniformly
among those with at least ell items and then ell of its items uniformly, and moves
to C with probability ``min(1, q(S) / q(C))`` where

    q(x) = sum over records u containing x of prod_{i=1..ell} 1 / (|D_u| - ell + i)

is (up to the constant ``ell! / |U|``) the probability of proposing x. The
stationary distribution is uniform over Omega^ell (Theorem 2 of the paper).

The chain state lives in caller-owned arrays so that it can run in chunks, on any
thread, and resume exactly where it stopped:

* ``cur_items`` int32 (ell,): the current itemset, sorted;
* ``cur_q`` float64 (1,): q of the current itemset (0: no state yet; the first
  proposal is then taken unconditionally -- Algorithm 1 starts from an arbitrary
  itemset of Omega^ell, and a proposal always is one);
* ``counters`` int64 (4,): steps done, accepted moves, support of the current state,
  support computations (memo misses);
* ``rng`` uint64 (1,): :mod:`anonstudio.kernels.rng` state;
* ``cache_items`` int32 (S, ell), ``cache_supp`` int64 (S,), ``cache_q`` float64 (S,):
  a direct-mapped memo of recent supports (S a power of two, ``cache_supp == -1``
  marks an empty slot). Proposals are drawn in proportion to support, so the
  same frequent itemsets come up again and again; the memo only saves time and
  never changes a result.

Slow reference: tests/reference/uniqueness_reference.py::omega,
tests/reference/uniqueness_reference.py::naive_record_first_draws
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .rng import first_above, make_state, randbelow, uniform
from .support import MODE_AUTO, no_bitsets, support_of, support_weight_bounded

__all__ = ["run_chain", "record_first_supports", "record_weights", "subset_counts", "new_chain_state", "warm_up"]


@njit(nogil=True, cache=True, inline="always")
def insertion_sort(a):
    for i in range(1, a.shape[0]):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@njit(nogil=True, cache=True, inline="always")
def sample_record_items(rng, indices, start, length, ell, out):
    """``ell`` distinct items of the record ``indices[start : start + length]`` into ``out`` (unsorted).

    Floyd's algorithm, drawing exactly the numbers
    :func:`anonstudio.kernels.rng.sample_without_replacement` draws (same
    results for the same seed), but inlined and without slicing the record: the
    call and the array view cost more than the draw itself at small ell.
    """
    chosen = 0
    for j in range(length - ell, length):
        v = indices[start + randbelow(rng, j + 1)]
        for c in range(chosen):
            if out[c] == v:
                v = indices[start + j]
                break
        out[chosen] = v
        chosen += 1


@njit(nogil=True, cache=True, inline="always")
def _slot(items, size):
    """Memo slot of a sorted itemset (FNV-1a style mixing of the item ids)."""
    h = np.uint64(0xCBF29CE484222325)
    for j in range(items.shape[0]):
        h = (h ^ np.uint64(items[j])) * np.uint64(0x100000001B3)
    h ^= h >> np.uint64(29)
    return np.int64(h & np.uint64(size - 1))


@njit(nogil=True, cache=True, inline="always")
def _memo_or_count(cand, limit, counters, cache_items, cache_supp, cache_q, weights, indptr, indices, post_indptr,
                   post_records, bit_row, bits, mode, uniform_weight):
    """(support, q) of ``cand`` from the memo, else counted (up to ``limit``) and memoised if exact."""
    ell = cand.shape[0]
    slot = _slot(cand, cache_supp.shape[0])
    hit = cache_supp[slot] >= 0
    if hit:
        for j in range(ell):
            if cache_items[slot, j] != cand[j]:
                hit = False
                break
    if hit:
        return cache_supp[slot], cache_q[slot]
    supp, q = support_weight_bounded(
        cand, weights, indptr, indices, post_indptr, post_records, bit_row, bits, mode, uniform_weight, limit,
    )
    counters[3] += 1
    if q < limit:  # exact values only
        cache_items[slot, :] = cand
        cache_supp[slot] = supp
        cache_q[slot] = q
    return supp, q


@njit(nogil=True, cache=True)
def run_chain(
    cur_items,
    cur_q,
    counters,
    rng,
    n_steps,
    every,
    eligible,
    cdf,
    weights,
    indptr,
    indices,
    post_indptr,
    post_records,
    bit_row,
    bits,
    mode,
    uniform_weight,
    cache_items,
    cache_supp,
    cache_q,
    out_items,
    out_supp,
):
    """Advance the chain ``n_steps`` steps; record the state after every ``every``-th step.

    Parameters
    ----------
    eligible
        int32 ids of the records with at least ell items (the set U of Algorithm 1).
    cdf
        Empty: pick records of U uniformly (Algorithm 1 as printed). Else float64,
        one per eligible record: cumulative record-selection weights (see
        :func:`record_weights` for the matching ``weights``).
    weights
        float64 per record: ``prod_{i=1..ell} 1/(|D_u| - ell + i)`` (0 for short records).
    out_items, out_supp
        int32 (n_steps // every, ell) and int64 (n_steps // every,) receive the
        recorded states and their supports.

    Returns
    -------
    int
        Number of rows written (``n_steps // every``).
    """
    ell = cur_items.shape[0]
    cand = np.empty(ell, dtype=np.int32)
    n_eligible = eligible.shape[0]
    written = 0
    since = 0
    # Size-weighted single items: a record in proportion to its length, then one of
    # its items, is one uniformly chosen item occurrence -- one draw, no search.
    n_occurrences = indptr[indptr.shape[0] - 1]
    one_occurrence = ell == 1 and cdf.shape[0] > 0 and uniform_weight > 0.0 and 0 < n_occurrences < 2**32
    for _ in range(n_steps):
        if one_occurrence:
            cand[0] = indices[randbelow(rng, n_occurrences)]
        else:
            if cdf.shape[0] == 0:
                u = eligible[randbelow(rng, n_eligible)]
            else:
                u = eligible[first_above(cdf, cdf.shape[0], uniform(rng) * cdf[n_eligible - 1])]
            sample_record_items(rng, indices, indptr[u], indptr[u + 1] - indptr[u], ell, cand)
            insertion_sort(cand)
        same = cur_q[0] > 0.0
        if same:
            for j in range(ell):
                if cand[j] != cur_items[j]:
                    same = False
                    break
        if not same:
            # The uniform draw is consumed on every step, accepted or not, so the
            # random stream does not depend on the data path taken.
            x = uniform(rng)
            # Accept iff x q(C) < q(S), i.e. q(C) < q(S) / x; counting may stop at that limit.
            limit = cur_q[0] / x if cur_q[0] > 0.0 and x > 0.0 else np.inf
            if ell == 1 and uniform_weight > 0.0:
                # A single item's support is its posting list's length: cheaper than the memo.
                supp = np.int64(post_indptr[cand[0] + 1] - post_indptr[cand[0]])
                q = supp * uniform_weight
            else:
                supp, q = _memo_or_count(
                    cand, limit, counters, cache_items, cache_supp, cache_q, weights, indptr, indices,
                    post_indptr, post_records, bit_row, bits, mode, uniform_weight,
                )
            if q < limit:
                cur_items[:] = cand
                cur_q[0] = q
                counters[2] = supp
                counters[1] += 1
        else:
            uniform(rng)
            counters[1] += 1
        counters[0] += 1
        since += 1
        if since == every:
            since = 0
            out_items[written, :] = cur_items
            out_supp[written] = counters[2]
            written += 1
    return written


@njit(nogil=True, cache=True)
def record_first_supports(rng, eligible, indptr, indices, post_indptr, post_records, ell, out):
    """Person-first draws (de Montjoye et al.): a record of ``eligible`` uniformly, then
    ``ell`` of its items uniformly; writes the support of each drawn itemset to ``out``.

    Independent draws, no Metropolis correction: this is the person-level unicity
    experiment, not a uniform sample of itemsets.
    """
    cand = np.empty(ell, dtype=np.int32)
    n_eligible = eligible.shape[0]
    for s in range(out.shape[0]):
        u = eligible[randbelow(rng, n_eligible)]
        sample_record_items(rng, indices, indptr[u], indptr[u + 1] - indptr[u], ell, cand)
        out[s] = support_of(cand, indptr, indices, post_indptr, post_records)


def record_weights(lengths: np.ndarray, ell: int) -> np.ndarray:
    """``prod_{i=1..ell} 1/(|D_u| - ell + i)`` per record, 0 where ``|D_u| < ell``.

    This is ``1 / (|D_u| (|D_u|-1) ... (|D_u|-ell+1))``: the chance of drawing one
    particular ell-subset of record u, times the constant ``ell!``.
    """
    lengths = np.asarray(lengths, dtype=np.float64)
    w = np.ones_like(lengths)
    for i in range(1, ell + 1):
        w /= np.maximum(lengths - ell + i, 1.0)
    w[lengths < ell] = 0.0
    return w


def subset_counts(lengths: np.ndarray, ell: int) -> np.ndarray:
    """``C(|D_u|, ell)`` per record as float64 (0 where ``|D_u| < ell``)."""
    lengths = np.asarray(lengths, dtype=np.float64)
    c = np.ones_like(lengths)
    for i in range(ell):
        c *= np.maximum(lengths - i, 0.0) / (i + 1)
    return c


def new_chain_state(ell: int, seed: int | np.uint64, cache_slots: int = 1 << 16) -> dict[str, np.ndarray]:
    """Fresh caller-owned state arrays for :func:`run_chain` (``cache_slots`` a power of two)."""
    return {
        "cur_items": np.zeros(ell, dtype=np.int32),
        "cur_q": np.zeros(1, dtype=np.float64),
        "counters": np.zeros(4, dtype=np.int64),
        "rng": make_state(seed),
        "cache_items": np.zeros((cache_slots, ell), dtype=np.int32),
        "cache_supp": np.full(cache_slots, -1, dtype=np.int64),
        "cache_q": np.zeros(cache_slots, dtype=np.float64),
    }


def warm_up() -> None:
    """Compile :func:`run_chain` on a three-record dataset."""
    from .support import build_bitsets, tiny_dataset

    indptr, indices, post_indptr, post_records = tiny_dataset()
    weights = record_weights(np.diff(indptr), 2)
    eligible = np.array([0, 1], dtype=np.int32)
    for bit_row, bits in (no_bitsets(3), build_bitsets(indptr, indices, 3)):
        st = new_chain_state(2, 1, cache_slots=4)
        out_items = np.empty((4, 2), dtype=np.int32)
        out_supp = np.empty(4, dtype=np.int64)
        record_first_supports(st["rng"], eligible, indptr, indices, post_indptr, post_records, 2, out_supp)
        for cdf in (np.zeros(0), np.array([1.0, 4.0])):
            run_chain(st["cur_items"], st["cur_q"], st["counters"], st["rng"], 4, 1, eligible, cdf, weights, indptr,
                      indices, post_indptr, post_records, bit_row, bits, MODE_AUTO, 0.0,
                      st["cache_items"], st["cache_supp"], st["cache_q"], out_items, out_supp)
