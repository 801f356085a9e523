"""Algorithm 2: paper Example 1, exact mode vs brute force, sampling, monotonicity, cancel, seeds."""

import numpy as np
import pytest

from anonstudio.data.hierarchy import Hierarchy
from anonstudio.data.transactions import TransactionData
from anonstudio.jobs import RecordingProgress
from anonstudio.methods.kmanon.algorithm import kmanonymize
from anonstudio.methods.kmanon.constraints import FreeMerge, HierarchyCut, PointCentroidError
from anonstudio.methods.kmanon.params import SAMPLERS, KmAnonParams
from tests.reference.kmanon_reference import (
    brute_force_factory,
    fraction_k_anonymous,
    is_km_anonymous,
    random_data,
    violators,
)

TABLE_I = [
    ["LA"],
    ["LA", "Seattle"],
    ["New York", "Boston"],
    ["New York", "Boston"],
    ["LA", "Seattle", "New York"],
    ["LA", "Seattle", "New York"],
    ["LA", "Seattle", "New York", "Boston"],
]
CITIES = ("Boston", "LA", "New York", "Seattle")
# Rough positions in km east/north, only their distances matter here.
CITY_XY = {"Boston": (4_300e3, 700e3), "LA": (400e3, 0.0), "New York": (4_000e3, 550e3), "Seattle": (300e3, 1_550e3)}


def _example1():
    data = TransactionData.from_records(TABLE_I, vocab=CITIES)
    tree = Hierarchy.from_rows([
        ["LA", "West US", "US"], ["Seattle", "West US", "US"],
        ["New York", "East US", "US"], ["Boston", "East US", "US"],
    ])
    return data, HierarchyCut(tree, data.vocab)


def _groups(result_level, vocab):
    groups = {}
    for i, p in enumerate(result_level.labels):
        groups.setdefault(int(p), set()).add(vocab[i])
    return sorted(sorted(g) for g in groups.values())


@pytest.mark.parametrize("sigma", [1.0, 0.99])
@pytest.mark.parametrize("error", ["ncp", "distance"])
def test_paper_example_1(sigma, error):
    # By hand: all cities occur >= 2 times, so level 1 changes nothing. At
    # level 2, {LA, Boston} and {Seattle, Boston} occur only in record 7. The
    # neighbours at their items lift West US (LA + Seattle: 9 occurrences, 1540 km
    # apart) or East US (New York + Boston: 8 occurrences, 340 km apart); both
    # NCP (8/3 < 9/3) and distance prefer East US. Afterwards every 2-itemset
    # maps to {LA, Seattle}, {LA, East US}, {Seattle, East US} or {East US},
    # with supports 4, 3, 3, 5 >= 2: the result of Figure 1.
    data, cut = _example1()
    err = None
    if error == "distance":
        err = PointCentroidError(np.array([CITY_XY[c] for c in data.vocab]))
    params = KmAnonParams(k=2, m=2, sigma=sigma, trials=2, seed=3, exact_when_cheaper=False)
    res = kmanonymize(data, cut, params, error=err, sampler_factory=brute_force_factory)
    assert res.complete
    assert _groups(res.level(1), data.vocab) == [["Boston"], ["LA"], ["New York"], ["Seattle"]]
    assert res.level(1).merges == 0
    final = res.level(2)
    assert _groups(final, data.vocab) == [["Boston", "New York"], ["LA"], ["Seattle"]]
    assert final.partitions == 3 and final.merges == 1
    assert final.names[int(final.labels[data.vocab.index("Boston")])] == "East US"
    if error == "ncp":
        # 8 occurrences of New York / Boston lose (2 - 1) / (4 - 1) each, out of 17.
        assert final.error == pytest.approx(8 / 3 / 17)
    assert is_km_anonymous(data, final.labels, 2, 2)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_mode_is_truly_km_anonymous(seed):
    data = random_data(seed, 250, 35, 6)
    res = kmanonymize(data, FreeMerge(), KmAnonParams(k=4, m=3, sigma=1.0, trials=2, seed=seed))
    assert res.complete
    for m in (1, 2, 3):
        lv = res.level(m)
        assert lv.mode == "exact"
        assert is_km_anonymous(data, lv.labels, 4, m)


def test_exact_mode_does_nothing_when_already_anonymous():
    # 6 copies of the same record: every itemset has support 6.
    data = TransactionData.from_id_lists([[0, 1, 2, 3]] * 6)
    res = kmanonymize(data, FreeMerge(), KmAnonParams(k=5, m=4, sigma=1.0))
    assert res.final.partitions == 4 and res.final.error == 0.0


