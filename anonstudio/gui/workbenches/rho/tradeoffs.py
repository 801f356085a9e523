"""The paper's trade-off plots (Figs. 1-8), filled in live by small background sweeps.

Pick what varies (ρ, the sensitive share, m or ε = δ), which settings to
compare (fixed vs personalized, or fixed+ vs personalized+) and which two
measures to see; the cells of that figure run in the background on a sample of
the loaded data (:mod:`.figures`) with the shown run's parameters as the base,
and each finished cell moves the curves. Finished cells are kept, so switching
back to a figure is instant, and a stopped figure goes on where it stopped.
"""
from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ....formatting import number
from ....methods.contract import MethodRun, MethodSpec
from ....methods.sweep import CellResult, SweepResult
from ...controls import narrow_combo, note_label
from ...figure_sweep import FigureSweep
from ...plots import ExportablePlot
from .figures import FIGURES, MEASURES, PAIRS, SEEDS, SweepSample, curves, figure_cells, run_point, sweep_sample

__all__ = ["TradeoffView", "MEASURE_TEXT", "SETTING_STYLE"]

#: Title, y label (units) and glossary key of each measure.
MEASURE_TEXT = {
    "util_info": ("Items suppressed (util_info)", "share suppressed", None, "util_info"),
    "util_dist": ("Distribution change (util_dist)", "KL divergence", None, "util_dist"),
    "util_mining": ("Rules lost (util_mining)", "Jaccard distance", None, "util_mining"),
    "runtime": ("Running time of the suppression", "time", "s", "runtime"),
}
#: Colour and symbol per sensitive-items setting (fixed and fixed+ blue, personalized and personalized+ orange).
SETTING_STYLE = {"fixed": ("#0072B2", "o"), "personalized": ("#D55E00", "t"),
                 "fixed+": ("#0072B2", "s"), "personalized+": ("#D55E00", "d")}
RUN_SERIES = "your run's parameters"
PAGES = (("util_info", "util_dist"), ("util_mining", "runtime"))
PAGE_TEXT = ("util_info, util_dist", "util_mining, time")
PAIR_TEXT = {"plain": "fixed vs personalized", "plus": "fixed+ vs personalized+"}
EMPTY = "The curves appear here after a finished run, one point per finished cell."


class TradeoffPlot(ExportablePlot):
    """One measure against the figure's x axis: a curve per setting, the shown run ringed."""

    def __init__(self, measure: str):
        title, y_label, units, key = MEASURE_TEXT[measure]
        super().__init__(title, x_label="ρ", y_label=y_label, y_units=units, empty_text=EMPTY, auto_legend=True)
        self.measure = measure
        for setting, (colour, symbol) in SETTING_STYLE.items():
            self.add_series(setting, kind="line", color=colour, symbol=symbol, error_bars=True,
                            style=Qt.DashLine if setting.endswith("+") else Qt.SolidLine)
        ring = self.add_series(RUN_SERIES, kind="scatter", color="#000000", symbol="o", symbol_size=17)
        ring.item.setSymbolBrush(None)
        ring.item.setSymbolPen(dict(color="#000000", width=2))
        self.add_glossary(key)
        self.plot_widget.setMinimumHeight(200)

    def set_series(self, name: str, x, y, **kwargs) -> None:
        super().set_series(name, x, y, **kwargs)
        s = self.series[name]
        if s.error_item is not None and len(s.x) > 1:
            # pyqtgraph's beam is in data units: a fifth of the closest x spacing keeps caps apart.
            gaps = np.diff(np.sort(s.x))
            gaps = gaps[gaps > 0]
            if len(gaps):
                s.error_item.setData(beam=0.2 * float(gaps.min()))


