"""Tools › Compare methods: a tiny grid of three families on a bundled sample, on one risk–utility plot."""
from __future__ import annotations

import csv
import io

import pytest
from PySide6.QtCore import QPointF, Qt

from anonstudio.gui.compare_methods import FRONT
from anonstudio.gui.method_workbench import MethodWorkbench
from anonstudio.methods.contract import get_method
from tests.reference.compare_reference import pareto_front_brute

#: Two settings each of three paradigms on the six-person sample (k above 3 leaves nothing to compare).
TINY = {"σ-k^m anonymity": {"k": "2, 3", "m": "2"}, "Nonreciprocal recoding": {"k": "2, 3"},
        "Personalized ρ-uncertainty": {"rho": "0.3, 0.5"}}


@pytest.fixture
def dialog(window, wait_job):
    wait_job(window.datasets.load_sample("sports-example"))
    window.compare_methods_action.trigger()
    d = window.compare_methods_window
    assert [b.title() for b in d.boxes] == list(TINY)  # the families that fit set-valued data
    for box in d.boxes:
        for name, text in TINY[box.title()].items():
            box.edits[name].setText(text)
    return d


def _plotted(d) -> list[tuple[float, float, str]]:
    out = []
    for family in ("kmanon", "nonreciprocal", "rho"):
        name = get_method(family).title
        xs, ys = d.plot.series[name].item.getData()
        if xs is None:  # a family with no release yet
            continue
        out += [(float(x), float(y), family) for x, y in zip(xs, ys)]
    return out


def test_a_tiny_grid_puts_every_release_on_one_plot_with_the_right_front(dialog, wait_job):
    d = dialog
    wait_job(d.start(), timeout=120000)
    c = d.comparison
    assert c.complete and c.done == 6
    assert "6 releases measured" in d.status_label.text()
    points = _plotted(d)
    assert len(points) == 6 and sorted(p[2] for p in points) == ["kmanon"] * 2 + ["nonreciprocal"] * 2 + ["rho"] * 2
    # Every point is a release's (count-query error, prosecutor risk) as the evaluator measured it.
    measured = sorted((r.summary["count_query_error"], r.summary["prosecutor_risk"]) for _g, r in c.points())
    assert sorted((x, y) for x, y, _f in points) == measured
    # The ringed front is the brute-force Pareto set of the plotted points.
    expected = pareto_front_brute([(x, y) for x, y, _f in points])
    fx, fy = d.plot.series[FRONT].item.getData()
    assert sorted(zip(fx.tolist(), fy.tolist())) == sorted((points[i][0], points[i][1]) for i in expected)
    assert len(d._labels) == len(expected)
    # Switching the risk to the share at risk redraws against that measure.
    d.risk_combo.setCurrentIndex(d.risk_combo.findData("share_at_risk"))
    assert "share at risk" in d.plot.y_label
    # The table lists every release with every measure; the CSV holds the keys.
    assert d.table.rowCount() == 6
    headings = [d.table.horizontalHeaderItem(i).text() for i in range(d.table.columnCount())]
    assert {"prosecutor risk", "share at risk", "count-query error", "frequency distortion"} <= set(headings)
    rows = list(csv.DictReader(io.StringIO(d.csv_text())))
    assert [r["method"] for r in rows] == ["kmanon"] * 2 + ["nonreciprocal"] * 2 + ["rho"] * 2
    assert "count-query error" in d.plot.x_label and "prosecutor_risk" in rows[0]


def test_clicking_a_point_or_a_row_opens_that_run_in_its_tab(window, dialog, wait_job, qtbot):
    d = dialog
    wait_job(d.start(), timeout=120000)
    d.resize(1280, 720)
    qtbot.wait(50)
    name = get_method("nonreciprocal").title
    xs, ys = d.plot.series[name].item.getData()
    # A real click on the point's pixel.
    view = d.plot.plot_item.getViewBox()
    scene = view.mapViewToScene(QPointF(float(xs[0]), float(ys[0])))
    widget = d.plot.plot_widget
    pos = widget.mapFromScene(scene)
    qtbot.mouseClick(widget.viewport(), Qt.LeftButton, pos=pos)
    qtbot.waitUntil(lambda: d.opened is not None, timeout=5000)
    bench = window.tabs.currentWidget()
    assert isinstance(bench, MethodWorkbench) and bench.spec.name == "nonreciprocal"
    assert bench.last_run is d.opened and d.opened.params.k == 2 and bench.history[-1] is d.opened
    # A row of the table opens its run too: the third σ-k^m... here the first ρ row.
    row = next(i for i in range(d.table.rowCount()) if d.table.item(i, 0).text() == "Personalized ρ-uncertainty")
    rect = d.table.visualItemRect(d.table.item(row, 1))
    qtbot.mouseClick(d.table.viewport(), Qt.LeftButton, pos=rect.center())
    bench = window.tabs.currentWidget()
    assert bench.spec.name == "rho" and bench.last_run is d.opened and str(d.opened.params.rho) == "0.3"


def test_cancel_keeps_the_finished_releases(dialog, wait_job, qtbot):
    d = dialog
    job = d.start()
    qtbot.waitUntil(lambda: d.comparison is not None and d.comparison.done >= 1, timeout=120000)
    d.cancel_button.click()
    wait_job(job, timeout=60000)
    c = d.comparison
    assert not c.complete and 1 <= c.done < 6
    assert len(_plotted(d)) == c.done and d.table.rowCount() == c.done
    assert f"Stopped: {c.done} of 6 releases kept" in d.status_label.text()
    assert d.run_button.isEnabled() and not d.cancel_button.isEnabled()
    rows = list(csv.DictReader(io.StringIO(d.csv_text())))
    assert len(rows) == 6 and [r["status"] for r in rows].count("not run") == 6 - c.done


def test_a_bad_grid_line_is_named_and_nothing_runs(dialog):
    d = dialog
    d.boxes[0].edits["k"].setText("5,,10")
    assert d.start() is None
    assert "σ-k^m anonymity, k" in d.status_label.text() and "empty value" in d.status_label.text()
    assert d.job is None
