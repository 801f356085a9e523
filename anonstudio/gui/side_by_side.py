"""Original vs published, side by side: the reusable view of any release.

A workbench hands :meth:`SideBySideView.set_comparison` a Qt-free
:class:`~anonstudio.data.compare.Comparison` from its family's adapter
(``methods/group_anonymize/compare.py``, ``methods/kmanon/compare.py``)::

    from ...methods.group_anonymize.compare import comparison_of

    self.side_by_side = SideBySideView()           # in build_results, e.g. as a tab
    ...
    self.side_by_side.set_comparison(comparison_of(run.result))   # in show_result / on a finished run
    self.side_by_side.set_comparison(None)                         # in clear_results

The two tables show the same rows in the same order: they scroll, sort,
filter and select together. Selecting a row highlights its group (every row
of its equivalence class or cluster, in both tables) and its chip keys (the
partitions its items fell into, among the original items and the published
chips), and a line under the tables says what the release publishes about
it. "Only this group" shows the selected row's group alone.
"""
from __future__ import annotations

import html
from collections.abc import Callable

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QVBoxLayout, QWidget

from ..data.compare import Comparison, check_comparison
from ..data.rows import TransactionRows
from .controls import note_label, splitter
from .data_view import ITEMS_HINT, TEXT_HINT, RowsTable, SearchBar, go_to_row, run_search

__all__ = ["SideBySideView"]


