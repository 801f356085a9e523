"""One run's losses and its independent check.

* :class:`LossAlongMerges` — the demographics loss (NCP = Rum) and the items
  loss (UL = Tum) after Cluster and after every merge, drawn live while the
  run merges, with the bound δ; a compared run dashed;
* :class:`MeasuresTable` — the run's figures (and a compared run's);
* the independent verifier's checks, one line each.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ....formatting import integer, number
from ....glossary import meaning
from ....methods.contract import MethodRun, verdict_head
from ...controls import note_label
from ...plots import PALETTE, ExportablePlot

__all__ = ["LossAlongMerges", "MeasuresTable", "RunView", "measure_rows"]

UL, NCP = "UL (Tum), items", "NCP (Rum), demographics"
UL_CMP, NCP_CMP = "UL, compared run", "NCP, compared run"


class LossAlongMerges(ExportablePlot):
    """Rum and Tum after Cluster (merge 0) and after each merge; the bound δ as a dashed line."""

    def __init__(self):
        super().__init__("Losses along the merges", x_label="merges", y_label="loss (0 = none, 1 = all)",
                         empty_text="The losses appear while the run merges clusters.", auto_legend=True)
        self.add_glossary("Tum")
        self.add_series(UL, kind="line", color=PALETTE[1])
        self.add_series(NCP, kind="line", color=PALETTE[0])
        self.add_series(UL_CMP, kind="line", color=PALETTE[1], style=Qt.DashLine, width=1.4)
        self.add_series(NCP_CMP, kind="line", color=PALETTE[0], style=Qt.DashLine, width=1.4)
        self.bound = pg.InfiniteLine(angle=0, movable=False, label="δ", labelOpts={"position": 0.97, "color": "#555"},
                                     pen=pg.mkPen("#777777", width=1, style=Qt.DashLine))
        self.bound.setVisible(False)
        self.plot_item.addItem(self.bound, ignoreBounds=True)
        self._live: list[tuple[float, float, float]] = []

    def clear_data(self) -> None:
        super().clear_data()
        self._live = []
        self.bound.setVisible(False)

    def add_live(self, merges: int, rum: float, tum: float | None) -> None:
        """A point of a running run (partial results every few merges)."""
        self._live.append((float(merges), float(rum), float("nan") if tum is None else float(tum)))
        pts = np.asarray(self._live)
        self.set_series(NCP, pts[:, 0], pts[:, 1])
        keep = np.isfinite(pts[:, 2])
        self.set_series(UL, pts[keep, 0], pts[keep, 2])
        self.fit_y_below_legend()

    def show_run(self, result, delta: float | None) -> None:
        self._live = []
        self._set(result, NCP, UL)
        self.bound.setVisible(delta is not None)
        if delta is not None:
            self.bound.setValue(delta)
        self.fit_y_below_legend()

    def show_compared(self, result) -> None:
        self._set(result, NCP_CMP, UL_CMP)
        self.fit_y_below_legend()

    def _set(self, result, ncp: str, ul: str) -> None:
        if result is None or result.initial_rum is None:
            self.set_series(ncp, [], [])
            self.set_series(ul, [], [])
            return
        rum = [result.initial_rum, *result.rum_trace]
        self.set_series(ncp, np.arange(len(rum), dtype=float), rum)
        if result.initial_tum is None:
            self.set_series(ul, [], [])
        else:
            tum = [result.initial_tum, *result.tum_trace]
            self.set_series(ul, np.arange(len(tum), dtype=float), tum)
        self.plot_item.enableAutoRange(x=True)


def measure_rows(result) -> list[tuple[str, str, str]]:
    """(label, value text, glossary key) of a result's figures, in reading order."""
    if result is None:
        return []
    sizes = result.cluster_sizes
    rows = [
        ("Demographics loss, Rum (NCP)", number(result.rum, 4), "Rum"),
        ("Items loss, Tum (UL)", number(result.tum, 4), "Tum"),
        ("Rum before any merge", number(result.initial_rum, 4), "Rum"),
        ("Tum before any merge", number(result.initial_tum, 4), "Tum"),
        ("Clusters", integer(result.n_clusters), "cluster"),
        ("Largest cluster (people)", integer(sizes.max()) if len(sizes) else "n/a", "max_cluster_size"),
        ("Smallest cluster (people)", integer(sizes.min()) if len(sizes) else "n/a", "k"),
        ("Merges", integer(result.merges), "merges"),
    ]
    rows += [(f"ARE of workload {name}", number(value, 4), f"are_{name}") for name, value in result.are.items()]
    published = ("no: the bound cannot be met" if result.feasible is False else
                 "no: the run was stopped, the clusters so far are shown" if not result.complete else "yes")
    rows.append(("Published", published, "bound"))
    rows.append(("Seconds", number(sum(result.seconds.values()), 3), ""))
    return rows


