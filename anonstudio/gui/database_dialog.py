"""File › Open database…: a URL, the database's tables, a query box and a preview of the first rows.

Columns ticked as numeric are read as numbers (``--numeric``), in the preview and in the load.
Listing tables and previewing run on a worker thread (a connection may take
up to the connect timeout); Load hands the table or query to the datasets
dock, which fetches it in the background with progress and Cancel, like a
file. The password field is never saved: projects keep the URL without it.
"""
from __future__ import annotations

import dataclasses
import html
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QSize, QThreadPool, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..data.table import Table
from .controls import Callout, ColumnPicker, fitting_size, note_label
from .data_view import RowsTable, rows_of
from .import_dialog import NUMERIC_TIP

PREVIEW_ROWS = 50


def _needs_password(exc: BaseException) -> bool:
    from ..data.io.database import needs_password

    return needs_password(exc)


def ask_password(parent: QWidget | None, where: str, *, again: bool = False) -> str | None:
    """Ask for the password of the database ``where`` (its URL without password); None if the user cancels.

    The answer is handed to the one connection that needs it: never saved in a project, a setting or a file,
    never written to a log or a message.
    """
    dialog = QInputDialog(parent)
    dialog.setObjectName("database-password")
    dialog.setWindowTitle("Database password")
    dialog.setInputMode(QInputDialog.TextInput)
    dialog.setTextEchoMode(QLineEdit.Password)
    first = "The password was not accepted." if again else "The database asks for a password."
    dialog.setLabelText(f"{first}\n{where}\n\nIt is used for this connection only and never saved.")
    dialog.setOkButtonText("Connect")
    if dialog.exec() != QDialog.Accepted:
        return None
    return dialog.textValue() or None


class _Signals(QObject):
    done = Signal(object, object)  # (token, result or exception)


class _Task(QRunnable):
    def __init__(self, token: int, fn, signals: _Signals):
        super().__init__()
        self.token, self.fn, self.signals = token, fn, signals

    def run(self) -> None:
        try:
            result = self.fn()
        except Exception as exc:  # noqa: BLE001 (shown in the dialog as one line)
            result = exc
        self.signals.done.emit(self.token, result)


