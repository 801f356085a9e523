"""Mondrian, global recoding and Anatomy against the verifier and slow references."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from anonstudio.data.io import load_hierarchy
from anonstudio.jobs import RecordingProgress
from anonstudio.methods.group_anonymize.algorithm import anonymize
from anonstudio.methods.group_anonymize.params import GroupAnonymizeParams
from anonstudio.verifiers.group_anonymize import verify_group_release
from tests.group_anonymize.helpers import ADULT_QI, random_table
from tests.reference import group_anonymize_reference as ref

QI = ("age", "zip", "sex", "job")
CASES = [(seed, k, l) for seed in range(8) for k, l in [(2, None), (3, 2), (4, 3), (5, None)]]


def _run(table, scheme, k, l, **kw):
    return anonymize(table, GroupAnonymizeParams(scheme=scheme, k=k, l=l, qi=QI, sensitive="disease", seed=7), **kw)


def _ladders(frame):
    """Reference generalization ladders of the random tables' quasi-identifiers."""
    return {
        "age": ref.interval_ladder(frame["age"].tolist()),
        "zip": ref.interval_ladder(frame["zip"].tolist()),
        "sex": ref.flat_ladder(frame["sex"].tolist()),
        "job": ref.flat_ladder(frame["job"].tolist()),
    }


def _feasible(table, k, l):
    return table.n_rows >= k and (l is None or table.frame["disease"].nunique() >= l)


@pytest.mark.parametrize("seed,k,l", CASES)
def test_mondrian_random_tables(seed, k, l):
    table = random_table(seed)
    if not _feasible(table, k, l):
        with pytest.raises(ValueError):
            _run(table, "mondrian", k, l)
        return
    release = _run(table, "mondrian", k, l).release
    report = verify_group_release(table, release, k=k, l=l)
    assert report.ok, report.lines()
    assert ref.check_release(table.frame, release, k, l if l else 1) == (True, True, True)
    # Mondrian stops only when no median cut is allowable.
    assert not ref.mondrian_has_allowable_cut(table.frame, release, k, l)
    assert report.ncp == pytest.approx(ref.ncp(table.frame, release))


@pytest.mark.parametrize("seed,k,l", CASES[::2])
def test_global_recoding_is_optimal_on_random_tables(seed, k, l):
    table = random_table(seed, n=40)
    result = _run(table, "global", k, l)
    release = result.release
    report = verify_group_release(table, release, k=k, l=l)
    assert report.ok, report.lines()
    assert ref.check_release(table.frame, release, k, l if l else 1) == (True, True, True)
    frame = table.frame
    ladders = _ladders(frame)
    best = ref.best_global_loss(frame, ["age", "zip", "sex", "job"], "disease", ladders, k, l)
    assert result.info["loss"] == pytest.approx(best)
    assert report.ncp == pytest.approx(best)
    # Global recoding: equal values are generalized the same way everywhere.
    for c in ["age", "zip", "sex", "job"]:
        seen = {}
        for r, g in enumerate(release.row_group.tolist()):
            key = frame[c].iloc[r]
            cell = tuple(release.cells[c][g])
            assert seen.setdefault(key, cell) == cell


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("l", [2, 3, 4])
def test_anatomy_random_tables(seed, l):
    table = random_table(seed)
    expected = ref.naive_anatomy_group_sizes(table.frame["disease"].tolist(), l)
    if expected is None:
        with pytest.raises(ValueError, match="at most n/"):
            _run(table, "anatomy", l, l)
        return
    release = _run(table, "anatomy", l, l).release
    assert release.scheme == "vertical"
    report = verify_group_release(table, release, k=l, l=l)
    assert report.ok, report.lines()
    sizes, leftover = expected
    got = sorted(release.group_sizes().tolist())
    assert len(got) == len(sizes) and sum(got) == sum(sizes) + leftover
    assert set(got) <= {l, l + 1}
    # Every group's sensitive values are distinct (Anatomy takes one row per bucket).
    sens = table.frame["disease"].to_numpy()
    for g in range(release.n_groups):
        values = sens[release.group_rows(g)]
        assert len(set(values)) == len(values)


def test_anatomy_is_reproducible_by_seed(adult2000):
    params = GroupAnonymizeParams(scheme="anatomy", k=4, l=4, qi=ADULT_QI, sensitive="occupation", seed=3)
    a = anonymize(adult2000, params).release
    b = anonymize(adult2000, params).release
    c = anonymize(adult2000, GroupAnonymizeParams(scheme="anatomy", k=4, l=4, qi=ADULT_QI, sensitive="occupation",
                                             seed=4)).release
    assert a.same_as(b)
    assert not a.same_as(c)


