"""Tools › Compare runs: finished runs of several methods (and settings) on one dataset, side by side.

Each workbench keeps its runs of the active dataset (its history bar); this
window lists them all, a table of every chosen run's summary measures, and a
trade-off plot of any two measures with the Pareto front ringed (the runs no
other run beats on both). The table saves as CSV, the plot as PNG, SVG or CSV.
"""
from __future__ import annotations

import csv
import io
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from ..data.io import atomic_write
from ..glossary import meaning
from ..methods.sweep import pareto_front
from ..params import to_dict
from .controls import fill_measure_table, narrow_combo, note_label, save_file_dialog, splitter
from .method_workbench import MethodWorkbench
from .plots import ExportablePlot

__all__ = ["CompareRunsWindow"]

FRONT = "Pareto front"
#: Numeric parameters that are not privacy or utility settings (they do not change what is promised).
NOT_SETTINGS = {"seed", "threads", "verify_samples", "exact_budget", "max_memory_gib", "max_sample_factor",
                "etv_samples", "exact_tv_limit", "tracked_rows"}


class CompareRunsWindow(QDialog):
    """The finished runs of every workbench on the active dataset, compared on their summary measures."""

    def __init__(self, window: Any):
        super().__init__(window)
        self.setWindowTitle("Compare runs — anonstudio")
        self.window_ = window
        self.runs: list[tuple[str, Any]] = []  # (label, MethodRun)
        self.list = QListWidget()
        self.list.setToolTip("Every finished run of every tab on the active dataset; tick the ones to compare.")
        self.list.itemChanged.connect(self.redraw)
        self.table = QTableWidget(0, 0)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSortingEnabled(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.x_combo = narrow_combo(QComboBox(), 16)
        self.y_combo = narrow_combo(QComboBox(), 16)
        self.x_lower = QCheckBox("smaller is better")
        self.y_lower = QCheckBox("smaller is better")
        for box in (self.x_lower, self.y_lower):
            box.setChecked(True)
            box.setToolTip("For the Pareto front: a loss or a risk (smaller is better), or a privacy level or a "
                           "utility (larger is better).")
            box.toggled.connect(self.redraw)
        for combo in (self.x_combo, self.y_combo):
            combo.currentIndexChanged.connect(self.redraw)
        self.plot = ExportablePlot("Trade-off between runs", x_label="measure", y_label="measure",
                                   empty_text="Tick two or more runs that share a measure.", auto_legend=True)
        self.plot.add_series("runs", kind="scatter", color="#0072B2", symbol="o")
        front = self.plot.add_series(FRONT, kind="line", color="#D55E00", symbol="o", symbol_size=12)
        front.item.setSymbolBrush(None)
        front.item.setSymbolPen(dict(color="#D55E00", width=2))
        self.csv_button = QPushButton("Save table (CSV)…")
        self.csv_button.clicked.connect(self.save_csv)
        refresh = QPushButton("Refresh")
        refresh.setToolTip("List the runs finished since this window opened.")
        refresh.clicked.connect(self.refresh)

        axes = QFormLayout()
        axes.addRow("x", self.x_combo)
        axes.addRow("", self.x_lower)
        axes.addRow("y", self.y_combo)
        axes.addRow("", self.y_lower)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(note_label("<b>Runs to compare</b> (every tab's history on this dataset). To vary "
                                         "one method's parameters over a grid, use its “Compare parameter "
                                         "values” tab.", "body"))
        left_layout.addWidget(self.list, 1)
        left_layout.addLayout(axes)
        buttons = QHBoxLayout()
        buttons.addWidget(refresh)
        buttons.addWidget(self.csv_button)
        left_layout.addLayout(buttons)
        right = splitter(Qt.Vertical, (self.plot, self.table))
        layout = QVBoxLayout(self)
        layout.addWidget(splitter(Qt.Horizontal, (left, right), (0, 1)))
        self.resize(1100, 650)
        self.refresh()

    # --------------------------------------------------------------- runs
    def refresh(self) -> None:
        """List every finished run of every method workbench on the active dataset (all ticked)."""
        self.list.blockSignals(True)
        self.list.clear()
        self.runs = []
        for bench in self.window_.built_workbenches():  # a tab never shown has no runs
            if not isinstance(bench, MethodWorkbench):
                continue
            for i, run in enumerate(bench.history):
                label = f"{bench.spec.title} {bench.run_label(run, i)}"
                self.runs.append((label, run))
                item = QListWidgetItem(label)
                item.setToolTip(label)
                item.setFlags(item.flags() | Qt.ItemIsUserCheckable)
                item.setCheckState(Qt.Checked)
                self.list.addItem(item)
        self.list.blockSignals(False)
        self.redraw()

    def chosen(self) -> list[tuple[str, Any]]:
        return [run for i, run in enumerate(self.runs) if self.list.item(i).checkState() == Qt.Checked]

    def rows(self) -> list[dict[str, Any]]:
        """One dict per chosen run: method, run label, status, its numeric parameters (the privacy settings:
        k, m, σ...), then its summary measures."""
        out = []
        for label, run in self.chosen():
            params = {k: v for k, v in to_dict(run.params).items()
                      if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in NOT_SETTINGS}
            out.append({"method": run.spec.name, "run": label, "status": run.status, **params, **run.summary()})
        return out

    def _varying(self, rows: list[dict], names: list[str]) -> list[str]:
        return [n for n in names if len({r.get(n) for r in rows if n in r}) > 1]

    def measures(self) -> list[str]:
        seen: dict[str, None] = {}
        for row in self.rows():
            for key, value in row.items():
                if key not in ("method", "run", "status") and isinstance(value, (int, float)):
                    seen.setdefault(key, None)
        return list(seen)

    # ------------------------------------------------------------- drawing
    def redraw(self) -> None:
        rows = self.rows()
        measures = self.measures()
        # By default: a setting that differs between the runs along x, a measure that differs along y.
        settings = {k for label, run in self.chosen() for k in to_dict(run.params)}
        varying = self._varying(rows, measures)
        x_default = next((m for m in varying if m in settings), measures[0] if measures else "")
        y_default = next((m for m in varying if m not in settings and m != "seconds"),
                         measures[1] if len(measures) > 1 else "")
        for combo, fallback in ((self.x_combo, x_default), (self.y_combo, y_default)):
            current = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            for name in measures:
                combo.addItem(name)
                combo.setItemData(combo.count() - 1, meaning(name) or f"{name} (a parameter or measure of the run)",
                                  Qt.ToolTipRole)
            index = combo.findText(current)
            combo.setCurrentIndex(index if index >= 0 else combo.findText(fallback))
            combo.blockSignals(False)
        self._fill_table(rows)
        self._draw(rows)
        self.csv_button.setEnabled(bool(rows))

    def _fill_table(self, rows: list[dict]) -> None:
        keys = ["method", "run", "status", *self.measures()]
        fill_measure_table(self.table, keys, rows)
        self.table.setSortingEnabled(True)

    def _draw(self, rows: list[dict]) -> None:
        x, y = self.x_combo.currentText(), self.y_combo.currentText()
        self.plot.set_x_label(x or "measure")
        self.plot.set_y_label(y or "measure")
        points = {i: row for i, row in enumerate(rows)
                  if isinstance(row.get(x), (int, float)) and isinstance(row.get(y), (int, float))}
        self.plot.set_series("runs", [float(points[i][x]) for i in points], [float(points[i][y]) for i in points],
                             tips=[points[i]["run"] for i in points])
        if not x or not y or x == y or len(points) < 2:
            self.plot.set_series(FRONT, [], [])
            return
        front = pareto_front(points, {x: self.x_lower.isChecked(), y: self.y_lower.isChecked()})
        on = sorted((float(points[i][x]), float(points[i][y])) for i in front)
        self.plot.set_series(FRONT, [p[0] for p in on], [p[1] for p in on])

    # -------------------------------------------------------------- export
    def csv_text(self) -> str:
        rows = self.rows()
        keys = ["method", "run", "status", *self.measures()]
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=keys, lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})
        return out.getvalue()

    def save_csv(self) -> None:
        path = save_file_dialog(self, "Compared runs", "compared-runs.csv", (".csv",))
        if path is None:
            return
        with atomic_write(path) as fh:
            fh.write(self.csv_text())
