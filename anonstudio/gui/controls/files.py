"""Choosing files in a parameter form: one file (:class:`FileRow`), a file per column (:class:`ColumnPathsEditor`)."""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from .dialogs import open_file_dialog
from .labels import ElidedLabel

__all__ = ["FileRow", "ColumnPathsEditor"]


class FileRow(QWidget):
    """A file chooser: "Choose…" button, the file's name, and a clear button.

    Signals
    -------
    changed()
        The chosen file changed (also when cleared).
    """

    changed = Signal()

    def __init__(self, title: str, file_filter: str = "All files (*)", *, clearable: bool = True,
                 empty_text: str = "no file", parent: QWidget | None = None):
        super().__init__(parent)
        self.title = title
        self.empty_text = empty_text
        self.file_filter = file_filter
        self._path: Path | None = None
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.button = QPushButton("Choose…")
        self.button.clicked.connect(self._choose)
        # A long file name must not widen the narrow parameters dock: it ends in "…" (the tooltip has the path).
        self.label = ElidedLabel()
        self.label.setText(empty_text)
        self.label.setProperty("role", "note")
        self.clear_button = QToolButton()
        self.clear_button.setText("×")
        self.clear_button.setToolTip("No file")
        self.clear_button.clicked.connect(lambda: self.set_path(None))
        layout.addWidget(self.button)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.clear_button)
        # Only once it has a parent: shown parentless, the button would flash up as a window of its own (and take
        # the focus from the studio's window).
        self.clear_button.setVisible(clearable)

    def path(self) -> Path | None:
        return self._path

    def set_path(self, path: str | Path | None) -> None:
        new = Path(path) if path else None
        changed = new != self._path
        self._path = new
        self.label.setText(new.name if new else self.empty_text)
        self.label.setToolTip(str(new) if new else "")
        self.clear_button.setEnabled(new is not None)
        if changed:
            self.changed.emit()

    def setToolTip(self, text: str) -> None:  # noqa: N802 (Qt naming)
        super().setToolTip(text)
        self.button.setToolTip(text)

    def _choose(self) -> None:
        start = self._path.parent if self._path else ""
        path = open_file_dialog(self, self.title, self.file_filter, start)
        if path is not None:
            self.set_path(path)


class ColumnPathsEditor(QWidget):
    """A file per column (e.g. a generalization hierarchy): one row per pair, add and remove buttons."""

    changed = Signal()

    def __init__(self, title: str, file_filter: str = "All files (*)", parent: QWidget | None = None):
        super().__init__(parent)
        self.title, self.file_filter = title, file_filter
        self.columns: list[str] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["column", "file"])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setMaximumHeight(110)
        self.table.verticalHeader().setDefaultSectionSize(22)
        buttons = QHBoxLayout()
        self.add_button = QPushButton("Add…")
        self.add_button.setToolTip("Choose a column, then its file.")
        self.add_button.clicked.connect(self._add)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self._remove)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        self._pairs: list[tuple[str, Path]] = []

    def set_columns(self, columns: Iterable[str]) -> None:
        self.columns = [str(c) for c in columns]

    def value(self) -> tuple[tuple[str, Path], ...]:
        return tuple(self._pairs)

    def set_value(self, pairs: Iterable[tuple[str, Path]]) -> None:
        self._pairs = [(str(c), Path(p)) for c, p in pairs]
        self.table.setRowCount(len(self._pairs))
        for r, (c, p) in enumerate(self._pairs):
            self.table.setItem(r, 0, QTableWidgetItem(c))
            item = QTableWidgetItem(p.name)
            item.setToolTip(str(p))
            self.table.setItem(r, 1, item)
        self.changed.emit()

    def _add(self) -> None:
        from PySide6.QtWidgets import QInputDialog

        choices = [c for c in self.columns if c not in {p[0] for p in self._pairs}] or self.columns
        if not choices:
            return
        column, ok = QInputDialog.getItem(self, self.title, "Column:", choices, 0, False)
        if not ok:
            return
        path = open_file_dialog(self, f"{self.title}: {column}", self.file_filter)
        if path is not None:
            self.set_value([*self._pairs, (column, path)])

    def _remove(self) -> None:
        row = self.table.currentRow()
        if 0 <= row < len(self._pairs):
            self.set_value(self._pairs[:row] + self._pairs[row + 1:])