class DatabaseDialog(QDialog):
    """Choose a database table or query; :meth:`source` says what to load."""

    def __init__(self, parent: QWidget | None = None, url: str = ""):
        super().__init__(parent)
        self.setWindowTitle("Open database")
        self.setObjectName("database-dialog")
        self._token = 0
        self._signals = _Signals(self)
        self._signals.done.connect(self._finished)
        self._pending: dict[int, Any] = {}
        self._retry = None

        self.url_edit = QLineEdit(url)
        self.url_edit.setPlaceholderText("sqlite:///path/to/file.db   or   postgresql://user@host:5432/dbname")
        self.url_edit.setToolTip("Any SQLAlchemy URL whose driver is installed. Leave the password out: give it "
                                 "below, in PGPASSWORD or in ~/.pgpass.")
        self.password_edit = QLineEdit()
        self.password_edit.setEchoMode(QLineEdit.Password)
        self.password_edit.setPlaceholderText("only if the URL, PGPASSWORD or .pgpass do not give it")
        self.password_edit.setToolTip("Used for this connection only; never saved in a project, report or file.")
        self.list_button = QPushButton("List tables")
        self.list_button.clicked.connect(self.list_tables)
        url_row = QWidget()
        url_layout = QHBoxLayout(url_row)
        url_layout.setContentsMargins(0, 0, 0, 0)
        url_layout.addWidget(self.url_edit, 1)
        url_layout.addWidget(self.list_button)

        self.tables = QListWidget()
        self.tables.setObjectName("database_tables")
        self.tables.currentTextChanged.connect(self._table_chosen)
        self.query_edit = QPlainTextEdit()
        self.query_edit.setPlaceholderText("SELECT ... (read-only; used instead of a table when filled in)")
        self.query_edit.setToolTip("One SELECT, run in a read-only transaction. A two-column (person, item) result "
                                   "or a column of ';'-separated items is set-valued data; anything else a table.")
        self.query_edit.setMaximumHeight(90)
        self.preview_button = QPushButton("Preview")
        self.preview_button.clicked.connect(self.preview)
        self.numeric_picker = ColumnPicker(empty_text="dates are read as ISO text, and codes such as 00123 stay text")
        self.numeric_picker.setObjectName("numeric_columns")
        self.numeric_picker.setMinimumHeight(56)
        self.numeric_picker.setMaximumHeight(80)
        self.numeric_picker.setToolTip(NUMERIC_TIP)
        self.numeric_picker.setEnabled(False)  # until a preview lists the columns
        self.numeric_picker.changed.connect(self._show_preview)
        self._first_rows: Any = None

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        form.addRow("URL:", url_row)
        form.addRow("Password:", self.password_edit)
        form.addRow("Tables:", self.tables)
        form.addRow("Query:", self.query_edit)
        form.addRow("Numeric columns:", self.numeric_picker)
        form.addRow(self.numeric_picker.hint)
        self.status = Callout("")
        self.status.setObjectName("database_status")
        self.rows = RowsTable()
        self.buttons = QDialogButtonBox(QDialogButtonBox.Cancel)
        self.load_button = self.buttons.addButton("Load", QDialogButtonBox.AcceptRole)
        self.load_button.setToolTip("Fetch every row in the background (progress and Cancel in the jobs list). "
                                    "Column roles are set in the Dataset panel once loaded, as for a file.")
        self.load_button.setEnabled(False)  # until a preview has read the first rows
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        bar = QHBoxLayout()
        bar.addWidget(note_label("<b>First rows</b>", "heading"))
        bar.addStretch(1)
        bar.addWidget(self.preview_button)
        layout.addLayout(bar)
        layout.addWidget(self.status)
        layout.addWidget(self.rows, 1)
        layout.addWidget(self.buttons)
        self.tables.setMaximumHeight(140)
        self.resize(fitting_size(self, QSize(900, 640), 0.88))
        self._set_status("Give the database URL, then list its tables or write a query.", "ok")

    # ------------------------------------------------------------- choices
    def source(self) -> dict[str, Any]:
        """``open_dataset`` keywords for the choice: the URL, a table or a query, the password if typed."""
        query = self.query_edit.toPlainText().strip()
        item = self.tables.currentItem()
        out: dict[str, Any] = {"spec": self.url_edit.text().strip()}
        if query:
            out["query"] = query
        elif item is not None:
            out["table"] = item.text()
        if self.password_edit.text():
            out["password"] = self.password_edit.text()
        if self.numeric_picker.value():
            out["numeric"] = list(self.numeric_picker.value())
        return out

    def _table_chosen(self, name: str) -> None:
        if name and not self.query_edit.toPlainText().strip():
            self.preview()

    # ------------------------------------------------------------- background work
    def _run(self, what: str, fn, retry=None) -> None:
        self._retry = retry  # what to do again once a password is given (the server asked for one)
        self._token += 1
        self._pending = {self._token: what}
        self._set_status(f"{what}…", "running")
        QThreadPool.globalInstance().start(_Task(self._token, fn, self._signals))

    def list_tables(self) -> None:
        from ..data.io.database import list_tables

        url, password = self.url_edit.text().strip(), self.password_edit.text() or None
        self._run("Listing the tables", lambda: list_tables(url, password), retry=self.list_tables)

    def preview(self) -> None:
        from ..data.datasets import open_dataset

        source = self.source()
        spec = source.pop("spec")
        source.pop("numeric", None)  # applied to the rows read (:meth:`_show_preview`), whose columns it lists
        own_query = "query" in source
        chosen_table = source.get("table")
        if "table" in source:
            from ..data.io.database import QueryRows  # noqa: F401  (imported here: SQLAlchemy loads once)

            source = {"query": f"SELECT * FROM {_quoted(source.pop('table'))} LIMIT {PREVIEW_ROWS}",
                      **{k: v for k, v in source.items() if k != "table"}}
        elif "query" in source:
            source["query"] = source["query"].strip().rstrip(";")
        else:
            self._set_status("Choose a table or write a query.", "failed")
            return

        def first_rows():
            from ..data.io.database import check_read_only, redact_url

            if own_query:
                # The user's own query is checked as a whole before it is wrapped to fetch a few rows.
                query = check_read_only(source["query"], redact_url(spec))
                source["query"] = f"SELECT * FROM ({query}) AS preview LIMIT {PREVIEW_ROWS}"
            rows = open_dataset(spec, **source)
            if chosen_table is not None and isinstance(rows, Table) and rows.name.endswith(":query"):
                # Read through a query, named as the table's load will be (messages name it).
                rows = dataclasses.replace(rows, name=f"{rows.name[:-len('query')]}{chosen_table}")
            return rows

        self.load_button.setEnabled(False)
        self._first_rows = None
        self._run("Reading the first rows", first_rows, retry=self.preview)

    def _finished(self, token: int, result: Any) -> None:
        if self._pending.pop(token, None) is None:
            return  # an answer to a request made before the latest one
        if isinstance(result, Exception):
            self._first_rows = None
            self._set_status(f"<b>Cannot be read:</b> {html.escape(str(result))}", "failed")
            self.load_button.setEnabled(False)
            if self._retry is not None and _needs_password(result):
                password = ask_password(self, result.where, again=bool(self.password_edit.text()))
                if password is not None:
                    self.password_edit.setText(password)  # in the field only, as if typed there
                    self._retry()
            return
        if isinstance(result, list):
            self.tables.clear()
            self.tables.addItems(result)
            self._set_status(f"{len(result):,} tables and views. Choose one, or write a query.", "ok")
            return
        self._first_rows = result
        columns = [str(c) for c in result.frame.columns] if isinstance(result, Table) else []
        self.numeric_picker.set_columns(columns)
        self.numeric_picker.setEnabled(bool(columns))
        self.numeric_picker.setToolTip(NUMERIC_TIP if columns else "Only a table's columns can be read as numbers.")
        self._show_preview()

    def _show_preview(self) -> None:
        """The first rows read, with the columns ticked as numeric read as numbers (or the one line why not)."""
        from ..data.datasets import table_with_numeric

        rows = self._first_rows
        if rows is None:
            return
        numeric = self.numeric_picker.value()
        if numeric:
            try:
                rows = table_with_numeric(rows, numeric)
            except ValueError as exc:
                self.rows.set_source(None)
                self.load_button.setEnabled(False)
                self._set_status(f"<b>Cannot be read this way:</b> {html.escape(str(exc))}<br>Untick the column, "
                                 "or choose another.", "failed")
                return
        self.rows.set_source(rows_of(rows))
        self.load_button.setEnabled(True)
        self._set_status(f"The first rows (up to {PREVIEW_ROWS}) as they will be loaded.", "ok")

    def _set_status(self, text: str, state: str) -> None:
        self.status.show_text(text, state)


def _quoted(name: str) -> str:
    """A table name as SQL: each dotted part in double quotes (standard SQL; SQLite and PostgreSQL take it)."""
    return ".".join('"' + part.replace('"', '""') + '"' for part in name.split("."))
