"""Tools › Compare methods: several method families on the open dataset, every release on one risk–utility plot.

The families that fit the dataset's kind are offered with a grid each, proposed
from the data (:func:`~anonstudio.studio.compare.proposed_grids`); the chosen grids
run in the background through the sweep machinery
(:func:`~anonstudio.studio.compare.run_comparison`), and the independent
evaluator measures every release on one scale. The plot puts every release at
(count-query error, risk at the chosen m), one marker shape per family, the
Pareto front (the releases no other beats on both) ringed and labelled; the
table lists every measure. Clicking a point or a row opens that run in its
family's tab, as if it had just run there.
"""
from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from ..data.io import atomic_write
from ..formatting import duration, number
from ..glossary import meaning
from ..methods.contract import get_method
from ..methods.sweep import parse_axis
from ..params import ParameterError
from ..studio.compare import Comparison, FamilyGrid, proposed_grids
from .controls import fill_measure_table, note_label, save_file_dialog, splitter
from .next_steps import next_step
from .plots import ExportablePlot

__all__ = ["CompareMethodsWindow", "FAMILY_STYLE", "RISK_CHOICES"]

#: Marker shape and colour per family: the shape alone tells the families apart (printed in grey, or for
#: readers who do not tell the colours apart).
FAMILY_STYLE = {
    "kmanon": ("o", "#0072B2"),
    "nonreciprocal": ("t", "#D55E00"),
    "rho": ("s", "#009E73"),
    "rt": ("d", "#CC79A7"),
    "group-anonymize": ("star", "#E69F00"),
}
#: The y axis: the summary key and its axis text (the x axis is always the count-query error).
RISK_CHOICES = {
    "prosecutor_risk": "prosecutor risk: chance the attacker picks the right record",
    "share_at_risk": "share at risk: people with fewer than k candidates",
}
FRONT = "Pareto front (no release is better on both)"
X_LABEL = "count-query error: mean relative error of 1,000 count queries (0 = exact answers)"
#: Table headings in words (the CSV keeps the keys).
HEADINGS = {
    "method": "method", "settings": "settings", "status": "status", "check": "own check",
    "prosecutor_risk": "prosecutor risk", "share_at_risk": "share at risk",
    "attribute_disclosure": "attribute disclosure", "prosecutor_risk_high": "prosecutor risk (upper bound)",
    "share_at_risk_high": "share at risk (upper bound)", "risk_counted": "risk counted",
    "count_query_error": "count-query error", "frequency_distortion": "frequency distortion",
    "front": "on the front",
}


