"""Threats workbench: run, Figures 2-3 plots, brushing, victim inspector, cancel, exports.

A 300-row slice of the bundled Adult sample and the paper's 8-row Table I
(``tests/data/threat``) keep every run to a few seconds.
"""
from __future__ import annotations

import csv
import json
from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtCore import QPointF, QRectF, Qt

from anonstudio.data.table import Table
from anonstudio.gui.workbenches.threat import ThreatWorkbench
from anonstudio.gui.workbenches.threat.inspector import DISTRIBUTIONS
from anonstudio.gui.workbenches.threat.tables import MEASURE_NAMES
from anonstudio.gui.workbenches.threat.workbench import PAPER_ADULT_QI
from anonstudio.methods.threat.export import ROW_COLUMNS
from anonstudio.methods.threat.measures import MEASURE_MEANINGS

FAST = {"rows": 300, "iterations": 400, "burn_in": 100, "thinning": 1, "chains": 2, "seed": 3}


@pytest.fixture(scope="module")
def adult300() -> Table:
    from anonstudio.data.samples import load_sample

    table = load_sample("adult")
    frame = table.frame.dropna().iloc[:300].reset_index(drop=True)
    return Table(frame, {}, "adult-300", None)


@pytest.fixture
def bench(window) -> ThreatWorkbench:
    b = window.workbench(ThreatWorkbench)
    window.tabs.setCurrentWidget(b)
    return b


def start(bench, **changes):
    """Set the fast parameters (with ``changes``), press Run and return the job."""
    for name, value in {**FAST, **changes}.items():
        bench.param_panel.set_value(name, value)
    assert not bench.param_panel.error, bench.param_panel.error
    bench.param_panel.run_button.click()
    assert bench.job is not None
    return bench.job


def run_fast(bench, wait_job, **changes) -> None:
    wait_job(start(bench, **changes), timeout=60000)


def true_value_probs(result):
    """p_A and p_L of every row's true value, and the rows each distribution guesses right (ties: any max)."""
    rows = np.arange(result.n_rows)
    s = result.s_true
    pa, pl = result.p_A[rows, s], result.p_L[rows, s]
    thr_a = result.p_A[rows, s] >= result.p_A.max(axis=1) * (1 - 1e-9)
    thr_l = result.p_L[rows, s] >= result.p_L.max(axis=1) * (1 - 1e-9)
    return pa, pl, thr_a, thr_l


@pytest.fixture
def adult_run(window, bench, adult300, wait_job):
    window.set_dataset(adult300)
    run_fast(bench, wait_job)
    assert bench.job.state.value == "done"
    return bench


def test_transaction_data_gets_a_plain_message(window, bench, wait_job, data_dir):
    wait_job(window.open_dataset(data_dir / "gui" / "tiny.dat"))
    assert bench.dataset is None
    text = bench.empty_label.text()
    assert "Threats works on a table" in text and "set-valued data" in text
    assert not bench.param_panel.run_button.isEnabled()


def test_adult_defaults_are_the_papers_columns(window, bench, adult300):
    window.set_dataset(adult300)
    values = bench.param_panel.values()
    assert values["sensitive"] == "occupation"
    assert set(values["qi"]) == set(PAPER_ADULT_QI)
    assert values["known"] == ()  # none ticked: the attacker knows every quasi-identifier
    assert bench.param_panel.error == ""


