"""Whole runs: seeds, cancel, empty item sets, ℓ-diversity, query accuracy, parameters and outputs."""
import json
from pathlib import Path

import numpy as np
import pytest

from anonstudio.data.io.jsonfile import write_json
from anonstudio.data.io.rt import load_rt_csv
from anonstudio.jobs import RecordingProgress
from anonstudio.methods.contract import get_method, run_and_verify
from anonstudio.methods.rt.algorithm import run_rt
from anonstudio.methods.rt.are import generate_workloads
from anonstudio.methods.rt.export import anon_rows, write_anon_csv, write_item_hierarchy
from anonstudio.methods.rt.params import RTParams
from anonstudio.methods.rt.verify import verify_result
from anonstudio.params import ParameterError
from anonstudio.verifiers.rt import RTCheck, check_anon_csv, verify_published
from tests.reference.rt_reference import random_rt
from tests.shared_data import SHARED_DATA

DATA = Path(__file__).resolve().parents[1] / "data" / "rt"


def _random(tmp_path, data_seed=0, n=80, empty=None, sensitive=None, **kw):
    data, _, rows, _ = random_rt(data_seed, n, n_items=10, empty=empty)
    zone = tmp_path / "zone.csv"
    zone.write_text("\n".join(";".join(r) for r in rows) + "\n", encoding="utf-8")
    base = dict(qi=("age", "zone", "sex"), hierarchies=(("zone", zone),), k=4, m=2, item_fanout=3, delta=0.7)
    if sensitive:
        path = tmp_path / "sensitive.txt"
        path.write_text("\n".join(sensitive) + "\n", encoding="utf-8")
        base["sensitive_items"] = path
    base.update(kw)
    return data, RTParams(**base), zone


def _check(result, zone, **kw):
    p = result.params
    sens = [result.problem.transactions.vocab[i] for i in np.flatnonzero(result.problem.sensitive)]
    base = dict(qi=p.qi, items_column=p.items_column, k=p.k, m=p.m, l=p.l, hierarchies={"zone": zone},
                item_hierarchy=result.problem.item_hierarchy, sensitive=sens)
    base.update(kw)
    return RTCheck(**base)


def _verify(data, result, zone, **kw):
    header, rows = anon_rows(result)
    return verify_published(data, header, rows, _check(result, zone, claimed_rum=result.rum,
                                                       claimed_tum=result.tum, **kw))


def _json_without_times(path):
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    doc.pop("seconds")
    return doc


@pytest.mark.parametrize("merge", ["r", "t", "rt"])
def test_same_seed_same_bytes(tmp_path, merge):
    outputs = []
    for run in range(2):
        data, params, _ = _random(tmp_path, merge=merge, seed=7)
        result = run_rt(data, params)
        write_anon_csv(tmp_path / f"a{run}.csv", result)
        write_json(tmp_path / f"a{run}.json", result.to_json())
        outputs.append(((tmp_path / f"a{run}.csv").read_bytes(), _json_without_times(tmp_path / f"a{run}.json")))
    assert outputs[0] == outputs[1]
    data, params, _ = _random(tmp_path, merge=merge, seed=8)
    other = run_rt(data, params)
    assert not np.array_equal(other.assignment, result.assignment) or other.are != result.are


@pytest.mark.parametrize("cancel_after", [1, 3, 6, 12])
def test_cancel_returns_a_valid_partial_result(tmp_path, cancel_after):
    data, params, zone = _random(tmp_path, n=150, delta=0.9, merge="rt")
    progress = RecordingProgress(cancel_after_sets=cancel_after)
    result = run_rt(data, params, progress)
    assert result.complete is False and result.feasible is None
    assert np.bincount(result.assignment).min() >= params.k
    assert result.publishable
    write_anon_csv(tmp_path / "partial.csv", result)
    v = check_anon_csv(tmp_path / "partial.csv", data, _check(result, zone, claimed_rum=result.rum,
                                                               claimed_tum=result.tum))
    assert v.passed, v.lines() + v.examples
    write_json(tmp_path / "partial.json", result.to_json())
    assert json.loads((tmp_path / "partial.json").read_text())["complete"] is False


