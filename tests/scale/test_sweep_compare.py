"""``anonstudio-cli sweep`` over several methods, every cell measured by the independent evaluator; the sweep
items of the hostile-input round (the main parameter swept, grid values counted in the base check, empty
values, absurd grids refused before any work)."""
from __future__ import annotations

import csv
import json
import math
import time

import pytest

from anonstudio import parallel
from anonstudio.cli import main
from anonstudio.methods.contract import get_method
from anonstudio.methods.sweep import MAX_CELLS, Axis, make_grid, parse_axis
from anonstudio.params import ParameterError

SPORTS = "sports-example"
#: Three paradigms on the six-person sample: generalization, suppression, nonreciprocal recoding (ρ's sensitive
#: fraction draws one of the sample's four items; the default draws none, which ρ refuses).
THREE = ["--method", "kmanon", "--grid", "k=2,3", "--set", "sigma=1",
         "--method", "rho", "--grid", "rho=0.3,0.5", "--set", "m=2", "--set", "sensitive_fraction=0.25",
         "--method", "nonreciprocal", "--grid", "k=2,3"]


def _rows(path):
    return list(csv.DictReader(open(path, encoding="utf-8")))


def test_several_methods_each_with_its_grid_get_the_evaluators_columns(tmp_path, capsys):
    out, doc_path = tmp_path / "compare.csv", tmp_path / "compare.json"
    assert main(["sweep", SPORTS, *THREE, "--eval-m", "2", "--out", str(out), "--json", str(doc_path),
                 "--quiet"]) == 0
    rows = _rows(out)
    assert [(r["method"], r["settings"]) for r in rows] == [
        ("kmanon", "k = 2"), ("kmanon", "k = 3"), ("rho", "rho = 0.3"), ("rho", "rho = 0.5"),
        ("nonreciprocal", "k = 2"), ("nonreciprocal", "k = 3")]
    assert list(rows[0])[:2] == ["method", "settings"]
    for row in rows:
        assert row["status"] == "done" and row["check"] == "Independent check passed"
        for key in ("prosecutor_risk", "share_at_risk", "count_query_error", "frequency_distortion"):
            assert 0 <= float(row[key]) <= 1, (row["settings"], key)
        assert row["risk_counted"] == "1.0"  # six people: every known set counted
    # Only ρ's releases come with sensitive items: attribute disclosure is measured there alone.
    assert all(r["attribute_disclosure"] == "" for r in rows if r["method"] != "rho")
    assert all(r["attribute_disclosure"] != "" for r in rows if r["method"] == "rho")
    # More anonymity, less risk: k = 3 leaves nobody with fewer than 3 candidates at m = 2.
    by = {(r["method"], r["settings"]): r for r in rows}
    assert float(by[("kmanon", "k = 3")]["prosecutor_risk"]) < float(by[("kmanon", "k = 2")]["prosecutor_risk"])
    doc = json.loads(doc_path.read_text())
    assert doc["methods"] == ["kmanon", "rho", "nonreciprocal"] and doc["complete"] is True
    assert doc["evaluation"]["m"] == 2 and doc["evaluation"]["k"] == 5 and doc["cells_done"] == 6
    assert [s["method"] for s in doc["sweeps"]] == doc["methods"] and doc["input"]["name"] == SPORTS
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:2] == ["method", "settings"] and "prosecutor_risk" in table[0]
    assert len(table) == 7


