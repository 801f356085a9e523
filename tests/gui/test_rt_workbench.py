"""RT workbench: settings from the data, the published table and cluster inspector, the comparison of the
merge heuristics over δ (a live background sweep), the run's losses and check, cancel, exports, history.

Runs use 500 people of the bundled small-clinic sample (a run takes well under a second), the paper's
6-person example and the INFORMS-shaped people + items pair of ``tests/data/rt``.
"""
from __future__ import annotations

import csv
import html
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt

from anonstudio.data.samples import get_sample, load_sample
from anonstudio.data.table import Table
from anonstudio.glossary import term
from anonstudio.gui.chips import CELL_ROLE
from anonstudio.gui.workbenches.rt import RTWorkbench
from anonstudio.gui.workbenches.rt import workbench as workbench_module
from anonstudio.gui.workbenches.rt.heuristics import (
    ALONG,
    COMPARED,
    EMPTY,
    HEURISTICS,
    NO_WORKLOAD,
    THIS_RUN,
    VS_DELTA,
    HeuristicComparison,
    are_slots,
)
from anonstudio.gui.workbenches.rt.run_view import NCP, NCP_CMP, UL, UL_CMP
from anonstudio.gui.workbenches.rt.workbench import comparison_key, comparison_text
from anonstudio.jobs import RecordingProgress
from anonstudio.methods.contract import (
    CHECK_FAILED,
    CHECK_INCOMPLETE,
    CHECK_PASSED,
    get_method,
    run_and_verify,
    verdict,
)
from anonstudio.methods.rt.params import RTParams
from anonstudio.methods.sweep import Axis, make_grid, run_sweep
from anonstudio.params import from_dict

DATA = Path(__file__).resolve().parents[1] / "data" / "rt"
EXAMPLE = dict(qi=("age", "origin", "gender"), items_column="items", k=2, m=2, item_fanout=0,
               sensitive_items=DATA / "sensitive.txt",
               hierarchies=(("origin", DATA / "origin_hierarchy.csv"), ("gender", DATA / "gender_hierarchy.csv")))


def adult400() -> Table:
    return Table(load_sample("adult").frame.iloc[:400].reset_index(drop=True), {}, "adult (400 rows)", None)


@pytest.fixture(scope="module")
def clinic500() -> Table:
    table = load_sample("small-clinic")
    return Table(table.frame.iloc[:500].reset_index(drop=True), dict(table.roles), "clinic-500", None)


@pytest.fixture(autouse=True)
def short_comparisons(monkeypatch):
    """Each run's automatic comparison at 3 values of δ instead of 6: the same curves and marks, fewer cells."""
    grid = workbench_module.delta_grid
    monkeypatch.setattr(workbench_module, "delta_grid", lambda *args, **kwargs: grid(*args, points=3, **kwargs))


@pytest.fixture
def bench(window) -> RTWorkbench:
    b = window.workbench(RTWorkbench)
    window.tabs.setCurrentWidget(b)
    return b


def run(bench, wait_job, **changes):
    for name, value in changes.items():
        bench.param_panel.set_value(name, value)
    assert bench.param_panel.error == "", bench.param_panel.error
    bench.param_panel.run_button.click()
    job = bench.job
    wait_job(job, timeout=60000)
    return bench.last_run


def wait_comparison(bench, qtbot, timeout=90000):
    qtbot.waitUntil(lambda: bench.comparison_job is not None and bench.comparison_job.state.finished,
                    timeout=timeout)


