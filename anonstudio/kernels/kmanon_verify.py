"""Kernels of the independent k^m-anonymity verifier (``anonstudio.verifiers.kmanon``).

Deliberately separate from the anonymizer's kernels: plain merge-intersection
of sorted lists, exact rejection sampling driven by pre-drawn uniforms.

Slow reference: tests/reference/kmanon_reference.py::fraction_k_anonymous,
tests/reference/kmanon_reference.py::partition_records
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import read_only

__all__ = [
    "pair_supports", "list_bitsets", "fill_list_bitsets", "count_up_to_bits", "count_up_to", "draw_uniform_itemsets",
    "generalized_supports", "records_of_lists", "records_of_lists_in_order", "count_list_records",
    "fill_list_records", "longest_first", "guide_table",
]


@njit(nogil=True, cache=True, inline="always")
def _gallop_to(lists, lo, hi, x):
    """First position in sorted ``lists[lo:hi]`` holding a value >= x (``hi`` if none): doubling, then bisection.

    The anonymizer's kernels have a search of the same textbook shape; this one is written apart on purpose, since
    the verifier shares no code with the method it checks.
    """
    step = 1
    probe = lo
    while probe < hi and lists[probe] < x:
        lo = probe + 1
        probe = lo + step
        step <<= 1
    if probe > hi:
        probe = hi
    while lo < probe:
        mid = (lo + probe) >> 1
        if lists[mid] < x:
            lo = mid + 1
        else:
            probe = mid
    return lo


@njit(nogil=True, cache=True)
def count_up_to(lists_indptr, lists, ids, n_ids, cap):
    """``min(size of the intersection, cap)`` of the sorted lists ``ids[:n_ids]``.

    Walks the shortest list in ascending order; each other list keeps a cursor
    that only moves forward (galloping search), so a whole walk reads each
    list at most once, and the count stops once it reaches ``cap``.
    """
    if n_ids == 0:
        return 0
    # The other lists shortest first: the most selective test comes first and usually ends a step.
    order = np.empty(n_ids, dtype=np.int64)
    for a in range(n_ids):
        order[a] = ids[a]
    for a in range(1, n_ids):
        v = order[a]
        b = a - 1
        while b >= 0 and lists_indptr[order[b] + 1] - lists_indptr[order[b]] > lists_indptr[v + 1] - lists_indptr[v]:
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = v
    cur = np.empty(n_ids, dtype=np.int64)
    for a in range(n_ids):
        cur[a] = lists_indptr[order[a]]
    count = 0
    for t in range(lists_indptr[order[0]], lists_indptr[order[0] + 1]):
        x = lists[t]
        ok = True
        for a in range(1, n_ids):
            hi = lists_indptr[order[a] + 1]
            pos = _gallop_to(lists, cur[a], hi, x)
            cur[a] = pos
            if pos == hi:
                return count  # this list is used up: no later record is common
            if lists[pos] != x:
                ok = False
                break
        if ok:
            count += 1
            if count >= cap:
                return count
    return count


@njit(nogil=True, cache=True)
def pair_supports(indptr, indices, table, u_start, u_stop):
    """Add the pairs of records ``u_start..u_stop-1`` to ``table[b * (b - 1) // 2 + a]`` (``a < b``, int32).

    Over all records it holds every pair's support; the caller runs it in
    chunks of records so that a cancel is honoured between them. With it a
    proposed pair's support is one read instead of an intersection of two
    lists: at ℓ = 2 a million-person city accepts 1 proposal in 250, so the
    check reads millions of pairs.
    """
    for u in range(u_start, u_stop):
        for j in range(indptr[u] + 1, indptr[u + 1]):
            b = indices[j]
            for i in range(indptr[u], j):
                a = indices[i]
                lo = min(a, b)
                hi = max(a, b)
                table[hi * (hi - 1) // 2 + lo] += 1


@njit(nogil=True, cache=True)
def guide_table(cum_weights):
    """``guide[j]``: first record whose cumulative weight exceeds ``j / n`` of the total (n = records).

    A draw's record is then found from ``guide[int(x * n)]`` in a step or two
    (Chen and Asau's indexed search) instead of a bisection over millions of
    cumulative weights: the same record, one or two memory reads.
    """
    n = cum_weights.shape[0]
    total = cum_weights[n - 1]
    guide = np.empty(n + 1, dtype=np.int64)
    i = 0
    for j in range(n + 1):
        bound = total * (j / n)
        while i < n - 1 and cum_weights[i] <= bound:
            i += 1
        guide[j] = i
    return guide


@njit(nogil=True, cache=True, inline="always")
def _record_at(cum_weights, guide, x, target):
    """``searchsorted(cum_weights, target, side="right")`` (clamped to the last record), started from the guide."""
    n = cum_weights.shape[0]
    i = guide[min(np.int64(x * n), n)]
    # The guide is only a start (rounding of j / n against x * total): settle exactly.
    while i > 0 and cum_weights[i - 1] > target:
        i -= 1
    while i < n - 1 and cum_weights[i] <= target:
        i += 1
    return i


@njit(nogil=True, cache=True)
def draw_uniform_itemsets(uniforms, cum_weights, guide, indptr, indices, post_indptr, post_records, ell, out, want,
                          accepted_rows, pairs):
    """Exact uniform ell-itemsets of Omega^ell by rejection, from pre-drawn uniforms.

    Propose: a record with probability proportional to C(|D_u|, ell), then a
    uniform ell-subset of it; ``x`` is proposed with probability
    ``supp(x) / W``. Accept with probability ``1 / supp(x)``: every itemset of
    Omega^ell is then equally likely. Each proposal uses one row of
    ``uniforms`` (``ell + 2`` columns). ``accepted_rows[j]`` receives the row
    of the j-th accepted itemset (so that slices of one batch drawn on several
    threads can be joined exactly as one pass would have stopped). ``guide``:
    :func:`guide_table` of ``cum_weights``. ``pairs``:
    :func:`pair_supports` when ``ell == 2`` (empty: intersect the lists); an
    exact support decides exactly as the capped count does.
    Returns (accepted, proposals used).
    """
    total = cum_weights[cum_weights.shape[0] - 1]
    got = 0
    pick = np.empty(ell, dtype=np.int64)
    ids = np.empty(ell, dtype=np.int64)
    # Partial Fisher-Yates over positions 0..size-1 that stores only the moved
    # positions (at most 2 ell): picked records are long (picks go by C(size, ell)),
    # and resetting every position cost O(size) per proposal.
    moved_at = np.empty(2 * ell, dtype=np.int64)
    moved_to = np.empty(2 * ell, dtype=np.int64)
    row = 0
    while row < uniforms.shape[0] and got < want:
        target = uniforms[row, 0] * total
        u = _record_at(cum_weights, guide, uniforms[row, 0], target)
        lo = indptr[u]
        size = indptr[u + 1] - lo
        n_moved = 0
        for a in range(ell):
            b = a + int(uniforms[row, 1 + a] * (size - a))
            if b >= size:
                b = size - 1
            # value at a and at b (a position never moved holds itself)
            va = a
            vb = b
            ia = -1
            ib = -1
            for q in range(n_moved):
                if moved_at[q] == a:
                    va = moved_to[q]
                    ia = q
                if moved_at[q] == b:
                    vb = moved_to[q]
                    ib = q
            # swap: position a now holds vb, position b holds va
            if ia < 0:
                ia = n_moved
                moved_at[ia] = a
                n_moved += 1
            moved_to[ia] = vb
            if b != a:
                if ib < 0:
                    ib = n_moved
                    moved_at[ib] = b
                    n_moved += 1
                moved_to[ib] = va
            pick[a] = indices[lo + vb]
        for a in range(ell):
            ids[a] = pick[a]
        # accept iff supp < 1/u: counting can stop at ceil(1/u)
        u_acc = uniforms[row, ell + 1]
        cap = np.int64(1.0 / u_acc) + 1 if u_acc > 1e-12 else np.int64(1) << 62
        if ell == 2 and pairs.shape[0] > 0:
            lo_item = min(ids[0], ids[1])
            hi_item = max(ids[0], ids[1])
            supp = np.int64(pairs[hi_item * (hi_item - 1) // 2 + lo_item])
        else:
            supp = count_up_to(post_indptr, post_records, ids, ell, cap)
        if u_acc * supp < 1.0:
            pick.sort()
            for a in range(ell):
                out[got, a] = pick[a]
            accepted_rows[got] = row
            got += 1
        row += 1
    return got, row


@njit(nogil=True, cache=True)
def fill_list_bitsets(lists_indptr, lists, g_start, g_stop, bits):
    """Set bit ``u`` of row ``g`` for each record ``u`` of list ``g``, lists ``g_start..g_stop-1``."""
    for g in range(g_start, g_stop):
        for t in range(lists_indptr[g], lists_indptr[g + 1]):
            u = lists[t]
            bits[g, u >> 6] |= np.uint64(1) << np.uint64(u & 63)


def list_bitsets(lists_indptr, lists, n_records, pieces=1, run=map):
    """One row of bits over the records per list (bit ``u`` of row ``g``: record ``u`` is in list ``g``).

    The rows are filled in ``pieces`` ranges of lists of about equal entries by
    one call of ``run(function, range(pieces))`` (``map`` or a thread pool's).
    """
    n_lists = len(lists_indptr) - 1
    bits = np.zeros((n_lists, (n_records + 63) // 64), dtype=np.uint64)
    pieces = max(1, min(int(pieces), n_lists))
    total = lists_indptr[-1] if n_lists else 0
    bounds = [0] + [int(np.searchsorted(lists_indptr, total * i / pieces, side="right")) - 1
                    for i in range(1, pieces)] + [n_lists]
    bounds = np.maximum.accumulate(np.clip(bounds, 0, n_lists)).tolist()

    def fill(i):
        fill_list_bitsets(lists_indptr, lists, bounds[i], bounds[i + 1], bits)

    list(run(fill, range(pieces)))
    return bits


@njit(nogil=True, cache=True, inline="always")
def _ones(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(nogil=True, cache=True)
def count_up_to_bits(bits, ids, n_ids, cap):
    """``min(size of the intersection, cap)`` of the rows ``ids[:n_ids]`` (at least two), 8 words at a time."""
    words = bits.shape[1]
    count = 0
    for w0 in range(0, words, 8):
        w1 = min(w0 + 8, words)
        for w in range(w0, w1):
            x = bits[ids[0], w]
            for a in range(1, n_ids):
                x &= bits[ids[a], w]
            count += _ones(x)
        if count >= cap:
            return count
    return count


@njit(nogil=True, cache=True)
def generalized_supports(itemsets, part_of_item, part_indptr, part_records, part_bits, cap, out):
    """``min(support, cap)`` of each itemset's image (its set of partitions) in the generalized data.

    The check only asks whether a support reaches k, so counting stops there:
    the lists of big partitions hold hundreds of thousands of records. Where
    ``part_bits`` has a row per partition (else it is empty) and even the
    shortest list is dense, the rows are ANDed instead of intersecting lists.
    """
    ell = itemsets.shape[1]
    ids = np.empty(ell, dtype=np.int64)
    words = part_bits.shape[1] if part_bits.shape[0] > 0 else 0
    for r in range(itemsets.shape[0]):
        m = 0
        for a in range(ell):
            p = part_of_item[itemsets[r, a]]
            seen = False
            for b in range(m):
                if ids[b] == p:
                    seen = True
            if not seen:
                ids[m] = p
                m += 1
        shortest = part_indptr[ids[0] + 1] - part_indptr[ids[0]]
        for a in range(1, m):
            shortest = min(shortest, part_indptr[ids[a] + 1] - part_indptr[ids[a]])
        if m >= 2 and words > 0 and 4 * shortest > words:
            out[r] = count_up_to_bits(part_bits, ids, m, cap)
        else:
            out[r] = count_up_to(part_indptr, part_records, ids, m, cap)


@njit(nogil=True, cache=True)
def count_list_records(list_of_item, indptr, indices, visit, r_start, r_stop, counts):
    """Add to ``counts[g]`` the records numbered ``r_start..r_stop-1`` that are in list ``g`` (each once).

    Record ``visit[r]`` is numbered ``r``; a record holding two items of one
    list counts once. The first pass of :func:`records_of_lists_in_order`,
    over one range of numbers.
    """
    last = np.full(counts.shape[0], -1, dtype=np.int64)
    for r in range(r_start, r_stop):
        u = visit[r]
        for t in range(indptr[u], indptr[u + 1]):
            g = list_of_item[indices[t]]
            if last[g] != r:
                last[g] = r
                counts[g] += 1


@njit(nogil=True, cache=True)
def fill_list_records(list_of_item, indptr, indices, visit, r_start, r_stop, fill, records):
    """Write the numbers ``r_start..r_stop-1`` into their lists: list ``g`` from ``records[fill[g]]`` on.

    The second pass of :func:`records_of_lists_in_order`; ``fill`` advances
    past what was written. Ranges of numbers with disjoint ``fill`` spans
    can be written at once (by several threads).
    """
    last = np.full(fill.shape[0], -1, dtype=np.int64)
    for r in range(r_start, r_stop):
        u = visit[r]
        for t in range(indptr[u], indptr[u + 1]):
            g = list_of_item[indices[t]]
            if last[g] != r:
                last[g] = r
                records[fill[g]] = r
                fill[g] += 1


def records_of_lists_in_order(n_lists, indptr, indices, list_of_item, visit, pieces=1, run=map):
    """CSR of the records of each list (item or partition), ascending and without repeats, renumbered.

    ``list_of_item[i]`` is the list of item ``i``; the CSR records are
    ``indptr``/``indices``; record ``visit[r]`` is numbered ``r`` in the
    lists (``visit`` a permutation of the records). A counting sort in the new
    order: each list fills in ascending number. Numbers are int32 (half the
    memory of int64: 46 MB per set of lists at a million people), as the
    data's own item ids are.

    The numbers are cut into ``pieces`` ranges of about equal work, each
    counted, then written, by one call of ``run(function, range(pieces))``
    (``map``, or a thread pool's ``map``: the kernels release the GIL). A
    range's place in each list follows from the counts of the ranges before
    it, so the lists are the same for any number of pieces.
    """
    n_records = len(indptr) - 1
    # each range keeps a count and a place per list: at most 64 MB of them (many items, many threads)
    pieces = max(1, min(int(pieces), n_records, (64 << 20) // (16 * max(n_lists, 1))))
    list_of_item = np.asarray(list_of_item)
    # Ranges of about equal work, not of equal records: the longest records come first in ``visit``, and a
    # record costs about as much as 20 of its entries (reading its place in the data misses the cache).
    work = np.cumsum(np.diff(indptr)[visit] + 20) if pieces > 1 else np.zeros(0, dtype=np.int64)
    bounds = [0] + [int(np.searchsorted(work, work[-1] * i / pieces, side="right"))
                    for i in range(1, pieces)] + [n_records]
    counts = np.zeros((pieces, n_lists), dtype=np.int64)

    def count(i):
        count_list_records(list_of_item, indptr, indices, visit, bounds[i], bounds[i + 1], counts[i])

    list(run(count, range(pieces)))
    lists_indptr = np.zeros(n_lists + 1, dtype=np.int64)
    np.cumsum(counts.sum(axis=0), out=lists_indptr[1:])
    # where range i starts in list g: the list's start plus the counts of the ranges before i
    fills = lists_indptr[:-1] + (np.cumsum(counts, axis=0) - counts)
    records = np.empty(lists_indptr[n_lists], dtype=np.int32)

    def fill(i):
        fill_list_records(list_of_item, indptr, indices, visit, bounds[i], bounds[i + 1], fills[i], records)

    list(run(fill, range(pieces)))
    return lists_indptr, records


def records_of_lists(n_lists, indptr, indices, list_of_item):
    """:func:`records_of_lists_in_order` in the data's own record order."""
    return records_of_lists_in_order(n_lists, indptr, indices, list_of_item,
                                     np.arange(len(indptr) - 1, dtype=np.int64))


@njit(nogil=True, cache=True)
def _longest_first(indptr):
    """A counting sort of the records by length, longest first, ties in data order."""
    n = indptr.shape[0] - 1
    longest = 0
    for u in range(n):
        longest = max(longest, indptr[u + 1] - indptr[u])
    starts = np.zeros(longest + 2, dtype=np.int64)  # slot ``longest - length``: records of that length
    for u in range(n):
        starts[longest - (indptr[u + 1] - indptr[u]) + 1] += 1
    for s in range(1, longest + 2):
        starts[s] += starts[s - 1]
    order = np.empty(n, dtype=np.int64)
    for u in range(n):
        s = longest - (indptr[u + 1] - indptr[u])
        order[starts[s]] = u
        starts[s] += 1
    return order


def longest_first(indptr) -> np.ndarray:
    """The records, longest first (ties in data order): the check's numbering of records in its lists.

    Supports do not depend on how records are numbered, but a count that stops
    at a cap stops sooner when the records holding most itemsets come first.
    The order of ``np.argsort(-lengths, kind="stable")``, by a counting sort
    (lengths are small integers: 1 ms instead of 14 ms at 200,000 records).
    """
    return _longest_first(np.asarray(indptr))


def warm_up() -> None:
    """Compile the kernels above on tiny inputs (see ``kernels.warmup``).

    Data arrays are read-only, as a dataset's are (``kernels.read_only``).
    """
    indptr = read_only(np.array([0, 2, 4], dtype=np.int64))
    indices = read_only(np.array([0, 1, 0, 1], dtype=np.int32))
    post_indptr, post_records = records_of_lists_in_order(2, indptr, indices, np.arange(2, dtype=np.int64),
                                                          longest_first(indptr))
    cum = np.array([1.0, 2.0])
    out = np.empty((2, 2), dtype=np.int64)
    table = np.zeros(1, dtype=np.int32)
    pair_supports(indptr, indices, table, 0, 2)
    for pairs in (np.zeros(0, dtype=np.int32), table):
        draw_uniform_itemsets(np.full((4, 4), 0.3), cum, guide_table(cum), indptr, indices, post_indptr,
                              post_records, 2, out, 2,
                              np.empty(2, dtype=np.int64), pairs)
    sup = np.empty(2, dtype=np.int64)
    for part_bits in (np.zeros((0, 0), dtype=np.uint64), list_bitsets(post_indptr, post_records, 2)):
        generalized_supports(out, np.array([0, 1], dtype=np.int64), post_indptr, post_records, part_bits, 2, sup)
