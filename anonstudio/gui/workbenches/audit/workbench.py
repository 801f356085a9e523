"""The Audit workbench: a release of the open dataset measured on the evaluator's one scale, and a claim audited.

The original is the open dataset; the release is a file with its side files (the parameters on the right, the
options of ``anonstudio-cli evaluate``) or a finished run of any tab (the source row above the results writes its
release and side files and fills those fields). The run is :mod:`anonstudio.methods.audit` (the independent
evaluator, :mod:`anonstudio.evaluate`), so it is stored in the project, the result cache and the report like every
other run. The tab shows

* the risk curves against m: prosecutor risk, share at risk and attribute disclosure, with their intervals as
  error bars (sampled m values; exact ones have none), and a table saying which m was exact or sampled;
* the utility measures, each with its one-sentence meaning from the glossary;
* for a false claim, the verdict ``Independent check FAILED`` with the counterexample (the person, numbered from
  1, and the known set) and a button that selects that person's record in the data view.
"""
from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ....formatting import integer, measure, probability
from ....glossary import meaning
from ....methods.audit.algorithm import ORIGINAL_AS_RELEASE
from ....methods.contract import MethodRun
from ...callout import VerdictCallout
from ...controls import note_label
from ...method_workbench import MethodWorkbench
from ...plots import ExportablePlot, integer_ticks
from ...release_sources import has_release, run_label, write_release

__all__ = ["AuditWorkbench", "MEASURES", "UTILITY"]

INTRO = ("<b>What can an attacker still learn from this release, and what is it still good for?</b> "
         "The open dataset is the original; the release is a file or a finished run of any tab.")
GUIDE = (
    "<b>What this tab answers.</b> An attacker knows m of a person's items (and, for tables, their "
    "quasi-identifiers) and looks for their record in the release. The <i>candidates</i> are the published records "
    "consistent with that knowledge under the release's own rules. The curves show, for m = 1..M, how often the "
    "attacker picks the right record (prosecutor risk), how many people have fewer than k candidates (share at "
    "risk) and how often a sensitive value is given away (attribute disclosure).<br>"
    "<b>What to set first.</b> The release: a file and its side files on the right, or a finished run of another "
    "tab in the row above the results (“Use this run”). Leave the release empty to measure the original itself. "
    "A claimed k (and m) turns the measurement into an audit: a false claim is shown with a person and the items "
    "that break it.<br>"
    "<b>How to read it.</b> Exact figures are counted over every person and known set; sampled ones carry a 95 % "
    "interval (error bars). The utility figures use one shared workload, so releases of one dataset compare.")

#: The risk measures: (key of the evaluator's Level, legend name, colour, symbol).
MEASURES = (("prosecutor_risk", "prosecutor risk", "#D55E00", "o"),
            ("share_at_risk", "share at risk", "#0072B2", "s"),
            ("attribute_disclosure", "attribute disclosure", "#009E73", "t"))
#: The utility measures: (key, label).
UTILITY = (("count_query_error", "Count-query error"), ("frequency_distortion", "Frequency distortion"))
TABLE_HEADER = ("m", "counted", "known sets", "prosecutor risk", "share at risk", "attribute disclosure")


def _cell(value) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else probability(value)


def _measure_text(m) -> str:
    if m is None:
        return "n/a (no sensitive information)"
    if m.exact:
        return _cell(m.value)
    return f"{_cell(m.value)} [{_cell(m.low)}, {_cell(m.high)}]"


