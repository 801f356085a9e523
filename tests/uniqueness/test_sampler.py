"""Algorithm 1 sampler: uniform over Omega^ell, reproducible, burn-in diagnostics."""
from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from anonstudio.jobs import RecordingProgress
from anonstudio.samplers.independent_sampler import IndependentItemsetSampler
from anonstudio.samplers.mcmc_sampler import PROPOSALS, ItemsetSampler
from tests.reference import uniqueness_reference as ref
from tests.uniqueness.helpers import as_data, id_sets


def _skewed_dataset():
    """Records of very different lengths, so record-first sampling is clearly biased."""
    r = random.Random(5)
    records = [set(r.sample(range(9), r.choice([1, 2, 2, 2, 3, 3, 7]))) for _ in range(40)]
    return as_data(records, "skewed")


def _chi_square_p(draws: list[tuple], omega: Counter) -> float:
    counts = Counter(draws)
    assert set(counts) <= set(omega)  # never an itemset that does not occur
    observed = np.array([counts.get(x, 0) for x in sorted(omega)], dtype=float)
    return float(stats.chisquare(observed).pvalue)


@pytest.mark.parametrize("proposal", PROPOSALS)
@pytest.mark.parametrize("ell", [2, 3])
def test_draws_are_uniform_over_omega_and_naive_sampler_is_not(proposal, ell):
    data = _skewed_dataset()
    sets = id_sets(data)
    omega = ref.omega(sets, ell)
    assert len(omega) > 15
    sampler = ItemsetSampler(data, ell, seed=11, proposal=proposal)
    items, supports = sampler.draw(20_000)
    draws = [tuple(row) for row in items.tolist()]
    assert _chi_square_p(draws, omega) > 1e-3
    # The supports returned are the true supports of the drawn itemsets.
    assert supports.tolist() == [omega[x] for x in draws]
    # The same test rejects de Montjoye's record-first sampling on this data.
    naive = ref.naive_record_first_draws(sets, ell, 20_000, seed=11)
    assert _chi_square_p(naive, omega) < 1e-6


@pytest.mark.parametrize("sampler", [ItemsetSampler, IndependentItemsetSampler])
def test_same_seed_same_samples_and_different_seed_differs(table_i, sampler):
    a = sampler(table_i, 2, seed=3).draw(500)
    b = sampler(table_i, 2, seed=3).draw(500)
    c = sampler(table_i, 2, seed=4).draw(500)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


def test_chunking_does_not_change_the_chain():
    data = _skewed_dataset()
    one = ItemsetSampler(data, 2, seed=9)
    one.burn_in()
    whole = one.draw(3000)
    two = ItemsetSampler(data, 2, seed=9)
    two.burn_in()
    assert two.thinning == one.thinning
    # Two draws of half the size continue the same chains: chain 0's first half
    # then chain 1's first half, then the second halves.
    first = two.draw(1500)
    second = two.draw(1500)
    per_chain = 1500
    w = whole[0]
    assert np.array_equal(first[0][:750], w[:750])
    assert np.array_equal(second[0][:750], w[750:per_chain])
    assert np.array_equal(first[0][750:], w[per_chain:per_chain + 750])


def test_burn_in_report_and_diagnostics(table_i):
    sampler = ItemsetSampler(table_i, 2, seed=1)
    progress = RecordingProgress()
    report = sampler.burn_in(progress)
    assert report.converged and all(abs(z) <= 1 for z in report.geweke_z)
    assert report.steps >= sampler.min_burn_in
    assert 1 <= report.thinning <= sampler.max_thinning
    assert 0 < report.acceptance_rate <= 1
    assert progress.fractions and progress.fractions[-1] == 1.0
    items, supports = sampler.draw(1000)
    assert items.shape == (1000, 2) and supports.shape == (1000,)
    assert np.all(np.diff(items, axis=1) > 0)
    d = sampler.last_draw
    assert d.samples == 1000 and 0 < d.ess_unique <= 1000


def test_no_record_long_enough_means_empty_omega(table_i):
    sampler = ItemsetSampler(table_i, 5, seed=1)
    assert sampler.empty
    items, supports = sampler.draw(10)
    assert items.shape == (0, 5) and supports.shape == (0,)


def test_cancel_during_draw_returns_fewer_rows():
    data = _skewed_dataset()
    sampler = ItemsetSampler(data, 2, seed=2)
    sampler.burn_in()
    items, supports = sampler.draw(200_000, RecordingProgress(cancel_after_sets=1))
    assert 0 < len(items) < 200_000 and len(items) == len(supports)


def test_threaded_chains_equal_chains_run_one_after_another():
    data = _skewed_dataset()
    threaded = ItemsetSampler(data, 3, seed=21)
    a = threaded.draw(4000)
    serial = ItemsetSampler(data, 3, seed=21)

    class Serial:
        @staticmethod
        def map(fn, states):
            return [fn(s) for s in reversed(states)][::-1]  # other finishing order, same result

        @staticmethod
        def shutdown(wait=False):
            pass

    serial._pool = Serial()
    b = serial.draw(4000)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert threaded.report.steps == serial.report.steps


def test_support_memo_never_changes_the_chain():
    from anonstudio.kernels.mcmc_sampler import new_chain_state, run_chain

    data = _skewed_dataset()
    sampler = ItemsetSampler(data, 2, seed=0)
    outs = []
    for slots in (1, 2, 1 << 12):
        st = new_chain_state(2, 99, cache_slots=slots)
        items = np.empty((3000, 2), dtype=np.int32)
        supp = np.empty(3000, dtype=np.int64)
        run_chain(st["cur_items"], st["cur_q"], st["counters"], st["rng"], 3000, 1, sampler.eligible, sampler.cdf,
                  sampler.weights, data.indptr, data.indices, sampler.post_indptr, sampler.post_records,
                  sampler.bit_row, sampler.bits, sampler.support_mode, sampler.uniform_weight,
                  st["cache_items"], st["cache_supp"], st["cache_q"], items, supp)
        outs.append((items, supp, int(st["counters"][3])))
    assert all(np.array_equal(outs[0][0], o[0]) and np.array_equal(outs[0][1], o[1]) for o in outs)
    assert outs[2][2] < outs[0][2]  # a larger memo computes fewer supports


def test_inlined_item_draw_matches_the_rng_modules_sampler():
    # run_chain draws a record's items with an inlined copy of Floyd's algorithm;
    # it must consume and return exactly what rng.sample_without_replacement does.
    from numba import njit

    from anonstudio.kernels.mcmc_sampler import sample_record_items
    from anonstudio.kernels.rng import make_state, sample_without_replacement

    @njit
    def inlined(state, indices, start, length, ell, out):
        sample_record_items(state, indices, start, length, ell, out)

    gen = np.random.default_rng(3)
    indices = gen.permutation(1000).astype(np.int32)
    for seed in range(200):
        start = int(gen.integers(0, 900))
        length = int(gen.integers(1, 60))
        ell = int(gen.integers(1, min(length, 6) + 1))
        a, b = make_state(seed), make_state(seed)
        out_a = np.empty(ell, dtype=np.int32)
        out_b = np.empty(ell, dtype=np.int32)
        sample_without_replacement(a, indices[start:start + length], ell, out_a)
        inlined(b, indices, start, length, ell, out_b)
        assert np.array_equal(out_a, out_b) and a[0] == b[0]
        assert len(set(out_b.tolist())) == ell
