"""Tools › Settings…: thread budget and Dask scheduler, persisted, applied, tested in the background, used by
the Compare tab and the σ-k^m trials."""
from __future__ import annotations

import socket

import pytest

from anonstudio import parallel
from anonstudio.data.samples import load_sample
from anonstudio.gui.settings_dialog import SCHEDULER_KEY, THREADS_KEY, SettingsDialog, configured_executor
from anonstudio.gui.workers import JobState

distributed = pytest.importorskip("distributed")


@pytest.fixture(autouse=True)
def restore_execution(monkeypatch):
    """Each test starts with no thread setting, no scheduler, and leaves none behind."""
    monkeypatch.delenv(parallel.ENV_THREADS, raising=False)
    monkeypatch.delenv(parallel.ENV_SCHEDULER, raising=False)
    parallel.configure(threads=None, scheduler=None)
    yield
    parallel.configure(threads=None, scheduler=None)
    parallel.close_clients()


@pytest.fixture(scope="module")
def cluster():
    """A small in-process cluster (the two-process one is exercised in tests/scale)."""
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0")
    yield cluster
    parallel.close_clients()
    cluster.close()


def _closed_port_address() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{s.getsockname()[1]}"


def _open_settings(window, qtbot) -> SettingsDialog:
    tools = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Tools")
    assert window.settings_action in tools.actions() and window.settings_action.text() == "&Settings…"
    window.settings_action.trigger()
    dialog = window._settings_dialog
    qtbot.waitUntil(dialog.isVisible)
    return dialog


def test_settings_are_saved_applied_and_read_by_the_next_window(window, qtbot, dialogs):
    dialog = _open_settings(window, qtbot)
    assert dialog.threads.value() == 0 and dialog.threads.text().startswith("automatic (")
    assert "cluster" in dialog.scheduler.toolTip() and "trials of σ-k^m" in dialog.scheduler.toolTip()
    assert not dialog.test_button.isEnabled()  # nothing to test yet
    dialog.threads.setValue(1)
    dialog.scheduler.setText(" tcp://127.0.0.1:8786 ")
    dialog.accept()
    assert window.settings.value(THREADS_KEY, type=int) == 1
    assert window.settings.value(SCHEDULER_KEY) == "tcp://127.0.0.1:8786"
    assert parallel.budget.total() == 1 and parallel.scheduler_address() == "tcp://127.0.0.1:8786"
    # A new studio window starts with them (they live in the settings file, not the process).
    parallel.configure(threads=None, scheduler=None)
    from anonstudio.gui.main_window import MainWindow

    second = MainWindow(warm_up=False, restore_layout=False)
    qtbot.addWidget(second)
    assert parallel.budget.total() == 1 and parallel.scheduler_address() == "tcp://127.0.0.1:8786"
    reopened = _open_settings(second, qtbot)
    assert reopened.threads.value() == 1 and reopened.scheduler.text() == "tcp://127.0.0.1:8786"
    reopened.reject()


def test_a_malformed_address_is_named_and_nothing_is_saved(window, qtbot):
    dialog = _open_settings(window, qtbot)
    dialog.threads.setValue(3)
    dialog.scheduler.setText("http://cluster-host:8786")
    dialog.accept()
    assert dialog.isVisible() and dialog.result() == 0  # still open, for the user to correct
    assert "'http://cluster-host:8786' is not a Dask scheduler address" in dialog.test_status.text()
    assert window.settings.value(SCHEDULER_KEY) in (None, "") and window.settings.value(THREADS_KEY) is None
    assert parallel.scheduler_address() is None and parallel.budget.setting is None
    dialog.scheduler.setText("cluster-host:8786")  # no scheme: tcp, as Dask reads it
    assert dialog.test_status.text() == ""  # editing clears the message
    dialog.accept()
    assert not dialog.isVisible() and window.settings.value(SCHEDULER_KEY) == "cluster-host:8786"
    assert parallel.scheduler_address() == "cluster-host:8786" and parallel.budget.total() == 3


def test_a_hand_edited_settings_file_falls_back_to_automatic_and_no_cluster(window, qtbot):
    window.settings.setValue(THREADS_KEY, "many")
    window.settings.setValue(SCHEDULER_KEY, "   ")
    dialog = _open_settings(window, qtbot)
    assert dialog.threads.value() == 0 and dialog.scheduler.text() == ""
    dialog.accept()
    assert parallel.budget.setting is None and parallel.scheduler_address() is None


