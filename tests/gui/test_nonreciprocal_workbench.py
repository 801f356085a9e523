"""Nonreciprocal workbench: release chips and possible worlds, Fig. 6 sweep, orders, graph view, check, exports."""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QMessageBox

from anonstudio.data.samples import get_sample, load_sample
from anonstudio.data.transactions import TransactionData
from anonstudio.gui import method_workbench
from anonstudio.gui.chips import ChipDelegate
from anonstudio.gui.param_panel import ParamPanel
from anonstudio.gui.workbench import Workbench
from anonstudio.gui.workbenches.nonreciprocal import NonreciprocalWorkbench
from anonstudio.gui.workbenches.nonreciprocal import graph_view as graph_module
from anonstudio.gui.workbenches.nonreciprocal.figures import SERIES, THIS_RUN
from anonstudio.gui.workbenches.nonreciprocal.graph_view import ALL, TRUE, UNIFIED
from anonstudio.gui.workbenches.nonreciprocal.order_view import COMPARED, SHOWN
from anonstudio.gui.workers import JobState
from anonstudio.methods.nonreciprocal.compare import FITS, LINK
from anonstudio.methods.nonreciprocal.spec import K_SWEEP, L_SWEEP
from anonstudio.params import param

EXAMPLE = "sports-example"


@dataclass(frozen=True)
class Few:
    """Parameters of a bare workbench (the job-bookkeeping test)."""

    n: int = param(1, label="n", minimum=1, maximum=5, tooltip="a number")


@pytest.fixture(scope="module")
def example():
    return load_sample(EXAMPLE)


@pytest.fixture
def bench(qtbot, runner, example):
    widget = NonreciprocalWorkbench(runner)
    qtbot.addWidget(widget)
    widget.resize(1280, 760)
    widget.show()
    widget.set_dataset(example)
    return widget


def run_and_wait(bench, qtbot, wait_job, **values):
    """Set parameters, press Publish, wait for the run and for its Fig. 6 sweep."""
    for name, value in values.items():
        bench.param_panel.set_value(name, value)
    bench.param_panel.run_button.click()
    wait_job(bench.job, timeout=60000)
    qtbot.waitUntil(lambda: bench.last_run is not None and bench.figure_job is None, timeout=60000)
    return bench.last_run


def random_data(n, b=12, seed=3):
    rng = np.random.default_rng(seed)
    return TransactionData.from_id_lists([np.flatnonzero(rng.random(b) < 0.3) for _ in range(n)], n_items=b,
                                         name=f"random-{n}")


# ------------------------------------------------------------------ release table and possible worlds
def test_worked_example_release_side_by_side_and_possible_worlds(bench, qtbot, wait_job):
    assert bench.param_panel.values()["labels"] == get_sample(EXAMPLE).file("labels")  # the sample's labels
    run = run_and_wait(bench, qtbot, wait_job, k=3)
    assert run.status == "done"
    view = bench.release_view
    assert isinstance(view.published.delegate, ChipDelegate)  # the studio's shared chips
    published = view.comparison.published
    assert published.n_rows == 6 and published.columns == ("record", "base", "distance", "threshold", "label",
                                                            "name")
    # Table 3, r'1: base 1101, distance 1011, threshold 2 (items 1 and 4 may be missing, 2 is certain)
    record, base, dist, threshold, label, name = published.cells(0)
    assert (record, name, threshold) == ("0", "1", "2")
    assert [(c.text, c.kind) for c in base] == [("1 Jogging", "general"), ("2 Swimming", "value"),
                                               ("4 Soccer", "general")]
    assert [c.text for c in dist] == ["1 Jogging", "3 Tennis", "4 Soccer"] and published.cells(4)[3] == "1"
    # selecting r3 (row 2) in the release: their items highlighted, their possible worlds named and listed
    assert view.select_row(2)
    assert set(view.published.delegate.highlight) == {0, 1, 3}
    assert "Person 2 could be 4 published records: 0, 2, 4 by the generalization graph" in view.detail.text()
    worlds = bench.worlds_view
    assert worlds.person == 2 and worlds.person_box.value() == 2
    # r3 fits r'1, r'3, r'5 by the graph (Table 4) and r'6 by chance (note T6)
    source = worlds.source
    assert source.slots.tolist() == [0, 2, 4, 5] and source.linked.tolist() == [True, True, True, False]
    assert [source.cells(i)[1] for i in range(4)] == [LINK, LINK, LINK, FITS]
    model = worlds.table.rows_model
    shaded = [model.data(model.index(r, 0), Qt.BackgroundRole) is not None for r in range(4)]
    assert shaded == [True, True, True, False]
    summary = worlds.summary.text()
    assert "could be <b>4</b>" in summary and "3 linked by the generalization graph" in summary
    assert "1 more that fit by chance" in summary and "“3” in PUBLISHED.csv" in summary
    # searching the release by item
    match = published.search("Tennis")
    assert match.rows.tolist() == [1, 2, 3, 5] and "Tennis" in match.text


