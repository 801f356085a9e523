"""Plots for the studio: every plot is an :class:`ExportablePlot` (PNG/SVG/CSV)."""
from .charts import HistogramPlot, RankFrequencyPlot, integer_bins, integer_histogram
from .exportable import (
    EXPORT_FORMATS,
    PALETTE,
    ExportablePlot,
    PlainAxis,
    PlainLogAxis,
    Series,
    axis_text,
    integer_ticks,
)

__all__ = [
    "EXPORT_FORMATS", "PALETTE", "ExportablePlot", "HistogramPlot", "RankFrequencyPlot", "Series",
    "PlainAxis", "PlainLogAxis", "axis_text", "integer_bins", "integer_histogram", "integer_ticks",
]
