"""The data view: every record or row of a dataset, as it was read.

* :class:`SearchBar` — find records by items (``12, 40``: records holding
  both) or rows by text (``occupation = Sales``), and jump to a record number;
* :class:`RowsTable` — a table view over a :class:`~anonstudio.gui.rows_model.RowsModel`
  with chips, sortable by clicking a header;
* :class:`DataView` — a dataset's view: a headline, the records (set-valued
  data) or the column summary and the rows (tables);
* :class:`DataViewWindow` / :class:`DataViews` — one window per dataset,
  opened from the datasets dock and View > Data view.

Only the rows on screen are formatted, so a million records open at once.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QIntValidator, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ..data.io import load_report
from ..data.kinds import kind_words
from ..data.rows import RowSource, TableRows, TransactionRows
from ..data.table import RTData, Table
from ..data.transactions import TransactionData
from ..formatting import integer
from .chips import GAP, chip_width
from .column_roles import ColumnSummaryModel, summary_view
from .controls import STYLE, fitting_size, note_label, splitter
from .rows_model import RowsModel, configure_rows_view

__all__ = ["SearchBar", "RowsTable", "DataView", "DataViewWindow", "DataViews", "rows_of", "headline"]

#: A column is never made wider than this by fitting it to its first rows.
MAX_COLUMN_WIDTH = 320
ITEMS_HINT = "Items to find, e.g. 12, 40 (records holding all of them)"
TEXT_HINT = "Text to find, or column = value"


def rows_of(dataset: Any) -> RowSource:
    """The row source the data view shows for a dataset (records of set-valued data, rows of a table)."""
    if isinstance(dataset, TransactionData):
        return TransactionRows(dataset, load_report(dataset).record_ids)
    if isinstance(dataset, Table):
        return TableRows(dataset)
    raise TypeError(f"no data view for {type(dataset).__name__}")


def headline(dataset: Any) -> str:
    """One line on a dataset: its size, and how it was read."""
    report = load_report(dataset)
    if isinstance(dataset, TransactionData):
        s = dataset.summary()
        parts = [f"{s.records:,} records", f"{s.items:,} distinct items",
                 f"{s.mean_length:.1f} items per record on average (largest {s.max_length:,})"]
        if s.empty_records:
            parts.append(f"{s.empty_records:,} empty")
    elif isinstance(dataset, Table):
        n_qi = len(dataset.quasi_identifiers)
        parts = [f"{dataset.n_rows:,} rows", f"{dataset.frame.shape[1]} columns",
                 f"{n_qi} quasi-identifier{'s' if n_qi != 1 else ''}",
                 "sensitive: " + (", ".join(map(str, dataset.sensitive)) or "none")]
    else:
        parts = [kind_words(type(dataset))]
    if report.format:
        parts.append(f"read as {report.format}")
    return " · ".join(parts)


class SearchBar(QWidget):
    """Find and go-to controls for one or more row tables.

    Signals
    -------
    find(str)
        Search for the text (empty: show every row).
    go_to(int)
        Jump to this row (its index from 0; the field takes its number from 1).
    """

    find = Signal(str)
    go_to = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.field = QLineEdit()
        self.field.setClearButtonEnabled(True)
        self.field.setToolTip("Enter finds the rows; Ctrl+F comes back here. For set-valued data, separate items "
                              "with commas to find the records holding all of them (the support of an itemset); "
                              "#17 finds record 17.")
        self.field.returnPressed.connect(lambda: self.find.emit(self.field.text()))
        self.find_button = QPushButton("Find")
        self.find_button.clicked.connect(lambda: self.find.emit(self.field.text()))
        self.all_button = QPushButton("Show all")
        self.all_button.setToolTip("Show every row again.")
        self.all_button.clicked.connect(self.show_all)
        self.all_button.setEnabled(False)
        self.goto_field = QLineEdit()
        self.goto_field.setPlaceholderText("number")
        self.goto_field.setValidator(QIntValidator(1, 2_000_000_000, self))
        self.goto_field.setMaximumWidth(self.fontMetrics().horizontalAdvance("0" * 10) + 16)
        self.goto_field.setToolTip("Record or row number (counted from 1); Enter jumps there. Ctrl+G comes here.")
        self.goto_field.returnPressed.connect(self._go)
        self.result = note_label("")
        self.result.setObjectName("search_result")
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.field, 1)
        top.addWidget(self.find_button)
        top.addWidget(self.all_button)
        top.addSpacing(12)
        self.goto_label = QLabel("Go to:")
        top.addWidget(self.goto_label)
        top.addWidget(self.goto_field)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.result)

    def add_shortcuts(self, owner: QWidget) -> None:
        """Ctrl+F and Ctrl+G reach the fields while the focus is anywhere in ``owner`` (the view around them).

        Not window-wide: two views in one window (a data view tab and a
        side-by-side tab) keep their own.
        """
        QShortcut(QKeySequence.Find, owner, self.field.setFocus, context=Qt.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence("Ctrl+G"), owner, self.goto_field.setFocus, context=Qt.WidgetWithChildrenShortcut)

    def set_hint(self, hint: str, noun: str = "record") -> None:
        self.field.setPlaceholderText(hint)
        self.goto_label.setText(f"Go to {noun}:")

    def show_all(self) -> None:
        self.field.clear()
        self.find.emit("")

    def _go(self) -> None:
        text = self.goto_field.text().strip()
        if text.isdigit():
            self.go_to.emit(int(text) - 1)

    def show_result(self, text: str, filtered: bool) -> None:
        self.result.setText(text)
        self.result.setVisible(bool(text))
        self.all_button.setEnabled(filtered)


class RowsTable(QTableView):
    """A table view of a :class:`RowsModel` (chips painted, header click sorts)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.rows_model = RowsModel(parent=self)
        self.delegate = configure_rows_view(self, self.rows_model)
        header = self.horizontalHeader()
        header.setSortIndicator(0, Qt.AscendingOrder)
        self.setSortingEnabled(True)
        header.sortIndicatorChanged.connect(self._indicator_changed)

    def set_source(self, source: RowSource | None) -> None:
        self.rows_model.set_source(source)
        self.horizontalHeader().setSortIndicator(0, Qt.AscendingOrder)
        if source is not None:
            self.fit_columns()

    def _indicator_changed(self, column: int, _order: Qt.SortOrder) -> None:
        """A column that cannot sort (the items) leaves the indicator where the rows' order comes from."""
        model = self.rows_model
        if model.source is not None and column != model.sort_column:
            self.show_sorted_by(model.sort_column, model.sort_descending)

    def show_sorted_by(self, column: int | None, descending: bool = False) -> None:
        """Put the header's sort indicator on ``column`` (None: the rows are in an order no column gives)."""
        self.rows_model.sort_column = -1 if column is None else column
        self.rows_model.sort_descending = descending
        header = self.horizontalHeader()
        header.blockSignals(True)
        header.setSortIndicator(-1 if column is None else column,
                                Qt.DescendingOrder if descending else Qt.AscendingOrder)
        header.blockSignals(False)

    def fit_columns(self) -> None:
        """Column widths from the headers and the first rows only (never from every row)."""
        model = self.rows_model
        metrics = self.fontMetrics()
        sample = [model.cells(model.data_row(r)) for r in range(min(model.rowCount(), 50))]
        last = len(model.source.columns) - 1
        for column, name in enumerate(model.source.columns):
            widths = [metrics.horizontalAdvance(name) + 28]
            for cells in sample:
                cell = cells[column]
                if isinstance(cell, tuple):
                    widths.append(sum(chip_width(chip, metrics) + GAP for chip in cell[:6]) + GAP + 8)
                elif cell is not None:
                    widths.append(metrics.horizontalAdvance(cell) + 16)
            if column == last and any(isinstance(cells[column], tuple) for cells in sample):
                continue  # a last column of chips stretches to the right edge
            self.setColumnWidth(column, min(max(widths), MAX_COLUMN_WIDTH))

    def select_data_row(self, row: int) -> bool:
        """Select and show data row ``row``; False if it is not shown (filtered out or no such row)."""
        view_row = self.rows_model.view_row(row)
        if view_row is None:
            return False
        index = self.rows_model.index(view_row, 0)
        self.setCurrentIndex(index)
        self.scrollTo(index, QTableView.PositionAtCenter)
        return True

    def selected_data_row(self) -> int | None:
        index = self.currentIndex()
        return self.rows_model.data_row(index.row()) if index.isValid() else None


