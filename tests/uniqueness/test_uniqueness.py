"""Uniqueness curves: exact enumeration, MCMC estimate, person unicity, partial results, cancel."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from anonstudio.data.io import load_transactions
from anonstudio.jobs import RecordingProgress
from anonstudio.kernels.enumerate import plan_chunks, subsets_by_smallest_item
from anonstudio.methods.uniqueness.algorithm import (
    enumeration_cost,
    exact_uniqueness,
    hoeffding_half_width,
    hoeffding_samples,
    person_unicity_curve,
    uniqueness_curve,
)
from anonstudio.methods.uniqueness.params import PERSON_EXPLANATION, UniquenessParams
from anonstudio.params import ParameterError
from tests.reference import uniqueness_reference as ref
from tests.uniqueness.helpers import BASKETS_OMEGA3, as_data, id_sets


@pytest.fixture(scope="module")
def baskets(data_dir):
    return load_transactions(data_dir / "uniqueness" / "baskets.dat")


def test_sample_size_is_two_sided_hoeffding_as_in_the_papers_experiments():
    # Section VI-B: "26492 samples" for eps = 0.01 at confidence 0.99.
    assert hoeffding_samples(0.01, 0.01) == 26_492
    assert hoeffding_samples(0.05, 0.05) == math.ceil(math.log(40) / (2 * 0.05**2))
    # The formula printed in the text, 2 ln(2/delta)/eps^2, would give four times as many.
    assert math.ceil(2 * math.log(200) / 0.01**2) > 4 * 26_000
    assert hoeffding_half_width(26_492, 0.01) == pytest.approx(0.01, rel=1e-4)


def test_table_i_uniqueness_by_hand(table_i):
    # Supports in Table I: LA 5, Seattle 4, New York 5, Boston 3 -> no unique item.
    # Pairs: {LA,Seattle} 4, {NY,Boston} 3, {LA,NY} 3, {Seattle,NY} 3, {LA,Boston} 1, {Seattle,Boston} 1 -> 2/6.
    # Triples: {LA,Seattle,NY} 3 and three triples only in record 7 -> 3/4. The 4-itemset: 1/1.
    result = uniqueness_curve(table_i, UniquenessParams(max_m=5, method="exact"))
    got = [p.uniqueness for p in result.points]
    assert got[:4] == pytest.approx([0.0, 1 / 3, 3 / 4, 1.0])
    assert math.isnan(got[4])  # no record has 5 items: Omega^5 is empty
    assert result.complete and [p.method for p in result.points] == ["exact"] * 5
    assert result.points[1].diagnostics["omega"] == 6 and result.points[1].diagnostics["unique"] == 2


def test_exact_enumeration_matches_brute_force(rng):
    for _ in range(8):
        records = ref.random_records(rng, rng.randint(1, 60), rng.randint(2, 14), 7)
        data = as_data(records)
        sets = id_sets(data)
        for m in range(1, 5):
            omega = ref.omega(sets, m)
            want = (len(omega), sum(1 for c in omega.values() if c == 1))
            # Tiny chunks force many smallest-item ranges.
            assert exact_uniqueness(data, m, max_chunk_keys=7) == want
            assert exact_uniqueness(data, m) == want
            assert enumeration_cost(data, m) == sum(math.comb(len(r), m) for r in sets)
        curve = uniqueness_curve(data, UniquenessParams(max_m=4, method="exact"))
        want_curve = [ref.uniqueness(sets, m) for m in range(1, 5)]
        np.testing.assert_allclose([p.uniqueness for p in curve.points], want_curve)


def test_chunk_plan_covers_every_item_once_and_respects_the_cap():
    per_item = np.array([5, 0, 3, 9, 1, 1, 2], dtype=float)
    chunks = plan_chunks(per_item, 2, 3, max_keys=6)
    covered = [i for lo, hi, _ in chunks for i in range(lo, hi)]
    assert covered == sorted(set(covered))  # ranges in order, no item twice
    assert all(per_item[i] == 0 for i in set(range(7)) - set(covered))
    assert sum(k for _, _, k in chunks) == per_item.sum()
    assert all(k <= 6 or hi - lo == 1 for lo, hi, k in chunks)
    with pytest.raises(ValueError):
        plan_chunks(per_item, 8, 10, max_keys=6)


@pytest.mark.slow
def test_the_pinned_baskets_counts_are_the_references(baskets):
    counts = ref.omega(id_sets(baskets), 3)
    assert BASKETS_OMEGA3 == (len(counts), sum(1 for c in counts.values() if c == 1))


def test_subset_counts_by_smallest_item(baskets):
    per_item = subsets_by_smallest_item(baskets.indptr, baskets.indices, baskets.n_items, 3)
    assert per_item.sum() == sum(math.comb(int(n), 3) for n in baskets.lengths)


def test_mcmc_estimate_within_its_interval_of_exact(baskets):
    exact = uniqueness_curve(baskets, UniquenessParams(max_m=3, method="exact"))
    params = UniquenessParams(max_m=3, method="mcmc", epsilon=0.02, delta=0.01, seed=3)
    est = uniqueness_curve(baskets, params)
    assert est.complete and [p.method for p in est.points] == ["mcmc"] * 3
    for e, x in zip(est.points, exact.points):
        assert hoeffding_samples(0.02, 0.01) <= e.samples <= 8 * hoeffding_samples(0.02, 0.01)
        assert e.ci_low <= x.uniqueness <= e.ci_high, (e.m, e.uniqueness, x.uniqueness)
        assert e.ci_kind == "hoeffding-ess" and 0 < e.ess <= e.samples
        # Sampling went on until the draws were worth n independent ones (or the cap).
        assert e.ess >= e.diagnostics["samples_needed"] or e.samples == 8 * e.diagnostics["samples_needed"]
        assert e.diagnostics["thinning"] >= 1 and 0 < e.diagnostics["acceptance_rate"] <= 1
    assert exact.points[2].uniqueness > 0.05  # the comparison is not trivially 0 == 0


def test_auto_uses_exact_below_budget_and_mcmc_above(baskets):
    budget = enumeration_cost(baskets, 2) + 1
    params = UniquenessParams(max_m=3, method="auto", exact_budget=budget, epsilon=0.05, delta=0.05)
    methods = [p.method for p in uniqueness_curve(baskets, params).points]
    assert methods == ["exact", "exact", "mcmc"]


def test_same_seed_same_curve(baskets):
    params = UniquenessParams(min_m=2, max_m=3, method="mcmc", epsilon=0.05, delta=0.05, seed=11)
    a = uniqueness_curve(baskets, params).to_json()
    b = uniqueness_curve(baskets, params).to_json()
    for key in ("uniqueness", "ci_low", "ci_high", "samples", "diagnostics"):
        assert a[key] == b[key]


def test_partial_result_after_every_m_and_cancel_returns_incomplete(baskets):
    params = UniquenessParams(max_m=4, method="exact")
    progress = RecordingProgress()
    full = uniqueness_curve(baskets, params, progress)
    assert [len(r.points) for r in progress.partials] == [1, 2, 3, 4]
    assert [r.complete for r in progress.partials] == [False, False, False, True]
    assert len(set(progress.statuses)) > 4  # fine-grained progress inside each m
    cancelled = uniqueness_curve(baskets, params, RecordingProgress(cancel_after_partials=2))
    assert not cancelled.complete and [p.m for p in cancelled.points] == [1, 2]
    assert [p.uniqueness for p in cancelled.points] == [p.uniqueness for p in full.points[:2]]
    mid = uniqueness_curve(baskets, UniquenessParams(max_m=3, method="mcmc", epsilon=0.05, delta=0.05),
                           RecordingProgress(cancel_after_sets=3))
    assert not mid.complete and len(mid.points) < 3


def test_person_unicity_is_record_first_and_within_its_interval(baskets):
    sets = id_sets(baskets)
    params = UniquenessParams(min_m=2, max_m=4, epsilon=0.02, delta=0.01, seed=5)
    result = person_unicity_curve(baskets, params)
    assert result.kind == "person" and result.complete
    assert "chance that a person is unique given m of their items" in result.explanation
    assert result.explanation == PERSON_EXPLANATION
    for p in result.points:
        want = ref.person_unicity(sets, p.m)
        assert p.ci_low <= want <= p.ci_high, (p.m, p.uniqueness, want)
        assert p.method == "sampling" and p.ci_kind == "hoeffding"
    # Person-level unicity is lower than itemset uniqueness here (the paper's point).
    itemset = uniqueness_curve(baskets, UniquenessParams(min_m=4, max_m=4, method="exact"))
    assert result.points[-1].uniqueness < itemset.points[0].uniqueness


def test_json_has_the_cli_columns(table_i):
    out = uniqueness_curve(table_i, UniquenessParams(max_m=5, method="exact")).to_json()
    for key in ("m", "uniqueness", "ci_low", "ci_high", "method", "samples", "seconds"):
        assert len(out[key]) == 5
    assert out["uniqueness"][4] is None
    json.dumps(out, allow_nan=False)


def test_parameters_are_validated_once_by_the_pipeline(table_i, monkeypatch):
    from anonstudio import params as params_module
    from anonstudio.methods import contract
    from anonstudio.methods.uniqueness.spec import SPEC

    for bad in (UniquenessParams(epsilon=0.0), UniquenessParams(method="guess"), UniquenessParams(min_m=3, max_m=2)):
        with pytest.raises(ParameterError):
            contract.run_and_verify(SPEC, table_i, bad)
    calls = []
    real = params_module.validate

    def counting(params):
        calls.append(params)
        return real(params)

    monkeypatch.setattr(contract, "validate", counting)
    monkeypatch.setattr(params_module, "validate", counting)
    run = contract.run_and_verify(SPEC, table_i, UniquenessParams(max_m=2, method="exact"))
    assert run.complete and len(calls) == 1


def test_exact_enumeration_checks_cancel_between_chunks(baskets):
    progress = RecordingProgress(cancel_after_sets=2)
    assert exact_uniqueness(baskets, 3, progress, max_chunk_keys=5000) is None
    assert len(progress.fractions) == 2 and progress.fractions[-1] < 1.0
    full = RecordingProgress()
    assert exact_uniqueness(baskets, 3, full, max_chunk_keys=5000) == BASKETS_OMEGA3
    assert len(full.fractions) > 5 and full.fractions[-1] == 1.0


def test_a_point_short_of_its_precision_colours_the_texts_amber(baskets):
    from anonstudio.methods.contract import CHECK_PASSED, run_and_verify
    from anonstudio.methods.uniqueness.spec import SPEC

    # With no room beyond the Hoeffding sample size, correlated MCMC draws fall short of ε.
    loose = run_and_verify(SPEC, baskets, UniquenessParams(min_m=3, max_m=3, measure="itemset", method="mcmc",
                                                           epsilon=0.01, max_sample_factor=1.0))
    assert not loose.result.itemset.points[0].precision_met
    described = SPEC.describe(loose)
    assert described.state == "warning" and any("precision not reached" in n for n in described.notes)
    exact = run_and_verify(SPEC, baskets, UniquenessParams(max_m=2, measure="itemset", method="exact"))
    assert SPEC.describe(exact).state == "ok"
    assert not (described.check or "").startswith(CHECK_PASSED)  # a measurement promises nothing to check
