"""Plots and tables of the Risk workbench: uniqueness vs m with intervals, and every point in a table."""
from __future__ import annotations

import csv
import io
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from ....formatting import integer, percent
from ....methods.uniqueness.result import UniquenessCurve
from ...plots import ExportablePlot, integer_ticks

#: The series of a run drawn for comparison (the history bar's "compare with").
COMPARED = "compared run"

__all__ = ["UniquenessPlot", "COMPARED", "ResultsTable", "ITEMSET_Y", "PERSON_Y", "X_LABEL", "ci_caption", "point_tip",
           "precision_warning", "samples_text", "interval"]

ITEMSET_Y = "unique m-itemsets (share)"
PERSON_Y = "people unique given m items (chance)"
X_LABEL = "m (items the attacker knows)"

METHOD_TEXT = {"exact": "exact count", "mcmc": "estimated (MCMC sample)", "sampling": "estimated (random people)"}


def is_exact(point: Any) -> bool:
    return str(getattr(point, "method", "")).lower() == "exact"


class UniquenessPlot(ExportablePlot):
    """Uniqueness vs m: exact points (●) and estimated points (▲) with CI bars."""

    def __init__(self, title: str, y_label: str, empty_text: str, estimated: str = "estimated (sample)"):
        super().__init__(title, x_label=X_LABEL, y_label=y_label, empty_text=empty_text, auto_legend=True)
        self.estimated = estimated
        self.points: list[Any] = []
        # The trend line only joins the points below; the CSV lists each point once.
        self.add_series("trend", kind="line", color="#999999", width=1.5, in_legend=False, in_csv=False)
        self.add_series("exact count", kind="scatter", symbol="o", color="#0072B2", error_bars=True)
        self.add_series(estimated, kind="scatter", symbol="t1", color="#D55E00", error_bars=True)
        self.add_series(COMPARED, kind="line", color="#7a7a7a", symbol="x", symbol_size=8, width=1.5,
                        style=Qt.DashLine)
        # Percent labels next to the points: on the fixed 0-1 scale small
        # values are hard to read off the axis. Reused, never recreated.
        self._labels: list[pg.TextItem] = []
        self._m_range: tuple[int, int] | None = None
        self.plot_item.setYRange(0.0, 1.0, padding=0.02)
        self.plot_item.getViewBox().setLimits(yMin=-0.05, yMax=1.05)
        self.plot_item.enableAutoRange(y=False)
        self.zoom_button = self.add_tool_button(
            "Zoom y", "Fit the y axis to the points. Off: the full 0–1 scale, which shows how large the "
                      "risk is in absolute terms.", checkable=True)
        self.zoom_button.toggled.connect(lambda _=None: self._apply_y_range())

    def show_compared(self, result: UniquenessCurve | None) -> None:
        """Another run's curve, dashed, beside the shown one (None removes it)."""
        points = [p for p in (result.points if result is not None else ()) if np.isfinite(p.uniqueness)]
        self.set_series(COMPARED, [p.m for p in points], [p.uniqueness for p in points])
        self._apply_y_range()

    def set_m_range(self, lowest: int, highest: int) -> None:
        """Fix the x axis to the m values of the run, so live points do not rescale it."""
        self._m_range = (lowest, highest)
        self._apply_x_range(highest)

    def _apply_x_range(self, highest: float) -> None:
        lowest = self._m_range[0] if self._m_range else 1
        # Extra room on the right for the last point's percent label.
        self.plot_item.setXRange(lowest - 0.5, max(highest, lowest) + 0.9, padding=0)
        integer_ticks(self.plot_item, "bottom", highest)

    def _show_labels(self, m: np.ndarray, u: np.ndarray) -> None:
        while len(self._labels) < len(m):
            label = pg.TextItem(color="#222222", anchor=(-0.15, 1.0))
            self.plot_item.addItem(label)
            self._labels.append(label)
        for i, label in enumerate(self._labels):
            if i < len(m):
                label.setText("0 %" if u[i] == 0 else percent(u[i]))
                label.setPos(m[i], u[i])
            label.setVisible(i < len(m))

    def _apply_y_range(self) -> None:
        finite = [s.high if s.high is not None else s.y for s in self.series.values() if len(s.y)]
        top = max((float(np.nanmax(v)) for v in finite), default=1.0)
        if self.zoom_button.isChecked() and top > 0:
            # Head-room above the highest error bar for its percent label and
            # the legend band, so the legend never hides a point.
            room = self.legend_headroom(pad=LABEL_PX)
            self.plot_item.setYRange(0.0, min(1.0, top * 1.1 / (1.0 - room)), padding=0.02)
        else:
            self.plot_item.setYRange(0.0, 1.0, padding=0.02)

    def show_result(self, result: UniquenessCurve | None) -> None:
        points = sorted(result.points, key=lambda p: p.m) if result is not None else []
        # NaN: no record has m items, so uniqueness is undefined for that m.
        points = [p for p in points if np.isfinite(p.uniqueness)]
        m = np.array([p.m for p in points], dtype=float)
        u = np.array([p.uniqueness for p in points], dtype=float)
        low = np.array([p.ci_low for p in points], dtype=float)
        high = np.array([p.ci_high for p in points], dtype=float)
        exact = np.array([is_exact(p) for p in points], dtype=bool)
        self.points = points
        tips = [point_tip(p) for p in points]
        self.set_series("trend", m, u)
        self.set_series("exact count", m[exact], u[exact], low=low[exact], high=high[exact],
                        tips=[t for t, e in zip(tips, exact) if e])
        self.set_series(self.estimated, m[~exact], u[~exact], low=low[~exact], high=high[~exact],
                        tips=[t for t, e in zip(tips, exact) if not e])
        self._show_labels(m, u)
        if self._m_range is not None:
            self._apply_x_range(max(self._m_range[1], m.max() if len(m) else 0))
        elif len(m):
            self._apply_x_range(m.max())
        self._apply_y_range()


    def csv_text(self) -> str:
        """One row per point: m, value, interval, method, samples and the precision note."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["m", self.y_label, "ci_low", "ci_high", "method", "samples", "itemsets_counted", "seconds",
                         "precision_note"])
        for p in self.points:
            counted = getattr(p, "itemsets", None)
            writer.writerow([p.m, repr(float(p.uniqueness)), repr(float(p.ci_low)), repr(float(p.ci_high)),
                             p.method, int(p.samples), "" if counted is None else int(counted),
                             f"{p.seconds:.3f}", precision_warning(p)])
        return out.getvalue()


#: Pixels above the highest point kept free for its percent label.
LABEL_PX = 24.0


def precision_warning(point: Any) -> str:
    """The point's "precision not reached" note, or "" (older results carry none)."""
    if getattr(point, "precision_met", True):
        return ""
    return getattr(point, "warning", "") or "confidence interval wider than the requested ±ε"


