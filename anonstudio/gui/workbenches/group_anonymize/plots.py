"""Plots of the group-anonymization workbench: how large the published groups are, and how much each
quasi-identifier was generalized (NCP)."""
from __future__ import annotations

import csv
import io

import numpy as np

from ....formatting import number
from ...plots import ExportablePlot, HistogramPlot

__all__ = ["GroupSizePlot", "NcpPlot"]


class GroupSizePlot(HistogramPlot):
    """Groups per size: every person hides among the rows of their group, so bars left of k would break k."""

    def __init__(self):
        super().__init__("Group sizes", x_label="group size", x_units="rows", y_label="number of groups",
                         series="groups", empty_text="Group sizes appear when a release is made.")

    def show_sizes(self, sizes: np.ndarray, k: int | None = None) -> None:
        """Draw the histogram of ``sizes`` (rows per group); the caption names the smallest group and k."""
        self.set_values(np.asarray(sizes, dtype=np.int64))
        if len(sizes):
            wanted = f" (k = {k})" if k is not None else ""
            self.set_caption(f"{len(sizes):,} groups; smallest {int(np.min(sizes))} rows{wanted}")


class NcpPlot(ExportablePlot):
    """NCP of each quasi-identifier (0 = published exactly, 1 = fully hidden); the release's NCP is their mean.

    Bars lie horizontally, one per quasi-identifier named on the left axis, so that long column names
    (marital-status, native-country) stay readable however many there are.
    """

    #: Thickness of a bar, in rows of the axis.
    BAR = 0.6

    def __init__(self):
        super().__init__("NCP per quasi-identifier", x_label="NCP", x_units="0 = exact, 1 = hidden",
                         y_label="quasi-identifier", legend=False,
                         empty_text="NCP appears when the independent check has measured a release.")
        self.add_series("NCP", kind="bars")
        self.add_glossary("NCP")
        self.columns: list[str] = []

    def show_ncp(self, ncp_columns: dict[str, float], total: float) -> None:
        """One bar per quasi-identifier (the first on top); the caption gives the release's NCP."""
        self.columns = list(ncp_columns)
        values = np.asarray([ncp_columns[c] for c in self.columns], dtype=float)
        rows = np.arange(len(self.columns), dtype=float)[::-1]  # first column on top
        self.set_series("NCP", rows, values)
        # set_series draws vertical bars; turn them on their side (x0 = 0, width = NCP, y = the column's row).
        self.series["NCP"].item.setOpts(x=None, x0=np.zeros(len(values)), width=values, y=rows, height=self.BAR)
        self.plot_item.getAxis("left").setTicks([[(float(r), c) for r, c in zip(rows, self.columns)]])
        self.plot_item.getAxis("bottom").setTicks(None)
        self.plot_item.setYRange(-0.6, len(self.columns) - 0.4, padding=0)
        largest = float(values.max()) if len(values) else 0.0
        self.plot_item.setXRange(0.0, max(0.05, largest * 1.15), padding=0)
        if largest == 0.0:
            self.set_caption("release NCP 0: quasi-identifiers exact")
        else:
            self.set_caption(f"release NCP {number(total, 3)} (mean of the bars)")

    def clear_data(self) -> None:
        # Back to the base class's upright bars (all at once: the item redraws after every setOpts).
        self.series["NCP"].item.setOpts(x=np.zeros(0), x0=None, y=None, width=self.BAR, height=np.zeros(0))
        super().clear_data()
        self.columns = []
        self.plot_item.getAxis("left").setTicks(None)
        self.set_caption("")

    def csv_text(self) -> str:
        """``quasi-identifier, NCP``: the bars by name (their positions mean nothing on their own)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["quasi-identifier", "NCP"])
        for column, value in zip(self.columns, self.series["NCP"].y.tolist()):
            writer.writerow([column, f"{value:.6g}"])
        return out.getvalue()
