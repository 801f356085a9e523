"""Independent sampler: exactly uniform over Omega^ell, independent, reproducible."""
from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest
from numba import njit
from scipy import stats

from anonstudio.jobs import NullProgress
from anonstudio.kernels.independent_sampler import (
    build_alias,
    build_layout_rows,
    draw_independent,
    layout_postings,
    record_layout,
    summary_spans,
)
from anonstudio.kernels.mcmc_sampler import subset_counts
from anonstudio.kernels.rng import make_state
from anonstudio.kernels.support import (
    MODE_AUTO,
    MODE_BITSETS,
    MODE_LISTS,
    build_bitsets,
    support_weight_bounded,
)
from anonstudio.samplers.independent_sampler import IndependentItemsetSampler
from tests.reference import uniqueness_reference as ref
from tests.uniqueness.helpers import as_data, id_sets


def _skewed_dataset():
    """Records of very different lengths: a proposal without the 1/supp correction is far from uniform."""
    r = random.Random(5)
    records = [set(r.sample(range(9), r.choice([1, 2, 2, 2, 3, 3, 7]))) for _ in range(40)]
    return as_data(records, "skewed")


@pytest.mark.parametrize("ell", [1, 2, 3])
def test_draws_are_uniform_over_omega_with_true_supports(ell):
    data = _skewed_dataset()
    omega = ref.omega(id_sets(data), ell)
    items, supports = IndependentItemsetSampler(data, ell, seed=11).draw(20_000)
    draws = [tuple(row) for row in items.tolist()]
    counts = Counter(draws)
    assert set(counts) <= set(omega)
    observed = np.array([counts.get(x, 0) for x in sorted(omega)], dtype=float)
    assert stats.chisquare(observed).pvalue > 1e-3
    assert supports.tolist() == [omega[x] for x in draws]


@pytest.mark.parametrize("ell", [2, 3])
def test_proposals_per_sample_match_the_rejection_rate(ell):
    """Each proposal is accepted with probability |Omega^ell| / Z, Z the (record, ell-subset) pairs."""
    data = _skewed_dataset()
    sets = id_sets(data)
    z = sum(math.comb(len(r), ell) for r in sets)
    rate = len(ref.omega(sets, ell)) / z
    sampler = IndependentItemsetSampler(data, ell, seed=3)
    sampler.draw(20_000)
    report = sampler.report
    assert report.samples == 20_000
    # Binomial standard error of the acceptance rate over report.proposals trials.
    se = math.sqrt(rate * (1 - rate) / report.proposals)
    assert abs(report.acceptance_rate - rate) < 5 * se


def test_draws_continue_the_streams():
    data = _skewed_dataset()
    whole = IndependentItemsetSampler(data, 3, seed=9, streams=1).draw(3000)[0]
    halves = IndependentItemsetSampler(data, 3, seed=9, streams=1)
    first, second = halves.draw(1500)[0], halves.draw(1500)[0]
    assert np.array_equal(np.concatenate([first, second]), whole)


def test_kernel_chunk_boundaries_do_not_change_the_samples():
    data = _skewed_dataset()
    post_indptr, post_records = data.inverted()
    pos = record_layout(data.indptr, data.indices, data.n_items)
    order, post_records = _in_layout(data, pos, post_indptr)
    bit_row, (summary, first, words) = build_layout_rows(post_indptr, post_records, data.n_records, 1 << 20)
    eligible = np.flatnonzero(data.lengths >= 3).astype(np.int32)
    prob, alias = build_alias(subset_counts(data.lengths[eligible], 3))

    def run(max_proposals):
        rng, counters = make_state(21), np.zeros(2, dtype=np.int64)
        items, supps = np.empty((400, 3), dtype=np.int32), np.empty(400, dtype=np.int64)
        got = 0
        while got < 400:
            got += draw_independent(rng, counters, 400 - got, max_proposals, prob, alias, eligible, data.indptr,
                                    data.indices, post_indptr, post_records, order, bit_row, summary, first, words,
                                    summary_spans(summary), MODE_AUTO, items, supps, got)
        return items, counters

    one_call, c1 = run(10**9)
    small_chunks, c2 = run(7)
    assert np.array_equal(one_call, small_chunks) and np.array_equal(c1, c2)


