"""The independent verifier: brute-force possible worlds and planted faults."""
import dataclasses

import numpy as np
import pytest

from anonstudio.data.io.jsonfile import write_json
from anonstudio.data.io.record_labels import RecordLabels
from anonstudio.data.transactions import TransactionData
from anonstudio.methods.nonreciprocal.algorithm import run_nonreciprocal
from anonstudio.methods.nonreciprocal.export import write_graph, write_published
from anonstudio.methods.nonreciprocal.params import NonreciprocalParams
from anonstudio.verifiers.nonreciprocal import (
    read_release,
    release_from_result,
    verify_release,
    verify_result,
)
from tests.nonreciprocal.helpers import labels_file
from tests.reference import nonreciprocal_reference as ref


def random_data(seed, n, b, density=0.3):
    rng = np.random.default_rng(seed)
    return TransactionData.from_id_lists([np.flatnonzero(rng.random(b) < density) for _ in range(n)], n_items=b)


@pytest.fixture(scope="module")
def l_run(tmp_path_factory):
    data = random_data(7, 90, 12)
    labels = RecordLabels(np.arange(90) % 9, tuple(f"s{i}" for i in range(9)))
    path = labels_file(tmp_path_factory.mktemp("labels"), labels)
    res = run_nonreciprocal(data, NonreciprocalParams(l=3, labels=path, seed=4, seg_min=10, seg_max=15))
    return data, res


@pytest.mark.parametrize("seed", range(4))
def test_world_counts_equal_brute_force(seed):
    data = random_data(seed, 150 + 40 * seed, 9 + seed, density=[0.5, 0.3, 0.15, 0.05][seed])
    res = run_nonreciprocal(data, NonreciprocalParams(k=2 + seed, seed=seed, seg_min=20, seg_max=30))
    recs = ref.records_of(data)
    pub = res.published
    published = [(frozenset(pub.base(j).tolist()), frozenset(pub.distance(j).tolist()), int(pub.threshold[j]))
                 for j in range(data.n_records)]
    expect = [len(m) for m in ref.world_matches(recs, published)]
    v = verify_result(data, res, threads=2)
    hist = {}
    for c in expect:
        hist[c] = hist.get(c, 0) + 1
    assert v.world_histogram == hist and v.min_worlds == min(expect) >= res.m
    assert v.passed, v.lines()


@pytest.mark.parametrize("threads", [1, 3])
def test_world_counts_are_the_same_under_any_thread_budget(threads, monkeypatch):
    """Slot ranges handed to whichever of the budget's threads is free add up to the brute-force count per record."""
    from anonstudio import parallel
    from anonstudio.verifiers import nonreciprocal as verifier

    monkeypatch.setattr(parallel.budget, "_setting", threads)
    data = random_data(11, 700, 10, density=0.3)
    res = run_nonreciprocal(data, NonreciprocalParams(k=3, seed=2, seg_min=20, seg_max=30))
    pub = res.published
    published = [(frozenset(pub.base(j).tolist()), frozenset(pub.distance(j).tolist()), int(pub.threshold[j]))
                 for j in range(data.n_records)]
    expect = [len(m) for m in ref.world_matches(ref.records_of(data), published)]
    sizes = []
    real_pool = parallel.budget.pool
    monkeypatch.setattr(verifier.budget, "pool", lambda wanted, name="": sizes.append(wanted) or real_pool(wanted))
    counts = verifier._count_worlds(data, release_from_result(res), verifier.NullProgress(), None)
    assert counts.tolist() == expect and sizes == [threads]


def test_empty_records_are_counted():
    data = TransactionData.from_id_lists([[], [0], [], [0, 1], [1], []], n_items=2)
    res = run_nonreciprocal(data, NonreciprocalParams(k=2))
    v = verify_result(data, res)
    recs = ref.records_of(data)
    pub = res.published
    published = [(frozenset(pub.base(j).tolist()), frozenset(pub.distance(j).tolist()), int(pub.threshold[j]))
                 for j in range(6)]
    assert sorted(v.world_histogram.items()) == sorted(
        {c: [len(m) for m in ref.world_matches(recs, published)].count(c)
         for c in {len(m) for m in ref.world_matches(recs, published)}}.items())
    assert v.passed and res.empty_records == 3


def _with(rel, **changes):
    return dataclasses.replace(rel, **changes)


