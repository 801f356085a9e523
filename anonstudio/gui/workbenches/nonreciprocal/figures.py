"""The paper's Fig. 6, filled in live: ER and QE against k (Gray vs Gray-TSP) or ℓ (ring, greedy, CAHD).

After every finished run the workbench starts a small sweep in the background
(:func:`figure_sweep`, run by :func:`~anonstudio.methods.sweep.run_sweep`): the
spec's Fig. 6 preset for the run's mode, over the preset's k (or ℓ) values
the data allows plus the run's own, with every other parameter as in the run.
The run itself is one cell of the grid (taken from the run, not recomputed)
and is ringed on the curves. Each cell is a complete run with its own
independent check; for ℓ, each also measures the CAHD baseline on its order.
"""
from __future__ import annotations

import dataclasses
import html
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QSplitter, QVBoxLayout, QWidget

from ....methods.contract import MethodRun
from ....methods.nonreciprocal.spec import K_SWEEP, L_SWEEP
from ....methods.sweep import Axis, Cell, CellResult, SweepResult, make_grid
from ...controls import note_label
from ...plots import ExportablePlot, integer_ticks

__all__ = ["Fig6View", "figure_sweep", "sweep_title", "describe_failure", "SERIES", "THIS_RUN"]

#: Curve name and colour per value of the grouping parameter (order for k, ℓ method for ℓ), and CAHD.
SERIES = {
    "gray": ("Gray", "#D55E00"),
    "gray-tsp": ("Gray-TSP", "#0072B2"),
    "ring": ("NR ring", "#0072B2"),
    "greedy": ("NR greedy", "#009E73"),
    "cahd": ("CAHD", "#CC79A7"),
}
THIS_RUN = "this run"
COMPARED = " (compared)"
#: Summary keys of each measure: the method's and the CAHD baseline's.
MEASURES = {"er": ("error_rate", "cahd_error_rate"), "qe1": ("qe_type1", "cahd_qe_type1"),
            "qe2": ("qe_type2", "cahd_qe_type2")}
WAITING = ("After each run, these curves are filled in by a small sweep in the background: the paper's Fig. 6 "
           "for the run's k (or ℓ) and its neighbours, each point a complete, independently checked run.")


def figure_sweep(run: MethodRun, n_records: int) -> tuple[tuple[Axis, ...], list[Cell],
                                                          Callable[[Cell], CellResult | None]]:
    """Axes, cells and the cache (the run's own cell) of the Fig. 6 sweep around ``run``."""
    params = run.params
    preset = K_SWEEP if params.mode == "k" else L_SWEEP
    x_axis, group_axis = preset.axes[0], preset.axes[1]
    values = sorted({v for v in x_axis.values if v <= n_records} | {params.m})
    axes = (Axis(x_axis.name, tuple(values)), group_axis)
    base = params if params.mode == "k" else dataclasses.replace(params, cahd_baseline=True)
    cells = make_grid(base, axes)

    def cached(cell: Cell) -> CellResult | None:
        return CellResult.of_run(cell, run) if cell.params == params else None

    return axes, cells, cached


#: Cell statuses drawn. Unlike the Compare tab, Fig. 6 keeps runs whose check found the promise broken: the
#: paper's greedy ℓ method often leaves people with repeated labels (note T-L1), yet its error is what the paper
#: plots. Such points are ringed in red (:data:`NOT_MET`).
DRAWN = ("done", "unverified", "not-met")
NOT_MET = "not met"


@dataclass(frozen=True)
class Curve:
    """Mean, smallest and largest value per x (over seeds), and the x whose runs broke their promise."""

    x: np.ndarray
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    broken: tuple[float, ...] = ()


