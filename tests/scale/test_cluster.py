"""A real Dask LocalCluster of two worker processes: sweeps and σ-k^m trials give the numbers they give here."""
from __future__ import annotations

import csv
import json
import time

import pytest

distributed = pytest.importorskip("distributed")

from anonstudio import parallel  # noqa: E402
from anonstudio.cli import main  # noqa: E402
from anonstudio.jobs import RecordingProgress  # noqa: E402
from anonstudio.methods.contract import run_and_verify  # noqa: E402
from anonstudio.methods.kmanon.algorithm import kmanonymize  # noqa: E402
from anonstudio.methods.kmanon.constraints import FreeMerge  # noqa: E402
from anonstudio.methods.sweep import make_grid, parse_axis, run_sweep  # noqa: E402
from tests.scale.scale_helpers import KMANON, city, ctrl_c_after_cells, levels_key, quick, trials_key  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0")
    try:
        yield cluster
    finally:
        parallel.close_clients()
        cluster.close()


@pytest.fixture
def client(cluster):
    with parallel.executor_for(cluster.scheduler_address) as client:
        yield client


def test_the_cluster_has_two_worker_processes(cluster):
    assert parallel.describe_cluster(cluster.scheduler_address) == "2 workers, 2 threads"


def test_a_sweep_through_the_clusters_address_gives_identical_numbers(client):
    axes = [parse_axis(KMANON.params, "k", "5,20"), parse_axis(KMANON.params, "m", "1-2")]
    cells = make_grid(quick(), axes, seeds=2)
    here = run_sweep(KMANON, city(), cells, axes=axes)
    progress = RecordingProgress()
    there = run_sweep(KMANON, city(), cells, progress, axes=axes, executor=client)
    assert here.complete and there.complete and there.done == 8
    # Progress as cells come back: one partial table per cell, the fraction rising to 1.
    assert [p.done for p in progress.partials] == list(range(1, 9))
    assert progress.fractions == sorted(progress.fractions) and progress.fractions[-1] == 1.0
    assert progress.statuses[-1] == "sweep done"
    assert [(r.cell.index, r.status, r.summary) for r in there.ordered()] == \
        [(r.cell.index, r.status, r.summary) for r in here.ordered()]
    assert there.to_csv_text() == here.to_csv_text()


@pytest.mark.alone
def test_cancel_of_a_sweep_on_the_cluster_keeps_finished_cells_and_frees_the_workers(client):
    # Two quick cells, then two that take over a minute each unless the cancel reaches them on the workers.
    axes = [parse_axis(KMANON.params, "m", "2,4")]
    cells = make_grid(quick(sigma=0.999), axes, seeds=2)
    progress = RecordingProgress(cancel_after_partials=1)  # as soon as the first cell came back
    t0 = time.perf_counter()
    there = run_sweep(KMANON, city(), cells, progress, axes=axes, executor=client)
    assert time.perf_counter() - t0 < 15
    assert not there.complete and 1 <= there.done <= 2
    assert [r.cell.values["m"] for r in there.ordered()] == [2] * there.done
    assert all(r.status == "done" for r in there.ordered())
    for r in there.ordered():  # what finished is what the same cell gives here
        assert r.summary == {k: v for k, v in run_and_verify(KMANON, city(), r.cell.params).summary().items()
                             if k != "seconds"}
    assert progress.statuses[-1] == "sweep stopped" and progress.partials[0].done == 1
    # The long cells stopped on the workers (a started Dask task runs on even when its future is cancelled).
    def busy() -> int:
        """Tasks running in the workers' threads (the scheduler forgets a cancelled one at once; a worker not)."""
        return sum(client.run(lambda dask_worker: len(dask_worker.active_threads)).values())

    deadline = time.perf_counter() + 5
    while busy() and time.perf_counter() < deadline:
        time.sleep(0.1)
    assert busy() == 0


def test_kmanon_trials_on_the_cluster_equal_the_local_ones(cluster):
    params = quick(trials=4, m=3, seed=5)
    here = kmanonymize(city(), FreeMerge(), params)
    progress = RecordingProgress()
    with parallel.using_scheduler(cluster.scheduler_address):
        there = kmanonymize(city(), FreeMerge(), params, progress)
    assert there.complete and trials_key(there) == trials_key(here)
    assert levels_key(there) == levels_key(here) and there.best_trial == here.best_trial
    # Progress counts returned trials; each one's levels were published as it came back.
    assert progress.fractions[-1] == 1.0 and any("came back from the cluster" in s for s in progress.statuses)
    assert sorted(len(p.trials) for p in progress.partials)[-1] == 4


def test_a_full_run_with_trials_on_the_cluster_is_the_same_run(cluster):
    data = city()
    params = quick(trials=3, seed=2)
    here = run_and_verify(KMANON, data, params)
    with parallel.using_scheduler(cluster.scheduler_address):
        there = run_and_verify(KMANON, data, params)
    assert there.status == "done" and levels_key(there.result) == levels_key(here.result)
    assert {k: v for k, v in there.summary().items() if k != "seconds"} == \
        {k: v for k, v in here.summary().items() if k != "seconds"}


