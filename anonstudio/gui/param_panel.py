"""A parameter form built from a params dataclass (``anonstudio.params``).

Each field declared with :func:`anonstudio.params.param` becomes one row:

* ``choices``          -> combo box (``choice_labels`` shown, values kept)
* ``bool``             -> check box
* ``int`` / ``float``  -> spin box with the declared range, step and decimals
* ``str``              -> line edit
* ``optional=True``    -> a check box in front; unchecked means ``None`` ("auto")
* ``advanced=True``    -> the row goes under a collapsed "Advanced settings" toggle

The label and the editor carry the field's plain-language tooltip. After each
edit the panel builds the dataclass and runs :func:`anonstudio.params.validate`
(plus the dataclass's own ``__post_init__`` checks); a problem is shown under
the form in red and the Run button is disabled until it is fixed.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..params import ParamSpec, ParameterError, specs, validate

__all__ = ["ParamPanel"]

_INT_LIMIT = 2**31 - 1
_FLOAT_INT_LIMIT = 2**53


class _Field:
    """One parameter's editor (+ optional "set" box) and how to read/write it."""

    def __init__(self, spec: ParamSpec, on_change):
        self.spec = spec
        self.enable_box: QCheckBox | None = None
        self.editor = self._make_editor(spec)
        self.editor.setToolTip(spec.tooltip)
        self.editor.setObjectName(f"param_{spec.name}")
        self._connect(on_change)
        if spec.optional:
            self.enable_box = QCheckBox()
            self.enable_box.setObjectName(f"param_{spec.name}_set")
            self.enable_box.setToolTip(f"Unchecked: {spec.label} is chosen automatically.\n\n{spec.tooltip}")
            self.enable_box.toggled.connect(self.editor.setEnabled)
            self.enable_box.toggled.connect(lambda _=None: on_change())
        self.set_value(spec.default)

    @staticmethod
    def _make_editor(spec: ParamSpec) -> QWidget:
        if spec.choices is not None:
            box = QComboBox()
            labels = spec.choice_labels or tuple(str(c) for c in spec.choices)
            for label, value in zip(labels, spec.choices):
                box.addItem(label, value)
            return box
        if spec.kind is bool:
            return QCheckBox()
        if spec.kind is int:
            lo = int(spec.minimum) if spec.minimum is not None else -_INT_LIMIT
            hi = int(spec.maximum) if spec.maximum is not None else _INT_LIMIT
            if max(abs(lo), abs(hi)) > _INT_LIMIT:
                # QSpinBox holds 32-bit ints; seeds up to 2**62 need a double
                # spin box without decimals (exact up to 2**53).
                box = QDoubleSpinBox()
                box.setDecimals(0)
                box.setRange(max(lo, -_FLOAT_INT_LIMIT), min(hi, _FLOAT_INT_LIMIT))
            else:
                box = QSpinBox()
                box.setRange(lo, hi)
            box.setSingleStep(int(spec.step or 1))
            box.setAccelerated(True)
            return box
        if spec.kind is float:
            box = QDoubleSpinBox()
            decimals = spec.decimals if spec.decimals is not None else _decimals_for(spec)
            box.setDecimals(decimals)
            box.setRange(spec.minimum if spec.minimum is not None else -1e12,
                         spec.maximum if spec.maximum is not None else 1e12)
            box.setSingleStep(spec.step or 10.0 ** -min(decimals, 2))
            box.setAccelerated(True)
            return box
        return QLineEdit()

    def _connect(self, on_change) -> None:
        editor = self.editor
        if isinstance(editor, QComboBox):
            editor.currentIndexChanged.connect(lambda _=None: on_change())
        elif isinstance(editor, QCheckBox):
            editor.toggled.connect(lambda _=None: on_change())
        elif isinstance(editor, (QSpinBox, QDoubleSpinBox)):
            editor.valueChanged.connect(lambda _=None: on_change())
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
        if isinstance(editor, QComboBox):
            return editor.currentData()
        if isinstance(editor, QCheckBox):
            return editor.isChecked()
        if isinstance(editor, QSpinBox):
            return int(editor.value())
        if isinstance(editor, QDoubleSpinBox):
            return int(round(editor.value())) if self.spec.kind is int else float(editor.value())
        return editor.text()

    def set_value(self, value: Any) -> None:
        if self.enable_box is not None:
            self.enable_box.setChecked(value is not None)
            self.editor.setEnabled(value is not None)
        if value is None:
            return
        editor = self.editor
        if isinstance(editor, QComboBox):
            index = editor.findData(value)
            if index >= 0:
                editor.setCurrentIndex(index)
        elif isinstance(editor, QCheckBox):
            editor.setChecked(bool(value))
        elif isinstance(editor, (QSpinBox, QDoubleSpinBox)):
            editor.setValue(value)
        else:
            editor.setText(str(value))


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
    check
        Optional ``check(params) -> message or None`` for rules across fields
        that the dataclass itself does not enforce.

    Signals
    -------
    run_requested(object)
        The Run button was pressed; carries the validated params instance.
    cancel_requested()
        The Cancel button was pressed.
    params_changed(object)
        Any edit that leaves the form valid; carries the params instance.
    """

    run_requested = Signal(object)
    cancel_requested = Signal()
    params_changed = Signal(object)

    def __init__(self, params_cls: type, parent: QWidget | None = None, *, run_text: str = "Run",
                 title: str | None = None, check: Callable[[Any], str | None] | None = None):
        super().__init__(parent)
        self.params_cls = params_cls
        self.check = check
        self.fields: dict[str, _Field] = {}
        self._error: str = ""
        self._ready = False  # editors emit changes while being filled in
        self._can_run = True  # e.g. False while no dataset is loaded

        layout = QVBoxLayout(self)
        if title:
            heading = QLabel(f"<b>{title}</b>")
            heading.setWordWrap(True)
            layout.addWidget(heading)
        basic = QFormLayout()
        self.advanced_toggle = QToolButton()
        self.advanced_toggle.setText("Advanced settings")
        self.advanced_toggle.setCheckable(True)
        self.advanced_toggle.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.advanced_toggle.setArrowType(Qt.RightArrow)
        self.advanced_toggle.setAutoRaise(True)
        self.advanced_toggle.setToolTip("Settings most analyses can leave at their defaults.")
        self.advanced_box = QWidget()
        advanced = QFormLayout(self.advanced_box)
        advanced.setContentsMargins(0, 0, 0, 0)
        for spec in specs(params_cls):
            field = _Field(spec, self._on_edit)
            self.fields[spec.name] = field
            label = QLabel(spec.label)
            label.setToolTip(spec.tooltip)
            label.setBuddy(field.editor)
            (advanced if spec.advanced else basic).addRow(label, field.row_widget())
        self.advanced_toggle.toggled.connect(self._show_advanced)
        self.advanced_box.setVisible(False)
        layout.addLayout(basic)
        if advanced.rowCount():
            layout.addWidget(self.advanced_toggle)
            layout.addWidget(self.advanced_box)
        else:
            self.advanced_toggle.hide()

        self.error_label = QLabel()
        self.error_label.setObjectName("param_error")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #b00020;")
        self.error_label.setVisible(False)
        layout.addWidget(self.error_label)

        buttons = QHBoxLayout()
        self.run_button = QPushButton(run_text)
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self._on_run)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.setToolTip("Stop the running analysis and keep what it computed so far.")
        self.cancel_button.clicked.connect(self.cancel_requested)
        buttons.addWidget(self.run_button, 1)
        buttons.addWidget(self.cancel_button)
        layout.addLayout(buttons)
        layout.addStretch(1)
        self._ready = True
        self._on_edit()

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
        problem = self.check(obj) if self.check is not None else None
        if problem:
            raise ParameterError(problem)
        return obj

    def set_params(self, params: Any) -> None:
        """Show the values of a params instance (e.g. from a project file)."""
        for f in dataclasses.fields(params):
            if f.name in self.fields:
                self.fields[f.name].set_value(getattr(params, f.name))
        self._on_edit()

    def set_value(self, name: str, value: Any) -> None:
        self.fields[name].set_value(value)
        self._on_edit()

    def editor(self, name: str) -> QWidget:
        return self.fields[name].editor

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

    def _on_edit(self) -> None:
        if not self._ready:
            return
        try:
            obj = self.params()
        except ParameterError as exc:
            self._error = str(exc)
            obj = None
        else:
            self._error = ""
        self.error_label.setText(self._error)
        self.error_label.setVisible(bool(self._error))
        self.run_button.setEnabled(self._can_run and not self._error)
        if obj is not None:
            self.params_changed.emit(obj)

    def _on_run(self) -> None:
        try:
            obj = self.params()
        except ParameterError:
            self._on_edit()
            return
        self.run_requested.emit(obj)

