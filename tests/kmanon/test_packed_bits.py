"""Packed record bitsets read the same words and bits as dense ones."""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from anonstudio.kernels.independent_sampler import build_layout_rows
from anonstudio.kernels.packed_bits import held_packed_bit, pack_postings, packed_bit, packed_word
from tests.reference.kmanon_reference import bitset_words


def _random_postings(rng, n_items, n_records):
    """Ascending posting lists: some items clustered in a stretch of records, some spread, one empty."""
    lists = []
    for i in range(n_items):
        if i == 0:
            lists.append(np.zeros(0, dtype=np.int32))
            continue
        if rng.random() < 0.5:
            lo = int(rng.integers(0, n_records))
            hi = min(n_records, lo + int(rng.integers(1, 3000)))
            pool = np.arange(lo, hi)
        else:
            pool = np.arange(n_records)
        size = int(rng.integers(1, min(len(pool), 400) + 1))
        lists.append(np.sort(rng.choice(pool, size, replace=False)).astype(np.int32))
    post_indptr = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum([len(x) for x in lists], out=post_indptr[1:])
    return post_indptr, np.concatenate(lists).astype(np.int32), lists


@pytest.mark.parametrize("n_records", [1, 64, 4096, 4097, 9_000])
def test_every_word_and_bit_matches_a_dense_bitset(n_records):
    rng = np.random.default_rng(n_records)
    post_indptr, post_records, lists = _random_postings(rng, 12, n_records)
    items = np.array([3, 0, 7, 1, 11])  # any order, an empty item included
    summary, first, words = pack_postings(post_indptr, post_records, items, n_records)
    dense = [bitset_words(lists[i].tolist(), n_records) for i in items]
    assert len(words) == sum(sum(w != 0 for w in d) for d in dense)
    assert np.all(words != 0)
    for r, row in enumerate(dense):
        for w in range(len(row)):
            assert packed_word(summary, first, words, r, w) == row[w]
        held = set(lists[items[r]].tolist())
        for p in range(n_records):
            assert packed_bit(summary, first, words, r, p) == (p in held)


@njit(cache=False)
def _walk_bits(summary, first, words, rows, walk, out):
    """``out[t, a]``: whether row ``rows[a]`` holds record ``walk[t]``, read through :func:`held_packed_bit`."""
    n = rows.shape[0]
    held_block = np.full(n, -1, dtype=np.int64)
    held_first = np.zeros(n, dtype=np.int64)
    held_flags = np.zeros(n, dtype=np.uint64)
    for t in range(walk.shape[0]):
        for a in range(n):
            out[t, a] = held_packed_bit(summary, first, words, rows[a], walk[t], a, held_block, held_first, held_flags)


@pytest.mark.parametrize("n_records", [1, 4097, 20_000])
def test_an_ascending_walk_reads_the_same_bits_holding_each_rows_block(n_records):
    rng = np.random.default_rng(n_records + 1)
    post_indptr, post_records, lists = _random_postings(rng, 8, n_records)
    items = np.arange(8)
    summary, first, words = pack_postings(post_indptr, post_records, items, n_records)
    # Repeated records and jumps across several 4,096-record blocks, as a walk over a posting list makes.
    walk = np.sort(rng.integers(0, n_records, size=3 * n_records)).astype(np.int64)
    rows = np.array([5, 0, 2, 5, 7], dtype=np.int64)  # a row in two slots
    out = np.zeros((len(walk), len(rows)), dtype=np.bool_)
    _walk_bits(summary, first, words, rows, walk, out)
    held = [set(lists[items[r]].tolist()) for r in rows]
    expected = np.array([[p in h for h in held] for p in walk.tolist()], dtype=np.bool_).reshape(out.shape)
    assert np.array_equal(out, expected)


def test_the_budget_gives_rows_to_the_most_frequent_items_first():
    rng = np.random.default_rng(2)
    n_records = 5_000
    post_indptr, post_records, lists = _random_postings(rng, 20, n_records)
    freq = np.diff(post_indptr)
    bit_row, (summary, first, words) = build_layout_rows(post_indptr, post_records, n_records, 1 << 30)
    assert np.array_equal(bit_row >= 0, freq > 0)
    assert np.array_equal(np.flatnonzero(bit_row >= 0), np.flatnonzero(freq > 0))  # rows in item order
    for i in np.flatnonzero(freq > 0):
        got = [p for p in range(n_records) if packed_bit(summary, first, words, int(bit_row[i]), p)]
        assert got == lists[i].tolist()
    # Half the packed size: the rows that fit go to the most frequent items.
    bit_row, (_, _, some) = build_layout_rows(post_indptr, post_records, n_records, 4 * len(words))
    kept = np.flatnonzero(bit_row >= 0)
    assert 0 < len(kept) < int((freq > 0).sum()) and len(some) * 8 <= 4 * len(words)
    assert freq[kept].min() >= freq[(bit_row < 0) & (freq > 0)].max()
    bit_row, (summary, _, words) = build_layout_rows(post_indptr, post_records, n_records, 0)
    assert (bit_row < 0).all() and summary.shape == (0, 0) and len(words) == 0