def test_run_fills_both_scatters_histograms_and_measures(adult_run):
    bench = adult_run
    run = bench.last_run
    result = run.result.estimates
    assert run.complete and result.complete and result.n_rows == 300
    # The callout leads with the contract's verdict, the very line the CLI prints.
    assert bench.callout.text().startswith("<b>Independent check passed</b>: ")
    assert run.spec.describe(run).check.startswith("Independent check passed: ")
    assert "4-anonymous: yes" in bench.callout.text()
    assert "Mondrian, k = 4" in bench.callout.text()
    pa, pl, thr_a, thr_l = true_value_probs(result)
    for scatter, hist, flags in ((bench.scatter_A, bench.hist_A, thr_a), (bench.scatter_L, bench.hist_L, thr_l)):
        x, y = scatter.series["rows"].item.getData()
        assert len(x) == flags.sum() > 0
        assert np.allclose(x, pl[flags]) and np.allclose(y, pa[flags])
        assert np.array_equal(scatter.rows, np.flatnonzero(flags))
        _, counts = hist.series["rows"].x, hist.series["rows"].y
        finite = np.isfinite(np.log2(pa[flags] / pl[flags]))
        assert counts.sum() == finite.sum() > 0
        assert "γ = " in hist.plot_item.titleLabel.text
    assert bench.scatter_A.plot_item.getAxis("bottom").labelText == "learner's probability of the true value p_L"
    assert bench.scatter_A.plot_item.getAxis("left").labelText == "attacker's probability p_A"
    # Measures table: every measure with a value and its plain-language meaning.
    table = bench.measures_table
    assert table.rowCount() == len(result.measures)
    assert table.item(0, 0).text() == MEASURE_NAMES["GT_A"]
    assert table.value_text("GT_A") == f"{result.measures['GT_A']:.4f}"
    assert table.item(0, 2).text() == MEASURE_MEANINGS["GT_A"]
    gt_a = np.mean(thr_a)  # no ties expected with continuous estimates
    assert result.measures["GT_A"] == pytest.approx(gt_a, abs=0.01)
    assert bench.export_row.buttons["rows"].isEnabled()
    assert "Did the sampler settle?" in bench.diagnostics_label.text()
    traced = {n: s for n, s in bench.trace_plot.series.items() if len(s.y)}
    kept_per_chain = result.diagnostics.traces.shape[1]
    assert len(traced) == 3 * FAST["chains"] and all(len(s.y) == kept_per_chain for s in traced.values())
    assert all(n.startswith("pi_S[") for n in traced)
    # The summary links the row with the largest Ti; following it inspects that person.
    worst = int(np.argmax(np.where(thr_a, pa / pl, -np.inf)))
    assert f"row:{worst}'>row {worst + 1}</a>" in bench.callout.text()
    bench.callout.linkActivated.emit(f"row:{worst}")
    assert bench.inspector.row == worst and bench.rows_table.rowCount() == 1
    assert (pa / pl)[worst] == pytest.approx(result.measures["max_Ti"])


def test_selecting_points_lists_rows_and_opens_the_victim(adult_run):
    bench = adult_run
    view = bench.view
    rect = QRectF(0.0, 0.5, 0.5, 0.5)  # learner below 1/2, attacker above: the attacker-better corner
    picked = bench.scatter_A.select_rect(rect)
    flags = view.threatened_A
    expected = np.flatnonzero(flags & (view.p_L <= 0.5) & (view.p_A >= 0.5))
    assert np.array_equal(np.sort(picked), expected) and len(expected) > 0
    table = bench.rows_table
    assert table.rowCount() == len(expected)
    listed = sorted(table.row_at(i) for i in range(table.rowCount()))
    assert listed == expected.tolist()
    shown = sorted(int(table.item(i, 0).text()) for i in range(table.rowCount()))
    assert shown == (expected + 1).tolist()  # the table numbers rows from 1
    assert f"{len(expected)} selected rows" in bench.selection_label.text()
    # The selection is ringed in both scatters where the rows appear.
    ringed_a = bench.scatter_A.series["selected"].x
    assert len(ringed_a) == len(expected)

    # Clicking a listed row opens the victim inspector: three distributions summing to 1.
    line = 0
    row = table.row_at(line)
    table.cellClicked.emit(line, 0)
    assert bench.inspector.row == row
    result = bench.shown.estimates
    for key, (label, _) in DISTRIBUTIONS.items():
        shown = bench.inspector.bars.series[label].y
        assert shown.sum() == pytest.approx(1.0, abs=1e-9)
        assert np.allclose(shown, getattr(result, key)[row])
    group_rows = bench.shown.release.release.group_rows(int(view.group[row]))
    assert bench.inspector.group_table.rowCount() == len(group_rows)
    assert f"row {row + 1}</b>" in bench.inspector.heading.text()  # rows numbered from 1 on screen


def test_dragging_a_rectangle_selects_like_select_rect(adult_run):
    bench = adult_run
    scatter = bench.scatter_L
    vb = scatter.view_box
    start, end = vb.mapViewToScene(QPointF(0.0, 1.0)), vb.mapViewToScene(QPointF(1.0, 0.0))
    got = []
    scatter.selection_changed.connect(lambda rows: got.append(rows))
    drag(scatter, [start, end])
    assert len(got) == 1
    assert np.array_equal(np.sort(got[0]), np.flatnonzero(bench.view.threatened_L))
    assert bench.rows_table.rowCount() == min(len(got[0]), 2000)

    # Shift+drag: a lasso through the unit square's corners below the diagonal selects the learner-better rows.
    corners = [QPointF(-0.01, -0.01), QPointF(1.01, -0.01), QPointF(1.01, 1.01)]  # closing edge: p_A = p_L
    drag(scatter, [vb.mapViewToScene(p) for p in corners], modifiers=Qt.ShiftModifier)
    view = bench.view
    below = np.flatnonzero(view.threatened_L & (view.p_A < view.p_L))
    assert len(got) == 2 and np.array_equal(np.sort(got[1]), below) and len(below) > 0


