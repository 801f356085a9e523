"""Fast code against the slow references on small random RT-data."""

import numpy as np
import pytest

from anonstudio.methods.rt.algorithm import run_rt
from anonstudio.methods.rt.btd import BTDMatrix
from anonstudio.methods.rt.cluster import cluster, clusters_from_assignment
from anonstudio.methods.rt.export import anon_rows
from anonstudio.methods.rt.merge import MergeState, run_merges
from anonstudio.methods.rt.params import RTParams
from anonstudio.methods.rt.prepare import prepare
from anonstudio.methods.rt.transaction import Generalizer
from anonstudio.verifiers.rt import RTCheck, verify_published
from tests.reference.rt_reference import (
    random_rt,
    ref_cluster,
    ref_cluster_btd,
    ref_km_violations,
    ref_ncp,
    ref_rmerge_r,
    ref_ul,
)


def _setup(data_seed, tmp_path, n=40, empty=None, **kw):
    data, hierarchy, rows, columns = random_rt(data_seed, n, empty=empty)
    path = tmp_path / "zone.csv"
    path.write_text("\n".join(";".join(r) for r in rows) + "\n", encoding="utf-8")
    base = dict(qi=("age", "zone", "sex"), hierarchies=(("zone", path),), k=3, m=2, item_fanout=2, delta=0.6)
    base.update(kw)
    params = RTParams(**base)
    return data, params, columns, path


def _partition(assignment):
    groups = {}
    for r, c in enumerate(np.asarray(assignment).tolist()):
        groups.setdefault(c, []).append(r)
    return sorted(groups.values())


@pytest.mark.parametrize("seed", range(6))
def test_cluster_ncps_match_the_reference(seed, tmp_path):
    data, params, columns, _ = _setup(seed, tmp_path)
    problem = prepare(data, params)
    rng = np.random.default_rng(seed)
    assignment = rng.integers(0, 5, problem.n)
    clustering = clusters_from_assignment(problem, assignment)
    for c in range(clustering.n_clusters):
        rows = np.flatnonzero(assignment == c).tolist()
        if rows:
            assert clustering.ncp[c] == pytest.approx(ref_ncp(columns, rows), abs=1e-12)


@pytest.mark.parametrize("seed, k", [(0, 3), (1, 4), (2, 5), (3, 3), (4, 7)])
def test_cluster_matches_the_reference(seed, k, tmp_path):
    data, params, columns, _ = _setup(seed, tmp_path, n=37)
    problem = prepare(data, params)
    fast = cluster(problem, k, seed)
    assert _partition(fast.assignment) == sorted(ref_cluster(columns, problem.n, k, seed))
    assert np.bincount(fast.assignment).min() >= k


@pytest.mark.parametrize("seed, delta", [(0, 0.4), (1, 0.5), (2, 0.6), (3, 0.7), (5, 0.9)])
def test_rmerge_r_matches_the_reference(seed, delta, tmp_path):
    data, params, columns, _ = _setup(seed, tmp_path, n=45, empty=False)
    problem = prepare(data, params)
    start = cluster(problem, 3, seed)
    T = Generalizer(problem, 3, 2)
    state = MergeState(problem, start, [T(np.flatnonzero(start.assignment == c)) for c in range(start.n_clusters)],
                       T)
    assert state.fixable.all()  # no empty records: every cluster of k can be generalized
    run_merges(state, bound="rum", merge="r", order="btd", delta=delta)
    fast = sorted(sorted(state.members[c].tolist()) for c in state.ids())
    initial = [np.flatnonzero(start.assignment == c).tolist() for c in range(start.n_clusters)]
    assert fast == ref_rmerge_r(columns, initial, problem.n, delta)


def _published(result):
    header, rows = anon_rows(result)
    groups = [tuple(r[1:-1]) for r in rows]
    sensitive = {result.problem.transactions.vocab[i] for i in np.flatnonzero(result.problem.sensitive)}
    items = [[t for t in r[-1].split(";") if t and t not in sensitive] for r in rows]
    return header, rows, groups, items


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("bound, merge", [("rum", "r"), ("rum", "t"), ("rum", "rt"), ("tum", "r"), ("tum", "t"),
                                          ("tum", "rt")])