class AuditWorkbench(MethodWorkbench):
    """Measure a release of the open dataset and audit a claim; see the module docstring.

    Signals
    -------
    show_record(int)
        Select this record (numbered from 1) of the open dataset in the data view.
    """

    SPEC = "audit"
    TITLE = "Audit"
    ORDER = 80
    RUN_TEXT = "Audit the release"
    INTRO = INTRO
    GUIDE = GUIDE

    show_record = Signal(int)

    def __init__(self, runner, parent: QWidget | None = None):
        #: Finished runs of the other tabs on this dataset that made a release, newest first.
        self.sources: list[MethodRun] = []
        #: Where the releases of finished runs are written (set from the result cache's folder).
        self.release_folder: Path | None = None
        self._counter_person: int | None = None
        super().__init__(runner, parent)

    # -------------------------------------------------------------- layout
    def build_results(self) -> QWidget:
        curves = QWidget()
        layout = QVBoxLayout(curves)
        layout.setContentsMargins(0, 4, 0, 0)

        # One widget, so presentation mode can hide this setup row with the tab's other secondary rows.
        self.release_source_row = QWidget()
        source_layout = QVBoxLayout(self.release_source_row)
        source_layout.setContentsMargins(0, 0, 0, 0)
        source_row = QHBoxLayout()
        source_row.addWidget(QLabel("Release of a finished run:"))
        self.source_box = QComboBox()
        self.source_box.setToolTip("Finished runs of the other tabs on this dataset that made a release. “Use this "
                                   "run” writes its release and side files and fills the release fields on the "
                                   "right.")
        self.source_box.setMinimumContentsLength(30)
        self.source_box.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.use_button = QPushButton("Use this run")
        self.use_button.clicked.connect(self.use_selected_source)
        source_row.addWidget(self.source_box, 1)
        source_row.addWidget(self.use_button)
        source_layout.addLayout(source_row)
        self.source_note = note_label("")
        source_layout.addWidget(self.source_note)
        layout.addWidget(self.release_source_row)

        self.plot = ExportablePlot("Risk against m", x_label="m (items the attacker knows)",
                                   y_label="risk (0–1)", auto_legend=True,
                                   empty_text="Press “Audit the release” (Ctrl+R) to measure the risk.")
        for _key, name, colour, symbol in MEASURES:
            self.plot.add_series(name, kind="line", color=colour, symbol=symbol, error_bars=True)
        self.plot.add_glossary("prosecutor_risk")
        self.plot.setMinimumWidth(260)
        self.plot_note = note_label("")
        self.plot_note.setTextFormat(Qt.RichText)

        self.table = QTableWidget(0, len(TABLE_HEADER))
        self.table.setHorizontalHeaderLabels(TABLE_HEADER)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        for column, key in ((3, "prosecutor_risk"), (4, "share_at_risk"), (5, "attribute_disclosure")):
            self.table.horizontalHeaderItem(column).setToolTip(meaning(key))
        self.table.horizontalHeaderItem(1).setToolTip(meaning("exact_or_sampled", "audit"))

        self.measure_notes = note_label("")
        self.utility_label = note_label("")
        self.utility_label.setTextFormat(Qt.RichText)

        # The studio's one verdict callout: the person on one line, the candidates under Details.
        self.counterexample = VerdictCallout("")
        self.counterexample.setObjectName("counterexample")
        self.show_record_button = QPushButton("Show this person in the data view")
        self.show_record_button.setToolTip("Open the data view of the original and select the counterexample's "
                                           "record.")
        self.show_record_button.clicked.connect(self.jump_to_counterexample)
        self.counter_box = QWidget()
        counter_layout = QHBoxLayout(self.counter_box)
        counter_layout.setContentsMargins(0, 0, 0, 0)
        counter_layout.addWidget(self.counterexample, 1)
        counter_layout.addWidget(self.show_record_button, 0, Qt.AlignTop)
        self.counter_box.hide()

        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 4, 0)
        right_layout.addWidget(note_label("<b>Utility</b> (0 = as useful as the original)"))
        right_layout.addWidget(self.utility_label)
        right_layout.addWidget(note_label("<b>Risk</b> (the curves)"))
        right_layout.addWidget(self.plot_note)
        right_layout.addStretch(1)
        # The meanings scroll beside the plot rather than squeeze it.
        right_scroll = QScrollArea()
        right_scroll.setWidget(right)
        right_scroll.setWidgetResizable(True)
        right_scroll.setFrameShape(QFrame.NoFrame)
        right_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        split = QSplitter(Qt.Horizontal)
        split.addWidget(self.plot)
        split.addWidget(right_scroll)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([440, 300])
        layout.addWidget(self.counter_box)
        layout.addWidget(split, 1)
        every = QWidget()
        every_layout = QVBoxLayout(every)
        every_layout.setContentsMargins(0, 4, 0, 0)
        every_layout.addWidget(note_label("Values in [0, 1]; a sampled m shows its 95 % interval in brackets, an "
                                          "exact one has none (every person and known set was counted)."))
        every_layout.addWidget(self.table, 1)
        every_layout.addWidget(self.measure_notes)
        self.tabs = QTabWidget()
        self.tabs.addTab(curves, "Risk and utility")
        self.tabs.addTab(every, "Every m (table)")
        self._update_sources()
        return self.tabs

    # ------------------------------------------------------------- sources
    def receive_run(self, run: MethodRun) -> None:
        """A run finished in another tab: offer its release when it is of this dataset and made one."""
        if run.data is not self.dataset or not has_release(run):
            return
        self.sources.insert(0, run)
        self._update_sources()

    def dataset_changed(self, dataset: Any) -> None:
        self.sources = []
        self._update_sources()

    def _update_sources(self) -> None:
        self.source_box.clear()
        for run in self.sources:
            self.source_box.addItem(run_label(run))
        has = bool(self.sources)
        self.source_box.setEnabled(has)
        self.use_button.setEnabled(has)
        if not has:
            self.source_box.addItem("no finished run with a release yet (run a method tab first)")
            self.source_note.setText("Or name a release file and its side files on the right; empty: the "
                                     "original is measured as its own release.")

    def use_source(self, run: MethodRun) -> None:
        """Write ``run``'s release and side files and put them in the release fields (the rest is left as set)."""
        folder = self.release_folder
        if folder is None:
            from ....studio.cache import default_cache_folder

            cache = getattr(self.result_cache, "folder", None)
            folder = (Path(cache) if cache is not None else default_cache_folder()).parent / "releases"
        values = write_release(run, folder)
        panel = self.param_panel
        for name in ("map", "item_hierarchy", "sensitive"):
            panel.set_value(name, values.get(name))
        panel.set_value("hierarchies", values.get("hierarchies", ()))
        panel.set_value("kind", values["kind"])
        panel.set_value("release", values["release"])
        self.source_note.setText(f"Release fields filled from {html.escape(run_label(run))}: "
                                 f"{html.escape(Path(values['release']).name)} and its side files. Press "
                                 f"“{self.RUN_TEXT}”.")

    def use_selected_source(self) -> None:
        index = self.source_box.currentIndex()
        if 0 <= index < len(self.sources):
            try:
                self.use_source(self.sources[index])
            except (OSError, RuntimeError, ValueError) as exc:
                self.source_note.setText(f"Could not write that run's release: {html.escape(str(exc))}")

    # ------------------------------------------------------------- results
    def clear_results(self) -> None:
        self.plot.clear_data()
        self.plot.set_caption("")
        self.plot_note.setText("")
        self.table.setRowCount(0)
        self.measure_notes.setText("")
        self.utility_label.setText("")
        self.counter_box.hide()
        self._counter_person = None

    def show_result(self, result: Any, partial: bool) -> None:
        ev = result.evaluation
        levels = ev.levels
        xs = [float(level.m) for level in levels]
        for key, name, _colour, _symbol in MEASURES:
            values = [getattr(level, key) for level in levels]
            if any(v is None for v in values):
                self.plot.set_series(name, [], [])
                continue
            self.plot.set_series(name, xs, [v.value for v in values], low=[v.low for v in values],
                                 high=[v.high for v in values],
                                 tips=[f"m = {level.m}, {level.method}" for level in levels])
        if levels:
            integer_ticks(self.plot.plot_item, "bottom", int(max(xs)))
            self.plot.plot_item.setXRange(0.7, max(xs) + 0.3, padding=0)
            tops = [v.high for key, *_ in MEASURES for level in levels
                    if (v := getattr(level, key)) is not None and not math.isnan(v.high)]
            self.plot.plot_item.setYRange(0, min(1.0, max([0.01, *tops]) * 1.25), padding=0)
            self.plot.keep_legend_clear()
        exact = [str(level.m) for level in levels if level.method == "exact"]
        sampled = [str(level.m) for level in levels if level.method != "exact"]
        counted = []
        if exact:
            counted.append(f"exact: m = {', '.join(exact)}")
        if sampled:
            counted.append(f"sampled: m = {', '.join(sampled)} (bars: 95 % interval)")
        # Short lines: a long caption would widen the plot past its half of the splitter and cut it off.
        self.plot.set_caption("\n".join(counted))
        sensitive = ev.people.sensitive_given
        self.plot_note.setText("<br>".join((
            f"<b>Prosecutor risk</b> (a probability): {html.escape(meaning('prosecutor_risk'))}",
            f"<b>Share at risk</b> (k = {ev.options.k}; a share of people): {html.escape(meaning('share_at_risk'))}",
            f"<b>Attribute disclosure</b> (ρ = {ev.options.rho:g}; a share of people): "
            f"{html.escape(meaning('attribute_disclosure'))}" if sensitive else
            "<b>Attribute disclosure</b>: not measured, no sensitive information was given (sensitive items or "
            "column).")))
        self._fill_table(levels)
        self._show_utility(ev)
        self._show_counterexample(result)

    def _fill_table(self, levels) -> None:
        self.table.setRowCount(len(levels))
        for row, level in enumerate(levels):
            counted = "exact" if level.method == "exact" else f"sampled ({integer(level.samples)})"
            cells = (str(level.m), counted + ("" if level.complete else ", stopped"), integer(level.known_sets),
                     _measure_text(level.prosecutor_risk), _measure_text(level.share_at_risk),
                     _measure_text(level.attribute_disclosure))
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                align = Qt.AlignLeft if column == 1 else Qt.AlignRight
                item.setTextAlignment(align | Qt.AlignVCenter)
                self.table.setItem(row, column, item)

    def _show_utility(self, ev) -> None:
        parts = []
        for key, label in UTILITY:
            doc = getattr(ev, key) or {}
            value = doc.get("value")
            shown = "not measured yet (after the last m)" if not doc else (
                "n/a" + (f" ({html.escape(doc['note'])})" if doc.get("note") else "") if value is None else
                measure(value) if key == "count_query_error" else probability(value))
            extra = ""
            if key == "count_query_error" and value is not None:
                extra = (f" over {integer(doc.get('queries', 0))} queries (relative to the true count, at least "
                         f"{measure(doc.get('sanity_bound', 1))} people)")
            parts.append(f"<b>{label}: {shown}</b>{extra}. {html.escape(meaning(key))}")
        self.utility_label.setText("<br>".join(parts))

    def _show_counterexample(self, result) -> None:
        example = result.counterexample
        self._counter_person = None
        if example is None:
            self.counter_box.hide()
            return
        self._counter_person = int(example["person"])
        known = ", ".join(example["known_items"])
        qi = ", ".join(f"{c} = {v}" for c, v in example.get("quasi_identifiers", {}).items())
        knows = " and ".join(part for part in (qi, f"the items {{{known}}}" if known else "") if part) or "nothing"
        own = example.get("own_record")
        records = ", ".join(f"#{r}" for r in example.get("candidate_records", [])[:10])
        text = (f"<b>Counterexample.</b> Person #{example['person']}: an attacker who knows {html.escape(knows)} "
                f"finds {integer(example['candidates'])} candidate{'s' if example['candidates'] != 1 else ''}"
                + (f" ({html.escape(records)})" if records else "")
                + (f"; their own record is #{own}" if own is not None else "") + ".")
        self.counterexample.show_text(text, "failed")
        self.show_record_button.setText(f"Show person #{example['person']} in the data view")
        self.counter_box.show()

    def jump_to_counterexample(self) -> None:
        """Select the counterexample's record in the data view (the button)."""
        if self._counter_person is not None:
            self.show_record.emit(self._counter_person)

    def run_text(self, run: MethodRun) -> str:
        text = super().run_text(run)
        if run.result is not None and run.result.release_name == ORIGINAL_AS_RELEASE:
            text += "<br><i>No release file was chosen: the original was measured as its own release.</i>"
        return text
