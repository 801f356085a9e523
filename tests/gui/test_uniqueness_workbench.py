"""Risk workbench: live uniqueness points, cancel keeps them, attack demo."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from anonstudio.gui.workbenches.uniqueness import UniquenessWorkbench
from anonstudio.gui.workbenches.uniqueness import plots as uniqueness_plots
from anonstudio.methods.uniqueness import algorithm as uniqueness_algorithm
from anonstudio.methods.uniqueness.spec import UniquenessSpec
from tests.reference import uniqueness_reference as ref


class HoldAfterFirstPartial:
    """A progress that lets the test act between the first and second m."""

    def __init__(self, inner, gate: threading.Event):
        self.inner, self.gate = inner, gate

    def set(self, fraction, status=""):
        self.inner.set(fraction, status)

    def partial(self, result):
        self.inner.partial(result)
        self.gate.wait(10)

    def cancelled(self):
        return self.inner.cancelled()


@pytest.fixture
def tiny_window(window, wait_job, data_dir):
    wait_job(window.open_dataset(data_dir / "gui" / "tiny.dat"))
    return window


def test_run_puts_points_on_both_plots_and_the_table(tiny_window, wait_job):
    bench = tiny_window.workbench(UniquenessWorkbench)
    assert tiny_window.current_param_panel() is bench.param_panel
    bench.param_panel.set_value("max_m", 3)
    bench.param_panel.set_value("method", "exact")
    bench.param_panel.run_button.click()
    wait_job(bench.job)
    x, y = bench.itemset_plot.series["exact count"].item.getData()
    assert list(x) == [1, 2, 3]
    data = tiny_window.dataset
    records = [set(data.record(u).tolist()) for u in range(data.n_records)]
    assert np.allclose(y, [ref.uniqueness(records, m) for m in (1, 2, 3)])
    px, py = bench.person_plot.series["estimated (random people)"].item.getData()
    assert list(px) == [1, 2, 3] and np.all((0 <= py) & (py <= 1))
    assert bench.table.rowCount() == 6
    assert bench.table.item(0, 0).text() == "m-itemsets" and bench.table.item(3, 0).text() == "people"
    assert bench.table.item(1, 2).text() == f"{y[1] * 100:.2f} %"
    assert tiny_window.jobs.state_text(bench.job) == "done"
    assert bench.itemset_plot.plot_item.getAxis("left").labelText == uniqueness_plots.ITEMSET_Y
    assert bench.itemset_plot.plot_item.getAxis("bottom").labelText == "m (items the attacker knows)"


def test_points_arrive_live_and_cancel_keeps_them(tiny_window, wait_job, monkeypatch, qtbot):
    bench = tiny_window.workbench(UniquenessWorkbench)
    gate = threading.Event()
    real_curve = uniqueness_algorithm.uniqueness_curve
    monkeypatch.setattr(uniqueness_algorithm, "uniqueness_curve",
                        lambda data, params, progress: real_curve(data, params, HoldAfterFirstPartial(progress, gate)))
    bench.param_panel.set_value("max_m", 4)
    bench.param_panel.set_value("method", "exact")
    bench.param_panel.run_button.click()
    job = bench.job
    # The first point is on the plot while the job still runs.
    qtbot.waitUntil(lambda: len(bench.itemset_plot.series["exact count"].x) == 1, timeout=10000)
    assert not job.state.finished
    tiny_window.jobs.cancel_button(job).click()
    gate.set()
    wait_job(job)
    assert tiny_window.jobs.state_text(job) == "cancelled (partial result kept)"
    assert bench.itemsets is not None and not bench.itemsets.complete
    kept = [p.m for p in bench.itemsets.points]
    assert kept[0] == 1 and len(kept) < 4
    assert list(bench.itemset_plot.series["exact count"].x) == kept
    assert bench.people is None and not bench.person_plot.has_data()


def test_newer_run_replaces_older(tiny_window, wait_job, monkeypatch):
    bench = tiny_window.workbench(UniquenessWorkbench)
    gate = threading.Event()
    real = UniquenessSpec.run
    calls = []

    def slow_first(self, data, params, progress):
        calls.append(params.max_m)
        if len(calls) == 1:
            gate.wait(10)
        return real(self, data, params, progress)

    monkeypatch.setattr(UniquenessSpec, "run", slow_first)
    bench.param_panel.set_value("max_m", 2)
    bench.param_panel.run_button.click()
    first = bench.job
    bench.param_panel.set_value("max_m", 3)
    bench.param_panel.run_button.click()
    second = bench.job
    assert first.cancel_requested
    gate.set()
    wait_job(first)
    wait_job(second)
    assert first.state.value == "cancelled" and second.state.value == "done"
    assert [p.m for p in bench.itemsets.points] == [1, 2, 3]  # the newer run's result is shown


def test_new_dataset_clears_results(tiny_window, wait_job, data_dir):
    bench = tiny_window.workbench(UniquenessWorkbench)
    bench.param_panel.set_value("max_m", 2)
    bench.param_panel.run_button.click()
    wait_job(bench.job)
    assert bench.itemset_plot.has_data()
    wait_job(tiny_window.open_dataset(data_dir / "gui" / "tiny.dat"))
    assert not bench.itemset_plot.has_data() and bench.table.rowCount() == 0


def unique_people(data) -> list[int]:
    """Rows (0-based) of the records no other record contains entirely (brute force)."""
    records = [set(data.record(u).tolist()) for u in range(data.n_records)]
    return [u for u, r in enumerate(records) if r and sum(r <= other for other in records) == 1]


def test_attack_demo_reveals_items_until_singled_out(tiny_window):
    bench = tiny_window.workbench(UniquenessWorkbench)
    demo = bench.attack_demo
    data = tiny_window.dataset
    index = unique_people(data)[0]
    record = index + 1  # people are numbered from 1 in the demo
    demo.person_box.setValue(record)
    demo.order_box.setCurrentIndex(demo.order_box.findData("rarest"))
    demo.start_button.click()
    assert demo.trace.index == index
    assert demo.revealed_list.count() == 0 and "knows nothing" in demo.verdict.text()
    assert f"person #{record}." in demo.verdict.text() and demo.person_items.text().startswith(f"Person #{record} ")
    records = [set(data.record(u).tolist()) for u in range(data.n_records)]
    revealed: set[int] = set()
    singled = []
    demo.singled_out.connect(lambda p, k: singled.append((p, k)))
    while demo.next_button.isEnabled():
        demo.next_button.click()
        step = demo.trace.steps[demo.revealed - 1]
        revealed.add(step.item)
        assert step.item in records[index]
        # Independent count of people holding every revealed item.
        assert step.matches == len(ref.linkage_matches(records, revealed))
        assert demo.plot.series["in the original"].y[-1] == step.matches
    assert singled == [(record, demo.revealed)]
    assert "Singled out" in demo.verdict.text() and f"person #{record} has all" in demo.verdict.text()
    assert demo.revealed_list.count() == demo.revealed
    assert demo.plot.series["in the original"].y[0] == data.n_records


def test_attack_demo_numbers_people_from_1(tiny_window):
    demo = tiny_window.workbench(UniquenessWorkbench).attack_demo
    n = tiny_window.dataset.n_records
    assert (demo.person_box.minimum(), demo.person_box.maximum()) == (1, n)
    demo.person_box.setValue(n)
    demo.start_button.click()
    assert demo.trace.index == n - 1 and demo.trace.record == n


def test_attack_demo_play_runs_on_a_timer(tiny_window, qtbot):
    demo = tiny_window.workbench(UniquenessWorkbench).attack_demo
    demo.timer.setInterval(5)
    demo.person_box.setValue(unique_people(tiny_window.dataset)[0] + 1)
    demo.play_button.click()
    qtbot.waitUntil(lambda: "Singled out" in demo.verdict.text(), timeout=5000)
    assert not demo.play_button.isChecked() and not demo.timer.isActive()


def test_attack_demo_random_person(tiny_window):
    demo = tiny_window.workbench(UniquenessWorkbench).attack_demo
    record = demo.pick_random_person()
    assert 1 <= record <= tiny_window.dataset.n_records
    assert demo.trace.record == record and demo.person_box.value() == record


def test_smallest_m_above_largest_m_is_refused_inline(tiny_window):
    panel = tiny_window.workbench(UniquenessWorkbench).param_panel
    panel.set_value("max_m", 3)
    panel.set_value("min_m", 4)
    assert panel.error == "Smallest m (4) is larger than largest m (3)"
    assert not panel.run_button.isEnabled()
    panel.set_value("min_m", 2)
    assert panel.error == "" and panel.run_button.isEnabled()


def test_zoom_fits_the_y_axis_and_labels_show_percent(tiny_window, wait_job):
    bench = tiny_window.workbench(UniquenessWorkbench)
    bench.param_panel.set_value("max_m", 1)
    bench.param_panel.run_button.click()
    wait_job(bench.job)
    plot = bench.itemset_plot
    u = plot.series["trend"].y[0]
    assert plot._labels[0].toPlainText() == f"{u * 100:.1f} %"
    assert plot.plot_item.viewRange()[1][1] >= 1.0
    plot.zoom_button.click()
    top = plot.plot_item.viewRange()[1][1]
    assert u < top < 1.0
    plot.zoom_button.click()
    assert plot.plot_item.viewRange()[1][1] >= 1.0


def test_switching_dataset_mid_run_shows_no_points_of_the_old_dataset(tiny_window, wait_job, monkeypatch,
                                                                    qtbot):
    from anonstudio.data.transactions import TransactionData

    bench = tiny_window.workbench(UniquenessWorkbench)
    gate = threading.Event()
    real_curve = uniqueness_algorithm.uniqueness_curve
    monkeypatch.setattr(uniqueness_algorithm, "uniqueness_curve",
                        lambda data, params, progress: real_curve(data, params, HoldAfterFirstPartial(progress, gate)))
    bench.param_panel.set_value("max_m", 4)
    bench.param_panel.set_value("method", "exact")
    bench.param_panel.run_button.click()
    job = bench.job
    qtbot.waitUntil(lambda: len(bench.itemset_plot.series["exact count"].x) == 1, timeout=10000)
    # Dataset B arrives while A's job is between m = 1 and m = 2.
    other = TransactionData.from_records([["a", "b"], ["b", "c"], ["c"]], name="other-dataset")
    tiny_window.datasets.set_dataset(other)
    assert not bench.itemset_plot.has_data() and bench.table.rowCount() == 0
    gate.set()
    wait_job(job)
    qtbot.wait(100)  # let any queued partial/finish signal arrive
    assert not bench.itemset_plot.has_data() and not bench.person_plot.has_data()
    assert bench.table.rowCount() == 0 and bench.itemsets is None and bench.people is None
    assert tiny_window.jobs.state_text(job) == "cancelled (dataset changed)"
    for plot in (bench.itemset_plot, bench.person_plot):
        assert plot.caption.startswith("other-dataset") and "tiny.dat" not in plot.caption
        assert "other-dataset" in plot.plot_item.titleLabel.text


def test_loading_a_table_clears_the_risk_results(tiny_window, wait_job):
    import pandas as pd

    from anonstudio.data.table import Table

    bench = tiny_window.workbench(UniquenessWorkbench)
    bench.param_panel.set_value("max_m", 1)
    bench.param_panel.run_button.click()
    wait_job(bench.job)
    assert bench.itemset_plot.has_data()
    tiny_window.datasets.set_dataset(Table(pd.DataFrame({"age": [30, 40]}), {}, "ages", None))
    assert not bench.itemset_plot.has_data() and bench.table.rowCount() == 0
    assert bench.itemset_plot.caption == ""


def test_plots_state_dataset_and_confidence_level(tiny_window, wait_job):
    bench = tiny_window.workbench(UniquenessWorkbench)
    bench.param_panel.set_value("max_m", 1)
    bench.param_panel.set_value("delta", 0.05)
    bench.param_panel.run_button.click()
    wait_job(bench.job)
    for plot in (bench.itemset_plot, bench.person_plot):
        assert plot.caption == "tiny.dat\nerror bars: 95 % confidence interval (δ = 0.05)"
        assert "95 % confidence interval" in plot.plot_item.titleLabel.text
    assert uniqueness_plots.ci_caption(0.01) == "error bars: 99 % confidence interval (δ = 0.01)"


def test_points_have_hover_tips_and_the_csv_one_row_per_point(tiny_window, wait_job):
    bench = tiny_window.workbench(UniquenessWorkbench)
    bench.param_panel.set_value("max_m", 3)
    bench.param_panel.set_value("method", "exact")
    bench.param_panel.run_button.click()
    wait_job(bench.job)
    plot = bench.itemset_plot
    spots = plot.series["exact count"].item.scatter.points()
    assert len(spots) == 3
    point = bench.itemsets.points[1]
    tip = plot._point_tip(spots[1].pos().x(), spots[1].pos().y(), spots[1].data())
    assert tip.startswith(f"m = 2: {point.uniqueness * 100:.2f} %")
    assert f"{point.ci_low * 100:.2f} % – {point.ci_high * 100:.2f} %" in tip
    assert "exact count" in tip and "samples: all" in tip
    rows = plot.csv_text().splitlines()
    assert rows[0].split(",") == ["m", uniqueness_plots.ITEMSET_Y, "ci_low", "ci_high", "method", "samples",
                                  "itemsets_counted", "seconds", "precision_note"]
    assert len(rows) == 1 + 3  # no repeated "trend" rows
    first = rows[1].split(",")
    assert first[0] == "1" and float(first[1]) == bench.itemsets.points[0].uniqueness
    assert first[4] == "exact" and int(first[5]) == bench.itemsets.points[0].samples


def test_precision_warning_is_shown_when_the_point_carries_one(qtbot):
    from types import SimpleNamespace

    def point(m, met, warning=""):
        return SimpleNamespace(m=m, uniqueness=0.02, ci_low=0.0, ci_high=0.048, method="mcmc", samples=26492,
                               seconds=1.0, precision_met=met, warning=warning)

    plot = uniqueness_plots.UniquenessPlot("u", "share", "empty", estimated="estimated (MCMC sample)")
    table = uniqueness_plots.ResultsTable()
    qtbot.addWidget(plot)
    qtbot.addWidget(table)
    note = "precision not reached: ±0.0240 instead of ±0.01"
    result = SimpleNamespace(points=(point(1, False, note), point(2, True)), kind="itemset", complete=True)
    plot.show_result(result)
    table.show_results([result])
    tips = list(plot.series["estimated (MCMC sample)"].item.scatter.data["data"])
    assert tips[0].endswith(f"⚠ {note}") and "⚠" not in tips[1] and "samples: 26,492" in tips[1]
    assert table.item(0, 7).text() == f"⚠ {note}" and table.item(1, 7).text() == ""
    assert plot.csv_text().splitlines()[1].endswith(note)
    # Points from before the precision check existed carry no such fields.
    old = SimpleNamespace(m=1, uniqueness=0.1, ci_low=0.05, ci_high=0.15, method="exact", samples=5, seconds=0.1)
    assert uniqueness_plots.precision_warning(old) == ""


def test_zoomed_legend_covers_no_point_and_the_axis_has_no_si_prefix(qtbot):
    from types import SimpleNamespace

    from PySide6.QtCore import QPointF

    plot = uniqueness_plots.UniquenessPlot("u", "share", "empty", estimated="estimated (MCMC sample)")
    qtbot.addWidget(plot)
    plot.resize(520, 360)
    plot.show()
    qtbot.waitExposed(plot)
    # Small, rising values: the highest point sits at the top right, where
    # the legend used to be drawn over it.
    points = tuple(SimpleNamespace(m=m, uniqueness=u, ci_low=u - 0.002, ci_high=u + 0.002,
                                   method="exact" if m < 3 else "mcmc", samples=100, seconds=0.1)
                   for m, u in ((1, 0.004), (2, 0.012), (3, 0.021)))
    plot.set_m_range(1, 3)
    plot.show_result(SimpleNamespace(points=points, kind="itemset", complete=True))
    plot.zoom_button.click()
    qtbot.wait(50)
    view = plot.plot_item.getViewBox()
    legend = plot.legend.sceneBoundingRect()
    for p in points:
        for y in (p.uniqueness, p.ci_high):
            assert not legend.contains(view.mapViewToScene(QPointF(p.m, y))), (p.m, y)
    axis = plot.plot_item.getAxis("left")
    assert "x0.001" not in axis.labelString() and "0.001" not in axis.labelString()
    assert plot.plot_item.viewRange()[1][1] < 0.1
