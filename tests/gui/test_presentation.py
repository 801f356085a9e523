"""Presentation mode: F11 enters (full screen, docks hidden, text 1.5x), arrows step the attack demo, Esc leaves."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from anonstudio.gui.presentation import SCALE
from anonstudio.gui.workbenches.uniqueness.workbench import UniquenessWorkbench


@pytest.fixture
def demo(window, qtbot, wait_job):
    wait_job(window.datasets.load_sample("sports-example"))
    qtbot.waitUntil(lambda: window.dataset is not None)
    bench = window.workbench(UniquenessWorkbench)
    window.tabs.setCurrentWidget(bench)
    bench.tabs.setCurrentWidget(bench.attack_demo)
    return bench.attack_demo


def test_f11_presents_and_esc_restores_everything(window, demo, qtbot):
    bench = window.tabs.currentWidget()
    window.resize(1280, 720)
    qtbot.wait(50)
    rect, point = window.geometry(), demo.person_items.font().pointSizeF()
    widths = {d: d.width() for d in (window.datasets_dock, window.params_dock)}
    docks = {d: d.isVisible() for d in (window.datasets_dock, window.params_dock, window.jobs_dock)}
    plot = demo.plot.plot_item
    tick = plot.getAxis("left").style.get("tickFont")
    tick_points = (tick or demo.plot.font()).pointSizeF()

    QTest.keyClick(window, Qt.Key_F11)
    assert window.presentation.active and window.presentation.action.isChecked()
    assert window.isFullScreen()
    assert not any(d.isVisible() for d in docks) and not window.menuBar().isVisible()
    assert demo.person_items.font().pointSizeF() == pytest.approx(point * SCALE, rel=0.02)
    assert demo.count_original.font().pointSizeF() > demo.person_items.font().pointSizeF()
    assert plot.getAxis("left").style["tickFont"].pointSizeF() == pytest.approx(tick_points * SCALE, rel=0.01)
    assert bench.guide.isHidden() and bench.export_row.isHidden() and not bench.callout.isHidden()

    QTest.keyClick(window, Qt.Key_Escape)
    assert not window.presentation.active and not window.isFullScreen()
    assert {d: d.isVisible() for d in docks} == docks and window.menuBar().isVisible()
    assert demo.person_items.font().pointSizeF() == pytest.approx(point)
    assert plot.getAxis("left").style.get("tickFont") == tick
    assert not bench.guide.isHidden() and not bench.export_row.isHidden()
    qtbot.wait(50)
    assert window.geometry() == rect
    assert {d: d.width() for d in widths} == widths


def test_arrows_step_the_attack_demo_with_an_animated_count(window, demo, qtbot):
    demo.person_box.setValue(1)
    QTest.keyClick(window, Qt.Key_F11)
    count = demo.count_original
    QTest.keyClick(window, Qt.Key_Right)  # starts the attack on person #1 and reveals the first item
    assert demo.revealed == 1
    population = demo.trace.population
    first = demo.trace.steps[0].matches
    assert count.target == first < population
    assert count.running  # the room sees the number run down…
    qtbot.waitUntil(lambda: not count.running, timeout=3000)
    assert count.shown == first and f"{first:,}" in count.text()  # …and stop at the new count
    QTest.keyClick(window, Qt.Key_Right)
    assert demo.revealed == 2 and count.target == demo.trace.steps[1].matches <= first
    assert demo.revealed_list.count() == 2

    QTest.keyClick(window, Qt.Key_Left)
    count.finish()
    assert demo.revealed == 1 and count.shown == first and demo.revealed_list.count() == 1
    QTest.keyClick(window, Qt.Key_Left)
    count.finish()
    assert demo.revealed == 0 and count.shown == population and demo.revealed_list.count() == 0
    assert "knows nothing yet" in demo.verdict.text()
    QTest.keyClick(window, Qt.Key_Escape)
    assert not window.presentation.active
    QTest.keyClick(window, Qt.Key_Right)  # outside presentation mode the arrows are the widgets' own
    assert demo.revealed == 0


def test_a_tab_that_has_not_run_points_at_ctrl_r_not_at_the_hidden_parameters(window, demo, qtbot):
    bench = window.tabs.currentWidget()
    ready = bench.callout.text()
    assert "parameters on the right" in ready
    QTest.keyClick(window, Qt.Key_F11)
    assert "Ctrl+R" in bench.callout.text() and "on the right" not in bench.callout.text()
    QTest.keyClick(window, Qt.Key_Escape)
    assert bench.callout.text() == ready



def test_a_tab_first_shown_while_presenting_is_presented_like_the_others(window, demo, qtbot):
    """No visible text points at the hidden parameters, and plots get the same larger text, built before or after."""
    from PySide6.QtWidgets import QLabel

    from anonstudio.gui.plots import ExportablePlot

    QTest.keyClick(window, Qt.Key_F11)
    stale, sizes = [], {}
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)  # builds the tab now if it was not shown before
        bench = window.tabs.widget(index)
        stale += [(window.tabs.tabText(index), label.text()) for label in bench.findChildren(QLabel)
                  if label.isVisibleTo(bench) and ("(right)" in label.text() or "on the right" in label.text())]
        for plot in bench.findChildren(ExportablePlot):
            sizes.setdefault(plot.plot_item.getAxis("bottom").labelStyle.get("font-size"), []).append(
                window.tabs.tabText(index))
    QTest.keyClick(window, Qt.Key_Escape)
    assert stale == []
    assert len(sizes) == 1, sizes  # the Risk tab was built before F11, the others after
    after = {plot.plot_item.getAxis("bottom").labelStyle.get("font-size")
             for index in range(window.tabs.count()) for plot in window.tabs.widget(index).findChildren(ExportablePlot)}
    assert len(after) == 1 and after != set(sizes), after  # every tab back to one normal size