def samples_text(point: Any) -> str:
    """What a value rests on: the draws of an estimate, or every itemset of an exact count."""
    if is_exact(point):
        # Exact points draw nothing (samples = 0); newer results say how many
        # distinct m-itemsets were counted.
        itemsets = getattr(point, "itemsets", None)
        return f"all {integer(itemsets)} counted" if itemsets is not None else "all counted"
    return integer(point.samples)


def interval(point: Any) -> str:
    """The point's confidence interval in percent, "1.20 % – 3.45 %"."""
    return f"{percent(point.ci_low, 2)} – {percent(point.ci_high, 2)}"


def point_tip(point: Any) -> str:
    """Hover text of one plotted point."""
    lines = [f"m = {point.m}: {percent(point.uniqueness, 2)}",
             f"confidence interval {interval(point)}",
             f"{METHOD_TEXT.get(str(point.method), str(point.method))}, samples: {samples_text(point)}",
             f"{point.seconds:.2f} s"]
    warning = precision_warning(point)
    if warning:
        lines.append(f"⚠ {warning}")
    return "\n".join(lines)


def ci_caption(delta: float) -> str:
    """'error bars: 99 % confidence interval (δ = 0.01)'."""
    return f"error bars: {(1.0 - delta) * 100:g} % confidence interval (δ = {delta:g})"




TABLE_COLUMNS = ("quantity", "m", "unique", "confidence interval", "method", "samples", "seconds", "note")


class ResultsTable(QTableWidget):
    """One row per finished point of either curve."""

    def __init__(self):
        super().__init__(0, len(TABLE_COLUMNS))
        self.setHorizontalHeaderLabels(TABLE_COLUMNS)
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.horizontalHeader().setStretchLastSection(True)
        self.setToolTip("Every finished point. 'unique': share of m-itemsets (or of people) singled out; "
                        "'samples': how many itemsets or people were drawn (exact counts check them all).")

    def show_results(self, results: list[UniquenessCurve | None]) -> None:
        rows = []
        for result in results:
            if result is None:
                continue
            quantity = "m-itemsets" if result.kind == "itemset" else "people"
            for p in sorted(result.points, key=lambda p: p.m):
                if not np.isfinite(p.uniqueness):
                    rows.append((quantity, str(p.m), "undefined", "no record has m items", "", "0",
                                 f"{p.seconds:.2f}", ""))
                    continue
                warning = precision_warning(p)
                rows.append((quantity, str(p.m), percent(p.uniqueness, 2), interval(p),
                             METHOD_TEXT.get(str(p.method), str(p.method)), samples_text(p),
                             f"{p.seconds:.2f}", f"⚠ {warning}" if warning else ""))
        self.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                item.setToolTip(text)  # long notes are elided in the cell
                if 0 < c < len(TABLE_COLUMNS) - 1:  # numbers right, the note reads left to right
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.setItem(r, c, item)