# ------------------------------------------------------------------ settings from the data
def test_the_sample_brings_its_settings_and_a_table_with_items_gets_a_guess(window, bench, clinic500):
    window.set_dataset(load_sample("small-clinic"))
    expected = from_dict(RTParams, get_sample("small-clinic").method_params("rt"))
    assert bench.param_panel.params() == expected
    assert "Small synthetic clinic" in bench.callout.text()
    # A table nobody described: the ';' column is the items column, the id column is left out, race is a code.
    window.set_dataset(Table(clinic500.frame, {}, "people", None))
    values = bench.param_panel.values()
    assert values["items_column"] == "diagnoses" and values["qi"] == ("age", "sex", "race", "zip3")
    assert values["categorical"] == ("race",) and "a guess" in bench.callout.text()
    # No items column: say what to choose, and Run waits for it.
    window.set_dataset(Table(pd.DataFrame({"age": [30, 40], "sex": ["F", "M"]}), {}, "no-items", None))
    assert "No column holds items" in bench.callout.text()
    # Adult-shaped tables get the Adult settings (occupation as each person's item).
    data, params = adult400(), get_method("rt").adult_params()
    window.set_dataset(data)
    assert bench.param_panel.params() == params and bench.param_panel.run_button.isEnabled()


def callout_text(bench) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", bench.callout.text().replace("<br>", "\n")))


def test_every_plotted_measure_has_a_glossary_entry():
    get_method("rt")  # the family's terms are registered when it is discovered
    for _, _, key in [*VS_DELTA.values(), *ALONG.values()]:
        assert term(key, "rt").meaning
    for key in ("Rum", "Tum", "BTD", "bound", "merge", "cluster", "clusters", "max_cluster_size", "merges",
                "km_anonymity", "rum_check", "tum_check"):
        assert term(key, "rt").family == "rt"


# ------------------------------------------------------------------ run, table, inspector
def test_a_run_fills_the_published_table_and_the_inspector(window, bench, clinic500, wait_job):
    window.set_dataset(clinic500)
    r = run(bench, wait_job, k=10)
    assert r.status == "done" and bench.callout.state == "ok"
    assert "matches at least 10 people" in bench.callout.text()
    # The callout leads with the verdict in the words the CLI prints.
    assert callout_text(bench).splitlines()[0] == verdict(r) and verdict(r).startswith(f"{CHECK_PASSED}: ")
    result = r.result
    view = bench.side_by_side
    left, right = view.original.rows_model, view.published.rows_model
    assert left.rowCount() == right.rowCount() == 500
    assert right.source.columns == ("row", "cluster", "age", "sex", "race", "zip3", "diagnoses")
    # The first person is selected: their cluster is marked in both tables and inspected below.
    cluster = int(result.assignment[0])
    members = np.flatnonzero(result.assignment == cluster)
    for model in (left, right):
        marked = [i for i in range(500) if model.index(i, 1).data(Qt.BackgroundRole) is not None]
        assert marked == members.tolist()
    assert bench.inspector.cluster == cluster
    assert f"{len(members):,} people" in bench.inspector.heading.text()
    assert bench.inspector.cells.rowCount() == 4
    assert bench.inspector.cells.item(0, 1).text() == result.cells()[cluster][0]
    # Published cells are chips; the items column lists the person's published items, keyed so that the
    # original items they cover light up with them.
    published = right.index(0, 6).data(CELL_ROLE)
    assert published and all(chip.kind in ("item", "partition", "sensitive") for chip in published)
    keys = {chip.key for chip in published if chip.key >= 0}
    assert set(view.published.delegate.highlight) == keys and set(view.original.delegate.highlight) == keys
    age_chip = right.index(0, 2).data(CELL_ROLE)[0]
    assert age_chip.text == result.cells()[cluster][0]
    assert age_chip.kind == ("value" if age_chip.text == str(clinic500.frame["age"].iloc[0]) else "general")
    original = left.index(0, 5).data(CELL_ROLE)
    assert [c.text for c in original] == clinic500.frame["diagnoses"].iloc[0].split(";")
    assert {c.key for c in original if c.kind == "item"} == keys
    assert right.index(0, 1).data(Qt.DisplayRole) == str(cluster + 1)  # as the cluster column of ANON.csv
    assert right.index(0, 0).data(Qt.DisplayRole) == left.index(0, 0).data(Qt.DisplayRole) == "1"  # rows from 1
    assert bench.inspector.heading.text().startswith(f"<b>Cluster {cluster + 1}</b>")
    # "Only this cluster" lists the cluster; "rows of a cluster together" orders by cluster.
    view.group_only.setChecked(True)
    assert left.rowCount() == len(members) and [left.data_row(i) for i in range(len(members))] == members.tolist()
    view.group_only.setChecked(False)
    view.sort_by_group.setChecked(True)
    order = [right.data_row(i) for i in range(500)]
    assert np.all(np.diff(result.assignment[order]) >= 0)
    # Selecting another person inspects their cluster.
    other = int(np.flatnonzero(result.assignment != cluster)[0])
    view.select_row(other)
    assert bench.inspector.cluster == int(result.assignment[other])
    assert view.detail.text().startswith(f"Row {other + 1} is published in cluster {result.assignment[other] + 1}")


