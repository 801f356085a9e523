"""File > Open dataset…: see how a file will be read before it is loaded.

The dialog shows the guessed format, encoding, separator and header row and
the first records or rows exactly as a full load reads them (the real loader
runs on the start of the file, :func:`anonstudio.data.preview.preview_file`),
plus the file's first lines as text. A table's columns ticked under "Numeric
columns" are read as numbers, as ``--numeric`` reads them. Every guess can be overridden, and the
preview follows at once; a file that cannot be read so says why in one line
(file, line, reason) and Load stays disabled. Loading itself is the datasets
dock's background job, with the chosen :class:`~anonstudio.data.datasets.ReadOptions` and
the preview's guesses (:meth:`ImportDialog.load_options`).
"""
from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ..data.datasets import ReadOptions, applicable_options
from ..data.io import formats, get_format
from ..data.preview import ENCODINGS, SEPARATORS, Preview, preview_file, size_text
from .controls import Callout, ColumnPicker, fitting_size, narrow_combo, note_label, splitter
from .data_view import RowsTable, rows_of

__all__ = ["ImportDialog"]

#: Pause after typing column names before the preview is read again.
TYPING_DELAY_MS = 350

NUMERIC_TIP = ("Tick a column to read it as numbers, as anonstudio-cli --numeric does: a date becomes days since "
               "1970-01-01 (2020-01-02 is 18263), a code such as 00123 becomes 123. A value that is neither stops "
               "the load, naming its row.")


def _combo(items: list[tuple[str, object]], tip: str) -> QComboBox:
    combo = QComboBox()
    for text, value in items:
        combo.addItem(text, value)
    combo.setToolTip(tip)
    return narrow_combo(combo, 16)


