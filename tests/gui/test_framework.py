"""Workbench base class, discovery and the jobs dock working together."""
from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from PySide6.QtWidgets import QVBoxLayout, QWidget

from anonstudio.data.transactions import TransactionData
from anonstudio.gui.jobs_dock import JobsPanel
from anonstudio.gui.plots import ExportablePlot
from anonstudio.gui.workbench import Workbench
from anonstudio.gui.workbenches import discover_workbenches
from anonstudio.params import param


@dataclass(frozen=True)
class TopParams:
    top: int = param(2, label="Records shown", minimum=1, maximum=100, tooltip="How many records to plot.")


class LengthsBench(Workbench):
    TITLE = "Lengths"
    PARAMS = TopParams

    gate: threading.Event | None = None

    def build(self) -> QWidget:
        page = QWidget()
        self.plot = ExportablePlot("Longest records", x_label="rank", y_label="items")
        self.plot.add_series("length", kind="bars")
        QVBoxLayout(page).addWidget(self.plot)
        self.results = []
        self.partials = []
        return page

    def run(self, params) -> None:
        data, gate = self.dataset, self.gate

        def work(progress):
            lengths = np.sort(data.lengths)[::-1]
            shown = []
            for v in lengths[: params.top]:
                if progress.cancelled():
                    return shown
                shown.append(int(v))
                progress.partial(list(shown))
                if gate is not None:
                    gate.wait(5)
            return shown

        self.submit("Longest records", work, on_done=lambda r, c: self.results.append((r, c)),
                    on_partial=self.partials.append)


DATA = TransactionData.from_records([["a", "b", "c"], ["a"], ["b", "c"]], name="tiny")


def test_workbench_shows_empty_state_until_dataset(qtbot, runner):
    bench = LengthsBench(runner)
    qtbot.addWidget(bench)
    assert bench._stack.currentWidget() is bench.empty_label
    assert "Load a dataset to begin" in bench.empty_label.text()
    assert not bench.param_panel.run_button.isEnabled()
    bench.set_dataset(DATA)
    assert bench._stack.currentWidget() is bench.page_scroll and bench.page_scroll.widget() is bench.page
    assert bench.param_panel.run_button.isEnabled()
    assert bench.plots() == [bench.plot]


def test_run_button_runs_the_job_and_the_dock_lists_it(qtbot, runner, wait_job):
    bench = LengthsBench(runner)
    dock = JobsPanel(runner)
    qtbot.addWidget(bench)
    qtbot.addWidget(dock)
    bench.set_dataset(DATA)
    bench.param_panel.run_button.click()
    wait_job(bench.job)
    assert bench.results == [([3, 2], True)]
    assert dock.state_text(bench.job) == "done"
    assert not dock.cancel_button(bench.job).isEnabled()
    assert not bench.param_panel.cancel_button.isEnabled()


def held_run(qtbot, runner):
    """A LengthsBench whose 3-step job holds after its first partial; returns (bench, dock, job)."""
    bench = LengthsBench(runner)
    bench.gate = threading.Event()
    dock = JobsPanel(runner)
    qtbot.addWidget(bench)
    qtbot.addWidget(dock)
    bench.set_dataset(DATA)
    bench.param_panel.set_value("top", 3)
    bench.param_panel.run_button.click()
    assert bench.param_panel.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: bench.partials == [[3]], timeout=5000)
    return bench, dock, bench.job


def test_cancel_from_the_dock_keeps_partial(qtbot, runner, wait_job):
    bench, dock, job = held_run(qtbot, runner)
    dock.cancel_button(job).click()
    bench.gate.set()
    wait_job(job)
    assert bench.results == [([3], False)]
    assert dock.state_text(job) == "cancelled (partial result kept)"
    assert "stopped at user request" in dock.log_view.toPlainText() or "cancelled" in dock.log_view.toPlainText()


def test_the_pinned_cancel_stops_the_run_and_the_background_job_started_after_it(qtbot, runner, wait_job):
    bench, _dock, run = held_run(qtbot, runner)
    gate = threading.Event()

    def background(progress):  # a comparison the tab starts while its run goes on
        while not progress.cancelled() and not gate.wait(0.01):
            pass
        return None

    extra = bench.submit("Background comparison", background, key=f"{bench.job_key}:extra")
    assert bench.job is extra
    bench.param_panel.cancel_button.click()
    bench.gate.set()
    wait_job(run)
    wait_job(extra)
    assert run.state.value == "cancelled" and extra.state.value == "cancelled"
    assert bench.results == [([3], False)]
    assert not bench.param_panel.cancel_button.isEnabled()


