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
from .packed_bits import empty_packed, held_packed_bit, pack_postings, row_words
from .rng import make_state, uniform
from .support import (
    MODE_AUTO,
    MODE_LISTS,
    all_have_rows,
    in_record,
    popcount64,
    rarest_item,
)

# A walk entry (a random bit test) costs about this many summary words (streamed): a count walks the rarest list
# when ``_WALK_VS_SUMMARY * entries * (ell - 1) <= summary words * ell``. Measured on the 1M-user city: 1, 2 and
# "never walk" were within a few per cent of 4; the inverse weighting this comparison once had (an entry costing a
# quarter of a summary word) was 17-20 % slower.
_WALK_VS_SUMMARY = 4

__all__ = ["build_alias", "draw_independent", "record_layout", "build_layout_rows", "layout_postings",
           "summary_spans", "warm_up"]


@njit(nogil=True, cache=True)
def build_alias(weights):
    """Walker/Vose alias table of non-negative ``weights`` (not all zero).

    Returns
    -------
    (prob float64 (n,), alias int32 (n,))
        Pick ``i`` uniformly, keep it with probability ``prob[i]``, else take
        ``alias[i]``: index ``j`` comes out with probability ``weights[j] / sum``.
    """
    n = weights.shape[0]
    # The scaled weights become the probabilities in place: an index's value is
    # final once it leaves the small stack. int32 stacks: 8 bytes a record less
    # of scratch (a table is built per level, over every record long enough).
    prob = weights * (n / weights.sum())
    alias = np.arange(n).astype(np.int32)
    small = np.empty(n, dtype=np.int32)
    large = np.empty(n, dtype=np.int32)
    n_small = 0
    n_large = 0
    for i in range(n):
        if prob[i] < 1.0:
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
        alias[s] = g
        prob[g] = (prob[g] + prob[s]) - 1.0
        if prob[g] < 1.0:
            small[n_small] = g
            n_small += 1
        else:
            large[n_large] = g
            n_large += 1
    # Whatever is left has (up to rounding) probability 1 of keeping itself.
    for j in range(n_small):
        prob[small[j]] = 1.0
    for j in range(n_large):
        prob[large[j]] = 1.0
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


# ----------------------------------------------------------------- record layout
# The sampler's bitsets number the records in an order of their own (``pos[u]``
# is record u's bit), chosen so that each item's records gather in few words:
# longest records first (they hold most itemsets, so a frequent proposal reaches
# its bound within the first words), then by the record's items in a spatial
# order of the items (Hilbert curve over the items' coordinates, else by
# frequency), so records of people living and working in the same place are
# neighbours. A support does not depend on how records are numbered: the counts,
# hence the accept decisions and the samples, are the same as in data order.
# On the 1M-user city this cut the bounded count from 4.0 to 0.9 us per
# proposal at ell = 3 and from 19.4 to 5.5 us at ell = 5.

_HILBERT_BITS = 16


