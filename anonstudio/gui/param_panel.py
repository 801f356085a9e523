"""A parameter form built from a params dataclass (``anonstudio.params``).

Each field declared with :func:`anonstudio.params.param` becomes one row,
by its kind:

* ``choice`` -> combo box (labels shown, per-choice tooltips on the items)
* ``bool`` -> check box; ``int`` / ``float`` -> spin box with the range, step
  and decimals (large integers with thousands separators); ``str`` -> line edit
* ``path`` -> :class:`~anonstudio.gui.controls.FileRow`
* ``column`` / ``columns`` -> a combo / a ticked list of the loaded table's
  columns (:meth:`ParamPanel.set_dataset`)
* ``levels`` -> one :class:`~anonstudio.gui.controls.LevelsTable` per
  section, a column per field, a row per level
* ``column_paths`` -> :class:`~anonstudio.gui.controls.ColumnPathsEditor`
* ``optional=True`` -> a check box in front of a number; unchecked means None
* ``section`` -> rows grouped under a heading; ``advanced=True`` -> under the
  collapsed "Advanced settings"; ``enabled_when`` -> greyed out otherwise

After each edit the panel builds the dataclass and runs
:func:`anonstudio.params.validate` (ranges, then the class's ``check()``);
a problem is shown under the form in red, the field at fault is marked, and
Run stays disabled until it is fixed.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..params import ParameterError, ParamSpec, is_enabled, specs, validate
from .controls import ColumnCombo, ColumnPathsEditor, ColumnPicker, FileRow, LevelsTable, narrow_combo, note_label
from .undo import ParamHistory

__all__ = ["ParamPanel"]

_INT_LIMIT = 2**31 - 1
_FLOAT_INT_LIMIT = 2**53


class _Field:
    """One parameter's editor and how to read and write it (levels fields share a LevelsTable)."""

    def __init__(self, spec: ParamSpec, on_change, levels: LevelsTable | None = None):
        self.spec = spec
        self.enable_box: QCheckBox | None = None
        self.levels = levels
        self.editor = levels if levels is not None else self._make_editor(spec)
        if levels is None:
            self.editor.setToolTip(spec.tooltip)
            self.editor.setObjectName(f"param_{spec.name}")
            self._connect(on_change)
        if spec.optional and spec.kind in ("int", "float", "str"):
            self.enable_box = QCheckBox()
            self.enable_box.setObjectName(f"param_{spec.name}_set")
            self.enable_box.setToolTip(f"Unchecked: {spec.none_means or spec.label + ' is not set'}.\n\n"
                                       f"{spec.tooltip}")
            self.enable_box.toggled.connect(self.editor.setEnabled)
            self.enable_box.toggled.connect(lambda _=None: on_change())
        self.set_value(spec.default)

    @staticmethod
    def _make_editor(spec: ParamSpec) -> QWidget:
        kind = spec.kind
        if kind == "choice":
            box = QComboBox()
            labels = spec.choice_labels or tuple(str(c) for c in spec.choices)
            for i, (label, value) in enumerate(zip(labels, spec.choices)):
                box.addItem(label, value)
                if spec.choice_tooltips:
                    box.setItemData(i, spec.choice_tooltips[i], Qt.ToolTipRole)
            return narrow_combo(box)
        if kind == "bool":
            return QCheckBox()
        if kind == "int":
            lo = int(spec.minimum) if spec.minimum is not None else -_INT_LIMIT
            hi = int(spec.maximum) if spec.maximum is not None else _INT_LIMIT
            if max(abs(lo), abs(hi)) > _INT_LIMIT:
                # QSpinBox holds 32-bit ints; larger budgets need a double spin box without decimals.
                box = QDoubleSpinBox()
                box.setDecimals(0)
                box.setRange(max(lo, -_FLOAT_INT_LIMIT), min(hi, _FLOAT_INT_LIMIT))
            else:
                box = QSpinBox()
                box.setRange(lo, hi)
            box.setGroupSeparatorShown(True)
            box.setSingleStep(int(spec.step or 1))
            box.setAccelerated(True)
            return box
        if kind == "float":
            box = QDoubleSpinBox()
            decimals = spec.decimals if spec.decimals is not None else _decimals_for(spec)
            box.setDecimals(decimals)
            box.setRange(spec.minimum if spec.minimum is not None else -1e12,
                         spec.maximum if spec.maximum is not None else 1e12)
            box.setSingleStep(spec.step or 10.0 ** -min(decimals, 2))
            box.setAccelerated(True)
            return box
        if kind == "path":
            return FileRow(spec.label, spec.file_filter, empty_text=spec.none_means or "no file")
        if kind == "column":
            return ColumnCombo(f"({spec.none_means})" if spec.none_means else "(none)")
        if kind == "columns":
            return ColumnPicker(empty_text=spec.none_means)
        if kind == "column_paths":
            return ColumnPathsEditor(spec.label, spec.file_filter)
        return QLineEdit()

    def _connect(self, on_change) -> None:
        editor = self.editor
        if isinstance(editor, QComboBox):
            editor.currentIndexChanged.connect(lambda _=None: on_change())
        elif isinstance(editor, QCheckBox):
            editor.toggled.connect(lambda _=None: on_change())
        elif isinstance(editor, (QSpinBox, QDoubleSpinBox)):
            editor.valueChanged.connect(lambda _=None: on_change())
        elif isinstance(editor, (FileRow, ColumnPicker, ColumnPathsEditor)):
            editor.changed.connect(on_change)
        else:
            editor.textChanged.connect(lambda _=None: on_change())

    def row_widget(self) -> QWidget:
        if self.enable_box is None:
            return self.editor
        holder = QWidget()
        layout = QHBoxLayout(holder)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.enable_box)
        layout.addWidget(self.editor, 1)
        return holder

    def value(self) -> Any:
        if self.enable_box is not None and not self.enable_box.isChecked():
            return None
        editor = self.editor
        kind = self.spec.kind
        if self.levels is not None:
            return self.levels.value(self.spec.name)
        if isinstance(editor, (FileRow, ColumnPicker, ColumnPathsEditor)):
            return editor.path() if isinstance(editor, FileRow) else editor.value()
        if isinstance(editor, ColumnCombo):
            value = editor.value()
            return None if (self.spec.optional and not value) else value
        if isinstance(editor, QComboBox):
            return editor.currentData()
        if isinstance(editor, QCheckBox):
            return editor.isChecked()
        if isinstance(editor, QSpinBox):
            return int(editor.value())
        if isinstance(editor, QDoubleSpinBox):
            return int(round(editor.value())) if kind == "int" else float(editor.value())
        return editor.text()

    def set_value(self, value: Any) -> None:
        if self.enable_box is not None:
            self.enable_box.setChecked(value is not None)
            self.editor.setEnabled(value is not None)
        editor = self.editor
        if self.levels is not None:
            self.levels.set_value(self.spec.name, value or ())
            return
        if isinstance(editor, FileRow):
            editor.set_path(value)
        elif isinstance(editor, (ColumnPicker, ColumnPathsEditor)):
            editor.set_value(value or ())
        elif isinstance(editor, ColumnCombo):
            editor.set_value(value)
        elif value is None:
            return
        elif isinstance(editor, QComboBox):
            index = editor.findData(value)
            if index >= 0:
                editor.setCurrentIndex(index)
        elif isinstance(editor, QCheckBox):
            editor.setChecked(bool(value))
        elif isinstance(editor, (QSpinBox, QDoubleSpinBox)):
            editor.setValue(value)
        else:
            editor.setText(str(value))

    def set_enabled(self, enabled: bool) -> None:
        if self.levels is not None:
            return
        if self.enable_box is not None:
            self.enable_box.setEnabled(enabled)
            self.editor.setEnabled(enabled and self.enable_box.isChecked())
        else:
            self.editor.setEnabled(enabled)

    def mark_invalid(self, invalid: bool) -> None:
        if self.levels is not None:
            return
        self.editor.setProperty("invalid", "true" if invalid else "false")
        style = self.editor.style()
        style.unpolish(self.editor)
        style.polish(self.editor)


