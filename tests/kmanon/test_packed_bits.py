"""Packed record bitsets read the same words and bits as dense ones."""
from __future__ import annotations

import numpy as np
import pytest

from anonstudio.kernels.independent_sampler import build_layout_rows
from anonstudio.kernels.packed_bits import pack_postings, packed_bit, packed_word
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