def test_negative_sampled_rf_is_explained():
    from anonstudio.gui.workbenches.threat.workbench import _rf_caveat

    assert "far from the cleartext" in _rf_caveat({"RF": -0.13, "RF_exact": 0.0})
    assert _rf_caveat({"RF": 0.7, "RF_exact": 0.0}) == "" and _rf_caveat({"RF": -0.1, "RF_exact": 1.0}) == ""


def test_clicking_a_point_inspects_that_row(adult_run, qtbot):
    bench = adult_run
    scatter = bench.scatter_A
    x, y = scatter.series["rows"].x, scatter.series["rows"].y
    # An isolated point, so the click cannot hit a neighbour first.
    gaps = np.hypot(x[:, None] - x[None, :], y[:, None] - y[None, :]) + np.eye(len(x)) * 9
    i = int(np.argmax(gaps.min(axis=1)))
    scene = scatter.view_box.mapViewToScene(QPointF(x[i], y[i]))
    pos = scatter.plot_widget.mapFromScene(scene)
    qtbot.mouseClick(scatter.plot_widget.viewport(), Qt.LeftButton, pos=pos)
    qtbot.waitUntil(lambda: bench.inspector.row == int(scatter.rows[i]), timeout=3000)
    assert bench.selected.tolist() == [int(scatter.rows[i])] and bench.rows_table.rowCount() == 1


def drag(scatter, scene_points, modifiers=Qt.NoModifier) -> None:
    """Replay a left-button drag through ``scene_points`` on a scatter's view."""
    first = scene_points[0]
    for i, point in enumerate(scene_points[1:], start=1):
        event = SimpleNamespace(button=lambda: Qt.LeftButton, buttonDownScenePos=lambda: first,
                                scenePos=lambda p=point: p, isStart=lambda i=i: i == 1,
                                isFinish=lambda i=i: i == len(scene_points) - 1, accept=lambda: None,
                                modifiers=lambda: modifiers)
        scatter._drag(event)


def test_points_in_polygon_matches_qt(qtbot):
    from PySide6.QtGui import QPolygonF

    from anonstudio.gui.workbenches.threat.plots import points_in_polygon

    rng = np.random.default_rng(5)
    for _ in range(20):
        polygon = rng.random((int(rng.integers(3, 9)), 2))  # often self-intersecting
        points = rng.random((300, 2))
        got = points_in_polygon(points[:, 0], points[:, 1], polygon)
        qt = QPolygonF([QPointF(*p) for p in polygon])
        want = [qt.containsPoint(QPointF(*p), Qt.OddEvenFill) for p in points]
        assert got.tolist() == want


def test_cancel_keeps_partial_estimates(window, bench, adult300, qtbot, wait_job):
    window.set_dataset(adult300)
    job = start(bench, iterations=1_000_000, burn_in=10)
    # Estimates arrive while the sampler runs ...
    qtbot.waitUntil(lambda: bench.scatter_A.has_data(), timeout=30000)
    assert not job.state.finished
    assert "still sampling" in bench.callout.text()
    bench.param_panel.cancel_button.click()
    wait_job(job)
    # ... and stay after the cancel, marked incomplete.
    assert job.state.value == "cancelled"
    run = bench.last_run
    assert run is not None and run.result.estimates is not None and not run.complete
    assert not run.result.estimates.complete and run.status == "cancelled"
    assert 0 < run.result.estimates.sweeps < 1_000_000 and run.result.estimates.kept > 0
    assert bench.scatter_A.has_data() and bench.measures_table.rowCount() > 0
    assert "sampling was cancelled" in bench.callout.text()
    assert bench.callout.text().startswith("<b>Independent check incomplete</b>")
    assert bench.callout.state == "incomplete" and not bench.export_row.buttons["release"].isEnabled()


def test_cancel_during_burn_in_shows_no_estimates(window, bench, adult300, qtbot, wait_job):
    window.set_dataset(adult300)
    job = start(bench, iterations=1_000_000, burn_in=999_000)
    qtbot.waitUntil(lambda: "burn-in" in job.status, timeout=30000)
    bench.param_panel.cancel_button.click()
    wait_job(job)
    run = bench.last_run
    assert run.result.estimates is not None and run.result.estimates.kept == 0 and not run.complete
    assert not bench.scatter_A.has_data()
    assert "no estimates" in bench.callout.text()