def test_new_dataset_retires_the_running_job_and_drops_its_callbacks(qtbot, runner, wait_job):
    bench, dock, job = held_run(qtbot, runner)
    other = TransactionData.from_records([["x"]], name="other")
    bench.set_dataset(other)
    assert not bench.param_panel.cancel_button.isEnabled() and bench.param_panel.run_button.isEnabled()
    bench.gate.set()
    wait_job(job)
    qtbot.wait(50)
    # Nothing computed for DATA reaches the page once "other" is shown.
    assert bench.partials == [[3]] and bench.results == []
    assert dock.state_text(job) == "cancelled (dataset changed)"
    # The next run on the new dataset reports as usual.
    bench.gate = None
    bench.param_panel.run_button.click()
    wait_job(bench.job)
    assert bench.results == [([1], True)]


def test_stale_callbacks_are_dropped_even_if_the_runner_delivers_them(qtbot, runner, wait_job):
    """Second line of defence: a job submitted under an older dataset generation."""
    bench = LengthsBench(runner)
    qtbot.addWidget(bench)
    bench.set_dataset(DATA)
    calls = []
    # Bypass retire(): call the wrapped callbacks the workbench registered directly.
    job = bench.submit("Quick", lambda p: 1, on_done=lambda r, c: calls.append("done"),
                       on_partial=lambda r: calls.append("partial"))
    on_partial, on_done, _, _ = runner._callbacks[job]
    bench.dataset_generation += 1
    on_partial([1])
    on_done(1, True)
    assert calls == []
    wait_job(job)


def test_discovery_returns_sorted_workbench_classes():
    classes, problems = discover_workbenches()
    assert problems == []
    assert all(issubclass(c, Workbench) for c in classes)
    assert [c.ORDER for c in classes] == sorted(c.ORDER for c in classes)


def test_run_stays_disabled_without_a_dataset_even_after_edits(qtbot, runner):
    bench = LengthsBench(runner)
    qtbot.addWidget(bench)
    bench.param_panel.set_value("top", 5)
    assert not bench.param_panel.run_button.isEnabled()
    bench.set_dataset(DATA)
    assert bench.param_panel.run_button.isEnabled()


def test_the_documented_example_workbench_runs(qtbot, runner, wait_job, monkeypatch):
    """The example in anonstudio.gui.workbench's docstring is real, working code."""
    import textwrap

    import anonstudio.gui.workbench as module

    doc = module.__doc__
    block = doc.split("A complete workbench (save as ``anonstudio/gui/workbenches/lengths.py``)::", 1)[1]
    block = block.split("\nCallbacks run on the GUI thread.", 1)[0]
    code = textwrap.dedent(block)
    code = (code.replace("from ...params import", "from anonstudio.params import")
                .replace("from ..plots import", "from anonstudio.gui.plots import")
                .replace("from ..workbench import", "from anonstudio.gui.workbench import"))
    import sys
    import types

    example = types.ModuleType("example_lengths")
    monkeypatch.setitem(sys.modules, "example_lengths", example)  # dataclasses look the module up
    exec(compile(code, "workbench-docstring-example", "exec"), example.__dict__)
    bench = example.LengthsWorkbench(runner)
    qtbot.addWidget(bench)
    bench.set_dataset(DATA)
    bench.param_panel.set_value("top", 2)
    bench.param_panel.run_button.click()
    wait_job(bench.job)
    series = bench.plot.series["length"]
    assert list(series.x) == [1, 2] and list(series.y) == [3, 2]


def test_declarations_stand_for_the_workbench_classes_without_importing_them():
    # The window's tabs are made from declarations read from each workbench's source; what the tab bar, the
    # start page and the projects read from them must be what the classes say.
    import subprocess
    import sys

    from anonstudio.gui.workbenches import WorkbenchDeclaration, discover_workbenches, workbench_declarations

    declared, problems = workbench_declarations()
    classes, _ = discover_workbenches()
    assert problems == [] and len(declared) == len(classes)
    for entry, cls in zip(declared, classes):
        assert isinstance(entry, WorkbenchDeclaration) and entry == cls and entry.load() is cls
        for name in ("TITLE", "ORDER", "SPEC", "OFFERS_ATTACK_DEMO"):
            assert getattr(entry, name, None) == getattr(cls, name, None), (cls, name)
    code = ("import json, sys; from anonstudio.gui.workbenches import workbench_declarations; "
            "workbench_declarations(); print(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules = __import__("json").loads(done.stdout)
    assert [m for m in modules if m.startswith("anonstudio.gui.workbenches.")] == []
