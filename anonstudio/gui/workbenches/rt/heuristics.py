"""The three merge heuristics side by side (SECRETA's comparison mode): R, T and RT against δ.

A background sweep (:func:`anonstudio.methods.sweep.run_sweep`) runs every
heuristic at every δ of a grid; each finished run adds a point to

* the errors of count queries (ARE) on demographics, on items and on both,
  each beside the loss of its side (NCP = Rum, UL = Tum) or the largest
  cluster, against δ (the paper's Figs. 4 and 6);
* the items loss (UL) and demographics loss (NCP) after every merge of the
  runs at one δ (Fig. 7g-h).

The shown run is marked with a star; a run chosen under "compare with" with
a hollow one.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ....formatting import number
from ....methods.rt.params import RTParams
from ....methods.sweep import SweepResult, parse_axis
from ...controls import narrow_combo, note_label
from ...plots import PALETTE, ExportablePlot, PlainAxis

__all__ = ["HeuristicComparison", "Trace", "HEURISTICS", "are_slots", "VS_DELTA", "ALONG"]

#: Merge heuristic -> (legend name, colour, symbol), in the paper's order.
HEURISTICS = {"r": ("R", PALETTE[0], "o"), "t": ("T", PALETTE[1], "s"), "rt": ("RT", PALETTE[2], "t")}
THIS_RUN = "this run"
COMPARED = "compared run"

#: Plots against δ: key -> (title, y label, glossary key). ARE plots read the workload their slot names.
VS_DELTA = {
    "are_demographics": ("Demographic queries", "ARE (relative error)", "are_R2"),
    "rum": ("Demographics loss", "NCP (Rum)", "Rum"),
    "are_items": ("Item queries", "ARE (relative error)", "are_T2"),
    "tum": ("Items loss", "UL (Tum)", "Tum"),
    "are_both": ("Mixed queries", "ARE (relative error)", "are_R1T2"),
    "max_cluster_size": ("Largest cluster", "people", "max_cluster_size"),
}
#: Plots along the merges: key -> (title, y label, glossary key).
ALONG = {"tum": ("Items loss along the merges", "UL (Tum)", "Tum"),
         "rum": ("Demographics loss along the merges", "NCP (Rum)", "Rum")}
#: Sub-tabs: caption and the two plots side by side.
PAGES = (("Demographics", ("are_demographics", "rum")), ("Items", ("are_items", "tum")),
         ("Both", ("are_both", "max_cluster_size")))
EMPTY = "Press “Compare R, T and RT”: every finished run adds a point."
#: An ARE plot whose workload the runs did not measure: generated item workloads need people with 2 items.
NO_WORKLOAD = {
    "are_demographics": "The runs measured no demographic queries (the queries file has none).",
    "are_items": "The runs measured no item queries: they ask for 2 items together and no one here has 2 "
                 "(or the queries file has none).",
    "are_both": "The runs measured no mixed queries: they ask for a demographic value and 2 items, and no one here "
                "has 2 items (or the queries file has none).",
}
INTRO = ("<b>Which merge heuristic?</b> R merges the clusters with the closest demographics, T those with the most "
         "similar items, RT balances both. Each is run at every δ; lower is better everywhere.")


@dataclass(frozen=True)
class Trace:
    """Losses of one run before and after each merge (the run's ``initial_*`` and ``*_trace``)."""

    rum: tuple[float, ...]
    tum: tuple[float, ...]

    @classmethod
    def of(cls, result) -> Trace:
        rum = ([result.initial_rum] if result.initial_rum is not None else []) + list(result.rum_trace)
        tum = ([result.initial_tum] if result.initial_tum is not None else []) + list(result.tum_trace)
        return cls(tuple(rum), tuple(tum))


def are_slots(measures: list[str]) -> dict[str, str | None]:
    """Which ``are_<workload>`` measure each ARE plot shows.

    The generated workloads are R2 (demographics), T2 (items) and R1T2
    (both); a queries file names its own: a name with R and T is mixed, one
    starting with R demographic, one starting with T an item workload; the
    rest fill the free plots in order.
    """
    names = [m for m in measures if m.startswith("are_")]
    slots: dict[str, str | None] = {"are_demographics": None, "are_items": None, "are_both": None}
    rest = []
    for m in names:
        w = m.removeprefix("are_").upper()
        slot = ("are_both" if "R" in w and "T" in w else "are_demographics" if w.startswith("R") else
                "are_items" if w.startswith("T") else None)
        if slot is not None and slots[slot] is None:
            slots[slot] = m
        else:
            rest.append(m)
    for slot in slots:
        if slots[slot] is None and rest:
            slots[slot] = rest.pop(0)
    return slots


class CountAxis(PlainAxis):
    """Whole-number ticks with thousands separators (a largest cluster of 13,000 people, not 13000)."""

    def tickStrings(self, values, scale, spacing):  # noqa: N802 (pyqtgraph naming)
        if spacing * scale < 1:
            return super().tickStrings(values, scale, spacing)
        return [f"{v * scale:,.0f}" for v in values]


def _plot(title: str, x_label: str, y_label: str, glossary: str, empty: str = EMPTY, *,
          counts: bool = False) -> ExportablePlot:
    plot = ExportablePlot(title, x_label=x_label, y_label=y_label, empty_text=empty, auto_legend=True)
    if counts:
        plot.plot_item.setAxisItems({"left": CountAxis("left")})
        plot.set_y_label(y_label)
    plot.add_glossary(glossary)
    # Three entries a row: R, T, RT over "this run" and "compared run" keep the legend two lines high.
    plot.legend.setColumnCount(3)
    # The band kept free for the legend depends on the plot's height, known only once it is shown.
    plot.plot_item.getViewBox().sigResized.connect(lambda *_: plot.fit_y_below_legend())
    return plot


class HeuristicComparison(QWidget):
    """Controls and plots of the comparison; the workbench runs the sweep (see the module docstring).

    Signals
    -------
    start_requested()
        "Compare R, T and RT" pressed.
    cancel_requested()
        "Cancel" pressed.
    """

    start_requested = Signal()
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.result: SweepResult | None = None
        self.traces: dict[int, Trace] = {}
        self.delta: float | None = None
        self.bound = "rum"
        self.deltas_edit = QLineEdit()
        self.deltas_edit.setObjectName("rt_deltas")
        self.deltas_edit.setToolTip("The values of δ to compare, e.g. 0.2, 0.35, 0.5 or start:stop:count such as "
                                    "0.2:0.95:6. After a run they start just above the loss of the first "
                                    "clustering, below which nothing can be published.")
        self.run_button = QPushButton("Compare R, T and RT")
        self.run_button.setObjectName("rt_compare")
        self.run_button.setToolTip("Run the three merge heuristics at every δ above, with the other parameters of "
                                   "the run shown, in the background; the plots fill in as runs finish.")
        self.run_button.clicked.connect(self.start_requested)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.setToolTip("Stop after the running cell; the finished points stay.")
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.status = note_label(EMPTY, "body")
        self.status.setObjectName("rt_compare_status")

        self.plots: dict[str, ExportablePlot] = {}
        for key, (title, y_label, glossary) in VS_DELTA.items():
            self.plots[key] = _plot(title, "δ (loss bound)", y_label, glossary, counts=key == "max_cluster_size")
        self.along: dict[str, ExportablePlot] = {}
        for key, (title, y_label, glossary) in ALONG.items():
            self.along[key] = _plot(title, "merges", y_label, glossary, "The losses after every merge of the runs "
                                                                       "at the δ chosen above appear here.")
        for plot in [*self.plots.values(), *self.along.values()]:
            for _merge, (name, colour, symbol) in HEURISTICS.items():
                along = plot in self.along.values()
                plot.add_series(name, kind="line", color=colour, symbol=None if along else symbol,
                                width=1.6 if along else 2.0)
        self._delta_lines: dict[str, pg.InfiniteLine] = {}
        self._bound_lines: dict[str, pg.InfiniteLine] = {}
        for key, plot in self.plots.items():
            star = plot.add_series(THIS_RUN, kind="scatter", color="#000000", symbol="star", symbol_size=15,
                                   in_csv=False)
            star.item.setSymbolPen(pg.mkPen("#000000", width=1))
            hollow = plot.add_series(COMPARED, kind="scatter", color="#000000", symbol="star", symbol_size=15,
                                     in_csv=False)
            hollow.item.setSymbolBrush(None)
            hollow.item.setSymbolPen(pg.mkPen("#000000", width=1.5))
            # The δ of the run shown, so its star is easy to find.
            line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#777777", width=1, style=Qt.DashLine))
            line.setVisible(False)
            plot.plot_item.addItem(line, ignoreBounds=True)
            self._delta_lines[key] = line
        for key, plot in self.along.items():
            # The bound the bounded side's loss must end below.
            line = pg.InfiniteLine(angle=0, movable=False, label="δ", labelOpts={"position": 0.97, "color": "#555555"},
                                   pen=pg.mkPen("#777777", width=1, style=Qt.DashLine))
            line.setVisible(False)
            plot.plot_item.addItem(line, ignoreBounds=True)
            self._bound_lines[key] = line

        self.trace_combo = narrow_combo(QComboBox(), 8)
        self.trace_combo.setObjectName("rt_trace_delta")
        self.trace_combo.setToolTip("The δ whose runs are drawn merge by merge.")
        self.trace_combo.currentIndexChanged.connect(self._draw_traces)

        controls = QHBoxLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        controls.addWidget(QLabel("δ values:"))
        controls.addWidget(self.deltas_edit, 1)
        controls.addWidget(self.run_button)
        controls.addWidget(self.cancel_button)
        self.tabs = QTabWidget()
        for caption, keys in PAGES:
            self.tabs.addTab(_side_by_side(*(self.plots[k] for k in keys)), caption)
        along_page = QWidget()
        along_layout = QVBoxLayout(along_page)
        along_layout.setContentsMargins(0, 0, 0, 0)
        pick = QHBoxLayout()
        pick.addWidget(QLabel("The runs at δ ="))
        pick.addWidget(self.trace_combo)
        pick.addWidget(note_label("merge by merge (the first point is the clustering before any merge)."), 1)
        along_layout.addLayout(pick)
        along_layout.addWidget(_side_by_side(self.along["tum"], self.along["rum"]), 1)
        self.tabs.addTab(along_page, "Along the merges")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(note_label(INTRO, "body"))
        layout.addLayout(controls)
        layout.addWidget(self.status)
        layout.addWidget(self.tabs, 1)

    # ------------------------------------------------------------ controls
    def set_deltas(self, values) -> None:
        self.deltas_edit.setText(", ".join(f"{v:g}" for v in sorted(values)))

    def deltas(self) -> tuple[float, ...]:
        """The δ values typed (ParameterError names a bad one)."""
        return tuple(sorted(parse_axis(RTParams, "delta", self.deltas_edit.text()).values))

    def set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)

    def set_status(self, text: str) -> None:
        self.status.setText(text)

    # ------------------------------------------------------------- drawing
    def clear(self) -> None:
        """Forget the sweep (new dataset, other base parameters)."""
        self.result = None
        self.traces = {}
        for plot in [*self.plots.values(), *self.along.values()]:
            plot.clear_data()
        for key in NO_WORKLOAD:
            self.plots[key].set_empty_text(EMPTY)
        self.trace_combo.blockSignals(True)
        self.trace_combo.clear()
        self.trace_combo.blockSignals(False)
        self.status.setText(EMPTY)

    def show_sweep(self, result: SweepResult, traces: dict[int, Trace]) -> None:
        """Draw every finished cell of ``result`` (called with each partial result)."""
        self.result = result
        self.traces = dict(traces)
        deltas = sorted({float(c.values["delta"]) for c in result.cells})
        if deltas:
            pad = max(0.02, 0.04 * (deltas[-1] - deltas[0]))
            for plot in self.plots.values():
                plot.plot_item.setXRange(deltas[0] - pad, deltas[-1] + pad, padding=0)
        slots = are_slots(result.measures())
        for key, plot in self.plots.items():
            measure = slots.get(key, key) if key.startswith("are_") else key
            if measure is not None and key.startswith("are_"):
                plot.set_y_label(f"ARE ({measure.removeprefix('are_')})")
            if key in NO_WORKLOAD:
                plot.set_empty_text(NO_WORKLOAD[key] if measure is None and result.done else EMPTY)
            series = result.series("delta", measure, "merge") if measure else {}
            for merge, (name, _, _) in HEURISTICS.items():
                xs, ys, _, _ = series.get(merge, (np.zeros(0), np.zeros(0), None, None))
                plot.set_series(name, xs, ys, tips=[f"{name} at δ = {x:g}: {plot.y_label} {number(y)}"
                                                    for x, y in zip(xs, ys)])
            plot.fit_y_below_legend()
        self._fill_trace_combo(deltas)
        self._draw_traces()

    def _fill_trace_combo(self, deltas: list[float]) -> None:
        current = self.trace_combo.currentData()
        if [self.trace_combo.itemData(i) for i in range(self.trace_combo.count())] == deltas:
            return
        self.trace_combo.blockSignals(True)
        self.trace_combo.clear()
        for d in deltas:
            self.trace_combo.addItem(f"{d:g}", d)
        wanted = current if current in deltas else (self.delta if self.delta in deltas else
                                                      (deltas[-1] if deltas else None))
        self.trace_combo.setCurrentIndex(max(self.trace_combo.findData(wanted), 0))
        self.trace_combo.blockSignals(False)

    def _draw_traces(self) -> None:
        delta = self.trace_combo.currentData()
        result = self.result
        for key, plot in self.along.items():
            for merge, (name, _, _) in HEURISTICS.items():
                values: tuple[float, ...] = ()
                if result is not None and delta is not None:
                    for cell in result.cells:
                        if cell.values.get("merge") == merge and abs(float(cell.values["delta"]) - delta) < 1e-12:
                            trace = self.traces.get(cell.index)
                            values = getattr(trace, key) if trace is not None else ()
                plot.set_series(name, np.arange(len(values), dtype=float), np.asarray(values, dtype=float))
            self._bound_lines[key].setVisible(delta is not None and key == self.bound)
            if delta is not None:
                self._bound_lines[key].setValue(float(delta))
            plot.plot_item.enableAutoRange()
            plot.fit_y_below_legend()

    def mark_run(self, delta: float | None, merge: str | None, summary: dict | None, *, compared: bool = False) -> None:
        """Star the shown run (hollow: the compared run) at its δ on every plot; None removes the mark."""
        name = COMPARED if compared else THIS_RUN
        if not compared:
            self.delta = delta
        slots = are_slots(list(summary)) if summary else {}
        for key, plot in self.plots.items():
            measure = slots.get(key) if key.startswith("are_") else key
            value = summary.get(measure) if summary and measure else None
            if delta is None or value is None or not np.isfinite(value):
                plot.set_series(name, [], [])
            else:
                label = HEURISTICS.get(merge, (merge,))[0]
                plot.set_series(name, [delta], [value], tips=[f"{name}: {label} at δ = {delta:g}, {number(value)}"])
            if not compared:
                self._delta_lines[key].setVisible(delta is not None)
                if delta is not None:
                    self._delta_lines[key].setValue(delta)
            plot.fit_y_below_legend()


def _side_by_side(left: QWidget, right: QWidget) -> QSplitter:
    splitter = QSplitter(Qt.Horizontal)
    splitter.addWidget(left)
    splitter.addWidget(right)
    splitter.setChildrenCollapsible(False)
    splitter.setSizes([1, 1])
    return splitter