@pytest.mark.parametrize("scheme", ["mondrian", "global", "anatomy"])
@pytest.mark.parametrize("kl", [4, 6])
def test_adult_slice_passes_verifier(adult2000, scheme, kl):
    result = anonymize(adult2000, GroupAnonymizeParams(scheme=scheme, k=kl, l=kl, qi=ADULT_QI, sensitive="occupation"))
    report = verify_group_release(adult2000, result.release, k=kl, l=kl)
    assert result.complete and report.ok, report.lines()
    assert ref.check_release(adult2000.frame, result.release, kl, kl) == (True, True, True)


def test_global_recoding_uses_a_hierarchy(adult2000, ga_data):
    hierarchy = load_hierarchy(ga_data / "education_hierarchy.csv")
    params = GroupAnonymizeParams(scheme="global", k=4, l=4, qi=("age", "education", "sex"), sensitive="occupation")
    flat = anonymize(adult2000, params)
    tree = anonymize(adult2000, params, hierarchies={"education": hierarchy})
    assert verify_group_release(adult2000, tree.release, k=4, l=4).ok
    # The hierarchy offers intermediate levels, so the optimum cannot lose more information.
    assert tree.info["loss"] <= flat.info["loss"] + 1e-12
    level = tree.info["levels"]["education"]
    assert 0 <= level <= 3
    # Every published education cell is a node of the hierarchy (or a single value).
    nodes = {frozenset(hierarchy.labels[v] for v in hierarchy.leaves_under(x)) for x in range(hierarchy.n_nodes)}
    for g in range(tree.release.n_groups):
        assert frozenset(tree.release.cell_values("education", g)) in nodes


class _CancelAfter:
    """A Progress that asks to stop after its ``cancelled()`` was polled n times."""

    def __init__(self, polls: int):
        self.polls = polls
        self.inner = RecordingProgress()

    def set(self, fraction, status=""):
        self.inner.set(fraction, status)

    def partial(self, result):
        self.inner.partial(result)

    def cancelled(self):
        self.polls -= 1
        return self.polls < 0


@pytest.mark.parametrize("polls", [0, 5, 40])
def test_cancelled_horizontal_runs_return_valid_coarser_releases(adult2000, polls):
    for scheme in ["mondrian", "global"]:
        params = GroupAnonymizeParams(scheme=scheme, k=4, l=4, qi=ADULT_QI, sensitive="occupation")
        full = anonymize(adult2000, params)
        cut = anonymize(adult2000, params, _CancelAfter(polls))
        assert not cut.complete
        assert verify_group_release(adult2000, cut.release, k=4, l=4).ok
        assert cut.release.n_groups <= full.release.n_groups


def test_cancelled_anatomy_returns_no_release(adult2000):
    params = GroupAnonymizeParams(scheme="anatomy", k=4, l=4, qi=ADULT_QI, sensitive="occupation")
    result = anonymize(adult2000, params, _CancelAfter(10))
    assert result.release is None and not result.complete


def test_infeasible_requests_are_explained(adult2000, table1):
    with pytest.raises(ValueError, match="fewer than k"):
        anonymize(table1, GroupAnonymizeParams(scheme="mondrian", k=9, qi=("Nat", "ZIP"), sensitive="Dis"))
    with pytest.raises(ValueError, match="fewer than l"):
        anonymize(table1, GroupAnonymizeParams(scheme="global", k=2, l=6, qi=("Nat", "ZIP"), sensitive="Dis"))
    with pytest.raises(ValueError, match="unknown column"):
        anonymize(table1, GroupAnonymizeParams(scheme="mondrian", k=2, qi=("Nat", "Zip"), sensitive="Dis"))
    frame = table1.frame.copy()
    frame.loc[3, "Nat"] = None
    from anonstudio.data.table import Table
    with pytest.raises(ValueError, match="row 4"):
        anonymize(Table(frame), GroupAnonymizeParams(scheme="mondrian", k=2, qi=("Nat", "ZIP"), sensitive="Dis"))


def test_progress_is_reported(adult2000):
    progress = RecordingProgress()
    anonymize(adult2000, GroupAnonymizeParams(scheme="global", k=4, l=4, qi=ADULT_QI, sensitive="occupation"), progress)
    assert progress.fractions and progress.fractions[-1] == 1.0
    assert all(0.0 <= f <= 1.0 for f in progress.fractions)


