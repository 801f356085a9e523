"""ρ-uncertainty workbench: run, live passes, cancel, exports, comparison, rule browser, person view, trade-offs."""
from __future__ import annotations

import csv
import dataclasses
import json

import numpy as np
import pytest

from anonstudio.data.compare import check_comparison
from anonstudio.data.transactions import TransactionData
from anonstudio.gui.workbenches.rho import RhoWorkbench
from anonstudio.gui.workbenches.rho.figures import FIGURES, PAIRS, SEEDS, curves, figure_cells, sweep_sample
from anonstudio.gui.workbenches.rho.rule_rows import PersonRows, RuleRows
from anonstudio.gui.workbenches.rho.tradeoffs import RUN_SERIES
from anonstudio.gui.workbenches.rho.utility_view import COMPARED, THIS_RUN
from anonstudio.gui.workbenches.rho.workbench import SUGGESTED
from anonstudio.gui.workers import JobState
from anonstudio.jobs import RecordingProgress
from anonstudio.methods.contract import get_method, run_and_verify
from anonstudio.methods.rho import RhoParams
from anonstudio.methods.rho.compare import comparison_of
from anonstudio.methods.rho.rules import rule_browser
from anonstudio.methods.rho.suppressor import SuppressionProgress

SPEC = get_method("rho")


@pytest.fixture(scope="module")
def example():
    return SPEC.example()


@pytest.fixture(scope="module")
def finished(example):
    data, params = example
    return run_and_verify(SPEC, data, params)


@pytest.fixture
def bench(qtbot, runner, example):
    widget = RhoWorkbench(runner)
    qtbot.addWidget(widget)
    widget.resize(1280, 720)
    widget.show()
    widget.set_dataset(example[0])
    widget.param_panel.set_params(example[1])
    return widget


def wait_idle(qtbot, bench, timeout=120000):
    """Until every job of the workbench (run, rules, figure sweep, check so far) has finished."""
    qtbot.waitUntil(lambda: all(j.state.finished for j in bench._jobs), timeout=timeout)


# ------------------------------------------------------------------ run
def test_run_fills_every_tab(bench, qtbot, wait_job):
    seen = []
    original = bench.show_result

    def spy(result, partial):
        seen.append((type(result).__name__, partial))
        original(result, partial)

    bench.show_result = spy
    bench.param_panel.run_button.click()
    wait_job(bench.job, timeout=120000)
    wait_idle(qtbot, bench)
    run = bench.last_run
    assert run.status == "done" and bench.callout.state == "ok"
    # partial results arrived while it ran (one per pass), then the final result
    assert ("SuppressionProgress", True) in seen and seen[-1] == ("RhoResult", False)
    result = run.result
    # utility: the table and the pass plot (pass 0 = original data, then one point per pass)
    assert bench.utility.value_text("suppressed_items") == f"{result.suppressed_items:,}"
    assert bench.utility.value_text("iterations") == str(result.iterations)
    assert bench.utility.value_text("util_info").startswith(f"{result.util_info * 100:.2f} %")
    passes = bench.utility.plot.series[THIS_RUN]
    assert list(passes.x) == list(range(result.iterations + 1)) and passes.y[-1] == result.suppressed_items
    # independent check: one row per number of known items, all holding
    levels = bench.check.levels
    assert levels.rowCount() == len(run.verification.levels) == 3
    assert all(levels.item(r, 7).text() == "holds" for r in range(3))
    # rule browser
    assert bench.rules.rows is not None and bench.rules.table.rows_model.rowCount() == len(bench.rules.browser)
    assert "sensitive rules Q → e" in bench.rules.banner.text()
    # before / after
    comparison = bench.side_by_side.comparison
    assert comparison is not None and comparison.original.n_rows == run.data.n_records
    # trade-offs: the default figure (vs ρ) for the run's pair of settings, filled in
    assert bench.tradeoffs.pair_key == "plus"  # the example's setting is personalized+
    util = bench.tradeoffs.plots["util_info"]
    for setting in PAIRS["plus"]:
        assert len(util.series[setting].x) == len(FIGURES["rho"].values)
    assert list(util.series[RUN_SERIES].x) == [0.5]
    assert "20 of 20 cells finished" in bench.tradeoffs.status.text()