def _curve(result: SweepResult, x: str, key: str, group: str, values: tuple[str, ...]) -> Curve:
    """``key`` against ``x`` over the cells whose ``group`` is in ``values``; per x, the first value with data."""
    points: dict[str, dict[float, list[float]]] = {}
    broken: dict[str, set[float]] = {}
    for r in result.ordered():
        value = r.cell.values.get(group)
        y = r.summary.get(key)
        if r.status not in DRAWN or value not in values or y is None or not np.isfinite(float(y)):
            continue
        xv = float(r.cell.values[x])
        points.setdefault(value, {}).setdefault(xv, []).append(float(y))
        if r.status == "not-met":
            broken.setdefault(value, set()).add(xv)
    merged: dict[float, list[float]] = {}
    flagged: set[float] = set()
    for value in values:
        for xv, ys in points.get(value, {}).items():
            if xv not in merged:
                merged[xv] = ys
                if xv in broken.get(value, ()):
                    flagged.add(xv)
    xs = np.array(sorted(merged))
    return Curve(xs, np.array([np.mean(merged[v]) for v in xs]), np.array([np.min(merged[v]) for v in xs]),
                 np.array([np.max(merged[v]) for v in xs]), tuple(sorted(flagged)))


class _MeasurePlot(ExportablePlot):
    """One measure against k or ℓ: a curve per order (or ℓ method, and CAHD), the run ringed."""

    def __init__(self, title: str, y_label: str, glossary: str):
        super().__init__(title, x_label="k", y_label=y_label, auto_legend=True, empty_text=WAITING)
        self.add_glossary(glossary)
        self.plot_widget.setMinimumHeight(120)
        self.plot_item.setTitle(title, size="10pt")

    def ensure(self, name: str, color: str, compared: bool = False) -> None:
        if name in self.series:
            return
        if compared:
            self.add_series(name, kind="line", color=color, symbol="x", symbol_size=8, width=1.5,
                            style=Qt.DashLine)
        else:
            self.add_series(name, kind="line", color=color, symbol="o", symbol_size=8, width=2.2, error_bars=True)

    def ensure_marker(self) -> None:
        if THIS_RUN not in self.series:
            marker = self.add_series(THIS_RUN, kind="scatter", color="#000000", symbol="o", symbol_size=16)
            marker.item.setSymbolBrush(None)
            marker.item.setSymbolPen(dict(color="#000000", width=2))
        if NOT_MET not in self.series:
            broken = self.add_series(NOT_MET, kind="scatter", color="#b00020", symbol="s", symbol_size=14,
                                     in_csv=False)
            broken.item.setSymbolBrush(None)
            broken.item.setSymbolPen(dict(color="#b00020", width=2))