class _CancelAfterMerges(RecordingProgress):
    """Cancels once ``merges`` merges were reported (whatever the chunking of the earlier phases)."""

    def __init__(self, merges):
        super().__init__()
        self.merges = merges

    def cancelled(self):
        return sum(s.startswith("merging") for s in self.statuses) >= self.merges


def test_cancel_between_merges_keeps_the_merges_done(tmp_path):
    data, params, zone = _random(tmp_path, n=150, delta=0.9, merge="r")
    full = run_rt(data, params)
    assert full.merges > 3
    partial = run_rt(data, params, _CancelAfterMerges(3))
    assert partial.complete is False and partial.merges == 3 and len(partial.tum_trace) == 3
    assert partial.tum_trace == full.tum_trace[:3]
    assert partial.n_clusters == full.n_clusters + full.merges - 3
    assert _verify(data, partial, zone).passed


def test_records_without_non_sensitive_items_are_merged_until_valid(tmp_path):
    data, params, zone = _random(tmp_path, data_seed=1, empty=True, sensitive=["i0"], delta=0.9)
    assert (data.transactions.lengths == 0).any()
    result = run_rt(data, params)
    assert result.feasible and _verify(data, result, zone).passed


@pytest.mark.parametrize("merge", ["r", "t", "rt"])
@pytest.mark.parametrize("bound, delta", [("rum", 0.9), ("tum", 0.9)])
def test_l_diversity_with_a_sensitive_list(tmp_path, merge, bound, delta):
    data, params, zone = _random(tmp_path, n=120, sensitive=["i1", "i2"], l=2, merge=merge, bound=bound,
                                 delta=delta)
    result = run_rt(data, params)
    assert result.feasible, result.reason
    v = _verify(data, result, zone)
    assert v.passed and v.diversity_violations == 0, v.lines() + v.examples
    # Sensitive items are published as they are.
    header, rows = anon_rows(result)
    for u, row in enumerate(rows):
        own = set(data.transactions.record_labels(u)) & {"i1", "i2"}
        assert own <= set(row[-1].split(";"))


def test_queries_file_and_the_estimate(tmp_path):
    data = load_rt_csv(DATA / "example.csv", items_column="items")
    params = RTParams(qi=("age", "origin", "gender"), hierarchies=(("origin", DATA / "origin_hierarchy.csv"),
                                                                   ("gender", DATA / "gender_hierarchy.csv")),
                      sensitive_items=DATA / "sensitive.txt", k=2, m=2, item_fanout=0, delta=0.36,
                      queries=DATA / "queries.json")
    result = run_rt(data, params, initial=np.array([0, 0, 1, 1, 2, 2]))
    assert result.merges == 0  # Fig. 2a is published
    # age 19 & E: exact; France: 4 records x 1/4; {E, F}: 2 + 2/6 + 2/9 for 2; age 99: no such person.
    assert result.are_queries == {"mine": 3}
    assert result.are["mine"] == pytest.approx((0 + 0 + (1 / 3 + 2 / 9) / 2) / 3)


def test_generated_workloads_are_anchored_and_seeded(tmp_path):
    data, params, _ = _random(tmp_path, seed=3)
    a = generate_workloads(data, list(params.qi), 3, 50)
    b = generate_workloads(data, list(params.qi), 3, 50)
    assert a == b and set(a) == {"R2", "T2", "R1T2"}
    assert all(len(q.rel) == 2 and not q.items for q in a["R2"])
    assert all(len(q.items) == 2 and len(q.rel) == 1 for q in a["R1T2"])
    result = run_rt(data, params)
    assert result.are_queries == {"R2": 100, "T2": 100, "R1T2": 100}  # every anchored query has a match


def test_parameter_rules_are_checked_once_by_the_pipeline(tmp_path):
    data, params, _ = _random(tmp_path)
    from dataclasses import replace

    spec = get_method("rt")
    with pytest.raises(ParameterError, match="needs a sensitive-items file"):
        run_and_verify(spec, data, replace(params, l=2))
    with pytest.raises(ParameterError, match="no column 'nope' in the data"):
        run_and_verify(spec, data, replace(params, qi=("age", "zone", "nope")))
    with pytest.raises(ParameterError, match="not a demographic column"):
        run_and_verify(spec, data, replace(params, categorical=("height",)))
    with pytest.raises(ParameterError, match="k must be at least 2"):
        run_and_verify(spec, data, replace(params, k=1))
    with pytest.raises(ParameterError, match="larger than the 80 people"):
        run_and_verify(spec, data, replace(params, k=81))
    # The algorithm itself still refuses what it cannot do on the data it gets (a caller of run_rt directly).
    with pytest.raises(ParameterError, match="larger than the 80 records"):
        run_rt(data, replace(params, k=81))


