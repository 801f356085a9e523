"""The small-screen pieces on their own: the verdict callout, short tab titles, the plot grid, the dataset bar's
words and the light/dark scheme (the whole window at three sizes is tests/gui/test_layout.py)."""
from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtWidgets import QLabel, QScrollBar, QTabWidget, QWidget

from anonstudio.data.table import Table
from anonstudio.data.transactions import TransactionData
from anonstudio.gui.callout import VerdictCallout, bold_lead, split_verdict
from anonstudio.gui.dataset_bar import DatasetBar, dataset_size
from anonstudio.gui.plot_grid import PlotGrid, columns_for
from anonstudio.gui.plots import ExportablePlot
from anonstudio.gui.tab_titles import full_tab_title, shorten_tab_titles

VERDICT = ("<b>Independent check passed</b>: 40 of 40 itemsets shared by ≥ 5 people (100.00 %), σ = 1: confirmed"
           "<br><b>Any 2 towers a stranger knows match at least 5 people.</b><br>See the <a href='graph'>graph</a>.")


def test_split_verdict_takes_the_first_line_as_plain_text():
    head, rest = split_verdict(VERDICT)
    assert head.startswith("Independent check passed: 40 of 40") and "<b>" not in head
    assert rest.startswith("<b>Any 2 towers") and "graph" in rest
    assert split_verdict("Only one line") == ("Only one line", "")
    # A power keeps its exponent on the plain line: "about 10<sup>14</sup>" became "about 1014".
    assert split_verdict("about 10<sup>14</sup> pairs, k<sup>m</sup>, e<sup>x2</sup>")[0] == \
        "about 10¹⁴ pairs, kᵐ, e^(x2)"
    assert bold_lead(VERDICT) == "Independent check passed"
    # Only bold words that open the line are the verdict: a colon alone does not make one.
    assert bold_lead("Running… progress and time left: Jobs panel below.") == ""


def test_the_callout_shows_one_line_and_unfolds_its_details(qtbot):
    callout = VerdictCallout()
    qtbot.addWidget(callout)
    callout.resize(420, 60)
    callout.show()
    callout.show_text(VERDICT, "ok")
    qtbot.wait(20)
    assert callout.text() == VERDICT and callout.state == "ok"
    # Folded: one line, elided to the width (the tooltip has it whole), no body, no scroll bar anywhere.
    shown = callout.head_label.text()
    assert shown.startswith("<b>Independent check passed</b>: ") and shown.endswith("…")
    assert callout.head_label.toolTip().startswith("Independent check passed: 40 of 40")
    assert not callout.body.isVisible() and callout.details_button.isVisible()
    assert callout.sizeHint().height() < 2.5 * callout.fontMetrics().height()
    assert not [b for b in callout.findChildren(QScrollBar) if b.isVisible()]
    # Unfolded: the whole text (the line was cut, so the verdict too), links forwarded.
    callout.details_button.click()
    qtbot.wait(20)
    assert callout.expanded and callout.body.isVisible() and callout.body.text() == VERDICT
    assert callout.head_label.text() == "<b>Independent check passed</b>"  # not the line the body repeats
    assert callout.sizeHint().height() > 3 * callout.fontMetrics().height()
    with qtbot.waitSignal(callout.linkActivated) as clicked:
        callout.body.linkActivated.emit("graph")
    assert clicked.args == ["graph"]
    callout.details_button.click()
    assert not callout.body.isVisible() and callout.head_label.text() == shown


def test_a_short_verdict_has_no_details_button(qtbot):
    callout = VerdictCallout("Set the parameters on the right and press “Run”.")
    qtbot.addWidget(callout)
    callout.resize(600, 80)
    callout.show()
    qtbot.wait(20)
    assert not callout.has_details() and not callout.details_button.isVisible()
    callout.show_text("<b>Independent check FAILED</b>: 3 groups below k<br>Do not publish this release.", "failed")
    qtbot.wait(20)
    assert callout.state == "failed" and callout.details_button.isVisible()
    callout.set_expanded(True)
    # Not cut: only what the line does not show.
    assert callout.body.text() == "Do not publish this release."