class ImportDialog(QDialog):
    """The import preview of one file; ``options()`` after ``accept()`` is how to load it.

    Parameters
    ----------
    path
        The file.
    options
        Initial options (default: guess everything).
    """

    def __init__(self, path: str | Path, options: ReadOptions | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.path = Path(path)
        self.setWindowTitle(f"Open {self.path.name}")
        self.setObjectName("import-dialog")
        self.preview: Preview | None = None
        self._filling = False
        self._sheets_listed = False

        self.format_combo = _combo([("Guess from the content", None)]
                                   + [(f"{f.label} ({f.name})", f.name) for f in formats()],
                                   "How the file is laid out. The guess reads the content, then the file name.")
        self.encoding_combo = _combo([("UTF-8 (guess)", None)]
                                     + [(label, name) for name, label in ENCODINGS.items() if name != "utf-8"],
                                     "How characters are stored. Accents that show as � or Ã© mean a wrong choice.")
        self.header_combo = _combo([("Guess", None), ("First row names the columns", True),
                                    ("No header row: the first row is data", False)],
                                   "Whether the first row holds column names or data.")
        self.sep_combo = _combo([("Guess", None)] + [(f"{name} ({c})" if c not in "\t " else name, c)
                                                     for c, name in SEPARATORS.items()],
                                "The character between the fields of a row.")
        self.sheet_combo = _combo([("The first sheet", None)],
                                  "Which sheet of the workbook to read; each is listed with its size.")
        self.names_edit = QLineEdit()
        self.names_edit.setPlaceholderText("comma-separated, e.g. age, sex, zip")
        self.names_edit.setToolTip("Column names of a table, in order: they name a file without a header row, or "
                                   "replace the names in its header row. Empty: from the file.")
        self.numeric_picker = ColumnPicker(empty_text="dates are read as ISO text, and codes such as 00123 stay text")
        self.numeric_picker.setObjectName("numeric_columns")
        self.numeric_picker.setMinimumHeight(60)
        self.numeric_picker.setMaximumHeight(96)
        self.numeric_picker.setToolTip(NUMERIC_TIP)
        self.numeric_picker.changed.connect(self._options_changed)
        for combo in (self.format_combo, self.encoding_combo, self.header_combo, self.sep_combo, self.sheet_combo):
            combo.currentIndexChanged.connect(self._options_changed)
        self._choices = {"encoding": self.encoding_combo, "sep": self.sep_combo, "header": self.header_combo,
                         "names": self.names_edit, "sheet": self.sheet_combo}
        self._tips = {key: widget.toolTip() for key, widget in self._choices.items()}
        self.typing = QTimer(self)
        self.typing.setSingleShot(True)
        self.typing.setInterval(TYPING_DELAY_MS)
        self.typing.timeout.connect(self.refresh)
        self.names_edit.textEdited.connect(lambda _=None: self.typing.start())

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        form.addRow("Format:", self.format_combo)
        form.addRow("Sheet:", self.sheet_combo)
        form.addRow("Encoding:", self.encoding_combo)
        form.addRow("Header row:", self.header_combo)
        form.addRow("Separator:", self.sep_combo)
        form.addRow("Column names:", self.names_edit)
        form.addRow("Numeric columns:", self.numeric_picker)
        form.addRow(self.numeric_picker.hint)
        choices = QWidget()
        choices.setLayout(form)

        self.facts = QGridLayout()
        self.facts.setColumnStretch(1, 1)
        facts_box = QWidget()
        facts_layout = QVBoxLayout(facts_box)
        facts_layout.setContentsMargins(0, 0, 0, 0)
        facts_layout.addWidget(note_label("<b>Read as</b>", "heading"))
        facts_layout.addLayout(self.facts)
        facts_layout.addStretch(1)

        top = splitter(Qt.Horizontal, (choices, facts_box), (1, 1), collapsible=False)
        # The facts wrap word by word in a narrow column (clipping the header row's); give them room at the start.
        top.setSizes([600, 380])

        self.status = Callout("")
        self.status.setObjectName("preview_status")
        self.warnings = note_label("")
        self.table = RowsTable()
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.NoWrap)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        self.tabs = QTabWidget()
        self.tabs.addTab(self.table, "Records as read")
        self.tabs.addTab(self.text, "File as text")

        self.buttons = QDialogButtonBox(QDialogButtonBox.Cancel)
        self.load_button = self.buttons.addButton("Load", QDialogButtonBox.AcceptRole)
        self.load_button.setToolTip("Load the whole file with these settings, in the background.")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        title = note_label(f"<b>{html.escape(self.path.name)}</b> — {html.escape(str(self.path.parent))}")
        layout.addWidget(title)
        layout.addWidget(top)
        layout.addWidget(self.status)
        layout.addWidget(self.warnings)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.buttons)
        self.resize(fitting_size(self, QSize(980, 680), 0.88))
        self.set_options(options or ReadOptions())

    # ------------------------------------------------------------- options
    def options(self) -> ReadOptions:
        """The options chosen in the dialog."""
        names = tuple(n.strip() for n in self.names_edit.text().split(",") if n.strip())
        return ReadOptions(format=self.format_combo.currentData(), encoding=self.encoding_combo.currentData(),
                           header=self.header_combo.currentData(), sep=self.sep_combo.currentData(), names=names,
                           sheet=self.sheet_combo.currentData(), numeric=self.numeric_picker.value())

    def load_options(self) -> ReadOptions:
        """The options to load with: the choices, and the preview's guesses where the user left one open.

        Pinning the guesses makes the load read the file exactly as the
        preview showed it, even where a guess on the whole file could differ.
        """
        options = self.options()
        preview = self.preview
        if preview is None or not preview.ok:
            return options
        return options.replace(format=options.format or preview.format,
                               sep=options.sep if options.sep is not None else preview.separator,
                               header=options.header if options.header is not None else preview.header)

    def set_options(self, options: ReadOptions) -> None:
        """Show ``options`` and read the preview with them."""
        self._filling = True
        for combo, value in ((self.format_combo, options.format), (self.encoding_combo, options.encoding),
                             (self.header_combo, options.header), (self.sep_combo, options.sep)):
            index = combo.findData(value)
            if index < 0 and value is not None:  # an encoding or separator not in the list
                combo.addItem(str(value), value)
                index = combo.count() - 1
            combo.setCurrentIndex(max(index, 0))
        self.names_edit.setText(", ".join(options.names))
        if options.sheet is not None and self.sheet_combo.findData(options.sheet) < 0:
            self.sheet_combo.addItem(f"Sheet {options.sheet}", options.sheet)
        self.sheet_combo.setCurrentIndex(max(self.sheet_combo.findData(options.sheet), 0))
        self.numeric_picker.set_value(options.numeric)
        self._filling = False
        self.refresh()

    def _list_sheets(self, preview: Preview) -> None:
        """Fill the sheet choice with the workbook's sheets and their sizes (once: the list does not change)."""
        if not preview.sheets or self._sheets_listed:
            return
        self._sheets_listed = True
        chosen = self.sheet_combo.currentData()
        self._filling = True
        self.sheet_combo.clear()
        for info in preview.sheets:
            size = f"{info.rows:,} rows × {info.columns:,} columns" if info.rows else "empty"
            self.sheet_combo.addItem(f"{info.number}. {info.name} — {size}", str(info.number))
        index = self.sheet_combo.findData(chosen)
        if index < 0 and chosen is not None:
            index = next((i for i, info in enumerate(preview.sheets) if info.name == chosen), 0)
        self.sheet_combo.setCurrentIndex(max(index, 0))
        self._filling = False

    def _options_changed(self) -> None:
        if not self._filling:
            self.refresh()

    # ------------------------------------------------------------- preview
    def refresh(self) -> Preview:
        """Read the preview again with the dialog's options and show it."""
        self.typing.stop()
        self.preview = preview = preview_file(self.path, self.options())
        self._list_sheets(preview)
        self._show_facts(preview)
        self._enable_choices(preview)
        if preview.error:
            self.status.show_text(f"<b>Cannot be read this way:</b> {html.escape(preview.error)}<br>"
                                  "Change the choices above: the preview follows them.", "failed")
            self.table.set_source(None)
        else:
            more = " — a problem further down would show when the whole file loads" if preview.truncated else ""
            self.status.show_text(f"Showing {preview.extent()} as they will be loaded{more}.", "ok")
            self.table.set_source(rows_of(preview.data))
        self.warnings.setText("\n".join(f"⚠ {w}" for w in preview.warnings))
        self.warnings.setVisible(bool(preview.warnings))
        self.text.setPlainText("\n".join(f"{i:>4}  {line}" for i, line in enumerate(preview.text, start=1)))
        if preview.error and self.tabs.currentIndex() == 0:
            self.tabs.setCurrentIndex(1)  # nothing to show as records: show the text the error is about
        elif not preview.error:
            self.tabs.setCurrentIndex(0)
        self.load_button.setEnabled(preview.ok)
        if preview.kind == "table" and preview.ok and not self.names_edit.text():
            self.names_edit.setPlaceholderText(", ".join(map(str, preview.data.frame.columns)))
        self._offer_numeric(preview)
        return preview

    def _offer_numeric(self, preview: Preview) -> None:
        """List the table's columns to mark numeric; set-valued data has none.

        After an error the list stays as it was, so a mark that the error is about can be taken back; a ticked
        name the table no longer has (new column names) stays listed as "not in the table", to untick.
        """
        if preview.columns:
            columns = preview.columns
            listed = [self.numeric_picker.item(i).data(Qt.UserRole) for i in range(self.numeric_picker.count())]
            if columns != listed:
                ticked = self.numeric_picker.value()
                self.numeric_picker.set_columns(columns)
                self._filling = True
                self.numeric_picker.set_value(ticked)
                self._filling = False
        elif preview.ok:  # set-valued data
            self._filling = True
            self.numeric_picker.set_value(())
            self._filling = False
            self.numeric_picker.set_columns([])
        table = preview.kind == "table" or bool(preview.columns) or (not preview.ok and self.numeric_picker.count() > 0)
        self.numeric_picker.setEnabled(table)
        self.numeric_picker.setToolTip(NUMERIC_TIP if table else "Only a table's columns can be read as numbers.")

    def _show_facts(self, preview: Preview) -> None:
        while self.facts.count():
            item = self.facts.takeAt(0)
            widget = item.widget()
            if widget is not None:
                widget.setParent(None)  # gone at once, not at the next turn of the event loop
                widget.deleteLater()
        facts = preview.facts() if preview.format or preview.encoding else [("File", "could not be read")]
        facts.append(("Size", size_text(preview.file_size)))
        for row, (label, value) in enumerate(facts):
            name = QLabel(f"{label}:")
            name.setProperty("role", "note")
            text = note_label(html.escape(value))
            text.setObjectName(f"fact_{label.lower().replace(' ', '_')}")
            self.facts.addWidget(name, row, 0, Qt.AlignTop)
            self.facts.addWidget(text, row, 1)

    def _enable_choices(self, preview: Preview) -> None:
        """Offer only the choices the format (the chosen or the guessed one) understands."""
        name = preview.format or self.format_combo.currentData()
        accepted = applicable_options(get_format(name)) if name else set(self._choices)
        for key, widget in self._choices.items():
            widget.setEnabled(key in accepted)
            widget.setToolTip(self._tips[key] if key in accepted else f"Files in the {name} format have no such "
                                                                        "choice.")
