"""Threats workbench: what does an attacker learn about people in a group-anonymized table
beyond what the table teaches about everyone? (Boreale, Corradi, Viscardi 2020)

One run anonymizes the loaded table (Mondrian, global recoding or Anatomy),
analyses the release the Group anonymization tab made of it (same recipe, so
the same release) or imports a published CSV, checks the release with the
independent verifier and runs the Bayesian analysis: a *learner* estimates the population from the
release (p_L), an *attacker* who also knows the victim is in the table reasons
about that person (p_A, Lemma 1), and random worlds (p_RW) treats every
compatible table as equally likely. The tab shows

* the paper's Figures 2-3: p_A against p_L of the true value for rows
  threatened under p_A and under p_L (the attacker-better region shaded),
  and histograms of log2 Ti with their skewness — updated live while sampling;
* brushing: select points to list the rows; click a row for the victim
  inspector (the paper's Table III for that person, and the person's group);
* the measures of Tables IV/V with one plain-language line each, the
  convergence diagnostics, and exports (per-row CSV, measures JSON, plots).
"""
from __future__ import annotations

import html
from typing import Any

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QSplitter, QTabWidget, QVBoxLayout, QWidget

from ....data.table import Table
from ....formatting import percent
from ....methods.contract import MethodRun
from ....methods.group_anonymize.compare import comparison_of
from ....methods.threat.result import ThreatResult
from ...controls import note_label
from ...method_workbench import MethodWorkbench
from ...side_by_side import LazySideBySide
from .inspector import VictimInspector
from .plots import Log2TiHistogram, ThreatScatter, TracePlot
from .rows import RowView
from .tables import MAX_LISTED, MeasuresTable, ThreatRowsTable, format_measure

__all__ = ["ThreatWorkbench", "default_columns"]

INTRO = ("<b>Does the release tell an attacker more about the people in it than it teaches about "
         "everyone?</b>")
GUIDE = (
    "<b>What it answers.</b> A group-anonymized table (Mondrian, global recoding, Anatomy, or a published CSV) "
    "teaches a <i>learner</i> about the population (p_L); an <i>attacker</i> who also knows the victim is in the "
    "table reasons about that person (p_A, Lemma 1 of Boreale et al. 2020). "
    "<b>What to set first.</b> The sensitive column, the quasi-identifiers and which of them the attacker knows "
    "(the Adult sample's roles give the paper's choice), the anonymization and its k and ℓ — or press “Analyse the "
    "Group anonymization tab's release” to analyse the release made there. More sweeps give "
    "steadier estimates; the convergence diagnostics say whether the sampler settled. "
    "<b>How to read it.</b> Each point is a person: x = p_L, y = p_A of their true value; in the "
    "<span style='background:#f2d4d4'>&nbsp;red hatched area&nbsp;</span> (rows drawn ▲) the attacker is surer. "
    "Ti = p_A / p_L; "
    "log2 Ti = 1: twice as sure; a long right tail (skewness γ > 0) means a few people are much more exposed. "
    "Drag over points to list those people; click one to see the paper's Table III for that person.")
TAB_A = "(a)(b) Attacker right"
TAB_L = "(c)(d) Learner right"
TAB_PEOPLE = "Selected people"
TAB_MEASURES = "Measures"
TAB_CONVERGENCE = "Convergence"
TAB_SIDE_BY_SIDE = "Original vs published"
EMPTY_TEXT = ("Load a table to begin: pick the bundled “UCI Adult census extract” sample on the left "
              "(or File > Open a CSV table). The Threats tab analyses tables, one row per person.")
SCATTER_A = "(a) Rows the attacker guesses right"
SCATTER_L = "(c) Rows the learner guesses right"
HIST_A = "(b) log2 Ti of the rows in (a)"
HIST_L = "(d) log2 Ti of the rows in (c)"
SELECT_HINT = ("<b>Select people</b>: drag a rectangle over points in (a) or (c) (hold Shift for a lasso), or "
               "click a point, to list those rows here; click a row to inspect that person.")
#: The family whose finished releases this tab can analyse ("Use the release of the Group anonymization tab").
GROUP_FAMILY = "group-anonymize"
USE_GROUP_TEXT = "Analyse the Group anonymization tab's release"
USE_GROUP_NONE = ("Make a release in the Group anonymization tab first (on this table, with its check passed): this "
                  "button then analyses that release here, with the same scheme, columns, k, ℓ and seed.")