def test_test_connection_answers_in_the_background(window, qtbot, cluster, monkeypatch):
    monkeypatch.setattr(SettingsDialog, "TEST_TIMEOUT", 2.0)
    dialog = _open_settings(window, qtbot)
    bad = _closed_port_address()
    dialog.scheduler.setText(bad)
    dialog.test_button.click()
    # The GUI is not blocked meanwhile, and says what it waits for.
    assert dialog.test_status.text() == f"Connecting to {bad} (up to 2 s)…"
    qtbot.waitUntil(lambda: dialog.test_thread is None, timeout=30000)
    # A refused port is named at once (it used to wait out the timeout).
    assert f"cannot reach the Dask scheduler at {bad}: connection refused" in dialog.test_status.text()
    dialog.scheduler.setText(cluster.scheduler_address)
    dialog.test_button.click()
    qtbot.waitUntil(lambda: dialog.test_thread is None, timeout=30000)
    assert "Connected: 1 worker, 2 threads" in dialog.test_status.text()
    dialog.reject()
    assert parallel.scheduler_address() is None  # Cancel keeps the old settings


def _sweep_rows(view):
    keys = [view.table.horizontalHeaderItem(c).text() for c in range(view.table.columnCount())]
    rows = []
    for r in range(view.table.rowCount()):
        row = {k: view.table.item(r, c).text() for c, k in enumerate(keys)}
        rows.append(row)
    return sorted(rows, key=lambda row: (float(row["k"]), float(row.get("m", 0))))


def test_compare_tab_and_kmanon_trials_run_on_the_configured_cluster(qtbot, runner, wait_job, cluster):
    from anonstudio.gui.workbenches.kmanon import KmAnonWorkbench
    from anonstudio.gui.workbenches.kmanon.workbench import running_text

    bench = KmAnonWorkbench(runner)
    qtbot.addWidget(bench)
    bench.set_dataset(load_sample("small-city"))
    for name, value in dict(k=10, m=2, sigma=0.9, trials=2, seed=1, verify_samples=400).items():
        bench.param_panel.set_value(name, value)
    view = bench.sweep_view
    assert view.executor is configured_executor
    view.preset_combo.setCurrentIndex(0)
    view.x_combo.setCurrentIndex(view.x_combo.findData("k"))
    view.x_values.setText("5,10,20")
    view.group_combo.setCurrentIndex(0)

    view.start()
    wait_job(view.job, timeout=60000)
    assert view.job.state is JobState.DONE and view.result.complete
    here = _sweep_rows(view)

    parallel.configure(scheduler=cluster.scheduler_address)
    view.start()
    assert f"on the Dask cluster at {cluster.scheduler_address}" in view.status.text()
    wait_job(view.job, timeout=60000)
    assert view.job.state is JobState.DONE and view.result.complete
    assert _sweep_rows(view) == here and len(here) == 3

    # The workbench's own run sends its two trials to the cluster too, and says so while they run.
    bench.param_panel.run_button.click()
    wait_job(bench.job, timeout=60000)
    assert bench.job.state is JobState.DONE
    client = parallel.shared_client(cluster.scheduler_address)
    assert "remote_trial" in _task_prefixes(client) and "remote_cell" in _task_prefixes(client)
    assert "run on the Dask cluster at" in running_text(bench.last_run.result)


def _task_prefixes(client) -> list[str]:
    """Kinds of task the scheduler has run (its task prefixes: function names without the leading underscore)."""
    return client.run_on_scheduler(lambda dask_scheduler: sorted(str(k) for k in dask_scheduler.task_prefixes))


@pytest.mark.alone
def test_cancel_of_the_compare_tab_on_the_cluster_keeps_the_finished_cells(qtbot, runner, wait_job, cluster):
    import time

    from anonstudio.gui.workbenches.kmanon import KmAnonWorkbench

    bench = KmAnonWorkbench(runner)
    qtbot.addWidget(bench)
    bench.set_dataset(load_sample("small-city"))
    for name, value in dict(k=10, sigma=0.999, trials=1, seed=1, verify_samples=400).items():
        bench.param_panel.set_value(name, value)
    view = bench.sweep_view
    view.x_combo.setCurrentIndex(view.x_combo.findData("m"))
    view.x_values.setText("2,4")  # two quick cells, then two that take over a minute unless the cancel reaches them
    view.seeds.setValue(2)
    view.group_combo.setCurrentIndex(0)
    parallel.configure(scheduler=cluster.scheduler_address)
    view.start()
    qtbot.waitUntil(lambda: view.result is not None and view.result.done >= 1, timeout=60000)
    t0 = time.perf_counter()
    view.cancel_button.click()
    wait_job(view.job, timeout=30000)
    assert time.perf_counter() - t0 < 15
    result = view.result
    assert not result.complete and 1 <= result.done <= 2 and view.table.rowCount() == result.done
    assert all(r.status == "done" and r.cell.values["m"] == 2 for r in result.ordered())
    assert "stopped early: the finished cells are shown" in view.status.text()
    assert view.run_button.isEnabled() and not view.cancel_button.isEnabled()
    client = parallel.shared_client(cluster.scheduler_address)
    qtbot.waitUntil(lambda: not sum(client.run(lambda dask_worker: len(dask_worker.active_threads)).values()),
                    timeout=5000)  # the long cells stopped on the worker