def test_promise_and_check_sit_side_by_side(bench, qtbot, wait_job):
    run_and_wait(bench, qtbot, wait_job, k=3)
    text = bench.callout.text()
    assert "could be any of at least 3 published records" in text and "Independent check passed" in text
    assert "See why in the graph" in text and bench.callout.state == "ok"
    bench._link("tab:graph")
    assert bench.tabs.currentWidget() is bench.graph_view
    lines = bench.check_view.lines.text()
    assert "every person matches at least 3 published records" in lines and "✗" not in lines
    people = bench.check_view.plot.series["people"]
    assert dict(zip(people.x.tolist(), people.y.tolist())) == {3.0: 3.0, 4.0: 2.0, 6.0: 1.0}
    assert bench.check_view.k_line.isVisible() and bench.check_view.k_line.value() == pytest.approx(np.log10(3))


def test_a_failed_check_is_crossed_out(bench, qtbot, wait_job):
    from anonstudio.gui.workbenches.nonreciprocal.check_view import check_lines_html

    run = run_and_wait(bench, qtbot, wait_job, k=3)
    run.verification.below_m, run.verification.min_worlds = 2, 1
    text = check_lines_html(run)
    assert "FAILED" in text and "✗" in text and text.count("✗") == 1


# ------------------------------------------------------------------ Fig. 6
def test_fig6_sweep_fills_in_live_around_the_run(bench, qtbot, wait_job, monkeypatch):
    seen = []
    original = bench.fig_view.show_sweep
    monkeypatch.setattr(bench.fig_view, "show_sweep",
                        lambda result, run, running: (seen.append((result.done, running)), original(result, run,
                                                                                                     running)))
    run = run_and_wait(bench, qtbot, wait_job, k=3)
    assert any(running for _, running in seen) and seen[-1] == (6, False)
    er = bench.fig_view.measure_points("er")
    # the paper's k = 2, 4 (8 and 16 exceed the 6 records) and the run's own k = 3, for both orders
    assert er[SERIES["gray"][0]][0] == [2.0, 3.0, 4.0] and er[SERIES["gray-tsp"][0]][0] == [2.0, 3.0, 4.0]
    assert er[THIS_RUN] == ([3.0], [pytest.approx(run.result.error_rate)])
    # the run's own cell was taken from the run, not recomputed
    sweep = bench._fig_results[run]
    own = next(r for r in sweep.ordered() if r.cell.params == run.params)
    assert own.summary["error_rate"] == run.result.error_rate and own.seconds == run.seconds
    assert bench.tabs.tabText(bench.figure_tab) == "ER and QE vs k"
    bench.fig_view.set_measure("qe2")
    qe = bench.fig_view.measure_points("qe")
    assert qe[THIS_RUN][1] == [pytest.approx(run.result.query_error.type2)]
    assert "Type II" in bench.fig_view.qe_plot.y_label


def test_fig6_sweep_reads_and_stores_cells_through_the_result_cache(bench, qtbot, wait_job):
    from anonstudio.methods.sweep import CellResult

    stored = []

    class Cache:
        """Stands in for studio.cache.ResultCache: one cell known, new cells recorded."""

        def sweep_hooks(self, spec, data):
            def cached(cell):
                if cell.values == {"k": 2, "order": "gray"}:
                    return CellResult(cell, "done", {"error_rate": 0.5}, 0.0)
                return None
            return cached, stored.append

        def put(self, run):
            return True

    bench.result_cache = Cache()
    run_and_wait(bench, qtbot, wait_job, k=3)
    er = bench.fig_view.measure_points("er")
    assert er[SERIES["gray"][0]][1][0] == 0.5  # taken from the cache, not recomputed
    # six cells: the run's own and the cached one are not run again, the other four are stored
    assert sorted((r.cell.values["k"], r.cell.values["order"]) for r in stored) == [
        (2, "gray-tsp"), (3, "gray"), (4, "gray"), (4, "gray-tsp")]


