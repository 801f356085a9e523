"""A table model over a :class:`~anonstudio.data.rows.RowSource` that formats only the rows on screen.

The model keeps no per-row Python objects: the view order is one int64
permutation (sorting, filtering), highlighted rows one boolean array, and
the cells of recently shown rows a small cache. A view asks ``data()`` only
for visible cells, so a million records open as fast as ten.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

from ..data.rows import Match, RowSource
from .chips import CELL_ROLE, ChipDelegate, chips_text

__all__ = ["RowsModel", "ROW_ROLE", "configure_rows_view", "MISSING_TEXT", "GROUP_FILL"]

#: The role holding the data row number of a view row.
ROW_ROLE = Qt.UserRole + 2
#: How a missing value reads.
MISSING_TEXT = "missing"
#: Background of rows in the selected row's group.
GROUP_FILL = "#fff4d6"
#: Rows whose cells the model keeps formatted.
CACHE_ROWS = 512


class RowsModel(QAbstractTableModel):
    """Rows of a :class:`~anonstudio.data.rows.RowSource`, sortable and filterable.

    Parameters
    ----------
    source
        The rows (None: an empty model).
    """

    def __init__(self, source: RowSource | None = None, parent=None):
        super().__init__(parent)
        self.source: RowSource | None = None
        self._sorted: np.ndarray | None = None   # data rows in sort order (None: data order)
        self._subset: np.ndarray | None = None   # bool per data row: shown (None: all)
        self._order: np.ndarray | None = None    # view row -> data row (None: identity)
        self._marked: np.ndarray | None = None   # bool per data row: highlighted
        self._cache: dict[int, tuple] = {}
        self.sort_column, self.sort_descending = 0, False
        self.set_source(source)

    # ------------------------------------------------------------ content
    def set_source(self, source: RowSource | None) -> None:
        """Show ``source`` (sorting, filter and highlight are reset)."""
        self.beginResetModel()
        self.source = source
        self._sorted = self._subset = self._order = self._marked = None
        self._cache.clear()
        self.sort_column, self.sort_descending = 0, False
        self.endResetModel()

    def cells(self, row: int) -> tuple:
        """The (cached) cells of data row ``row``."""
        cells = self._cache.get(row)
        if cells is None:
            if len(self._cache) >= CACHE_ROWS:
                self._cache.clear()
            cells = self._cache[row] = self.source.cells(row)
        return cells

    # ------------------------------------------------------ order, filter
    def _rebuild_order(self) -> None:
        if self._subset is None:
            self._order = self._sorted
        elif self._sorted is None:
            self._order = np.flatnonzero(self._subset).astype(np.int64)
        else:
            self._order = self._sorted[self._subset[self._sorted]]

    def sort(self, column: int, order: Qt.SortOrder = Qt.AscendingOrder) -> None:
        """Sort by ``column`` if its source can (others keep the current order)."""
        if self.source is None:
            return
        descending = order == Qt.DescendingOrder
        permutation = self.source.sort_order(column, descending)
        if permutation is None:
            return
        self.set_order(permutation)
        self.sort_column, self.sort_descending = column, descending

    def set_order(self, permutation: np.ndarray | None) -> None:
        """Show the data rows in this order (None: data order); a filter still applies, the selection stays."""
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        old_rows = [self.data_row(i.row()) for i in old]
        if permutation is not None:
            permutation = np.asarray(permutation, dtype=np.int64)
            if len(permutation) == 0 or (permutation[0] == 0 and bool(np.all(np.diff(permutation) == 1))):
                permutation = None  # the identity: no array needed
        self._sorted = permutation
        self._rebuild_order()
        self._move_persistent(old, old_rows)
        self.layoutChanged.emit()

    @property
    def permutation(self) -> np.ndarray | None:
        """The row order set by sorting (None: data order)."""
        return self._sorted

    def set_filter(self, rows: np.ndarray | None) -> None:
        """Show only these data rows (None: all)."""
        self.beginResetModel()
        if rows is None or self.source is None:
            self._subset = None
        else:
            self._subset = np.zeros(self.source.n_rows, dtype=bool)
            self._subset[np.asarray(rows, dtype=np.int64)] = True
        self._rebuild_order()
        self.endResetModel()

    @property
    def filtered(self) -> bool:
        return self._subset is not None

    def _move_persistent(self, old: list[QPersistentModelIndex], old_rows: list[int]) -> None:
        for index, row in zip(old, old_rows):
            view_row = self.view_row(row)
            new = self.index(view_row, index.column()) if view_row is not None else QModelIndex()
            self.changePersistentIndex(index, new)

    # ------------------------------------------------------------ mapping
    def data_row(self, view_row: int) -> int:
        """The data row shown at ``view_row``."""
        return int(self._order[view_row]) if self._order is not None else view_row

    def view_row(self, data_row: int) -> int | None:
        """Where data row ``data_row`` is shown (None: filtered out or out of range)."""
        if self.source is None or not 0 <= data_row < self.source.n_rows:
            return None
        if self._order is None:
            return data_row
        hits = np.flatnonzero(self._order == data_row)
        return int(hits[0]) if len(hits) else None

    def order(self) -> np.ndarray:
        """View row -> data row, as an array (a copy for the identity)."""
        if self._order is not None:
            return self._order
        return np.arange(self.rowCount(), dtype=np.int64)

    def search(self, text: str) -> Match:
        return self.source.search(text)

    # ---------------------------------------------------------- highlight
    def set_marked(self, rows: np.ndarray | None) -> None:
        """Give these data rows the group background (None: none)."""
        if rows is None or self.source is None:
            self._marked = None
        else:
            self._marked = np.zeros(self.source.n_rows, dtype=bool)
            self._marked[np.asarray(rows, dtype=np.int64)] = True
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, self.columnCount() - 1),
                                  [Qt.BackgroundRole])

    # ------------------------------------------------------------- Qt API
    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        if parent.isValid() or self.source is None:
            return 0
        return len(self._order) if self._order is not None else self.source.n_rows

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        if parent.isValid() or self.source is None:
            return 0
        return len(self.source.columns)

    def data(self, index: QModelIndex, role: int = Qt.DisplayRole) -> Any:
        if not index.isValid() or self.source is None:
            return None
        row = self.data_row(index.row())
        if role == ROW_ROLE:
            return row
        if role == Qt.BackgroundRole:
            if self._marked is not None and self._marked[row]:
                return QBrush(QColor(GROUP_FILL))
            return None
        if role == Qt.TextAlignmentRole:
            right = index.column() in getattr(self.source, "right_aligned", ())
            return int((Qt.AlignRight if right else Qt.AlignLeft) | Qt.AlignVCenter)
        if role not in (Qt.DisplayRole, Qt.ToolTipRole, CELL_ROLE, Qt.ForegroundRole, Qt.FontRole):
            return None
        cell = self.cells(row)[index.column()]
        if role == CELL_ROLE:
            return cell
        if cell is None:
            if role == Qt.ForegroundRole:
                return QBrush(QColor("#777777"))
            if role == Qt.FontRole:
                font = QFont()
                font.setItalic(True)
                return font
            return MISSING_TEXT if role == Qt.DisplayRole else "A missing value."
        if role in (Qt.ForegroundRole, Qt.FontRole):
            return None
        if isinstance(cell, tuple):
            return chips_text(cell, 20 if role == Qt.DisplayRole else 60)
        return cell

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.DisplayRole) -> Any:  # noqa: N802
        if orientation != Qt.Horizontal or self.source is None or not 0 <= section < len(self.source.columns):
            return None
        if role == Qt.DisplayRole:
            return self.source.columns[section]
        if role == Qt.ToolTipRole:
            tips = getattr(self.source, "column_tips", ())
            return tips[section] if section < len(tips) and tips[section] else None
        return None


def configure_rows_view(view: QTableView, model: RowsModel, *, chips: bool = True) -> ChipDelegate | None:
    """Set up a table view for a :class:`RowsModel`: fixed row heights, no per-row sizing, chips painted.

    Nothing here looks at every row (no resize-to-contents), which is what
    keeps a million rows fast. Returns the chip delegate (None without chips).
    """
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectRows)
    view.setSelectionMode(QAbstractItemView.SingleSelection)
    view.setEditTriggers(QAbstractItemView.NoEditTriggers)
    view.setWordWrap(False)
    view.setAlternatingRowColors(True)
    view.setHorizontalScrollMode(QAbstractItemView.ScrollPerPixel)
    rows = view.verticalHeader()
    rows.setVisible(False)
    rows.setSectionResizeMode(QHeaderView.Fixed)
    rows.setDefaultSectionSize(view.fontMetrics().height() + 10)
    header = view.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.Interactive)
    header.setStretchLastSection(True)
    header.setHighlightSections(False)
    header.setDefaultSectionSize(110)
    delegate = None
    if chips:
        delegate = ChipDelegate(view)
        view.setItemDelegate(delegate)
    return delegate
