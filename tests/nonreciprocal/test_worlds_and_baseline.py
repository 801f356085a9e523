"""What the workbench reads from a run: one person's possible worlds, the CAHD baseline, the Fig. 6 sweeps."""
import dataclasses
from pathlib import Path

import numpy as np
import pytest

from anonstudio.data.io import load_transactions
from anonstudio.data.io.record_labels import load_record_labels
from anonstudio.data.transactions import TransactionData
from anonstudio.methods.contract import run_and_verify
from anonstudio.methods.nonreciprocal.algorithm import nonreciprocal
from anonstudio.methods.nonreciprocal.cahd import cahd
from anonstudio.methods.nonreciprocal.params import NonreciprocalParams
from anonstudio.methods.nonreciprocal.publish import world_slots
from anonstudio.methods.nonreciprocal.spec import K_SWEEP, L_SWEEP, SPEC
from anonstudio.methods.sweep import make_grid, run_sweep
from tests.reference import nonreciprocal_reference as ref

DATA = Path(__file__).resolve().parents[1] / "data" / "nonreciprocal"


@pytest.fixture(scope="module")
def table1():
    return load_transactions(DATA / "table1.dat")


def test_world_slots_of_the_worked_example_are_wider_than_table_4(table1):
    run = nonreciprocal(table1, NonreciprocalParams(k=3))
    got = [(world_slots(run.published, table1.record(u)) + 1).tolist() for u in range(6)]
    assert got == [[1, 5, 6], [2, 3, 4], [1, 3, 5, 6], [1, 2, 3, 4], [1, 2, 3, 4, 5, 6], [2, 4, 6]]


@pytest.mark.parametrize("seed", range(6))
def test_world_slots_equal_brute_force_possible_worlds(seed):
    rng = np.random.default_rng(seed)
    n, b = int(rng.integers(8, 30)), int(rng.integers(3, 12))
    data = TransactionData.from_id_lists([np.flatnonzero(rng.random(b) < 0.35) for _ in range(n)], n_items=b)
    run = nonreciprocal(data, NonreciprocalParams(k=int(rng.integers(2, 5)), seed=seed, order="gray"))
    pub = run.published
    published = [(frozenset(pub.base(j).tolist()), frozenset(pub.distance(j).tolist()), int(pub.threshold[j]))
                 for j in range(n)]
    # people of the data and records nobody has (a stranger's guess) alike
    probes = ref.records_of(data) + [frozenset(np.flatnonzero(rng.random(b) < 0.5).tolist()) for _ in range(10)]
    for probe in probes:
        expected = [j for j, (base, dist, t) in enumerate(published) if ref.in_worlds(probe, base, dist, t)]
        assert world_slots(pub, sorted(probe)).tolist() == expected
    # every graph edge is a possible world (the graph is inside the relation)
    for u in range(n):
        assert set(run.graph[u].tolist()) <= set(world_slots(pub, data.record(u)).tolist())


def test_l_run_measures_the_cahd_baseline_on_its_own_order(table1):
    params = NonreciprocalParams(l=2, labels=DATA / "table1_labels.csv")
    run = nonreciprocal(table1, params)
    labels = load_record_labels(DATA / "table1_labels.csv", 6)
    direct = cahd(table1, labels, 2, run.order, params.seed)
    assert run.cahd is not None and run.cahd.error_rate == direct.error_rate
    summary = run.summary()
    assert summary["cahd_error_rate"] == direct.error_rate
    assert (summary["cahd_qe_type1"], summary["cahd_qe_type2"]) == (direct.query_error.type1,
                                                                     direct.query_error.type2)
    block = run.to_json()["cahd_baseline"]
    assert block["groups"] == direct.n_groups and block["error_rate"] == direct.error_rate
    assert "seconds" not in block and "cahd" in run.seconds  # times stay out of the same-bytes part
    off = nonreciprocal(table1, dataclasses.replace(params, cahd_baseline=False))
    assert off.cahd is None and off.to_json()["cahd_baseline"] is None and "cahd_error_rate" not in off.summary()
    assert off.error_rate == run.error_rate  # the baseline draws no random numbers of the run
    k_run = nonreciprocal(table1, NonreciprocalParams(k=3, labels=DATA / "table1_labels.csv"))
    assert k_run.cahd is None and "cahd_baseline" not in k_run.to_json()