def test_partial_result_draws_passes_and_says_not_safe_yet(bench, finished):
    passes = finished.result.passes[:2]
    bench.show_result(SuppressionProgress("exact", passes), True)
    assert list(bench.utility.plot.series[THIS_RUN].x) == [0, 1, 2]
    assert "Not safe yet" in bench.callout.text()


def test_cancel_keeps_the_data_so_far_marked_unsafe(bench, qtbot, example):
    data, params = example
    stopped = run_and_verify(SPEC, data, params, RecordingProgress(cancel_after_partials=1))
    assert stopped.status == "cancelled" and not stopped.result.complete
    bench._on_done(stopped, False)
    wait_idle(qtbot, bench)
    assert bench.callout.state == "incomplete" and "Stopped early" in bench.callout.text()
    # release files stay disabled; the run JSON can still be saved
    assert not bench.export_row.buttons["release"].isEnabled() and bench.export_row.buttons["json"].isEnabled()
    # the data so far is checked independently and shown as such, never as a release
    assert bench.check.so_far and "Stopped early" in bench.check.intro.text()
    assert "Independent check of the data so far" in bench.callout.text() and "Not a release" in bench.callout.text()
    assert "not a safe release" in bench.rules.banner.text()
    assert "Stopped early" in bench.utility.note.text()
    assert "(stopped)" in bench.utility.value_text("iterations")
    # no trade-off curves around an unfinished run
    assert not bench.tradeoffs.plots["util_info"].has_data() and "finished run" in bench.tradeoffs.status.text()


def test_cancel_from_the_panel(bench, wait_job):
    big = TransactionData.from_id_lists([list(range(i % 7, i % 7 + 5)) for i in range(3000)], n_items=12)
    bench.set_dataset(big)
    bench.param_panel.set_params(RhoParams(sensitive_fraction=0.3, seed=2))
    bench.param_panel.run_button.click()
    job = bench.job
    bench.param_panel.cancel_button.click()
    wait_job(job, timeout=120000)
    if bench.last_run is not None and job.state is JobState.CANCELLED:
        assert bench.last_run.status == "cancelled" and bench.callout.state == "incomplete"


