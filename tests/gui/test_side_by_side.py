"""Original vs published side by side: synchronized tables, group and partition highlights."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt

from anonstudio.data.rows import TableRows
from anonstudio.data.table import Table
from anonstudio.gui.chips import CELL_ROLE
from anonstudio.gui.side_by_side import SideBySideView
from anonstudio.jobs import NullProgress


@pytest.fixture(scope="module")
def group_run():
    from anonstudio.methods.group_anonymize.algorithm import run_group_anonymize
    from anonstudio.methods.group_anonymize.spec import SPEC

    table, params = SPEC.example()
    return run_group_anonymize(table, params, NullProgress())


@pytest.fixture(scope="module")
def km_run():
    from anonstudio.methods.contract import run_and_verify
    from anonstudio.methods.kmanon.spec import SPEC

    data, params = SPEC.example()
    return run_and_verify(SPEC, data, params, NullProgress()).result


@pytest.fixture
def view(qtbot):
    widget = SideBySideView()
    qtbot.addWidget(widget)
    widget.resize(1200, 600)
    widget.show()
    return widget


def shown_rows(table) -> list[int]:
    model = table.rows_model
    return [model.data_row(r) for r in range(model.rowCount())]


def marked(table) -> list[int]:
    model = table.rows_model
    return [model.data_row(r) for r in range(model.rowCount())
            if model.index(r, 0).data(Qt.BackgroundRole) is not None]


def test_selecting_a_row_selects_it_on_both_sides_and_marks_its_group(view, group_run):
    from anonstudio.methods.group_anonymize.compare import comparison_of

    view.set_comparison(comparison_of(group_run))
    release = group_run.release
    assert view.title.text() == group_run.text
    assert view.group_only.isVisibleTo(view) and view.sort_by_group.isVisibleTo(view)
    view.published.selectRow(7)
    assert view.original.selected_data_row() == 7 == view.selected_row()
    members = release.group_rows(int(release.row_group[7])).tolist()
    assert marked(view.original) == members == marked(view.published)
    assert view.detail.text().startswith(f"Row 8 is in group {release.row_group[7] + 1} of {release.n_groups}")
    # published generalized cells are chips
    chips = view.published.rows_model.index(7, 2).data(CELL_ROLE)
    assert isinstance(chips, tuple) and chips[0].kind in ("general", "value", "suppressed")


def test_only_this_group_and_rows_of_a_group_together(view, group_run):
    from anonstudio.methods.group_anonymize.compare import comparison_of

    view.set_comparison(comparison_of(group_run))
    groups = group_run.release.row_group
    view.sort_by_group.setChecked(True)
    order = shown_rows(view.original)
    assert order == shown_rows(view.published) == np.argsort(groups, kind="stable").tolist()
    assert np.all(np.diff(groups[order]) >= 0)
    assert view.original.horizontalHeader().sortIndicatorSection() == -1  # no column gives this order
    view.select_row(12)
    view.group_only.setChecked(True)
    members = group_run.release.group_rows(int(groups[12])).tolist()
    assert sorted(shown_rows(view.original)) == members == sorted(shown_rows(view.published))
    assert view.selected_row() == 12
    assert view.search.result.text() == f"{len(members)} rows in the selected row's group"
    view.group_only.setChecked(False)
    assert len(shown_rows(view.original)) == group_run.release.n_rows and view.selected_row() == 12


def test_sorting_one_side_orders_both(view, group_run):
    from anonstudio.methods.group_anonymize.compare import comparison_of

    view.set_comparison(comparison_of(group_run))
    view.original.sortByColumn(1, Qt.DescendingOrder)  # age
    ages = group_run.table.frame["age"].to_numpy()
    order = shown_rows(view.original)
    assert order == shown_rows(view.published)
    assert np.all(np.diff(ages[order]) <= 0)
    view.published.verticalScrollBar().setValue(40)
    assert view.original.verticalScrollBar().value() == 40


def test_search_filters_both_sides(view, group_run):
    from anonstudio.methods.group_anonymize.compare import comparison_of

    view.set_comparison(comparison_of(group_run))
    view.search.field.setText("occupation = Sales")
    view.search.find_button.click()
    expected = np.flatnonzero(group_run.table.frame["occupation"].to_numpy() == "Sales").tolist()
    assert shown_rows(view.original) == expected == shown_rows(view.published)
    view.search.go_to.emit(0)
    assert view.selected_row() == 0 and len(shown_rows(view.published)) == group_run.table.n_rows


def test_partitions_of_the_selected_record_are_highlighted_in_both(view, km_run):
    from anonstudio.methods.kmanon.compare import comparison_of

    comparison = comparison_of(km_run)
    view.set_comparison(comparison)
    assert not view.group_only.isVisibleTo(view)  # records are not grouped
    view.original.selectRow(3)
    keys = comparison.highlight_keys(3)
    assert set(view.original.delegate.highlight) == set(keys) == set(view.published.delegate.highlight)
    # the same partition has the same colour on both sides
    assert all(view.original.delegate.highlight[k] == view.published.delegate.highlight[k] for k in keys)
    published = view.published.rows_model.index(3, 2).data(CELL_ROLE)
    assert tuple(c.key for c in published) == keys
    assert marked(view.original) == []
    assert view.detail.text().startswith("Record 4: ")  # row 3 is the fourth record: people count from 1
    view.search.field.setText(comparison.names[keys[0]])
    view.search.find_button.click()
    assert 3 in shown_rows(view.original) and shown_rows(view.original) == shown_rows(view.published)


def test_no_comparison_and_a_misaligned_one(view):
    view.set_comparison(None)
    assert view.original.rows_model.rowCount() == 0 and view.title.text() == "No release to compare yet."

    class Misaligned:
        title, group_word = "bad", "group"
        original = TableRows(Table(pd.DataFrame({"a": [1, 2, 3]}), {}, "a"))
        published = TableRows(Table(pd.DataFrame({"a": [1, 2]}), {}, "b"))

        def row_groups(self):
            return None

    with pytest.raises(ValueError, match="the original has 3 rows but the release 2"):
        view.set_comparison(Misaligned())
