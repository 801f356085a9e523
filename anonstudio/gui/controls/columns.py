"""Columns of the loaded table: one (:class:`ColumnCombo`) or a ticked set (:class:`ColumnPicker`)."""
from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QListWidget, QListWidgetItem, QWidget

from .labels import note_label
from .layout import narrow_combo

__all__ = ["ColumnCombo", "ColumnPicker"]


class ColumnCombo(QComboBox):
    """One column of the loaded table; the first entry means "the table's default" (an empty value)."""

    def __init__(self, empty_text: str = "(as marked in the table)", parent: QWidget | None = None):
        super().__init__(parent)
        self.empty_text = empty_text
        narrow_combo(self)
        self.set_columns([])

    def set_columns(self, columns: Iterable[str], counts: dict[str, int] | None = None) -> None:
        current = self.value()
        self.blockSignals(True)
        self.clear()
        self.addItem(self.empty_text, "")
        for c in columns:
            text = f"{c} ({counts[c]:,})" if counts and c in counts else str(c)
            self.addItem(text, str(c))
        self.blockSignals(False)
        self.set_value(current)

    def value(self) -> str:
        data = self.currentData()
        return str(data) if data else ""

    def set_value(self, value: str | None) -> None:
        index = self.findData(value or "")
        if index < 0 and value:  # a column the table does not have: show it, validation names it
            self.addItem(f"{value} (not in the table)", value)
            index = self.count() - 1
        self.setCurrentIndex(max(index, 0))


class ColumnPicker(QListWidget):
    """A ticked subset of the table's columns (in table order).

    Signals
    -------
    changed()
        The ticked set changed.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None, *, empty_text: str = ""):
        super().__init__(parent)
        self.setSelectionMode(QAbstractItemView.NoSelection)
        self.setMinimumHeight(80)
        self.setMaximumHeight(170)
        self._filling = False
        self.itemChanged.connect(self._item_changed)
        #: Shown under the list while nothing is ticked (what an empty choice means).
        self.hint = note_label(f"Nothing ticked: {empty_text}." if empty_text else "")
        # A parent from the start (the form moves it under the list): shown parentless, the hint would flash up
        # as a window of its own and take the focus from the studio's window.
        self.hint.setParent(self)
        self.hint.setVisible(False)
        self.changed.connect(self._update_hint)

    def _update_hint(self) -> None:
        self.hint.setVisible(bool(self.hint.text()) and not self.value())

    def set_columns(self, columns: Iterable[str], counts: dict[str, int] | None = None) -> None:
        ticked = set(self.value())
        self._filling = True
        self.clear()
        for c in columns:
            item = QListWidgetItem(f"{c} ({counts[c]:,})" if counts and c in counts else str(c))
            item.setData(Qt.UserRole, str(c))
            item.setFlags(Qt.ItemIsUserCheckable | Qt.ItemIsEnabled)
            item.setCheckState(Qt.Checked if str(c) in ticked else Qt.Unchecked)
            self.addItem(item)
        self._filling = False
        self._update_hint()

    def value(self) -> tuple[str, ...]:
        return tuple(self.item(i).data(Qt.UserRole) for i in range(self.count())
                     if self.item(i).checkState() == Qt.Checked)

    def set_value(self, columns: Iterable[str]) -> None:
        wanted = [str(c) for c in columns]
        present = {self.item(i).data(Qt.UserRole) for i in range(self.count())}
        self._filling = True
        for c in wanted:  # keep names the table lacks visible, so validation can name them
            if c not in present:
                item = QListWidgetItem(f"{c} (not in the table)")
                item.setData(Qt.UserRole, c)
                item.setFlags(Qt.ItemIsUserCheckable | Qt.ItemIsEnabled)
                self.addItem(item)
        for i in range(self.count()):
            item = self.item(i)
            item.setCheckState(Qt.Checked if item.data(Qt.UserRole) in wanted else Qt.Unchecked)
        self._filling = False
        self.changed.emit()

    def _item_changed(self, _item: QListWidgetItem) -> None:
        if not self._filling:
            self.changed.emit()