def _hilbert_index(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Position along a Hilbert curve of integer points in [0, 2**16)^2."""
    x = x.astype(np.int64)
    y = y.astype(np.int64)
    d = np.zeros_like(x)
    s = 1 << (_HILBERT_BITS - 1)
    while s > 0:
        rx = (x & s) > 0
        ry = (y & s) > 0
        d += s * s * ((3 * rx) ^ ry)
        flip = ~ry & rx
        x = np.where(flip, s - 1 - x, x)
        y = np.where(flip, s - 1 - y, y)
        x, y = np.where(~ry, y, x), np.where(~ry, x, y)
        s >>= 1
    return d


def item_ranks(n_items: int, indices: np.ndarray, coords: np.ndarray | None) -> np.ndarray:
    """Rank of each item in the layout order: along a Hilbert curve if items have coordinates, else by frequency."""
    if coords is not None and len(coords) == n_items and n_items > 0:
        span = np.ptp(coords, axis=0)
        span[span == 0] = 1.0
        grid = (coords - coords.min(axis=0)) / span * ((1 << _HILBERT_BITS) - 1)
        order = np.argsort(_hilbert_index(grid[:, 0], grid[:, 1]), kind="stable")
    else:
        order = np.argsort(-np.bincount(indices, minlength=n_items), kind="stable")
    rank = np.empty(n_items, dtype=np.int64)
    rank[order] = np.arange(n_items)
    return rank


@njit(nogil=True, cache=True)
def _layout_keys(indptr, indices, rank, len_bits, item_bits, n_key_items, out):
    """One uint64 per record: (longest first, then its ``n_key_items`` lowest item ranks, ascending)."""
    len_cap = (1 << len_bits) - 1
    low = np.empty(n_key_items, dtype=np.int64)
    for u in range(indptr.shape[0] - 1):
        n = 0
        for k in range(indptr[u], indptr[u + 1]):
            r = rank[indices[k]]
            # Keep the n_key_items smallest ranks, sorted (insertion into a tiny buffer).
            if n < n_key_items:
                j = n
                n += 1
            elif r < low[n - 1]:
                j = n - 1
            else:
                continue
            while j > 0 and low[j - 1] > r:
                low[j] = low[j - 1]
                j -= 1
            low[j] = r
        key = np.uint64(len_cap - min(indptr[u + 1] - indptr[u], len_cap))
        for j in range(n_key_items):
            key = (key << np.uint64(item_bits)) | np.uint64(low[j] if j < n else 0)
        out[u] = key


def record_layout(indptr: np.ndarray, indices: np.ndarray, n_items: int,
                  coords: np.ndarray | None = None) -> np.ndarray:
    """``pos`` int32: the bit of record ``u`` in the sampler's bitsets (a permutation of the records)."""
    n = len(indptr) - 1
    lengths = np.diff(indptr)
    len_bits = max(1, min(16, int(lengths.max()).bit_length() if n else 1))
    item_bits = max(1, int(max(n_items - 1, 1)).bit_length())
    n_key_items = max(0, min(4, (64 - len_bits) // item_bits))
    keys = np.empty(n, dtype=np.uint64)
    _layout_keys(indptr, indices, item_ranks(n_items, indices, coords), len_bits, item_bits, n_key_items, keys)
    order = np.argsort(keys, kind="stable")
    del keys
    pos = np.empty(n, dtype=np.int32)
    pos[order] = np.arange(n, dtype=np.int32)
    return pos


@njit(nogil=True, cache=True)
def layout_postings(indptr, indices, order, post_indptr, out):
    """Posting lists in a renumbering of the records: record ``order[p]`` becomes ``p``.

    ``out[post_indptr[i]:post_indptr[i + 1]]`` receives the new numbers of the
    records holding item ``i``, ascending (records are visited in new order).
    """
    cursor = post_indptr[:-1].copy()
    for p in range(order.shape[0]):
        u = order[p]
        for k in range(indptr[u], indptr[u + 1]):
            it = indices[k]
            out[cursor[it]] = p
            cursor[it] += 1


def build_layout_rows(post_indptr: np.ndarray, post_records: np.ndarray, n_records: int,
                      max_bytes: int) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Packed record bitsets of the items in the layout numbering, most frequent items first until ``max_bytes``.

    Parameters
    ----------
    post_indptr, post_records
        :func:`layout_postings`: each item's records, numbered in the layout, ascending.

    Returns
    -------
    bit_row : int32 (n_items,), row of each item (-1: none)
    rows : (summary, first, words), see :mod:`anonstudio.kernels.packed_bits`; bit ``p`` of row
        ``bit_row[i]`` says record ``p`` of the layout holds ``i``
    """
    n_items = len(post_indptr) - 1
    bit_row = np.full(n_items, -1, dtype=np.int32)
    freq = np.diff(post_indptr)
    present = np.flatnonzero(freq >= 1)
    if n_records == 0 or len(present) == 0:
        return bit_row, empty_packed()
    by_freq = present[np.argsort(-freq[present], kind="stable")]
    sizes = np.zeros(len(by_freq), dtype=np.int64)
    row_words(post_indptr, post_records, by_freq, sizes)
    # A row costs its non-zero words, its summary and its first-word indexes.
    per_row = 8 * sizes + 16 * ((n_records + 4095) // 4096)
    chosen = np.sort(by_freq[: int(np.searchsorted(np.cumsum(per_row), max_bytes, side="right"))])
    bit_row[chosen] = np.arange(len(chosen), dtype=np.int32)
    if len(chosen) == 0:
        return bit_row, empty_packed()
    return bit_row, pack_postings(post_indptr, post_records, chosen, n_records)


@njit(nogil=True, cache=True)
def summary_spans(summary):
    """``[lo, hi)`` of the non-zero summary words of each row (int32 (rows, 2); ``lo == hi``: empty row).

    In the clustered layout an item's records occupy a stretch of the numbering,
    so an itemset's count scans only where the stretches of all its items overlap.
    """
    n_rows, n_words = summary.shape
    spans = np.zeros((n_rows, 2), dtype=np.int32)
    for r in range(n_rows):
        lo = 0
        while lo < n_words and summary[r, lo] == 0:
            lo += 1
        hi = n_words
        while hi > lo and summary[r, hi - 1] == 0:
            hi -= 1
        spans[r, 0] = lo
        spans[r, 1] = hi
    return spans


@njit(nogil=True, cache=True, inline="always")
def _count_two_level(rows, lo, hi, summary, first, words, limit):
    """Support over summary words ``[lo, hi)`` of the packed rows ``rows`` (rarest first); stops at ``limit``.

    Most flagged words hold no record with every item (the longest records,
    gathered at the front, flag nearly every word of every item), so a word's
    AND stops at the first zero: rarest rows first, about two reads per flagged
    word instead of ``ell`` (1.5-1.7x faster counts on the 1M-user city).
    """
    ell = rows.shape[0]
    count = np.int64(0)
    for s in range(lo, hi):
        flags = summary[rows[0], s]
        for j in range(1, ell):
            flags &= summary[rows[j], s]
        while flags != 0:
            low = flags & (flags - np.uint64(1))
            below = (flags ^ low) - np.uint64(1)  # the bits below the flagged word's
            flags = low
            r0 = rows[0]
            r1 = rows[1]
            x = (words[first[r0, s] + popcount64(summary[r0, s] & below)]
                 & words[first[r1, s] + popcount64(summary[r1, s] & below)])
            j = 2
            while x != 0 and j < ell:
                rj = rows[j]
                x &= words[first[rj, s] + popcount64(summary[rj, s] & below)]
                j += 1
            count += popcount64(x)
            # Checked per row word, not per summary word: a rejected proposal usually reaches its bound (two or
            # three records) in its first word, while its first summary word flags about 60.
            if count >= limit:
                return count
    return count


@njit(nogil=True, cache=True, inline="always")
def _bounded_support(cand, rows, freq, held, limit, indptr, indices, post_indptr, post_records, order, bit_row,
                     summary, first, words, spans, mode):
    """Support of ``cand``, exact below ``limit`` (else at least ``limit``).

    Where every item has a bitset row, the two-level AND over the overlap of
    the items' spans is used unless the rarest posting list is short enough to
    walk: a walk tests ``ell - 1`` bits per entry at random, the two-level AND
    streams ``ell`` summary words per 64 row words and then visits the flagged words.
    """
    ell = cand.shape[0]
    use_bits = mode != MODE_LISTS and summary.shape[1] > 0
    r, rare_len = rarest_item(cand, post_indptr)
    if use_bits and all_have_rows(cand, bit_row):
        lo = np.int64(0)
        hi = np.int64(summary.shape[1])
        for j in range(ell):
            it = cand[j]
            row = np.int64(bit_row[it])
            lo = max(lo, np.int64(spans[row, 0]))
            hi = min(hi, np.int64(spans[row, 1]))
            # Rows by ascending frequency (insertion), so a word's AND empties early.
            f = post_indptr[it + 1] - post_indptr[it]
            i = j
            while i > 0 and freq[i - 1] > f:
                rows[i] = rows[i - 1]
                freq[i] = freq[i - 1]
                i -= 1
            rows[i] = row
            freq[i] = f
        if hi <= lo:
            return np.int64(0)
        if _WALK_VS_SUMMARY * rare_len * (ell - 1) > (hi - lo) * ell:
            return _count_two_level(rows, lo, hi, summary, first, words, limit)
    rare = cand[r]
    count = np.int64(0)
    rows[:] = -1
    for k in range(post_indptr[rare], post_indptr[rare + 1]):
        p = post_records[k]  # a record's number in the layout; order[p] is its number in the data
        ok = True
        for j in range(ell):
            if j == r:
                continue
            it = cand[j]
            row = bit_row[it] if use_bits else -1
            if row >= 0:
                # rows / freq are free once the count has chosen to walk: they hold the rows' blocks.
                if not held_packed_bit(summary, first, words, row, p, j, rows, freq, held):
                    ok = False
                    break
            else:
                u = order[p]
                if not in_record(indices, indptr[u], indptr[u + 1], it):
                    ok = False
                    break
        if ok:
            count += 1
            if count >= limit:
                break
    return count


@njit(nogil=True, cache=True)
def draw_independent(rng, counters, wanted, max_proposals, prob, alias, eligible, indptr, indices, post_indptr,
                     post_records, order, bit_row, summary, first, words, spans, mode, out_items, out_supp, out_start):
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
    post_indptr, post_records
        :func:`layout_postings`: the records of each item, numbered in the layout.
    order, bit_row
        ``order[p]``: the data record numbered ``p`` in the layout (the inverse
        of :func:`record_layout`); :func:`build_layout_rows`.
    summary, first, words
        The packed rows of :func:`build_layout_rows` (no rows: count on the lists).
    spans
        :func:`summary_spans` of ``summary``.
    out_supp
        Receives the exact support of each accepted itemset.
    """
    ell = out_items.shape[1]
    cand = np.empty(ell, dtype=np.int32)
    rows = np.empty(ell, dtype=np.int64)
    freq = np.empty(ell, dtype=np.int64)
    held = np.empty(ell, dtype=np.uint64)
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
        supp = _bounded_support(cand, rows, freq, held, limit, indptr, indices, post_indptr, post_records, order,
                                bit_row, summary, first, words, spans, mode)
        if supp < limit:
            out_items[out_start + got, :] = cand
            out_supp[out_start + got] = supp
            got += 1
            counters[1] += 1
    return got


def warm_up() -> None:
    """Compile the kernels on a three-record dataset."""
    from .support import tiny_dataset

    indptr, indices, frozen_indptr, _ = tiny_dataset()
    pos = record_layout(indptr, indices, 3)
    order = np.empty(3, dtype=np.int32)
    order[pos] = np.arange(3, dtype=np.int32)
    # As samplers.independent_sampler.layout_postings_of builds the layout: filled writable, then frozen, so the
    # sampler's first run loads these variants instead of compiling its own.
    post_indptr = frozen_indptr.copy()
    post_records = np.empty(int(post_indptr[-1]), dtype=np.int32)
    layout_postings(indptr, indices, order, post_indptr, post_records)
    post_indptr.setflags(write=False)
    post_records.setflags(write=False)
    eligible = np.array([0, 1], dtype=np.int32)
    prob, alias = build_alias(np.array([1.0, 3.0]))
    out_items = np.empty((2, 2), dtype=np.int32)
    out_supp = np.empty(2, dtype=np.int64)
    for max_bytes in (1 << 20, 0):  # rows for every item, then none
        bit_row, (summary, first, words) = build_layout_rows(post_indptr, post_records, 3, max_bytes)
        draw_independent(make_state(1), np.zeros(2, dtype=np.int64), 2, 100, prob, alias, eligible, indptr, indices,
                         post_indptr, post_records, order, bit_row, summary, first, words, summary_spans(summary),
                         MODE_AUTO, out_items, out_supp, 0)