def test_the_run_tab_shows_losses_along_the_merges_figures_and_the_check(window, bench, clinic500, wait_job):
    window.set_dataset(clinic500)
    result = run(bench, wait_job, k=10).result
    plot = bench.run_view.plot
    assert list(plot.series[NCP].y) == pytest.approx([result.initial_rum, *result.rum_trace])
    assert list(plot.series[UL].y) == pytest.approx([result.initial_tum, *result.tum_trace])
    measures = bench.run_view.measures
    assert measures.item(0, 1).text() == f"{result.rum:.4g}" and measures.columnCount() == 2
    checks = [bench.run_view.checks.item(i).text() for i in range(bench.run_view.checks.count())]
    lines = bench.last_run.verification.lines()
    assert len(checks) == len(lines) and not any(c.startswith("✘") for c in checks)
    assert sum(c.startswith("✔") for c in checks) == sum(line.startswith("ok") for line in lines) >= 6
    assert bench.run_view.check_heading.text() == f"<b>{CHECK_PASSED}</b>"
    # δ's tooltip now says where the bound becomes infeasible on this data.
    assert f"{result.initial_rum:.3f}" in bench.param_panel.editor("delta").toolTip()


def test_progress_of_a_running_run_is_drawn_live(window, bench, clinic500):
    window.set_dataset(clinic500)
    bench.show_result({"phase": "cluster", "clusters": 50, "rum": 0.2}, True)
    bench.show_result({"phase": "merge", "merges": 32, "rum": 0.3, "tum": 0.9}, True)
    bench.show_result({"phase": "merge", "merges": 64, "rum": 0.4, "tum": 0.8}, True)
    plot = bench.run_view.plot
    assert list(plot.series[NCP].x) == [0, 32, 64] and list(plot.series[UL].y) == [0.9, 0.8]
    assert "64 merges so far" in bench.callout.text()


def test_a_cancelled_run_keeps_its_clusters_as_a_partial_table(window, bench, clinic500):
    window.set_dataset(clinic500)
    params = replace(bench.param_panel.params(), k=10)
    stopped = run_and_verify(bench.spec, clinic500, params, RecordingProgress(cancel_after_partials=1))
    assert stopped.status == "cancelled"
    bench._on_done(stopped, False)
    assert bench.callout.state == "incomplete" and callout_text(bench).startswith(f"{CHECK_INCOMPLETE}: ")
    assert bench.run_view.check_heading.text().startswith(f"<b>{CHECK_INCOMPLETE}</b>: the run was cancelled")
    assert bench.side_by_side.original.rows_model.rowCount() == 500
    assert bench.comparison_job is None  # no comparison is started for a stopped run
    assert not bench.export_row.buttons["release"].isEnabled()


def test_an_infeasible_bound_publishes_nothing(window, bench, wait_job):
    window.set_dataset(get_method("rt").open_dataset(DATA / "example.csv"))
    bench.param_panel.set_params(RTParams(**EXAMPLE, delta=0.1))
    r = run(bench, wait_job)
    assert r.status == "not-met" and bench.callout.state == "failed"
    assert not bench.export_row.buttons["release"].isEnabled()
    assert "Nothing may be published" in bench.side_by_side.title.text()
    assert bench.side_by_side.published.rows_model.rowCount() == 0
    assert bench.run_view.check_heading.text() == f"<b>{CHECK_FAILED}</b>"
    assert callout_text(bench).startswith(f"{CHECK_FAILED}: nothing is published")
    # The curves leave out runs that could not meet their δ: no star either.
    assert len(bench.comparison.plots["rum"].series[THIS_RUN].x) == 0