def test_cancel_returns_fewer_rows():
    class CancelNow(NullProgress):
        def cancelled(self):
            return True

    items, supports = IndependentItemsetSampler(_skewed_dataset(), 2, seed=1).draw(1000, CancelNow())
    assert len(items) == len(supports) < 1000


def test_no_record_long_enough_gives_no_samples():
    items, _ = IndependentItemsetSampler(as_data([{"a"}, {"b", "c"}]), 3, seed=1).draw(10)
    assert items.shape == (0, 3)


@pytest.mark.parametrize("weights", [[1.0, 3.0], [0.0, 2.0, 5.0, 0.0, 1.0], [1e-9, 1e9, 7.0]])
def test_alias_table_gives_each_index_its_weight(weights):
    w = np.array(weights)
    prob, alias = build_alias(w)
    n = len(w)
    implied = prob / n
    for i in range(n):
        implied[alias[i]] += (1.0 - prob[i]) / n
    assert np.allclose(implied, w / w.sum(), rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("mode", [MODE_AUTO, MODE_LISTS, MODE_BITSETS])
def test_bounded_counts_are_exact_below_the_limit_and_at_least_it_otherwise(mode):
    r = random.Random(8)
    # 17,000 records: bitset rows longer than one 256-word block of the bounded AND.
    # Sparse, so that supports fall on both sides of the limits.
    records = [set(r.sample(range(40), r.randint(1, 6))) for _ in range(17_000)]
    data = as_data(records)
    sets = id_sets(data)
    post_indptr, post_records = data.inverted()
    bit_row, bits = build_bitsets(data.indptr, data.indices, data.n_items)
    ones = np.ones(data.n_records)
    for _ in range(80):
        items = np.array(sorted(r.sample(range(40), r.randint(2, 3))), dtype=np.int32)
        true = ref.support(sets, items.tolist())
        limit = float(r.choice([1, 2, 3, 10, 30, 60, 100, np.inf]))
        count, q = support_weight_bounded(items, ones, data.indptr, data.indices, post_indptr, post_records,
                                          bit_row, bits, mode, 1.0, limit)
        if q < limit:
            assert count == true
        else:
            assert true >= count >= limit


def test_single_items_that_never_occur_are_never_drawn():
    from anonstudio.data.transactions import TransactionData

    # Items 9-11 are in the vocabulary (as after taking a subset) but in no record.
    r = random.Random(2)
    records = [sorted(r.sample(range(9), r.randint(1, 4))) for _ in range(50)]
    data = TransactionData.from_id_lists(records, n_items=12)
    items, supports = IndependentItemsetSampler(data, 1, seed=4).draw(9000)
    counts = np.bincount(items[:, 0], minlength=12)
    assert counts[9:].sum() == 0
    assert stats.chisquare(counts[:9]).pvalue > 1e-3
    assert supports.tolist() == [int(data.item_frequencies[i]) for i in items[:, 0]]


def test_a_count_cut_short_never_reads_as_exact_after_rounding():
    """Counts stop at ceil(q_limit / w); count * w may round below q_limit, yet the result must read as partial."""
    from anonstudio.data.transactions import TransactionData

    n = 20_000
    records = [[2] for _ in range(n)]
    for u in [*range(65), *range(17_000, 17_010)]:  # 65 holders in the first AND block, 10 far later
        records[u] = [0, 1]
    data = TransactionData.from_id_lists(records, n_items=3)
    post_indptr, post_records = data.inverted()
    bit_row, bits = build_bitsets(data.indptr, data.indices, data.n_items)
    weight = 1.0 / (37 * 36)
    items = np.array([0, 1], dtype=np.int32)
    for mode in (MODE_BITSETS, MODE_LISTS):
        # The chain's limits are q(S) / x; with x within a few ulps of 7 / s the
        # limit sits right at s weights, where rounding bites.
        for s in range(8, 75):
            x = 7 / s
            for _ in range(4):
                x = np.nextafter(x, 0.0)
            for _ in range(9):
                x = np.nextafter(x, 1.0)
                q_limit = (7 * weight) / x
                count, q = support_weight_bounded(items, np.full(n, weight), data.indptr, data.indices,
                                                  post_indptr, post_records, bit_row, bits, mode, weight, q_limit)
                if q < q_limit:
                    assert count == 75


def _in_layout(data, pos, post_indptr):
    """``order`` (inverse of ``pos``) and the posting lists in the layout's numbering."""
    order = np.empty(data.n_records, dtype=np.int32)
    order[pos] = np.arange(data.n_records, dtype=np.int32)
    post_records = np.empty(int(post_indptr[-1]), dtype=np.int32)
    layout_postings(data.indptr, data.indices, order, post_indptr, post_records)
    return order, post_records


@pytest.mark.parametrize(("mode", "rows_for", "strategy"), [
    *[(mode, rows_for, "chosen") for mode in (MODE_AUTO, MODE_LISTS) for rows_for in ("all", "some")],
    # Where every item has a row, a count walks the rarest list or runs the two-level AND by a cost model; on data
    # this small a walk over bitset rows is rare, so each way is also forced.
    (MODE_AUTO, "all", "walk"),
    (MODE_AUTO, "all", "and"),
])
def test_bounded_counts_in_the_clustered_layout_are_exact_below_the_limit(mode, rows_for, strategy, monkeypatch):
    from anonstudio.kernels import independent_sampler as kernel

    _bounded_support = kernel._bounded_support
    if strategy != "chosen":
        # A fresh compilation reads the patched weight (a cached kernel keeps the one it was compiled with).
        monkeypatch.setattr(kernel, "_WALK_VS_SUMMARY", 0 if strategy == "walk" else 1 << 40)
        _bounded_support = njit(kernel._bounded_support.py_func)

    r = random.Random(11)
    records = [set(r.sample(range(40), r.randint(1, 6 if u % 50 else 30))) for u in range(17_000)]
    data = as_data(records)
    sets = id_sets(data)
    post_indptr, post_records = data.inverted()
    coords = np.array([[r.random(), r.random()] for _ in range(data.n_items)])
    pos = record_layout(data.indptr, data.indices, data.n_items, coords)
    assert sorted(pos.tolist()) == list(range(data.n_records))
    order, post_records = _in_layout(data, pos, post_indptr)
    for i in range(data.n_items):  # the same records, renumbered and ascending
        layout_list = post_records[post_indptr[i]:post_indptr[i + 1]]
        assert np.all(np.diff(layout_list) > 0)
        assert sorted(order[layout_list].tolist()) == [u for u, rec in enumerate(sets) if i in rec]
    # "some": only the most frequent items get a row, so counts mix bit tests and record searches.
    max_bytes = (1 << 30) if rows_for == "all" else 25 * 8 * ((data.n_records + 63) // 64)
    bit_row, (summary, first, words) = build_layout_rows(post_indptr, post_records, data.n_records, max_bytes)
    with_rows = int((bit_row >= 0).sum())
    assert with_rows == data.n_items if rows_for == "all" else 0 < with_rows < data.n_items
    spans = summary_spans(summary)
    for _ in range(120):
        ell = r.randint(2, 4)
        items = np.array(sorted(r.sample(range(40), ell)), dtype=np.int32)
        true = ref.support(sets, items.tolist())
        limit = float(r.choice([1, 2, 3, 10, 30, 60, 100, np.inf]))
        count = _bounded_support(items, np.empty(ell, dtype=np.int64), np.empty(ell, dtype=np.int64),
                                 np.empty(ell, dtype=np.uint64), limit, data.indptr, data.indices, post_indptr,
                                 post_records, order, bit_row, summary, first, words, spans, mode)
        if count < limit:
            assert count == true
        else:
            assert true >= count >= limit
