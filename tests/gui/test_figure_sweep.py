"""The one figure-sweep controller: it waits for the kernels, takes known cells from the caller and the result
cache, stops keeping what finished, reruns, and says when a sweep was stopped before it started.

A toy family whose cells can be held back (an event) drives it through a real JobRunner.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

import pytest

from anonstudio.gui.figure_sweep import CellCount, FigureSweep
from anonstudio.jobs import RecordingProgress
from anonstudio.methods.contract import MethodSpec, Stage
from anonstudio.methods.sweep import Axis, CellResult, make_grid
from anonstudio.params import param

pytestmark = pytest.mark.gui


@dataclass(frozen=True)
class ToyParams:
    x: int = param(1, label="x", tooltip="The value a cell doubles.", minimum=0, maximum=100)


@dataclass
class ToyResult:
    x: int
    complete: bool = True

    def to_json(self) -> dict:
        return {"x": self.x}

    def summary(self) -> dict[str, float]:
        return {"double": 2.0 * self.x}


class ToySpec(MethodSpec):
    """Doubles x; cells with x in ``held`` wait for ``release`` (or a cancel) before they finish."""

    name = "toy"
    title = "Toy"
    params = ToyParams
    data_kinds = (list,)
    stages = (Stage("run", "doubling"),)

    def __init__(self):
        self.ran: list[int] = []
        self.held: set[int] = set()
        self.release = threading.Event()

    def run(self, data, params, progress):
        self.ran.append(params.x)
        if params.x in self.held:
            while not self.release.wait(0.02):
                if progress.cancelled():
                    return ToyResult(params.x, complete=False)
        return ToyResult(params.x)

    def example(self):
        return [], ToyParams()


@pytest.fixture
def toy():
    spec = ToySpec()
    yield spec
    spec.release.set()  # never leave a worker waiting


def cells(*xs):
    return make_grid(ToyParams(), (Axis("x", tuple(xs)),))


class Recorder:
    """Every signal of a controller, in order."""

    def __init__(self, sweep: FigureSweep):
        self.events: list[tuple] = []
        sweep.partial.connect(lambda r: self.events.append(("partial", r.done)))
        sweep.finished.connect(lambda r, complete: self.events.append(("finished", r.done, complete)))
        sweep.not_started.connect(lambda: self.events.append(("not_started",)))
        sweep.failed.connect(lambda exc: self.events.append(("failed", str(exc))))
        sweep.running_changed.connect(lambda running: self.events.append(("running", running)))

    def kinds(self) -> list[str]:
        return [e[0] for e in self.events]

    def ended(self) -> bool:
        return any(e[0] in ("finished", "not_started", "failed") for e in self.events)


@pytest.fixture
def sweep(runner):
    return FigureSweep(runner.submit, key="toy:fig", wait_for_kernels=runner.wait_for_kernels)


def test_the_sweep_waits_for_the_kernels_then_draws_every_cell(qtbot, runner, sweep, toy):
    seen = Recorder(sweep)
    runner.kernels_ready.clear()
    job = sweep.start("toy sweep", toy, [], cells(1, 2, 3), axes=(Axis("x", (1, 2, 3)),))
    assert sweep.running and seen.events == [("running", True)]
    qtbot.waitUntil(lambda: "waiting for the numerical kernels" in job.status, timeout=5000)
    assert toy.ran == []  # nothing runs before the kernels are compiled
    runner.kernels_ready.set()
    qtbot.waitUntil(seen.ended, timeout=10000)
    assert toy.ran == [1, 2, 3]
    # Partial results are drawn as they come (the runner coalesces those arriving within one event-loop turn).
    kinds = seen.kinds()
    assert kinds[0] == "running" and kinds[-2:] == ["running", "finished"] and set(kinds[1:-2]) == {"partial"}
    assert seen.events[-1] == ("finished", 3, True)
    result = sweep.result
    assert result.complete and [r.summary["double"] for r in result.ordered()] == [2.0, 4.0, 6.0]
    assert all(r.check == "" for r in result.ordered())  # a measurement: no verdict
    assert not sweep.running and sweep.job is job


class FakeCache:
    """The result cache's sweep hooks: ``stored`` cells by x, every new cell recorded."""

    def __init__(self, stored: dict[int, float]):
        self.stored = stored
        self.put: list[int] = []

    def sweep_hooks(self, spec, data):
        def cached(cell):
            x = cell.params.x
            return CellResult(cell, "done", {"double": self.stored[x]}, 0.0) if x in self.stored else None

        return cached, lambda result: self.put.append(result.cell.params.x)


def test_known_cells_come_from_the_caller_then_the_result_cache(qtbot, sweep, toy):
    seen = Recorder(sweep)
    cache = FakeCache({2: 40.0, 1: 99.0})
    own: list[int] = []

    def cached(cell):  # the caller's own cell (the run on screen) wins over the cache's
        return CellResult(cell, "done", {"double": -1.0}, 0.0) if cell.params.x == 1 else None

    sweep.start("toy sweep", toy, [], cells(1, 2, 3), cached=cached, on_cell=lambda r: own.append(r.cell.params.x),
                result_cache=cache, context="the run")
    assert sweep.context == "the run"
    qtbot.waitUntil(seen.ended, timeout=10000)
    assert toy.ran == [3] and own == [3] and cache.put == [3]
    assert [r.summary["double"] for r in sweep.result.ordered()] == [-1.0, 40.0, 6.0]
    # A view that needs more of a cell than the cache keeps stores its cells but does not read them back.
    seen.events.clear()
    sweep.start("toy sweep", toy, [], cells(1, 2, 3), result_cache=cache, read_cache=False)
    qtbot.waitUntil(seen.ended, timeout=10000)
    assert toy.ran == [3, 1, 2, 3] and cache.put == [3, 1, 2, 3]