def test_exports_write_valid_files(adult_run, tmp_path):
    bench = adult_run
    result = bench.shown.estimates
    rows_path = bench.export_to("rows", tmp_path / "rows.csv")
    with open(rows_path, newline="") as fh:
        lines = list(csv.reader(fh))
    assert tuple(lines[0]) == ROW_COLUMNS
    assert len(lines) == 1 + result.n_rows
    pa, pl, thr_a, thr_l = true_value_probs(result)
    assert [int(line[0]) for line in lines[1:]] == list(range(1, result.n_rows + 1))  # rows from 1
    for line in lines[1:]:
        i = int(line[0]) - 1
        assert line[2] == str(result.sensitive_values[result.s_true[i]])
        assert float(line[3]) == pytest.approx(pa[i], rel=1e-5, abs=1e-9)
        assert float(line[4]) == pytest.approx(pl[i], rel=1e-5, abs=1e-9)
        assert int(line[8]) == int(thr_a[i]) and int(line[9]) == int(thr_l[i])

    doc = json.loads((bench.export_to("json", tmp_path / "measures.json")).read_text())
    assert doc["complete"] is True
    assert doc["measures"]["GT_A"] == pytest.approx(result.measures["GT_A"])
    assert set(MEASURE_MEANINGS) <= set(doc["measure_meanings"])
    assert doc["verification"]["ok"] is True
    assert doc["release"]["groups"] == bench.shown.release.release.n_groups
    assert "rows" not in doc  # per-row posteriors are an audit file of their own

    for fmt in ("png", "svg", "csv"):
        path = bench.scatter_A.export(tmp_path / f"scatter.{fmt}")
        data = path.read_bytes()
        assert len(data) > 100
    assert (tmp_path / "scatter.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (tmp_path / "scatter.svg").read_bytes()
    csv_lines = (tmp_path / "scatter.csv").read_text().splitlines()
    assert len([x for x in csv_lines if x.startswith("rows,")]) == int(bench.view.threatened_A.sum())
    bench.inspect_row(0)
    victim_csv = bench.inspector.bars.export(tmp_path / "victim.csv").read_text().splitlines()
    assert victim_csv[0] == "value,p_L,p_A,p_RW" and len(victim_csv) == 1 + len(result.sensitive_values)
    assert not list(tmp_path.glob("*.tmp*"))


def test_imported_csv_reproduces_table_iii(window, bench, wait_job, data_dir):
    """Example 1 of the paper: the victim (Malaysia, 45501) of Table I(b)."""
    folder = data_dir / "threat"
    wait_job(window.open_dataset(folder / "example1_original.csv"))
    panel = bench.param_panel
    assert panel.values()["sensitive"] == "disease" and panel.values()["qi"] == ("nationality", "zip")
    panel.set_value("scheme", "published")
    assert "needs the published CSV file" in panel.error and not panel.run_button.isEnabled()
    assert not panel.editor("rows").isEnabled() and not panel.editor("k").isEnabled()
    panel.set_value("published", folder / "example1_anonymized.csv")
    panel.set_value("domains", folder / "example1_domains.csv")
    panel.set_value("id_column", "id")
    assert panel.error == ""
    run_fast(bench, wait_job, rows=None, iterations=20_000, burn_in=1000, seed=7)
    assert bench.last_run.complete
    assert "imported example1_anonymized.csv" in bench.callout.text()
    assert "<b>Independent check passed</b>: " in bench.callout.text()
    bench.inspect_row(0)
    names = bench.inspector.bars.names
    p_a = dict(zip(names, bench.inspector.distributions["p_A"]))
    p_rw = dict(zip(names, bench.inspector.distributions["p_RW"]))
    # Table III: p_A = (0.58, 0.42, 0, 0, 0), p_RW = (0.5, 0.5, 0, 0, 0) for Heart, Flu, Stomach, HIV, Diabetes.
    assert p_a["Heart"] == pytest.approx(7 / 12, abs=0.02) and p_a["Flu"] == pytest.approx(5 / 12, abs=0.02)
    assert p_rw["Heart"] == pytest.approx(0.5) and p_rw["HIV"] == 0.0
    assert "4550*" in bench.inspector.group_label.text()


def test_anatomy_on_a_slice_and_setup_problems(window, bench, adult300, wait_job):
    window.set_dataset(adult300)
    panel = bench.param_panel
    panel.set_value("qi", ("age", "sex", "race"))
    panel.set_value("known", ("age", "education"))
    assert "can only know quasi-identifiers" in panel.error
    panel.run_button.click()
    assert bench.job is None  # nothing started
    panel.set_value("known", ("age", "sex"))
    run_fast(bench, wait_job, scheme="anatomy", l=3)
    run = bench.shown
    assert run.release.release.scheme == "vertical" and run.estimates.known_qi == ["age", "sex"]
    assert "Anatomy, ℓ = 3" in bench.callout.text() and "3-diverse: yes" in bench.callout.text()
    bench.inspect_row(5)
    assert "unordered bag" in bench.inspector.group_label.text()