def test_sensitive_counts_preserved_by_anatomy(adult2000):
    release = anonymize(adult2000, GroupAnonymizeParams(scheme="anatomy", k=4, l=4, qi=ADULT_QI,
                                                   sensitive="occupation")).release
    assert Counter(release.row_group.tolist()) and release.n_rows == adult2000.n_rows
    assert np.all(release.group_sizes() >= 4)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("share", [0.05, 0.2])
def test_global_recoding_with_suppression_is_optimal(seed, share):
    table = random_table(100 + seed, n=50)
    k, l = 3, 2
    result = anonymize(table, GroupAnonymizeParams(scheme="global", k=k, l=l, qi=QI, sensitive="disease",
                                              max_suppression=share))
    release = result.release
    report = verify_group_release(table, release, k=k, l=l)
    assert report.ok, report.lines()
    frame = table.frame
    ladders = _ladders(frame)
    best = ref.best_global_loss(frame, ["age", "zip", "sex", "job"], "disease", ladders, k, l,
                                max_suppressed=int(share * 50))
    assert result.info["loss"] == pytest.approx(best)
    assert report.ncp == pytest.approx(best)
    assert result.info["suppressed_rows"] <= share * 50
    no_suppression = anonymize(table, GroupAnonymizeParams(scheme="global", k=k, l=l, qi=QI, sensitive="disease"))
    assert result.info["loss"] <= no_suppression.info["loss"] + 1e-12


def test_suppression_publishes_one_all_star_group():
    table = random_table(103, n=50)
    result = anonymize(table, GroupAnonymizeParams(scheme="global", k=3, l=2, qi=QI, sensitive="disease",
                                              max_suppression=0.2))
    release = result.release
    assert result.info["suppressed_rows"] > 0
    star = [g for g in range(release.n_groups) if all(release.labels[c][g] == "*" for c in release.qi)
            and all(release.cells[c][g].all() for c in release.qi)]
    assert sum(release.group_sizes()[g] for g in star) >= result.info["suppressed_rows"]


def test_mondrian_cuts_categories_in_hierarchy_order(adult2000, ga_data):
    tree = load_hierarchy(ga_data / "adult_hierarchies" / "native-country.csv")
    params = GroupAnonymizeParams(scheme="mondrian", k=4, l=4, qi=("age", "native-country", "race"),
                                  sensitive="occupation")
    plain = anonymize(adult2000, params).release
    ordered = anonymize(adult2000, params, hierarchies={"native-country": tree}).release
    assert verify_group_release(adult2000, ordered, k=4, l=4).ok
    rank = {label: i for i, label in enumerate(tree.leaf_labels)}
    assert not ref.mondrian_has_allowable_cut(adult2000.frame, ordered, 4, 4, order={"native-country": rank})
    assert not ref.mondrian_has_allowable_cut(adult2000.frame, plain, 4, 4)
    assert not ordered.same_as(plain)


def test_verifier_sensitive_share_matches_brute_force(adult2000):
    release = anonymize(adult2000, GroupAnonymizeParams(scheme="mondrian", k=5, l=3, qi=ADULT_QI,
                                                   sensitive="occupation")).release
    report = verify_group_release(adult2000, release, k=5, l=3)
    sens = adult2000.frame["occupation"].tolist()
    worst = 0.0
    for g in range(release.n_groups):
        values = [sens[r] for r in release.group_rows(g)]
        worst = max(worst, Counter(values).most_common(1)[0][1] / len(values))
    assert report.max_sensitive_share == pytest.approx(worst)
    assert report.to_json()["ok"] is True


@pytest.mark.parametrize("scheme", ["mondrian", "global"])
def test_ncp_per_column_averages_to_the_references_ncp(adult2000, scheme):
    params = GroupAnonymizeParams(scheme=scheme, k=6, l=3, qi=("age", "education", "sex"), sensitive="occupation")
    release = anonymize(adult2000, params).release
    report = verify_group_release(adult2000, release, k=6, l=3)
    assert list(report.ncp_columns) == ["age", "education", "sex"]
    assert np.mean(list(report.ncp_columns.values())) == pytest.approx(ref.ncp(adult2000.frame, release), abs=1e-12)
    assert report.ncp == pytest.approx(ref.ncp(adult2000.frame, release), abs=1e-12)