def test_release_export_writes_the_anonymized_table(window, bench, tmp_path, wait_job):
    window.set_dataset(get_method("rt").open_dataset(DATA / "example.csv"))
    bench.param_panel.set_params(RTParams(**EXAMPLE, delta=0.8, merge="t"))
    r = run(bench, wait_job)
    assert r.status == "done" and bench.export_row.buttons["release"].isEnabled()
    path = bench.export_to("release", tmp_path / "ANON.csv")
    rows = list(csv.reader(path.open()))
    assert rows[0] == ["cluster", "age", "origin", "gender", "items"] and len(rows) == 7
    # Fig. 2d: John, Steve, Ann and Jim in one cluster, Mary and Zoe in the other.
    assert [row[1] for row in rows[1:]] == ["[19-70]", "[19-70]", "[28-39]", "[28-39]", "[19-70]", "[19-70]"]


def test_an_items_file_joined_on_the_person_id(window, bench, wait_job, tmp_path):
    spec = get_method("rt")
    window.set_dataset(spec.open_dataset(DATA / "people.csv"))
    assert "No column holds items" in bench.callout.text()
    # Without the row of a person the people file lacks (such a row is refused: the join would drop it).
    conditions = tmp_path / "conditions.csv"
    conditions.write_text("".join(ln for ln in (DATA / "conditions.csv").read_text().splitlines(keepends=True)
                                  if '"30009011"' not in ln))
    r = run(bench, wait_job, items_file=conditions, person_column="DUPERSID", items_column="ICD9CODX",
            qi=("DOBYY", "SEX", "RACEX"), categorical=("SEX", "RACEX"), k=2, m=1, delta=1.0, item_fanout=2)
    assert r.status == "done" and bench.side_by_side.published.rows_model.rowCount() == 5
    assert bench.side_by_side.published.rows_model.source.columns[-1] == "items"


# ------------------------------------------------------------------ comparison of the heuristics
@pytest.mark.slow
def test_the_comparison_runs_in_the_background_and_fills_every_curve(window, bench, clinic500, wait_job, qtbot):
    window.set_dataset(clinic500)
    r = run(bench, wait_job, k=10, delta=0.6)
    assert bench.comparison_job is not None  # a quick run: the comparison starts by itself
    wait_comparison(bench, qtbot)
    result = bench.comparison.result
    deltas = sorted({c.values["delta"] for c in result.cells})
    assert 0.6 in deltas and deltas[0] > r.result.initial_rum and deltas[-1] == pytest.approx(0.95)
    assert result.complete and result.done == 3 * len(deltas)
    assert "runs" in bench.comparison.status.text() and "so far" not in bench.comparison.status.text()
    # Every heuristic has a point at every δ where it could publish; the run shown is one of them.
    rum_plot = bench.comparison.plots["rum"]
    for merge, (name, _, _) in HEURISTICS.items():
        xs, ys = rum_plot.series[name].x, rum_plot.series[name].y
        met = [c.values["delta"] for c in result.cells if c.values["merge"] == merge
               and result.results[c.index].status == "done"]
        assert sorted(xs) == sorted(met) and np.all(ys <= xs + 1e-9)  # Rum ≤ δ (Rum-bound)
    star = rum_plot.series[THIS_RUN]
    assert list(star.x) == [0.6] and list(star.y) == pytest.approx([r.result.rum])
    shown = [c for c in result.cells if c.params == r.params]
    assert len(shown) == 1 and result.results[shown[0].index].seconds == r.seconds  # reused, not run again
    slots = are_slots(result.measures())
    assert slots == {"are_demographics": "are_R2", "are_items": "are_T2", "are_both": "are_R1T2"}
    for key in ("are_demographics", "are_items", "are_both", "tum", "max_cluster_size"):
        assert any(len(bench.comparison.plots[key].series[n].x) for n, _, _ in HEURISTICS.values()), key
    # Along the merges: one trace per heuristic at the chosen δ, starting from Cluster's losses.
    bench.comparison.trace_combo.setCurrentIndex(bench.comparison.trace_combo.findData(0.6))
    along = bench.comparison.along["rum"]
    assert along.series[HEURISTICS[r.params.merge][0]].y[0] == pytest.approx(r.result.initial_rum)
    assert list(along.series[HEURISTICS[r.params.merge][0]].y[1:]) == pytest.approx(r.result.rum_trace)
    assert all(len(along.series[n].y) > 1 for n, _, _ in HEURISTICS.values())

    # Another δ or heuristic keeps the comparison (it is one of its points); another k starts afresh.
    job = bench.comparison_job
    run(bench, wait_job, delta=0.5, merge="r")
    assert bench.comparison_job is job and bench.comparison.result is result
    assert list(bench.comparison.plots["rum"].series[THIS_RUN].x) == [0.5]
    run(bench, wait_job, k=12)
    assert bench.comparison_job is not job