def test_tab_titles_are_shortened_with_the_full_title_kept(qtbot):
    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    for title in ("Map of the partitions", "Compare parameter values", "Release"):
        tabs.addTab(QWidget(), title)
    tabs.setTabToolTip(1, "A tooltip of its own")
    assert shorten_tab_titles(tabs) == 2
    assert [tabs.tabText(i) for i in range(3)] == ["Partition map", "Compare", "Release"]
    assert tabs.tabToolTip(0) == "Map of the partitions" and tabs.tabToolTip(1) == "A tooltip of its own"
    assert [full_tab_title(tabs, i) for i in range(3)] == ["Map of the partitions", "Compare parameter values",
                                                          "Release"]
    assert shorten_tab_titles(tabs) == 0  # idempotent


@pytest.mark.parametrize(("width", "count", "columns"), [(1000, 3, 3), (959, 3, 2), (640, 3, 2), (639, 3, 1),
                                                         (700, 2, 2), (500, 2, 1), (200, 1, 1)])
def test_columns_for(width, count, columns):
    assert columns_for(width, count) == columns


def test_the_plot_grid_reflows_below_320_px_a_plot(qtbot):
    plots = [QLabel(f"plot {i}") for i in range(3)]
    grid = PlotGrid(plots)
    qtbot.addWidget(grid)
    grid.show()
    for width, columns in ((1000, 3), (800, 2), (500, 1)):
        grid.resize(width, 600)
        qtbot.wait(10)
        assert grid.columns == columns
        # No plot narrower than 320 px unless the grid is a single column narrower than that.
        assert min(p.width() for p in plots) >= min(320, width) - 8, (width, [p.width() for p in plots])
    grid.resize(800, 600)
    qtbot.wait(10)
    # Two columns: the third plot takes the whole second row.
    assert plots[2].y() > plots[0].y() and plots[2].width() > plots[0].width()


def test_the_dataset_bar_says_name_and_size():
    records = TransactionData.from_records([[0, 1], [1, 2], [2]], name="baskets")
    table = Table(pd.DataFrame({"age": [30, 40], "zip": ["1", "2"]}), name="people.csv")
    assert dataset_size(records) == "3 records, 3 items"
    assert dataset_size(table) == "2 rows, 2 columns"


def test_the_dataset_bar_offers_roles_only_for_a_table(qtbot):
    bar = DatasetBar()
    qtbot.addWidget(bar)
    assert not bar.view_button.isEnabled() and not bar.roles_button.isEnabled()
    bar.set_dataset(Table(pd.DataFrame({"age": [30, 40]}), name="people.csv"))
    assert bar.name_label.text() == "people.csv" and bar.roles_button.isEnabled() and bar.view_button.isEnabled()
    bar.set_dataset(TransactionData.from_records([[0]], name="one"))
    assert not bar.roles_button.isEnabled() and bar.size_label.text() == "1 records, 1 items"