class SideBySideView(QWidget):
    """Two synchronized row tables, original (left) and published (right); see the module docstring.

    Signals
    -------
    row_selected(int)
        The data row selected (-1: none).
    """

    row_selected = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.comparison: Comparison | None = None
        self._groups: np.ndarray | None = None
        self._syncing = False
        self.title = note_label("", "heading")
        self.search = SearchBar()
        self.group_only = QCheckBox("Only this group")
        self.group_only.setToolTip("Show only the rows in the selected row's group.")
        self.group_only.toggled.connect(self._group_only_toggled)
        self.sort_by_group = QCheckBox("Rows of a group together")
        self.sort_by_group.setToolTip("Order both tables by group, so that each group's rows are next to each other.")
        self.sort_by_group.toggled.connect(self._sort_by_group_toggled)
        self.original = RowsTable()
        self.published = RowsTable()
        self.tables = [self.original, self.published]
        self.original_label = note_label("<b>Original</b>")
        self.published_label = note_label("<b>Published</b>")
        self.detail = note_label("Select a row to see its group in both tables.")
        self.detail.setObjectName("side_by_side_detail")

        self.search.add_shortcuts(self)
        self.search.find.connect(lambda text: run_search(self.search, self.tables, text))
        self.search.go_to.connect(lambda row: go_to_row(self.search, self.tables, row))
        for table in self.tables:
            table.selectionModel().currentRowChanged.connect(lambda current, _previous, t=table:
                                                             self._row_changed(t, current))
            table.horizontalHeader().sortIndicatorChanged.connect(lambda column, order, t=table:
                                                                  self._sorted(t, column, order))
        self.original.verticalScrollBar().valueChanged.connect(self.published.verticalScrollBar().setValue)
        self.published.verticalScrollBar().valueChanged.connect(self.original.verticalScrollBar().setValue)

        heading = QHBoxLayout()
        heading.setContentsMargins(0, 0, 0, 0)
        heading.addWidget(self.title, 1)
        heading.addWidget(self.sort_by_group)
        heading.addWidget(self.group_only)
        sides = []
        for label, table in ((self.original_label, self.original), (self.published_label, self.published)):
            side = QWidget()
            side_layout = QVBoxLayout(side)
            side_layout.setContentsMargins(0, 0, 0, 0)
            side_layout.addWidget(label)
            side_layout.addWidget(table, 1)
            sides.append(side)
        self.splitter = splitter(Qt.Horizontal, sides, collapsible=False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(heading)
        layout.addWidget(self.search)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.detail)
        self.set_comparison(None)

    # ------------------------------------------------------------ content
    def set_comparison(self, comparison: Comparison | None) -> None:
        """Show ``comparison`` (None: empty tables)."""
        if comparison is not None:
            check_comparison(comparison)
        self.comparison = comparison
        self._groups = comparison.row_groups() if comparison is not None else None
        grouped = self._groups is not None
        for box in (self.group_only, self.sort_by_group):
            box.blockSignals(True)
            box.setChecked(False)
            box.blockSignals(False)
            box.setVisible(grouped)
        word = comparison.group_word if comparison is not None else "group"
        self.group_only.setText(f"Only this {word}")
        self.sort_by_group.setText(f"Rows of a {word} together")
        self.original.set_source(comparison.original if comparison is not None else None)
        self.published.set_source(comparison.published if comparison is not None else None)
        set_valued = comparison is not None and isinstance(comparison.original, TransactionRows)
        self.search.set_hint(ITEMS_HINT if set_valued else TEXT_HINT, "record" if set_valued else "row")
        self.search.show_result("", False)
        self.title.setText(html.escape(comparison.title) if comparison is not None else "No release to compare yet.")
        self.detail.setText("Select a row to see what the release publishes about it." if comparison is not None
                            else "")
        self._highlight(None)

    # ---------------------------------------------------------- selection
    def select_row(self, row: int) -> bool:
        """Select data row ``row`` in both tables (False if it is not shown)."""
        return all(table.select_data_row(row) for table in self.tables)

    def selected_row(self) -> int | None:
        return self.original.selected_data_row()

    def _row_changed(self, table: RowsTable, current) -> None:
        if self._syncing or self.comparison is None:
            return
        row = table.rows_model.data_row(current.row()) if current.isValid() else None
        self._syncing = True
        try:
            other = self.published if table is self.original else self.original
            if row is not None:
                other.select_data_row(row)
            else:
                other.clearSelection()
        finally:
            self._syncing = False
        if row is not None and self.group_only.isChecked():
            self._show_group(row)
        self._highlight(row)
        self.row_selected.emit(-1 if row is None else row)

    def _highlight(self, row: int | None) -> None:
        """Mark ``row``'s group and chip keys in both tables and describe it."""
        comparison = self.comparison
        keys: tuple[int, ...] = ()
        members = None
        if comparison is not None and row is not None:
            keys = comparison.highlight_keys(row)
            members = self._members(row)
            self.detail.setText(html.escape(comparison.describe(row)))
        for table in self.tables:
            table.delegate.set_highlight(keys)
            table.rows_model.set_marked(members)
            table.viewport().update()

    def _members(self, row: int) -> np.ndarray | None:
        if self._groups is None or self._groups[row] < 0:
            return None
        return np.flatnonzero(self._groups == self._groups[row])

    # ------------------------------------------------- order and filters
    def _sorted(self, table: RowsTable, column: int, order: Qt.SortOrder) -> None:
        """A header click sorted one table: give the other the same row order."""
        if self._syncing:
            return
        other = self.published if table is self.original else self.original
        other.rows_model.set_order(table.rows_model.permutation)
        self.sort_by_group.blockSignals(True)
        self.sort_by_group.setChecked(False)
        self.sort_by_group.blockSignals(False)

    def _sort_by_group_toggled(self, on: bool) -> None:
        if self._groups is None:
            return
        order = np.argsort(self._groups, kind="stable") if on else None
        for table in self.tables:
            table.rows_model.set_order(order)
            table.show_sorted_by(None if on else 0)  # no column holds this order
        row = self.selected_row()
        if row is not None:
            self.original.scrollTo(self.original.currentIndex(), RowsTable.PositionAtCenter)

    def _group_only_toggled(self, on: bool) -> None:
        row = self.selected_row()
        if on and row is not None and self._members(row) is not None:
            self._show_group(row)
        elif not on:
            self._syncing = True
            try:
                for table in self.tables:
                    table.rows_model.set_filter(None)
                if row is not None:
                    self.select_row(row)
            finally:
                self._syncing = False
            self.search.show_result("", False)

    def _show_group(self, row: int) -> None:
        """Filter both tables to ``row``'s group, keeping ``row`` selected."""
        members = self._members(row)
        if members is None:
            return
        self._syncing = True
        try:
            for table in self.tables:
                table.rows_model.set_filter(members)
            self.select_row(row)
        finally:
            self._syncing = False
        self.search.show_result(f"{len(members):,} rows in the selected row's {self.comparison.group_word}", True)


class LazySideBySide(SideBySideView):
    """A side-by-side view on a result tab that builds its comparison only when it is shown.

    Workbenches :meth:`offer` a way to build the comparison after every final
    result; building it (tens of milliseconds per hundred thousand rows) waits
    until the user opens the tab, so a run that nobody inspects costs nothing.
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._make: Callable[[], Comparison | None] | None = None

    def offer(self, make: Callable[[], Comparison | None] | None) -> None:
        """``make()`` builds the comparison of the newest result (None: nothing to compare)."""
        self._make = make
        if make is None:
            self.set_comparison(None)
        elif self.isVisible():
            self._build()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        super().showEvent(event)
        if self._make is not None:
            self._build()

    def _build(self) -> None:
        make, self._make = self._make, None
        try:
            comparison = make()
        except ValueError:  # a run that finished no level or kept no release
            comparison = None
        self.set_comparison(comparison)