@pytest.mark.alone
def test_cancel_reaches_the_trials_on_the_cluster_and_keeps_what_came_back(cluster):
    params = quick(trials=8, m=3, sigma=0.99, seed=9)
    here = kmanonymize(city(), FreeMerge(), params)
    progress = RecordingProgress(cancel_after_partials=1)  # after the first trial came back
    t0 = time.perf_counter()
    with parallel.using_scheduler(cluster.scheduler_address):
        there = kmanonymize(city(), FreeMerge(), params, progress)
    assert time.perf_counter() - t0 < 20
    assert not there.complete
    finished = [t for t in there.trials if t.complete]
    assert 1 <= len(finished) < 8
    local = {t.trial: t for t in here.trials}
    for trial in finished:  # what finished is what the same trial gives here
        assert levels_key(trial) == levels_key(local[trial.trial])
    assert any(not t.complete for t in there.trials)


def test_cli_sweep_with_scheduler_writes_the_same_table(cluster, tmp_path, capsys):
    args = ["sweep", "kmanon", "small-city", "--grid", "k=5,10", "--grid", "m=1-2", "--set", "sigma=0.9",
            "--set", "verify_samples=400", "--no-evaluate", "--quiet"]
    assert main(args + ["--out", str(tmp_path / "here.csv"), "--json", str(tmp_path / "here.json")]) == 0
    here_out = capsys.readouterr().out
    assert main(args + ["--out", str(tmp_path / "there.csv"), "--json", str(tmp_path / "there.json"),
                        "--scheduler", cluster.scheduler_address]) == 0
    assert capsys.readouterr().out == here_out
    assert (tmp_path / "there.csv").read_text() == (tmp_path / "here.csv").read_text()
    here, there = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("here", "there"))
    for doc in (here, there):
        doc.pop("seconds")
        for cell in doc["cells"]:
            cell.pop("seconds")
    assert there == here and there["complete"] is True


def test_cli_compare_methods_on_the_cluster_gives_the_same_evaluated_table(cluster, tmp_path, capsys):
    """Several methods, every release evaluated on the workers: the same bytes as here."""
    args = ["sweep", "sports-example", "--method", "kmanon", "--grid", "k=2,3", "--set", "sigma=1",
            "--method", "rho", "--grid", "rho=0.3,0.5", "--set", "m=2", "--set", "sensitive_fraction=0.25",
            "--method", "nonreciprocal", "--grid", "k=2,3",
            "--quiet"]
    assert main(args + ["--out", str(tmp_path / "here.csv")]) == 0
    here_out = capsys.readouterr().out
    assert main(args + ["--out", str(tmp_path / "there.csv"), "--scheduler", cluster.scheduler_address]) == 0
    assert capsys.readouterr().out == here_out
    here = (tmp_path / "here.csv").read_text()
    assert (tmp_path / "there.csv").read_text() == here
    rows = list(csv.DictReader(here.splitlines()))
    assert len(rows) == 6 and all(r["prosecutor_risk"] and r["count_query_error"] for r in rows)


def test_cli_sweep_on_the_cluster_ctrl_c_exits_130_with_the_finished_cells(cluster, tmp_path, capsys, monkeypatch):
    from anonstudio.methods.sweep import NOT_RUN

    ctrl_c_after_cells(monkeypatch, 1)
    out, doc_path = tmp_path / "sweep.csv", tmp_path / "sweep.json"
    # Cells with m = 4 take over a minute each: the cancel must reach them on the workers.
    code = main(["sweep", "kmanon", "small-city", "--grid", "m=2,4", "--seeds", "2", "--set", "sigma=0.999",
                 "--set", "verify_samples=400", "--no-evaluate", "--scheduler", cluster.scheduler_address,
                 "--out", str(out),
                 "--json", str(doc_path), "--quiet"])
    assert code == 130
    statuses = [r["status"] for r in csv.DictReader(open(out, encoding="utf-8"))]
    assert statuses[0] == "done" and statuses[2:] == [NOT_RUN, NOT_RUN]
    doc = json.loads(doc_path.read_text())
    assert doc["complete"] is False and doc["cells_done"] == statuses.count("done")
    assert "the files hold the finished cells" in capsys.readouterr().err


def test_cli_kmanon_gives_the_same_bytes_on_one_thread_two_threads_and_the_cluster(cluster, tmp_path, monkeypatch):
    args = ["kmanon", "small-city", "--k", "10", "--m", "2", "--sigma", "0.9", "--trials", "3", "--threads", "3",
            "--verify-samples", "400", "--quiet"]
    docs, releases = {}, {}
    for name, threads, extra in (("one", "1", []), ("two", "2", []),
                                 ("cluster", "2", ["--scheduler", cluster.scheduler_address])):
        monkeypatch.setenv(parallel.ENV_THREADS, threads)
        out = tmp_path / name
        out.mkdir()
        assert main(args + extra + ["--json", str(out / "run.json"), "--out", str(out / "release.dat"),
                                    "--map-out", str(out / "map.csv")]) == 0
        docs[name] = _drop_timing(json.loads((out / "run.json").read_text()))
        releases[name] = ((out / "release.dat").read_bytes(), (out / "map.csv").read_bytes())
    assert docs["two"] == docs["one"] and docs["cluster"] == docs["one"]
    assert releases["two"] == releases["one"] and releases["cluster"] == releases["one"]
    assert "scheduler" not in docs["cluster"]["run"]["params"]  # a run option, not part of the recipe


def _drop_timing(doc):
    """``doc`` without wall-clock fields (times, rates, start date), changed in place and returned."""
    if isinstance(doc, dict):
        for key in [k for k in doc if "seconds" in k or "per_second" in k or k == "started"]:
            doc.pop(key)
        for value in doc.values():
            _drop_timing(value)
    elif isinstance(doc, list):
        for value in doc:
            _drop_timing(value)
    return doc