def test_every_combination_is_k_km_anonymous_by_brute_force(seed, bound, merge, tmp_path):
    data, params, _, path = _setup(seed, tmp_path, bound=bound, merge=merge, delta=0.75 if bound == "rum" else 0.9,
                                   seed=seed)
    result = run_rt(data, params)
    assert result.feasible  # δ is loose enough on this data for every combination
    header, rows, groups, items = _published(result)
    assert ref_km_violations(groups, items, params.k, params.m) == set()
    check = RTCheck(qi=params.qi, items_column="items", k=params.k, m=params.m, hierarchies={"zone": path},
                    item_hierarchy=result.problem.item_hierarchy, claimed_rum=result.rum, claimed_tum=result.tum)
    v = verify_published(data, header, rows, check)
    assert v.passed, v.lines() + v.examples
    assert (result.rum <= params.delta + 1e-12) if bound == "rum" else (result.tum <= params.delta + 1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_set_based_t_is_k_km_anonymous_by_brute_force(seed, tmp_path):
    data, params, _, _ = _setup(seed, tmp_path, item_fanout=0, m=3, k=2, seed=seed)
    result = run_rt(data, params)
    _, _, groups, items = _published(result)
    assert ref_km_violations(groups, items, 2, 3) == set()


@pytest.mark.parametrize("seed", range(4))
def test_the_verifier_agrees_with_brute_force_on_arbitrary_tables(seed, tmp_path):
    data, params, _, path = _setup(seed, tmp_path)
    result = run_rt(data, params)
    header, rows, _, _ = _published(result)
    rng = np.random.default_rng(seed)
    # Break some rows' items (generalized items become plain items), then compare the two checkers.
    broken = [list(r) for r in rows]
    vocab = data.transactions.vocab
    for r in rng.choice(len(broken), size=8, replace=False).tolist():
        broken[r][-1] = ";".join(vocab[i] for i in data.transactions.record(r))
    groups = [tuple(r[1:-1]) for r in broken]
    items = [[t for t in r[-1].split(";") if t] for r in broken]
    check = RTCheck(qi=params.qi, items_column="items", k=params.k, m=params.m, hierarchies={"zone": path},
                    item_hierarchy=result.problem.item_hierarchy)
    v = verify_published(data, header, broken, check)
    expected = ref_km_violations(groups, items, params.k, params.m)
    assert v.km_violations == len(expected)


@pytest.mark.parametrize("seed", range(4))
def test_btd_of_merged_clusters_matches_the_reference(seed, tmp_path):
    # Odd seeds have people without items; sensitive items are left out of every distance.
    data, params, _, _ = _setup(seed, tmp_path, n=30, sensitive_items=None)
    problem = prepare(data, params)
    clustering = cluster(problem, 3, seed)
    members = [np.flatnonzero(clustering.assignment == c) for c in range(clustering.n_clusters)]
    records = [set(data.transactions.record_labels(u)) for u in range(problem.n)]
    btd = BTDMatrix(problem, members)
    alive = list(range(len(members)))
    for _ in range(3):  # BTD of every union, then again after merges fold rows and columns together
        for seed_cluster in alive:
            cands = np.asarray([c for c in alive if c != seed_cluster], dtype=np.int64)
            expected = [ref_cluster_btd([records[u] for u in (*members[seed_cluster], *members[c])]) for c in cands]
            assert btd.union(seed_cluster, cands) == pytest.approx(expected)
        keep, gone = alive[0], alive[-1]
        btd.merge(keep, gone)
        members[keep] = np.sort(np.concatenate([members[keep], members[gone]]))
        alive.remove(gone)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("fanout", [0, 2])
def test_tum_is_the_mean_exact_ul_of_the_published_items(seed, fanout, tmp_path):
    data, params, _, _ = _setup(seed, tmp_path, n=40, item_fanout=fanout, delta=0.9)
    result = run_rt(data, params)
    total = 0
    for c, rows in enumerate(result.cluster_rows()):
        t = result.tres[c]
        head_of = dict(zip(t.items.tolist(), t.head.tolist()))
        size_of = dict(zip(t.head.tolist(), t.size.tolist()))
        for u in rows.tolist():
            heads = {head_of[i] for i in data.transactions.record(u).tolist() if i in head_of}
            total += ref_ul([int(round(size_of[h])) for h in heads])
    assert result.tum == pytest.approx(float(total / result.problem.n), abs=1e-12)