class TradeoffView(QWidget):
    """Controls, two plots and a status line; see the module docstring.

    Parameters
    ----------
    spec
        The ρ method spec (cells run through its pipeline).
    submit, key, wait_for_kernels
        How the figures' cells run in the background: the :class:`~anonstudio.gui.figure_sweep.FigureSweep`'s
        (a workbench's ``submit``, the jobs' key, the runner's kernel wait).

    Signals
    -------
    finished(object)
        A figure's final :class:`~anonstudio.methods.sweep.SweepResult`.
    """

    finished = Signal(object)

    def __init__(self, spec: MethodSpec, submit: Callable[..., Any], parent: QWidget | None = None, *,
                 key: str | None = None, wait_for_kernels: Callable[[Any], None] | None = None):
        super().__init__(parent)
        self.spec = spec
        self.sweep = sweep = FigureSweep(submit, key=key, wait_for_kernels=wait_for_kernels, parent=self)
        sweep.partial.connect(self.show_sweep)
        sweep.finished.connect(self._finished)
        sweep.failed.connect(self._failed)
        sweep.not_started.connect(self._not_started)
        self.run: MethodRun | None = None
        self.sample: SweepSample | None = None
        self.dataset: Any = None
        self.result: SweepResult | None = None
        self.notes: list[str] = []
        #: Finished cells by their params (a figure reruns only what it lacks).
        self.cells: dict[Any, CellResult] = {}

        self.vary = QComboBox()
        for key, figure in FIGURES.items():
            self.vary.addItem(f"{figure.label} ({figure.paper})", key)
        self.vary.setToolTip("What changes along the x axis; the other parameters are those of the shown run.")
        self.pair = narrow_combo(QComboBox(), 10)
        for key, text in PAIR_TEXT.items():
            self.pair.addItem(text, key)
        self.pair.setToolTip("Which two ways of choosing the sensitive items to compare: the same items for "
                             "everyone against each person's own (fixed vs personalized), or everything anyone "
                             "protects against mostly shared items (fixed+ vs personalized+, Figs. 3-4).")
        self.page = narrow_combo(QComboBox(), 10)
        for text in PAGE_TEXT:
            self.page.addItem(text)
        self.page.setToolTip("Which two measures to plot.")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop this figure's sweep (the finished points stay), or go on with a stopped "
                                    "one from where it stopped.")
        self.stop_button.clicked.connect(self._stop_or_go_on)
        self.stop_button.setEnabled(False)
        self.status = note_label("", "note")
        self.status.setObjectName("tradeoff_status")

        self.plots = {m: TradeoffPlot(m) for m in MEASURES}
        self.pages = QStackedWidget()
        for pair in PAGES:
            splitter = QSplitter(Qt.Horizontal)
            splitter.setChildrenCollapsible(False)
            for m in pair:
                splitter.addWidget(self.plots[m])
            self.pages.addWidget(splitter)

        controls = QHBoxLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        for caption, combo, stretch in (("Vary", self.vary, 0), ("compare", self.pair, 3), ("show", self.page, 2)):
            controls.addWidget(QLabel(caption))
            controls.addWidget(combo, stretch)
        controls.addWidget(self.stop_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 0)
        layout.addLayout(controls)
        layout.addWidget(self.status)
        layout.addWidget(self.pages, 1)
        self.vary.currentIndexChanged.connect(self.refresh)
        self.pair.currentIndexChanged.connect(self.refresh)
        self.page.currentIndexChanged.connect(self.pages.setCurrentIndex)
        self._label_axes()

    # ------------------------------------------------------------ choice
    @property
    def figure(self) -> str:
        return self.vary.currentData()

    @property
    def pair_key(self) -> str:
        return self.pair.currentData()

    def choose(self, figure: str | None = None, pair: str | None = None, page: int | None = None) -> None:
        """Select a figure, a pair of settings and/or a page of measures (tests, links)."""
        changed = False
        for combo, value in ((self.vary, figure), (self.pair, pair)):
            index = combo.findData(value) if value is not None else -1
            if index >= 0 and index != combo.currentIndex():
                combo.blockSignals(True)
                combo.setCurrentIndex(index)
                combo.blockSignals(False)
                changed = True
        if changed:
            self.refresh()  # once for both choices
        if page is not None:
            self.page.setCurrentIndex(page)

    # ------------------------------------------------------------- input
    def set_dataset(self, dataset: Any) -> None:
        """A new dataset: forget every cell, plot and sample."""
        self.stop()
        self.dataset = dataset
        self.sample = None
        self.cells = {}
        self.run = None
        self.result = None
        self.clear()
        self.status.setText("")

    def show_run(self, run: MethodRun | None) -> None:
        """Draw the figures around ``run``'s parameters (None or an unfinished run: wait for a finished one)."""
        self.run = run if run is not None and run.complete and run.result is not None else None
        if self.run is None:
            self.stop()
            self.clear()
            self.status.setText("The trade-off curves are computed after a finished run (a stopped run has no "
                                "base for them)." if run is not None else "")
            return
        if self.sample is None and self.dataset is not None:
            self.sample = sweep_sample(self.dataset, run.params.seed)
        self.refresh()

    def clear(self) -> None:
        for plot in self.plots.values():
            plot.clear_data()
            plot.set_caption("")

    @property
    def job(self):
        """The current figure's sweep job (None before the first)."""
        return self.sweep.job

    def stop(self) -> None:
        """Stop the figure's sweep and forget it (a new dataset, no finished run to draw around)."""
        self.sweep.discard()
        self.stop_button.setText("Stop")
        self.stop_button.setEnabled(False)

    def _stop_or_go_on(self) -> None:
        if self.sweep.running:
            self.sweep.stop()  # the finished cells arrive, marked stopped (or: stopped before it started)
            self.stop_button.setEnabled(False)
        else:
            self.refresh()

    # ------------------------------------------------------------- sweep
    def refresh(self) -> None:
        """Show the chosen figure: from the kept cells, and start a sweep for the missing ones."""
        self._label_axes()
        if self.run is None or self.sample is None:
            return
        figure, pair = self.figure, self.pair_key
        # Another figure's sweep stops here: its finished cells are kept, and it goes on when chosen again.
        self.stop()
        cells, self.notes = figure_cells(self.run.params, figure, pair, self.sample.data)
        kept = self.cells
        result = SweepResult(self.spec.name, (), tuple(cells),
                             {c.index: _relabel(kept[c.params], c) for c in cells if c.params in kept})
        self.clear()
        self.show_sweep(result)
        if result.done == len(cells):
            result.complete = True
            self._finished(result, True)
            return
        self.stop_button.setText("Stop")
        self.stop_button.setEnabled(True)
        # Short: the status bar shows the title whole.
        self.sweep.start("ρ trade-offs", self.spec, self.sample.data, cells, keep_runs=True, brief=True,
                         cached=lambda cell: _relabel(kept.get(cell.params), cell),
                         on_cell=lambda r: kept.__setitem__(r.cell.params, r))

    def _finished(self, result: SweepResult, complete: bool) -> None:
        self.stop_button.setText("Stop" if result.complete else "Go on")
        self.stop_button.setEnabled(not result.complete)
        self.show_sweep(result)
        failed = [r for r in result.ordered() if r.status not in ("done", "unverified")]
        text = f"{result.done:,} of {len(result.cells):,} cells finished"
        if failed:
            first = failed[0]
            text += (f"; {len(failed):,} did not finish or broke the promise (e.g. {first.cell.label()}: "
                     f"{first.error or first.status})")
        if not result.complete:
            text += " — stopped: “Go on” runs the rest"
        self.status.setText(self._status_head() + html.escape(text) + ".")
        self.finished.emit(result)

    def _not_started(self) -> None:
        self.stop_button.setText("Go on")
        self.stop_button.setEnabled(True)
        self.status.setText(self._status_head() + "No cell finished — stopped before the first: “Go on” runs the "
                            "figure.")

    def _failed(self, exc: BaseException) -> None:
        self.stop_button.setEnabled(False)
        self.status.setText(f"The sweep failed: {html.escape(str(exc))}")

    # ------------------------------------------------------------ drawing
    def _status_head(self) -> str:
        figure = FIGURES[self.figure]
        sample = self.sample.text if self.sample is not None else "the data"
        notes = "; ".join(self.notes)
        return (f"<b>{figure.paper} of Nakagawa et al. (2018):</b> {PAIR_TEXT[self.pair_key]}, on {sample}, mean of "
                f"{SEEDS} seeds (bars: lowest to highest)" + (f"; {html.escape(notes)}" if notes else "")
                + ". ◯ = your run's parameters. ")

    def _label_axes(self) -> None:
        figure = FIGURES[self.figure]
        for plot in self.plots.values():
            plot.set_x_label(figure.x_label)

    def show_sweep(self, result: SweepResult) -> None:
        """Draw the finished cells of ``result`` (a partial one while the sweep runs)."""
        self.result = result
        figure = self.figure
        settings = PAIRS[self.pair_key]
        mark = run_point(self.run.params, figure) if self.run is not None else None
        caption = PAIR_TEXT[self.pair_key] + (f"\n{self.sample.short}" if self.sample is not None else "")
        for measure, plot in self.plots.items():
            lines = curves(result, figure, measure)
            for setting in SETTING_STYLE:
                xs, mean, lo, hi = lines.get(setting, (np.zeros(0),) * 4) if setting in settings else \
                    (np.zeros(0),) * 4
                tips = [f"{setting}, {FIGURES[figure].label} = {x:g}: {number(y)}" for x, y in zip(xs, mean)]
                plot.set_series(setting, xs, mean, low=lo, high=hi, tips=tips)
            ring_x, ring_y = [], []
            if mark is not None and mark[0] in lines:
                xs, mean = lines[mark[0]][0], lines[mark[0]][1]
                hit = np.flatnonzero(np.isclose(xs, mark[1]))
                if len(hit):
                    ring_x, ring_y = [mark[1]], [float(mean[hit[0]])]
            plot.set_series(RUN_SERIES, ring_x, ring_y)
            plot.set_caption(caption)
            plot.fit_y_below_legend()
        if not result.complete:
            self.status.setText(self._status_head() + f"Running: {result.done:,} of {len(result.cells):,} cells "
                                "finished…")


def _relabel(kept: CellResult | None, cell) -> CellResult | None:
    """A kept cell's result under this figure's cell (same params, maybe another index or label)."""
    if kept is None:
        return None
    return CellResult(cell, kept.status, kept.summary, kept.seconds, kept.error, kept.run)
