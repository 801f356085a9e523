"""Risk workbench: live uniqueness points, cancel keeps them, attack demo."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from anonstudio.gui.workbenches import risk as risk_module
from anonstudio.gui.workbenches.risk import RiskWorkbench


@pytest.fixture
def tiny_window(window, wait_job, data_dir):
    wait_job(window.open_dataset(data_dir / "gui" / "tiny.dat"))
    return window


def brute_force_uniqueness(records: list[set[int]], m: int) -> float:
    """Share of m-itemsets occurring in the data that occur in exactly one record."""
    from itertools import combinations

    support: dict[tuple, int] = {}
    for rec in records:
        for combo in combinations(sorted(rec), m):
            support[combo] = support.get(combo, 0) + 1
    return sum(1 for v in support.values() if v == 1) / len(support)


def test_run_puts_points_on_both_plots_and_the_table(tiny_window, wait_job):
    bench = tiny_window.workbench(RiskWorkbench)
    assert tiny_window.current_param_panel() is bench.param_panel
    bench.param_panel.set_value("max_m", 3)
    bench.param_panel.set_value("method", "exact")
    bench.param_panel.run_button.click()
    wait_job(bench.job)
    x, y = bench.itemset_plot.series["exact count"].item.getData()
    assert list(x) == [1, 2, 3]
    data = tiny_window.dataset
    records = [set(data.record(u).tolist()) for u in range(data.n_records)]
    assert np.allclose(y, [brute_force_uniqueness(records, m) for m in (1, 2, 3)])
    px, py = bench.person_plot.series["estimated (random people)"].item.getData()
    assert list(px) == [1, 2, 3] and np.all((0 <= py) & (py <= 1))
    assert bench.table.rowCount() == 6
    assert bench.table.item(0, 0).text() == "m-itemsets" and bench.table.item(3, 0).text() == "people"
    assert bench.table.item(1, 2).text() == f"{y[1] * 100:.2f} %"
    assert tiny_window.jobs.state_text(bench.job) == "done"
    assert bench.itemset_plot.plot_item.getAxis("left").labelText == risk_module.ITEMSET_Y
    assert bench.itemset_plot.plot_item.getAxis("bottom").labelText == "m (items the attacker knows)"


def test_points_arrive_live_and_cancel_keeps_them(tiny_window, wait_job, monkeypatch, qtbot):
    bench = tiny_window.workbench(RiskWorkbench)
    gate = threading.Event()
    real_curve = risk_module.uniqueness_curve

    class HoldAfterFirstPartial:
        """Lets the test act between the first and second m."""

        def __init__(self, inner):
            self.inner = inner

        def set(self, fraction, status=""):
            self.inner.set(fraction, status)

        def partial(self, result):
            self.inner.partial(result)
            gate.wait(10)

        def cancelled(self):
            return self.inner.cancelled()

    monkeypatch.setattr(risk_module, "uniqueness_curve",
                        lambda data, params, progress: real_curve(data, params, HoldAfterFirstPartial(progress)))
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
    bench = tiny_window.workbench(RiskWorkbench)
    gate = threading.Event()
    real = risk_module.run_risk_analysis
    calls = []

    def slow_first(data, params, progress):
        calls.append(params.max_m)
        if len(calls) == 1:
            gate.wait(10)
        return real(data, params, progress)

    monkeypatch.setattr(risk_module, "run_risk_analysis", slow_first)
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
    bench = tiny_window.workbench(RiskWorkbench)
    bench.param_panel.set_value("max_m", 2)
    bench.param_panel.run_button.click()
    wait_job(bench.job)
    assert bench.itemset_plot.has_data()
    wait_job(tiny_window.open_dataset(data_dir / "gui" / "tiny.dat"))
    assert not bench.itemset_plot.has_data() and bench.table.rowCount() == 0


def unique_people(data) -> list[int]:
    """Records no other record contains entirely (brute force)."""
    records = [set(data.record(u).tolist()) for u in range(data.n_records)]
    return [u for u, r in enumerate(records) if r and sum(r <= other for other in records) == 1]


def test_attack_demo_reveals_items_until_singled_out(tiny_window):
    bench = tiny_window.workbench(RiskWorkbench)
    demo = bench.attack_demo
    data = tiny_window.dataset
    person = unique_people(data)[0]
    demo.person_box.setValue(person)
    demo.order_box.setCurrentIndex(demo.order_box.findData("rarest"))
    demo.start_button.click()
    assert demo.revealed_list.count() == 0 and "knows nothing" in demo.verdict.text()
    records = [set(data.record(u).tolist()) for u in range(data.n_records)]
    revealed: set[int] = set()
    singled = []
    demo.singled_out.connect(lambda p, k: singled.append((p, k)))
    while demo.next_button.isEnabled():
        demo.next_button.click()
        step = demo.trace.steps[demo.revealed - 1]
        revealed.add(step.item)
        assert step.item in records[person]
        # Independent count of people holding every revealed item.
        assert step.matches == sum(revealed <= r for r in records)
        assert demo.plot.series["people matching"].y[-1] == step.matches
    assert singled == [(person, demo.revealed)]
    assert "Singled out" in demo.verdict.text()
    assert demo.revealed_list.count() == demo.revealed
    assert demo.plot.series["people matching"].y[0] == data.n_records


def test_attack_demo_play_runs_on_a_timer(tiny_window, qtbot):
    demo = tiny_window.workbench(RiskWorkbench).attack_demo
    demo.timer.setInterval(5)
    person = unique_people(tiny_window.dataset)[0]
    demo.person_box.setValue(person)
    demo.play_button.click()
    qtbot.waitUntil(lambda: "Singled out" in demo.verdict.text(), timeout=5000)
    assert not demo.play_button.isChecked() and not demo.timer.isActive()


def test_attack_demo_random_person(tiny_window):
    demo = tiny_window.workbench(RiskWorkbench).attack_demo
    person = demo.pick_random_person()
    assert 0 <= person < tiny_window.dataset.n_records
    assert demo.trace.person == person and demo.person_box.value() == person


def test_smallest_m_above_largest_m_is_refused_inline(tiny_window):
    panel = tiny_window.workbench(RiskWorkbench).param_panel
    panel.set_value("max_m", 3)
    panel.set_value("min_m", 4)
    assert panel.error == "Smallest m (4) must not exceed largest m (3)."
    assert not panel.run_button.isEnabled()
    panel.set_value("min_m", 2)
    assert panel.error == "" and panel.run_button.isEnabled()


def test_zoom_fits_the_y_axis_and_labels_show_percent(tiny_window, wait_job):
    bench = tiny_window.workbench(RiskWorkbench)
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