def test_a_cells_columns_are_the_evaluator_run_on_that_release_alone(tmp_path, capsys):
    """The k = 3 cell's columns equal ``evaluate`` on the release ``kmanon --k 3`` writes by itself."""
    out = tmp_path / "sweep.csv"
    assert main(["sweep", "kmanon", SPORTS, "--grid", "k=3", "--set", "sigma=1", "--eval-m", "2", "--out", str(out),
                 "--quiet"]) == 0
    row = _rows(out)[0]
    release, mapping, audit = tmp_path / "r.sets.csv", tmp_path / "map.csv", tmp_path / "audit.json"
    assert main(["kmanon", SPORTS, "--k", "3", "--sigma", "1", "--out", str(release), "--map-out", str(mapping),
                 "--quiet"]) == 0
    assert main(["evaluate", SPORTS, "--release", str(release), "--map", str(mapping), "--m", "2", "--k", "5",
                 "--json", str(audit), "--quiet"]) == 0
    capsys.readouterr()
    doc = json.loads(audit.read_text())
    level = doc["levels"][1]
    assert level["m"] == 2
    assert float(row["prosecutor_risk"]) == level["prosecutor_risk"]["value"]
    assert float(row["share_at_risk"]) == level["share_at_risk"]["value"]
    assert float(row["count_query_error"]) == doc["count_query_error"]["value"]
    assert float(row["frequency_distortion"]) == doc["frequency_distortion"]["value"]


def test_same_seed_same_bytes_at_any_thread_count_and_with_jobs(tmp_path, monkeypatch, capsys):
    args = ["sweep", SPORTS, *THREE, "--eval-seed", "7", "--quiet"]
    monkeypatch.setenv(parallel.ENV_THREADS, "1")
    assert main(args + ["--out", str(tmp_path / "one.csv")]) == 0
    monkeypatch.setenv(parallel.ENV_THREADS, "2")
    assert main(args + ["--out", str(tmp_path / "two.csv")]) == 0
    assert main(args + ["--out", str(tmp_path / "jobs.csv"), "--jobs", "2"]) == 0
    one = (tmp_path / "one.csv").read_bytes()
    assert one == (tmp_path / "two.csv").read_bytes() == (tmp_path / "jobs.csv").read_bytes()


def test_the_main_parameter_of_rho_can_be_swept(tmp_path, capsys):
    out = tmp_path / "rho.csv"
    assert main(["sweep", "rho", SPORTS, "--grid", "rho=0.3,0.5", "--set", "m=2", "--set", "sensitive_fraction=0.25",
                 "--out", str(out),
                 "--no-evaluate", "--quiet"]) == 0
    assert [r["rho"] for r in _rows(out)] == ["0.3", "0.5"]


def test_the_grid_value_counts_when_the_base_parameters_are_checked(tmp_path, capsys):
    # nonreciprocal needs exactly one of k and ℓ: the grid gives k to every cell.
    out = tmp_path / "nr.csv"
    assert main(["sweep", "nonreciprocal", SPORTS, "--grid", "k=3,5", "--out", str(out), "--quiet"]) == 0
    rows = _rows(out)
    assert [r["k"] for r in rows] == ["3", "5"] and {r["status"] for r in rows} == {"done"}
    assert all(math.isfinite(float(r["prosecutor_risk"])) for r in rows)


@pytest.mark.parametrize("args, message", [
    (["kmanon", SPORTS, "--grid", "k=5,,10"], "--grid k=5,,10: an empty value between commas"),
    (["kmanon", SPORTS, "--grid", "k=5,"], "--grid k=5,: an empty value between commas"),
    (["kmanon", SPORTS, "--grid", "sigma=0.9:0.99:1000000"],
     "--grid sigma=0.9:0.99:1000000: 1,000,000 values, more than the limit of 10,000 cells"),
    (["kmanon", SPORTS, "--grid", "sigma=0.9:0.99"], "write start:stop:count"),
    (["kmanon", SPORTS, "--grid", "k=1-1000000000"], "1,000,000,000 values, more than the limit"),
    (["kmanon", SPORTS, "--grid", "k=5", "--seeds", "1000000"],
     "the sweep has 1,000,000 cells (1 value of k × 1,000,000 seeds), more than the limit of 10,000"),
    (["kmanon", SPORTS, "--grid", "k=2,3", "--seeds", "3", "--max-cells", "5"],
     "the sweep has 6 cells (2 values of k × 3 seeds), more than the limit of 5"),
    ([SPORTS, "--method", "kmanon", "--grid", "k=2,3", "--method", "rho", "--grid", "rho=0.3,0.5,0.7",
      "--max-cells", "4"], "the sweep has 5 cells (all methods together), more than the limit of 4"),
    ([SPORTS, "--grid", "k=2", "--method", "kmanon"], "--grid k=2: name the method first"),
    ([SPORTS, "--method", "kmanon"], "kmanon: give at least one --grid"),
    ([SPORTS, "--method", "kmanon", "--grid", "k=2", "--method", "group-anonymize", "--grid", "k=2"],
     "group-anonymize does not take"),
    (["uniqueness", SPORTS, "--grid", "max_m=2"], "uniqueness makes no release the evaluator can measure"),
    (["kmanon", SPORTS, "--grid", "k=2", "--eval-m", "0"], "--eval-m must be in 1..16"),
])
def test_bad_sweeps_exit_2_with_one_line_before_any_work(tmp_path, capsys, args, message):
    out = tmp_path / "sweep.csv"
    t0 = time.perf_counter()
    assert main(["sweep", *args, "--out", str(out), "--quiet"]) == 2
    assert time.perf_counter() - t0 < 10
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert not out.exists()