def test_l_sweep_draws_ring_greedy_and_cahd_and_names_refused_cells(bench, qtbot, wait_job):
    run = run_and_wait(bench, qtbot, wait_job, l=2)
    assert bench.param_panel.values()["k"] is None and run.status == "done"
    assert run.result.cahd is not None
    er = bench.fig_view.measure_points("er")
    for key in ("ring", "greedy", "cahd"):
        assert 2.0 in er[SERIES[key][0]][0], key
    assert er[SERIES["cahd"][0]][1][0] == pytest.approx(run.result.cahd.error_rate)
    # the ring needs every label on at most n / (2ℓ - 1) records: ℓ = 3 is refused on six records, named
    status = bench.fig_view.status.text()
    assert "Refused: NR ring at ℓ = 3" in status
    assert bench.tabs.tabText(bench.figure_tab) == "ER and QE vs ℓ"


def test_stopping_the_sweep_keeps_its_points_and_run_again_restarts_it(bench, qtbot, wait_job):
    bench.set_dataset(random_data(600, b=40))
    bench.param_panel.set_value("k", 3)
    bench.param_panel.run_button.click()
    wait_job(bench.job, timeout=60000)
    qtbot.waitUntil(lambda: bench.figure_job is not None and bench.fig_view.result is not None, timeout=10000)
    job = bench.figure_job
    bench.fig_view.stop_button.click()
    wait_job(job, timeout=60000)
    qtbot.waitUntil(lambda: bench.figure_job is None, timeout=10000)
    stored = bench._fig_results[bench.last_run]
    assert job.state is JobState.CANCELLED and not stored.complete
    assert "stopped early" in bench.fig_view.status.text() and bench.fig_view.rerun_button.isEnabled()
    bench.fig_view.rerun_button.click()
    qtbot.waitUntil(lambda: bench.figure_job is None and bench._fig_results.get(bench.last_run) is not None
                    and bench._fig_results[bench.last_run].complete, timeout=120000)


def test_a_new_run_stops_the_sweep_and_keeps_cancel_enabled(qtbot, runner):
    """A background job ending while another job of the workbench runs must not disable Cancel."""
    bench = Workbench(runner)
    qtbot.addWidget(bench)
    bench.param_panel = ParamPanel(Few)
    gates = [threading.Event(), threading.Event()]
    first = bench.submit("sweep", lambda p: gates[0].wait(10), key="a")
    second = bench.submit("run", lambda p: gates[1].wait(10), key="b")
    assert bench.param_panel.cancel_button.isEnabled()
    gates[0].set()
    qtbot.waitUntil(lambda: first.state.finished, timeout=10000)
    assert bench.param_panel.cancel_button.isEnabled()  # the run still goes on
    gates[1].set()
    qtbot.waitUntil(lambda: second.state.finished, timeout=10000)
    qtbot.waitUntil(lambda: not bench.param_panel.cancel_button.isEnabled(), timeout=5000)


# ------------------------------------------------------------------ order and comparison
def test_order_bars_and_a_compared_run(bench, qtbot, wait_job):
    first = run_and_wait(bench, qtbot, wait_job, k=3)
    hamming = bench.order_view.hamming.series[SHOWN]
    assert hamming.y.tolist() == [14.0, 12.0, 10.0]  # input, Gray, Gray-TSP of the worked example
    assert "from 14 to 12" in bench.order_view.note.text()
    second = run_and_wait(bench, qtbot, wait_job, k=2, order="gray")
    assert bench.order_view.hamming.series[SHOWN].y.tolist() == [14.0, 12.0]
    bench.history_bar.compare_combo.setCurrentIndex(bench.history_bar.compare_combo.findData(0))
    assert bench.compared_run is first
    assert bench.order_view.hamming.series[COMPARED].y.tolist() == [14.0, 12.0, 10.0]
    er = bench.fig_view.measure_points("er")
    assert any(name.endswith("(compared)") for name in er)
    bench.history_bar.compare_combo.setCurrentIndex(0)
    assert len(bench.order_view.hamming.series[COMPARED].x) == 0
    assert second.params.k == 2


