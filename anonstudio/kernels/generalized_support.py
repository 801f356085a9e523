"""Support of generalized itemsets while partitions of items grow by merging.

A generalization maps every item to a partition; a generalized record holds
the partitions of its items. The support of a set of partitions is the number
of records that touch every one of them. Each partition keeps its *posting
list* (the sorted records touching it): ``pool[start[p] : start[p] + length[p]]``
in one shared int32 ``pool``, or, while ``start[p] < 0``, at ``-1 - start[p]``
of the read-only ``base`` lists (an unmerged partition reads its item's list
where the sampler keeps it instead of a copy). A merge writes the sorted union
of two lists at the end of the pool (the caller compacts the pool when it fills).

Anonymization only needs to know whether a support reaches ``k``, so the
intersection stops as soon as it has found ``k`` records. It walks the
shortest list and looks records up in the others: a bit test in big
partitions, which also keep a bitset over records, galloping search otherwise.

Deterministic (sigma = 1) levels enumerate every generalized itemset of the
records as packed uint64 keys (see :func:`enumerate_keys`) and count them by
sorting.

Slow reference: tests/reference/kmanon_reference.py::generalized_support, tests/reference/kmanon_reference.py::violators
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import read_only
from .packed_bits import held_packed_bit, pack_postings, packed_word
from .rng import make_state, randbelow
from .support import popcount64, trailing_zeros

__all__ = [
    "union_into",
    "support_at_least",
    "fill_bits",
    "check_batch",
    "record_parts",
    "count_keys",
    "enumerate_keys",
    "violating_keys",
    "unpack_key",
    "unpack_keys",
    "key_bits",
    "next_combination",
    "binomial_table",
    "dense_offsets",
    "dense_count",
    "dense_violators",
    "remap_and_shuffle",
]


@njit(nogil=True, cache=True, inline="always")
def _entry(base, pool, in_base, i):
    """Entry ``i`` of the base lists or of the pool."""
    return base[i] if in_base else pool[i]


@njit(nogil=True, cache=True)
def _merge_sorted(x, y, out, o):
    """Write the sorted union of the sorted duplicate-free ``x`` and ``y`` at ``out[o:]``; returns the end.

    Branch-light: the smaller head is written and each cursor advances by a comparison's result. Two posting
    lists interleave at random, so a branch per entry mispredicted about half the time: 20 ns an entry, now 2.5.
    """
    i = 0
    j = 0
    nx = x.shape[0]
    ny = y.shape[0]
    while i < nx and j < ny:
        a = x[i]
        b = y[j]
        out[o] = a if a < b else b
        i += a <= b
        j += b <= a
        o += 1
    while i < nx:
        out[o] = x[i]
        i += 1
        o += 1
    while j < ny:
        out[o] = y[j]
        j += 1
        o += 1
    return o


@njit(nogil=True, cache=True)
def union_into(base, pool, a_start, a_len, b_start, b_len, out_start):
    """Write the sorted union of two sorted duplicate-free lists at ``pool[out_start:]``.

    ``a_start`` and ``b_start`` are ``start`` values (negative: in ``base``).
    The output region must not overlap the inputs. Returns the union length.
    """
    # Four calls rather than one over a chosen array: base is read-only and the pool writable, two types.
    if a_start < 0:
        a = -1 - a_start
        if b_start < 0:
            b = -1 - b_start
            end = _merge_sorted(base[a : a + a_len], base[b : b + b_len], pool, out_start)
        else:
            end = _merge_sorted(base[a : a + a_len], pool[b_start : b_start + b_len], pool, out_start)
    elif b_start < 0:
        b = -1 - b_start
        end = _merge_sorted(pool[a_start : a_start + a_len], base[b : b + b_len], pool, out_start)
    else:
        end = _merge_sorted(pool[a_start : a_start + a_len], pool[b_start : b_start + b_len], pool, out_start)
    return end - out_start


@njit(nogil=True, cache=True, inline="always")
def _gallop(pool, lo, hi, x):
    """First position in sorted ``pool[lo:hi]`` holding a value >= x (hi if none)."""
    step = 1
    cur = lo
    while cur < hi and pool[cur] < x:
        lo = cur + 1
        cur = lo + step
        step <<= 1
    if cur > hi:
        cur = hi
    # binary search in [lo, cur)
    while lo < cur:
        mid = (lo + cur) >> 1
        if pool[mid] < x:
            lo = mid + 1
        else:
            cur = mid
    return lo


# A partition's bitset row: ``bit_row[p] >= 0`` is a row of the partitions' own
# dense ``bits``; ``bit_row[p] <= -2`` is row ``-2 - bit_row[p]`` of the packed
# item rows ``item_rows`` (an unmerged partition reads its item's row, shared
# with the sampler; see :mod:`anonstudio.kernels.packed_bits`); ``-1``: no
# bitset, search the list. ``item_rows`` is the tuple (summary, first, words).
NO_ROW = -1


@njit(nogil=True, cache=True, inline="always")
def _word(bits, item_rows, row, w):
    """Word ``w`` of the bitset of a partition whose ``bit_row`` is ``row`` (not ``NO_ROW``)."""
    if row >= 0:
        return bits[row, w]
    return packed_word(item_rows[0], item_rows[1], item_rows[2], -2 - row, w)


_AND_BLOCK = 16  # bitset words ANDed at a time


@njit(nogil=True, cache=True)
def _and_dense(bits, bit_row, order, n_parts, k):
    """``min(support, k)`` by AND-ing dense bitsets of ``order[:n_parts]`` (shortest list first), block by block.

    A block of words is ANDed over the first two rows, then row by row only
    while some word of the block is still non-zero; the fixed-length inner
    loops compile to vector code. Measured on a million-user city at level 5
    (lists of 16,000+ records, 15,625 words per row): 30 us per check instead
    of 61 us for walking the shortest list with a bit test per record.
    """
    words = bits.shape[1]
    buf = np.empty(_AND_BLOCK, dtype=np.uint64)
    b0 = bits[bit_row[order[0]]]
    b1 = bits[bit_row[order[1]]]
    count = 0
    for w0 in range(0, words, _AND_BLOCK):
        nb = min(_AND_BLOCK, words - w0)
        alive = np.uint64(0)
        for t in range(nb):
            x = b0[w0 + t] & b1[w0 + t]
            buf[t] = x
            alive |= x
        a = 2
        while alive != 0 and a < n_parts:
            ba = bits[bit_row[order[a]]]
            alive = np.uint64(0)
            for t in range(nb):
                x = buf[t] & ba[w0 + t]
                buf[t] = x
                alive |= x
            a += 1
        if alive != 0:
            for t in range(nb):
                count += popcount64(buf[t])
            if count >= k:
                return k
    return count


@njit(nogil=True, cache=True)
def _and_mixed(bits, item_rows, bit_row, order, n_parts, k):
    """``min(support, k)`` when some of the bitsets are packed item rows.

    The packed rows' summaries, ANDed, flag the words where every packed row
    has a record; only those words are read, rows in ``order`` (shortest list
    first), each word's AND stopping at the first zero.
    """
    summary = item_rows[0]
    rows = np.empty(n_parts, dtype=np.int64)
    for a in range(n_parts):
        rows[a] = bit_row[order[a]]
    count = 0
    for s in range(summary.shape[1]):
        flags = ~np.uint64(0)
        for a in range(n_parts):
            if rows[a] < 0:
                flags &= summary[-2 - rows[a], s]
        while flags != 0:
            w = (s << 6) + trailing_zeros(flags)
            flags &= flags - np.uint64(1)
            x = _word(bits, item_rows, rows[0], w)
            a = 1
            while x != 0 and a < n_parts:
                x &= _word(bits, item_rows, rows[a], w)
                a += 1
            if x != 0:
                count += popcount64(x)
                # checked per word, not per 64: a check that passes usually has k records within a few words
                if count >= k:
                    return k
    return count


@njit(nogil=True, cache=True)
def support_at_least(base, pool, start, length, bits, item_rows, bit_row, parts, n_parts, k):
    """``min(support, k)`` of the partitions ``parts[:n_parts]`` (distinct ids).

    Partition ``p``'s list is ``pool[start[p]:start[p] + length[p]]``, or
    ``base[-1 - start[p]:][:length[p]]`` while ``start[p] < 0``.
    Walks the shortest posting list and looks each record up in the other
    partitions: by a bit test where the partition has a record bitset
    (``bit_row[p] != NO_ROW``, kept for big partitions), else by galloping search
    in its list. When all partitions have bitsets and even the shortest list
    is longer than two words per record-word, ANDs the bitsets instead. Stops
    once ``k`` common records are found.
    """
    if n_parts == 0:
        return 0
    # order the lists by length (insertion sort; n_parts is an itemset size)
    order = np.empty(n_parts, dtype=np.int64)
    for a in range(n_parts):
        order[a] = parts[a]
    for a in range(1, n_parts):
        v = order[a]
        b = a - 1
        while b >= 0 and length[order[b]] > length[v]:
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = v
    if n_parts == 1:
        return min(length[order[0]], k)
    words = bits.shape[1]
    all_bits = True
    all_dense = True
    for a in range(n_parts):
        if bit_row[order[a]] == NO_ROW:
            all_bits = False
            break
        if bit_row[order[a]] < 0:
            all_dense = False
    if all_bits and 2 * length[order[0]] > words:
        if all_dense:
            return _and_dense(bits, bit_row, order, n_parts, k)
        return _and_mixed(bits, item_rows, bit_row, order, n_parts, k)
    cur = np.empty(n_parts, dtype=np.int64)
    end = np.empty(n_parts, dtype=np.int64)
    in_base = np.empty(n_parts, dtype=np.bool_)
    for a in range(n_parts):
        st = start[order[a]]
        in_base[a] = st < 0
        cur[a] = -1 - st if st < 0 else st
        end[a] = cur[a] + length[order[a]]
    summary, first, words = item_rows
    held_block = np.full(n_parts, -1, dtype=np.int64)
    held_first = np.zeros(n_parts, dtype=np.int64)
    held_flags = np.zeros(n_parts, dtype=np.uint64)
    count = 0
    d = cur[0]
    d_end = end[0]
    d_base = in_base[0]
    while d < d_end:
        x = _entry(base, pool, d_base, d)
        nxt = d + 1
        ok = True
        for a in range(1, n_parts):
            row = bit_row[order[a]]
            if row >= 0:
                if (bits[row, x >> 6] >> np.uint64(x & 63)) & np.uint64(1) == 0:
                    ok = False
                    break
                continue
            if row != NO_ROW:
                if not held_packed_bit(summary, first, words, -2 - row, x, a, held_block, held_first, held_flags):
                    ok = False
                    break
                continue
            pos = _gallop(base, cur[a], end[a], x) if in_base[a] else _gallop(pool, cur[a], end[a], x)
            cur[a] = pos
            if pos == end[a]:
                return count
            y = _entry(base, pool, in_base[a], pos)
            if y != x:
                ok = False
                # no record below y can be common: jump the driver forward to y
                nxt = _gallop(base, d + 1, d_end, y) if d_base else _gallop(pool, d + 1, d_end, y)
                break
        if ok:
            count += 1
            if count >= k:
                return k
        d = nxt
    return count


@njit(nogil=True, cache=True)
def fill_bits(bits, row, base, pool, s, n):
    """Set ``bits[row]`` to the ``n`` records of the list at ``start`` value ``s`` (negative: in ``base``)."""
    bits[row, :] = 0
    in_base = s < 0
    first = -1 - s if in_base else s
    for t in range(first, first + n):
        x = _entry(base, pool, in_base, t)
        bits[row, x >> 6] |= np.uint64(1) << np.uint64(x & 63)


@njit(nogil=True, cache=True)
def check_batch(samples, begin, label, base, pool, start, length, bits, item_rows, bit_row, k, need):
    """Check samples from row ``begin`` until one fails or ``need`` have passed.

    Parameters
    ----------
    samples
        int32 (n, ell) item ids.
    label
        int32 item -> partition id.
    base, pool, start, length
        The partitions' posting lists (see :func:`support_at_least`).
    bits, item_rows, bit_row
        Partition bitsets (see ``NO_ROW`` for how ``bit_row`` picks a row).
    need
        Stop after this many passing samples.

    Returns
    -------
    (first_failure, passed, checks)
        Row of the first sample whose generalized support is below ``k`` (-1 if
        none), how many passed before it, and how many support checks ran.
    """
    n = samples.shape[0]
    ell = samples.shape[1]
    parts = np.empty(ell, dtype=np.int64)
    passed = 0
    checks = 0
    for row in range(begin, n):
        if passed >= need:
            return -1, passed, checks
        m = 0
        for c in range(ell):
            p = label[samples[row, c]]
            dup = False
            for q in range(m):
                if parts[q] == p:
                    dup = True
                    break
            if not dup:
                parts[m] = p
                m += 1
        checks += 1
        if support_at_least(base, pool, start, length, bits, item_rows, bit_row, parts, m, k) >= k:
            passed += 1
        else:
            return row, passed, checks
    return -1, passed, checks


# ---------------------------------------------------------------- enumeration
def key_bits(n_partition_ids: int) -> int:
    """Bits per partition id in a packed key (ids are stored + 1, 0 = empty slot)."""
    return max(1, int(n_partition_ids).bit_length())


@njit(nogil=True, cache=True)
def record_parts(indices, lo, hi, label, parts, counts):
    """Distinct partitions of one record (sorted) and how many items fall in each."""
    m = 0
    for t in range(lo, hi):
        p = label[indices[t]]
        # insertion into a sorted small array
        pos = 0
        while pos < m and parts[pos] < p:
            pos += 1
        if pos < m and parts[pos] == p:
            counts[pos] += 1
            continue
        for s in range(m, pos, -1):
            parts[s] = parts[s - 1]
            counts[s] = counts[s - 1]
        parts[pos] = p
        counts[pos] = 1
        m += 1
    return m


@njit(nogil=True, cache=True, inline="always")
def next_combination(idx, j, m):
    """Advance ``idx[:j]`` to the next j-combination of 0..m-1 (lexicographic); False after the last."""
    a = j - 1
    while a >= 0 and idx[a] == m - j + a:
        a -= 1
    if a < 0:
        return False
    idx[a] += 1
    for b in range(a + 1, j):
        idx[b] = idx[b - 1] + 1
    return True


@njit(nogil=True, cache=True)
def count_keys(indptr, indices, label, ell, max_len, lo, hi):
    """How many keys :func:`enumerate_keys` would write for records ``[lo, hi)``: sum of C(|P_u|, j), j <= ell.

    Returned as float64 so huge counts do not overflow (every term is a whole
    number, so sums below 2**53 are exact and do not depend on how the records
    are sliced); ``max_len`` bounds the record length.
    """
    parts = np.empty(max_len + 1, dtype=np.int64)
    counts = np.empty(max_len + 1, dtype=np.int64)
    total = 0.0
    for u in range(lo, hi):
        m = record_parts(indices, indptr[u], indptr[u + 1], label, parts, counts)
        c = 1.0
        for j in range(1, min(ell, m) + 1):
            c = c * (m - j + 1) / j
            total += c
    return total


@njit(nogil=True, cache=True)
def enumerate_keys(indptr, indices, label, ell, bits, max_len, out, u_start, u_stop, n_start):
    """Write one key per (record, generalized itemset of size 1..ell) into ``out``.

    Covers records ``u_start..u_stop-1``, writing from ``out[n_start]``, so the
    caller can work in chunks of records; returns the next free position.

    A key packs the sorted partition ids (+1) of the itemset, ``bits`` each,
    shifted left by one; the lowest bit is 1 when the itemset is the image of
    some ell-itemset of that record, i.e. when its partitions hold at least
    ``ell`` of the record's items together. Returns the number of keys.
    """
    parts = np.empty(max_len + 1, dtype=np.int64)
    counts = np.empty(max_len + 1, dtype=np.int64)
    idx = np.empty(ell, dtype=np.int64)
    n = n_start
    for u in range(u_start, u_stop):
        m = record_parts(indices, indptr[u], indptr[u + 1], label, parts, counts)
        for j in range(1, min(ell, m) + 1):
            for a in range(j):
                idx[a] = a
            while True:
                key = np.uint64(0)
                total = 0
                for a in range(j):
                    key = (key << np.uint64(bits)) | np.uint64(parts[idx[a]] + 1)
                    total += counts[idx[a]]
                key = key << np.uint64(1)
                if total >= ell:
                    key = key | np.uint64(1)
                out[n] = key
                n += 1
                if not next_combination(idx, j, m):
                    break
    return n


@njit(nogil=True, cache=True)
def violating_keys(sorted_keys, n, k, out):
    """Packed itemsets (flag bit dropped) with fewer than ``k`` records and a set flag.

    ``sorted_keys[:n]`` must be sorted, so the keys of one itemset form runs
    (the flag bit separates a run into at most two adjacent halves). ``out``
    may be ``sorted_keys`` itself: a violator is written only after its run was read.
    Returns (number of violators written to ``out``, number of distinct flagged itemsets).
    """
    nv = 0
    n_flagged = 0
    i = 0
    while i < n:
        base = sorted_keys[i] >> np.uint64(1)
        cnt = 0
        flag = False
        while i < n and (sorted_keys[i] >> np.uint64(1)) == base:
            if sorted_keys[i] & np.uint64(1):
                flag = True
            cnt += 1
            i += 1
        if flag:
            n_flagged += 1
            if cnt < k:
                out[nv] = base
                nv += 1
    return nv, n_flagged


@njit(nogil=True, cache=True)
def unpack_key(key, bits, out):
    """Partition ids of a packed key (flag already dropped); returns how many."""
    mask = (np.uint64(1) << np.uint64(bits)) - np.uint64(1)
    m = 0
    while key != np.uint64(0):
        out[m] = np.int64(key & mask) - 1
        key = key >> np.uint64(bits)
        m += 1
    return m


@njit(nogil=True, cache=True)
def unpack_keys(keys, bits, out):
    """Rows of partition ids for packed keys; short itemsets repeat their first id.

    ``out`` is (len(keys), ell); repeating an id leaves the itemset's set of
    partitions unchanged, so rows can go straight to :func:`check_batch`.
    """
    buf = np.empty(out.shape[1], dtype=np.int64)
    for r in range(keys.shape[0]):
        m = unpack_key(keys[r], bits, buf)
        for c in range(out.shape[1]):
            out[r, c] = buf[c] if c < m else buf[0]


# ------------------------------------------------------- dense enumeration
def binomial_table(n: int, ell: int) -> np.ndarray:
    """``B[a, j] = C(a, j)`` for ``a <= n``, ``j <= ell`` (int64)."""
    table = np.zeros((n + 1, ell + 1), dtype=np.int64)
    table[:, 0] = 1
    for a in range(1, n + 1):
        for j in range(1, ell + 1):
            table[a, j] = table[a - 1, j - 1] + table[a - 1, j]
    return table


def dense_offsets(n_parts: int, ell: int, binom: np.ndarray) -> np.ndarray:
    """Start of the cells of size-j itemsets, j = 1..ell (plus the total at the end)."""
    off = np.zeros(ell + 2, dtype=np.int64)
    for j in range(1, ell + 1):
        off[j + 1] = off[j] + binom[n_parts, j]
    return off


@njit(nogil=True, cache=True)
def dense_count(indptr, indices, compact, ell, max_len, binom, offsets, counts, flags, u_start, u_stop):
    """Add the generalized itemsets of size 1..ell of records ``u_start..u_stop-1`` to a dense array.

    Called once per chunk of records (counts accumulate), so the caller can
    report progress and honour a cancel between chunks.

    ``compact`` maps an item to its partition's index 0..P-1. The itemset
    ``c_0 < ... < c_{j-1}`` lives in cell ``offsets[j] + sum_i C(c_i, i + 1)``
    (combinatorial number system), so memory is ``sum_j C(P, j)`` cells,
    independent of the number of records. ``flags`` marks itemsets that are
    the image of an ell-itemset of some record (their partitions hold at least
    ell of its items).
    """
    parts = np.empty(max_len + 1, dtype=np.int64)
    cnt = np.empty(max_len + 1, dtype=np.int64)
    idx = np.empty(ell, dtype=np.int64)
    for u in range(u_start, u_stop):
        m = record_parts(indices, indptr[u], indptr[u + 1], compact, parts, cnt)
        # Sizes 1 and 2 hold most of the work at the levels enumerated in practice: plain loops,
        # pairs visited by their larger partition (colex) so one row of cells is filled at a time.
        for a in range(m):
            counts[offsets[1] + parts[a]] += 1
            if cnt[a] >= ell:
                flags[offsets[1] + parts[a]] = 1
        if ell >= 2:
            for b in range(1, m):
                row = offsets[2] + binom[parts[b], 2]
                for a in range(b):
                    cell = row + parts[a]
                    counts[cell] += 1
                    if cnt[a] + cnt[b] >= ell:
                        flags[cell] = 1
        for j in range(3, min(ell, m) + 1):
            for a in range(j):
                idx[a] = a
            while True:
                cell = offsets[j]
                total = 0
                for a in range(j):
                    cell += binom[parts[idx[a]], a + 1]
                    total += cnt[idx[a]]
                counts[cell] += 1
                if total >= ell:
                    flags[cell] = 1
                if not next_combination(idx, j, m):
                    break


@njit(nogil=True, cache=True)
def dense_violators(counts, flags, k, offsets, binom, n_parts, ell, out):
    """Rows of compact partition indices of the flagged cells with count below k.

    Short itemsets repeat their first index (as :func:`unpack_keys`).
    Returns (violators written, flagged cells).
    """
    nv = 0
    n_flagged = 0
    comb = np.empty(ell, dtype=np.int64)
    for j in range(1, ell + 1):
        # The cells of size j hold the j-subsets of 0..n_parts-1 in colex order. Stepping to the next subset
        # costs O(1) on average; unranking each violator scanned the binomials, O(n_parts) a violator, which
        # dominated a trial on sparse data (a few hundred thousand violators among 1,303 partitions).
        for i in range(j):
            comb[i] = i
        for r in range(offsets[j + 1] - offsets[j]):
            if r > 0:
                # colex successor: raise the lowest index that can rise, and reset the ones below it
                i = 0
                while i + 1 < j and comb[i] + 1 == comb[i + 1]:
                    i += 1
                comb[i] += 1
                for a in range(i):
                    comb[a] = a
            cell = offsets[j] + r
            if flags[cell] == 0:
                continue
            n_flagged += 1
            if counts[cell] >= k:
                continue
            for i in range(j):
                out[nv, i] = comb[i]
            for c in range(j, ell):
                out[nv, c] = comb[0]
            nv += 1
    return nv, n_flagged


@njit(nogil=True, cache=True)
def remap_and_shuffle(rows, ids, state):
    """In place: replace compact indices by ``ids[...]`` and shuffle the rows (Fisher-Yates).

    Violator lists can hold tens of millions of rows; doing both in place
    avoids two extra copies of them.
    """
    n = rows.shape[0]
    ell = rows.shape[1]
    for r in range(n):
        for c in range(ell):
            rows[r, c] = ids[rows[r, c]]
    for r in range(n - 1, 0, -1):
        j = randbelow(state, r + 1)
        if j != r:
            for c in range(ell):
                t = rows[r, c]
                rows[r, c] = rows[j, c]
                rows[j, c] = t


@njit(nogil=True, cache=True)
def records_per_partition(indptr, indices, part_of_item, n_parts):
    """How many records hold at least one item of each partition (one pass, no sort).

    ``part_of_item`` maps item ids to ``0 .. n_parts - 1``.
    """
    counts = np.zeros(n_parts, dtype=np.int64)
    last_record = np.full(n_parts, -1, dtype=np.int64)
    for u in range(indptr.shape[0] - 1):
        for k in range(indptr[u], indptr[u + 1]):
            p = part_of_item[indices[k]]
            if last_record[p] != u:
                last_record[p] = u
                counts[p] += 1
    return counts


def warm_up() -> None:
    """Compile the kernels above on tiny inputs (see ``kernels.warmup``).

    Data arrays are read-only, as a dataset's are (``kernels.read_only``).
    """
    # Item 0's list is in the (read-only, as the sampler's are) base lists, item 1's in the pool.
    base = read_only(np.array([0, 1, 2, 1, 2], dtype=np.int32))
    pool = np.array([1, 2, 0, 0, 0, 0, 0], dtype=np.int32)
    start = np.array([-1, 0], dtype=np.int64)
    length = np.array([3, 2], dtype=np.int64)
    union_into(base, pool, -1, 3, 0, 2, 2)
    parts = np.array([0, 1], dtype=np.int64)
    bits = np.zeros((1, 1), dtype=np.uint64)
    bit_row = np.array([0, -1], dtype=np.int64)
    fill_bits(bits, 0, base, pool, -1, 3)
    item_rows = pack_postings(np.array([0, 3], dtype=np.int64), base[:3], np.array([0]), 3)
    # the list walk, then the dense AND, then the AND with a packed row
    for rows in ((0, NO_ROW), (0, 0), (-2, 0)):
        bit_row[:] = rows
        support_at_least(base, pool, start, length, bits, item_rows, bit_row, parts, 2, 2)
    label = np.array([0, 1], dtype=np.int32)
    check_batch(np.array([[0, 1]], dtype=np.int32), 0, label, base, pool, start, length, bits, item_rows, bit_row, 2,
                5)
    indptr = read_only(np.array([0, 2, 3], dtype=np.int64))
    indices = read_only(np.array([0, 1, 1], dtype=np.int32))
    count_keys(indptr, indices, label, 2, 2, 0, len(indptr) - 1)
    out = np.empty(8, dtype=np.uint64)
    n = enumerate_keys(indptr, indices, label, 2, 2, 2, out, 0, len(indptr) - 1, 0)
    out[:n].sort()
    viol = np.empty(n, dtype=np.uint64)
    violating_keys(out, n, 2, viol)
    unpack_key(np.uint64(9), 2, np.empty(2, dtype=np.int64))
    unpack_keys(np.array([9], dtype=np.uint64), 2, np.empty((1, 2), dtype=np.int32))
    binom = binomial_table(2, 2)
    off = dense_offsets(2, 2, binom)
    counts = np.zeros(off[-1], dtype=np.int32)
    flags = np.zeros(off[-1], dtype=np.uint8)
    dense_count(indptr, indices, label, 2, 2, binom, off, counts, flags, 0, len(indptr) - 1)
    dense_violators(counts, flags, 2, off, binom, 2, 2, np.empty((off[-1], 2), dtype=np.int32))
    remap_and_shuffle(np.zeros((2, 2), dtype=np.int32), np.arange(2, dtype=np.int32), make_state(1))
    records_per_partition(indptr, indices, np.zeros(2, dtype=np.int64), 1)

