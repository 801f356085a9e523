"""Keyboard: a workbench walked with keys only, undo/redo of parameters, Ctrl+R and Esc, accessible names."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QSpinBox

from anonstudio.gui.accessibility import unnamed
from anonstudio.gui.shortcuts import action_by_shortcut
from anonstudio.gui.workbenches.kmanon import KmAnonWorkbench
from anonstudio.gui.workers import JobState

MAX_TABS = 600


def tab_to(window, target, qtbot) -> None:
    """Press Tab until ``target`` has the focus (fails if it is not in the Tab chain)."""
    for _ in range(MAX_TABS):
        if QApplication.focusWidget() is target:
            return
        QTest.keyClick(QApplication.focusWidget() or window, Qt.Key_Tab)
    raise AssertionError(f"Tab never reached {target!r}")


def type_number(widget, value) -> None:
    QTest.keyClick(widget, Qt.Key_A, Qt.ControlModifier)
    QTest.keyClicks(widget, str(value))
    QTest.keyClick(widget, Qt.Key_Tab)


def test_keyboard_only_walk_loads_sets_k_runs_and_exports(window, qtbot, wait_job, monkeypatch, tmp_path, dialogs):
    import anonstudio.gui.method_workbench as mw

    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None or window.isActiveWindow(), timeout=3000)
    # 1. A bundled sample from the datasets dock: on a small screen the dock starts folded into the dataset bar,
    # whose Datasets toggle (Tab to it, Space) unfolds it; then Tab to the list, arrow to the small city, Enter.
    toggle = window.small_screens.bar.toggle_button
    if toggle.isVisible() and not window.datasets.isVisible():
        tab_to(window, toggle, qtbot)
        QTest.keyClick(toggle, Qt.Key_Space)
        qtbot.waitUntil(lambda: window.datasets.isVisible(), timeout=3000)
    samples = window.datasets.samples
    tab_to(window, samples, qtbot)
    QTest.keyClick(samples, Qt.Key_Home)
    for _ in range(samples.count()):
        if samples.currentItem().data(Qt.UserRole) == "small-city":
            break
        QTest.keyClick(samples, Qt.Key_Down)
    QTest.keyClick(samples, Qt.Key_Return)
    qtbot.waitUntil(lambda: window.dataset is not None, timeout=20000)
    assert window.dataset.name.startswith("small-city") or "city" in window.dataset.name.lower()

    # 2. The σ-k^m tab: Tab to the tab bar, arrow right until it is current.
    bar = window.tabs.tabBar()
    tab_to(window, bar, qtbot)
    bench = window.workbench(KmAnonWorkbench)
    for _ in range(window.tabs.count()):
        if window.tabs.currentWidget() is bench:
            break
        QTest.keyClick(bar, Qt.Key_Right)
    assert window.tabs.currentWidget() is bench

    # 3. Its parameters, typed: k, m, σ, and (Advanced settings opened with Space) a small check.
    panel = bench.param_panel
    for name, value in (("k", 50), ("m", 2), ("sigma", 0.9)):
        tab_to(window, panel.editor(name), qtbot)
        type_number(panel.editor(name), value)
    tab_to(window, panel.advanced_toggle, qtbot)
    QTest.keyClick(panel.advanced_toggle, Qt.Key_Space)
    tab_to(window, panel.editor("verify_samples"), qtbot)
    type_number(panel.editor("verify_samples"), 1000)
    values = panel.values()
    assert (values["k"], values["m"], values["sigma"], values["verify_samples"]) == (50, 2, 0.9, 1000)

    # 4. Ctrl+R runs the current tab.
    QTest.keyClick(QApplication.focusWidget(), Qt.Key_R, Qt.ControlModifier)
    assert bench.job is not None
    wait_job(bench.job, timeout=60000)
    qtbot.waitUntil(lambda: bench.last_run is not None, timeout=10000)
    assert bench.last_run.status == "done"

    # 5. Export: Tab to the first enabled Save button of the export row, Space.
    target = tmp_path / "release.csv"
    monkeypatch.setattr(mw, "save_file_dialog", lambda *a, **k: target)
    button = next(b for b in bench.export_row.buttons.values() if hasattr(b, "click") and b.isEnabled())
    tab_to(window, button, qtbot)
    QTest.keyClick(button, Qt.Key_Space)
    assert not dialogs
    assert target.exists() and target.stat().st_size > 0, (button.text(), window.statusBar().currentMessage())


def test_undo_and_redo_restore_the_exact_parameter_states(window, qtbot):
    bench = window.workbench(KmAnonWorkbench)
    window.tabs.setCurrentWidget(bench)
    panel = bench.param_panel
    stack = panel.history.stack
    assert window.undo_group.activeStack() is stack
    start = panel.values()
    k_box: QSpinBox = panel.editor("k")
    for _ in range(4):  # four arrow steps of one spin box: one undo step
        k_box.stepUp()
    after_k = panel.values()
    panel.set_value("m", 3)
    after_m = panel.values()
    bound = panel.editor("bound")
    bound.setCurrentIndex((bound.currentIndex() + 1) % bound.count())
    after_bound = panel.values()
    assert stack.count() == 3
    assert after_k["k"] == start["k"] + 4

    undo = action_by_shortcut(window, "Ctrl+Z")
    redo = action_by_shortcut(window, "Ctrl+Shift+Z")
    for expected in (after_m, after_k, start):
        undo.trigger()
        assert panel.values() == expected
    assert not stack.canUndo()
    for expected in (after_k, after_m, after_bound):
        redo.trigger()
        assert panel.values() == expected
    # A new edit after undo drops the redo branch, as everywhere else.
    undo.trigger()
    panel.set_value("k", 7)
    assert not stack.canRedo() and panel.values()["k"] == 7
    assert "k = 7" in stack.text(stack.index() - 1)


def test_undo_is_per_workbench_and_a_new_dataset_is_not_an_undo_step(window, qtbot, wait_job):
    from anonstudio.gui.workbenches.uniqueness.workbench import UniquenessWorkbench

    km = window.workbench(KmAnonWorkbench)
    risk = window.workbench(UniquenessWorkbench)
    km.param_panel.set_value("k", 33)
    window.tabs.setCurrentWidget(risk)
    assert window.undo_group.activeStack() is risk.param_panel.history.stack
    assert not window.undo_action.isEnabled()  # the Risk tab has no edits of its own
    wait_job(window.datasets.load_sample("sports-example"))
    qtbot.waitUntil(lambda: window.dataset is not None)
    assert risk.param_panel.history.stack.count() == 0
    window.tabs.setCurrentWidget(km)
    assert window.undo_action.isEnabled()
    window.undo_action.trigger()
    assert km.param_panel.values()["k"] == 20


def test_ctrl_r_without_data_says_why_and_esc_cancels_the_running_job(window, qtbot, wait_job):
    bench = window.workbench(KmAnonWorkbench)
    window.tabs.setCurrentWidget(bench)
    QTest.keyClick(window, Qt.Key_R, Qt.ControlModifier)
    assert bench.job is None
    assert "load a dataset first" in window.statusBar().currentMessage()
    wait_job(window.datasets.load_sample("small-city"))
    qtbot.waitUntil(lambda: window.dataset is not None)
    # Large enough to still run when Esc arrives.
    bench.param_panel.set_values({"k": 50, "m": 3, "trials": 50, "seed": 1})
    QTest.keyClick(window, Qt.Key_R, Qt.ControlModifier)
    job = bench.job
    assert job is not None
    QTest.keyClick(window, Qt.Key_Escape)
    wait_job(job, timeout=30000)
    # Either the job ended as cancelled, or the run it returned says it was stopped (partial result kept).
    assert job.state is JobState.CANCELLED or bench.last_run.status == "cancelled"


@pytest.mark.parametrize("with_data", [False, True])
def test_every_button_table_and_plot_has_an_accessible_name(window, qtbot, wait_job, with_data):
    if with_data:
        wait_job(window.datasets.load_sample("sports-example"))
        qtbot.waitUntil(lambda: window.dataset is not None)
    missing = []
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        bench = window.tabs.currentWidget()
        for widget in unnamed(bench) + (unnamed(bench.param_panel) if bench.param_panel else []):
            missing.append(f"{bench.TITLE}: {type(widget).__name__} {widget.objectName()!r}")
    missing += [f"datasets: {type(w).__name__}" for w in unnamed(window.datasets)]
    assert not missing, "\n".join(missing)