def run_search(bar: SearchBar, tables: list[RowsTable], text: str) -> None:
    """Filter ``tables`` (which show the same rows) to the rows matching ``text``; say what was found."""
    model = tables[0].rows_model
    if model.source is None:
        return
    noun = "records" if isinstance(model.source, TransactionRows) else "rows"
    if not text.strip():
        for table in tables:
            table.rows_model.set_filter(None)
        bar.show_result("", False)
        return
    QApplication.setOverrideCursor(Qt.WaitCursor)
    try:
        match = model.search(text)
    finally:
        QApplication.restoreOverrideCursor()
    for table in tables:
        table.rows_model.set_filter(match.rows)
    total = model.source.n_rows
    bar.show_result(f"{integer(len(match.rows))} of {integer(total)} {noun}: {match.text}", True)


def go_to_row(bar: SearchBar, tables: list[RowsTable], row: int) -> None:
    """Select data row ``row`` in every table, showing all rows again if a search hides it."""
    model = tables[0].rows_model
    if model.source is None:
        return
    if not 0 <= row < model.source.n_rows:
        bar.show_result(f"There is no number {row + 1:,}: they run from 1 to {model.source.n_rows:,}.",
                        model.filtered)
        return
    if model.view_row(row) is None:
        bar.show_all()
    for table in tables:
        table.select_data_row(row)


