"""Tools › Compare runs: runs of several methods on one dataset in one table and one trade-off plot."""
from __future__ import annotations

import csv
import io

from anonstudio.gui.workbenches.kmanon.workbench import KmAnonWorkbench
from anonstudio.gui.workbenches.uniqueness.workbench import UniquenessWorkbench
from anonstudio.methods.sweep import pareto_front


def test_runs_of_two_methods_are_compared(window, wait_job, data_dir):
    wait_job(window.open_dataset(data_dir / "gui" / "tiny.dat"))
    risk = window.workbench(UniquenessWorkbench)
    risk.param_panel.set_value("max_m", 2)
    risk.param_panel.run_button.click()
    wait_job(risk.job)
    km = window.workbench(KmAnonWorkbench)
    for k in (2, 4):
        km.param_panel.set_value("k", k)
        km.param_panel.set_value("m", 2)
        km.param_panel.run_button.click()
        wait_job(km.job)
    window.show_compare_runs()
    view = window.compare_runs_window
    assert view.list.count() == 3 and view.table.rowCount() == 3
    rows = view.rows()
    assert [r["method"] for r in rows] == ["uniqueness", "kmanon", "kmanon"]
    shared = [m for m in view.measures() if all(m in r for r in rows[1:])]
    x, y = shared[0], shared[1]
    view.x_combo.setCurrentText(x)
    view.y_combo.setCurrentText(y)
    xs, ys = view.plot.series["runs"].item.getData()
    assert len(xs) == sum(1 for r in rows if x in r and y in r)
    expected = pareto_front({i: r for i, r in enumerate(rows) if x in r and y in r}, {x: True, y: True})
    fx, _ = view.plot.series["Pareto front"].item.getData()
    assert len(fx) == len(expected) >= 1
    # Unticking a run takes it out of the table and the CSV.
    from PySide6.QtCore import Qt

    view.list.item(0).setCheckState(Qt.Unchecked)
    assert view.table.rowCount() == 2
    table = list(csv.DictReader(io.StringIO(view.csv_text())))
    assert [r["method"] for r in table] == ["kmanon", "kmanon"] and table[0]["status"] == "done"


def test_tools_compare_values_opens_the_current_tabs_compare_tab(window):
    km = window.workbench(KmAnonWorkbench)
    window.tabs.setCurrentWidget(km)
    window.compare_values_action.trigger()
    assert km.results.currentWidget() is km.sweep_view


def test_the_compare_tab_builds_its_plots_when_first_shown_in_the_windows_scheme(window, qtbot):
    from anonstudio.data.samples import load_sample
    from anonstudio.gui.plots import ExportablePlot
    from anonstudio.gui.scheme import PLOT_COLOURS, apply_scheme
    from anonstudio.gui.sweep_view import FRONT

    window.set_dataset(load_sample("chess"))  # the results show only with data
    km = window.workbench(KmAnonWorkbench)
    window.tabs.setCurrentWidget(km)
    view = km.sweep_view
    assert not view.findChildren(ExportablePlot)  # not built with the tab
    try:
        apply_scheme(window, "dark")
        window.compare_values_action.trigger()
        qtbot.waitUntil(lambda: view.findChildren(ExportablePlot) and view.curve.isVisible())
        background = PLOT_COLOURS["dark"][0]
        for plot in (view.curve, view.tradeoff):
            assert plot.isVisible() and plot.plot_widget.backgroundBrush().color().name() == background
        assert list(view.tradeoff.series) == ["cells", FRONT]
    finally:
        apply_scheme(window, "light")
    assert view.curve.plot_widget.backgroundBrush().color().name() == "#ffffff"