def test_planted_faults_are_caught(l_run):
    data, res = l_run
    rel = release_from_result(res)
    assert verify_release(data, rel).passed

    # a flipped base bit outside the distance bitmap: preimages fall out of the slot's worlds
    def distance(j):
        return set(rel.dist_items[rel.dist_indptr[j]:rel.dist_indptr[j + 1]].tolist())

    j = next(j for j in range(rel.n_slots) if rel.base_indptr[j + 1] > rel.base_indptr[j]
             and rel.base_items[rel.base_indptr[j]] not in distance(j))
    base_items = rel.base_items.copy()
    lo = rel.base_indptr[j]
    removed = np.concatenate([base_items[:lo], base_items[lo + 1:]])
    base_indptr = rel.base_indptr.copy()
    base_indptr[j + 1:] -= 1
    v = verify_release(data, _with(rel, base_items=removed, base_indptr=base_indptr))
    assert not v.passed and v.non_matching_edges > 0 and v.bad_votes > 0

    # a threshold one too low
    thr = rel.threshold.copy()
    j = int(np.argmax(thr))
    thr[j] -= 1
    v = verify_release(data, _with(rel, threshold=thr))
    assert not v.passed and v.low_thresholds == 1 and v.non_matching_edges >= 1

    # a threshold one too high is not tight
    thr = rel.threshold.copy()
    thr[0] += 1
    v = verify_release(data, _with(rel, threshold=thr))
    assert not v.passed and v.loose_thresholds == 1

    # a broken matching: two edges of one record swap their assignments
    asg = rel.edge_assignment.copy()
    asg[0], asg[1] = asg[1], asg[0]
    v = verify_release(data, _with(rel, edge_assignment=asg))
    assert not v.passed and v.matchings is False

    # an edge moved to another slot: not regular
    slots = rel.edge_slot.copy()
    slots[0] = next(s for s in range(rel.n_slots) if s not in set(slots[:rel.m].tolist()))
    v = verify_release(data, _with(rel, edge_slot=slots))
    assert not v.passed and v.regular is False

    # a repeated label: two slots seen by one original exchange labels with a slot outside
    labels = rel.slot_labels.copy()
    mine = rel.edge_slot[rel.edge_original == 0]
    labels[mine[1]] = labels[mine[0]]
    v = verify_release(data, _with(rel, slot_labels=labels))
    assert not v.passed and v.label_failures >= 1 and v.label_mismatches >= 1

    # a wrong error rate
    v = verify_release(data, _with(rel, reported_error_rate=rel.reported_error_rate + 0.01))
    assert not v.passed and any("reported" in line for line in v.lines())

    # a chosen assignment out of range
    v = verify_release(data, _with(rel, chosen=rel.m))
    assert not v.passed and v.chosen_ok is False


def test_release_read_back_from_files(l_run, tmp_path):
    data, res = l_run
    write_published(tmp_path / "PUBLISHED.csv", res)
    write_graph(tmp_path / "GRAPH.csv", res)
    write_json(tmp_path / "OUT.json", res.to_json(include_audit=True))
    names = [res.labels.names[c] for c in res.labels.codes]
    rel = read_release(data, tmp_path / "PUBLISHED.csv", tmp_path / "GRAPH.csv", tmp_path / "OUT.json",
                       record_labels=names)
    v = verify_release(data, rel)
    assert v.passed, v.lines()
    assert v.error_rate == pytest.approx(res.error_rate, abs=1e-12)
    assert v.label_failures == 0 and v.label_mismatches == 0
    # without the graph only the possible worlds can be checked
    v = verify_release(data, read_release(data, tmp_path / "PUBLISHED.csv"))
    assert v.regular is None and v.min_worlds >= 3
    # a tampered threshold in the file is caught
    text = (tmp_path / "PUBLISHED.csv").read_text().splitlines()
    fields = text[1].split(",")
    fields[3] = str(max(int(fields[3]) - 1, 0))
    if fields[3] != text[1].split(",")[3]:
        text[1] = ",".join(fields)
        (tmp_path / "BAD.csv").write_text("\n".join(text) + "\n")
        bad = read_release(data, tmp_path / "BAD.csv", tmp_path / "GRAPH.csv", tmp_path / "OUT.json")
        assert not verify_release(data, bad).passed


def test_a_release_of_other_data_is_refused_before_the_kernels_run():
    """A result checked against data with fewer items once crashed the process (the kernels wrote out of bounds)."""
    big = random_data(3, 120, 12)
    res = run_nonreciprocal(big, NonreciprocalParams(k=2, seed=1, seg_min=20, seg_max=30))
    small = random_data(4, 120, 5)
    v = verify_result(small, res)
    assert not v.passed and not v.complete
    assert any("item ids outside the data" in p for p in v.problems)
