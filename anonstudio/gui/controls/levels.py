"""Per-level values of a parameter form (k and σ per itemset size ℓ)."""
from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

__all__ = ["LevelsTable"]


class LevelsTable(QWidget):
    """Per-level values: one row per level ℓ = 1..count, one column per levels field.

    "Same for every level" (the default) leaves every field empty, meaning the
    scalar value applies to all levels. Read-only info columns (e.g. the
    samples γ a σ needs) are added with :meth:`add_info_column`.

    Signals
    -------
    changed()
        A value or the "same" box changed.
    """

    changed = Signal()

    def __init__(self, columns: Sequence[tuple[str, str, str]], parent: QWidget | None = None):
        """``columns``: (field name, header, element kind "int" or "float") per levels field."""
        super().__init__(parent)
        self.fields = [c[0] for c in columns]
        self.kinds = {c[0]: c[2] for c in columns}
        self.headers = [c[1] for c in columns]
        self.info: list[tuple[str, Callable[[dict[str, str]], str]]] = []
        self.count = 1
        self.scalars: dict[str, str] = {}
        self._filling = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.same_box = QCheckBox("Same for every level")
        self.same_box.setChecked(True)
        self.same_box.setToolTip("Unchecked: give each level ℓ its own value in the table.")
        self.same_box.toggled.connect(self._same_toggled)
        self.table = QTableWidget(0, len(self.fields))
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setMaximumHeight(170)
        self.table.setMinimumWidth(120)
        self.table.cellChanged.connect(self._cell_changed)
        layout.addWidget(self.same_box)
        layout.addWidget(self.table)
        self._values: dict[str, list[str]] = {f: [] for f in self.fields}
        self._refresh()

    def add_info_column(self, header: str, text: Callable[[dict[str, str]], str]) -> None:
        """A read-only column computed from a row's values (field name -> text)."""
        self.info.append((header, text))
        self._refresh()

    def set_context(self, count: int, scalars: dict[str, str]) -> None:
        """The number of levels and the scalar value of each field (shown when "same" is ticked)."""
        self.count = max(int(count), 1)
        self.scalars = dict(scalars)
        self._refresh()

    def value(self, field: str) -> tuple:
        if self.same_box.isChecked():
            return ()
        convert = int if self.kinds[field] == "int" else float
        out = []
        for text in self._values[field][: self.count]:
            try:
                out.append(convert(float(text)) if convert is int and float(text) == int(float(text))
                           else convert(text))
            except ValueError:
                out.append(text)  # validation names the bad level
        return tuple(out)

    def set_value(self, field: str, values: Sequence) -> None:
        self._values[field] = [f"{v:g}" if isinstance(v, float) else str(v) for v in values]
        any_set = any(self._values[f] for f in self.fields)
        self._filling = True
        self.same_box.setChecked(not any_set)
        self._filling = False
        self._refresh()

    def _row_values(self, row: int) -> dict[str, str]:
        same = self.same_box.isChecked()
        out = {}
        for f in self.fields:
            values = self._values[f]
            if same or not values:
                out[f] = self.scalars.get(f, "")
            else:
                out[f] = values[row] if row < len(values) else values[-1]
        return out

    def _refresh(self) -> None:
        table = self.table
        self._filling = True
        table.blockSignals(True)
        table.setColumnCount(len(self.fields) + len(self.info))
        table.setHorizontalHeaderLabels(self.headers + [h for h, _ in self.info])
        table.setRowCount(self.count)
        table.setVerticalHeaderLabels([f"ℓ = {i}" for i in range(1, self.count + 1)])
        editable = not self.same_box.isChecked()
        for row in range(self.count):
            values = self._row_values(row)
            for col, f in enumerate(self.fields):
                item = QTableWidgetItem(values[f])
                flags = Qt.ItemIsSelectable | Qt.ItemIsEnabled
                if editable:
                    flags |= Qt.ItemIsEditable
                item.setFlags(flags)
                table.setItem(row, col, item)
            for j, (_, text) in enumerate(self.info):
                item = QTableWidgetItem(text(values))
                item.setFlags(Qt.ItemIsSelectable | Qt.ItemIsEnabled)
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                table.setItem(row, len(self.fields) + j, item)
        table.setEditTriggers(QAbstractItemView.AllEditTriggers if editable else QAbstractItemView.NoEditTriggers)
        table.blockSignals(False)
        self._filling = False

    def mark_invalid(self, field: str, level: int | None) -> None:
        """Colour the cell of ``field`` at ``level`` (1-based) red; None clears every mark."""
        for row in range(self.table.rowCount()):
            for col in range(len(self.fields)):
                item = self.table.item(row, col)
                if item is not None:
                    bad = level is not None and self.fields[col] == field and row == level - 1
                    item.setBackground(QColor("#f8d0d0") if bad else QColor(0, 0, 0, 0))

    def _same_toggled(self, same: bool) -> None:
        if self._filling:
            return
        if same:
            for f in self.fields:
                self._values[f] = []
        else:
            for f in self.fields:
                self._values[f] = [self.scalars.get(f, "")] * self.count
        self._refresh()
        self.changed.emit()

    def _cell_changed(self, row: int, col: int) -> None:
        if self._filling or col >= len(self.fields):
            return
        f = self.fields[col]
        values = [self._row_values(r)[f] for r in range(self.count)]
        values[row] = self.table.item(row, col).text().strip()
        self._values[f] = values
        self._refresh()
        self.changed.emit()
