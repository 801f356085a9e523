"""Columns marked numeric in the studio: in the import preview and in File › Open database…, kept by the project.

The same semantics as ``anonstudio-cli --numeric``: a date becomes days since 1970-01-01, ``00123`` becomes 123,
and a value that is neither is one line in the dialog, naming the column, the row and the value.
"""
from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import Qt

from anonstudio.data.origin import origin_of
from anonstudio.data.table import Table
from anonstudio.gui.main_window import MainWindow
from anonstudio.studio.project import Project

pytest.importorskip("sqlalchemy")

ROWS = 40
VISITS = "patient,visit_date,zip,diagnosis\n" + "".join(
    f"{i + 1},2020-01-{1 + i % 28:02d},{i % 90:05d},code{i % 7}\n" for i in range(ROWS))


def _tick(picker, column: str) -> None:
    item = next(picker.item(i) for i in range(picker.count()) if picker.item(i).data(Qt.UserRole) == column)
    item.setCheckState(Qt.Checked)  # as a click on its box does


def _reopened(qtbot, wait_job, path):
    again = MainWindow(warm_up=False, restore_layout=False)
    qtbot.addWidget(again)
    again.show()
    wait_job(again.open_project(path))
    qtbot.waitUntil(lambda: isinstance(again.datasets.dataset, Table), timeout=20000)
    return again


def _save(window, path) -> None:
    window.workbench("group-anonymize")  # a tab that works on tables: its step names the dataset
    assert window.projects._write(path)


def test_a_column_marked_in_the_import_preview_loads_as_numbers_and_the_project_keeps_it(
        window, wait_job, qtbot, tmp_path, dialogs):
    path = tmp_path / "visits.csv"
    path.write_text(VISITS)
    dialog = window.datasets.import_file(path)
    picker = dialog.numeric_picker
    assert [picker.item(i).data(Qt.UserRole) for i in range(picker.count())] == \
           ["patient", "visit_date", "zip", "diagnosis"]
    assert picker.isEnabled() and picker.value() == () and dialog.preview.data.frame["zip"][1] == "00001"
    _tick(picker, "visit_date")
    _tick(picker, "zip")
    # The preview follows at once: the rows as they will load.
    assert dialog.preview.ok and dialog.preview.data.frame["visit_date"].tolist()[:2] == [18262, 18263]
    assert dialog.preview.data.frame["zip"].tolist()[:2] == [0, 1]
    assert dialog.load_options().numeric == ("visit_date", "zip")
    dialog.accept()
    wait_job(window.datasets.last_job)
    loaded = window.datasets.dataset
    assert loaded.frame["visit_date"].tolist()[:3] == [18262, 18263, 18264] and loaded.frame["zip"].dtype == "int64"
    _save(window, tmp_path / "visits.toml")
    saved = Project.load(tmp_path / "visits.toml")
    (entry,) = saved.datasets.values()
    assert entry.origin.options.numeric == ("visit_date", "zip")
    window.close()

    again = _reopened(qtbot, wait_job, tmp_path / "visits.toml")
    reopened = again.datasets.dataset
    assert reopened.frame.equals(loaded.frame) and reopened.frame.dtypes.equals(loaded.frame.dtypes)
    assert origin_of(reopened).options.numeric == ("visit_date", "zip")
    assert again.projects.capture().datasets[entry.key].sha256 == entry.sha256
    assert dialogs == []


def test_a_value_that_is_no_number_is_one_line_in_the_dialog_and_the_window_survives(window, qtbot, tmp_path,
                                                                                     dialogs):
    path = tmp_path / "visits.csv"
    path.write_text(VISITS)
    dialog = window.datasets.import_file(path)
    _tick(dialog.numeric_picker, "diagnosis")
    text = dialog.status.text()
    assert dialog.status.state == "failed" and not dialog.load_button.isEnabled()
    assert ("visits.csv: column &#x27;diagnosis&#x27; is marked numeric, but data row 1 holds &#x27;code0&#x27;: "
            "neither a number nor an ISO date or time") in text
    assert text.count("<br>") == 1  # the reason is one line, then what to do
    # The columns stay listed, so the mark can be taken back, and the preview reads again.
    picker = dialog.numeric_picker
    assert picker.count() == 4 and picker.isEnabled()
    picker.set_value(["zip"])
    assert dialog.status.state == "ok" and dialog.load_button.isEnabled()
    dialog.reject()
    assert window.isVisible() and window.datasets.dataset is None and dialogs == []