def test_outputs_and_an_infeasible_run(tmp_path):
    data, params, zone = _random(tmp_path, delta=0.01)
    result = run_rt(data, params)
    assert result.feasible is False and "Cluster's Rum" in result.reason
    with pytest.raises(ValueError, match="infeasible"):
        write_anon_csv(tmp_path / "no.csv", result)
    assert not (tmp_path / "no.csv").exists()
    write_json(tmp_path / "out.json", result.to_json())
    doc = json.loads((tmp_path / "out.json").read_text())
    for key in ("k", "m", "delta", "bound", "merge", "order", "rum", "tum", "initial_rum", "initial_tum",
                "clusters", "max_cluster_size", "merges", "tum_trace", "are", "seconds", "feasible", "seed"):
        assert key in doc
    assert doc["feasible"] is False and doc["rum"] == pytest.approx(result.initial_rum) and doc["tum"] is None


def test_anon_csv_cells_and_the_built_hierarchy(tmp_path):
    data, params, zone = _random(tmp_path, categorical=("age",))
    result = run_rt(data, params)
    write_anon_csv(tmp_path / "ANON.csv", result)
    write_item_hierarchy(tmp_path / "items.csv", result)
    text = (tmp_path / "ANON.csv").read_text(encoding="utf-8").splitlines()
    assert text[0] == "cluster,age,zone,sex,items"
    cells = [line.split(",") for line in text[1:]]
    assert any(c[1].startswith("{") or c[1] == "*" for c in cells)  # age as a coded column: value sets
    v = check_anon_csv(tmp_path / "ANON.csv", data, _check(result, zone, categorical=("age",),
                                                           item_hierarchy=tmp_path / "items.csv"))
    assert v.passed, v.lines() + v.examples


def test_exact_ul_order_agrees_with_the_btd_order_on_validity(tmp_path):
    data, params, zone = _random(tmp_path, n=60, merge="t", order="ul")
    result = run_rt(data, params)
    assert result.feasible and _verify(data, result, zone).passed


@pytest.mark.slow
def test_informs_rmerge_rt_with_the_built_hierarchy():
    base = SHARED_DATA / "informs"
    if not base.exists():
        pytest.skip("INFORMS data not available")
    from anonstudio.data.io.rt import load_rt_long

    data = load_rt_long(base / "demographics05test.csv", base / "conditions05.csv", person="DUPERSID",
                        item="ICD9CODX")
    assert data.table.n_rows == 26_735 and data.transactions.n_items == 599
    params = RTParams(qi=("DOBMM", "DOBYY", "RACEX", "EDUCYEAR", "income"), items_column="ICD9CODX",
                      categorical=("RACEX",), k=25, m=2, delta=0.65, merge="rt")
    result = run_rt(data, params)
    assert result.feasible and result.rum <= 0.65
    header, rows = anon_rows(result)
    v = verify_published(data, header, rows, RTCheck(qi=params.qi, items_column="ICD9CODX", k=25, m=2,
                                                     categorical=("RACEX",),
                                                     item_hierarchy=result.problem.item_hierarchy,
                                                     claimed_rum=result.rum, claimed_tum=result.tum))
    assert v.passed, v.lines()


def test_verify_result_goes_into_the_json(tmp_path):
    data, params, _ = _random(tmp_path, sensitive=["i3"], l=2)
    result = run_rt(data, params)
    v = verify_result(data, result)
    assert v.passed and v.rum_matches and v.tum_matches and v.diversity_violations == 0
    write_json(tmp_path / "out.json", {**result.to_json(), "verification": v.to_json()})
    doc = json.loads((tmp_path / "out.json").read_text())
    assert doc["verification"]["passed"] is True and doc["verification"]["violations"] == 0