PLOT_TIP = ("Red area: p_A > p_L, the attacker is more confident than the learner about the person's true value. "
            "Ti = p_A / p_L: how many times more confident; log2 Ti = 1 means twice as confident. γ (skewness) > 0: "
            "a long tail of people the attacker is much surer about. A row is 'threatened' under a distribution when "
            "its best guess is the true value. Figures 2-3 of Boreale, Corradi, Viscardi (2020), see "
            "Help > Method references.")


class ThreatWorkbench(MethodWorkbench):
    """Relative privacy threat of a group-anonymized table; see the module docstring."""

    SPEC = "threat"
    TITLE = "Threats"
    ORDER = 50
    RUN_TEXT = "Analyse threats"
    EMPTY_TEXT = EMPTY_TEXT
    INTRO = INTRO
    GUIDE = GUIDE

    # ------------------------------------------------------------ building
    def build(self) -> QWidget:
        page = super().build()
        #: The newest finished, checked run of the Group anonymization tab (None: none on this table).
        self.group_run: MethodRun | None = None
        self._running = False
        self.use_group_button = QPushButton(USE_GROUP_TEXT)
        self.use_group_button.setObjectName("use_group_release")
        self.use_group_button.clicked.connect(self.use_group_release)
        # Beside the intro line: the first row of the page's layout.
        page.layout().itemAt(0).layout().addWidget(self.use_group_button, 0, Qt.AlignTop)
        self._update_group_button()
        return page

    def build_results(self) -> QWidget:
        self.shown: ThreatResult | None = None
        self.view: RowView | None = None
        self.selected = np.zeros(0, dtype=np.int64)
        self.callout.linkActivated.connect(self._summary_link)

        self.scatter_A = ThreatScatter(SCATTER_A, empty_text="Points appear while the sampler runs.")
        self.scatter_L = ThreatScatter(SCATTER_L, empty_text="Points appear while the sampler runs.")
        self.hist_A = Log2TiHistogram(HIST_A, empty_text="", color="#B22222")
        self.hist_L = Log2TiHistogram(HIST_L, empty_text="", color="#0072B2")
        for plot, key in ((self.scatter_A, "p_A"), (self.scatter_L, "p_L"), (self.hist_A, "Ti"), (self.hist_L, "Ti")):
            plot.plot_widget.setToolTip(PLOT_TIP)
            plot.add_glossary(key)
        for scatter in (self.scatter_A, self.scatter_L):
            scatter.selection_changed.connect(self.select_rows)

        self.selection_label = note_label(SELECT_HINT, "body")
        self.selection_label.setObjectName("threat_selection")
        self.rows_table = ThreatRowsTable("Selected rows. Click one to inspect that person on the right.")
        self.rows_table.row_clicked.connect(self.inspect_row)
        self.inspector = VictimInspector()
        rows_box = QWidget()
        rows_layout = QVBoxLayout(rows_box)
        rows_layout.setContentsMargins(0, 0, 0, 0)
        rows_layout.addWidget(self.selection_label)
        rows_layout.addWidget(self.rows_table, 1)
        people_page = _split(Qt.Horizontal, (rows_box, 1), (self.inspector, 1))

        self.measures_table = MeasuresTable()
        self.diagnostics_label = note_label("Convergence diagnostics appear when sampling finishes.", "body")
        self.diagnostics_label.setObjectName("threat_diagnostics")
        self.trace_plot = TracePlot()
        convergence_page = QWidget()
        side_layout = QVBoxLayout(convergence_page)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(self.trace_plot, 1)
        side_layout.addWidget(self.diagnostics_label)

        # Each scatter beside its histogram, one tab per side: every plot keeps the tab's full height.
        self.tabs = QTabWidget()
        self.tabs.addTab(_split(Qt.Horizontal, (self.scatter_A, 1), (self.hist_A, 1)), TAB_A)
        self.tabs.addTab(_split(Qt.Horizontal, (self.scatter_L, 1), (self.hist_L, 1)), TAB_L)
        self.tabs.addTab(people_page, TAB_PEOPLE)
        self.tabs.addTab(self.measures_table, TAB_MEASURES)
        self.tabs.addTab(convergence_page, TAB_CONVERGENCE)
        self.side_by_side = LazySideBySide()
        self.tabs.addTab(self.side_by_side, TAB_SIDE_BY_SIDE)
        return self.tabs

    # ------------------------------------------------------------ hand-over
    def receive_run(self, run: MethodRun) -> None:
        """A run finished in another tab: a checked group release of this table can be analysed here."""
        if run.spec.name == GROUP_FAMILY and run.status == "done" and run.result.release is not None:
            self.group_run = run
            self._update_group_button()

    def _offered_group_run(self) -> MethodRun | None:
        run = self.group_run
        return run if run is not None and self.dataset is not None and run.data is self.dataset else None

    def _update_group_button(self) -> None:
        run = self._offered_group_run()
        self.use_group_button.setEnabled(run is not None and not self._running)
        self.use_group_button.setToolTip(
            USE_GROUP_NONE if run is None else
            f"Analyse this release of the Group anonymization tab: {run.result.text}. Its recipe (scheme, columns, "
            "k, ℓ, hierarchies, seed) is copied to the parameters on the right, so the analysis makes the very same "
            "release and its command line and project repeat it.")

    def use_group_release(self) -> None:
        """Copy the recipe of the Group anonymization tab's release into the panel and analyse it.

        Group anonymization is deterministic for a recipe (Anatomy through its seed), so the run makes the same
        release, checks it again and samples from it; the panel then says exactly what was analysed.
        """
        run = self._offered_group_run()
        if run is None:
            return
        recipe, release = run.params, run.result.release
        panel = self.param_panel
        for name in ("scheme", "k", "l", "hierarchies", "max_suppression", "published", "domains", "id_column",
                     "group_column", "seed"):
            panel.set_value(name, getattr(recipe, name))
        panel.set_value("qi", tuple(release.qi))
        panel.set_value("sensitive", release.sensitive)
        panel.set_value("rows", None)  # the group release covers every complete row
        known = tuple(panel.values().get("known") or ())
        if not set(known) <= set(release.qi):
            panel.set_value("known", ())
        self.status.emit(f"Threats: analysing the Group anonymization tab's release ({run.result.text}).")
        panel.run_button.click()

    def set_dataset(self, dataset: Any) -> None:
        super().set_dataset(dataset)
        if self.group_run is not None and self.group_run.data is not dataset:
            self.group_run = None
        self._update_group_button()

    def _set_running(self, running: bool) -> None:
        super()._set_running(running)
        self._running = running
        if hasattr(self, "use_group_button"):  # the base class sets the state before the page is built
            self._update_group_button()

    # ------------------------------------------------------------ dataset
    def dataset_changed(self, dataset: Any) -> None:
        qi, sensitive = default_columns(dataset)
        self.param_panel.set_value("sensitive", sensitive)
        self.param_panel.set_value("qi", tuple(qi))
        self.callout.show_text(f"“{html.escape(dataset.name)}”: {dataset.n_rows:,} rows, "
                               f"{len(dataset.frame.columns)} columns. Choose the columns on the right and press "
                               "“Analyse threats”.")

    # ------------------------------------------------------------ results
    def clear_results(self) -> None:
        self.shown, self.view = None, None
        for plot in (self.scatter_A, self.scatter_L, self.hist_A, self.hist_L):
            plot.clear_data()
        self.scatter_A.reset_view()
        self.scatter_L.reset_view()
        self.measures_table.show_measures(None)
        self.trace_plot.show_traces(None)
        self.side_by_side.offer(None)
        self.selected = np.zeros(0, dtype=np.int64)
        self._show_selection()
        self.inspector.clear()

    def show_result(self, run: ThreatResult, partial: bool) -> None:
        self.shown = run
        # A run stopped during burn-in has kept no sample: its "estimates" are placeholders.
        has_result = run.estimates is not None and run.estimates.kept > 0
        self.view = (RowView.of(run.table.frame, run.release.release.row_group, run.estimates)
                     if has_result else None)
        if has_result:
            self._show_estimates(run, partial)
        if not partial and run.release is not None and run.release.release is not None:
            self.side_by_side.offer(lambda: comparison_of(run.release))
        if partial:
            release = f"<br>Release: {html.escape(run.release.text)}" if run.release.release is not None else ""
            text = self._summary_text(run, True) if has_result else "Anonymized; the sampler is burning in…"
            self.callout.show_text(text + release, "info")

    def _show_estimates(self, run: ThreatResult, partial: bool) -> None:
        view, result = self.view, run.estimates
        log2_ti = view.log2_ti
        for scatter, hist, flags, key in ((self.scatter_A, self.hist_A, view.threatened_A, "skewness_log2Ti_A"),
                                          (self.scatter_L, self.hist_L, view.threatened_L, "skewness_log2Ti_L")):
            rows = np.flatnonzero(flags)
            scatter.set_rows(rows, view.p_L[rows], view.p_A[rows])
            scatter.highlight(self.selected)
            finite = np.isfinite(log2_ti[rows])
            hist.set_values(log2_ti[rows][finite], result.measures.get(key, float("nan")), int((~finite).sum()))
        self._show_measures()
        self.diagnostics_label.setText(diagnostics_text(result))
        self.trace_plot.show_traces(result.diagnostics)
        self._show_selection()
        if self.inspector.row is not None and self.inspector.row < len(view.s_true):
            self.inspector.show_victim(run.release.release, result, view, self.inspector.row)

    def _summary_text(self, run: ThreatResult, partial: bool) -> str:
        result, p = run.estimates, self.param_panel.values()
        m = result.measures
        if result.complete:
            state = "complete"
        elif not partial:
            state = "<b>sampling was cancelled</b>: estimates from the samples kept so far"
        else:
            state = "still sampling — the plots update as samples arrive"
        sampling = (f"{result.kept:,} samples kept from {p['chains']} chain(s), sweep {result.sweeps:,} of "
                    f"{p['iterations']:,} ({state})")
        knows = ", ".join(result.known_qi)
        return (
            f"The attacker guesses the true {result.sensitive} of <b>{percent(m.get('GT_A'))}</b> of the rows, the "
            f"learner of <b>{percent(m.get('GT_L'))}</b>, random worlds of {percent(m.get('GT_RW'))} "
            f"(always guessing the most common value: {percent(m.get('baseline_accuracy'))}). "
            f"For {format_measure('count_log2Ti_ge1', m.get('count_log2Ti_ge1', float('nan')))} people the attacker "
            f"guesses right and is at least twice as confident as the learner (at most "
            f"{_times(m.get('max_Ti'))} as confident{self._max_ti_link()}). "
            f"Faithfulness RF = {format_measure('RF', m.get('RF', float('nan')))} (1 = the release teaches what the "
            f"cleartext would{_rf_caveat(m)}).<br>Attacker knows: {knows}. {sampling}.")

    def _show_measures(self) -> None:
        run = self.shown
        if run is None or run.estimates is None:
            self.measures_table.show_measures(None)
            return
        other = self.compared_run.result.estimates if self.compared_run is not None else None
        self.measures_table.show_measures(run.estimates.measures, run.estimates.meanings,
                                          other.measures if other is not None else None,
                                          self.history_bar.compare_combo.currentText().split(" ")[0] or "compared")

    def show_comparison(self, run) -> None:
        self._show_measures()

    def promise_html(self, run, description, emphasize: bool) -> str:
        r: ThreatResult = run.result
        if r is None or r.estimates is None or not r.estimates.kept:
            return ("Stopped during burn-in: no sample was kept, so there are no estimates. Run again and let it "
                    "pass the burn-in.")
        return self._summary_text(r, False)

    def _max_ti_row(self) -> int | None:
        """The row the attacker guesses right with the largest Ti (None if the attacker guesses none)."""
        view = self.view
        if view is None or not view.threatened_A.any():
            return None
        return int(np.argmax(np.where(view.threatened_A, view.ti, -np.inf)))

    def _max_ti_link(self) -> str:
        row = self._max_ti_row()
        return "" if row is None else f", <a href='row:{row}'>row {row + 1}</a>"

    def _summary_link(self, link: str) -> None:
        if link.startswith("row:"):
            self.select_rows(np.array([int(link.removeprefix("row:"))]))

    # ---------------------------------------------------------- brushing
    def select_rows(self, rows: np.ndarray) -> None:
        """List ``rows`` (table row indices) below the plots and ring them in both scatters."""
        self.selected = np.unique(np.asarray(rows, dtype=np.int64))
        for scatter in (self.scatter_A, self.scatter_L):
            scatter.highlight(self.selected)
        self._show_selection()
        if len(self.selected) == 1:
            self.inspect_row(int(self.selected[0]))
            self.tabs.setCurrentIndex(2)

    def _show_selection(self) -> None:
        count = len(self.selected) if self.view is not None else 0
        self.tabs.setTabText(2, f"{TAB_PEOPLE} ({count:,})" if count else TAB_PEOPLE)
        if self.view is None or not len(self.selected):
            self.rows_table.setRowCount(0)
            self.selection_label.setText(SELECT_HINT)
            return
        self.rows_table.show_rows(self.view, self.selected)
        shown = len(self.selected) - self.rows_table.truncated
        more = f" (the first {MAX_LISTED:,} listed)" if self.rows_table.truncated else ""
        self.selection_label.setText(f"<b>{len(self.selected):,} selected rows</b>{more}. Click one to inspect "
                                     f"that person. {shown:,} shown; sort by clicking a column header.")

    def inspect_row(self, row: int) -> None:
        """Open the victim inspector on table row ``row`` (an index from 0; the views number rows from 1)."""
        if self.view is None or self.shown is None or not 0 <= row < len(self.view.s_true):
            return
        self.inspector.show_victim(self.shown.release.release, self.shown.estimates, self.view, row)


