"""Record bitsets that keep only their non-zero words.

A row is a bitset over the records (bit ``p``: record ``p`` holds the row's
item). In the independent sampler's clustered numbering an item's records
gather in few words: on the 1M-user city 22 % of the words of the 1,303 item
rows are non-zero, so a dense ``(rows, n_records / 64)`` array (163 MB there,
717 MB at 4.4 million records) is mostly zeros. A packed row set keeps

``summary[r, s]``
    bit ``b`` set iff word ``64 s + b`` of row ``r`` is non-zero (the second
    level the counts AND first);
``first[r, s]``
    the index in ``words`` of the first non-zero word of summary word ``s``;
``words``
    the non-zero words, row after row, in ascending word order.

Word ``w`` of row ``r`` is ``words[first[r, s] + popcount(summary[r, s] & ((1 << b) - 1))]``
with ``s, b = divmod(w, 64)``, or zero if the summary bit is clear: one
population count more than a dense read, on arrays that fit in the cache.

Slow reference: tests/reference/kmanon_reference.py::bitset_words
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .support import popcount64

__all__ = ["row_words", "pack_postings", "packed_word", "packed_bit", "held_packed_bit", "empty_packed", "warm_up"]


@njit(nogil=True, cache=True)
def row_words(post_indptr, post_records, items, counts):
    """``counts[r]``: distinct words of item ``items[r]``'s (ascending) posting list."""
    for r in range(items.shape[0]):
        it = items[r]
        last = -1
        n = 0
        for k in range(post_indptr[it], post_indptr[it + 1]):
            w = post_records[k] >> 6
            if w != last:
                n += 1
                last = w
        counts[r] = n


@njit(nogil=True, cache=True)
def _fill(post_indptr, post_records, items, row_start, summary, first, words):
    for r in range(items.shape[0]):
        it = items[r]
        at = row_start[r] - 1
        last = -1
        for k in range(post_indptr[it], post_indptr[it + 1]):
            p = post_records[k]
            w = p >> 6
            if w != last:
                at += 1
                last = w
                summary[r, w >> 6] |= np.uint64(1) << np.uint64(w & 63)
            words[at] |= np.uint64(1) << np.uint64(p & 63)
        at = row_start[r]
        for s in range(summary.shape[1]):
            first[r, s] = at
            at += popcount64(summary[r, s])


def pack_postings(post_indptr: np.ndarray, post_records: np.ndarray, items: np.ndarray,
                  n_records: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Packed record bitsets of ``items`` (row ``r`` for ``items[r]``) from ascending posting lists.

    Parameters
    ----------
    post_indptr, post_records
        Posting lists: the records holding item ``i`` are
        ``post_records[post_indptr[i]:post_indptr[i + 1]]``, ascending.
    items
        The items that get a row, in row order.
    n_records
        Records numbered ``0 .. n_records - 1``.

    Returns
    -------
    (summary uint64 (rows, ceil(n_records / 4096)), first int64 (same shape), words uint64 (non-zero words,))
    """
    items = np.ascontiguousarray(items, dtype=np.int64)
    n_summary = (n_records + 4095) // 4096
    counts = np.zeros(len(items), dtype=np.int64)
    row_words(post_indptr, post_records, items, counts)
    row_start = np.zeros(len(items), dtype=np.int64)
    np.cumsum(counts[:-1], out=row_start[1:])
    summary = np.zeros((len(items), n_summary), dtype=np.uint64)
    first = np.zeros((len(items), n_summary), dtype=np.int64)
    words = np.zeros(int(counts.sum()), dtype=np.uint64)
    _fill(post_indptr, post_records, items, row_start, summary, first, words)
    return summary, first, words


def empty_packed() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A packed row set with no rows."""
    return np.zeros((0, 0), dtype=np.uint64), np.zeros((0, 0), dtype=np.int64), np.zeros(0, dtype=np.uint64)


@njit(nogil=True, cache=True, inline="always")
def packed_word(summary, first, words, r, w):
    """Word ``w`` of packed row ``r`` (zero where the row has no record)."""
    s = w >> 6
    flags = summary[r, s]
    bit = np.uint64(1) << np.uint64(w & 63)
    if flags & bit == 0:
        return np.uint64(0)
    return words[first[r, s] + popcount64(flags & (bit - np.uint64(1)))]


@njit(nogil=True, cache=True, inline="always")
def packed_bit(summary, first, words, r, p):
    """Whether packed row ``r`` holds record ``p``."""
    return (packed_word(summary, first, words, r, p >> 6) >> np.uint64(p & 63)) & np.uint64(1) != 0


@njit(nogil=True, cache=True, inline="always")
def held_packed_bit(summary, first, words, r, p, slot, held_block, held_first, held_flags):
    """:func:`packed_bit` for a walk whose records ``p`` ascend.

    Row ``r``'s summary word and first-word index for ``p``'s block of 4,096
    records are kept in ``held_*[slot]`` and read again only when ``p`` leaves
    that block: one read per bit test instead of three. Start with
    ``held_block[slot] = -1``.
    """
    block = p >> 12
    if block != held_block[slot]:
        held_block[slot] = block
        held_first[slot] = first[r, block]
        held_flags[slot] = summary[r, block]
    flags = held_flags[slot]
    bit = np.uint64(1) << np.uint64((p >> 6) & 63)
    if flags & bit == 0:
        return False
    return (words[held_first[slot] + popcount64(flags & (bit - np.uint64(1)))] >> np.uint64(p & 63)) & np.uint64(1) != 0


@njit(nogil=True, cache=True)
def _warm(summary, first, words):
    held_block = np.full(1, -1, dtype=np.int64)
    held_first = np.zeros(1, dtype=np.int64)
    held_flags = np.zeros(1, dtype=np.uint64)
    return (packed_word(summary, first, words, 0, 0) + np.uint64(packed_bit(summary, first, words, 0, 1))
            + np.uint64(held_packed_bit(summary, first, words, 0, 1, 0, held_block, held_first, held_flags)))


def warm_up() -> None:
    """Compile the kernels on a two-record, one-item row set."""
    post_indptr = np.array([0, 2], dtype=np.int64)
    post_records = np.array([0, 1], dtype=np.int32)
    _warm(*pack_postings(post_indptr, post_records, np.array([0]), 2))