class _FamilyBox(QGroupBox):
    """One family: ticked to compare, one line of values per axis of its grid."""

    def __init__(self, grid: FamilyGrid):
        super().__init__(grid.spec.title)
        self.grid = grid
        self.setCheckable(True)
        self.setChecked(True)
        self.edits: dict[str, QLineEdit] = {}
        form = QFormLayout(self)
        form.setContentsMargins(6, 2, 6, 2)
        for axis in grid.axes:
            edit = QLineEdit(", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in axis.values))
            edit.setToolTip(f"Values of {axis.name} to run: 5, 10, 20 · a range 2-4 · start:stop:count. Every "
                            "combination of this family's lines runs.")
            self.edits[axis.name] = edit
            label = {"rho": "ρ", "l": "ℓ"}.get(axis.name, axis.name)
            form.addRow(label, edit)

    def family_grid(self) -> FamilyGrid:
        """The grid as edited (ParameterError naming the family and the line that does not parse)."""
        axes = []
        for name, edit in self.edits.items():
            try:
                axes.append(parse_axis(self.grid.spec.params, name, edit.text()))
            except ParameterError as exc:
                raise ParameterError(f"{self.grid.spec.title}, {name}: {exc.problem or exc}") from None
        return FamilyGrid(self.grid.method, self.grid.base, tuple(axes))


class CompareMethodsWindow(QDialog):
    """Compare methods on the open dataset (see the module docstring)."""

    def __init__(self, window: Any):
        super().__init__(window)
        self.setWindowTitle("Compare methods — anonstudio")
        self.window_ = window
        self.data: Any = None
        self.job: Any = None
        self.comparison: Comparison | None = None
        #: (grid index, cell index) of each plotted point, per family series name.
        self._points: dict[str, list[tuple[int, int]]] = {}
        self._rows: list[tuple[int, int]] = []
        self._labels: list[pg.TextItem] = []
        #: The last run opened from this window (tests, and the status line).
        self.opened: Any = None

        self.families_box = QWidget()
        self.families_layout = QVBoxLayout(self.families_box)
        self.families_layout.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.families_box)
        self.boxes: list[_FamilyBox] = []

        self.m_spin = QSpinBox()
        self.m_spin.setRange(1, 4)
        self.m_spin.setValue(2)
        self.m_spin.setToolTip("The attacker knows this many of a person's items (and a table's quasi-identifiers).")
        self.k_spin = QSpinBox()
        self.k_spin.setRange(2, 1000)
        self.k_spin.setValue(5)
        self.k_spin.setToolTip("Share at risk counts the people with fewer than this many candidate records.")
        self.risk_combo = QComboBox()
        for key, text in RISK_CHOICES.items():
            self.risk_combo.addItem(text.split(":")[0], key)
            self.risk_combo.setItemData(self.risk_combo.count() - 1, meaning(key) or text, Qt.ToolTipRole)
        self.risk_combo.currentIndexChanged.connect(self.redraw)
        settings = QFormLayout()
        settings.addRow("attacker knows m items", self.m_spin)
        settings.addRow("at risk below k candidates", self.k_spin)
        settings.addRow("risk on the plot", self.risk_combo)

        self.run_button = QPushButton("Run comparison")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.setToolTip("Stop after the running release; the finished ones stay on the plot.")
        self.cancel_button.clicked.connect(self.cancel)
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setTextVisible(False)
        self.status_label = note_label("", "body")
        self.status_label.setWordWrap(True)
        self.csv_button = QPushButton("Save table (CSV)…")
        self.csv_button.setEnabled(False)
        self.csv_button.clicked.connect(self.save_csv)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(note_label(
            "<b>Which release should you publish?</b> Every setting below makes one release of the open dataset; "
            "each is then attacked the same way (the attacker knows m of a person's items) and asked the same "
            "count queries, whatever the method. Lower left is better: less risk, less error.", "body"))
        left_layout.addWidget(scroll, 1)
        left_layout.addLayout(settings)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        left_layout.addLayout(buttons)
        left_layout.addWidget(self.progress_bar)
        left_layout.addWidget(self.status_label)
        left_layout.addWidget(self.csv_button)
        left.setMinimumWidth(300)
        left.setMaximumWidth(380)

        self.plot = ExportablePlot("Risk against error, every release", x_label=X_LABEL,
                                   y_label=RISK_CHOICES["prosecutor_risk"],
                                   empty_text="Run the comparison: every release appears here as it is measured.",
                                   auto_legend=True)
        for family, (symbol, color) in FAMILY_STYLE.items():
            series = self.plot.add_series(get_method(family).title, kind="scatter", color=color, symbol=symbol,
                                          symbol_size=11)
            series.item.sigPointsClicked.connect(lambda _item, points, *_, name=series.name:
                                                 self._point_clicked(name, points))
        front = self.plot.add_series(FRONT, kind="line", color="#444444", symbol="o", symbol_size=20,
                                     width=1.5, style=Qt.DashLine, in_csv=False)
        front.item.setSymbolBrush(None)
        front.item.setSymbolPen(pg.mkPen("#444444", width=2))
        front.item.setZValue(-1)  # the family markers stay clickable on top of the rings
        self.table = QTableWidget(0, 0)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.table.setToolTip("Every release and every measure; click a row to open its run in its tab.")
        self.table.cellClicked.connect(lambda row, _col: self.open_row(row))
        right = splitter(Qt.Vertical, (self.plot, self.table), (3, 2))
        layout = QVBoxLayout(self)
        layout.addWidget(splitter(Qt.Horizontal, (left, right), (0, 1)))
        self.resize(1280, 720)
        self.refresh()

    # ------------------------------------------------------------ families
    def refresh(self) -> None:
        """Offer the families that fit the open dataset, with grids proposed from it."""
        if self.running:
            return
        data = getattr(self.window_, "dataset", None)
        if data is self.data and self.boxes:
            return
        self.data = data
        for box in self.boxes:
            box.setParent(None)
        self.boxes = []
        while self.families_layout.count():
            self.families_layout.takeAt(0)
        grids = proposed_grids(data, self.m_spin.value()) if data is not None else []
        for grid in grids:
            box = _FamilyBox(grid)
            self.boxes.append(box)
            self.families_layout.addWidget(box)
        self.families_layout.addStretch(1)
        name = getattr(data, "name", None)
        if data is None:
            self.status_label.setText("Open a dataset first (File › Open sample).")
        elif not grids:
            self.status_label.setText(f"No method makes releases of {name} that can be compared.")
        else:
            self.status_label.setText(f"{len(grids)} method families fit {name}.")
        self.run_button.setEnabled(bool(grids))

    def grids(self) -> list[FamilyGrid]:
        return [box.family_grid() for box in self.boxes if box.isChecked()]

    # ----------------------------------------------------------------- run
    @property
    def running(self) -> bool:
        return self.job is not None and not self.job.state.finished

    def start(self) -> Any:
        """Run the ticked families' grids in the background; returns the job (None when nothing can start)."""
        from ..evaluate import EvaluateOptions
        from ..studio.compare import run_comparison

        try:
            grids = self.grids()
        except ParameterError as exc:
            self.status_label.setText(f"<b>Fix the grid first:</b> {exc}")
            return None
        if not grids:
            self.status_label.setText("Tick at least one method family.")
            return None
        m = self.m_spin.value()
        # ρ's promise is about attackers who know m items: its base follows the chosen m.
        grids = [FamilyGrid(g.method, _with_m(g.base, m) if g.method == "rho" else g.base, g.axes) for g in grids]
        options = EvaluateOptions(m=m, k=self.k_spin.value())
        data, runner = self.data, self.window_.runner
        try:
            total = sum(len(g.cells()) for g in grids)
        except ParameterError as exc:
            self.status_label.setText(f"<b>Fix the grid first:</b> {exc}")
            return None

        def job(progress):
            runner.wait_for_kernels(progress)
            return run_comparison(data, grids, options, progress, keep_runs=True)

        self.comparison = None
        self.redraw()
        self.job = runner.submit(f"Compare methods ({getattr(data, 'name', 'dataset')})", job, key="compare-methods",
                                 on_partial=self._partial, on_done=self._done, on_error=self._failed)
        self.job.changed.connect(self._job_changed)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.status_label.setText(f"Running {total} releases…")
        return self.job

    def cancel(self) -> None:
        if self.running:
            self.job.cancel()

    def _job_changed(self) -> None:
        job = self.job
        if job is None or job.state.finished:
            return
        self.progress_bar.setValue(int(job.fraction * 1000))
        done = self.comparison.done if self.comparison is not None else 0
        eta = job.eta()
        left = f"; about {duration(eta)} left" if eta is not None else ""
        total = self.comparison.cells_total if self.comparison is not None else 0
        count = f"{done} of {total} releases measured" if total else "starting"
        self.status_label.setText(f"{count}{left}. {job.status}")

    def _partial(self, comparison: Comparison) -> None:
        self.comparison = comparison
        self.redraw()

    def _done(self, comparison: Comparison | None, complete: bool) -> None:
        self.run_button.setEnabled(bool(self.boxes))
        self.cancel_button.setEnabled(False)
        self.progress_bar.setValue(1000 if complete else self.progress_bar.value())
        if comparison is not None:
            self.comparison = comparison
        self.redraw()
        c = self.comparison
        done = c.done if c is not None else 0
        total = c.cells_total if c is not None else 0
        if complete:
            self.status_label.setText(f"{done} releases measured in {duration(c.seconds)}. Click a point or a row "
                                      "to open that run in its tab.")
        else:
            self.status_label.setText(f"Stopped: {done} of {total} releases kept.")

    def _failed(self, exc: BaseException) -> None:
        self.run_button.setEnabled(bool(self.boxes))
        self.cancel_button.setEnabled(False)
        self.status_label.setText(f"<b>The comparison failed:</b> {exc}<br><b>What to do:</b> {next_step(str(exc))}")

    # ------------------------------------------------------------- drawing
    @property
    def risk_key(self) -> str:
        return self.risk_combo.currentData()

    def front(self) -> list[tuple[int, int]]:
        """(grid index, cell index) of the releases on the Pareto front of the plotted risk and the error."""
        return self.comparison.pareto(self.risk_key) if self.comparison is not None else []

    def redraw(self) -> None:
        c = self.comparison
        m = self.m_spin.value() if c is None else c.m
        risk = self.risk_key
        label = RISK_CHOICES[risk]
        if risk == "share_at_risk":
            label = label.replace("k candidates", f"{self.k_spin.value()} candidates")
        self.plot.set_y_label(f"{label} (m = {m}; 0 to 1)")
        self.plot.set_caption(f"{getattr(self.data, 'name', '')}: every release attacked by someone who knows {m} "
                              "items of a person")
        for item in self._labels:
            self.plot.plot_item.removeItem(item)
        self._labels = []
        self._points = {}
        by_family: dict[str, list[tuple[float, float, str, tuple[int, int]]]] = {}
        front = set(self.front())
        if c is not None:
            for g, r in c.points():
                x, y = r.summary.get("count_query_error"), r.summary.get(risk)
                if not _finite(x) or not _finite(y):
                    continue
                grid = c.grids[g]
                tip = (f"{grid.spec.title}, {r.cell.label()}\n{HEADINGS[risk]} {number(y)} · count-query error "
                       f"{number(x)}\nown check: {_check(r)}"
                       + ("\non the Pareto front" if (g, r.cell.index) in front else "")
                       + "\nclick to open this run in its tab")
                by_family.setdefault(grid.method, []).append((x, y, tip, (g, r.cell.index)))
        for family in FAMILY_STYLE:
            name = get_method(family).title
            points = by_family.get(family, [])
            self.plot.set_series(name, [p[0] for p in points], [p[1] for p in points],
                                 tips=[p[2] for p in points])
            self._points[name] = [p[3] for p in points]
        on = []
        if c is not None:
            for g, i in front:
                r = c.results[g].results[i]
                on.append((r.summary["count_query_error"], r.summary[risk], c.grids[g], r))
        on.sort(key=lambda p: (p[0], p[1]))
        self.plot.set_series(FRONT, [p[0] for p in on], [p[1] for p in on])
        xs = [p[0] for p in on]
        mid = (min(xs) + max(xs)) / 2 if xs else 0.0
        for i, (x, y, grid, r) in enumerate(on):
            # Labels point away from the plot's right edge (never clipped) and alternate above and below the
            # front, so that neighbours along it do not print over each other.
            anchor = (1.0 if x > mid and len(on) > 1 else 0.0, 1.15 if i % 2 == 0 else -0.15)
            text = pg.TextItem(f"{_short_title(grid.method)} {r.cell.label()}", color="#222222", anchor=anchor)
            text.setPos(x, y)
            self.plot.plot_item.addItem(text)
            self._labels.append(text)
        self._fill_table()
        self.csv_button.setEnabled(c is not None and c.done > 0)

    def _fill_table(self) -> None:
        c = self.comparison
        self._rows = []
        if c is None:
            self.table.setRowCount(0)
            return
        front = set(self.front())
        # What a reader compares first (risk and error), then how sure the figures are, then the families' own.
        keys = ["method", "settings", "prosecutor_risk", "share_at_risk", "count_query_error", "front",
                "frequency_distortion", "attribute_disclosure", "check", "status", "risk_counted",
                *c.family_measures()]
        rows = []
        for g, r in c.points():
            row = {"method": c.grids[g].spec.title, "settings": r.cell.label(), "status": r.status,
                   "check": _check(r), **r.summary, "front": "yes" if (g, r.cell.index) in front else ""}
            if "attribute_disclosure" in r.summary and not _finite(r.summary["attribute_disclosure"]):
                row["attribute_disclosure"] = "n/a (no sensitive values)"
            if "risk_counted" in r.summary:
                row["risk_counted"] = "exactly" if r.summary["risk_counted"] == 1.0 else "sampled (±0.01)"
            rows.append(row)
            self._rows.append((g, r.cell.index))
        fill_measure_table(self.table, keys, rows, heading=lambda k: HEADINGS.get(k, k))

    # ----------------------------------------------------------- open a run
    def _point_clicked(self, series: str, points: Any) -> None:
        if not len(points):
            return
        index = points[0].index()
        keys = self._points.get(series, [])
        if 0 <= index < len(keys):
            self.open_cell(*keys[index])

    def open_row(self, row: int) -> None:
        if 0 <= row < len(self._rows):
            self.open_cell(*self._rows[row])

    def open_cell(self, grid_index: int, cell_index: int) -> Any:
        """Show the run of one release in its family's tab (added to the tab's history) and switch to it."""
        c = self.comparison
        if c is None:
            return None
        result = c.results[grid_index].results.get(cell_index)
        method = c.grids[grid_index].method
        run = getattr(result, "run", None)
        try:
            bench = self.window_.workbench(method)
        except KeyError:
            bench = None
        if run is None or bench is None:
            self.status_label.setText("That run is not kept (it failed before it made a release).")
            return None
        if bench.dataset is not run.data:
            self.status_label.setText("The dataset changed since the comparison ran; run it again to open its runs.")
            return None
        bench.clear_results()
        bench.show_run(run)
        self.window_.tabs.setCurrentWidget(bench)
        self.opened = run
        self.status_label.setText(f"Opened {bench.spec.title}, {result.cell.label()} in its tab.")
        return run

    # -------------------------------------------------------------- export
    def csv_text(self) -> str:
        return self.comparison.to_csv_text() if self.comparison is not None else ""

    def save_csv(self) -> None:
        path = save_file_dialog(self, "Compared methods", "compared-methods.csv", (".csv",))
        if path is None:
            return
        with atomic_write(path) as fh:
            fh.write(self.csv_text())


def _with_m(params: Any, m: int) -> Any:
    import dataclasses

    return dataclasses.replace(params, m=m)


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(float(value))


def _check(result: Any) -> str:
    return result.check.removeprefix("Independent check ") if result.check else result.status


def _short_title(method: str) -> str:
    return {"kmanon": "σ-k^m", "nonreciprocal": "nonreciprocal", "rho": "ρ-uncertainty", "rt": "RT",
            "group-anonymize": "group"}.get(method, method)