def test_a_bad_value_past_the_preview_fails_the_load_in_one_line_and_keeps_the_dataset(
        window, wait_job, qtbot, tmp_path, dialogs):
    path = tmp_path / "long.csv"
    long_rows = "".join(f"{i + 1},2020-01-{1 + i % 28:02d}\n" for i in range(30000))
    path.write_text("patient,visit_date\n" + long_rows + "30001,soon\n")
    dialog = window.datasets.import_file(path)
    _tick(dialog.numeric_picker, "visit_date")
    assert dialog.preview.ok and dialog.preview.truncated  # the head reads fine
    dialog.accept()
    wait_job(window.datasets.last_job)
    qtbot.waitUntil(lambda: len(dialogs) == 1, timeout=10000)
    assert "data row 30001 holds 'soon'" in dialogs[0][2] and "Traceback" not in dialogs[0][2]
    assert window.isVisible() and window.datasets.dataset is None


@pytest.fixture
def clinic_db(tmp_path):
    path = tmp_path / "clinic.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE visits (patient INTEGER, visit_date TEXT, zip TEXT, diagnosis TEXT)")
    con.executemany("INSERT INTO visits VALUES (?, ?, ?, ?)",
                    [(i + 1, f"2020-01-{1 + i % 28:02d}", f"{i % 90:05d}", f"code{i % 7}") for i in range(ROWS)])
    con.commit()
    con.close()
    return f"sqlite:///{path}"


def test_open_database_marks_a_column_numeric_and_the_project_reopens_the_same_rows(
        window, wait_job, qtbot, tmp_path, clinic_db, dialogs):
    dialog = window.datasets.open_database_dialog(clinic_db)
    dialog.list_tables()
    qtbot.waitUntil(lambda: dialog.tables.count() == 1, timeout=20000)
    dialog.tables.setCurrentRow(0)
    qtbot.waitUntil(lambda: dialog.load_button.isEnabled(), timeout=20000)
    picker = dialog.numeric_picker
    assert picker.isEnabled() and picker.count() == 4
    _tick(picker, "diagnosis")
    assert dialog.status.state == "failed" and not dialog.load_button.isEnabled()
    assert "clinic.db:visits: column &#x27;diagnosis&#x27; is marked numeric, but data row 1 holds &#x27;code0&#x27;" \
           in dialog.status.text()
    picker.set_value(["visit_date", "zip"])
    assert dialog.load_button.isEnabled() and dialog.rows.rows_model.index(0, 2).data() == "18262"
    assert dialog.source() == {"spec": clinic_db, "table": "visits", "numeric": ["visit_date", "zip"]}
    dialog.accept()
    wait_job(window.datasets.last_job)
    loaded = window.datasets.dataset
    assert loaded.frame["visit_date"].tolist()[:2] == [18262, 18263] and loaded.frame["zip"].tolist()[:2] == [0, 1]
    _save(window, tmp_path / "clinic.toml")
    (entry,) = Project.load(tmp_path / "clinic.toml").datasets.values()
    assert entry.origin.options.numeric == ("visit_date", "zip") and entry.sha256 == origin_of(loaded).sha256
    window.close()

    again = _reopened(qtbot, wait_job, tmp_path / "clinic.toml")
    reopened = again.datasets.dataset
    assert reopened.frame.equals(loaded.frame) and origin_of(reopened).sha256 == entry.sha256
    assert dialogs == []


def test_a_ticked_column_that_new_names_remove_stays_listed_to_untick(window, tmp_path, dialogs):
    path = tmp_path / "visits.csv"
    path.write_text(VISITS)
    dialog = window.datasets.import_file(path)
    _tick(dialog.numeric_picker, "zip")
    dialog.names_edit.setText("id, day, code, illness")
    dialog.refresh()
    assert dialog.status.state == "failed" and "has no column &#x27;zip&#x27; to mark numeric" in dialog.status.text()
    picker = dialog.numeric_picker
    labels = [picker.item(i).text() for i in range(picker.count())]
    assert labels == ["id", "day", "code", "illness", "zip (not in the table)"] and picker.value() == ("zip",)
    picker.set_value(["code"])
    assert dialog.status.state == "ok" and dialog.preview.data.frame["code"].tolist()[:2] == [0, 1]
    assert dialog.load_options().numeric == ("code",)
