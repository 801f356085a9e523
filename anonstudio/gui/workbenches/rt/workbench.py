"""RT workbench: publish people's demographics together with their item sets (diagnoses, baskets).

(k, k^m)-anonymity of RT-data under a loss bound δ (Poulis, Loukides,
Gkoulalas-Divanis, Skiadopoulos, ECML PKDD 2013). A run clusters people on
their demographics, merges clusters while the bounded side's loss stays
within δ and generalizes each cluster's items. The tab shows

* the published table: each person before and after in the studio's
  side-by-side view (:class:`~anonstudio.gui.side_by_side.SideBySideView`
  over :class:`~anonstudio.methods.rt.compare.RTComparison`), the selected
  person's cluster highlighted, generalized cells and items as chips; the
  cluster inspector below;
* the three merge heuristics R, T and RT compared over δ (SECRETA's
  comparison mode): query errors, losses and the largest cluster against δ
  and the losses along the merges, filled in by a background sweep;
* the run's losses along its merges (live), its figures and the independent
  check.
"""
from __future__ import annotations

import dataclasses
import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QTabWidget, QWidget

from ....data.samples import sample_of
from ....data.table import RTData, Table
from ....formatting import duration
from ....methods.contract import MethodRun
from ....methods.rt.compare import RTComparison
from ....methods.rt.inputs import rt_data_for, suggest_params
from ....methods.rt.params import RTParams
from ....methods.rt.result import RTResult
from ....methods.rt.sweeps import HEURISTICS as PRESET
from ....methods.rt.sweeps import coarse_to_fine, delta_grid
from ....methods.sweep import Axis, CellResult, SweepResult, make_grid
from ....params import ParameterError, from_dict, spec_of, to_dict
from ...figure_sweep import FigureSweep
from ...method_workbench import MethodWorkbench
from ...side_by_side import SideBySideView
from .heuristics import HEURISTICS, HeuristicComparison, Trace
from .inspector import ClusterInspector
from .run_view import RunView

__all__ = ["RTWorkbench", "AUTO_COMPARE_SECONDS", "comparison_key"]

INTRO = ("<b>Publish people's demographics together with their items (diagnoses, purchases) so that no one can be "
         "singled out, and see what each side loses.</b>")
GUIDE = (
    "<b>What it answers.</b> Whether a table of people with demographics <i>and</i> a set of items each can be "
    "published so that anyone who knows a person's demographics and up to m of their items matches at least k "
    "people ((k, k^m)-anonymity, Poulis et al. 2013), and what that costs each side. "
    "<b>What to set first.</b> The demographic columns an attacker may know and the items column (items joined by "
    "';'), or an items file with one person,item row each joined on a person id; hierarchies for coded columns "
    "(or mark them as codes) and for the items (a file, or a balanced tree built from the items); k and m. Then "
    "which side δ bounds: with the demographics bounded, δ caps how much they may be blurred and the items lose as "
    "little as possible, and the other way round. "
    "<b>How to read it.</b> <i>Published table</i>: each person before and after; click one to highlight their "
    "cluster and inspect it. <i>Merge heuristics vs δ</i>: R (merge similar demographics), T (similar items) and "
    "RT (both) at several δ, filled in by background runs; lower is better on every plot, and the star is the run "
    "shown. <i>Loss and check</i>: the losses after every merge and the independent check.")
EMPTY_TEXT = ("Load a table to begin: pick the bundled “Small synthetic clinic” sample on the left (patients with "
              "their diagnoses), or File > Open a CSV with an items column (items separated by ';') or a people "
              "table to join with an items file.")
TAB_TABLE = "Published table"
TAB_HEURISTICS = "Merge heuristics vs δ"
TAB_RUN = "Loss and check"
OTHER_SETTINGS = ("The curves are for other settings than the run shown (not only another δ or heuristic): press "
                  "“Compare R, T and RT” to compare at this run's settings.")
#: A comparison expected to take at most this long (seconds, from the run's own time) starts by itself. Three
#: minutes covers INFORMS (26,735 people: 1.5-2 min on 2 busy cores, estimated at up to 2.5), so its curves
#: fill in without a click; the job runs beside the next run and is cancelled when the settings it compares
#: change.
AUTO_COMPARE_SECONDS = 180.0


def comparison_key(params: RTParams) -> RTParams:
    """What a comparison depends on: every parameter except the two it varies (δ and the heuristic)."""
    return dataclasses.replace(params, delta=0.0, merge="r")


