"""The studio's spreadsheet sheet choice (import preview) and File › Open database…."""
from __future__ import annotations

import sqlite3

import pytest

from anonstudio.gui.database_dialog import DatabaseDialog
from anonstudio.gui.import_dialog import ImportDialog

openpyxl = pytest.importorskip("openpyxl")
pytest.importorskip("sqlalchemy")


@pytest.fixture
def book(tmp_path):
    workbook = openpyxl.Workbook()
    workbook.active.title = "Notes"
    workbook.active.append(["note"])
    workbook.active.append(["hello"])
    sheet = workbook.create_sheet("Patients")
    sheet.append(["id", "zip", "diagnosis"])
    for i in range(30):
        sheet.append([i + 1, f"{i % 5:05d}", ["flu", "cold"][i % 2]])
    path = tmp_path / "book.xlsx"
    workbook.save(path)
    return path


def test_import_preview_lists_the_sheets_with_their_sizes_and_reads_the_chosen_one(qtbot, book):
    dialog = ImportDialog(book)
    qtbot.addWidget(dialog)
    dialog.show()
    items = [dialog.sheet_combo.itemText(i) for i in range(dialog.sheet_combo.count())]
    assert items == ["1. Notes — 2 rows × 1 columns", "2. Patients — 31 rows × 3 columns"]
    assert dialog.preview.data.frame.columns.tolist() == ["note"]
    dialog.sheet_combo.setCurrentIndex(1)
    assert dialog.preview.ok and dialog.preview.count == 30
    assert dialog.preview.data.frame["zip"].tolist()[:2] == ["00000", "00001"]
    assert dialog.load_options().sheet == "2"
    assert not dialog.encoding_combo.isEnabled() and dialog.sheet_combo.isEnabled()


def test_open_database_lists_tables_previews_and_names_the_source(qtbot, tmp_path):
    path = tmp_path / "clinic.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE patients (id INTEGER, diagnosis TEXT)")
    con.executemany("INSERT INTO patients VALUES (?, ?)", [(i, "flu") for i in range(80)])
    con.commit()
    con.close()
    dialog = DatabaseDialog(None, f"sqlite:///{path}")
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.list_tables()
    qtbot.waitUntil(lambda: dialog.tables.count() == 1, timeout=20_000)
    dialog.tables.setCurrentRow(0)  # choosing a table previews it in the background
    qtbot.waitUntil(lambda: dialog.load_button.isEnabled(), timeout=20_000)
    assert dialog.rows.rows_model.rowCount() == 50
    assert dialog.source() == {"spec": f"sqlite:///{path}", "table": "patients"}
    dialog.query_edit.setPlainText("DROP TABLE patients")
    dialog.preview()
    qtbot.waitUntil(lambda: "read-only" in dialog.status.text(), timeout=20_000)
    assert not dialog.load_button.isEnabled()