class DataView(QWidget):
    """Everything in one dataset: see the module docstring."""

    def __init__(self, dataset: Any = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.dataset: Any = None
        self.title = note_label("", "heading")
        self.facts = note_label("")
        self.warnings = note_label("", "problem")
        self.search = SearchBar()
        self.table = RowsTable()
        self.search.add_shortcuts(self)
        self.search.find.connect(lambda text: run_search(self.search, [self.table], text))
        self.search.go_to.connect(lambda row: go_to_row(self.search, [self.table], row))
        self.rows_page = rows_page = QWidget()
        rows_layout = QVBoxLayout(rows_page)
        rows_layout.setContentsMargins(0, 0, 0, 0)
        rows_layout.addWidget(self.search)
        rows_layout.addWidget(self.table, 1)

        self.columns_model = ColumnSummaryModel(editable=False, parent=self)
        self.columns_view = summary_view(self.columns_model)
        columns_page = QWidget()
        columns_layout = QVBoxLayout(columns_page)
        columns_layout.setContentsMargins(0, 0, 0, 0)
        columns_layout.addWidget(note_label("<b>Columns</b> — roles are set in the Datasets dock; the methods use "
                                            "them unless told otherwise."))
        columns_layout.addWidget(self.columns_view, 1)
        self.columns_page = columns_page
        self.splitter = splitter(Qt.Vertical, (columns_page, rows_page), (2, 3), collapsible=False)

        self.items_table: RowsTable | None = None
        self.tabs: QTabWidget | None = None
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.facts)
        layout.addWidget(self.warnings)
        layout.addWidget(self.splitter, 1)
        if dataset is not None:
            self.set_dataset(dataset)

    def set_dataset(self, dataset: Any) -> None:
        """Show ``dataset`` (set-valued data, a table, or a table with a set per row)."""
        self.dataset = dataset
        table = dataset.table if isinstance(dataset, RTData) else dataset
        self.title.setText(str(getattr(dataset, "name", "dataset")))
        self.facts.setText(headline(table))
        warnings = load_report(table).warnings
        self.warnings.setText("\n".join(f"⚠ {w}" for w in warnings))
        self.warnings.setVisible(bool(warnings))
        is_table = isinstance(table, Table)
        self.columns_page.setVisible(is_table)
        self.columns_model.set_table(table if is_table else None)
        if is_table:
            self.search.set_hint(TEXT_HINT, "row")
        else:
            self.search.set_hint(ITEMS_HINT, "record")
        self.table.set_source(rows_of(table))
        self.search.show_result("", False)
        if isinstance(dataset, RTData):
            self._show_items(dataset.transactions)

    def set_roles(self, table: Table) -> None:
        """The same rows with new column roles (the datasets dock changed them)."""
        self.dataset = table
        self.facts.setText(headline(table))
        self.columns_model.set_table(table)

    def _show_items(self, transactions: TransactionData) -> None:
        """RT-data: the set of each row in a second tab beside the rows."""
        if self.items_table is None:
            self.items_table = RowsTable()
            self.tabs = QTabWidget()
            self.splitter.replaceWidget(1, self.tabs)
            self.tabs.addTab(self.rows_page, "Rows")
            self.tabs.addTab(self.items_table, "Items of each row")
        self.items_table.set_source(rows_of(transactions))


class DataViewWindow(QWidget):
    """A window holding the :class:`DataView` of one dataset."""

    closed = Signal(object)

    def __init__(self, dataset: Any, parent: QWidget | None = None):
        super().__init__(parent, Qt.Window)
        self.setObjectName("data-view")
        if parent is None:  # a child window inherits the main window's style sheet
            self.setStyleSheet(STYLE)
        self.view = DataView(dataset)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.set_dataset(dataset)
        self.resize(fitting_size(self, QSize(1100, 760)))

    @property
    def dataset(self) -> Any:
        return self.view.dataset

    def set_dataset(self, dataset: Any) -> None:
        if dataset is not self.view.dataset:
            self.view.set_dataset(dataset)
        self.setWindowTitle(f"Data: {getattr(dataset, 'name', 'dataset')} — anonstudio")

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        self.closed.emit(self)
        super().closeEvent(event)


class DataViews(QObject):
    """The open data view windows, one per dataset.

    ``show(dataset)`` opens (or raises) the window of a dataset; a table
    whose roles changed keeps its window (:meth:`roles_changed`).
    """

    def __init__(self, parent: QObject | None = None, window_parent: Callable[[], QWidget | None] = lambda: None):
        super().__init__(parent)
        self.windows: list[DataViewWindow] = []
        self._window_parent = window_parent

    def show(self, dataset: Any) -> DataViewWindow:
        window = self.window_of(dataset)
        if window is None:
            window = DataViewWindow(dataset, self._window_parent())
            window.closed.connect(self._closed)
            self.windows.append(window)
        window.show()
        window.raise_()
        window.activateWindow()
        return window

    def window_of(self, dataset: Any) -> DataViewWindow | None:
        return next((w for w in self.windows if w.dataset is dataset), None)

    def roles_changed(self, old: Table, new: Table) -> None:
        """``new`` is ``old`` with other roles: its window now shows ``new``."""
        window = self.window_of(old)
        if window is not None:
            window.view.set_roles(new)
            window.set_dataset(new)

    def close_all(self) -> None:
        for window in list(self.windows):
            window.close()

    def _closed(self, window: DataViewWindow) -> None:
        if window in self.windows:
            self.windows.remove(window)
        window.deleteLater()

