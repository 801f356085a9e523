"""Nonreciprocal workbench: publish every record so that it could be any of k people, without groups or hierarchies.

Nonreciprocal recoding (Xue, Karras, Raïssi, Vaidya, Tan, KDD 2012) sorts the
records so that similar ones are neighbours, links each person to k
published records along a ring over that order, extracts k disjoint
assignments by random closed walks and publishes every record as the bit
vote of the people linked to it. The tab shows

* the release beside the data in the studio's side-by-side view (base and
  distance items as chips), and for any person the published records they
  could be (:mod:`.published`);
* the paper's Fig. 6, ER and QE against k (Gray vs Gray-TSP) or ℓ (ring,
  greedy, CAHD), filled in by a background sweep after each run
  (:mod:`.figures`);
* the cyclic Hamming sums of the orders and the time per phase
  (:mod:`.order_view`);
* for small data, the generalization graph and its true assignment in the
  bipartite or unified view (:mod:`.graph_view`), with the paper's worked
  example one click away;
* the independent check: every person's possible-world count and every
  check, next to the plain-language promise (:mod:`.check_view`).
"""
from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QTabWidget, QVBoxLayout, QWidget

from ....data.samples import list_samples, load_sample
from ....methods.contract import MethodRun
from ....methods.nonreciprocal.compare import NonreciprocalComparison
from ....methods.nonreciprocal.result import NonreciprocalResult
from ....methods.nonreciprocal.spec import AUDIT_WARNING, K_SWEEP, L_SWEEP
from ....methods.sweep import SweepResult
from ...controls import note_label
from ...figure_sweep import FigureSweep
from ...method_workbench import JSON_KEY, MethodWorkbench
from ...side_by_side import SideBySideView
from .check_view import CheckView
from .figures import Fig6View, describe_failure, figure_sweep, sweep_title
from .graph_view import GraphData, GraphView
from .order_view import OrderView
from .published import CHIP_LEGEND, WorldsView

__all__ = ["NonreciprocalWorkbench", "WORKED_EXAMPLE", "DEFAULT_K"]

#: The bundled sample holding the paper's worked example (Table 1).
WORKED_EXAMPLE = "sports-example"
#: k shown before the user chooses (clamped to the records of the data).
DEFAULT_K = 5
DEFAULT_L = 3
EXAMPLE_LINK = "example"
GRAPH_LINK = "tab:graph"

INTRO = ("<b>Publish every person's record so that it could be any of k published records — without groups and "
         "without a hierarchy of items.</b>")
GUIDE = (
    "<b>What it answers.</b> Nonreciprocal recoding (Xue et al., KDD 2012) publishes one generalized record per "
    "person: a base (the majority vote of k similar records), the items where those records disagree and a "
    "threshold. Every person fits at least k published records, each equally likely to be theirs; with ℓ, those "
    "records also carry ℓ different sensitive labels. "
    "<b>What to set first.</b> k, or tick ℓ and choose a labels file (record,label). Gray-TSP sorts records more "
    "closely than Gray alone and loses less; the other settings rarely need changing. "
    "<b>How to read it.</b> <i>Release</i>: every person beside the record published in their slot, items as "
    "chips. <i>Possible worlds</i>: for any person, the published records that could be theirs. <i>ER and QE</i>: "
    "the paper's Fig. 6, filled in by a background sweep after each run. "
    "<i>Order</i>: how sorting shortened the distances between neighbours. <i>Graph</i>: for small data, who is "
    "linked to which published record and the true assignment — "
    f"<a href='{EXAMPLE_LINK}'>open the paper's worked example</a>. <i>Check</i>: the independent verifier's exact "
    "count for every person.")
EMPTY_TEXT = ("Load a set-valued dataset to begin (File > Open dataset…, or a bundled sample on the left), or "
              f"<a href='{EXAMPLE_LINK}'>open the paper's worked example</a> (6 people) to see how nonreciprocal "
              "recoding keeps privacy.")
TAB_PUBLISHED, TAB_WORLDS, TAB_FIGURE = "Release", "Possible worlds", "ER and QE vs k"
TAB_ORDER, TAB_GRAPH, TAB_CHECK = "Order", "Graph", "Check"


