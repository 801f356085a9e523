"""JobRunner: results, partials, cancel keeps the partial result, supersede, errors."""
from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from anonstudio.gui.jobs_dock import JobsPanel
from anonstudio.gui.workers import JobState


def counting_job(n_steps: int, gate: threading.Event | None = None, step_s: float = 0.01):
    """A job publishing its list of finished steps; stops early on cancel."""

    def fn(progress):
        done = []
        for i in range(n_steps):
            if gate is not None and i == 2:
                gate.wait(5)  # hold here until the test has acted
            if progress.cancelled():
                return {"steps": done, "complete": False}
            time.sleep(step_s)
            done.append(i)
            progress.set((i + 1) / n_steps, f"step {i + 1}")
            progress.partial(list(done))
        return {"steps": done, "complete": True}

    return fn


def test_result_and_partials_arrive_on_the_gui_thread(qtbot, runner, wait_job):
    main = threading.get_ident()
    partials, results, threads = [], [], []

    def on_partial(p):
        threads.append(threading.get_ident())
        partials.append(p)

    def on_done(result, complete):
        threads.append(threading.get_ident())
        results.append((result, complete))

    job = runner.submit("count", counting_job(5), key="k", on_partial=on_partial, on_done=on_done)
    wait_job(job)
    assert job.state is JobState.DONE and job.fraction == 1.0
    assert results == [({"steps": [0, 1, 2, 3, 4], "complete": True}, True)]
    assert partials and partials[-1] == [0, 1, 2, 3, 4]
    assert set(threads) == {main}


def test_cancel_keeps_the_partial_result(qtbot, runner, wait_job):
    gate = threading.Event()
    results, partials = [], []
    job = runner.submit("count", counting_job(50, gate), key="k", on_done=lambda r, c: results.append((r, c)),
                        on_partial=partials.append)
    qtbot.waitUntil(lambda: bool(partials) and partials[-1] == [0, 1], timeout=5000)
    job.cancel()
    gate.set()
    wait_job(job)
    assert job.state is JobState.CANCELLED
    assert job.state_text() == "cancelled (partial result kept)"
    (result, complete), = results
    assert complete is False
    assert result["steps"] == [0, 1]  # the gate held the job at step 2 when cancel came


def test_a_cancel_after_the_work_returned_leaves_the_job_done(qtbot, runner, wait_job):
    # The Cancel click lands after the job's function returned but before its result reached the GUI thread: the
    # work is whole, so the job must not be called cancelled, nor its result partial.
    results = []
    job = runner.submit("plain", lambda progress: [1, 2], key="k", on_done=lambda r, c: results.append((r, c)))
    _returned(runner)
    job.cancel()
    wait_job(job)
    assert job.state is JobState.DONE and job.state_text() == "done before the cancel"
    assert results == [([1, 2], True)]


def _returned(runner):
    """Wait, without processing events, until the pool's worker has returned (its finish signal stays queued)."""
    deadline = time.monotonic() + 5
    while runner.pool.activeThreadCount() and time.monotonic() < deadline:
        time.sleep(0.005)
    assert runner.pool.activeThreadCount() == 0


@pytest.mark.parametrize("how", ["retired", "superseded"])
def test_a_job_retired_or_replaced_after_its_work_returned_stays_cancelled(qtbot, runner, wait_job, how):
    # Unlike a user's late Cancel, its result is not wanted: nothing is delivered and the dock says why.
    results = []
    whole = SimpleNamespace(complete=True)
    job = runner.submit("old", lambda progress: whole, key="k", on_done=lambda r, c: results.append((r, c)))
    _returned(runner)
    if how == "retired":
        runner.retire(job, "dataset changed")
    else:
        newer = runner.submit("new", lambda progress: None, key="k")
    wait_job(job)
    assert job.state is JobState.CANCELLED and results == []
    assert job.state_text() == ("cancelled (dataset changed)" if how == "retired"
                                else "cancelled (replaced by a newer run)")
    if how == "superseded":
        wait_job(newer)


@pytest.mark.parametrize("says_complete", [True, False])
def test_a_cancel_the_work_did_not_act_on(qtbot, runner, wait_job, says_complete):
    # The cancel comes while the job runs, but the job finishes anyway (its last check for a cancel had passed).
    # A result that says it is complete (a method's run) is whole: the job is done. Anything else is taken at
    # its word that it may have stopped early: cancelled, and delivered as partial.
    gate = threading.Event()
    started = threading.Event()
    whole = SimpleNamespace(complete=True)
    results = []

    def fn(progress):
        started.set()
        gate.wait(5)
        return whole if says_complete else [1, 2]

    job = runner.submit("late", fn, key="k", on_done=lambda r, c: results.append((r, c)))
    assert started.wait(5)
    job.cancel()
    gate.set()
    wait_job(job)
    if says_complete:
        assert job.state is JobState.DONE and results == [(whole, True)]
    else:
        assert job.state is JobState.CANCELLED and results == [([1, 2], False)]


def test_newer_job_with_same_key_cancels_and_silences_older(qtbot, runner, wait_job):
    gate = threading.Event()
    seen = []
    old = runner.submit("old", counting_job(20, gate), key="bench", on_done=lambda r, c: seen.append("old"),
                        on_partial=lambda p: None)
    qtbot.waitUntil(lambda: old.state is JobState.RUNNING, timeout=5000)
    new = runner.submit("new", counting_job(3), key="bench", on_done=lambda r, c: seen.append("new"))
    assert old.cancel_requested and old.superseded
    gate.set()
    wait_job(old)
    wait_job(new)
    assert seen == ["new"]
    assert old.state is JobState.CANCELLED and "newer run" in old.state_text()
    assert not runner.is_current(old) and runner.is_current(new)


