"""The workbench of one method family, built from its :class:`~anonstudio.methods.contract.MethodSpec`.

A family's workbench is a package ``anonstudio/gui/workbenches/<family>/``
whose ``workbench.py`` subclasses :class:`MethodWorkbench` and supplies only
what is its own: the results area (plots, maps, tables) and how a result is
drawn. Everything else is written once here:

* the parameter panel from the spec's params (sections, enable-when rules,
  path/column/levels fields), with inline validation;
* the intro and the plain-language callout: running, stopped, the promise and
  the independent check, red when the check finds the promise broken;
* Run and Cancel through :func:`~anonstudio.methods.contract.run_and_verify`
  as a background job with stage-weighted progress, an ETA and Cancel; live
  partial results; a cancelled run keeps what it computed;
* the export row from the spec's exports (release files only once the
  promise was confirmed), plus the run's JSON; every save goes through one
  dialog and is written atomically;
* ``state()`` / ``restore()`` of the parameters, versioned, with a
  :meth:`MethodWorkbench.migrate` hook for project files.

Subclass example (the whole GUI of a family)::

    class LengthsWorkbench(MethodWorkbench):
        SPEC = "lengths"          # the MethodSpec's name
        ORDER = 90
        INTRO = "<b>Which records are longest?</b> ..."

        def build_results(self):
            self.plot = ExportablePlot("Longest records", x_label="rank", y_label="items")
            self.plot.add_series("length", kind="bars")
            return self.plot

        def show_result(self, result, partial):
            self.plot.set_series("length", np.arange(1, len(result.lengths) + 1), result.lengths)

        def clear_results(self):
            self.plot.clear_data()
"""
from __future__ import annotations

import html
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QApplication, QHBoxLayout, QMessageBox, QTabWidget, QVBoxLayout, QWidget

from ..methods.contract import MethodRun, MethodSpec, get_method, run_and_verify, verdict_head, write_outputs
from ..params import ParameterError, from_dict, to_dict
from .callout import VerdictCallout
from .controls import Collapsible, ExportRow, HistoryBar, note_label, save_file_dialog
from .next_steps import next_step, with_next_step
from .sweep_view import SweepView
from .workbench import Workbench

__all__ = ["MethodWorkbench"]


def _short(value: Any) -> str:
    """A parameter value for a one-line run label: lists by their length, paths by their file name."""
    if isinstance(value, list):
        return f"{len(value)} chosen" if len(value) > 2 else ",".join(map(str, value))
    if isinstance(value, str) and ("/" in value or "\\" in value):
        return Path(value).name
    return f"{value:g}" if isinstance(value, float) else str(value)


READY_TEXT = "Set the parameters on the right and press “{run}”."
RUNNING_TEXT = ("Running… results appear as they are computed. Progress and time left: Jobs panel below. "
                "Cancel keeps what is done.")
JSON_KEY = "json"
COMMAND_KEY = "command"