def test_sampling_mode_reaches_sigma_on_random_data():
    data = random_data(7, 300, 40, 6)
    res = kmanonymize(data, FreeMerge(), KmAnonParams(k=5, m=3, sigma=0.99, trials=1, seed=5, exact_when_cheaper=False),
                      sampler_factory=brute_force_factory)
    for ell in (1, 2, 3):
        assert fraction_k_anonymous(data, res.final.labels, 5, ell) >= 0.99
        assert res.level(ell).samples >= res.level(ell).gamma


def test_partitions_never_increase_with_m_and_error_never_decreases():
    data = random_data(11, 300, 50, 8)
    res = kmanonymize(data, FreeMerge(), KmAnonParams(k=6, m=4, sigma=0.99, trials=1, seed=2, exact_when_cheaper=False),
                      sampler_factory=brute_force_factory)
    trial = res.trials[0]
    parts = [lv.partitions for lv in trial.levels]
    errors = [lv.error for lv in trial.levels]
    assert parts == sorted(parts, reverse=True)
    assert errors == sorted(errors)
    # a later level only merges partitions of an earlier one
    for a, b in zip(trial.levels, trial.levels[1:]):
        for p in np.unique(a.labels):
            assert len(np.unique(b.labels[a.labels == p])) == 1


def test_same_seed_same_result_and_trials_differ():
    data = random_data(5, 300, 40, 6)
    params = KmAnonParams(k=5, m=3, sigma=0.99, trials=3, seed=9, exact_when_cheaper=False)
    a = kmanonymize(data, FreeMerge(), params, sampler_factory=brute_force_factory)
    b = kmanonymize(data, FreeMerge(), params, sampler_factory=brute_force_factory)
    assert np.array_equal(a.final.labels, b.final.labels)
    assert [lv.summary()["samples"] for lv in a.levels] == [lv.summary()["samples"] for lv in b.levels]
    # the kept trial has the least error among all trials at each level
    for ell, lv in enumerate(a.levels, 1):
        assert lv.error == min(t.levels[ell - 1].error for t in a.trials)


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_same_seed_same_result_with_each_real_sampler(sampler):
    data = random_data(6, 200, 30, 6)
    params = KmAnonParams(k=4, m=2, sigma=0.9, trials=2, seed=4, sampler=sampler, exact_when_cheaper=False)
    a = kmanonymize(data, FreeMerge(), params)
    b = kmanonymize(data, FreeMerge(), params)
    assert np.array_equal(a.final.labels, b.final.labels)
    assert a.final.samples == b.final.samples
    assert a.sampler == sampler and a.to_json()["sampler"] == sampler


def test_cancel_returns_a_valid_partial_generalization():
    data = random_data(8, 300, 50, 8)
    progress = RecordingProgress(cancel_after_partials=2)
    params = KmAnonParams(k=6, m=5, sigma=0.99, trials=1, seed=1, exact_when_cheaper=False)
    res = kmanonymize(data, FreeMerge(), params, progress, sampler_factory=brute_force_factory)
    assert not res.complete
    assert progress.partials, "partial results are published"
    final = res.final
    assert final is not None
    labels = final.labels
    # a valid partition: every item in exactly one part, part id = smallest member
    for p in np.unique(labels):
        assert np.flatnonzero(labels == p).min() == p
    assert len(res.levels) < 5 or not res.levels[-1].complete


def test_per_level_k_and_sigma_vectors():
    data = random_data(9, 250, 30, 6)
    params = KmAnonParams(k=8, m=3, k_levels=(8, 4), sigma_levels=(1.0, 1.0, 0.99), trials=1, seed=1,
                          exact_when_cheaper=False)
    res = kmanonymize(data, FreeMerge(), params, sampler_factory=brute_force_factory)
    assert [lv.k for lv in res.levels] == [8, 4, 4]
    assert [lv.mode for lv in res.levels] == ["exact", "exact", "sampling"]
    assert not violators(data, res.level(1).labels, 8, 1)
    assert not violators(data, res.level(2).labels, 4, 2)


def test_exact_budget_stops_with_a_reason():
    # level 2 needs 60 + C(60, 2) = 1,830 counters or ~2,500 sorted keys, both over 1,000
    data = random_data(10, 200, 60, 8)
    res = kmanonymize(data, FreeMerge(), KmAnonParams(k=3, m=2, sigma=1.0, exact_budget=1000))
    assert not res.complete
    assert "budget" in res.stopped_reason
    assert len(res.levels) == 1 and res.levels[0].complete


