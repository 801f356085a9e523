"""The plots of Figures 2-3 of Boreale, Corradi, Viscardi (2020), with brushing.

* :class:`ThreatScatter`: the attacker's probability of each row's true
  sensitive value (p_A, y) against the learner's (p_L, x), for the rows
  threatened under one of the two; the diagonal and the region where the
  attacker is more confident (p_A > p_L, shaded red and hatched as in the paper, its rows drawn as triangles). Click a
  point, drag a rectangle or Shift+drag a lasso to select rows
  (:attr:`ThreatScatter.selection_changed`).
* :class:`Log2TiHistogram`: how many rows have each value of
  ``log2 Ti = log2(p_A / p_L)``, with the skewness γ in the title.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsPathItem

from ...plots import PALETTE, ExportablePlot

__all__ = ["ThreatScatter", "Log2TiHistogram", "TracePlot", "P_L_LABEL", "P_A_LABEL", "LOG2TI_LABEL", "histogram_bars",
           "points_in_polygon"]

P_L_LABEL = "learner's probability of the true value p_L"
P_A_LABEL = "attacker's probability p_A"
LOG2TI_LABEL = "log2 Ti = log2(p_A / p_L), 1 = twice as sure"
ATTACKER_BETTER = QColor(178, 34, 34, 45)
POINT_COLOR = (0, 114, 178, 110)  # Okabe-Ito blue, translucent: thousands of points overlap
SELECTED_COLOR = "#D55E00"
MAX_BINS = 60
#: Four plots share the tab; the default title size would cut their titles off.
TITLE_SIZE = "10pt"


class ThreatScatter(ExportablePlot):
    """p_A against p_L for the rows threatened under one distribution; see the module docstring.

    Signals
    -------
    selection_changed(object)
        Row indices (numpy int array) the user picked on this plot.
    """

    selection_changed = Signal(object)

    def __init__(self, title: str, *, empty_text: str):
        super().__init__(title, x_label=P_L_LABEL, y_label=P_A_LABEL, empty_text=empty_text, legend=False)
        self.plot_item.setTitle(title, size=TITLE_SIZE)
        self.rows = np.zeros(0, dtype=np.int64)
        self.view_box = self.plot_item.getViewBox()
        self._shade_region()
        self.add_series("rows", kind="scatter", symbol="o", symbol_size=6, in_legend=False)
        self.series["rows"].item.setSymbolBrush(pg.mkBrush(*POINT_COLOR))
        self.series["rows"].item.setSymbolPen(None)
        self.add_series("selected", kind="scatter", symbol="o", symbol_size=11, color=SELECTED_COLOR)
        self.series["selected"].item.setSymbolBrush(None)
        self.series["selected"].item.setSymbolPen(pg.mkPen(SELECTED_COLOR, width=2))
        self.series["rows"].item.sigPointsClicked.connect(self._points_clicked)

        self.view_box.setLimits(xMin=-0.05, xMax=1.05, yMin=-0.05, yMax=1.05)
        self.reset_view()

        self.select_button = self.add_tool_button(
            "Select rows", "On: drag a rectangle to list the rows inside it below, hold Shift while dragging to "
                           "draw a free-form lasso, or click a point for one row. Off: dragging moves the view. "
                           "The wheel zooms; 'A' in the corner resets.",
            checkable=True)
        self.select_button.setChecked(True)
        self._band = QGraphicsPathItem()
        self._band.setPen(QPen(QColor(SELECTED_COLOR), 0))
        self._band.setBrush(QBrush(QColor(213, 94, 0, 40)))
        self._band.setVisible(False)
        self.plot_item.addItem(self._band, ignoreBounds=True)
        self._lasso: list[QPointF] = []
        # Route the view's drags through the rubber band while selecting; the
        # view's own panning is kept for select mode off and other buttons.
        self.view_box.mouseDragEvent = self._drag

    def _shade_region(self) -> None:
        diagonal = pg.PlotCurveItem([0.0, 1.0], [0.0, 1.0], pen=pg.mkPen("#444444", width=1, style=Qt.DashLine))
        top = pg.PlotCurveItem([0.0, 1.0], [1.0, 1.0], pen=pg.mkPen(None))
        shade = pg.FillBetweenItem(diagonal, top, brush=QBrush(ATTACKER_BETTER))
        # Hatched as well as tinted, and its points drawn as triangles (set_rows): colour is not the only cue.
        hatch = pg.FillBetweenItem(diagonal, top, brush=QBrush(QColor(0, 0, 0, 45), Qt.BDiagPattern))
        for item in (shade, hatch, diagonal, top):
            self.plot_item.addItem(item, ignoreBounds=True)
        # Points crowd the upper left, so the region is explained in the
        # workbench's caption; only the diagonal gets a small label.
        equal = pg.TextItem("p_A = p_L", color="#444444", anchor=(1, 1), angle=45)
        equal.setPos(0.99, 0.97)
        self.plot_item.addItem(equal, ignoreBounds=True)

    def reset_view(self) -> None:
        """Show the whole unit square (both probabilities from 0 to 1)."""
        self.plot_item.enableAutoRange(False)
        self.plot_item.setXRange(0.0, 1.0, padding=0.02)
        self.plot_item.setYRange(0.0, 1.0, padding=0.02)

    # -------------------------------------------------------------- data
    def set_rows(self, rows: np.ndarray, p_L: np.ndarray, p_A: np.ndarray) -> None:
        """Plot one point per row (``rows`` are table row indices)."""
        self.rows = np.asarray(rows, dtype=np.int64)
        item = self.series["rows"].item
        item.setSymbol("o")  # a per-point list of the old length must not meet the new data
        self.set_series("rows", p_L, p_A)
        # Rows where the attacker does better than the public (above the diagonal) are triangles, the others
        # circles, so the two kinds differ by shape where they meet at the diagonal, not only by the shading.
        above = np.asarray(p_A, dtype=float) > np.asarray(p_L, dtype=float)
        if len(above):
            item.setSymbol(np.where(above, "t1", "o").tolist())

    def highlight(self, rows: np.ndarray) -> None:
        """Ring the points of ``rows`` that are on this plot."""
        s = self.series["rows"]
        on = np.isin(self.rows, np.asarray(rows, dtype=np.int64))
        self.set_series("selected", s.x[on], s.y[on])

    def select_rect(self, rect: QRectF) -> np.ndarray:
        """Select the rows whose points lie in ``rect`` (data coordinates) and announce them."""
        s = self.series["rows"]
        inside = ((s.x >= rect.left()) & (s.x <= rect.right()) & (s.y >= rect.top()) & (s.y <= rect.bottom()))
        return self._announce(inside)

    def select_polygon(self, xy: np.ndarray) -> np.ndarray:
        """Select the rows whose points lie inside the polygon ``xy`` (k x 2, data coordinates)."""
        s = self.series["rows"]
        return self._announce(points_in_polygon(s.x, s.y, np.asarray(xy, dtype=float)))

    def _announce(self, inside: np.ndarray) -> np.ndarray:
        picked = self.rows[inside]
        self.selection_changed.emit(picked)
        return picked

    # ------------------------------------------------------------- mouse
    def _drag(self, ev, axis=None) -> None:
        if not self.select_button.isChecked() or ev.button() != Qt.LeftButton:
            pg.ViewBox.mouseDragEvent(self.view_box, ev, axis)
            return
        ev.accept()
        start = self.view_box.mapSceneToView(ev.buttonDownScenePos())
        end = self.view_box.mapSceneToView(ev.scenePos())
        lasso = bool(ev.modifiers() & Qt.ShiftModifier)
        path = QPainterPath()
        if lasso:
            if ev.isStart() or not self._lasso:
                self._lasso = [start]
            self._lasso.append(end)
            path.addPolygon(QPolygonF(self._lasso))
            path.closeSubpath()
        else:
            rect = QRectF(start, end).normalized()
            path.addRect(rect)
        self._band.setPath(path)
        self._band.setVisible(not ev.isFinish())
        if not ev.isFinish():
            return
        if lasso:
            self.select_polygon(np.array([(p.x(), p.y()) for p in self._lasso]))
            self._lasso = []
        else:
            self.select_rect(rect)

    def _points_clicked(self, _item, points, _ev=None) -> None:
        if len(points):
            self.selection_changed.emit(self.rows[[p.index() for p in points[:1]]])


def points_in_polygon(x: np.ndarray, y: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """Whether each point lies inside ``polygon`` (k x 2 vertices, closed implicitly; even-odd rule)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    inside = np.zeros(x.shape, dtype=bool)
    if len(polygon) < 3:
        return inside
    # Ray casting to the right: count the edges a horizontal ray from the point crosses.
    x0, y0 = polygon[:, 0], polygon[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    for ax, ay, bx, by in zip(x0, y0, x1, y1):
        straddles = (ay > y) != (by > y)
        with np.errstate(divide="ignore", invalid="ignore"):
            cross_x = ax + (y - ay) * (bx - ax) / (by - ay)
        inside ^= straddles & (x < cross_x)
    return inside


def histogram_bars(values: np.ndarray, max_bins: int = MAX_BINS) -> tuple[np.ndarray, np.ndarray, float]:
    """Bar centres, counts and bar width of a histogram of real values (Freedman-Diaconis bins, capped)."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return np.zeros(0), np.zeros(0), 1.0
    lo, hi = float(values.min()), float(values.max())
    if hi - lo < 1e-9:
        return np.array([lo]), np.array([float(values.size)]), 0.5
    edges = np.histogram_bin_edges(values, bins="fd")
    if len(edges) - 1 > max_bins or len(edges) < 6:
        edges = np.linspace(lo, hi, min(max_bins, max(5, int(np.sqrt(values.size)))) + 1)
    counts, edges = np.histogram(values, bins=edges)
    return (edges[:-1] + edges[1:]) / 2.0, counts.astype(float), float(edges[1] - edges[0])


class Log2TiHistogram(ExportablePlot):
    """Rows per value of log2 Ti; reference lines at 0 (equal) and 1 (twice as confident)."""

    def __init__(self, title: str, *, empty_text: str, color: str):
        super().__init__(title, x_label=LOG2TI_LABEL, y_label="rows", legend=False, empty_text=empty_text)
        self.add_series("rows", kind="bars", color=color)
        self.plot_item.setTitle(title, size=TITLE_SIZE)
        for pos, text, height in ((0.0, "equal", 0.95), (1.0, "2×", 0.82)):
            line = pg.InfiniteLine(pos=pos, angle=90, pen=pg.mkPen("#8b1a1a", width=1, style=Qt.DashLine),
                                   label=text, labelOpts={"position": height, "color": "#8b1a1a"})
            self.plot_item.addItem(line, ignoreBounds=True)
        self.values = np.zeros(0)

    def set_values(self, log2_ti: np.ndarray, skewness: float, hidden: int = 0) -> None:
        """Show the finite values; ``hidden`` rows (p_A = 0 or p_L = 0) are counted in the title."""
        self.values = np.asarray(log2_ti, dtype=float)
        x, counts, width = histogram_bars(self.values)
        self.series["rows"].item.setOpts(width=width * 0.95)
        self.set_series("rows", x, counts)
        gamma = "γ = n/a" if not np.isfinite(skewness) else f"γ = {skewness:+.2f}"
        # The figures go on a smaller second line: on one line they made the title wider than a plot at 1280 px.
        title = f"{self.title}<br><span style='font-size:8pt'>{gamma}, {len(self.values):,} rows</span>"
        if hidden:
            title += f"<br><span style='font-size:8pt'>{hidden:,} rows not shown: log2 Ti is infinite " \
                     f"(one side gives the true value probability 0)</span>"
        self.plot_item.setTitle(title, size=TITLE_SIZE)
        self.plot_item.enableAutoRange()
        if len(x):
            lo, hi = min(float(x.min()) - width, -0.5), max(float(x.max()) + width, 1.5)
            self.plot_item.setXRange(lo, hi, padding=0.02)


class TracePlot(ExportablePlot):
    """Kept samples of a few population parameters, one line per chain: settled chains overlap and stay flat."""

    #: Parameters drawn (the first traced ones: shares of the most common sensitive values).
    COMPONENTS = 3

    def __init__(self):
        super().__init__("Sampler traces: share of each sensitive value (π_S) after burn-in",
                         x_label="kept sample", y_label="value in the sample",
                         empty_text="Traces appear when sampling finishes.", auto_legend=True)
        self.plot_item.setTitle(self.title, size=TITLE_SIZE)
        self.plot_item.getAxis("left").enableAutoSIPrefix(False)  # "(x0.001)" reads as a unit
        self.legend.setBrush(pg.mkBrush(255, 255, 255, 220))  # readable over the lines

    def show_traces(self, diagnostics) -> None:
        """Plot ``diagnostics.traces`` (chains x kept x components); None clears the plot."""
        wanted: dict[str, tuple[np.ndarray, str, Qt.PenStyle]] = {}
        if diagnostics is not None and diagnostics.traces.size:
            traces = diagnostics.traces
            names = diagnostics.trace_names
            shares = [j for j in range(len(names)) if names[j].startswith("pi_S")]
            picked = sorted(shares, key=lambda j: -traces[:, :, j].mean())[: self.COMPONENTS]
            for colour, j in zip(PALETTE, picked):
                for c in range(traces.shape[0]):
                    style = Qt.SolidLine if c == 0 else Qt.DashLine
                    wanted[f"{names[j]}, chain {c + 1}"] = (traces[c, :, j], colour, style)
        for name in self.series:
            if name not in wanted:
                self.set_series(name, [], [])
        for name, (values, colour, style) in wanted.items():
            if name not in self.series:
                self.add_series(name, kind="line", width=1.2, color=colour, style=style)
            self.set_series(name, np.arange(1, len(values) + 1), values)
        self.plot_item.enableAutoRange(x=True)
        self.fit_y_below_legend()
