"""Support of itemsets: how many records contain all items of a set.

Two ways to test whether record ``u`` holds item ``i``:

* binary search in the record's sorted item list (``indices[indptr[u]:indptr[u+1]]``),
  cheap when records are short (click streams, baskets);
* one bit of a per-item record bitset, O(1) but ``n_records / 8`` bytes per item,
  so bitsets are only built for frequent items (see :func:`build_bitsets`).

The support itself is found by walking the posting list of the *rarest* item of the
set and testing the other items, or -- when every item is dense (chess: most items
occur in most records) -- by AND-ing whole bitset rows, which costs
``n_records / 64`` words per item regardless of frequency. :func:`support_weight`
picks between the two from a cost model (``_BITSET_WORD_COST`` was measured with
``benchmarks/bench_uniqueness.py --kernels``).

The weighted variant also returns ``q(x) = sum_{u : D_u ⊇ x} w_u``, the proposal mass
that the MCMC sampler of Acs et al. (Algorithm 1) needs in its acceptance step.

Slow reference: tests/reference/uniqueness_reference.py::support
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

__all__ = [
    "support_of",
    "support_batch",
    "support_weight",
    "support_weight_batch",
    "support_weight_bounded",
    "build_bitsets",
    "no_bitsets",
    "in_record",
    "trailing_zeros",
    "popcount64",
    "MODE_AUTO",
    "MODE_LISTS",
    "MODE_BITSETS",
    "warm_up",
]

#: Choose the strategy from the cost model.
MODE_AUTO = 0
#: Rarest posting list + binary search in records (never use bitsets).
MODE_LISTS = 1
#: Prefer bitsets wherever an item has one (membership tests and whole-row AND).
MODE_BITSETS = 2

# One AND-ed bitset word (a vectorized, streaming loop: ~0.3 ns) costs about this
# many random-access membership tests of a posting-list entry (~3 ns). Measured on
# T10I4D100K pairs of frequent items; on chess and T10I4D100K the two strategies
# are within measurement noise of each other wherever the model switches.
_BITSET_WORD_COST = 0.1


@njit(nogil=True, cache=True, inline="always")
def in_record(indices, start, stop, item):
    """Binary search for ``item`` in the sorted slice ``indices[start:stop]``."""
    lo = start
    hi = stop
    while lo < hi:
        mid = (lo + hi) >> 1
        v = indices[mid]
        if v < item:
            lo = mid + 1
        elif v > item:
            hi = mid
        else:
            return True
    return False


@intrinsic
def popcount64(typingctx, x):
    """Number of set bits of a uint64 (LLVM ``ctpop``: one POPCNT instruction where available)."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def trailing_zeros(typingctx, x):
    """Index of the lowest set bit of a non-zero uint64 (LLVM ``cttz``)."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@njit(nogil=True, cache=True, inline="always")
def all_have_rows(items, bit_row):
    """True when every item has a bitset row (``bit_row[i] >= 0``)."""
    for j in range(items.shape[0]):
        if bit_row[items[j]] < 0:
            return False
    return True


@njit(nogil=True, cache=True)
def rarest_item(items, post_indptr):
    best = 0
    best_len = post_indptr[items[0] + 1] - post_indptr[items[0]]
    for j in range(1, items.shape[0]):
        f = post_indptr[items[j] + 1] - post_indptr[items[j]]
        if f < best_len:
            best_len = f
            best = j
    return best, best_len


@njit(nogil=True, cache=True)
def support_of(items, indptr, indices, post_indptr, post_records):
    """Number of records containing every item of ``items`` (any order, no duplicates).

    Walks the rarest item's posting list and binary-searches the other items in
    each candidate record. An empty ``items`` is contained in every record.
    """
    ell = items.shape[0]
    if ell == 0:
        return np.int64(indptr.shape[0] - 1)
    r, _ = rarest_item(items, post_indptr)
    rare = items[r]
    if ell == 1:
        return np.int64(post_indptr[rare + 1] - post_indptr[rare])
    count = np.int64(0)
    for k in range(post_indptr[rare], post_indptr[rare + 1]):
        u = post_records[k]
        start = indptr[u]
        stop = indptr[u + 1]
        if stop - start < ell:
            continue
        ok = True
        for j in range(ell):
            if j != r and not in_record(indices, start, stop, items[j]):
                ok = False
                break
        if ok:
            count += 1
    return count


@njit(nogil=True, cache=True)
def support_batch(itemsets, indptr, indices, post_indptr, post_records):
    """:func:`support_of` for each row of the 2-d int array ``itemsets``."""
    n = itemsets.shape[0]
    out = np.empty(n, dtype=np.int64)
    for s in range(n):
        out[s] = support_of(itemsets[s], indptr, indices, post_indptr, post_records)
    return out


@njit(nogil=True, cache=True)
def _weight_by_and(items, weights, bit_row, bits, uniform_weight):
    """Support and weight sum by AND-ing the bitset rows of all items (``len(items) >= 2``).

    Row-at-a-time loops without branches, so LLVM vectorizes them; measured ~10x
    faster than AND-ing all rows word by word with an early exit.
    """
    n_words = bits.shape[1]
    acc = np.empty(n_words, dtype=np.uint64)
    a = bits[bit_row[items[0]]]
    b = bits[bit_row[items[1]]]
    for w in range(n_words):
        acc[w] = a[w] & b[w]
    for j in range(2, items.shape[0]):
        r = bits[bit_row[items[j]]]
        for w in range(n_words):
            acc[w] &= r[w]
    count = np.int64(0)
    if uniform_weight > 0.0:
        for w in range(n_words):
            count += popcount64(acc[w])
        return count, count * uniform_weight
    wsum = 0.0
    for w in range(n_words):
        word = acc[w]
        base = w * 64
        while word != 0:
            wsum += weights[base + trailing_zeros(word)]
            count += 1
            word &= word - np.uint64(1)
    return count, wsum


# Words per block of the bounded AND: a 2 KiB accumulator that stays in L1.
_AND_BLOCK = 256


@njit(nogil=True, cache=True)
def _count_by_and_bounded(items, bit_row, bits, limit):
    """Support by AND-ing bitset rows a block at a time; may stop once it reaches ``limit``.

    Each block is AND-ed and counted in branch-free loops (vectorized like
    :func:`_weight_by_and`), and the count is compared between blocks: a
    frequent itemset reaches a small limit within the first blocks instead of
    touching ``n_records / 64`` words per item, and nothing is allocated per
    record. A result ``>= limit`` means "at least this many".
    """
    n_words = bits.shape[1]
    ell = items.shape[0]
    acc = np.empty(_AND_BLOCK, dtype=np.uint64)
    first = bits[bit_row[items[0]]]
    second = bits[bit_row[items[1]]]
    count = np.int64(0)
    for lo in range(0, n_words, _AND_BLOCK):
        n = min(_AND_BLOCK, n_words - lo)
        for w in range(n):
            acc[w] = first[lo + w] & second[lo + w]
        for j in range(2, ell):
            row = bits[bit_row[items[j]]]
            for w in range(n):
                acc[w] &= row[lo + w]
        for w in range(n):
            count += popcount64(acc[w])
        if count >= limit:
            break
    return count


@njit(nogil=True, cache=True)
def support_weight(items, weights, indptr, indices, post_indptr, post_records, bit_row, bits, mode, uniform_weight):
    """Support of ``items`` and the sum of ``weights[u]`` over the records containing it.

    Parameters
    ----------
    items
        int32 item ids, no duplicates.
    weights
        float64 per record (``q`` weights of the sampler).
    bit_row, bits
        From :func:`build_bitsets` (``bit_row[i] == -1``: item ``i`` has no bitset).
    mode
        ``MODE_AUTO``, ``MODE_LISTS`` or ``MODE_BITSETS``.
    uniform_weight
        If > 0, every record with at least ``len(items)`` items has this weight
        (e.g. chess, where all records have the same length) and the bitset path
        can count bits instead of visiting them.

    Returns
    -------
    (int64, float64)
    """
    return support_weight_bounded(
        items, weights, indptr, indices, post_indptr, post_records, bit_row, bits, mode, uniform_weight, np.inf
    )


@njit(nogil=True, cache=True)
def support_weight_bounded(
    items, weights, indptr, indices, post_indptr, post_records, bit_row, bits, mode, uniform_weight, q_limit
):
    """:func:`support_weight`, but free to stop once the weight sum reaches ``q_limit``.

    The sampler only needs to know whether ``q(C) < q(S) / x``; a frequent
    candidate that will be rejected is recognised after a few matches instead of
    a full scan of its posting list. A returned weight sum ``>= q_limit`` means
    "at least this much" (count and sum are then partial); below ``q_limit`` both
    are exact.
    """
    ell = items.shape[0]
    r, rare_len = rarest_item(items, post_indptr)
    rare = items[r]
    if ell == 1 and uniform_weight > 0.0:
        return np.int64(rare_len), rare_len * uniform_weight
    use_bits = mode != MODE_LISTS and bits.shape[1] > 0
    if use_bits and ell > 1:
        if all_have_rows(items, bit_row):
            and_cost = _BITSET_WORD_COST * bits.shape[1] * ell
            if mode == MODE_BITSETS or and_cost < rare_len * (ell - 1):
                if uniform_weight > 0.0:
                    stop = np.ceil(q_limit / uniform_weight)
                    count = _count_by_and_bounded(items, bit_row, bits, stop)
                    # count * weight can round below q_limit; a cut-short count must still read as partial.
                    return count, max(count * uniform_weight, q_limit) if count >= stop else count * uniform_weight
                return _weight_by_and(items, weights, bit_row, bits, uniform_weight)
    count = np.int64(0)
    wsum = 0.0
    stopped = False
    for k in range(post_indptr[rare], post_indptr[rare + 1]):
        u = post_records[k]
        ok = True
        for j in range(ell):
            if j == r:
                continue
            it = items[j]
            row = bit_row[it] if use_bits else -1
            if row >= 0:
                # One random access; no need to touch the record itself.
                if (bits[row, u >> 6] >> np.uint64(u & 63)) & np.uint64(1) == 0:
                    ok = False
                    break
            elif not in_record(indices, indptr[u], indptr[u + 1], it):
                ok = False
                break
        if ok:
            count += 1
            wsum += weights[u]
            if wsum >= q_limit:
                stopped = True
                break
    if uniform_weight > 0.0:
        wsum = count * uniform_weight  # same value, without rounding differences between paths
        if stopped:
            wsum = max(wsum, q_limit)  # the recomputed sum may round below the limit it reached
    return count, wsum


@njit(nogil=True, cache=True)
def support_weight_batch(itemsets, weights, indptr, indices, post_indptr, post_records, bit_row, bits, mode,
                         uniform_weight):
    """:func:`support_weight` for each row of ``itemsets``; returns (supports, weight sums)."""
    n = itemsets.shape[0]
    supp = np.empty(n, dtype=np.int64)
    wsum = np.empty(n, dtype=np.float64)
    for s in range(n):
        c, w = support_weight(
            itemsets[s], weights, indptr, indices, post_indptr, post_records, bit_row, bits, mode, uniform_weight
        )
        supp[s] = c
        wsum[s] = w
    return supp, wsum


@njit(nogil=True, cache=True)
def _fill_bitsets(rows_of, indptr, indices, bits):
    for u in range(indptr.shape[0] - 1):
        word = u >> 6
        bit = np.uint64(1) << np.uint64(u & 63)
        for k in range(indptr[u], indptr[u + 1]):
            row = rows_of[indices[k]]
            if row >= 0:
                bits[row, word] |= bit


def build_bitsets(
    indptr: np.ndarray,
    indices: np.ndarray,
    n_items: int,
    *,
    min_density: float = 0.0,
    max_bytes: int = 64 << 20,
) -> tuple[np.ndarray, np.ndarray]:
    """Record bitsets for the frequent items.

    Items occurring in at least ``min_density`` of the records get a row, most
    frequent first, until ``max_bytes`` is used. Even a rare item's row pays off:
    testing it costs one memory access, against a binary search in each record
    of the rarest item's posting list. With the default 64 MiB, every item of
    datasets up to ~500,000 records x 1,000 items has a row.

    Returns
    -------
    bit_row : int32 (n_items,)
        Row of each item in ``bits``, -1 if none.
    bits : uint64 (rows, ceil(n_records / 64))
    """
    n_records = len(indptr) - 1
    n_words = (n_records + 63) // 64
    freq = np.bincount(indices, minlength=n_items)
    bit_row = np.full(n_items, -1, dtype=np.int32)
    if n_words == 0:
        return bit_row, np.zeros((0, 0), dtype=np.uint64)
    max_rows = max(int(max_bytes // (8 * n_words)), 0)
    dense = np.flatnonzero(freq >= max(min_density * n_records, 1.0))
    dense = dense[np.argsort(-freq[dense], kind="stable")][:max_rows]
    # Rows follow item order so that neighbouring items are neighbours in memory.
    bit_row[np.sort(dense)] = np.arange(len(dense), dtype=np.int32)
    bits = np.zeros((len(dense), n_words if len(dense) else 0), dtype=np.uint64)
    if len(dense):
        _fill_bitsets(bit_row, indptr, indices, bits)
    return bit_row, bits


def no_bitsets(n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """``(bit_row, bits)`` meaning "no item has a bitset"."""
    return np.full(n_items, -1, dtype=np.int32), np.zeros((0, 0), dtype=np.uint64)


def tiny_dataset() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(indptr, indices, post_indptr, post_records)`` of records {0,1}, {0,1,2}, {2}.

    Read-only like the arrays of :class:`~anonstudio.data.transactions.TransactionData`:
    numba compiles read-only and writable arrays separately, and warm-ups should
    compile what real runs use.
    """
    arrays = (
        np.array([0, 2, 5, 6], dtype=np.int64),
        np.array([0, 1, 0, 1, 2, 2], dtype=np.int32),
        np.array([0, 2, 4, 6], dtype=np.int64),
        np.array([0, 1, 0, 1, 1, 2], dtype=np.int32),
    )
    for a in arrays:
        a.setflags(write=False)
    return arrays


def warm_up() -> None:
    """Compile the kernels on a three-record dataset."""
    indptr, indices, post_indptr, post_records = tiny_dataset()
    items = np.array([[0, 1]], dtype=np.int32)
    support_batch(items, indptr, indices, post_indptr, post_records)
    weights = np.ones(3)
    for dense in (True, False):
        bit_row, bits = build_bitsets(indptr, indices, 3) if dense else no_bitsets(3)
        for mode in (MODE_AUTO, MODE_LISTS, MODE_BITSETS):
            support_weight_batch(items, weights, indptr, indices, post_indptr, post_records, bit_row, bits, mode, 0.0)
            support_weight_batch(items, weights, indptr, indices, post_indptr, post_records, bit_row, bits, mode, 1.0)