def test_fig6_presets_make_valid_grids_for_their_mode(table1):
    k_base = NonreciprocalParams(k=3)
    cells = make_grid(k_base, K_SWEEP.axes)
    assert {(c.params.k, c.params.order) for c in cells} == {(k, o) for k in (2, 4, 8, 16)
                                                             for o in ("gray", "gray-tsp")}
    l_base = NonreciprocalParams(l=2, labels=DATA / "table1_labels.csv")
    assert len(make_grid(l_base, L_SWEEP.axes)) == 8
    assert SPEC.sweeps == (K_SWEEP, L_SWEEP)
    # a k sweep on the worked example: the cells above its 6 records fail with a reason, the others are checked
    result = run_sweep(SPEC, table1, [c for c in cells if c.params.k <= 4], axes=K_SWEEP.axes)
    series = result.series("k", "error_rate", "order")
    assert set(series) == {"gray", "gray-tsp"} and all(r.status == "done" for r in result.ordered())
    assert all(0 <= v <= 2 for _, ys, _, _ in series.values() for v in ys)


def test_the_check_sentence_is_short_when_it_passes_and_lists_failures(table1):
    data, params = SPEC.example()
    run = run_and_verify(SPEC, data, params)
    check = SPEC.describe(run).check
    assert check.startswith("Independent check passed (separate code): every person matches at least 3")
    assert "the error rate" in check and check.count(";") == 0
    run.verification.bad_votes = 2
    failed = SPEC.describe(run).check
    assert failed.startswith("Independent check FAILED") and "2 bases not the vote" in failed


def test_the_bundled_worked_example_is_table_1_and_publishes_table_3():
    from anonstudio.data.samples import get_sample, load_sample

    sample = get_sample("sports-example")
    data = load_sample("sports-example")
    assert data.vocab == ("1 Jogging", "2 Swimming", "3 Tennis", "4 Soccer")
    assert [sorted(int(i) + 1 for i in data.record(u)) for u in range(6)] == [
        [1, 2], [2, 3], [1, 2, 4], [2, 3, 4], [1, 2, 3], [1, 3, 4]]
    run = nonreciprocal(data, NonreciprocalParams(k=3, labels=sample.file("labels")))
    assert (run.order + 1).tolist() == [2, 4, 3, 1, 5, 6]
    assert (run.hamming_before, run.hamming_gray, run.hamming_after) == (14, 12, 10)
    table3 = {1: ("1101", "1011", 2), 2: ("1110", "1101", 2), 3: ("0111", "1011", 2),
              4: ("0111", "1101", 2), 5: ("1100", "0011", 1), 6: ("1110", "0111", 2)}
    pub = run.published

    def bits(items):
        return "".join("1" if i in set(items.tolist()) else "0" for i in range(4))

    assert {j + 1: (bits(pub.base(j)), bits(pub.distance(j)), int(pub.threshold[j])) for j in range(6)} == table3
    assert run.labels.names == ("Buddhist", "Christian", "Muslim")


def test_comparison_for_the_side_by_side_view(table1):
    from anonstudio.data.compare import check_comparison
    from anonstudio.methods.nonreciprocal.compare import FITS, LINK, NonreciprocalComparison, PublishedRows

    run = nonreciprocal(table1, NonreciprocalParams(k=3, labels=DATA / "table1_labels.csv"))
    comparison = NonreciprocalComparison(run, table1)
    check_comparison(comparison)
    assert comparison.row_groups() is None and comparison.highlight_keys(2) == (0, 1, 3)
    published = comparison.published
    # r'5 of Table 3: base 1100 (both certain), distance 0011, threshold 1
    assert published.columns == ("record", "base", "distance", "threshold", "label", "name")
    cells = published.cells(4)
    assert (cells[0], cells[3], cells[5]) == ("4", "1", "5")
    assert [(c.text, c.kind, c.key) for c in cells[1]] == [("1", "value", 0), ("2", "value", 1)]
    assert [c.text for c in cells[2]] == ["3", "4"]
    assert published.sort_order(published.columns.index("threshold")).tolist()[0] == 4  # the only t = 1
    assert published.sort_order(published.columns.index("distance")) is None
    assert "0, 2, 4 by the generalization graph" in comparison.describe(2) and "(5)" in comparison.describe(2)
    worlds = PublishedRows(run, np.array([5, 0]), np.array([False, True]))
    assert worlds.columns[1] == "how" and [worlds.cells(i)[1] for i in range(2)] == [FITS, LINK]
    assert worlds.sort_order(worlds.columns.index("how")).tolist() == [1, 0]
    assert worlds.search("#0").rows.tolist() == [1]
    with pytest.raises(ValueError, match="published nothing"):
        NonreciprocalComparison(dataclasses.replace(run, published=None), table1)