class Fig6View(QWidget):
    """ER and QE against k or ℓ from the background sweep; Stop and Run again.

    Signals
    -------
    rerun_requested()
        Run the sweep of the shown run again.
    stop_requested()
        Stop the running sweep (the finished points stay).
    """

    rerun_requested = Signal()
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.result: SweepResult | None = None
        self.compared: SweepResult | None = None
        self.run: MethodRun | None = None
        self.measure = "qe1"
        self.er_plot = _MeasurePlot("Error rate (smaller is better)", "ER", "ER")
        self.qe_plot = _MeasurePlot("Query error, Type I (smaller is better)", "QE Type I", "QE")
        self.type_buttons = {}
        for key, text, tip in (("qe1", "Type I", "Queries 'how many people have all of these items?'"),
                               ("qe2", "Type II", "Queries 'how many people have none of these items?'")):
            button = self.qe_plot.add_tool_button(text, tip, checkable=True)
            button.setObjectName(f"fig_{key}")
            button.clicked.connect(lambda _=False, k=key: self.set_measure(k))
            self.type_buttons[key] = button
        self.type_buttons["qe1"].setChecked(True)
        self.status = note_label(WAITING, "body")
        self.status.setObjectName("fig_status")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop the sweep; the points finished so far stay.")
        self.stop_button.clicked.connect(self.stop_requested)
        self.rerun_button = QPushButton("Run again")
        self.rerun_button.setToolTip("Run the sweep of the shown run again (e.g. after it was stopped).")
        self.rerun_button.clicked.connect(self.rerun_requested)
        for b in (self.stop_button, self.rerun_button):
            b.setEnabled(False)
        plots = QSplitter(Qt.Horizontal)
        plots.addWidget(self.er_plot)
        plots.addWidget(self.qe_plot)
        plots.setChildrenCollapsible(False)
        bar = QHBoxLayout()
        bar.addWidget(self.status, 1)
        bar.addWidget(self.stop_button, 0, Qt.AlignTop)
        bar.addWidget(self.rerun_button, 0, Qt.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(plots, 1)
        layout.addLayout(bar)

    # ------------------------------------------------------------ states
    def clear(self) -> None:
        self.result, self.run = None, None
        for plot in (self.er_plot, self.qe_plot):
            plot.clear_data()
        self.status.setText(WAITING)
        self.stop_button.setEnabled(False)
        self.rerun_button.setEnabled(False)

    def started(self, run: MethodRun, axes: tuple[Axis, ...], cells: int) -> None:
        self.clear()
        self.run = run
        x, group = axes
        values = ", ".join(map(str, x.values))
        groups = " and ".join(SERIES[v][0] for v in group.values)
        extra = " (each also measuring CAHD)" if x.name == "l" else ""
        self.status.setText(f"Sweep of {cells} runs in the background: {_symbol(x.name)} = {values}, {groups}{extra}; "
                            "the other parameters as in the run. Points appear as runs finish.")
        self.stop_button.setEnabled(True)
        self._label_axes(x.name)

    def show_sweep(self, result: SweepResult, run: MethodRun, running: bool) -> None:
        """Draw a (partial) sweep of ``run``."""
        self.result, self.run = result, run
        self._label_axes(result.axes[0].name)
        self.redraw()
        refused = [r for r in result.ordered() if r.status not in DRAWN]
        broken = [r for r in result.ordered() if r.status == "not-met"]
        head = (f"{result.done} of {len(result.cells)} runs finished…" if running else
                f"{result.done} of {len(result.cells)} runs in {result.seconds:.1f} s"
                + ("" if result.complete else ", stopped early") + ".")
        text = head + " Each point is an independently checked run; this run is ringed."
        xs = result.axes[0].values
        if result.axes[0].name == "k" and {v % 2 for v in xs} == {0, 1}:
            text += " Even k: a tied vote drops the item, hence the saw-tooth in QE."
        if broken:
            text += (f" <span style='color:#b00020'>Promise not met</span> (red squares): "
                     f"{_where(broken, result)}.")
        if refused:
            reason = html.escape(_first_sentence(refused[0].error or refused[0].status))
            text += f" Refused: {_where(refused, result)} ({reason})."
        self.status.setToolTip("\n".join(f"{r.cell.label()}: {r.status}" + (f": {r.error}" if r.error else "")
                                          for r in result.ordered()))
        self.status.setText(text)
        self.stop_button.setEnabled(running)
        self.rerun_button.setEnabled(not running)

    def show_compared(self, result: SweepResult | None) -> None:
        self.compared = result
        self.redraw()

    def set_measure(self, key: str) -> None:
        """Show QE Type I (``"qe1"``) or Type II (``"qe2"``) in the right plot."""
        self.measure = key
        for k, button in self.type_buttons.items():
            button.setChecked(k == key)
        kind = "Type I" if key == "qe1" else "Type II"
        self.qe_plot.title = f"Query error, {kind} (smaller is better)"
        self.qe_plot.plot_item.setTitle(self.qe_plot.title, size="10pt")
        self.qe_plot.set_y_label(f"QE {kind}")
        self.redraw()

    # ------------------------------------------------------------ drawing
    def _label_axes(self, x: str) -> None:
        for plot in (self.er_plot, self.qe_plot):
            plot.set_x_label(_symbol(x))

    def redraw(self) -> None:
        for plot, measure in ((self.er_plot, "er"), (self.qe_plot, self.measure)):
            self._draw(plot, measure)

    def _draw(self, plot: _MeasurePlot, measure: str) -> None:
        key, cahd_key = MEASURES[measure]
        wanted: dict[str, tuple[Curve, str, str]] = {}
        largest = 2
        for result, suffix in ((self.result, ""), (self.compared, COMPARED)):
            if result is None or len(result.axes) < 2:
                continue
            x, group = result.axes[0].name, result.axes[1].name
            largest = max(largest, *result.axes[0].values)
            for value in result.axes[1].values:
                wanted[SERIES[value][0] + suffix] = (_curve(result, x, key, group, (value,)), SERIES[value][1],
                                                     suffix)
            if x == "l":
                # CAHD on the run's order: the ring cell measured it, else the greedy cell (same order and seed).
                wanted[SERIES["cahd"][0] + suffix] = (_curve(result, x, cahd_key, group, ("ring", "greedy")),
                                                      SERIES["cahd"][1], suffix)
        for name in list(plot.series):
            if name not in wanted and name not in (THIS_RUN, NOT_MET):
                plot.set_series(name, [], [])
        broken_x, broken_y = [], []
        for name, (curve, color, suffix) in wanted.items():
            plot.ensure(name, color, compared=bool(suffix))
            spread = len(curve.mean) and bool(np.any(curve.high > curve.low))
            tips = [f"{name}, {plot.x_label} = {v:g}: {plot.y_label} = {m:.4g}"
                    + (" (promise NOT met)" if v in curve.broken else "") for v, m in zip(curve.x, curve.mean)]
            plot.set_series(name, curve.x, curve.mean, low=curve.low if spread else None,
                            high=curve.high if spread else None, tips=tips)
            if not suffix and name != SERIES["cahd"][0]:
                for v in curve.broken:
                    broken_x.append(v)
                    broken_y.append(float(curve.mean[list(curve.x).index(v)]))
        plot.ensure_marker()
        plot.set_series(NOT_MET, broken_x, broken_y)
        self._mark_run(plot, key)
        integer_ticks(plot.plot_item, "bottom", largest)
        plot.fit_y_below_legend()

    def _mark_run(self, plot: _MeasurePlot, key: str) -> None:
        run = self.run
        if run is None or run.result is None or self.result is None:
            if THIS_RUN in plot.series:
                plot.set_series(THIS_RUN, [], [])
            return
        value = run.summary().get(key)
        plot.ensure_marker()
        if value is None or not np.isfinite(value):
            plot.set_series(THIS_RUN, [], [])
            return
        plot.set_series(THIS_RUN, [run.params.m], [value], tips=[f"this run: {plot.y_label} = {value:.4g}"])

    def measure_points(self, measure: str = "er") -> dict[str, tuple[list[float], list[float]]]:
        """The drawn curves of a plot as ``{series: (x, y)}`` (tests, exports)."""
        plot = self.er_plot if measure == "er" else self.qe_plot
        return {name: (s.x.tolist(), s.y.tolist()) for name, s in plot.series.items() if len(s.x)}


def _where(cells: list[CellResult], result: SweepResult) -> str:
    """"greedy at ℓ = 3, 4": the cells by their curve, compactly."""
    x, group = result.axes[0].name, result.axes[1].name
    by_group: dict[str, list[str]] = {}
    for r in cells:
        by_group.setdefault(r.cell.values.get(group), []).append(f"{r.cell.values.get(x)}")
    return "; ".join(f"{SERIES.get(g, (str(g),))[0]} at {_symbol(x)} = {', '.join(v)}" for g, v in by_group.items())


def _first_sentence(text: str, limit: int = 110) -> str:
    head = " ".join(text.split()).split(";")[0]
    return head if len(head) <= limit else head[:limit - 1] + "…"


def _symbol(name: str) -> str:
    return "ℓ" if name == "l" else name


def sweep_title(run: MethodRun) -> str:
    """The jobs-panel title of a run's Fig. 6 sweep."""
    return f"Nonreciprocal: Fig. 6 sweep over {_symbol(run.params.mode)}"


def describe_failure(exc: BaseException) -> str:
    return f"The sweep failed: {html.escape(str(exc))}"