class MethodWorkbench(Workbench):
    """A workbench for one method family; see the module docstring.

    Class attributes
    ----------------
    SPEC
        The family's MethodSpec name.
    INTRO
        One paragraph (rich text) above the results: what this answers.
    RUN_TEXT
        Caption of the Run button.

    Signals
    -------
    run_finished(object, bool)
        The :class:`~anonstudio.methods.contract.MethodRun` and whether it completed.
    """

    SPEC = ""
    INTRO = ""
    #: The in-app guide (rich text): what this tab answers, what to set first, how to read the results.
    GUIDE = ""
    ABSTRACT = True

    run_finished = Signal(object, bool)

    def __init__(self, runner, parent: QWidget | None = None):
        self.spec: MethodSpec = get_method(self.SPEC)
        self.PARAMS = self.spec.params
        self.DATASET_TYPES = self.spec.data_kinds
        self.last_run: MethodRun | None = None
        #: Every finished run of the current dataset, oldest first (the history bar lists them).
        self.history: list[MethodRun] = []
        #: The run drawn beside the shown one for comparison, or None.
        self.compared_run: MethodRun | None = None
        #: The newest result drawn (partial while a run goes on), None after a clear.
        self.shown_result: Any = None
        #: Where finished runs are kept between sessions (a studio.cache.ResultCache, set by the main window).
        self.result_cache: Any = None
        super().__init__(runner, parent)
        if self.param_panel is not None:
            self.param_panel.edited.connect(self._params_edited)

    # --------------------------------------------------------- to override
    def build_results(self) -> QWidget:
        """The results area (plots, map, tables), created once."""
        return QWidget()

    def show_result(self, result: Any, partial: bool) -> None:
        """Draw a (partial) result of the spec's ``run``."""

    def show_verification(self, run: MethodRun) -> None:
        """Draw the independent check of a finished run (default: the callout says it)."""

    def show_comparison(self, run: MethodRun | None) -> None:
        """Draw ``run``'s result beside the shown one (dashed curves, an extra column); None removes it."""

    def clear_results(self) -> None:
        """Forget every drawn result (new dataset, new run)."""

    def dataset_changed(self, dataset: Any) -> None:
        """Hook: a new dataset this workbench accepts became active (results are cleared already)."""

    # -------------------------------------------------------------- layout
    def build(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(6, 4, 6, 4)
        self.intro_label = note_label(self.INTRO, "body")
        self.guide = Collapsible("How to use this tab", self.GUIDE or self.INTRO)
        self.guide.setObjectName("guide")
        # One line of verdict; the promise, the figures and the notes unfold under "Details" (never a scroll bar).
        self.callout = VerdictCallout(READY_TEXT.format(run=self.RUN_TEXT))
        self.callout.setObjectName("callout")
        self.callout_area = self.callout
        self.history_bar = HistoryBar()
        self.history_bar.shown.connect(self.show_history_run)
        self.history_bar.compared.connect(self._compare_history_run)
        self.results = self.build_results()
        self.sweep_view = SweepView(self.spec, self._sweep_context,
                                    lambda title, fn, **kw: self.submit(title, fn, key=f"{self.job_key}:sweep", **kw),
                                    wait_for_kernels=self.runner.wait_for_kernels)
        if not isinstance(self.results, QTabWidget):
            tabs = QTabWidget()
            tabs.addTab(self.results, "Results")
            self.results = tabs
        self.results.addTab(self.sweep_view, "Compare parameter values")
        exports = [(e.key, f"{e.label}…", e.help) for e in self.spec.exports]
        more = [(JSON_KEY, "Run report (JSON)…",
                 "The run as JSON: result, independent check, status, parameters (seed included), input name "
                 "and SHA-256, anonstudio version."),
                (COMMAND_KEY, "Copy command line",
                 "Copy the anonstudio-cli command that repeats this run exactly (every parameter, seed included, "
                 "and how the data was read), for scripts and reports.")]
        self.export_row = ExportRow(exports, self.export_dialog, more=more)
        top = QHBoxLayout()
        top.addWidget(self.intro_label, 1)
        layout.addLayout(top)
        layout.addWidget(self.guide)
        layout.addWidget(self.callout)
        layout.addWidget(self.history_bar)
        layout.addWidget(self.results, 1)
        layout.addWidget(self.export_row)
        return page

    # ------------------------------------------------------------- dataset
    def set_dataset(self, dataset: Any) -> None:
        # Clear before the base class decides whether to show the page: no text
        # or plot of the previous dataset may survive a switch.
        self.last_run = None
        self.shown_result = None
        self.history = []
        self.compared_run = None
        self.history_bar.set_runs([])
        self.clear_results()
        self.show_comparison(None)
        self.callout.show_text(READY_TEXT.format(run=self.RUN_TEXT))
        self._update_exports()
        super().set_dataset(dataset)
        if self.param_panel is not None:
            self.param_panel.set_dataset(self.dataset)

    # ----------------------------------------------------------------- run
    def run(self, params: Any) -> None:
        data, spec = self.dataset, self.spec
        self.last_run = None
        self.shown_result = None
        self.clear_results()
        self._update_exports()
        self.callout.show_text(RUNNING_TEXT, "info")
        runner = self.runner

        def job(progress):
            runner.wait_for_kernels(progress)
            return run_and_verify(spec, data, params, progress)

        self.submit(f"{spec.title} ({getattr(data, 'name', 'dataset')})", job,
                    on_partial=self._on_partial, on_done=self._on_done, on_error=self._on_error)

    def run_with(self, **changes: Any) -> None:
        """Set fields and press Run (tests, demos)."""
        for name, value in changes.items():
            self.param_panel.set_value(name, value)
        self.param_panel.run_button.click()

    def _on_partial(self, result: Any) -> None:
        self.shown_result = result
        self.show_result(result, True)

    def _on_done(self, run: MethodRun, complete: bool) -> None:
        self.show_run(run)
        if complete and self.result_cache is not None:
            # Pickling a large result takes a moment: keep it off the GUI thread.
            threading.Thread(target=self.result_cache.put, args=(run,), name="store-run", daemon=True).start()
        head = verdict_head(run)
        self.status.emit(f"{self.spec.title}: " + {"done": "finished.", "not-met": "finished; do not publish it.",
                                                   "cancelled": "stopped; partial result shown.",
                                                   "unverified": "finished, unverified."}[run.status]
                         + (f" {head}." if head else ""))
        self.run_finished.emit(run, complete)

    def show_run(self, run: MethodRun) -> None:
        """Show a finished run as if it had just finished here (added to the history; ``run_finished`` not emitted).

        For runs computed elsewhere on this workbench's dataset (the result cache, a report's offscreen rendering).
        """
        if run.result is not None:
            self.history.append(run)
            self.history_bar.set_runs([self.run_label(r, i) for i, r in enumerate(self.history)],
                                      shown=len(self.history) - 1)
        self._show_run(run)

    def show_stored_run(self, run: MethodRun) -> None:
        """Show a run read back from the result cache, as if it had just finished (nothing is recomputed)."""
        if run.data is not self.dataset:
            return  # the dataset changed while the cache was read
        self.clear_results()
        self.show_run(run)
        self.status.emit(f"{self.spec.title}: results of {run.started[:16].replace('T', ' ')} shown from the "
                         "cache (same data, parameters and version); press Run to compute them again.")

    def _show_run(self, run: MethodRun) -> None:
        self.last_run = run
        if run.result is not None:
            self.shown_result = run.result
            self.show_result(run.result, False)
        self.show_verification(run)
        self.callout.show_text(self.run_text(run), run.state)
        self._update_exports()

    def run_label(self, run: MethodRun, index: int) -> str:
        """"#2 14:03:10 k = 10, m = 3 — passed": the parameters that differ from the defaults, and the check's verdict
        (passed, FAILED, incomplete) or, for a measurement, its status."""
        defaults = to_dict(self.spec.params())
        changed = [f"{k} = {_short(v)}" for k, v in to_dict(run.params).items() if defaults.get(k) != v]
        when = run.started[11:19] if len(run.started) >= 19 else run.started
        outcome = (verdict_head(run) or run.status).removeprefix("Independent check ")
        return f"#{index + 1} {when} {', '.join(changed) or 'defaults'} — {outcome}"

    def show_history_run(self, index: int) -> None:
        """Show an earlier run of this dataset again (results, check, callout, exports)."""
        if 0 <= index < len(self.history) and self.history[index] is not self.last_run:
            self.clear_results()
            self._show_run(self.history[index])
            self.show_comparison(self.compared_run)

    def _compare_history_run(self, index: int) -> None:
        self.compared_run = self.history[index] if 0 <= index < len(self.history) else None
        self.show_comparison(self.compared_run)

    def _on_error(self, exc: BaseException) -> None:
        self.callout.show_text(f"<b>The run could not start or failed:</b> {html.escape(str(exc))}<br><b>What to "
                               f"do:</b> {html.escape(next_step(str(exc)))}", "failed")

    def run_text(self, run: MethodRun) -> str:
        """The callout after a run: the verdict first (the contract's words), then the promise and the notes."""
        d = self.spec.describe(run)
        parts = []
        if d.check:
            head, sep, figures = d.check.partition(": ")
            parts.append(f"<b>{html.escape(head)}</b>{sep}{html.escape(figures)}")
        if run.status == "not-met":
            parts.append("<b>Do not publish this release.</b> "
                         f"Intended promise: {self.promise_html(run, d, emphasize=False)}")
        elif run.status == "cancelled":
            parts.append("What is shown is partial and not a guarantee. "
                         f"So far: {self.promise_html(run, d, emphasize=False)}")
        elif run.status == "unverified":
            parts.append(f"{self.promise_html(run, d, emphasize=False)} <i>(not independently checked)</i>")
        else:
            parts.append(self.promise_html(run, d, emphasize=True))
        parts.extend(html.escape(n) for n in d.notes)
        return "<br>".join(parts)

    def promise_html(self, run: MethodRun, description, emphasize: bool) -> str:
        """The promise as rich text (bold when ``emphasize``); a family may say more, with links."""
        text = html.escape(description.promise)
        return f"<b>{text}</b>" if emphasize else text

    # -------------------------------------------------------------- export
    def _update_exports(self) -> None:
        run = self.last_run
        enabled = {JSON_KEY: run is not None, COMMAND_KEY: run is not None}
        for export in self.spec.exports:
            ok = run is not None and export.offered(run)
            reason = "" if ok else "no finished run yet"
            if ok and export.kind == "release" and not run.guarantee_met:
                ok, reason = False, run.status_reason() or "the promise is unchecked"
            enabled[export.key] = ok
            self.export_row.set_reason(export.key, reason)
        self.export_row.set_enabled(enabled)

    def default_name(self, key: str) -> str:
        stem = Path(str(getattr(self.dataset, "name", "dataset"))).stem or "dataset"
        return f"{stem}-{self.spec.name}-{key}"

    def export_to(self, key: str, path: str | Path) -> Path:
        """Write one export (or the run JSON) of the last run to ``path``; raises on failure."""
        run = self.last_run
        if run is None:
            raise RuntimeError("no finished run to save; run one first")
        path = Path(path)
        if key == JSON_KEY:
            write_outputs(run, {}, path)
        else:
            skipped = write_outputs(run, {key: path})
            if skipped:
                raise RuntimeError(skipped[0])
        return path

    def command_line(self) -> str:
        """The ``anonstudio-cli`` command that repeats the shown run (NotReproducible for data built in memory)."""
        from ..studio.command_line import run_command_line

        if self.last_run is None:
            raise RuntimeError("no finished run to repeat; run one first")
        return run_command_line(self.last_run)

    def copy_command_line(self) -> None:
        from ..studio.command_line import NotReproducible

        try:
            line = self.command_line()
        except (NotReproducible, RuntimeError) as exc:
            QMessageBox.information(self, "No command line", str(exc))
            return
        QApplication.clipboard().setText(line)
        self.status.emit("Copied the command line that repeats this run: paste it into a terminal or a script.")

    def export_dialog(self, key: str) -> None:
        if key == COMMAND_KEY:
            self.copy_command_line()
            return
        if key == JSON_KEY:
            label, extensions = "Run report", (".json",)
        else:
            export = next(e for e in self.spec.exports if e.key == key)
            label, extensions = export.label, export.extensions
            if export.kind == "audit":
                answer = QMessageBox.question(
                    self, "Save an audit file?",
                    f"{export.label}: {export.warning or export.help}\n\nTogether with the release it can "
                    "de-anonymize people. Save it anyway?")
                if answer != QMessageBox.Yes:
                    return
        path = save_file_dialog(self, label, self.default_name(key) + extensions[0], extensions)
        if path is None:
            return
        try:
            self.export_to(key, path)
        except (OSError, ValueError, RuntimeError) as exc:
            QMessageBox.critical(self, "Save failed", with_next_step(f"Could not write {path}: {exc}"))
            return
        self.status.emit(f"Saved {label.lower()} to {path}.")

    # --------------------------------------------------------------- state
    def state(self) -> dict:
        """The parameters as a versioned, JSON/TOML-ready dictionary (project files)."""
        values = self.param_panel.values()
        try:
            params = self.spec.params(**values)
            plain = to_dict(params)
        except (TypeError, ValueError):
            plain = {k: (str(v) if isinstance(v, Path) else v) for k, v in values.items()}
        return {"schema": self.spec.params_schema, "method": self.spec.name, "params": plain}

    def restore(self, state: dict) -> None:
        """Show the parameters of a :meth:`state` (older schemas go through the spec's ``migrate_params``).

        Raises
        ------
        ParameterError
            For a state of another method, of a newer schema or with values of the wrong kind.
        """
        if state.get("method", self.spec.name) != self.spec.name:
            raise ParameterError(f"these parameters are for {state.get('method')!r}, not {self.spec.name!r}")
        values = self.spec.migrate_params(dict(state.get("params", {})),
                                          int(state.get("schema", self.spec.params_schema)))
        params = from_dict(self.spec.params, values, check=False)
        self.param_panel.set_params(params)

    def _sweep_context(self) -> tuple[Any, Any]:
        """The dataset and the panel's parameters, as the base of a sweep (None when not valid)."""
        try:
            params = self.param_panel.params()
        except ParameterError:
            params = None
        return self.dataset, params

    # ------------------------------------------------------------ internals
    def _params_edited(self) -> None:
        """Hook for subclasses that redraw something from the form (e.g. the plot axes)."""
