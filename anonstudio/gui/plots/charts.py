"""Ready-made histogram and rank-frequency plots on top of :class:`ExportablePlot`."""
from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence

import numpy as np

from .exportable import ExportablePlot, csv_number

__all__ = ["HistogramPlot", "RankFrequencyPlot", "integer_bins", "integer_histogram"]

#: Integer values spanning at most this many distinct values get one bar each;
#: wider ranges are binned.
MAX_UNIT_BARS = 120
#: Narrowest x range shown by a histogram, in x units.
MIN_X_SPAN = 10.0
#: Share of a bin its bar fills (a small gap keeps neighbouring bars apart).
BAR_FILL = 0.85


def integer_bins(values: np.ndarray, max_bars: int = MAX_UNIT_BARS) -> tuple[np.ndarray, np.ndarray]:
    """Bin edges and counts for integer values; every bin holds whole numbers only.

    Bins are ``w`` integers wide (``w >= 1``, the smallest width giving at
    most ``max_bars`` bins) with edges at half-integers, so a bin reads
    "records with 3-5 items" and never splits one value between two bars.

    Returns
    -------
    edges : (n_bins + 1,) float array, ``lo - 0.5, lo - 0.5 + w, ...``
    counts : (n_bins,) float array
    """
    values = np.asarray(values, dtype=np.int64)
    if values.size == 0:
        return np.zeros(0), np.zeros(0)
    lo, hi = int(values.min()), int(values.max())
    width = max(1, math.ceil((hi - lo + 1) / max_bars))
    n_bins = (hi - lo) // width + 1
    counts = np.bincount((values - lo) // width, minlength=n_bins)
    edges = lo - 0.5 + width * np.arange(n_bins + 1, dtype=float)
    return edges, counts.astype(float)


def integer_histogram(values: np.ndarray, max_bars: int = MAX_UNIT_BARS) -> tuple[np.ndarray, np.ndarray, float]:
    """Bar centres, counts and bar width (see :func:`integer_bins`)."""
    edges, counts = integer_bins(values, max_bars)
    if len(counts) == 0:
        return np.zeros(0), np.zeros(0), BAR_FILL
    width = float(edges[1] - edges[0])
    return (edges[:-1] + edges[1:]) / 2.0, counts, width * BAR_FILL


class HistogramPlot(ExportablePlot):
    """Counts of an integer quantity (e.g. items per record) as bars.

    The CSV export lists each bin by its edges: ``left, right, count``.
    """

    def __init__(self, title: str, *, x_label: str, y_label: str = "records", series: str = "records",
                 x_units: str | None = None, y_units: str | None = None, **kwargs):
        super().__init__(title, x_label=x_label, y_label=y_label, x_units=x_units, y_units=y_units,
                         legend=False, **kwargs)
        self._series_name = series
        self.edges = np.zeros(0)
        self.add_series(series, kind="bars")

    def set_values(self, values: np.ndarray) -> None:
        self.edges, counts = integer_bins(values)
        x, _, width = integer_histogram(values)
        self.series[self._series_name].item.setOpts(width=width)
        self.set_series(self._series_name, x, counts)
        self.plot_item.enableAutoRange()
        if len(x):
            # With one or two distinct values (every chess record has 37 items)
            # autorange makes one bar fill the plot; show some context instead.
            span = max(self.edges[-1] - self.edges[0], MIN_X_SPAN)
            centre = (self.edges[0] + self.edges[-1]) / 2.0
            self.plot_item.setXRange(centre - span / 2.0, centre + span / 2.0, padding=0.02)

    def clear_data(self) -> None:
        super().clear_data()
        self.edges = np.zeros(0)

    def csv_text(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([f"{self.x_label} from", f"{self.x_label} to", self.y_label])
        counts = self.series[self._series_name].y
        for left, right, count in zip(self.edges[:-1], self.edges[1:], counts):
            writer.writerow([csv_number(left), csv_number(right), csv_number(count)])
        return out.getvalue()


class RankFrequencyPlot(ExportablePlot):
    """Frequencies sorted from most to least common, rank on x, log y.

    A straight falling line on this plot is the long tail that makes rare
    items so identifying. The CSV lists ``rank, item, count``.
    """

    def __init__(self, title: str, *, x_label: str = "item rank (1 = most frequent)",
                 y_label: str = "records containing the item", series: str = "items", **kwargs):
        super().__init__(title, x_label=x_label, y_label=y_label, legend=False, log_y=True, **kwargs)
        self._series_name = series
        self.item_labels: list[str] = []
        self.add_series(series, kind="line", width=2.0)

    def set_frequencies(self, frequencies: np.ndarray, labels: Sequence[str] | None = None) -> None:
        freq = np.asarray(frequencies, dtype=float)
        names = [str(v) for v in labels] if labels is not None else [str(i) for i in range(len(freq))]
        # Stable sort: equally frequent items keep their id order, so exports repeat.
        order = np.argsort(-freq, kind="stable")
        order = order[freq[order] > 0]  # items never used cannot be drawn on a log axis
        self.item_labels = [names[i] for i in order]
        ranks = np.arange(1, len(order) + 1, dtype=float)
        self.set_series(self._series_name, ranks, freq[order])
        self.plot_item.enableAutoRange()

    def clear_data(self) -> None:
        super().clear_data()
        self.item_labels = []

    def csv_text(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["rank", "item", self.y_label])
        s = self.series[self._series_name]
        for rank, label, count in zip(s.x, self.item_labels, s.y):
            writer.writerow([csv_number(rank), label, csv_number(count)])
        return out.getvalue()
