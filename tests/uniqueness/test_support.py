"""Support kernels against brute force on random small datasets."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from anonstudio.kernels import support as K
from anonstudio.kernels.mcmc_sampler import record_weights
from tests.reference import uniqueness_reference as ref
from tests.uniqueness.helpers import as_data, id_sets


def _random_itemsets(rng, n_items, ell, count):
    return [sorted(rng.sample(range(n_items), ell)) for _ in range(count)]


@pytest.mark.parametrize("density", ["sparse", "dense"])
def test_support_and_weight_match_reference_in_every_mode(rng, density):
    for _trial in range(6):
        n_items = rng.randint(3, 12)
        max_len = n_items if density == "dense" else 4
        records = ref.random_records(rng, rng.randint(1, 150), n_items, max_len)
        data = as_data(records)
        sets = id_sets(data)
        post_indptr, post_records = data.inverted()
        bitsets = K.build_bitsets(data.indptr, data.indices, data.n_items, min_density=0.0)
        for ell in range(1, min(4, data.n_items) + 1):
            weights = record_weights(data.lengths, ell)
            itemsets = _random_itemsets(rng, data.n_items, ell, 30)
            # Include itemsets that do occur, so supports are not all zero.
            itemsets += [sorted(rng.sample(sorted(r), ell)) for r in sets if len(r) >= ell][:30]
            arr = np.array(itemsets, dtype=np.int32).reshape(-1, ell)
            want_s = [ref.support(sets, x) for x in itemsets]
            want_q = [ref.q_value(sets, x) for x in itemsets]
            got = K.support_batch(arr, data.indptr, data.indices, post_indptr, post_records)
            assert got.tolist() == want_s
            for bit_row, bits in (bitsets, K.no_bitsets(data.n_items)):
                for mode in (K.MODE_AUTO, K.MODE_LISTS, K.MODE_BITSETS):
                    s, q = K.support_weight_batch(arr, weights, data.indptr, data.indices, post_indptr, post_records,
                                                  bit_row, bits, mode, 0.0)
                    assert s.tolist() == want_s
                    np.testing.assert_allclose(q, want_q, rtol=1e-12)


def test_uniform_weight_shortcut_counts_bits(rng):
    records = [set(rng.sample(range(10), 6)) for _ in range(200)]  # all records of length 6
    data = as_data(records)
    sets = id_sets(data)
    post_indptr, post_records = data.inverted()
    bit_row, bits = K.build_bitsets(data.indptr, data.indices, data.n_items)
    weights = record_weights(data.lengths, 3)
    arr = np.array(list(itertools.combinations(range(data.n_items), 3)), dtype=np.int32)
    s, q = K.support_weight_batch(arr, weights, data.indptr, data.indices, post_indptr, post_records,
                                  bit_row, bits, K.MODE_BITSETS, float(weights[0]))
    assert s.tolist() == [ref.support(sets, x) for x in arr.tolist()]
    np.testing.assert_allclose(q, [ref.q_value(sets, x) for x in arr.tolist()], rtol=1e-12)


def test_support_of_table_i(table_i):
    post = table_i.inverted()
    ids = {label: i for i, label in enumerate(table_i.vocab)}

    def supp(*labels):
        items = np.array(sorted(ids[x] for x in labels), dtype=np.int32)
        return K.support_of(items, table_i.indptr, table_i.indices, *post)

    # Section III: {LA, Boston} and {Seattle, Boston} only occur in the last record.
    assert supp("LA", "Boston") == 1
    assert supp("Seattle", "Boston") == 1
    assert supp("LA", "Seattle") == 4
    assert supp("LA") == 5
    assert supp() == 7


def test_bitsets_respect_density_and_memory_cap():
    data = as_data([{0, 1}, {0}, {0, 2}, {0, 1}] * 50)
    bit_row, bits = K.build_bitsets(data.indptr, data.indices, data.n_items, min_density=0.3)
    assert bit_row[0] >= 0 and bit_row[1] >= 0 and bit_row[2] == -1
    assert bits.shape == (2, (data.n_records + 63) // 64)
    bit_row, bits = K.build_bitsets(data.indptr, data.indices, data.n_items, min_density=0.0, max_bytes=8 * 4)
    assert (bit_row >= 0).sum() == 1 and bit_row[0] == 0  # only the most frequent item fits
