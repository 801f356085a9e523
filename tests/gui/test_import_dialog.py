"""File > Open dataset…: the import preview, its choices, its one-line errors, and the load it leads to."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from anonstudio.data.datasets import ReadOptions
from anonstudio.data.table import Table
from anonstudio.gui.import_dialog import ImportDialog

ROWS = "".join(f"{20 + i % 40},{'F' if i % 2 else 'M'},town{i % 4}\n" for i in range(30))


@pytest.fixture
def people(tmp_path):
    path = tmp_path / "people.csv"
    path.write_text(ROWS)
    return path


@pytest.fixture
def dialog_of(qtbot):
    def make(path, options=None):
        dialog = ImportDialog(path, options)
        qtbot.addWidget(dialog)
        dialog.show()
        return dialog

    return make


def fact(dialog, name):
    from PySide6.QtWidgets import QLabel

    return dialog.findChild(QLabel, f"fact_{name}").text()


def test_guesses_are_shown_with_the_rows_as_read(dialog_of, people):
    dialog = dialog_of(people)
    assert fact(dialog, "format") == "CSV table (csv-table)"
    assert fact(dialog, "separator") == "comma (,)"
    assert fact(dialog, "header_row") == "no: the first row is data"
    assert fact(dialog, "encoding") == "UTF-8 (plain ASCII)"
    model = dialog.table.rows_model
    assert model.rowCount() == 30 and model.index(0, 1).data() == "20"
    assert dialog.status.state == "ok" and "all 30 rows" in dialog.status.text()
    assert dialog.load_button.isEnabled()
    assert dialog.names_edit.placeholderText() == "c1, c2, c3"
    assert dialog.text.toPlainText().splitlines()[0] == "   1  20,M,town0"


def test_changing_a_choice_updates_the_preview(dialog_of, people, qtbot):
    dialog = dialog_of(people)
    dialog.header_combo.setCurrentIndex(dialog.header_combo.findData(True))
    assert fact(dialog, "header_row") == "yes: the first row names the columns"
    model = dialog.table.rows_model
    assert model.rowCount() == 29 and model.headerData(1, Qt.Horizontal) == "20"
    dialog.header_combo.setCurrentIndex(0)
    dialog.names_edit.setText("age, sex, town")
    dialog.names_edit.textEdited.emit("age, sex, town")
    qtbot.waitUntil(lambda: dialog.table.rows_model.headerData(3, Qt.Horizontal) == "town", timeout=3000)
    assert dialog.options() == ReadOptions(names=("age", "sex", "town"))
    # The load reads the file as previewed: the guesses are pinned.
    assert dialog.load_options() == ReadOptions(format="csv-table", sep=",", header=False, names=("age", "sex", "town"))


def test_a_wrong_choice_is_one_line_and_blocks_load(dialog_of, people):
    dialog = dialog_of(people)
    dialog.format_combo.setCurrentIndex(dialog.format_combo.findData("fimi"))
    assert dialog.status.state == "failed"
    assert "people.csv, line 1: " in dialog.status.text() and "Traceback" not in dialog.status.text()
    assert not dialog.load_button.isEnabled()
    assert dialog.load_options() == dialog.options()  # nothing read, nothing pinned
    assert dialog.table.rows_model.rowCount() == 0
    assert dialog.tabs.currentWidget() is dialog.text  # the text the error is about
    assert fact(dialog, "guessed_format") == "csv-table"
    # FIMI files have no header row or separator to choose
    assert not dialog.header_combo.isEnabled() and not dialog.sep_combo.isEnabled()
    assert dialog.encoding_combo.isEnabled()
    dialog.format_combo.setCurrentIndex(0)
    assert dialog.load_button.isEnabled() and dialog.header_combo.isEnabled()


def test_a_latin1_file_is_fixed_by_choosing_its_encoding(dialog_of, tmp_path):
    path = tmp_path / "towns.csv"
    path.write_bytes("name,town\nann,Zürich\nbob,Genève\n".encode("latin-1"))
    dialog = dialog_of(path)
    assert dialog.status.state == "failed" and "towns.csv, line 2: not UTF-8 text" in dialog.status.text()
    assert fact(dialog, "encoding").startswith("not UTF-8")
    dialog.encoding_combo.setCurrentIndex(dialog.encoding_combo.findData("latin-1"))
    assert dialog.status.state == "ok" and dialog.load_button.isEnabled()
    assert dialog.table.rows_model.index(0, 2).data() == "Zürich"


def test_initial_options_are_shown(dialog_of, people):
    dialog = dialog_of(people, ReadOptions(sep=",", header=False, names=("a", "b", "c")))
    assert dialog.sep_combo.currentData() == "," and dialog.header_combo.currentData() is False
    assert dialog.names_edit.text() == "a, b, c"
    assert dialog.options() == ReadOptions(sep=",", header=False, names=("a", "b", "c"))


def test_open_dataset_previews_then_loads_with_the_choices(window, wait_job, people, monkeypatch, qtbot):
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(people), ""))
    window.open_action.trigger()
    dialog = window.datasets.import_dialog
    assert isinstance(dialog, ImportDialog) and dialog.isVisible()
    assert window.dataset is None  # nothing loads before the user says so
    dialog.names_edit.setText("age, sex, town")
    dialog.refresh()
    dialog.load_button.click()
    wait_job(window.datasets.last_job)
    assert isinstance(window.dataset, Table)
    assert list(window.dataset.frame.columns) == ["age", "sex", "town"] and window.dataset.n_rows == 30
    assert window.recent.paths() == [str(people)]


def test_dock_button_and_recent_files_go_through_the_preview(window, people, monkeypatch):
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(people), ""))
    window.datasets.open_button.click()
    first = window.datasets.import_dialog
    assert first is not None and first.path == people
    first.reject()
    window.recent.add(str(people))
    window._fill_recent_menu()
    window.recent_menu.actions()[0].trigger()
    assert window.datasets.import_dialog is not first and window.datasets.import_dialog.path == people
    assert window.dataset is None