def test_max_cells_raises_the_limit_explicitly(tmp_path, capsys):
    out = tmp_path / "sweep.csv"
    assert main(["sweep", "kmanon", SPORTS, "--grid", "k=2,3", "--seeds", "3", "--max-cells", "6", "--set",
                 "sigma=1", "--no-evaluate", "--out", str(out), "--quiet"]) == 0
    assert len(_rows(out)) == 6


def test_absurd_grids_are_refused_before_any_cell_is_made():
    params = get_method("kmanon").params
    t0 = time.perf_counter()
    with pytest.raises(ParameterError, match="1,000,000,000 cells"):
        make_grid(params(), [Axis("k", (5, 10))], seeds=500_000_000)
    with pytest.raises(ParameterError, match="more than the limit"):
        parse_axis(params, "sigma", "0.1:0.9:" + str(10**12))
    assert time.perf_counter() - t0 < 1
    assert len(make_grid(params(), [parse_axis(params, "k", "5-6")], seeds=3, max_cells=6)) == 6
    assert MAX_CELLS == 10_000


def test_a_project_asking_a_billion_seeds_is_refused_before_any_step(tmp_path, capsys):
    from anonstudio.data.datasets import ReadOptions, load_with_options
    from anonstudio.studio.project import Project, SweepEntry

    data_file = tmp_path / "baskets.dat"
    data_file.write_text("".join(f"{i % 5} {i % 7 + 5}\n" for i in range(40)), encoding="utf-8")
    project = Project()
    key = project.add_dataset(load_with_options(data_file, ReadOptions(format="fimi")))
    project.set_step("kmanon", get_method("kmanon").params(k=3, m=2, verify_samples=100), key)
    project.sweeps.append(SweepEntry("kmanon", key, (Axis("k", (2, 3)),), get_method("kmanon").params(m=1),
                                     10**9))
    path = project.save(tmp_path / "study.toml")
    t0 = time.perf_counter()
    assert main(["run", str(path), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    assert time.perf_counter() - t0 < 10
    err = capsys.readouterr().err
    assert "sweep 1 (kmanon) seeds: 1,000,000,000 seeds is more than the limit" in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()


def test_a_cell_cancelled_while_it_is_measured_is_not_a_finished_cell():
    """A cancel that lands during a cell's evaluation (the measure step returns nothing) leaves the cell out, as
    a cancelled run is; one measured to the end is kept with its measures."""
    from anonstudio.jobs import RecordingProgress
    from anonstudio.methods.sweep import run_cell

    spec = get_method("kmanon")
    data, params = spec.example()
    cell = make_grid(params, (Axis("k", (params.k,)),))[0]

    def cancelled_while_measuring(_spec, _data, _cell, _run, progress):
        stop.cancel()
        return {}

    stop = RecordingProgress()
    assert run_cell(spec, data, cell, stop, after=cancelled_while_measuring).status == "cancelled"
    measured = run_cell(spec, data, cell, RecordingProgress(), after=lambda *_a: {"extra": 1.0})
    assert measured.status != "cancelled" and measured.summary["extra"] == 1.0
