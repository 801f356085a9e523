"""The data view: virtual rows (only the visible ones formatted), search, go to, sort, tables, windows."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt

from anonstudio.data.rows import TransactionRows
from anonstudio.data.table import Role, Table
from anonstudio.data.transactions import TransactionData
from anonstudio.gui.chips import CELL_ROLE
from anonstudio.gui.data_view import DataView, DataViews, DataViewWindow, headline
from anonstudio.gui.rows_model import MISSING_TEXT, ROW_ROLE


def many_records(n: int) -> TransactionData:
    """``n`` records of two items each (``u % 50`` and ``50 + u % 7``), built straight as CSR arrays."""
    u = np.arange(n, dtype=np.int64)
    indices = np.stack([u % 50, 50 + u % 7], axis=1).ravel().astype(np.int32)
    indptr = np.arange(0, 2 * n + 1, 2, dtype=np.int64)
    return TransactionData(indptr, indices, tuple(str(i) for i in range(57)), name=f"{n} records")


class Counting:
    """A row source that remembers which rows were formatted."""

    def __init__(self, source):
        self.source = source
        self.formatted: set[int] = set()

    def __getattr__(self, name):
        return getattr(self.source, name)

    def cells(self, row):
        self.formatted.add(row)
        return self.source.cells(row)


@pytest.fixture
def view(qtbot):
    widget = DataView()
    qtbot.addWidget(widget)
    widget.resize(1000, 600)
    widget.show()
    return widget


def test_only_visible_rows_are_formatted(view, qtbot):
    data = many_records(300_000)
    view.set_dataset(data)
    counting = Counting(view.table.rows_model.source)
    view.table.set_source(counting)
    view.grab()
    assert view.table.rows_model.rowCount() == 300_000
    assert 0 < len(counting.formatted) < 120
    counting.formatted.clear()
    view.table.scrollToBottom()
    view.grab()
    assert min(counting.formatted) > 299_000 and len(counting.formatted) < 120


def test_record_cells_and_chips(view):
    data = TransactionData.from_records([["milk", "bread"], [], ["beer"]], name="baskets")
    view.set_dataset(data)
    model = view.table.rows_model
    assert [model.headerData(c, Qt.Horizontal) for c in range(3)] == ["record", "size", "items"]
    chips = model.index(0, 2).data(CELL_ROLE)
    assert [c.text for c in chips] == ["bread", "milk"]
    assert model.index(0, 2).data(Qt.DisplayRole) == "bread, milk"
    assert model.index(1, 1).data() == "0" and model.index(1, 2).data(CELL_ROLE) == ()
    assert view.title.text() == "baskets"
    assert view.facts.text().startswith("3 records · 3 distinct items")
    assert not view.columns_page.isVisibleTo(view)


def test_search_filters_and_says_what_it_found(view):
    data = many_records(1000)
    view.set_dataset(data)
    view.search.field.setText("3, 51")
    view.search.find_button.click()
    model = view.table.rows_model
    expected = [u for u in range(1000) if u % 50 == 3 and u % 7 == 1]
    assert [model.index(r, 0).data(ROW_ROLE) for r in range(model.rowCount())] == expected
    assert view.search.result.text() == f"{len(expected)} of 1,000 records: records with item 3 and item 51"
    assert view.search.all_button.isEnabled()
    view.search.all_button.click()
    assert model.rowCount() == 1000 and not view.search.result.isVisibleTo(view)


def test_keyboard_reaches_find_and_go_to(view, qtbot):
    view.set_dataset(many_records(100))
    view.table.setFocus()
    qtbot.keyClick(view.table, Qt.Key_F, Qt.ControlModifier)
    assert view.search.field.hasFocus()
    qtbot.keyClick(view.search.field, Qt.Key_G, Qt.ControlModifier)
    assert view.search.goto_field.hasFocus()
    qtbot.keyClicks(view.search.goto_field, "42")
    qtbot.keyClick(view.search.goto_field, Qt.Key_Return)
    assert view.table.selected_data_row() == 41  # record 42, counted from 1


def test_go_to_shows_a_record_even_when_a_search_hides_it(view):
    view.set_dataset(many_records(5000))
    view.search.field.setText("3")
    view.search.find_button.click()
    view.search.goto_field.setText("4321")
    view.search.goto_field.returnPressed.emit()
    assert view.table.rows_model.rowCount() == 5000  # the search was cleared
    assert view.table.selected_data_row() == 4320  # record 4,321, counted from 1
    view.search.go_to.emit(5000)
    assert "There is no number 5,001: they run from 1 to 5,000" in view.search.result.text()


def test_clicking_a_header_sorts(view):
    data = TransactionData.from_records([["a"], ["a", "b", "c"], [], ["b", "c"]])
    view.set_dataset(data)
    view.table.selectRow(1)
    view.table.sortByColumn(1, Qt.DescendingOrder)
    model = view.table.rows_model
    assert [model.index(r, 0).data() for r in range(4)] == ["2", "4", "1", "3"]  # record numbers, from 1
    assert view.table.selected_data_row() == 1  # the selection follows its record
    view.table.sortByColumn(2, Qt.AscendingOrder)  # items: not sortable, the order stays
    assert [model.index(r, 0).data() for r in range(4)] == ["2", "4", "1", "3"]
    header = view.table.horizontalHeader()
    assert (header.sortIndicatorSection(), header.sortIndicatorOrder()) == (1, Qt.DescendingOrder)
    view.table.sortByColumn(0, Qt.AscendingOrder)
    assert model.permutation is None


def test_a_table_shows_its_columns_and_rows(view):
    frame = pd.DataFrame({"age": pd.array([30, None, 41], dtype="Int64"), "job": ["a", "b", "a"]})
    table = Table(frame, {"job": Role.SENSITIVE}, "staff")
    view.set_dataset(table)
    assert view.columns_page.isVisibleTo(view)
    summary = view.columns_model
    assert summary.rowCount() == 2 and not summary.editable
    assert [summary.index(1, c).data() for c in range(6)] == ["job", "sensitive", "text", "2", "–", "a (2), b (1)"]
    assert summary.index(0, 4).data() == "1"
    rows = view.table.rows_model
    assert rows.index(1, 1).data() == MISSING_TEXT and rows.index(1, 1).data(CELL_ROLE) is None
    assert rows.index(1, 1).data(Qt.FontRole).italic()
    view.search.field.setText("job = a")
    view.search.find_button.click()
    assert rows.rowCount() == 2
    assert headline(table) == "3 rows · 2 columns · 1 quasi-identifier · sensitive: job"


def test_one_window_per_dataset(qtbot):
    views = DataViews()
    a = TransactionData.from_records([["x"]], name="a")
    b = TransactionData.from_records([["y"]], name="b")
    first = views.show(a)
    qtbot.addWidget(first)
    assert views.show(a) is first and first.windowTitle() == "Data: a — anonstudio"
    second = views.show(b)
    qtbot.addWidget(second)
    assert second is not first and len(views.windows) == 2
    first.close()
    assert views.windows == [second]
    table = Table(pd.DataFrame({"c": [1, 2]}), {}, "t")
    window = views.show(table)
    qtbot.addWidget(window)
    marked = Table(table.frame, {"c": Role.SENSITIVE}, "t")
    views.roles_changed(table, marked)
    assert window.dataset is marked and window.view.columns_model.index(0, 1).data() == "sensitive"
    views.close_all()
    assert views.windows == []


def test_view_menu_opens_the_data_view_of_the_active_dataset(window, wait_job, data_dir):
    window.data_view_action.trigger()
    assert window.datasets.data_views.windows == []
    assert "Load a dataset first" in window.statusBar().currentMessage()
    wait_job(window.open_dataset(data_dir / "gui" / "tiny.dat"))
    window.data_view_action.trigger()
    (view_window,) = window.datasets.data_views.windows
    assert isinstance(view_window, DataViewWindow) and view_window.dataset is window.dataset
    assert view_window.view.table.rows_model.rowCount() == 40
    assert window.datasets.view_button.isEnabled()
    window.datasets.view_button.click()
    assert window.datasets.data_views.windows == [view_window]


def test_record_ids_of_long_form_files_are_shown(view, tmp_path):
    from anonstudio.data.io import load_any

    path = tmp_path / "visits.csv"
    path.write_text("user,item\nann,a\nbob,b\nann,c\n")
    view.set_dataset(load_any(path))
    model = view.table.rows_model
    assert isinstance(model.source, TransactionRows)
    assert [model.index(r, 1).data() for r in range(2)] == ["ann", "bob"]