def _labels_of_sample(dataset: Any):
    """The labels file of the bundled sample ``dataset`` was loaded from, if it has one."""
    source = getattr(dataset, "source", None)
    if source is None:
        return None
    for sample in list_samples():
        labels = sample.file("labels")
        if labels is not None and sample.data_path.resolve() == source.resolve():
            return labels
    return None


class NonreciprocalWorkbench(MethodWorkbench):
    """Nonreciprocal recoding: release table, Fig. 6, orders, graph view and independent check."""

    SPEC = "nonreciprocal"
    TITLE = "Nonreciprocal"
    ORDER = 40
    RUN_TEXT = "Publish"
    INTRO = INTRO
    GUIDE = GUIDE
    EMPTY_TEXT = EMPTY_TEXT

    def __init__(self, runner, parent: QWidget | None = None):
        self._syncing = False
        self._mode = "k"
        self._prefilled_labels = None
        self._fig_results: dict[MethodRun, SweepResult] = {}
        super().__init__(runner, parent)
        self.empty_label.setTextFormat(Qt.RichText)
        self.empty_label.setTextInteractionFlags(Qt.LinksAccessibleByMouse)
        self.empty_label.linkActivated.connect(self._link)
        self.guide.body.linkActivated.connect(self._link)
        self.callout.linkActivated.connect(self._link)
        panel = self.param_panel
        panel.editor("l").setValue(DEFAULT_L)
        panel.set_value("k", DEFAULT_K)

    # ------------------------------------------------------------ building
    def build_results(self) -> QWidget:
        self.release_view = SideBySideView()
        self.release_view.setObjectName("release_view")
        self.release_view.row_selected.connect(self._release_row_selected)
        # A published record has more columns than a person: give it the larger share.
        self.release_view.splitter.setStretchFactor(0, 2)
        self.release_view.splitter.setStretchFactor(1, 3)
        release_page = QWidget()
        release_layout = QVBoxLayout(release_page)
        release_layout.setContentsMargins(0, 0, 0, 0)
        release_layout.addWidget(note_label(CHIP_LEGEND))
        release_layout.addWidget(self.release_view, 1)
        self._shown_release = None
        self.worlds_view = WorldsView()
        self.fig_view = Fig6View()
        self.fig_sweep = FigureSweep(self.submit, key=f"{self.job_key}:fig",
                                     wait_for_kernels=self.runner.wait_for_kernels, parent=self)
        self.fig_sweep.partial.connect(self._figure_partial)
        self.fig_sweep.finished.connect(self._figure_done)
        self.fig_sweep.not_started.connect(self._figure_not_started)
        self.fig_sweep.failed.connect(self._figure_failed)
        self.fig_view.rerun_requested.connect(self._rerun_figure)
        self.fig_view.stop_requested.connect(self._stop_figure)
        self.order_view = OrderView()
        self.graph_view = GraphView()
        self.graph_view.example_requested.connect(self.open_worked_example)
        self.worlds_view.person_changed.connect(self._person_changed)
        self.graph_view.canvas.person_clicked.connect(self._graph_person_clicked)
        self.check_view = CheckView()
        self.tabs = QTabWidget()
        self.tabs.addTab(release_page, TAB_PUBLISHED)
        self.tabs.addTab(self.worlds_view, TAB_WORLDS)
        self.tabs.addTab(self.fig_view, TAB_FIGURE)
        self.tabs.addTab(self.order_view, TAB_ORDER)
        self.tabs.addTab(self.graph_view, TAB_GRAPH)
        self.tabs.addTab(self.check_view, TAB_CHECK)
        self.figure_tab = self.tabs.indexOf(self.fig_view)
        self.tabs.setTabToolTip(0, "Every person beside the record published in their slot, as chips.")
        self.tabs.setTabToolTip(1, "The published records one person could be: the graph's links and those that "
                                   "fit by chance.")
        self.tabs.setTabToolTip(self.figure_tab, "The paper's Fig. 6: error rate and query error against k (Gray vs "
                                                 "Gray-TSP) or ℓ (ring, greedy, CAHD), from a small sweep run after "
                                                 "each run.")
        self.tabs.setTabToolTip(self.tabs.indexOf(self.graph_view), "The generalization graph and the true "
                                                                    "assignment, drawn for up to 60 records.")
        return self.tabs

    # ------------------------------------------------------------ parameters
    def _params_edited(self) -> None:
        """k and ℓ exclude each other: ticking one unticks the other; the Compare tab follows the mode."""
        if self._syncing:
            return
        values = self.param_panel.values()
        k, l = values.get("k"), values.get("l")
        mode = self._mode
        if k is not None and l is not None:
            mode = "l" if self._mode == "k" else "k"
            self._syncing = True
            try:
                self.param_panel.set_value("k" if mode == "l" else "l", None)
            finally:
                self._syncing = False
        elif k is not None or l is not None:
            mode = "k" if k is not None else "l"
        if mode != self._mode or self.sweep_view.preset_combo.currentData() is None:
            self._mode = mode
            self._select_preset()
        self.tabs.setTabText(self.figure_tab, f"ER and QE vs {'k' if self._mode == 'k' else 'ℓ'}")

    def _select_preset(self) -> None:
        preset = K_SWEEP if self._mode == "k" else L_SWEEP
        combo = self.sweep_view.preset_combo
        index = next((i for i in range(combo.count()) if combo.itemData(i) is preset), -1)
        if index >= 0 and combo.currentIndex() != index:
            combo.setCurrentIndex(index)

    def dataset_changed(self, dataset: Any) -> None:
        self._fig_results.clear()
        self.fig_sweep.discard()
        panel = self.param_panel
        labels = _labels_of_sample(dataset)
        if labels is not None:
            panel.set_value("labels", labels)
            self._prefilled_labels = labels
        elif self._prefilled_labels is not None and panel.values().get("labels") == self._prefilled_labels:
            # a sample's labels file never stays on other data
            panel.set_value("labels", None)
            self._prefilled_labels = None
        n = dataset.n_records
        for name in ("k", "l"):
            value = panel.values().get(name)
            if value is not None and value > n >= 2:
                panel.set_value(name, n)
        self.graph_view.set_waiting(n)

    # ------------------------------------------------------------ running
    def run(self, params: Any) -> None:
        self._stop_figure()
        super().run(params)

    def clear_results(self) -> None:
        self._shown_release = None
        self.release_view.set_comparison(None)
        self.worlds_view.clear()
        self.order_view.clear()
        self.fig_view.clear()
        self.check_view.clear()
        self.graph_view.set_waiting(self.dataset.n_records if self.dataset is not None else None)

    def show_result(self, result: NonreciprocalResult, partial: bool) -> None:
        self.order_view.show_result(result)
        if result.published is not None and self.dataset is not None and result is not self._shown_release:
            self._shown_release = result
            self.release_view.set_comparison(NonreciprocalComparison(result, self.dataset))
            self.worlds_view.set_result(result, self.dataset)
        self.tabs.setTabText(self.figure_tab, f"ER and QE vs {'k' if result.mode == 'k' else 'ℓ'}")
        if not partial and result.complete and self.dataset is not None:
            graph = GraphData.from_result(result, self.dataset)
            if graph is not None:
                self.graph_view.set_graph(graph)
                self.graph_view.select_person(None)

    def show_verification(self, run: MethodRun) -> None:
        self.check_view.show_check(run)
        stored = self._fig_results.get(run)
        if stored is not None:
            self.fig_view.show_sweep(stored, run, running=False)
        elif run.result is not None and run.result.complete and self.dataset is not None:
            self._start_figure(run)
        else:
            self.fig_view.clear()
            self.fig_view.status.setText("The run was stopped before it finished: no curves for it.")

    def show_comparison(self, run: MethodRun | None) -> None:
        result = run.result if run is not None else None
        self.order_view.show_compared(result)
        self.fig_view.show_compared(self._fig_results.get(run) if run is not None else None)

    # ------------------------------------------------------------ Fig. 6 sweep
    def _start_figure(self, run: MethodRun) -> None:
        """Run the Fig. 6 sweep around ``run`` in the background (the run's own cell is not recomputed)."""
        axes, cells, own_cell = figure_sweep(run, self.dataset.n_records)
        self.fig_view.started(run, axes, len(cells))
        self.fig_sweep.start(sweep_title(run), self.spec, self.dataset, cells, axes=axes, cached=own_cell,
                             result_cache=self.result_cache, context=run)

    def _figure_not_started(self) -> None:
        """A sweep stopped before its first point delivers nothing: say so and offer to run it again."""
        run = self.fig_sweep.context
        if run not in self._fig_results and run is self.last_run:
            self.fig_view.status.setText("The sweep was stopped before its first point.")
            self.fig_view.stop_button.setEnabled(False)
            self.fig_view.rerun_button.setEnabled(True)

    def _figure_partial(self, result: SweepResult) -> None:
        run = self.fig_sweep.context
        if run is self.last_run:
            self.fig_view.show_sweep(result, run, running=True)

    def _figure_done(self, result: SweepResult, complete: bool) -> None:
        run = self.fig_sweep.context
        self._fig_results[run] = result
        if run is self.last_run:
            self.fig_view.show_sweep(result, run, running=False)
        if run is self.compared_run:
            self.fig_view.show_compared(result)

    def _figure_failed(self, exc: BaseException) -> None:
        self.fig_view.status.setText(describe_failure(exc))
        self.fig_view.rerun_button.setEnabled(self.last_run is not None)
        self.fig_view.stop_button.setEnabled(False)

    def _stop_figure(self) -> None:
        self.fig_sweep.stop()

    def _rerun_figure(self) -> None:
        run = self.last_run
        if run is not None and run.result is not None and run.result.complete:
            self._fig_results.pop(run, None)
            self._start_figure(run)

    @property
    def figure_job(self):
        """The running Fig. 6 sweep job, or None."""
        return self.fig_sweep.job if self.fig_sweep.running else None

    # ------------------------------------------------------------ people
    def _person_changed(self, person: int) -> None:
        if self.graph_view.graph is not None and 0 <= person < self.graph_view.graph.n:
            self.graph_view.select_person(person)

    def _release_row_selected(self, row: int) -> None:
        if row >= 0:
            self.worlds_view.show_person(row)

    def _graph_person_clicked(self, person: int) -> None:
        if person >= 0:
            self.worlds_view.show_person(person)
            self.release_view.select_row(person)

    # ------------------------------------------------------------ worked example
    def _link(self, link: str) -> None:
        if link == EXAMPLE_LINK:
            self.open_worked_example()
        elif link == GRAPH_LINK:
            self.tabs.setCurrentWidget(self.graph_view)

    def open_worked_example(self) -> None:
        """Load the paper's worked example, publish it with k = 3 and show its graph."""
        window = self.window()
        tabs = getattr(window, "tabs", None)
        if tabs is not None and tabs.indexOf(self) >= 0:
            tabs.setCurrentWidget(self)

        def loaded(_dataset: Any) -> None:
            if self.dataset is None:
                return
            self.param_panel.set_value("l", None)
            self.param_panel.set_value("k", 3)
            self.tabs.setCurrentWidget(self.graph_view)
            if not self.param_panel.error:
                self.param_panel.run_button.click()

        datasets = getattr(window, "datasets", None)
        if datasets is not None and hasattr(datasets, "load_sample"):
            datasets.load_sample(WORKED_EXAMPLE, on_loaded=loaded)
        else:
            self.set_dataset(load_sample(WORKED_EXAMPLE))
            loaded(self.dataset)

    # ------------------------------------------------------------ exports
    def export_dialog(self, key: str) -> None:
        """The run report holds the true assignment when the run asked for it: warn like the audit files."""
        run = self.last_run
        if key == JSON_KEY and run is not None and run.params.include_assignment:
            answer = QMessageBox.question(
                self, "Save an audit report?",
                f"This run report includes the chosen (true) assignment. {AUDIT_WARNING}\n\nSave it anyway?")
            if answer != QMessageBox.Yes:
                return
        super().export_dialog(key)

    def promise_html(self, run: MethodRun, description, emphasize: bool) -> str:
        text = html.escape(description.promise)
        text = f"<b>{text}</b>" if emphasize else text
        if self.graph_view.graph is not None and run is self.last_run:
            text += f" <a href='{GRAPH_LINK}'>See why in the graph.</a>"
        return text
