"""Resource and precision limits: memory check of exact counting, missed precision, burn-in status."""
from __future__ import annotations

import json
import math

import pytest

from anonstudio.data.io import load_transactions
from anonstudio.jobs import RecordingProgress
from anonstudio.kernels.enumerate import subsets_by_smallest_item
from anonstudio.methods.uniqueness.algorithm import (
    BYTES_PER_KEY,
    default_memory_limit,
    exact_memory_plan,
    exact_uniqueness,
    uniqueness_curve,
)
from anonstudio.methods.uniqueness.params import UniquenessParams
from anonstudio.params import ParameterError
from anonstudio.samplers.mcmc_sampler import ItemsetSampler, burn_in_status
from tests.uniqueness.helpers import BASKETS_OMEGA3

GIB = 1 << 30


@pytest.fixture(scope="module")
def baskets(data_dir):
    return load_transactions(data_dir / "uniqueness" / "baskets.dat")


def _largest_item_keys(data, m):
    return int(subsets_by_smallest_item(data.indptr, data.indices, data.n_items, m).max())


def test_exact_refuses_when_one_chunk_cannot_fit(baskets):
    need = BYTES_PER_KEY * _largest_item_keys(baskets, 4)
    with pytest.raises(ParameterError, match=r"exact counting of m=4 needs ~.* of memory") as info:
        exact_uniqueness(baskets, 4, max_memory_bytes=need - 1)
    assert "mcmc" in str(info.value) and info.value.name == "method"
    # Through the parameters (in GiB): 1 MiB is below what the largest item of m=5 needs.
    assert BYTES_PER_KEY * _largest_item_keys(baskets, 5) > 0.001 * GIB
    with pytest.raises(ParameterError, match="needs ~"):
        uniqueness_curve(baskets, UniquenessParams(min_m=5, max_m=5, method="exact", max_memory_gib=0.001))


def test_auto_never_picks_exact_that_would_not_fit(baskets):
    params = UniquenessParams(min_m=5, max_m=5, method="auto", max_memory_gib=0.001, epsilon=0.1, delta=0.1)
    point = uniqueness_curve(baskets, params).points[0]
    assert point.method == "mcmc"
    roomy = UniquenessParams(min_m=5, max_m=5, method="auto", epsilon=0.1, delta=0.1)
    assert uniqueness_curve(baskets, roomy).points[0].method == "exact"


def test_chunks_and_threads_shrink_to_fit_and_counts_stay_the_same(baskets):
    largest = _largest_item_keys(baskets, 3)
    budget = BYTES_PER_KEY * largest  # room for exactly one single-item chunk on one thread
    plan = exact_memory_plan(baskets, 3, budget)
    assert plan.threads == 1 and plan.peak_bytes <= budget and len(plan.chunks) > 1
    roomy = exact_memory_plan(baskets, 3, 8 * GIB)
    assert len(roomy.chunks) < len(plan.chunks)
    two = exact_memory_plan(baskets, 3, 8 * GIB, max_chunk_keys=largest)
    assert two.threads == 2 and two.peak_bytes == 2 * BYTES_PER_KEY * max(c[2] for c in two.chunks)
    assert exact_uniqueness(baskets, 3, max_memory_bytes=budget) == exact_uniqueness(baskets, 3) == BASKETS_OMEGA3


def test_default_memory_limit_is_a_quarter_of_ram():
    assert 64 * (1 << 20) <= default_memory_limit() <= 1 << 50


def test_missed_precision_is_flagged_on_the_point_and_in_json(baskets):
    # One times the Hoeffding size cannot reach +-eps once draws are correlated.
    params = UniquenessParams(min_m=2, max_m=4, method="mcmc", epsilon=0.05, delta=0.05, max_sample_factor=1.0)
    result = uniqueness_curve(baskets, params)
    missed = [p for p in result.points if not p.precision_met]
    assert missed, "expected at least one point to hit the cap of one Hoeffding sample size"
    for p in result.points:
        half = (p.ci_high - p.ci_low) / 2
        wide = half > params.epsilon * 1.0001 and 0 < p.ci_low and p.ci_high < 1
        assert p.precision_met == (not wide) or p.ci_low == 0 or p.ci_high == 1
        assert bool(p.warning) == (not p.precision_met)
    assert "precision not reached" in missed[0].warning and "±0.05" in missed[0].warning
    doc = result.to_json()
    assert doc["precision_met"] == [p.precision_met for p in result.points]
    assert doc["warnings"][result.points.index(missed[0])] == missed[0].warning
    json.dumps(doc, allow_nan=False)


def test_enough_samples_meet_the_precision(baskets):
    params = UniquenessParams(min_m=2, max_m=2, method="mcmc", epsilon=0.05, delta=0.05, max_sample_factor=8.0)
    p = uniqueness_curve(baskets, params).points[0]
    assert p.precision_met and p.warning == ""
    assert (p.ci_high - p.ci_low) / 2 <= 0.05 + 1e-9 or p.ci_low == 0.0


def test_exact_points_report_itemsets_not_samples(baskets):
    doc = uniqueness_curve(baskets, UniquenessParams(min_m=3, max_m=3, method="exact")).to_json()
    assert doc["samples"] == [0] and doc["itemsets"] == [BASKETS_OMEGA3[0]]
    assert doc["precision_met"] == [True]


def test_burn_in_status_never_shows_infinite_z(baskets):
    assert burn_in_status(4000, (math.inf, math.inf)) == "burn-in: checking convergence… (4,000 steps)"
    assert "Geweke z +0.50, -1.25" in burn_in_status(5000, (0.5, -1.25))
    progress = RecordingProgress()
    sampler = ItemsetSampler(baskets, 3, seed=3, min_burn_in=4000)
    try:
        sampler.burn_in(progress)
    finally:
        sampler.close()
    assert progress.statuses and not any("inf" in s for s in progress.statuses)
    assert any("checking convergence" in s for s in progress.statuses)


def test_parameter_errors_name_the_field_and_the_problem():
    from anonstudio.params import validate

    with pytest.raises(ParameterError) as info:
        validate(UniquenessParams(epsilon=0.0))
    assert info.value.name == "epsilon"
    assert info.value.problem == "must be at least 0.001 (got 0)"
    assert str(info.value) == "Error ε must be at least 0.001 (got 0)"  # the GUI keeps its label