def test_the_scheme_follows_the_forced_setting_and_recolours_plots(qtbot, monkeypatch):
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication

    from anonstudio.gui.scheme import ENV, PLOT_COLOURS, apply_scheme, desktop_scheme

    monkeypatch.setenv(ENV, "dark")
    assert desktop_scheme() == "dark"
    monkeypatch.setenv(ENV, "light")
    assert desktop_scheme() == "light"
    root = QWidget()
    qtbot.addWidget(root)
    plot = ExportablePlot("A plot", x_label="x", y_label="y", parent=root)
    plot.add_series("black", kind="line", color="#000000")
    plot.set_series("black", [1, 2], [1, 2])  # in the legend
    try:
        assert apply_scheme(root, "dark") == "dark"
        assert QApplication.instance().palette().color(QPalette.Window).lightness() < 128
        background, foreground = PLOT_COLOURS["dark"]
        assert plot.plot_widget.backgroundBrush().color().name() == background
        assert plot.plot_item.getAxis("left").textPen().color().name() == foreground
        assert [foreground in label.item.toHtml() for _, label in plot.legend.items] == [True]
        assert plot.series["black"].item.opts["pen"].color().name() == foreground
        # A plot made while dark is dark from the start.
        later = ExportablePlot("Later", x_label="x", y_label="y", parent=root)
        assert later.plot_widget.backgroundBrush().color().name() == background
    finally:
        apply_scheme(root, "light")
    assert plot.plot_widget.backgroundBrush().color().name() == "#ffffff"
    assert plot.series["black"].item.opts["pen"].color().name() == "#000000"
    assert QApplication.instance().palette().color(QPalette.Window).lightness() >= 128


def test_a_tab_built_after_the_data_gets_short_sub_tab_titles(window, wait_job, qtbot):
    """Tabs are built when first shown: one opened after a dataset was loaded still gets its short titles."""
    from anonstudio.gui.workbenches.threat.workbench import ThreatWorkbench

    wait_job(window.datasets.load_sample("adult"))
    qtbot.waitUntil(lambda: window.dataset is not None, timeout=20000)
    assert not any(isinstance(b, ThreatWorkbench) for b in window.built_workbenches())
    bench = window.workbench(ThreatWorkbench)
    titles = [bench.tabs.tabText(i) for i in range(bench.tabs.count())]
    assert "(a)(b) Attacker" in titles and "(a)(b) Attacker right" not in titles, titles


def test_a_tab_built_later_restyles_its_own_plots_only(window, monkeypatch):
    """Building a tab gives its plots the window's scheme and leaves the plots drawn before alone; a change of
    scheme restyles them all."""
    from anonstudio.gui import scheme
    from anonstudio.gui.workbenches.rho import RhoWorkbench
    from anonstudio.gui.workbenches.rt import RTWorkbench

    restyled: list[ExportablePlot] = []
    real = scheme.restyle_plot
    monkeypatch.setattr(scheme, "restyle_plot", lambda plot, name: (restyled.append(plot), real(plot, name)))
    first = window.workbench(RhoWorkbench)
    assert restyled and set(restyled) <= set(first.findChildren(ExportablePlot))
    restyled.clear()
    second = window.workbench(RTWorkbench)
    assert set(restyled) == set(second.findChildren(ExportablePlot))
    restyled.clear()
    window.set_dataset(window.dataset)  # nothing new: nothing restyled
    assert restyled == []
    try:
        scheme.apply_scheme(window, "dark")
        assert set(first.findChildren(ExportablePlot)) | set(second.findChildren(ExportablePlot)) <= set(restyled)
        background = scheme.PLOT_COLOURS["dark"][0]
        assert all(p.plot_widget.backgroundBrush().color().name() == background
                   for p in window.findChildren(ExportablePlot))
        restyled.clear()
        window.set_dataset(window.dataset)
        assert restyled == []
    finally:
        scheme.apply_scheme(window, "light")


def test_the_same_scheme_again_keeps_the_style_sheet(qtbot, monkeypatch):
    """Setting the sheet a window has re-polishes every widget of it (about 90 ms a window): skipped."""
    from anonstudio.gui.scheme import apply_scheme

    root = QWidget()
    qtbot.addWidget(root)
    apply_scheme(root, "light")
    sheets: list[str] = []
    monkeypatch.setattr(root, "setStyleSheet", sheets.append, raising=False)
    apply_scheme(root, "light")
    assert sheets == []
    try:
        apply_scheme(root, "dark")
        assert len(sheets) == 1 and sheets[0] != root.styleSheet()
    finally:
        monkeypatch.undo()
        apply_scheme(root, "light")
