"""Ready-made histogram and rank-frequency plots on top of :class:`ExportablePlot`."""
from __future__ import annotations

import numpy as np

from .exportable import ExportablePlot

__all__ = ["HistogramPlot", "RankFrequencyPlot", "integer_histogram"]

#: Integer values spanning at most this many distinct values get one bar each;
#: wider ranges are binned.
MAX_UNIT_BARS = 120
#: Narrowest x range shown by a histogram, in x units.
MIN_X_SPAN = 10.0


def integer_histogram(values: np.ndarray, max_bars: int = MAX_UNIT_BARS) -> tuple[np.ndarray, np.ndarray, float]:
    """Bar centres, counts and bar width for a histogram of integer values.

    Small ranges get one bar per value (so "3 items" is a bar at x = 3);
    wide ranges are split into ``max_bars`` equal bins.
    """
    values = np.asarray(values, dtype=np.int64)
    if values.size == 0:
        return np.zeros(0), np.zeros(0), 0.8
    lo, hi = int(values.min()), int(values.max())
    if hi - lo + 1 <= max_bars:
        counts = np.bincount(values - lo, minlength=hi - lo + 1)
        return np.arange(lo, hi + 1, dtype=float), counts.astype(float), 0.8
    counts, edges = np.histogram(values, bins=max_bars)
    return (edges[:-1] + edges[1:]) / 2.0, counts.astype(float), float(edges[1] - edges[0]) * 0.9


class HistogramPlot(ExportablePlot):
    """Counts of an integer quantity (e.g. items per record) as bars."""

    def __init__(self, title: str, *, x_label: str, y_label: str = "records", series: str = "records",
                 x_units: str | None = None, y_units: str | None = None, **kwargs):
        super().__init__(title, x_label=x_label, y_label=y_label, x_units=x_units, y_units=y_units,
                         legend=False, **kwargs)
        self._series_name = series
        self.add_series(series, kind="bars")

    def set_values(self, values: np.ndarray) -> None:
        x, counts, width = integer_histogram(values)
        self.series[self._series_name].item.setOpts(width=width)
        self.set_series(self._series_name, x, counts)
        self.plot_item.enableAutoRange()
        if len(x):
            # With one or two distinct values (every chess record has 37 items)
            # autorange makes one bar fill the plot; show some context instead.
            centre, span = (x.min() + x.max()) / 2.0, max(x.max() - x.min() + width, MIN_X_SPAN)
            self.plot_item.setXRange(centre - span / 2.0, centre + span / 2.0, padding=0.02)


class RankFrequencyPlot(ExportablePlot):
    """Frequencies sorted from most to least common, rank on x, log y.

    A straight falling line on this plot is the long tail that makes rare
    items so identifying.
    """

    def __init__(self, title: str, *, x_label: str = "item rank (1 = most frequent)",
                 y_label: str = "records containing the item", series: str = "items", **kwargs):
        super().__init__(title, x_label=x_label, y_label=y_label, legend=False, log_y=True, **kwargs)
        self._series_name = series
        self.add_series(series, kind="line", width=2.0)

    def set_frequencies(self, frequencies: np.ndarray) -> None:
        freq = np.sort(np.asarray(frequencies, dtype=float))[::-1]
        freq = freq[freq > 0]  # items never used cannot be drawn on a log axis
        self.set_series(self._series_name, np.arange(1, len(freq) + 1, dtype=float), freq)
        self.plot_item.enableAutoRange()