def test_jobs_with_different_keys_run_independently(qtbot, runner, wait_job):
    seen = []
    a = runner.submit("a", counting_job(3), key="a", on_done=lambda r, c: seen.append("a"))
    b = runner.submit("b", counting_job(3), key="b", on_done=lambda r, c: seen.append("b"))
    wait_job(a)
    wait_job(b)
    assert sorted(seen) == ["a", "b"]


def test_exception_goes_to_on_error_and_dialog_not_the_event_loop(qtbot, runner, wait_job, dialogs):
    errors = []

    def boom(progress):
        progress.set(0.3, "about to fail")
        raise ValueError("baskets.dat, line 3: 'x' is not an integer item")

    runner.error_handler = lambda title, msg: dialogs.append(("handler", title, msg))
    job = runner.submit("Load baskets.dat", boom, key="load", on_error=errors.append)
    wait_job(job)
    assert job.state is JobState.FAILED
    assert isinstance(errors[0], ValueError)
    assert dialogs == [("handler", "Load baskets.dat", "baskets.dat, line 3: 'x' is not an integer item")]
    assert "ValueError" in job.error_details


def test_a_failing_result_callback_is_reported_not_raised(qtbot, runner, wait_job, dialogs):
    def bad_callback(result, complete):
        raise RuntimeError("plot exploded")

    runner.error_handler = lambda title, msg: dialogs.append((title, msg))
    job = runner.submit("ok job", lambda p: 1, on_done=bad_callback)
    wait_job(job)
    qtbot.waitUntil(lambda: bool(dialogs), timeout=5000)  # the report of the callback's error
    assert job.state is JobState.DONE
    assert dialogs and "plot exploded" in dialogs[0][1]


def test_eta_from_progress_rate(qtbot, runner, wait_job):
    gate = threading.Event()

    def fn(progress):
        progress.set(0.25, "a quarter")
        gate.wait(5)
        return None

    job = runner.submit("slow", fn)
    qtbot.waitUntil(lambda: job.fraction == 0.25, timeout=5000)
    job.started_at -= 3.0  # pretend it ran 3 s for a quarter of the work
    assert job.eta() == pytest.approx(9.0, abs=0.5)
    dock = JobsPanel(runner)
    qtbot.addWidget(dock)
    dock.add_job(job)
    row = dock.row_of(job)
    assert dock.table.item(row, 3).text() == "3 s" and dock.table.item(row, 4).text() == "9 s"
    assert dock.table.cellWidget(row, 1).value() == 250
    gate.set()
    wait_job(job)
    assert job.eta() is None


def test_throttled_progress_is_caught_up_by_the_dock_clock(qtbot, runner, wait_job):
    shown_first, gate = threading.Event(), threading.Event()

    def fn(progress):
        progress.set(0.1, "first")
        shown_first.wait(5)
        progress.set(0.6, "second, within the throttle interval")  # dropped: too soon
        gate.wait(5)
        return None

    dock = JobsPanel(runner)
    qtbot.addWidget(dock)
    job = runner.submit("throttled", fn)
    qtbot.waitUntil(lambda: job.fraction == 0.1, timeout=5000)
    shown_first.set()
    qtbot.waitUntil(lambda: dock.state_text(job) == "second, within the throttle interval", timeout=3000)
    assert job.fraction == 0.6
    gate.set()
    wait_job(job)


def test_retired_job_calls_nothing_back_and_shows_as_cancelled(qtbot, runner, wait_job):
    gate = threading.Event()
    partials, results, errors = [], [], []
    dock = JobsPanel(runner)
    qtbot.addWidget(dock)
    job = runner.submit("Counting", counting_job(5, gate), key="k", on_partial=partials.append,
                        on_done=lambda r, c: results.append((r, c)), on_error=errors.append)
    # The job holds at step 2 until the gate opens; partials are coalesced.
    qtbot.waitUntil(lambda: bool(partials) and partials[-1] == [0, 1], timeout=5000)
    seen = len(partials)
    runner.retire(job, "dataset changed")
    gate.set()
    wait_job(job)
    qtbot.wait(50)  # any queued signal is delivered by now
    assert len(partials) == seen and results == [] and errors == []
    assert job.state is JobState.CANCELLED
    assert dock.state_text(job) == "cancelled (dataset changed)"
    assert not runner.is_current(job)
    # The key is free again: the next job with it runs and reports normally.
    later = runner.submit("Counting again", counting_job(2), key="k", on_done=lambda r, c: results.append(c))
    wait_job(later)
    assert results == [True]


def test_retiring_a_finished_job_changes_nothing(runner, wait_job):
    results = []
    job = runner.submit("Quick", lambda p: 7, key="k", on_done=lambda r, c: results.append(r))
    wait_job(job)
    runner.retire(job, "dataset changed")
    assert results == [7] and job.state is JobState.DONE and job.retired == ""


def test_two_jobs_at_once_share_the_thread_budget(qtbot, runner, wait_job, monkeypatch):
    from anonstudio import parallel

    monkeypatch.setattr(parallel.budget, "_setting", 6)
    first_running, release = threading.Event(), threading.Event()
    seen = {}

    def job(name):
        def fn(progress):
            seen[name] = parallel.budget.available()
            if name == "a":
                first_running.set()
                release.wait(5)
            return {"complete": True}
        return fn

    a = runner.submit("a", job("a"), key="a")
    assert first_running.wait(5)
    b = runner.submit("b", job("b"), key="b")
    wait_job(b)
    release.set()
    wait_job(a)
    # Before, each job saw the whole budget (6 and 6): together they ran 12 threads on 6.
    assert seen == {"a": 6, "b": 1} and parallel.budget.leased == 0