# -------------------------------------------------------------- exports
def test_exports(bench, finished, tmp_path):
    bench._on_done(finished, True)
    release = bench.export_to("release", tmp_path / "suppressed.dat")
    lines = release.read_text().splitlines()
    assert len(lines) == finished.data.n_records
    for u, line in enumerate(lines):
        assert set(line.split()) == set(finished.result.published.record_labels(u))
    rules = bench.export_to("rules", tmp_path / "rules.csv")
    with open(rules, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(rule_browser(finished.result))
    assert set(rows[0]) >= {"antecedent", "consequent", "confidence_before", "confidence_after", "suppressed"}
    doc = json.loads(bench.export_to("json", tmp_path / "run.json").read_text())
    assert doc["suppressed_items"] == finished.result.suppressed_items and doc["verification"]["passed"]


# ----------------------------------------------------------- comparison
def test_comparison_with_an_earlier_run(bench, qtbot, example, wait_job):
    data, params = example
    first = run_and_verify(SPEC, data, params)
    second = run_and_verify(SPEC, data, dataclasses.replace(params, rho="0.3"))
    for run in (first, second):
        bench._on_done(run, True)
    wait_idle(qtbot, bench)
    combo = bench.history_bar.compare_combo  # "none", then the runs newest first
    combo.setCurrentIndex(combo.findData(0))
    assert bench.compared_run is first
    table = bench.utility.table
    assert table.columnCount() == 4 and table.horizontalHeaderItem(3).text().startswith("#1")
    assert bench.utility.table.item(8, 3).text() == f"{first.result.suppressed_items:,}"
    assert len(bench.utility.plot.series[COMPARED].x) == first.result.iterations + 1
    bench.history_bar.compare_combo.setCurrentIndex(0)
    assert table.columnCount() == 3 and not len(bench.utility.plot.series[COMPARED].x)


# --------------------------------------------------------- rule browser
def test_rule_browser_filters_by_item_and_person(bench, qtbot, finished):
    bench._on_done(finished, True)
    wait_idle(qtbot, bench)
    view, rows = bench.rules, bench.rules.rows
    model = view.table.rows_model
    total = rows.n_rows
    label = finished.data.vocab[rows.browser.rules[0].consequent]
    view.set_filters(item=label)
    shown = [model.data_row(r) for r in range(model.rowCount())]
    item = finished.data.vocab.index(label)
    assert 0 < len(shown) < total
    assert all(rows.browser.rules[j].consequent == item or item in rows.browser.rules[j].antecedent for j in shown)
    assert view.count.text() == f"{len(shown):,} of {total:,} rules"
    # by person: the rules that threatened that person, and the person view shows them
    person = int(rows.browser.rules[0].people[0])
    view.set_filters(person=person)
    shown = [model.data_row(r) for r in range(model.rowCount())]
    assert shown and all(person in rows.browser.rules[j].people for j in shown)
    assert view.person == person and view.person_label.text().startswith(f"<b>Person {person}:")
    # both filters at once narrow further; an unknown record says so
    view.set_filters(item=label, person=person)
    assert model.rowCount() <= len(shown)
    view.set_filters(person=10**6)
    assert model.rowCount() == 0 and "no record" in view.count.text()
    view.set_filters()
    assert model.rowCount() == total
    # selecting a rule explains it in words
    view.table.selectRow(0)
    assert "an attacker could infer" in view.detail.text()


def test_person_view(finished):
    browser = rule_browser(finished.result)
    result = finished.result
    person = next(u for u in range(result.original.n_records) if len(result.suppressed_of(u)))
    rows = PersonRows(browser, person)
    texts = [[c.text for c in rows.cells(r)[1] if c.kind != "more"] for r in range(rows.n_rows)]
    assert texts[0] == result.original.record_labels(person)
    assert texts[1] == result.constraint.labels_of(person)
    assert texts[2] == [result.original.vocab[i] for i in result.suppressed_of(person)]
    assert texts[3] == result.published.record_labels(person)
    # suppressed items are grey among the person's items
    kinds = {c.text: c.kind for c in rows.cells(0)[1]}
    assert all(kinds[x] == "suppressed" for x in texts[2])


def test_rule_rows_sort_and_describe(finished):
    rows = RuleRows(rule_browser(finished.result))
    before = rows.conf_before[rows.sort_order(3, descending=True)]
    assert np.all(np.diff(before) <= 0)
    assert rows.sort_order(1) is None  # the chips of Q do not sort
    cells = rows.cells(0)
    assert cells[0] == "1" and cells[3].endswith(")") and "%" in cells[3]
    # the "suppressed to fix it" cell is never blank: a rule fixed by other suppressions says so
    fixes = [rows.cells(r)[5] for r in range(rows.n_rows)]
    assert all(fixes) and any(f.startswith("pass ") for f in fixes)
    assert all(f.startswith("pass ") == bool(rows.browser.rules[r].repairs) for r, f in enumerate(fixes))


# ------------------------------------------------------- trade-off plots
def test_sweep_plots_fill_in_and_switch(bench, qtbot, finished):
    bench._on_done(finished, True)
    wait_idle(qtbot, bench)
    view = bench.tradeoffs
    view.choose(figure="m", pair="plain")
    assert view.job is not None and not view.job.state.finished  # a new sweep for this figure
    wait_idle(qtbot, bench)
    plot = view.plots["util_info"]
    assert list(plot.series["fixed"].x) == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert list(plot.series["personalized"].x) == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert not len(plot.series["fixed+"].x)
    assert not len(plot.series[RUN_SERIES].x)  # the run is personalized+: not on these curves
    assert plot.x_label.startswith("m ")
    # the runtime page draws the suppressor's seconds
    view.choose(page=1)
    assert len(view.plots["runtime"].series["fixed"].y) == 5 and (view.plots["runtime"].series["fixed"].y > 0).all()
    # back to a figure computed before: drawn from the kept cells, no new job
    job = view.job
    view.choose(figure="rho", pair="plus")
    assert view.job is job and len(view.plots["util_mining"].series["personalized+"].x) == 5
    # a stopped figure keeps its points and goes on from there
    view.choose(figure="fraction")
    view.stop_button.click()
    wait_idle(qtbot, bench)
    done = len(view.cells)
    assert view.stop_button.text() == "Go on" and "stopped" in view.status.text()
    view.stop_button.click()
    wait_idle(qtbot, bench)
    assert view.result.complete and view.stop_button.text() == "Stop" and not view.stop_button.isEnabled()
    assert len(view.cells) >= done


def test_figure_cells_put_the_run_on_the_curve(finished):
    sample = sweep_sample(finished.data, 1)
    assert sample.whole and sample.data is finished.data
    params = dataclasses.replace(finished.params, rho="0.45")
    cells, notes = figure_cells(params, "rho", "plain", sample.data)
    xs = sorted({c.values["rho"] for c in cells})
    assert 0.45 in xs and len(cells) == len(xs) * 2 * SEEDS
    assert {c.params.setting for c in cells} == {"fixed", "personalized"}
    assert next(c for c in cells if c.values["rho"] == 0.45).params.rho == "0.45"
    # ε = δ moves both, with an m for the sampled algorithm
    cells, notes = figure_cells(dataclasses.replace(finished.params, m=None), "epsilon", "plain", sample.data)
    assert all(c.params.epsilon == c.params.delta and c.params.m for c in cells) and notes
    # a run's sensitive file is not used by the figures
    cells, notes = figure_cells(dataclasses.replace(finished.params, sensitive="E.csv"), "m", "plus", sample.data)
    assert all(c.params.sensitive is None for c in cells) and "file" in notes[0]


def test_sweep_sample_takes_short_records(finished):
    lengths = [1, 2, 9] * 1500
    data = TransactionData.from_id_lists([list(range(k)) for k in lengths], n_items=10)
    sample = sweep_sample(data, 3, size=500)
    assert sample.data.n_records == 500 and int(sample.data.lengths.max()) <= 5 and not sample.whole
    assert sweep_sample(data, 3, size=500).data.indices.tobytes() == sample.data.indices.tobytes()
    assert "≤ 5 items" in sample.text


def test_curves_pool_seeds(finished):
    from anonstudio.methods.sweep import run_sweep

    cells, _ = figure_cells(finished.params, "fraction", "plus", finished.data, seeds=2)
    cells = [c for c in cells if c.values["fraction"] in (0.1, 0.2)]
    cells = [dataclasses.replace(c, index=i) for i, c in enumerate(cells)]
    result = run_sweep(SPEC, finished.data, cells, keep_runs=True)
    lines = curves(result, "fraction", "util_info")
    x, mean, lo, hi = lines["fixed+"]
    assert list(x) == [0.1, 0.2] and np.all(lo <= mean) and np.all(mean <= hi)


# ------------------------------------------------------- data and params
def test_large_data_gets_the_sampled_algorithm_and_the_limit_shows(bench):
    long = TransactionData.from_id_lists([list(range(40))] * 50 + [[1, 2]] * 50, n_items=40, name="long")
    bench.param_panel.set_value("m", None)
    bench.set_dataset(long)
    values = bench.param_panel.values()
    assert all(values[k] == v for k, v in SUGGESTED.items()) and "sampled algorithm" in bench.callout.text()
    assert "about 10<sup>13</sup> (person, itemset) pairs" in bench.callout.text()  # 50 × 2^40, not "5.5e+13"
    assert bench.param_panel.error == ""
    # back to the exact algorithm with any m: refused under the form, Run disabled
    for name in ("epsilon", "delta", "m"):
        bench.param_panel.set_value(name, None)
    assert "attacker" in bench.param_panel.error and not bench.param_panel.run_button.isEnabled()
    bench.param_panel.set_value("m", 2)
    assert bench.param_panel.error == "" and bench.param_panel.run_button.isEnabled()


def test_comparison_adapter(finished):
    comparison = comparison_of(finished.result)
    check_comparison(comparison)
    result = finished.result
    u = next(u for u in range(result.original.n_records) if len(result.suppressed_of(u)))
    cells = comparison.original.cells(u)
    gone = {result.original.vocab[i] for i in result.suppressed_of(u)}
    assert {c.text for c in cells[3] if c.kind == "suppressed"} == gone
    assert int(cells[2]) == len(gone)
    assert set(comparison.highlight_keys(u)) == set(result.suppressed_of(u).tolist())
    assert "suppressed" in comparison.describe(u)
    order = comparison.original.sort_order(2, descending=True)
    assert comparison.gone[order[0]] == comparison.gone.max()