def test_stop_keeps_the_finished_cells_and_a_rerun_goes_on(qtbot, sweep, toy):
    seen = Recorder(sweep)
    toy.held = {2}
    sweep.start("toy sweep", toy, [], cells(1, 2, 3))
    qtbot.waitUntil(lambda: 2 in toy.ran, timeout=10000)
    sweep.stop()
    qtbot.waitUntil(seen.ended, timeout=10000)
    assert seen.events[-1] == ("finished", 1, False)  # the cell stopped by the cancel is left out
    assert not sweep.result.complete and toy.ran == [1, 2]
    # Run again: a new job, everything drawn.
    toy.release.set()
    seen.events.clear()
    first = sweep.job
    sweep.start("toy sweep", toy, [], cells(1, 2, 3))
    assert sweep.job is not first
    qtbot.waitUntil(seen.ended, timeout=10000)
    assert seen.events[-1] == ("finished", 3, True)


def test_a_newer_sweep_replaces_the_older_one_whose_callbacks_never_arrive(qtbot, sweep, toy):
    seen = Recorder(sweep)
    toy.held = {5}
    old = sweep.start("old", toy, [], cells(5, 6), context="old")
    qtbot.waitUntil(lambda: 5 in toy.ran, timeout=10000)
    new = sweep.start("new", toy, [], cells(1), context="new")
    qtbot.waitUntil(lambda: old.state.finished and new.state.finished, timeout=10000)
    qtbot.wait(50)
    assert sweep.job is new and sweep.context == "new"
    assert [e for e in seen.events if e[0] != "running"] == [("partial", 1), ("finished", 1, True)]
    # discard: a running sweep is cancelled and forgotten; nothing of it arrives.
    seen.events.clear()
    toy.ran.clear()
    sweep.start("held", toy, [], cells(5))
    qtbot.waitUntil(lambda: 5 in toy.ran, timeout=10000)
    job = sweep.job
    sweep.discard()
    assert sweep.job is None and not sweep.running and seen.events[-1] == ("running", False)
    qtbot.waitUntil(lambda: job.state.finished, timeout=10000)
    qtbot.wait(50)
    assert seen.kinds() == ["running", "running"]


def test_a_sweep_stopped_before_it_started_says_so(qtbot, runner, sweep, toy):
    seen = Recorder(sweep)
    # Stopped while it waits for the kernels: it returns without running a cell.
    runner.kernels_ready.clear()
    job = sweep.start("toy sweep", toy, [], cells(1, 2))
    qtbot.waitUntil(lambda: "waiting" in job.status, timeout=5000)
    sweep.stop()
    qtbot.waitUntil(seen.ended, timeout=10000)
    qtbot.wait(50)
    assert seen.events == [("running", True), ("running", False), ("not_started",)]
    assert toy.ran == [] and sweep.result is None and not sweep.running
    runner.kernels_ready.set()
    # Stopped while queued behind busy workers: the job never runs at all.
    seen.events.clear()
    gate = threading.Event()
    blockers = [runner.submit(f"busy {i}", lambda progress: gate.wait(10)) for i in range(runner.pool.maxThreadCount())]
    job = sweep.start("toy sweep", toy, [], cells(1, 2))
    sweep.stop()
    gate.set()
    qtbot.waitUntil(lambda: job.state.finished and all(b.state.finished for b in blockers), timeout=10000)
    qtbot.waitUntil(seen.ended, timeout=5000)
    assert seen.events == [("running", True), ("running", False), ("not_started",)] and toy.ran == []


def test_a_failing_sweep_reports_its_error(qtbot, runner, dialogs, toy):
    sweep = FigureSweep(runner.submit)
    seen = Recorder(sweep)

    def broken(data):
        raise RuntimeError("no such items file")

    sweep.start("toy sweep", toy, [], cells(1), prepare=broken)
    qtbot.waitUntil(seen.ended, timeout=10000)
    assert seen.events == [("running", True), ("running", False), ("failed", "no such items file")]


def test_reset_forgets_even_a_finished_sweep(qtbot, sweep, toy):
    seen = Recorder(sweep)
    sweep.start("toy sweep", toy, [], cells(1))
    qtbot.waitUntil(seen.ended, timeout=10000)
    sweep.discard()  # a finished sweep stays the current one
    assert sweep.job is not None and sweep.result is not None
    sweep.reset()
    assert sweep.job is None and sweep.result is None and sweep.context is None


def test_brief_progress_counts_cells():
    parent = RecordingProgress()
    CellCount(parent, 20).set(0.35, "x = 7, y = 3: doubling: 50 %")
    assert parent.statuses[-1] == "7 of 20 cells"