def test_k_and_l_exclude_each_other_and_the_compare_tab_follows(bench):
    panel = bench.param_panel
    assert panel.values()["k"] == 5 and panel.values()["l"] is None and panel.error == ""
    assert bench.sweep_view.preset_combo.currentData() is K_SWEEP
    panel.set_value("l", 2)
    assert panel.values()["k"] is None and panel.values()["l"] == 2
    assert bench.sweep_view.preset_combo.currentData() is L_SWEEP
    panel.set_value("k", 4)
    assert panel.values()["l"] is None and bench.sweep_view.preset_combo.currentData() is K_SWEEP


def test_k_is_clamped_to_small_data_and_sample_labels_leave_with_the_sample(bench, example):
    panel = bench.param_panel
    panel.set_value("k", 40)
    bench.set_dataset(random_data(12))
    assert panel.values()["k"] == 12 and panel.values()["labels"] is None
    bench.set_dataset(example)
    assert panel.values()["labels"] == get_sample(EXAMPLE).file("labels")


# ------------------------------------------------------------------ graph view
def test_graph_of_the_worked_example_bipartite_and_unified(bench, qtbot, wait_job):
    run = run_and_wait(bench, qtbot, wait_job, k=3)
    graph = bench.graph_view.graph
    assert graph is not None and graph.n == 6 and len(graph.edges) == 18
    assert bench.graph_view.stack.currentIndex() == 1
    canvas = bench.graph_view.canvas
    # every person 3 links out, every published record 3 in, one link per assignment each
    assert np.bincount(graph.edges[:, 0]).tolist() == [3] * 6 and np.bincount(graph.edges[:, 1]).tolist() == [3] * 6
    assert len(canvas.visible_edges()) == 18
    bench.graph_view.show_combo.setCurrentIndex(bench.graph_view.show_combo.findData(TRUE))
    true_edges = canvas.visible_edges()
    assert len(true_edges) == 6 and (true_edges[:, 2] == run.result.chosen).all()
    assert sorted(true_edges[:, 1].tolist()) == list(range(6))  # a perfect matching
    assert (true_edges[:, 1] == run.result.alpha[true_edges[:, 0]]).all()
    bench.graph_view.show_combo.setCurrentIndex(bench.graph_view.show_combo.findData(ALL))
    bench.tabs.setCurrentWidget(bench.graph_view)
    for view in ("bipartite", UNIFIED):
        bench.graph_view.view_combo.setCurrentIndex(bench.graph_view.view_combo.findData(view))
        point = canvas.person_position(2)
        qtbot.mouseClick(canvas, Qt.LeftButton, pos=QPoint(int(point.x()), int(point.y())))
        assert canvas.selected == 2 and bench.worlds_view.person == 2
        assert bench.release_view.selected_row() == 2
        text = bench.graph_view.text.text()
        assert "r3" in text and "r′6" in text  # r'6 fits without a link (dashed)
        qtbot.mouseClick(canvas, Qt.LeftButton, pos=QPoint(int(point.x()), int(point.y())))
        assert canvas.selected is None
    image = QImage(canvas.size(), QImage.Format_ARGB32)
    image.fill(0)
    painter = QPainter(image)
    canvas.render_graph(painter, canvas.rect().toRectF())
    painter.end()
    assert image.pixelColor(canvas.rect().center()).isValid()


def test_graph_waits_above_60_records_and_offers_the_worked_example(bench, qtbot, wait_job, monkeypatch):
    bench.set_dataset(random_data(61))
    run_and_wait(bench, qtbot, wait_job, k=3)
    assert bench.graph_view.graph is None and bench.graph_view.stack.currentIndex() == 0
    assert "at most 60 records" in bench.graph_view.message.text() and "61" in bench.graph_view.message.text()
    bench.graph_view.example_button.click()  # no main window: the workbench loads the sample itself
    qtbot.waitUntil(lambda: bench.dataset is not None and bench.dataset.name == EXAMPLE, timeout=10000)
    qtbot.waitUntil(lambda: bench.last_run is not None and bench.graph_view.graph is not None, timeout=60000)
    assert bench.param_panel.values()["k"] == 3 and bench.tabs.currentWidget() is bench.graph_view