class RTWorkbench(MethodWorkbench):
    """(k, k^m)-anonymity of demographics with item sets; see the module docstring."""

    SPEC = "rt"
    TITLE = "RT-data"
    ORDER = 35
    RUN_TEXT = "Anonymize"
    EMPTY_TEXT = EMPTY_TEXT
    INTRO = INTRO
    GUIDE = GUIDE

    def __init__(self, runner, parent: QWidget | None = None):
        super().__init__(runner, parent)
        self.run_finished.connect(self._after_run)
        self._delta_tip = spec_of(RTParams, "delta").tooltip

    # ------------------------------------------------------------ building
    def build_results(self) -> QWidget:
        self.release: RTComparison | None = None
        self._comparison_key: RTParams | None = None
        self._traces: dict[int, Trace] = {}
        self.side_by_side = SideBySideView()
        self.side_by_side.row_selected.connect(self._row_selected)
        self.inspector = ClusterInspector()
        table_page = QSplitter(Qt.Vertical)
        table_page.addWidget(self.side_by_side)
        table_page.addWidget(self.inspector)
        table_page.setChildrenCollapsible(False)
        table_page.setSizes([7, 3])  # proportions: the tables get most of the height
        self.inspector.setMinimumHeight(120)
        self.comparison = HeuristicComparison()
        self.comparison.set_deltas(PRESET.axes[0].values)
        self.comparison.start_requested.connect(self.start_comparison)
        self.comparison.cancel_requested.connect(self.cancel_comparison)
        self.comparison_sweep = FigureSweep(self.submit, key=f"{self.job_key}:fig",
                                            wait_for_kernels=self.runner.wait_for_kernels, parent=self)
        self.comparison_sweep.partial.connect(self._comparison_partial)
        self.comparison_sweep.finished.connect(self._comparison_done)
        self.comparison_sweep.not_started.connect(self._comparison_not_started)
        self.comparison_sweep.failed.connect(self._comparison_failed)
        self.comparison_sweep.running_changed.connect(self.comparison.set_running)
        self.run_view = RunView()
        self.tabs = QTabWidget()
        self.tabs.addTab(table_page, TAB_TABLE)
        self.tabs.addTab(self.comparison, TAB_HEURISTICS)
        self.tabs.addTab(self.run_view, TAB_RUN)
        return self.tabs

    # ------------------------------------------------------------- dataset
    def set_dataset(self, dataset: Any) -> None:
        self._reset_comparison()
        super().set_dataset(dataset)

    def dataset_changed(self, dataset: Any) -> None:
        table = dataset.table if isinstance(dataset, RTData) else dataset
        values, source = self._suggestions(dataset, table)
        if values:
            self.param_panel.set_params(from_dict(RTParams, values, check=False))
        rows = f"{table.n_rows:,} people, {len(table.frame.columns)} columns"
        if source:
            text = (f"“{html.escape(str(dataset.name))}”: {rows}. Settings from {source}: check them on the right and "
                    f"press “{self.RUN_TEXT}”.")
        else:
            text = (f"“{html.escape(str(dataset.name))}”: {rows}. No column holds items separated by ';'. Choose the "
                    "demographic columns and the items column on the right, or an items file (person,item rows) "
                    "and the person id column that joins it.")
        self.callout.show_text(text)

    def _suggestions(self, dataset: Any, table: Table) -> tuple[dict, str]:
        """Parameter values for a new dataset and where they come from (the sample, the example, a guess)."""
        sample = sample_of(dataset)
        values = sample.method_params(self.spec.name) if sample is not None else {}
        if values:
            return values, f"the “{html.escape(sample.title)}” sample"
        columns = {str(c) for c in table.frame.columns}
        adult = self.spec.adult_params()
        if {*adult.qi, adult.items_column} <= columns:
            return to_dict(adult), ("the Adult example (each person's occupation as their one item; demographics "
                                      "age, education, race, sex)")
        values = suggest_params(table)
        if values:
            qi = ", ".join(values["qi"]) or "none"
            coded = ", ".join(values["categorical"])
            return values, (f"a guess: items in “{html.escape(values['items_column'])}”, demographics "
                            f"{html.escape(qi)}" + (f", {html.escape(coded)} read as codes" if coded else ""))
        return {}, ""

    # ----------------------------------------------------------------- run
    def run(self, params: Any) -> None:
        if self._comparison_key is not None and comparison_key(params) != self._comparison_key:
            self._reset_comparison()
        super().run(params)

    def _after_run(self, run: MethodRun, complete: bool) -> None:
        """Start a comparison for new settings when it is quick (show_verification has starred the run)."""
        result = run.result
        if not isinstance(result, RTResult):
            return
        if comparison_key(run.params) == self._comparison_key or not complete:
            return
        deltas = delta_grid(run.params.bound, result.initial_rum, result.initial_tum, include=run.params.delta)
        self.comparison.set_deltas(deltas)
        cells = 3 * len(deltas) - 1
        estimate = max(run.seconds, 0.05) * cells
        if estimate <= AUTO_COMPARE_SECONDS:
            self.start_comparison()
        else:
            self.comparison.set_status(f"Comparing R, T and RT at {len(deltas)} values of δ takes {cells} more runs, "
                                       f"about {duration(estimate)} at the speed of this one: press “Compare R, T "
                                       "and RT” to start them.")

    # ---------------------------------------------------------- comparison
    @property
    def comparison_job(self):
        """The comparison's current job (running or finished), None before the first of this dataset."""
        return self.comparison_sweep.job

    def start_comparison(self) -> None:
        """Run R, T and RT at every δ of the comparison's field in the background, with the shown run's settings."""
        data = self.dataset
        run = self.last_run if self.last_run is not None and isinstance(self.last_run.result, RTResult) else None
        try:
            base = run.params if run is not None else self.param_panel.params()
            deltas = self.comparison.deltas()
            axes = (Axis("delta", coarse_to_fine(deltas)), Axis("merge", PRESET.axes[1].values))
            cells = make_grid(base, axes)
        except ParameterError as exc:
            self.comparison.set_status(f"<span style='color:#b00020'>{html.escape(str(exc))}</span>")
            return
        if data is None:
            self.comparison.set_status("Load a dataset first.")
            return
        self.comparison.clear()
        self._comparison_key = comparison_key(base)
        if run is not None:
            self._mark_on_comparison(run)
        traces: dict[int, Trace] = {}
        self._traces = traces
        shown = {c.index for c in cells if run is not None and c.params == run.params}

        def cached(cell) -> CellResult | None:
            # The run on screen is one of the cells: reuse it instead of running it again.
            if cell.index not in shown:
                return None
            traces[cell.index] = Trace.of(run.result)
            return CellResult.of_run(cell, run)

        def keep_trace(cell_result: CellResult) -> None:
            # Runs in the worker: keep the losses along the merges, drop the run (its tables are large).
            if cell_result.run is not None and isinstance(cell_result.run.result, RTResult):
                traces[cell_result.cell.index] = Trace.of(cell_result.run.result)
            cell_result.run = None

        self.comparison.set_status(f"Running {len(cells)} runs ({len(deltas)} values of δ × R, T, RT) in the "
                                   "background; the plots fill in as they finish.")
        # Finished cells go to the result cache like any sweep's (the Compare tab finds them there); they are not
        # read back from it, since the cache keeps no losses along the merges. The cells differ only in δ and the
        # heuristic: the items column is split (or the items file joined) once for all of them.
        self.comparison_sweep.start(f"{self.spec.title}: compare merge heuristics", self.spec, data, cells,
                                    axes=axes, cached=cached, on_cell=keep_trace, result_cache=self.result_cache,
                                    read_cache=False, keep_runs=True, prepare=lambda people: rt_data_for(people, base))

    def cancel_comparison(self) -> None:
        self.comparison_sweep.stop()

    def _reset_comparison(self) -> None:
        self.comparison_sweep.reset()
        self._comparison_key = None
        self._traces = {}
        self.comparison.clear()
        self.comparison.set_running(False)

    def _comparison_not_started(self) -> None:
        self.comparison.set_status("Stopped before the first run finished.")

    def _comparison_partial(self, result: SweepResult) -> None:
        self.comparison.show_sweep(result, self._traces)
        self._show_comparison_status(result, running=True)

    def _comparison_done(self, result: SweepResult, complete: bool) -> None:
        self.comparison.show_sweep(result, self._traces)
        self._show_comparison_status(result, running=False)

    def _comparison_failed(self, exc: BaseException) -> None:
        self.comparison.set_status(f"<span style='color:#b00020'>The comparison failed: {html.escape(str(exc))}"
                                   "</span>")

    # ------------------------------------------------------------ results
    def clear_results(self) -> None:
        self.release = None
        self.side_by_side.set_comparison(None)
        self.inspector.clear()
        self.run_view.clear()
        self.comparison.mark_run(None, None, None)

    def show_result(self, result: Any, partial: bool) -> None:
        if isinstance(result, dict):  # progress of a running run: the phase reached and the losses so far
            self._show_progress(result)
            return
        if not isinstance(result, RTResult):
            return
        self.inspector.clear()
        try:
            self.release = RTComparison(result)
        except ValueError:
            self.release = None
        self.side_by_side.set_comparison(self.release)
        if self.release is None:
            self.side_by_side.title.setText(f"Nothing may be published: {html.escape(result.reason)}.")
        elif result.problem.n:
            self.side_by_side.select_row(0)
        self.run_view.plot.show_run(result, result.params.delta)
        self._show_measures()
        self._explain_delta(result)

    def _show_progress(self, info: dict) -> None:
        if info.get("phase") == "merge":
            self.run_view.plot.add_live(info["merges"], info["rum"], info.get("tum"))
            text = (f"Merging clusters: {info['merges']:,} merges so far; demographics loss Rum {info['rum']:.3f}, "
                    f"items loss Tum {info['tum']:.3f}.")
        elif info.get("phase") == "cluster":
            self.run_view.plot.add_live(0, info["rum"], None)
            text = (f"Clustered the people into {info['clusters']:,} clusters of at least k (demographics loss Rum "
                    f"{info['rum']:.3f}); generalizing their items…")
        else:
            return
        self.callout.show_text(f"Running… {text} Cancel keeps the clusters so far.", "info")

    def _explain_delta(self, result: RTResult) -> None:
        """Say on δ's tooltip where the bound stops being feasible on this data."""
        extra = ""
        if result.initial_rum is not None:
            extra = (f"\n\nOn this data the first clustering already loses Rum {result.initial_rum:.3f} of the "
                     "demographics: a demographics bound δ below it cannot be met.")
            if result.initial_tum is not None:
                extra += f" Its items loss is Tum {result.initial_tum:.3f}."
        self.param_panel.editor("delta").setToolTip(self._delta_tip + extra)

    def show_verification(self, run: MethodRun) -> None:
        self.run_view.show_check(run)
        # Every way a run comes on screen (just finished, picked from the history, read from the cache) ends
        # here: star it on the comparison.
        self._mark_on_comparison(run)

    def _compares(self, run: MethodRun | None) -> bool:
        """Whether ``run`` is one of the comparison's points (same settings but δ and the heuristic)."""
        return (run is not None and isinstance(run.result, RTResult) and
                (self._comparison_key is None or comparison_key(run.params) == self._comparison_key))

    def _mark_on_comparison(self, run: MethodRun) -> None:
        # Starring a run on curves of other settings (another k, other columns) would mislead; a run that
        # could not meet its δ is no point of the curves either (they leave such runs out).
        if self._compares(run) and run.result.feasible is not False:
            self.comparison.bound = run.params.bound
            self.comparison.mark_run(run.params.delta, run.params.merge, run.summary())
        else:
            self.comparison.mark_run(None, None, None)
        if self.comparison.result is not None:
            self._show_comparison_status(self.comparison.result, self.comparison_sweep.running)
        elif isinstance(run.result, RTResult) and not self._compares(run):
            self.comparison.set_status(OTHER_SETTINGS)

    def _show_comparison_status(self, result: SweepResult, running: bool) -> None:
        text = comparison_text(result, running)
        if self.last_run is not None and isinstance(self.last_run.result, RTResult) and \
                not self._compares(self.last_run):
            text = f"{OTHER_SETTINGS} {text}"
        self.comparison.set_status(text)

    def show_comparison(self, run: MethodRun | None) -> None:
        result = run.result if run is not None and isinstance(run.result, RTResult) else None
        self.run_view.plot.show_compared(result)
        self._show_measures()
        on_curves = self._compares(run) and run.result.feasible is not False
        self.comparison.mark_run(run.params.delta if on_curves else None, run.params.merge if on_curves else None,
                                 run.summary() if on_curves else None, compared=True)

    def _show_measures(self) -> None:
        shown = self.shown_result if isinstance(self.shown_result, RTResult) else None
        other = self.compared_run.result if self.compared_run is not None else None
        label = self.history_bar.compare_combo.currentText().split(" ")[0] or "compared"
        self.run_view.measures.show_results(shown, other if isinstance(other, RTResult) else None, label)

    # ------------------------------------------------------------ inspector
    def _row_selected(self, row: int) -> None:
        if self.release is not None and row >= 0:
            self.inspector.show_cluster(self.release.cluster(int(self.release.result.assignment[row])))


def comparison_text(result: SweepResult, running: bool) -> str:
    """How far the comparison is, and which runs could not meet their δ."""
    total = len(result.cells)
    deltas = len({c.values["delta"] for c in result.cells})
    missed = [r for r in result.ordered() if r.status not in ("done", "unverified")]
    text = f"{result.done} of {total} runs ({deltas} values of δ × R, T, RT)"
    text += " so far" if running else f" in {duration(result.seconds)}"
    if not running and not result.complete:
        text += " (stopped: the finished runs are drawn)"
    if missed:
        names = ", ".join(f"{HEURISTICS[r.cell.values['merge']][0]} at δ = {r.cell.values['delta']:g}"
                          for r in missed[:6])
        # An ellipsis ends the list by itself: no full stop after it.
        return text + f". Nothing published (δ cannot be met): {names}" + (" …" if len(missed) > 6 else ".")
    return text + "."