def test_a_slow_comparison_waits_for_the_button(window, bench, clinic500, wait_job, monkeypatch):
    monkeypatch.setattr(workbench_module, "AUTO_COMPARE_SECONDS", 0.0)
    window.set_dataset(clinic500)
    run(bench, wait_job, k=10, delta=0.6)
    assert bench.comparison_job is None
    assert "press “Compare R, T and RT” to start them" in bench.comparison.status.text()
    assert bench.comparison.run_button.isEnabled() and not bench.comparison.cancel_button.isEnabled()


@pytest.mark.slow
def test_the_comparison_can_be_cancelled_and_restarted_by_hand(window, bench, clinic500, wait_job, qtbot):
    window.set_dataset(clinic500)
    run(bench, wait_job, k=10)
    wait_comparison(bench, qtbot)
    bench.comparison.deltas_edit.setText("0.5, 0.9")
    bench.comparison.run_button.click()
    assert not bench.comparison.run_button.isEnabled() and bench.comparison.cancel_button.isEnabled()
    bench.comparison.cancel_button.click()
    wait_comparison(bench, qtbot)
    assert bench.comparison.run_button.isEnabled()
    result = bench.comparison.result
    assert result is None or not result.complete or result.done == 6
    bench.comparison.deltas_edit.setText("0.5, 2")
    bench.comparison.run_button.click()
    assert "δ" in bench.comparison.status.text() and bench.comparison.run_button.isEnabled()


def test_comparison_key_and_text():
    base = RTParams(qi=("age",), items_column="items", k=10)
    assert comparison_key(replace(base, delta=0.3, merge="t")) == comparison_key(base)
    assert comparison_key(replace(base, k=11)) != comparison_key(base)
    spec = get_method("rt")
    data = spec.open_dataset(DATA / "example.csv")
    cells = make_grid(RTParams(**EXAMPLE), (Axis("delta", (0.1, 0.8)), Axis("merge", ("r", "t", "rt"))))
    sweep = run_sweep(spec, data, cells, axes=())
    text = comparison_text(sweep, running=False)
    assert text.startswith("6 of 6 runs (2 values of δ × R, T, RT) in ")
    assert "Nothing published (δ cannot be met): R at δ = 0.1, T at δ = 0.1, RT at δ = 0.1." in text
    # More than six misses: the list ends in an ellipsis, without a full stop after it.
    cells = make_grid(RTParams(**EXAMPLE), (Axis("delta", (0.02, 0.05, 0.1)), Axis("merge", ("r", "t", "rt"))))
    text = comparison_text(run_sweep(spec, data, cells, axes=()), running=False)
    assert text.endswith(" …") and text.count("δ =") == 6