@pytest.mark.parametrize("plan", ["dense", "sorted"])
def test_both_enumeration_paths_give_exact_results(plan, monkeypatch):
    from anonstudio.methods.kmanon import trial

    # Dense counters are used whenever they fit; force each path in turn.
    monkeypatch.setattr(trial.Trial, "_exact_plan", lambda self, ell: (plan, 0.0))
    data = random_data(13, 150, 30, 6)
    res = kmanonymize(data, FreeMerge(), KmAnonParams(k=3, m=3, sigma=1.0, seed=2))
    assert res.complete
    assert is_km_anonymous(data, res.final.labels, 3, 3)


def test_exact_when_cheaper_upgrades_small_levels():
    data = random_data(12, 200, 30, 6)
    res = kmanonymize(data, FreeMerge(), KmAnonParams(k=4, m=3, sigma=0.99, trials=1, seed=1))
    assert [lv.mode for lv in res.levels] == ["exact"] * 3
    assert is_km_anonymous(data, res.final.labels, 4, 3)


def _tree_rows(n_items):
    # items 0..n-1 -> groups of 4 -> halves -> root
    return [[str(i), f"g{i // 4}", f"h{i // 8}", "all"] for i in range(n_items)]


@pytest.mark.parametrize("seed", [0, 1])
def test_hierarchy_results_are_horizontal_cuts_and_km_anonymous(seed):
    data = random_data(seed + 20, 200, 16, 5)
    tree = Hierarchy.from_rows(_tree_rows(16))
    cut = HierarchyCut(tree, data.vocab)
    res = kmanonymize(data, cut, KmAnonParams(k=6, m=3, sigma=1.0, trials=2, seed=seed))
    for lv in res.levels:
        assert is_km_anonymous(data, lv.labels, 6, lv.level)
        for p, name in lv.names.items():
            node = tree.find(name)
            under = {tree.labels[v] for v in tree.leaves_under(node)}
            members = {data.vocab[i] for i in np.flatnonzero(lv.labels == p)}
            assert members == under, "every partition is exactly the leaves of one cut node"


def test_point_centroid_error_matches_direct_computation():
    data = random_data(30, 150, 12, 5)
    xy = np.random.default_rng(0).uniform(0, 1000, (12, 2))
    res = kmanonymize(data, FreeMerge(), KmAnonParams(k=5, m=2, sigma=1.0), error=PointCentroidError(xy))
    lab = res.final.labels
    freq = data.item_frequencies
    total = 0.0
    for p in np.unique(lab):
        members = np.flatnonzero(lab == p)
        c = xy[members].mean(axis=0)
        total += (freq[members] * np.hypot(*(xy[members] - c).T)).sum()
    assert res.final.error == pytest.approx(total / freq.sum())


class _CancelWhileEnumerating(RecordingProgress):
    """Cancels as soon as exact enumeration reports its first chunk of records."""

    def cancelled(self) -> bool:
        return any("enumerating itemsets of" in s for s in self.statuses)


def test_cancel_is_honoured_between_record_chunks_of_exact_enumeration():
    data = random_data(12, 20_000, 40, 6)
    progress = _CancelWhileEnumerating()
    res = kmanonymize(data, FreeMerge(), KmAnonParams(k=5, m=2, sigma=1.0, trials=1, seed=1, threads=1), progress,
                      sampler_factory=brute_force_factory)
    chunks = [s for s in progress.statuses if "enumerating itemsets of" in s]
    assert len(chunks) == 1 and not chunks[0].endswith("20,000/20,000 records")
    assert not res.complete
    labels = res.final.labels
    assert np.array_equal(labels, np.arange(data.n_items))  # nothing merged before the cancel


def test_partial_results_carry_each_trials_finished_levels():
    data = random_data(13, 300, 30, 6)
    progress = RecordingProgress()
    res = kmanonymize(data, FreeMerge(), KmAnonParams(k=4, m=3, sigma=1.0, trials=2, seed=2, threads=1), progress,
                      sampler_factory=brute_force_factory)
    with_trials = [p for p in progress.partials if p.trials]
    assert with_trials, "some partial result lists the trials"
    for partial in with_trials:
        for trial in partial.trials:
            final_levels = res.trials[trial.trial].levels
            assert [lv.partitions for lv in trial.levels] == [lv.partitions for lv in final_levels[:len(trial.levels)]]
