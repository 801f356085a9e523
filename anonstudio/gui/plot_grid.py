"""A row of plots that reflows to two columns, or a stack, when a plot would get less than 320 px.

Three plots side by side in a 960 px results area get about 240 px each at 1280×720: the tick labels
crowd and the titles are cut. :class:`PlotGrid` lays its plots out in as many columns as the width allows at
:data:`MIN_PLOT_WIDTH` px each, from all of them in one row down to two columns (the last plot of an odd
count spans the row) and finally one column; it lays them out again whenever its width crosses a threshold.
"""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QGridLayout, QWidget

__all__ = ["MIN_PLOT_WIDTH", "PlotGrid", "columns_for"]

#: The narrowest a plot in a grid may get before the grid reflows (pixels).
MIN_PLOT_WIDTH = 320


def columns_for(width: int, count: int, minimum: int = MIN_PLOT_WIDTH) -> int:
    """How many columns ``count`` plots take in ``width`` px: all of them, else 2, else 1 (never below 1)."""
    if count <= 1:
        return 1
    if width >= count * minimum:
        return count
    return 2 if width >= 2 * minimum else 1


class PlotGrid(QWidget):
    """Plots in one row, two columns or one column, as the width allows (see the module docstring)."""

    def __init__(self, plots: Sequence[QWidget], minimum: int = MIN_PLOT_WIDTH, parent: QWidget | None = None):
        super().__init__(parent)
        self.plots = list(plots)
        self.minimum = minimum
        self.columns = 0
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(4)
        self._arrange(len(self.plots))

    def _arrange(self, columns: int) -> None:
        if columns == self.columns:
            return
        self.columns = columns
        for plot in self.plots:
            self.grid.removeWidget(plot)
        for col in range(max(len(self.plots), 1)):
            self.grid.setColumnStretch(col, 1 if col < columns else 0)
        rows = (len(self.plots) + columns - 1) // columns
        for row in range(max(rows, len(self.plots))):
            self.grid.setRowStretch(row, 1 if row < rows else 0)
        for index, plot in enumerate(self.plots):
            row, col = divmod(index, columns)
            # The last plot of an odd count takes the whole last row rather than leaving a hole.
            span = columns - col if index == len(self.plots) - 1 else 1
            self.grid.addWidget(plot, row, col, 1, span)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt naming)
        # As narrow as one column, so that the parent can shrink the grid below its row and make it reflow.
        hint = super().minimumSizeHint()
        widest = max((p.minimumSizeHint().expandedTo(p.minimumSize()).width() for p in self.plots), default=0)
        return QSize(widest, hint.height())

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        super().resizeEvent(event)
        self._arrange(columns_for(event.size().width(), len(self.plots), self.minimum))