def _split(orientation: Qt.Orientation, *parts: tuple[QWidget, int]) -> QSplitter:
    """A splitter of ``(widget, stretch)`` parts."""
    splitter = QSplitter(orientation)
    for i, (widget, stretch) in enumerate(parts):
        splitter.addWidget(widget)
        splitter.setStretchFactor(i, stretch)
    return splitter


#: Section VI of Boreale et al. (2020): eight quasi-identifiers of Adult, occupation sensitive.
PAPER_ADULT_QI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "income")
PAPER_ADULT_SENSITIVE = "occupation"
#: A column with more distinct values than this is not offered as a default
#: quasi-identifier (fnlwgt, free-text ids): its groups could never be small.
MAX_DEFAULT_DISTINCT = 200


def default_columns(table: Table) -> tuple[list[str], str]:
    """Quasi-identifiers and sensitive column a first run should use.

    A table that marks a sensitive column is taken at its word: its
    quasi-identifiers and that column, exactly what the CLI uses when no
    column is named (the roles set in the datasets dock, or a sample's). Only
    a table with no roles gets a guess: the paper's columns of Adult, else a
    sensitive column with few values and the quasi-identifiers whose groups
    can be small.
    """
    columns = [str(c) for c in table.frame.columns]
    marked = [c for c in table.sensitive if c in columns]
    if marked:
        return [c for c in table.quasi_identifiers if c != marked[0]], marked[0]
    if set(PAPER_ADULT_QI) | {PAPER_ADULT_SENSITIVE} <= set(columns):
        return list(PAPER_ADULT_QI), PAPER_ADULT_SENSITIVE
    distinct = {c: int(table.frame[c].nunique(dropna=True)) for c in columns}
    few = [c for c in columns if 2 <= distinct[c] <= 50]
    sensitive = few[-1] if few else columns[-1]
    n = table.n_rows
    qi = [c for c in table.quasi_identifiers
          if c != sensitive and distinct[c] <= MAX_DEFAULT_DISTINCT and not (n > 1 and distinct[c] == n)]
    return qi, sensitive


