"""Compare parameter values: a sweep of one method over a grid, cells streaming into a table and plots.

Every method workbench has this tab (:class:`SweepView`); Tools > Compare opens
the same view for any method. The user picks a preset of the family (the
paper's figures) or a parameter to vary, optionally a second one to group the
curves by, and a number of seeds; the cells run in the background (this
machine, or a Dask cluster when a scheduler is set), each cell's ``summary()``
lands in the table, and the plot draws a measure against the varied parameter
(error bars over seeds). The second plot puts two measures against each
other and rings the Pareto front: the cells no other cell beats on both.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ..formatting import number
from ..methods.contract import MethodSpec
from ..methods.sweep import REASON, Axis, SweepResult, make_grid, parse_axis
from ..parallel import scheduler_address
from ..params import ParameterError, specs
from .controls import narrow_combo, note_label, save_file_dialog, splitter
from .figure_sweep import FigureSweep
from .next_steps import next_step
from .plots import PALETTE, ExportablePlot
from .scheme import restyle_plots
from .settings_dialog import configured_executor

__all__ = ["SweepView", "sweepable"]

NO_GROUP = "(none)"
FRONT = "Pareto front"


def sweepable(spec: MethodSpec) -> list[str]:
    """Parameters a sweep can vary: numbers, choices and switches (not files or columns), and any field a preset
    of the family varies (a number typed as text, such as an exact ρ)."""
    preset = {a.name for p in spec.sweeps for a in p.axes}
    return [p.name for p in specs(spec.params)
            if (p.kind in ("int", "float", "choice", "bool") or p.name in preset) and p.name != "seed"]


def _positions(xs: np.ndarray) -> np.ndarray:
    """x positions of a curve: the values themselves, numbers written as text too; else 0, 1, 2, ..."""
    try:
        return np.array([float(v) for v in xs], dtype=float)
    except (TypeError, ValueError):
        return np.arange(len(xs), dtype=float)


def _default_values(spec: MethodSpec, name: str) -> str:
    p = next(s for s in specs(spec.params) if s.name == name)
    if p.kind == "choice":
        return ",".join(map(str, p.choices))
    if p.kind == "bool":
        return "true,false"
    if p.kind not in ("int", "float"):  # a field a preset varies: that preset's values
        axis = next((a for preset in spec.sweeps for a in preset.axes if a.name == name), None)
        return ",".join(map(str, axis.values)) if axis is not None else str(p.default)
    base = p.default if p.default is not None else (p.minimum or 1)
    if p.kind == "int":
        values = sorted({max(int(p.minimum or 1), v) for v in (base // 2 or 1, base, base * 2)})
        if p.maximum is not None:
            values = [v for v in values if v <= p.maximum]
        return ",".join(map(str, values))
    lo = p.minimum if p.minimum is not None else base / 2
    hi = p.maximum if p.maximum is not None else base * 2
    return f"{lo:g}:{hi:g}:5"


def _value_text(value: Any) -> str:
    return f"{value:.12g}" if isinstance(value, float) else str(value)


class SweepView(QWidget):
    """The sweep controls, the cells table and the two plots; see the module docstring.

    Parameters
    ----------
    spec
        The method to sweep.
    context
        ``context() -> (dataset, base params)``: the data and the parameter panel's values now.
    submit
        ``submit(title, fn, on_partial=, on_done=, on_error=) -> job``: runs ``fn(progress)`` in the background.
    wait_for_kernels
        ``wait_for_kernels(progress)``: the sweep's job waits for the kernels compiled at start-up (the runner's).
    executor
        ``executor() -> None or an executor``, called on the sweep's worker
        thread (connecting to a cluster may take a while); default: the
        cluster of Tools › Settings (a Dask client) or None (cells one after
        another on this computer, each with the whole thread budget).

    Signals
    -------
    finished(object)
        The final :class:`~anonstudio.methods.sweep.SweepResult`.
    """

    finished = Signal(object)

    def __init__(self, spec: MethodSpec, context: Callable[[], tuple[Any, Any]], submit: Callable[..., Any],
                 executor: Callable[[], Any] | None = None, parent: QWidget | None = None, *,
                 wait_for_kernels: Callable[[Any], None] | None = None):
        super().__init__(parent)
        self.spec = spec
        self.context = context
        self.submit = submit
        self.executor = executor or configured_executor
        self.result: SweepResult | None = None
        # ``self.submit`` is read at each start (a caller may wrap it).
        self.sweep = FigureSweep(lambda *args, **kw: self.submit(*args, **kw), wait_for_kernels=wait_for_kernels,
                                 parent=self)
        self.sweep.partial.connect(self.show_result)
        self.sweep.finished.connect(self._done)
        self.sweep.failed.connect(self._failed)
        self.sweep.not_started.connect(self._not_started)
        self.sweep.running_changed.connect(self._set_running)
        #: A studio.cache.ResultCache (set by the main window): cells computed before are not run again.
        self.result_cache: Any = None
        names = sweepable(spec)

        self.preset_combo = narrow_combo(QComboBox(), 16)
        self.preset_combo.addItem("(choose below)", None)
        for preset in spec.sweeps:
            self.preset_combo.addItem(preset.title, preset)
        self.preset_combo.setToolTip("Sweeps of the paper's figures for this method; or choose your own below.")
        self.preset_combo.currentIndexChanged.connect(self._preset_chosen)
        self.x_combo = narrow_combo(QComboBox(), 12)
        self.group_combo = narrow_combo(QComboBox(), 12)
        self.group_combo.addItem(NO_GROUP, None)
        for name in names:
            self.x_combo.addItem(name, name)
            self.group_combo.addItem(name, name)
        self.x_values = QLineEdit()
        self.x_values.setToolTip("Values of the varied parameter: 5,10,20 · a range of whole numbers 1-5 · "
                                 "start:stop:count such as 0.5:0.95:10")
        self.group_values = QLineEdit()
        self.group_values.setToolTip("Values of the second parameter; one curve per value.")
        self.seeds = QSpinBox()
        self.seeds.setRange(1, 50)
        self.seeds.setToolTip("Repeat every cell with this many seeds (the base seed, +1, ...): the plots show the "
                              "mean with the smallest and largest value as error bars.")
        self.x_combo.currentIndexChanged.connect(lambda: self.x_values.setText(_default_values(spec, self.x_name)))
        self.group_combo.currentIndexChanged.connect(self._group_chosen)
        self.run_button = QPushButton("Run sweep")
        self.run_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.setToolTip("Stop after the running cells; the finished cells stay.")
        self.cancel_button.clicked.connect(self.cancel)
        self.status = note_label("", "body")

        self.y_combo = narrow_combo(QComboBox(), 14)
        self.y_combo.setToolTip("The measure drawn against the varied parameter.")
        self.y_combo.currentIndexChanged.connect(self.redraw)
        self.pareto_combo = narrow_combo(QComboBox(), 14)
        self.pareto_combo.setToolTip("The second measure of the trade-off plot (x); the first is the curve's.")
        self.pareto_combo.currentIndexChanged.connect(self.redraw)
        self.lower_box = QCheckBox("smaller is better")
        self.lower_box.setChecked(True)
        self.lower_box.setToolTip("For the Pareto front: whether a smaller value of the curve's measure is better "
                                  "(a loss) or a larger one (a privacy level).")
        self.lower_box.toggled.connect(self.redraw)
        # The two plots are built when this view is first shown or drawn in: most windows never open it, and
        # its plots were two of a workbench's every half dozen.
        self._curve: ExportablePlot | None = None
        self._tradeoff: ExportablePlot | None = None
        self.table = QTableWidget(0, 0)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSortingEnabled(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.csv_button = QPushButton("Save table (CSV)…")
        self.csv_button.setEnabled(False)
        self.csv_button.clicked.connect(self._save_csv)

        form = QFormLayout()
        form.setRowWrapPolicy(QFormLayout.WrapLongRows)
        form.addRow("Preset", self.preset_combo)
        form.addRow("Vary", self.x_combo)
        form.addRow("values", self.x_values)
        form.addRow("Curves by", self.group_combo)
        form.addRow("values", self.group_values)
        form.addRow("Seeds", self.seeds)
        shown = QFormLayout()
        shown.setRowWrapPolicy(QFormLayout.WrapLongRows)
        shown.addRow("Curve of", self.y_combo)
        shown.addRow("against", self.pareto_combo)
        shown.addRow("", self.lower_box)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button, 1)
        buttons.addWidget(self.cancel_button)
        controls = QWidget()
        controls_layout = QVBoxLayout(controls)
        controls_layout.setContentsMargins(0, 0, 0, 0)
        controls_layout.addWidget(note_label("<b>Compare parameter values.</b> The other parameters are those on "
                                             "the right; every cell is a complete run with its own check.",
                                             "body"))
        controls_layout.addLayout(form)
        controls_layout.addLayout(buttons)
        controls_layout.addWidget(self.status)
        controls_layout.addLayout(shown)
        controls_layout.addStretch(1)
        controls.setMaximumWidth(250)

        self._plots_page = QWidget()
        QVBoxLayout(self._plots_page).setContentsMargins(0, 0, 0, 0)
        table_box = QWidget()
        table_layout = QVBoxLayout(table_box)
        table_layout.setContentsMargins(0, 0, 0, 0)
        table_layout.addWidget(self.table, 1)
        table_layout.addWidget(self.csv_button, 0, Qt.AlignLeft)
        self.views = QTabWidget()
        self.views.addTab(self._plots_page, "Plots")
        self.views.addTab(table_box, "Every cell (table)")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(controls)
        layout.addWidget(self.views, 1)
        if spec.sweeps:
            self.preset_combo.setCurrentIndex(1)
        elif names:
            self.x_values.setText(_default_values(spec, self.x_name))

    # ------------------------------------------------------------ plots
    @property
    def curve(self) -> ExportablePlot:
        """The chosen measure against the varied parameter, a curve per value of the second one."""
        self._build_plots()
        return self._curve

    @property
    def tradeoff(self) -> ExportablePlot:
        """Two measures against each other, every cell a point, the Pareto front ringed."""
        self._build_plots()
        return self._tradeoff

    def showEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        self._build_plots()
        super().showEvent(event)

    def _build_plots(self) -> None:
        if self._curve is not None:
            return
        self._curve = ExportablePlot("Measure vs value", x_label="parameter value", y_label="measure",
                                     empty_text="Run a sweep: each cell adds a point.", auto_legend=True)
        self._tradeoff = ExportablePlot("Trade-off", x_label="measure", y_label="measure",
                                        empty_text="Two measures against each other appear here; the Pareto front "
                                                   "(cells no other cell beats on both) is ringed.", auto_legend=True)
        self._tradeoff.add_series("cells", kind="scatter", color="#9db7d3", symbol="o")
        front = self._tradeoff.add_series(FRONT, kind="line", color="#D55E00", symbol="o", symbol_size=11)
        front.item.setSymbolBrush(None)
        front.item.setSymbolPen(dict(color="#D55E00", width=2))
        self._plots_page.layout().addWidget(splitter(Qt.Horizontal, (self._curve, self._tradeoff)))
        restyle_plots(self.window(), only_new=True)  # in the scheme the window has now

    # ------------------------------------------------------------ choices
    @property
    def x_name(self) -> str:
        return self.x_combo.currentData() or ""

    @property
    def group_name(self) -> str | None:
        return self.group_combo.currentData()

    def _group_chosen(self) -> None:
        name = self.group_name
        self.group_values.setEnabled(name is not None)
        self.group_values.setText(_default_values(self.spec, name) if name else "")

    def _preset_chosen(self) -> None:
        preset = self.preset_combo.currentData()
        if preset is None:
            return
        x_axis = preset.axes[0]
        self.x_combo.setCurrentIndex(max(self.x_combo.findData(x_axis.name), 0))
        self.x_values.setText(",".join(_value_text(v) for v in x_axis.values))
        group = next((a for a in preset.axes[1:] if a.name == preset.group), None)
        self.group_combo.setCurrentIndex(max(self.group_combo.findData(group.name if group else None), 0))
        self.group_values.setText(",".join(map(str, group.values)) if group else "")
        self.seeds.setValue(preset.seeds)
        self._preferred = preset.measures

    def axes(self) -> list[Axis]:
        """The axes the controls describe (ParameterError names a bad value)."""
        axes = [parse_axis(self.spec.params, self.x_name, self.x_values.text())]
        if self.group_name is not None and self.group_name != self.x_name:
            axes.append(parse_axis(self.spec.params, self.group_name, self.group_values.text()))
        return axes

    def grid(self) -> tuple[list[Axis], int] | None:
        """The axes and seeds the controls describe, or None while they do not parse (project files)."""
        try:
            return self.axes(), self.seeds.value()
        except ParameterError:
            return None

    def set_grid(self, axes: Sequence[Axis], seeds: int) -> None:
        """Show a saved grid in the controls (its first axis varies along x, a second one draws one curve per
        value)."""
        if not axes:
            return
        self.x_combo.setCurrentIndex(max(self.x_combo.findData(axes[0].name), 0))
        self.x_values.setText(",".join(_value_text(v) for v in axes[0].values))
        group = axes[1] if len(axes) > 1 else None
        self.group_combo.setCurrentIndex(max(self.group_combo.findData(group.name if group else None), 0))
        self.group_values.setText(",".join(_value_text(v) for v in group.values) if group else "")
        self.seeds.setValue(seeds)

    # ---------------------------------------------------------------- run
    @property
    def job(self):
        """The sweep's current job (None before the first)."""
        return self.sweep.job

    def start(self) -> None:
        data, base = self.context()
        if data is None or base is None:
            self.status.setText("Load a dataset and set valid parameters first.")
            return
        try:
            axes = self.axes()
            cells = make_grid(base, axes, self.seeds.value())
        except ParameterError as exc:
            self.status.setText(f"<span style='color:#b00020'>{exc}</span>")
            return
        address = scheduler_address() if self.executor is configured_executor else None
        self.result = None
        self._clear()
        self.status.setText(f"{len(cells)} cells to run" + (f" on the Dask cluster at {address}." if address
                                                             else "."))
        self.sweep.start(f"{self.spec.title}: sweep of {len(cells)} cells", self.spec, data, cells, axes=axes,
                         result_cache=self.result_cache, executor=self.executor,
                         executor_text=f"connecting to {address}" if address else "")

    def cancel(self) -> None:
        self.sweep.stop()

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)

    def _done(self, result: SweepResult, complete: bool) -> None:
        self.show_result(result)
        failed = sum(r.status not in ("done", "unverified") for r in result.ordered())
        self.status.setText(f"{result.done} of {len(result.cells)} cells finished in {result.seconds:.1f} s"
                            + (f"; {failed} did not finish or broke their promise (see the table)" if failed else "")
                            + ("" if result.complete else " — stopped early: the finished cells are shown."))
        self.finished.emit(result)

    def _not_started(self) -> None:
        self.status.setText("The sweep was stopped before its first cell.")

    def _failed(self, exc: BaseException) -> None:
        self.status.setText(f"The sweep failed: {exc}. What to do: {next_step(str(exc))}")

    # ------------------------------------------------------------ showing
    def _clear(self) -> None:
        self.table.setRowCount(0)
        self.table.setColumnCount(0)
        if self._curve is not None:
            self._curve.clear_data()
            self._tradeoff.clear_data()
        self.csv_button.setEnabled(False)

    def show_result(self, result: SweepResult) -> None:
        self.result = result
        measures = result.measures()
        for combo in (self.y_combo, self.pareto_combo):
            current = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(measures)
            preferred = [m for m in getattr(self, "_preferred", ()) if m in measures]
            index = combo.findText(current)
            if index < 0 and preferred:
                index = combo.findText(preferred[0 if combo is self.y_combo else min(1, len(preferred) - 1)])
            combo.setCurrentIndex(max(index, 0))
            combo.blockSignals(False)
        self._fill_table(result)
        self.csv_button.setEnabled(bool(result.results))
        self.redraw()

    def _fill_table(self, result: SweepResult) -> None:
        rows = result.rows()
        keys = [a.name for a in result.axes] + (["seed"] if any("seed" in r for r in rows) else []) + \
            ["status"] + result.measures() + [REASON]
        self.table.setSortingEnabled(False)
        self.table.setColumnCount(len(keys))
        self.table.setHorizontalHeaderLabels(keys)
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, key in enumerate(keys):
                value = row.get(key)
                text = "" if value is None else (number(value) if isinstance(value, (int, float)) and
                                                 not isinstance(value, bool) else str(value))
                item = QTableWidgetItem(text)
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    item.setData(Qt.EditRole, float(value))
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.table.setItem(r, c, item)
        self.table.setSortingEnabled(True)

    def redraw(self) -> None:
        result = self.result
        if result is None:
            return
        y = self.y_combo.currentText()
        x = result.axes[0].name if result.axes else self.x_name
        group = result.axes[1].name if len(result.axes) > 1 else None
        self.curve.set_x_label(x)
        self.curve.set_y_label(y)
        series = result.series(x, y, group)
        wanted = {(f"{group} = {g}" if group else y): data for g, data in series.items()}
        for name in list(self.curve.series):
            if name not in wanted:
                self.curve.set_series(name, [], [])
        for i, (name, (xs, mean, lo, hi)) in enumerate(sorted(wanted.items(), key=lambda kv: str(kv[0]))):
            if name not in self.curve.series:
                self.curve.add_series(name, kind="line", color=PALETTE[i % len(PALETTE)], symbol="o",
                                      error_bars=True)
            positions = _positions(xs)
            self.curve.set_series(name, positions, mean, low=lo, high=hi,
                                  tips=[f"{x} = {v}: {y} = {number(m)}" for v, m in zip(xs, mean)])
        self.curve.fit_y_below_legend()
        self._draw_tradeoff(result, y, self.pareto_combo.currentText())

    def _draw_tradeoff(self, result: SweepResult, y: str, x: str) -> None:
        self.tradeoff.set_x_label(x)
        self.tradeoff.set_y_label(y)
        cells = [r for r in result.ordered() if x in r.summary and y in r.summary]
        xs = np.array([float(r.summary[x]) for r in cells])
        ys = np.array([float(r.summary[y]) for r in cells])
        tips = [r.cell.label() for r in cells]
        self.tradeoff.set_series("cells", xs, ys, tips=tips)
        if x == y or len(cells) < 2:
            self.tradeoff.set_series(FRONT, [], [])
            return
        lower = self.lower_box.isChecked()
        # The varied parameter's direction is unknown; the x measure counts as a loss (smaller is better).
        front = set(result.pareto({y: lower, x: True}))
        on = sorted((float(r.summary[x]), float(r.summary[y])) for r in cells if r.cell.index in front)
        self.tradeoff.set_series(FRONT, [p[0] for p in on], [p[1] for p in on])

    def _save_csv(self) -> None:
        if self.result is None:
            return
        path = save_file_dialog(self, "Sweep table", f"{self.spec.name}-sweep.csv", (".csv",))
        if path is None:
            return
        from ..data.io import atomic_write

        with atomic_write(path) as fh:
            fh.write(self.result.to_csv_text())
