"""Victim inspector: what the learner, the attacker and random worlds believe about one person.

For the victim in one row it shows the paper's Table III as bars: over every
sensitive value, the learner's p_L, the attacker's p_A and the random-worlds
p_RW (each sums to 1), the true value marked; below, the victim's group as
published and the group's cleartext rows.
"""
from __future__ import annotations

import csv
import io

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from ....formatting import number, probability
from ...plots import ExportablePlot
from .tables import ThreatRowsTable

__all__ = ["VictimInspector", "DistributionBars", "DISTRIBUTIONS"]

#: Series name -> (label in the legend, colour). Order of the bars within a value.
DISTRIBUTIONS = {
    "p_L": ("learner p_L", "#0072B2"),
    "p_A": ("attacker p_A", "#B22222"),
    "p_RW": ("random worlds p_RW", "#999999"),
}
BAR_HEIGHT = 0.26
HEADING_EMPTY = "<b>Victim inspector</b>: click a row in the list."
#: The legend lives in the heading: inside the plot it would hide bars.
LEGEND_HTML = " ".join(f"<span style='color:{color}'>■</span> {label}" for label, color in DISTRIBUTIONS.values())


class DistributionBars(ExportablePlot):
    """Horizontal grouped bars: one band per sensitive value, one bar per distribution."""

    def __init__(self):
        super().__init__("Who believes what about the victim's sensitive value", x_label="probability",
                         y_label="", empty_text="Click a row in the list to inspect that person.", legend=False)
        # No title inside the plot: the inspector's heading says whose beliefs these are,
        # and the lower half of the workbench has little height to spare.
        self.plot_item.setTitle(None)
        font = QFont()
        font.setPointSize(8)
        self.plot_item.getAxis("left").setStyle(tickFont=font)
        self.names: list[str] = []
        for _key, (label, color) in DISTRIBUTIONS.items():
            self.add_series(label, kind="bars", color=color, bar_width=BAR_HEIGHT)
        self.plot_item.invertY(True)  # first value on top, like a table
        self._true_mark = pg.LinearRegionItem(orientation="horizontal", movable=False,
                                              brush=pg.mkBrush(255, 215, 0, 70), pen=pg.mkPen(None))
        self._true_mark.setVisible(False)
        self._true_mark.setZValue(-10)  # behind the bars
        self.plot_item.addItem(self._true_mark, ignoreBounds=True)
        self.clear_victim()

    def show_victim(self, names: list[str], dists: dict[str, np.ndarray], true_index: int) -> None:
        """``dists`` maps p_L / p_A / p_RW to arrays over ``names``."""
        self.names = list(names)
        pos = np.arange(len(names), dtype=float)
        for i, (key, (label, _)) in enumerate(DISTRIBUTIONS.items()):
            p = np.asarray(dists[key], dtype=float)
            self.set_series(label, pos, p)
            # Drawn sideways: the bar starts at 0 and extends to p along x.
            self.series[label].item.setOpts(x0=np.zeros(len(p)), width=p, y=pos + (i - 1) * BAR_HEIGHT,
                                            height=BAR_HEIGHT)
        ticks = [(float(i), f"{n} ✔" if i == true_index else n) for i, n in enumerate(names)]
        self.plot_item.getAxis("left").setTicks([ticks])
        self._true_mark.setRegion((true_index - 0.5, true_index + 0.5))
        self._true_mark.setVisible(True)
        self.plot_item.setXRange(0.0, 1.0, padding=0.02)
        self.plot_item.setYRange(-0.6, len(names) - 0.4, padding=0)

    def clear_victim(self) -> None:
        self.clear_data()
        self.names = []
        self._true_mark.setVisible(False)
        self.plot_item.getAxis("left").setTicks([[]])  # no value names without a victim

    def csv_text(self) -> str:
        """One line per sensitive value: value, p_L, p_A, p_RW."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["value", *DISTRIBUTIONS])
        columns = [self.series[label].y for label, _ in DISTRIBUTIONS.values()]
        for i, name in enumerate(self.names):
            writer.writerow([name, *[repr(float(c[i])) if i < len(c) else "" for c in columns]])
        return out.getvalue()


class VictimInspector(QWidget):
    """Bars of p_L, p_A, p_RW for one victim and the rows of the victim's group."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.heading = QLabel(HEADING_EMPTY)
        self.heading.setObjectName("victim_heading")
        self.heading.setWordWrap(True)
        self.heading.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.bars = DistributionBars()
        self.group_label = QLabel()
        self.group_label.setWordWrap(True)
        self.group_table = ThreatRowsTable("The cleartext rows of the victim's group (the victim highlighted).")
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.group_label)
        lower_layout.addWidget(self.group_table, 1)
        # Tabs rather than a split: the inspector shares the lower half of the
        # workbench with the selected rows, too little height for both parts.
        self.tabs = QTabWidget()
        self.tabs.addTab(self.bars, "Beliefs about the victim (Table III)")
        self.tabs.addTab(lower, "Victim's group")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.tabs, 1)
        self.row: int | None = None
        self.distributions: dict[str, np.ndarray] = {}

    def clear(self) -> None:
        """Back to the empty state (a new run or dataset)."""
        self.row = None
        self.distributions = {}
        self.heading.setText(HEADING_EMPTY)
        self.bars.clear_victim()
        self.group_label.setText("")
        self.group_table.setRowCount(0)

    def show_victim(self, release, result, view, row: int) -> None:
        """Show row ``row`` (an index from 0, shown from 1) of a threat analysis on its release (``view`` is its
        RowView)."""
        self.row = row
        self.distributions = {key: np.asarray(getattr(result, key)[row], dtype=float) for key in DISTRIBUTIONS}
        true_index = int(result.s_true[row])
        self.bars.show_victim(view.s_names, self.distributions, true_index)
        group = int(view.group[row])
        known = ", ".join(result.known_qi) if result.known_qi else "nothing"
        values = ", ".join(f"{c} = {view.frame[c].iloc[row]}" for c in result.known_qi)
        self.heading.setText(
            f"<b>Victim: row {row + 1}</b>, true {view.sensitive} <b>{view.s_names[true_index]}</b> (✔). For it the "
            f"attacker says {probability(view.p_A[row])}, the learner {probability(view.p_L[row])}: "
            f"Ti = {number(view.ti[row], 4)}.<br>"
            + LEGEND_HTML)
        self.heading.setToolTip(f"The attacker knows {known} of this person ({values}) and that the person is "
                                "in the table; the learner uses the same attributes but not that.")
        members = release.group_rows(group)
        published = published_text(release, group, [view.s_names[int(view.s_true[r])] for r in members])
        self.group_label.setText(f"Group {group + 1} ({len(members)} rows; their cleartext rows below, the victim "
                                 f"highlighted) is published as: {published}")
        self.group_table.show_rows(view, members, highlight=row)


def published_text(release, group: int, bag: list[str]) -> str:
    """How one group appears in the release: its cells, or (Anatomy) the bag ``bag`` of sensitive values."""
    if release.scheme == "vertical":
        return (f"exact quasi-identifiers; {release.sensitive} as the unordered bag "
                f"{{{', '.join(sorted(bag))}}} (who has which is hidden)")
    parts = []
    for c in release.qi:
        text = release.label(c, group)
        if text is None:
            values = release.cell_values(c, group)
            text = str(values[0]) if len(values) == 1 else f"{{{len(values)} values}}"
        parts.append(f"{c} {text}")
    return "; ".join(parts)
