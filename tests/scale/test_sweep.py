"""Sweeps: each cell's summary equals the cell run alone; a pool changes nothing; a cancel keeps finished cells."""
from __future__ import annotations

import csv
import io
import json

import pytest

from anonstudio import parallel
from anonstudio.jobs import RecordingProgress
from anonstudio.methods.contract import run_and_verify
from anonstudio.methods.sweep import NOT_RUN, REASON, make_grid, parse_axis, run_sweep
from tests.scale.scale_helpers import KMANON, city, quick

KS = "5,10,20"


def _grid(seeds: int = 1):
    axes = [parse_axis(KMANON.params, "k", KS)]
    return axes, make_grid(quick(m=2), axes, seeds)


def _alone(cell) -> dict:
    """A cell's summary as the pipeline gives it when the cell runs by itself (timing left out)."""
    run = run_and_verify(KMANON, city(), cell.params)
    return {k: v for k, v in run.summary().items() if k != "seconds"}


@pytest.fixture(scope="module")
def alone() -> dict:
    _, cells = _grid(seeds=2)
    return {tuple(sorted(c.values.items())): _alone(c) for c in cells}


def _summaries(result) -> dict:
    return {tuple(sorted(r.cell.values.items())): r.summary for r in result.ordered()}


def test_a_sweep_over_k_gives_the_summaries_of_each_cell_run_alone(alone):
    axes, cells = _grid(seeds=2)
    result = run_sweep(KMANON, city(), cells, axes=axes)
    assert result.complete and result.done == 6
    assert all(r.status == "done" for r in result.ordered())
    assert _summaries(result) == alone
    # The measures move the way k says: more people per itemset, fewer partitions.
    partitions = [r.summary["partitions"] for r in result.ordered() if r.cell.values["seed"] == 1]
    assert partitions == sorted(partitions, reverse=True) and partitions[0] > partitions[-1]


@pytest.mark.parametrize("jobs", [2, 3])
def test_a_thread_pool_gives_the_same_summaries(alone, jobs, monkeypatch):
    monkeypatch.setenv(parallel.ENV_THREADS, "2")
    axes, cells = _grid(seeds=2)
    with parallel.executor_for(None, jobs=jobs) as pool:
        result = run_sweep(KMANON, city(), cells, axes=axes, executor=pool)
    assert result.complete and _summaries(result) == alone


def test_cancel_mid_sweep_keeps_the_finished_cells(alone):
    axes, cells = _grid(seeds=2)
    progress = RecordingProgress(cancel_after_partials=2)  # one partial per finished cell
    result = run_sweep(KMANON, city(), cells, progress, axes=axes)
    assert not result.complete and result.done == 2
    assert [r.cell.index for r in result.ordered()] == [0, 1]
    assert _summaries(result) == {key: alone[key] for key in _summaries(result)}
    assert progress.partials[-1].done == 2 and progress.statuses[-1] == "sweep stopped"


def test_a_cell_the_cancel_stops_midway_is_left_out_as_on_a_pool_or_a_cluster(alone):
    axes, cells = _grid(seeds=2)
    n = len(cells)

    class CancelInSecondCell(RecordingProgress):
        """Cancels while the second cell runs (its progress passes 1/n of the sweep)."""

        def cancelled(self) -> bool:
            return any(1 / n < f < 2 / n for f in self.fractions)

    progress = CancelInSecondCell()
    result = run_sweep(KMANON, city(), cells, progress, axes=axes)
    assert not result.complete and [r.cell.index for r in result.ordered()] == [0]
    assert result.ordered()[0].status == "done" and _summaries(result) == {k: alone[k] for k in _summaries(result)}
    rows = list(csv.DictReader(io.StringIO(result.to_csv_text(all_cells=True))))
    assert [r["status"] for r in rows] == ["done"] + [NOT_RUN] * (n - 1)


def test_cancel_on_a_pool_keeps_finished_cells_and_stops_the_running_ones(alone, monkeypatch):
    monkeypatch.setenv(parallel.ENV_THREADS, "2")
    axes, cells = _grid(seeds=2)
    progress = RecordingProgress(cancel_after_partials=1)
    with parallel.executor_for(None, jobs=2) as pool:
        result = run_sweep(KMANON, city(), cells, progress, axes=axes, executor=pool)
    assert not result.complete and 1 <= result.done < len(cells)
    assert all(r.status == "done" for r in result.ordered())
    assert _summaries(result) == {key: alone[key] for key in _summaries(result)}


def test_the_table_of_a_stopped_sweep_says_which_cells_did_not_run():
    axes, cells = _grid(seeds=2)
    result = run_sweep(KMANON, city(), cells, RecordingProgress(cancel_after_partials=1), axes=axes)
    rows = list(csv.DictReader(io.StringIO(result.to_csv_text(all_cells=True))))
    assert [r["status"] for r in rows] == ["done"] + [NOT_RUN] * 5
    assert [(r["k"], r["seed"]) for r in rows] == [(k, s) for k in KS.split(",") for s in ("1", "2")]
    # "error" is σ-k^m's measure; a failed cell's message has a column of its own.
    assert float(rows[0]["error"]) == result.ordered()[0].summary["error"] and rows[0][REASON] == ""
    doc = json.loads(json.dumps(result.to_json(), allow_nan=False))
    assert doc["complete"] is False and doc["cells_done"] == 1 and doc["cells_total"] == 6
    assert [c["status"] for c in doc["cells"]] == ["done"] + [NOT_RUN] * 5
    assert doc["axes"] == [{"name": "k", "values": [5, 10, 20]}]