def _decimals_for(spec: ParamSpec) -> int:
    """Enough decimals to show the smallest meaningful value of the range."""
    candidates = [abs(v) for v in (spec.minimum, spec.step, spec.default) if isinstance(v, (int, float)) and v]
    if not candidates:
        return 3
    smallest = min(candidates)
    return int(min(max(2, math.ceil(-math.log10(smallest)) + 1), 8))


class ParamPanel(QWidget):
    """A validated form for one params dataclass, with Run and Cancel buttons.

    Parameters
    ----------
    params_cls
        A dataclass whose fields were declared with :func:`anonstudio.params.param`.
    run_text
        Caption of the Run button.
    title
        Heading above the form.

    Signals
    -------
    run_requested(object)
        The Run button was pressed; carries the validated params instance.
    cancel_requested()
        The Cancel button was pressed.
    params_changed(object)
        Any edit that leaves the form valid; carries the params instance.
    edited()
        Any edit, valid or not.
    """

    run_requested = Signal(object)
    cancel_requested = Signal()
    params_changed = Signal(object)
    edited = Signal()

    def __init__(self, params_cls: type, parent: QWidget | None = None, *, run_text: str = "Run",
                 title: str | None = None):
        super().__init__(parent)
        self.params_cls = params_cls
        self.fields: dict[str, _Field] = {}
        self.labels: dict[str, QLabel] = {}
        self.levels_tables: dict[str, LevelsTable] = {}
        self._error: str = ""
        self._ready = False  # editors emit changes while being filled in
        self._can_run = True  # e.g. False while no dataset is loaded
        self._extra_problem: str = ""

        # Title, Run/Cancel and the problem line stay put; the fields scroll below them, so Run is
        # reachable whatever the dock's height and however many advanced settings are open.
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        if title:
            outer.addWidget(note_label(title, "heading"))
        buttons = QHBoxLayout()
        self.run_button = QPushButton(run_text)
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self._on_run)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.setToolTip("Stop what this tab is computing (the run and any comparison it started) "
                                      "and keep what it computed so far.")
        self.cancel_button.clicked.connect(self.cancel_requested)
        buttons.addWidget(self.run_button, 1)
        buttons.addWidget(self.cancel_button)
        self.button_row = buttons
        outer.addLayout(buttons)
        self.error_label = note_label("", "problem")
        self.error_label.setObjectName("param_error")
        self.error_label.setVisible(False)
        outer.addWidget(self.error_label)

        self.form_widget = QWidget()
        layout = QVBoxLayout(self.form_widget)
        layout.setContentsMargins(0, 0, 0, 0)
        self.forms: dict[tuple[str, bool], QFormLayout] = {}
        self.advanced_toggle = QToolButton()
        self.advanced_toggle.setText("Advanced settings")
        self.advanced_toggle.setCheckable(True)
        self.advanced_toggle.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.advanced_toggle.setArrowType(Qt.RightArrow)
        self.advanced_toggle.setAutoRaise(True)
        self.advanced_toggle.setToolTip("Settings most analyses can leave at their defaults.")
        self.basic_box = QWidget()
        basic_layout = QVBoxLayout(self.basic_box)
        basic_layout.setContentsMargins(0, 0, 0, 0)
        self.advanced_box = QWidget()
        advanced_layout = QVBoxLayout(self.advanced_box)
        advanced_layout.setContentsMargins(0, 0, 0, 0)
        self.sections: dict[tuple[str, bool], QWidget] = {}
        for spec in specs(params_cls):
            self._add_field(spec, basic_layout, advanced_layout)
        self.advanced_toggle.toggled.connect(self._show_advanced)
        self.advanced_box.setVisible(False)
        layout.addWidget(self.basic_box)
        if any(spec.advanced for spec in specs(params_cls)):
            layout.addWidget(self.advanced_toggle)
            layout.addWidget(self.advanced_box)
        else:
            self.advanced_toggle.hide()
        layout.addStretch(1)
        self.scroll = QScrollArea()
        self.scroll.setWidget(self.form_widget)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.NoFrame)
        # Forms scroll vertically but never get narrower than their own minimum.
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        outer.addWidget(self.scroll, 1)
        self._ready = True
        self._on_edit()
        #: Undo/redo of this form's edits (Edit › Undo, Ctrl+Z).
        self.history = ParamHistory(self)

    # ------------------------------------------------------------ building
    def _form(self, section: str, advanced: bool, basic_layout: QVBoxLayout,
              advanced_layout: QVBoxLayout) -> QFormLayout:
        key = (section, advanced)
        if key not in self.forms:
            target = advanced_layout if advanced else basic_layout
            if section:
                box = QGroupBox(section)
                form = QFormLayout(box)
                target.addWidget(box)
                self.sections[key] = box
            else:
                holder = QWidget()
                form = QFormLayout(holder)
                form.setContentsMargins(0, 0, 0, 0)
                target.addWidget(holder)
                self.sections[key] = holder
            form.setRowWrapPolicy(QFormLayout.WrapLongRows)
            form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
            self.forms[key] = form
        return self.forms[key]

    def _add_field(self, spec: ParamSpec, basic_layout: QVBoxLayout, advanced_layout: QVBoxLayout) -> None:
        form = self._form(spec.section, spec.advanced, basic_layout, advanced_layout)
        if spec.kind == "levels":
            key = f"{spec.section}:{spec.advanced}"
            table = self.levels_tables.get(key)
            if table is None:
                table = LevelsTable([])
                table.setObjectName(f"levels_{spec.name}")
                # Tab must leave the table for the next field (arrows move between its cells), or a keyboard
                # user is caught in it.
                table.table.setTabKeyNavigation(False)
                table.changed.connect(self._on_edit)
                self.levels_tables[key] = table
                form.addRow(table)
            table.fields.append(spec.name)
            table.kinds[spec.name] = spec.element or "float"
            table.headers.append(spec.label.replace(" per level", ""))
            table._values[spec.name] = []
            table.setToolTip("\n\n".join(filter(None, [table.toolTip(), f"{spec.label}: {spec.tooltip}"])))
            self.fields[spec.name] = _Field(spec, self._on_edit, levels=table)
            return
        field = _Field(spec, self._on_edit)
        self.fields[spec.name] = field
        label = QLabel(spec.label)
        label.setToolTip(spec.tooltip)
        label.setWordWrap(True)
        label.setBuddy(field.editor)
        self.labels[spec.name] = label
        if spec.kind in ("columns", "column_paths", "path"):
            # Lists and file choosers take the panel's full width, under their label.
            form.addRow(label)
            form.addRow(field.row_widget())
            if isinstance(field.editor, ColumnPicker):
                form.addRow(field.editor.hint)
        else:
            form.addRow(label, field.row_widget())

    # --------------------------------------------------------------- values
    def values(self) -> dict[str, Any]:
        """Current editor values by field name (no validation)."""
        return {name: field.value() for name, field in self.fields.items()}

    def params(self) -> Any:
        """The validated params instance; raises ParameterError when invalid."""
        try:
            obj = self.params_cls(**self.values())
        except ParameterError:
            raise
        except (ValueError, TypeError) as exc:
            raise ParameterError(str(exc)) from exc
        validate(obj)
        if self._extra_problem:
            raise ParameterError(self._extra_problem)
        return obj

    def set_params(self, params: Any) -> None:
        """Show the values of a params instance (e.g. from a project file); not an undo step."""
        with self.history.untracked():
            self.set_values({f.name: getattr(params, f.name) for f in dataclasses.fields(params)})

    def set_values(self, values: dict[str, Any]) -> None:
        """Show these values (by field name; others keep theirs), then validate once."""
        self._ready = False
        for name, value in values.items():
            if name in self.fields:
                self.fields[name].set_value(value)
        self._ready = True
        self._on_edit()

    def set_value(self, name: str, value: Any) -> None:
        self.fields[name].set_value(value)
        self._on_edit()

    def editor(self, name: str) -> QWidget:
        return self.fields[name].editor

    def set_dataset(self, dataset: Any) -> None:
        """Offer the loaded table's columns to the column fields (set-valued data has none)."""
        frame = getattr(dataset, "frame", None)
        if frame is None and hasattr(dataset, "table"):
            frame = dataset.table.frame
        columns = [str(c) for c in frame.columns] if frame is not None else []
        counts = {str(c): int(frame[c].nunique(dropna=True)) for c in frame.columns} if frame is not None else {}
        with self.history.untracked():
            self._ready = False
            for field in self.fields.values():
                if isinstance(field.editor, (ColumnCombo, ColumnPicker)):
                    field.editor.set_columns(columns, counts)
                elif isinstance(field.editor, ColumnPathsEditor):
                    field.editor.set_columns(columns)
            self._ready = True
            self._on_edit()

    def set_extra_problem(self, problem: str) -> None:
        """A problem outside the params (e.g. "load a table first"); blocks Run like an invalid field."""
        self._extra_problem = problem
        self._on_edit()

    @property
    def error(self) -> str:
        """The validation message shown, or "" when the form is valid."""
        return self._error

    def set_can_run(self, can_run: bool) -> None:
        """Allow Run (when the form is valid); workbenches disable it without data."""
        self._can_run = can_run
        self.run_button.setEnabled(can_run and not self._error)

    def set_running(self, running: bool) -> None:
        """Toggle Cancel while a job of this panel runs."""
        self.cancel_button.setEnabled(running)

    # ------------------------------------------------------------ internals
    def _show_advanced(self, on: bool) -> None:
        self.advanced_toggle.setArrowType(Qt.DownArrow if on else Qt.RightArrow)
        self.advanced_box.setVisible(on)
        self._fit_width()

    def _fit_width(self) -> None:
        """Keep the form's minimum width (plus a scroll bar) so no field is cut at the dock's edge."""
        self.setMinimumWidth(self.form_widget.minimumSizeHint().width()
                             + self.scroll.verticalScrollBar().sizeHint().width() + 12)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        super().showEvent(event)
        self._fit_width()

    def _refresh_levels(self, values: dict[str, Any]) -> None:
        for table in self.levels_tables.values():
            count, scalars = 1, {}
            for name in table.fields:
                spec = self.fields[name].spec
                if spec.per_level:
                    count_field, scalar_field = spec.per_level
                    count = int(values.get(count_field) or 1)
                    scalar = values.get(scalar_field)
                    scalars[name] = "" if scalar is None else (f"{scalar:g}" if isinstance(scalar, float)
                                                               else str(scalar))
            table.set_context(count, scalars)

    def _on_edit(self) -> None:
        if not self._ready:
            return
        values = self.values()
        self._refresh_levels(values)
        for name, field in self.fields.items():
            enabled = is_enabled(field.spec, values)
            field.set_enabled(enabled)
            if name in self.labels:
                self.labels[name].setEnabled(enabled)
        bad_field = None
        try:
            obj = self.params()
        except ParameterError as exc:
            self._error = str(exc)
            bad_field = exc.name
            obj = None
        else:
            self._error = ""
        for name, field in self.fields.items():
            field.mark_invalid(name == bad_field)
        self.error_label.setText(self._error)
        self.error_label.setVisible(bool(self._error))
        self.run_button.setEnabled(self._can_run and not self._error)
        self.edited.emit()
        if obj is not None:
            self.params_changed.emit(obj)

    def _on_run(self) -> None:
        try:
            obj = self.params()
        except ParameterError:
            self._on_edit()
            return
        self.run_requested.emit(obj)
