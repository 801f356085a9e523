"""Column roles set once per table in the datasets dock, and used by every workbench."""
from __future__ import annotations

import pandas as pd
import pytest
from PySide6.QtCore import Qt

from anonstudio.data.io import load_report
from anonstudio.data.table import Role, Table
from anonstudio.gui.column_roles import ROLE_COLUMN, ColumnSummaryModel, RoleDelegate, summaries_of
from anonstudio.gui.workbenches.threat import ThreatWorkbench
from anonstudio.gui.workbenches.threat.workbench import default_columns


def roles_shown(dock) -> dict[str, str]:
    model = dock.roles.model
    return {model.index(r, 0).data(): model.index(r, ROLE_COLUMN).data() for r in range(model.rowCount())}


def set_role(dock, column: str, role: str) -> None:
    model = dock.roles.model
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == column)
    assert model.setData(model.index(row, ROLE_COLUMN), role, Qt.EditRole)


@pytest.fixture
def adult(window, wait_job):
    wait_job(window.datasets.load_sample("adult"), timeout=60000)
    return window.dataset


def test_a_sample_shows_the_roles_of_its_description(window, adult):
    dock = window.datasets
    assert dock.roles.isVisibleTo(dock) and dock.length_plot.isHidden()
    shown = roles_shown(dock)
    assert shown["occupation"] == "sensitive" and shown["fnlwgt"] == "insensitive"
    assert shown["age"] == "quasi-identifier" and len(shown) == 15
    assert dock.roles.origin.text().startswith("Roles from the sample's description")
    assert not dock.roles.reset_button.isEnabled()
    # The summary and the roles agree (the summary used to say "sensitive: none").
    assert "sensitive: occupation" in dock.summary.text()
    assert "4,262 missing values in 3 columns" in dock.summary.text()


def test_changing_a_role_re_announces_the_table_to_every_workbench(window, adult):
    dock = window.datasets
    bench = window.workbench(ThreatWorkbench)
    assert bench.param_panel.values()["sensitive"] == "occupation"
    seen = []
    dock.dataset_loaded.connect(seen.append)
    set_role(dock, "occupation", "quasi-identifier")
    set_role(dock, "relationship", "sensitive")
    new = window.dataset
    assert len(seen) == 2 and seen[-1] is new and new is not adult
    assert new.frame is adult.frame  # the rows are shared, only the roles differ
    assert new.role("relationship") is Role.SENSITIVE and new.role("occupation") is Role.QUASI_IDENTIFIER
    assert adult.role("occupation") is Role.SENSITIVE  # a run that started earlier keeps its roles
    assert bench.dataset is new
    values = bench.param_panel.values()
    assert values["sensitive"] == "relationship"
    assert "occupation" in values["qi"] and "relationship" not in values["qi"]
    assert load_report(new).warnings == load_report(adult).warnings
    assert "sensitive: relationship" in dock.summary.text()
    assert dock.roles.reset_button.isEnabled()
    dock.roles.reset_button.click()
    assert window.dataset.role("occupation") is Role.SENSITIVE and not dock.roles.reset_button.isEnabled()


def test_threats_defaults_follow_the_roles_exactly():
    frame = pd.DataFrame({"id": range(300), "zip": [str(i) for i in range(300)], "age": [i % 60 for i in range(300)],
                          "job": [f"j{i % 4}" for i in range(300)], "note": ["x"] * 300})
    roles = {"id": Role.IDENTIFIER, "job": Role.SENSITIVE, "note": Role.INSENSITIVE}
    # zip has a value per row: a guess would drop it, but the table marks it a quasi-identifier.
    assert default_columns(Table(frame, roles, "t")) == (["zip", "age"], "job")
    guessed_qi, guessed_sensitive = default_columns(Table(frame, {}, "t"))
    assert guessed_sensitive == "job" and "zip" not in guessed_qi and "id" not in guessed_qi


def test_the_data_view_of_a_table_follows_its_roles(window, adult):
    dock = window.datasets
    view = dock.show_data_view()
    assert view.dataset is adult
    set_role(dock, "sex", "insensitive")
    assert view.dataset is window.dataset
    summary = view.view.columns_model
    row = next(r for r in range(summary.rowCount()) if summary.index(r, 0).data() == "sex")
    assert summary.index(row, ROLE_COLUMN).data() == "insensitive"
    assert not summary.flags(summary.index(row, ROLE_COLUMN)) & Qt.ItemIsEditable


def test_role_editor_combo(qtbot):
    table = Table(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}), {"b": Role.SENSITIVE}, "t")
    model = ColumnSummaryModel(editable=True)
    model.set_table(table)
    edited = []
    model.roles_edited.connect(edited.append)
    delegate = RoleDelegate()
    from PySide6.QtWidgets import QWidget

    parent = QWidget()
    qtbot.addWidget(parent)
    index = model.index(0, ROLE_COLUMN)
    combo = delegate.createEditor(parent, None, index)
    delegate.setEditorData(combo, index)
    assert combo.currentData() == "quasi-identifier" and combo.count() == 4
    combo.setCurrentIndex(combo.findData("identifier"))
    delegate.setModelData(combo, model, index)
    assert edited == [{"a": Role.IDENTIFIER, "b": Role.SENSITIVE}]
    assert not model.setData(index, "nonsense", Qt.EditRole)
    assert model.index(0, ROLE_COLUMN).data(Qt.ToolTipRole) == \
        "Identifies a person directly (name, id): never published. Click to change it."


def test_summaries_are_counted_once_per_frame(monkeypatch):
    import anonstudio.gui.column_roles as column_roles

    calls = []
    original = column_roles.column_summaries
    monkeypatch.setattr(column_roles, "column_summaries", lambda table: calls.append(1) or original(table))
    frame = pd.DataFrame({"a": [1, 1, 2]})
    first = summaries_of(Table(frame, {}, "t"))
    again = summaries_of(Table(frame, {"a": Role.SENSITIVE}, "t"))
    assert first[0].distinct == again[0].distinct == 2
    assert (first[0].role, again[0].role) == ("quasi-identifier", "sensitive")
    assert len(calls) == 1
    summaries_of(Table(frame.copy(), {}, "t"))
    assert len(calls) == 2