def _rf_caveat(measures: dict[str, float]) -> str:
    """Why a sampled RF can be negative: the ETV estimate of the distance (eq. 21) is not capped at 1."""
    rf = measures.get("RF", float("nan"))
    if np.isfinite(rf) and rf < 0 and not measures.get("RF_exact"):
        return "; below 0 the sampled distance estimate exceeds 1: read it as 'far from the cleartext'"
    return ""


def _times(ti: float | None) -> str:
    if ti is None or not np.isfinite(ti):
        return "n/a"
    return f"{ti:,.0f} times" if ti >= 10 else f"{ti:.1f} times"


def diagnostics_text(result) -> str:
    """Convergence diagnostics in plain words (Section VI-D of the paper)."""
    if result.diagnostics is None:
        return "Convergence diagnostics appear when sampling finishes."
    s = result.diagnostics.summary()
    parts = ["<b>Did the sampler settle?</b>"]
    if s.get("geweke_share_within_2") is not None:
        parts.append(f"Geweke test: {s['geweke_share_within_2'] * 100:.0f} % of the population parameters have "
                     f"|z| ≤ 2 (largest |z| {s['geweke_max_abs_z']:.1f}); about 95 % is expected once the chains "
                     "have settled.")
    if s.get("weiss_share_p_above_0.05") is not None:
        parts.append(f"Weiss test on tracked rows: {s['weiss_share_p_above_0.05'] * 100:.0f} % have p > 0.05 "
                     f"(smallest p {s['weiss_min_p']:.3f}).")
    rates = [a for a in (s.get("acceptance") or []) if a is not None]
    if rates:
        parts.append("Anatomy proposals accepted: " + ", ".join(f"{a * 100:.0f} %" for a in rates) + ".")
    parts.append("Far from these (many |z| > 2, small p): run more sweeps.")
    return " ".join(parts)