def test_an_are_plot_without_its_workload_says_why(qtbot):
    # Adult: each person has one item (their occupation), so no query asks for 2 items.
    spec = get_method("rt")
    data, params = adult400(), spec.adult_params()
    cells = make_grid(params, (Axis("delta", (0.8,)), Axis("merge", ("r",))))
    view = HeuristicComparison()
    qtbot.addWidget(view)
    view.show_sweep(run_sweep(spec, data, cells, axes=()), {})
    assert view.plots["are_demographics"].has_data()
    for key in ("are_items", "are_both"):
        assert view.plots[key].empty_label.text() == NO_WORKLOAD[key]
    view.clear()
    assert view.plots["are_items"].empty_label.text() == EMPTY


def test_the_largest_cluster_axis_writes_thousands_separators(qtbot):
    view = HeuristicComparison()
    qtbot.addWidget(view)
    axis = view.plots["max_cluster_size"].plot_item.getAxis("left")
    assert axis.tickStrings([0.0, 5000.0, 15000.0], 1.0, 5000.0) == ["0", "5,000", "15,000"]
    assert axis.labelText == "people"


def test_are_slots_follow_the_workload_names():
    assert are_slots(["rum", "are_R2", "are_T2", "are_R1T2"]) == {
        "are_demographics": "are_R2", "are_items": "are_T2", "are_both": "are_R1T2"}
    # Workloads of a queries file with their own names fill the plots in order.
    assert are_slots(["are_ages", "are_codes"]) == {"are_demographics": "are_ages", "are_items": "are_codes",
                                                   "are_both": None}


# ------------------------------------------------------------------ history comparison
@pytest.mark.slow
def test_comparing_with_an_earlier_run_draws_it_dashed(window, bench, clinic500, wait_job, qtbot):
    window.set_dataset(clinic500)
    first = run(bench, wait_job, k=10, delta=0.6).result
    run(bench, wait_job, delta=0.8)
    combo = bench.history_bar.compare_combo
    combo.setCurrentIndex(combo.findData(0))
    plot = bench.run_view.plot
    assert list(plot.series[NCP_CMP].y) == pytest.approx([first.initial_rum, *first.rum_trace])
    assert len(plot.series[UL_CMP].y) == len(first.tum_trace) + 1
    assert bench.run_view.measures.columnCount() == 3
    hollow = bench.comparison.plots["rum"].series[COMPARED]
    assert list(hollow.x) == [0.6] and list(hollow.y) == pytest.approx([first.rum])
    combo.setCurrentIndex(combo.findData(-1))
    assert len(plot.series[NCP_CMP].y) == 0 and bench.run_view.measures.columnCount() == 2
    assert len(bench.comparison.plots["rum"].series[COMPARED].x) == 0
    wait_comparison(bench, qtbot)


@pytest.mark.slow
def test_a_run_picked_from_the_history_is_starred_only_on_curves_of_its_settings(window, bench, clinic500, wait_job,
                                                                                  qtbot):
    window.set_dataset(clinic500)
    run(bench, wait_job, k=10, delta=0.6)
    wait_comparison(bench, qtbot)
    run(bench, wait_job, delta=0.5)  # only δ differs: a point of the same comparison
    star = bench.comparison.plots["rum"].series[THIS_RUN]
    hollow = bench.comparison.plots["rum"].series[COMPARED]
    assert list(star.x) == [0.5]
    bench.show_history_run(0)
    assert list(star.x) == [0.6]
    third = run(bench, wait_job, k=12, delta=0.7)  # other settings: a new comparison
    wait_comparison(bench, qtbot)
    bench.show_history_run(0)  # k = 10 is not on the k = 12 curves
    assert len(star.x) == 0 and bench.comparison.status.text().startswith(workbench_module.OTHER_SETTINGS)
    combo = bench.history_bar.compare_combo
    combo.setCurrentIndex(combo.findData(2))  # the k = 12 run, compared: on the curves
    assert list(hollow.x) == [0.7]
    combo.setCurrentIndex(combo.findData(1))  # k = 10: not on them
    assert len(hollow.x) == 0
    bench.show_history_run(2)
    assert list(star.x) == [0.7] and list(star.y) == pytest.approx([third.result.rum])
    assert not bench.comparison.status.text().startswith(workbench_module.OTHER_SETTINGS)