def test_the_worked_example_is_one_click_from_an_empty_window(window, qtbot):
    bench = window.workbench(NonreciprocalWorkbench)
    assert "worked example" in bench.empty_label.text() and "href='example'" in bench.empty_label.text()
    assert "href='example'" in bench.guide.body.text()
    bench.empty_label.linkActivated.emit("example")
    qtbot.waitUntil(lambda: bench.dataset is not None and bench.dataset.name == EXAMPLE, timeout=20000)
    assert window.tabs.currentWidget() is bench and window.dataset is bench.dataset  # every tab got it
    qtbot.waitUntil(lambda: bench.last_run is not None and bench.graph_view.graph is not None, timeout=60000)
    qtbot.waitUntil(lambda: bench.figure_job is None, timeout=60000)


# ------------------------------------------------------------------ exports
def test_audit_files_and_pictures_ask_first(bench, qtbot, wait_job, monkeypatch, tmp_path):
    run_and_wait(bench, qtbot, wait_job, k=3, include_assignment=True)
    asked, chosen = [], []
    answer = {"value": QMessageBox.No}
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: (asked.append(a[1]), answer["value"])[1])

    def choose(parent, title, default, extensions=(), start=""):
        chosen.append(title)
        return tmp_path / (default if Path(default).suffix else default + extensions[0])

    monkeypatch.setattr(method_workbench, "save_file_dialog", choose)
    monkeypatch.setattr(graph_module, "save_file_dialog", choose)
    for key in ("graph", "order", "json"):
        bench.export_dialog(key)
    bench.graph_view.save_dialog()
    assert len(asked) == 4 and chosen == []  # every audit file asked, none written after "No"
    answer["value"] = QMessageBox.Yes
    bench.export_dialog("json")
    bench.graph_view.save_dialog()
    report = json.loads((tmp_path / "sports-example-nonreciprocal-json.json").read_text())
    assert report["chosen_assignment"] == bench.last_run.result.chosen + 1
    assert (tmp_path / "generalization-graph.png").read_bytes()[:4] == b"\x89PNG"
    # a release is no audit file: saved without a question
    asked.clear()
    bench.export_dialog("release")
    assert asked == [] and (tmp_path / "sports-example-nonreciprocal-release.csv").read_text().startswith(
        "record,base,distance,threshold,label")
    svg = bench.graph_view.save_picture(tmp_path / "graph.svg")
    assert b"<svg" in svg.read_bytes()


def test_fig6_keeps_broken_promises_ringed_and_names_refused_cells(qtbot):
    """Greedy ℓ runs the check finds not ℓ-diverse still show their error (the paper plots it), ringed red."""
    from anonstudio.gui.workbenches.nonreciprocal.figures import NOT_MET, Fig6View
    from anonstudio.methods.nonreciprocal.params import NonreciprocalParams
    from anonstudio.methods.sweep import Axis, CellResult, SweepResult, make_grid

    axes = (Axis("l", (2, 3)), Axis("l_method", ("ring", "greedy")))
    cells = make_grid(NonreciprocalParams(l=2, labels=get_sample(EXAMPLE).file("labels")), axes)
    outcome = {(2, "ring"): ("done", 0.30, 0.20), (2, "greedy"): ("done", 0.25, 0.20),
               (3, "ring"): ("failed", None, None), (3, "greedy"): ("not-met", 0.40, 0.35)}
    result = SweepResult("nonreciprocal", axes, tuple(cells), complete=True)
    for cell in cells:
        status, er, cahd_er = outcome[(cell.values["l"], cell.values["l_method"])]
        summary = {} if er is None else {"error_rate": er, "cahd_error_rate": cahd_er}
        result.results[cell.index] = CellResult(cell, status, summary,
                                                error="label 'a' is too frequent" if er is None else "")
    view = Fig6View()
    qtbot.addWidget(view)
    view.show_sweep(result, None, running=False)
    er = view.measure_points("er")
    assert er[SERIES["ring"][0]] == ([2.0], [0.30])
    assert er[SERIES["greedy"][0]] == ([2.0, 3.0], [0.25, 0.40])
    assert er[SERIES["cahd"][0]] == ([2.0, 3.0], [0.20, 0.35])  # ℓ = 3 from the greedy cell
    assert er[NOT_MET] == ([3.0], [0.40])
    status = view.status.text()
    assert "Promise not met</span> (red squares): NR greedy at ℓ = 3." in status
    assert "Refused: NR ring at ℓ = 3 (label &#x27;a&#x27; is too frequent)" in status
