"""Studio jobs running at once share the thread budget: sweeps and real family runs included, not only toy jobs.

Each job of the JobRunner holds a lease of the process-wide budget (``parallel.budget.lease``); everything the job
starts (a sweep's cells, a local cell pool, a family's own pools) must stay within it.
"""
from __future__ import annotations

import threading

import pytest

from anonstudio import parallel
from anonstudio.gui.figure_sweep import FigureSweep
from anonstudio.methods.contract import get_method, run_and_verify
from anonstudio.methods.sweep import Axis, make_grid
from tests.gui.test_figure_sweep import ToyParams, ToySpec

pytestmark = pytest.mark.gui


@pytest.fixture
def budget_of(monkeypatch):
    """Set the studio's thread budget (the Settings value) for one test."""
    monkeypatch.delenv(parallel.ENV_THREADS, raising=False)

    def set_to(n: int) -> None:
        monkeypatch.setattr(parallel.budget, "_setting", n)

    return set_to


@pytest.fixture
def holder(runner):
    """``hold(threads)`` starts a job that holds ``threads`` of the budget until the test ends (or ``let_go``)."""
    gates = []

    class Holder:
        def hold(self, threads: int):
            running, gate = threading.Event(), threading.Event()
            gates.append(gate)
            seen = {}

            def fn(progress):
                seen["budget"] = parallel.budget.available()
                running.set()
                gate.wait(20)
                return {"complete": True}

            job = runner.submit("holding", fn, key=f"hold{len(gates)}", threads=threads)
            assert running.wait(10)
            return job, seen

        def let_go(self):
            for gate in gates:
                gate.set()

    h = Holder()
    yield h
    h.let_go()


class BudgetToy(ToySpec):
    """The toy family of the sweep tests, recording the budget each cell runs with."""

    def __init__(self):
        super().__init__()
        self.budgets: list[int] = []

    def run(self, data, params, progress):
        self.budgets.append(parallel.budget.available())
        return super().run(data, params, progress)


def _sweep(runner, spec, wait_job, executor=None):
    sweep = FigureSweep(runner.submit, key="budget:fig")
    cells = make_grid(ToyParams(), (Axis("x", (1, 2, 3, 4)),))
    job = sweep.start("toy sweep", spec, [], cells, axes=(Axis("x", (1, 2, 3, 4)),), executor=executor)
    wait_job(job)
    assert sweep.result is not None and sweep.result.complete
    return sweep


def test_a_sweep_started_during_a_run_gets_what_the_run_left(runner, wait_job, holder, budget_of):
    budget_of(4)
    _, seen = holder.hold(3)
    toy = BudgetToy()
    _sweep(runner, toy, wait_job)
    assert seen == {"budget": 3}
    assert toy.budgets == [1, 1, 1, 1]  # the 1 thread left, not the whole 4
    holder.let_go()
    runner.pool.waitForDone(10000)
    assert parallel.budget.leased == 0
    alone = BudgetToy()
    _sweep(runner, alone, wait_job)
    assert alone.budgets == [4, 4, 4, 4]


def test_sweep_cells_on_a_local_pool_divide_the_sweeps_lease(runner, wait_job, holder, budget_of):
    budget_of(6)
    holder.hold(2)
    toy = BudgetToy()
    pools = []

    def executor():
        pools.append(parallel.executor_for(None, jobs=2))
        return pools[-1]

    _sweep(runner, toy, wait_job, executor)
    pools[0].shutdown()
    # The sweep holds the 4 left; its pool of 2 cells gives each cell 2, never 6 or 3.
    assert pools[0].workers == 2 and set(toy.budgets) == {2}


@pytest.mark.parametrize("family, pool_names", [("threat", {"threat-chain"}),
                                                # (its example has one TSP batch, run without a pool)
                                                ("nonreciprocal", {"nonreciprocal-verify"})])
def test_a_family_run_sizes_its_pools_by_its_jobs_lease(runner, wait_job, holder, budget_of, monkeypatch, family,
                                                        pool_names):
    budget_of(4)
    spec = get_method(family)
    data, params = spec.example()
    pools = []
    real_pool = parallel.budget.pool

    def recording_pool(wanted, name="anonstudio"):
        pool = real_pool(wanted, name)
        pools.append((name, wanted, pool.workers))
        return pool

    monkeypatch.setattr(parallel.budget, "pool", recording_pool)

    def run_family():
        pools.clear()
        runs = []
        job = runner.submit(family, lambda progress: run_and_verify(spec, data, params, progress), key=family,
                            on_done=lambda run, complete: runs.append(complete))
        wait_job(job, 60000)
        assert runs == [True]
        return {name: (wanted, workers) for name, wanted, workers in pools if name in pool_names}

    alone = run_family()
    assert set(alone) == pool_names
    for name, (wanted, workers) in alone.items():
        assert workers >= 2, (name, wanted, workers)  # the whole budget's threads are offered, not one
        if name.startswith("nonreciprocal"):
            assert wanted == 4  # no fixed 2: the whole budget by default
    holder.hold(3)
    beside = run_family()
    assert set(beside) == pool_names and all(workers == 1 for _, workers in beside.values()), beside


def test_a_dataset_load_holds_one_thread_and_leaves_the_rest_to_a_run(window, budget_of, qtbot):
    """Loading is one thread's work: a run started while a file loads gets the rest of the budget at once."""
    budget_of(4)
    running, gate, seen = threading.Event(), threading.Event(), {}

    def slow_load(progress):
        running.set()
        gate.wait(20)
        from anonstudio.data.samples import load_sample

        return load_sample("sports-example")

    job = window.datasets.load_job("Load a slow file", slow_load)
    try:
        assert running.wait(10)
        seen["leased"] = parallel.budget.leased
        with parallel.budget.lease() as granted:
            seen["granted"] = granted
    finally:
        gate.set()
    qtbot.waitUntil(lambda: job.state.finished, timeout=20000)
    assert seen == {"leased": 1, "granted": 3}