class MeasuresTable(QTableWidget):
    """The figures of the shown run and, when chosen, of a compared run."""

    def __init__(self):
        super().__init__(0, 2)
        self.setObjectName("rt_measures")
        self.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(22)
        self.setWordWrap(False)
        self.show_results(None)

    def show_results(self, result, compared=None, compared_label: str = "compared") -> None:
        mine = measure_rows(result)
        other = {label: value for label, value, _ in measure_rows(compared)}
        headers = ["measure", "this run"] + ([compared_label] if compared is not None else [])
        self.setColumnCount(len(headers))
        self.setHorizontalHeaderLabels(headers)
        self.setRowCount(len(mine))
        for r, (label, value, key) in enumerate(mine):
            cells = [label, value] + ([other.get(label, "")] if compared is not None else [])
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                tip = meaning(key, "rt") if key else ""
                if tip:
                    item.setToolTip(tip)
                self.setItem(r, c, item)
        header = self.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.Stretch)
        for c in range(1, len(headers)):
            header.setSectionResizeMode(c, QHeaderView.ResizeToContents)


class RunView(QWidget):
    """The loss plot on the left; the figures and the independent check on the right."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.plot = LossAlongMerges()
        self.measures = MeasuresTable()
        self.check_heading = note_label("<b>Independent check</b>: runs after the anonymization.", "body")
        self.check_heading.setObjectName("rt_check_heading")
        self.checks = QListWidget()
        self.checks.setObjectName("rt_checks")
        self.checks.setToolTip("Separate code re-reads the published table and checks every promise.")
        self.checks.setWordWrap(True)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        inner = QSplitter(Qt.Vertical)
        inner.addWidget(self.measures)
        checks = QWidget()
        checks_layout = QVBoxLayout(checks)
        checks_layout.setContentsMargins(0, 0, 0, 0)
        checks_layout.addWidget(self.check_heading)
        checks_layout.addWidget(self.checks, 1)
        inner.addWidget(checks)
        inner.setChildrenCollapsible(False)
        right_layout.addWidget(inner)
        split = QSplitter(Qt.Horizontal)
        split.addWidget(self.plot)
        split.addWidget(right)
        split.setChildrenCollapsible(False)
        split.setSizes([3, 2])  # proportions: the plot gets three fifths
        right.setMinimumWidth(260)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)

    def clear(self) -> None:
        self.plot.clear_data()
        self.measures.show_results(None)
        self.show_check(None)

    def show_check(self, run: MethodRun | None) -> None:
        """The verdict of ``run``'s independent check (the contract's words) and one line per check."""
        self.checks.clear()
        head = verdict_head(run) if run is not None else ""
        if not head:
            self.check_heading.setText("<b>Independent check</b>: runs after the anonymization.")
            return
        self.check_heading.setText(f"<b>{head}</b>" + (f": {run.status_reason()}" if run.status == "cancelled"
                                                          else ""))
        for line in run.verification.lines() if run.verification is not None else []:
            mark = "✘ " if line.startswith("FAILED") else "✔ " if line.startswith("ok") else "• "
            item = QListWidgetItem(mark + line.removeprefix("ok: ").removeprefix("FAILED: "))
            item.setToolTip(line)
            self.checks.addItem(item)

