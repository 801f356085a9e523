"""Plots of a k^m-anonymization against m (paper 000, Figures 4-6).

One run to ``m = M`` yields the result for every ``m <= M`` (each level is a
valid anonymization for that m), so the curves grow point by point while the
run goes on. Each plot shows every trial as a faint point and the published
(least-error) trial as a line; the level still running is a hollow marker.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtCore import Qt

from ....methods.kmanon.result import KmAnonResult, LevelResult
from ...plots import ExportablePlot

__all__ = ["KmCurvePlot", "make_curve_plots", "X_LABEL", "COMPARED"]

X_LABEL = "m (items known)"
TRIALS = "each trial"
#: The release (with several trials: the least-error trial per level, whose points the faint ones surround).
BEST = "published release"
RUNNING = "level still running"
#: Another run of the history, dashed, for comparison.
COMPARED = "compared run"


class KmCurvePlot(ExportablePlot):
    """One quantity of the levels vs m: trials as faint points, the best as a line."""

    def __init__(self, title: str, y_label: str, value: Callable[[LevelResult], float | None], *,
                 y_units: str | None = None, empty_text: str = "Press “Anonymize” (Ctrl+R) to fill this plot."):
        super().__init__(title, x_label=X_LABEL, y_label=y_label, y_units=y_units, empty_text=empty_text,
                         auto_legend=True)
        self.value = value
        self.add_series(TRIALS, kind="scatter", color="#9db7d3", symbol="o", symbol_size=7)
        self.add_series(BEST, kind="line", color="#0072B2", symbol="o", symbol_size=9, width=2.5)
        running = self.add_series(RUNNING, kind="scatter", color="#D55E00", symbol="t1", symbol_size=11)
        running.item.setSymbolBrush(None)
        running.item.setSymbolPen(dict(color="#D55E00", width=2))
        self.add_series(COMPARED, kind="line", color="#7a7a7a", symbol="x", symbol_size=8, width=1.5,
                        style=Qt.DashLine)
        self.plot_item.getAxis("bottom").setTickSpacing(1, 1)
        # "(x0.001)" scale factors on an axis are lost on most readers.
        for axis in ("left", "bottom"):
            self.plot_item.getAxis(axis).enableAutoSIPrefix(False)
        self.plot_item.setTitle(title, size="10pt")

    def _points(self, levels) -> tuple[np.ndarray, np.ndarray]:
        pairs = [(lv.level, self.value(lv)) for lv in levels]
        pairs = [(m, v) for m, v in pairs if v is not None and np.isfinite(v)]
        if not pairs:
            return np.zeros(0), np.zeros(0)
        m, v = zip(*pairs)
        return np.asarray(m, dtype=float), np.asarray(v, dtype=float)

    def show_result(self, result: KmAnonResult | None) -> None:
        if result is None:
            self.clear_data()
            return
        self.set_series(BEST, *self._points([lv for lv in result.levels if lv.complete]))
        trial_levels = [lv for t in result.trials for lv in t.levels if lv.complete]
        self.set_series(TRIALS, *self._points(trial_levels) if len(result.trials) > 1 else ([], []))
        running = [lv for lv in result.current] + [lv for lv in result.levels if not lv.complete]
        self.set_series(RUNNING, *self._points(running))
        top = max(result.m, max((lv.level for lv in running), default=1))
        self.plot_item.setXRange(0.5, top + 0.5, padding=0)
        self.fit_y_below_legend()

    def show_compared(self, result: KmAnonResult | None) -> None:
        """Another run's published curve, dashed (None removes it)."""
        levels = [lv for lv in result.levels if lv.complete] if result is not None else []
        self.set_series(COMPARED, *self._points(levels))
        self.fit_y_below_legend()


def make_curve_plots() -> dict[str, KmCurvePlot]:
    """The paper's three plots: partitions, error and people-weighted area vs m."""
    partitions = KmCurvePlot("Partitions (more = better)", "partitions", lambda lv: lv.partitions)
    error = KmCurvePlot("Error (less = better)", "average error", lambda lv: lv.error, y_units="m")
    area = KmCurvePlot("Area (less = better)", "area per person", lambda lv: lv.avg_area_km2,
                       y_units="km²", empty_text="Areas need tower cells (merge rule: touching towers).")
    for plot, key in ((partitions, "partitions"), (error, "error"), (area, "area")):
        plot.plot_widget.setMinimumHeight(110)
        plot.add_glossary(key)
    partitions.setToolTip("Partitions in the published data after each level; the original data has one per "
                          "item (paper Figure 4).")
    error.setToolTip("How far, on average over all visits, a tower is moved when its partition's centre is "
                     "published instead (paper Figure 5, Section VI-C). For hierarchy or free merging: the "
                     "information loss (NCP, 0 = none, 1 = everything merged).")
    area.setToolTip("Area of the partition a person's visit is published as, averaged over people "
                    "(paper Figure 6). Original cells of a dense city average about 0.1 km².")
    return {"partitions": partitions, "error": error, "area": area}
