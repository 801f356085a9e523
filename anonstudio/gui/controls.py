"""Reusable controls of the studio, written once for every workbench.

* :class:`Callout` — the coloured banner with a run's promise and check;
* :class:`FileRow` — a file chooser (button, name, clear);
* :class:`ColumnCombo` / :class:`ColumnPicker` — one column / a ticked set of
  columns of the loaded table;
* :class:`LevelsTable` — per-level values (k and σ per itemset size ℓ);
* :class:`ColumnPathsEditor` — a file per column (hierarchies);
* :class:`ExportRow` — the save buttons of a method's exports;
* :func:`save_file_dialog`, :func:`open_file_dialog` — dialogs with the
  studio's defaults;
* :func:`percent`, :func:`integer`, :func:`number` — how numbers are written.

The look (colours, spacing) lives in :data:`STYLE`, applied once by the main
window, so no widget carries an inline style sheet of its own.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QMenu,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

__all__ = [
    "STYLE", "Callout", "FileRow", "ColumnCombo", "ColumnPicker", "LevelsTable", "ColumnPathsEditor", "ExportRow",
    "save_file_dialog", "open_file_dialog", "percent", "integer", "number", "note_label", "narrow_combo",
    "STATE_COLOURS", "HistoryBar", "Collapsible", "probability", "BoundedArea", "fitting_size",
]

#: Background and border of a callout per state.
STATE_COLOURS = {
    "info": ("#eef4fa", "#b8cfe6"),
    "ok": ("#e3f4e8", "#9fd2ae"),
    "warning": ("#fdf3d0", "#e6cf7a"),
    "incomplete": ("#fdf3d0", "#e6cf7a"),
    "failed": ("#fde2e1", "#e59a96"),
}

#: The studio's one style sheet (applied to the main window).
STYLE = "\n".join(
    [f'QLabel[callout="{state}"] {{ background: {bg}; border: 1px solid {border}; border-radius: 4px; '
     f'padding: 6px; }}' for state, (bg, border) in STATE_COLOURS.items()]
    + [
        'QLabel[role="note"] { color: #555; }',
        'QLabel[role="problem"] { color: #b00020; }',
        'QLabel[role="empty"] { color: #444; font-size: 13pt; padding: 40px; }',
        'QLabel[role="heading"] { font-weight: bold; }',
        'QLabel[role="empty-plot"] { color: #555; font-size: 11pt; background: transparent; }',
        'QLabel[role="guide"] { background: #f6f6f2; border: 1px solid #deded6; border-radius: 4px; '
        'padding: 6px; }',
        'QWidget[invalid="true"] { border: 1px solid #b00020; }',
    ]
)


def _restyle(widget: QWidget) -> None:
    style = widget.style()
    style.unpolish(widget)
    style.polish(widget)


def note_label(text: str = "", role: str = "note") -> QLabel:
    """A word-wrapped, selectable label in one of the studio's text roles (note, problem, heading)."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setProperty("role", role)
    label.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.LinksAccessibleByMouse)
    return label


def narrow_combo(combo: QComboBox, chars: int = 12) -> QComboBox:
    """Let a combo box with long item texts shrink with the parameter dock (the popup still shows them whole)."""
    combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(chars)
    view = combo.view()
    view.setMinimumWidth(max(view.sizeHintForColumn(0) + 24, 120))
    return combo


# ----------------------------------------------------------------- numbers
def integer(value: Any) -> str:
    """1234567 -> "1,234,567" (whole numbers always with thousands separators)."""
    try:
        return f"{int(round(float(value))):,}"
    except (TypeError, ValueError, OverflowError):
        return "n/a"


def number(value: Any, digits: int = 4) -> str:
    """A float with ``digits`` significant digits; whole numbers as :func:`integer`; NaN as "n/a"."""
    if value is None:
        return "n/a"
    try:
        x = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(x):
        return "n/a" if math.isnan(x) else ("∞" if x > 0 else "−∞")
    if x == int(x) and abs(x) < 1e15:
        return integer(x)
    return f"{x:.{digits}g}"


def probability(p: Any) -> str:
    """A probability with three decimals, and tiny non-zero ones in scientific notation (never "0.000")."""
    try:
        x = float(p)
    except (TypeError, ValueError):
        return "n/a"
    if not math.isfinite(x):
        return "n/a"
    if 0 < x < 0.0005:
        return f"{x:.1e}"
    return f"{x:.3f}"


def percent(share: Any, digits: int = 1) -> str:
    """0.0465 -> "4.7 %"; tiny non-zero shares stay visible as "< 0.1 %"; None/NaN -> "n/a"."""
    if share is None:
        return "n/a"
    try:
        x = float(share)
    except (TypeError, ValueError):
        return "n/a"
    if not math.isfinite(x):
        return "n/a"
    smallest = 10.0 ** -digits / 100.0
    if 0 < x < smallest:
        return f"< {smallest * 100:g} %"
    return f"{x * 100:.{digits}f} %"


# ----------------------------------------------------------------- callout
class Callout(QLabel):
    """A banner whose colour says the state: info, ok, warning, incomplete or failed."""

    def __init__(self, text: str = "", state: str = "info", parent: QWidget | None = None):
        super().__init__(text, parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.RichText)
        self.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.LinksAccessibleByMouse)
        self.set_state(state)

    def set_state(self, state: str) -> None:
        self.setProperty("callout", state if state in STATE_COLOURS else "info")
        _restyle(self)

    @property
    def state(self) -> str:
        return str(self.property("callout"))

    def show_text(self, text: str, state: str = "info") -> None:
        self.setText(text)
        self.set_state(state)
        area = self.parent().parent() if self.parent() is not None else None
        if isinstance(area, BoundedArea):
            area.fit()


class BoundedArea(QScrollArea):
    """Shows a widget at its natural height up to ``maximum`` pixels, and scrolls it beyond.

    Keeps a banner with a long text from pushing the results off a short screen, without leaving
    empty space under a short text.
    """

    def __init__(self, widget: QWidget, maximum: int, parent: QWidget | None = None):
        super().__init__(parent)
        self.maximum = maximum
        self.setWidget(widget)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt naming)
        inner = self.widget()
        width = max(self.viewport().width(), 100)
        height = inner.heightForWidth(width) if inner.hasHeightForWidth() else inner.sizeHint().height()
        return QSize(super().sizeHint().width(), min(max(height, 1) + 2, self.maximum))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt naming)
        return QSize(super().minimumSizeHint().width(), min(40, self.maximum))

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        super().resizeEvent(event)
        self.fit()

    def fit(self) -> None:
        """Re-read the widget's height (call after its text changed)."""
        self.setFixedHeight(self.sizeHint().height())


# ----------------------------------------------------------------- dialogs
def fitting_size(window: QWidget, preferred: QSize, share: float = 0.9) -> QSize:
    """``preferred``, shrunk to ``share`` of the screen's free area (a window that fits a 1280×720 laptop)."""
    screen = window.screen()
    if screen is None:
        return preferred
    available = screen.availableGeometry()
    return QSize(min(preferred.width(), int(available.width() * share)),
                 min(preferred.height(), int(available.height() * share)))


def open_file_dialog(parent: QWidget | None, title: str, file_filter: str = "All files (*)",
                     start: str | Path = "") -> Path | None:
    """The file the user picked, or None."""
    name, _ = QFileDialog.getOpenFileName(parent, title, str(start), file_filter)
    return Path(name) if name else None


def save_file_dialog(parent: QWidget | None, title: str, default_name: str,
                     extensions: Sequence[str] = (), start: str | Path = "") -> Path | None:
    """The file to write, or None; the first extension is added when the user typed none."""
    patterns = " ".join(f"*{e}" for e in extensions)
    filters = (f"{title} ({patterns});;All files (*)" if patterns else "All files (*)")
    name, _ = QFileDialog.getSaveFileName(parent, title, str(Path(start) / default_name) if start else default_name,
                                          filters)
    if not name:
        return None
    path = Path(name)
    if extensions and not any(path.name.endswith(e) for e in extensions):
        path = path.with_name(path.name + extensions[0])
    return path


# ----------------------------------------------------------------- file row
class FileRow(QWidget):
    """A file chooser: "Choose…" button, the file's name, and a clear button.

    Signals
    -------
    changed()
        The chosen file changed (also when cleared).
    """

    changed = Signal()

    def __init__(self, title: str, file_filter: str = "All files (*)", *, clearable: bool = True,
                 empty_text: str = "no file", parent: QWidget | None = None):
        super().__init__(parent)
        self.title = title
        self.empty_text = empty_text
        self.file_filter = file_filter
        self._path: Path | None = None
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.button = QPushButton("Choose…")
        self.button.clicked.connect(self._choose)
        self.label = QLabel(empty_text)
        self.label.setProperty("role", "note")
        # A long file name must not widen the narrow parameters dock.
        self.label.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.clear_button = QToolButton()
        self.clear_button.setText("×")
        self.clear_button.setToolTip("No file")
        self.clear_button.clicked.connect(lambda: self.set_path(None))
        self.clear_button.setVisible(clearable)
        layout.addWidget(self.button)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.clear_button)

    def path(self) -> Path | None:
        return self._path

    def set_path(self, path: str | Path | None) -> None:
        new = Path(path) if path else None
        changed = new != self._path
        self._path = new
        self.label.setText(new.name if new else self.empty_text)
        self.label.setToolTip(str(new) if new else "")
        self.clear_button.setEnabled(new is not None)
        if changed:
            self.changed.emit()

    def setToolTip(self, text: str) -> None:  # noqa: N802 (Qt naming)
        super().setToolTip(text)
        self.button.setToolTip(text)

    def _choose(self) -> None:
        start = self._path.parent if self._path else ""
        path = open_file_dialog(self, self.title, self.file_filter, start)
        if path is not None:
            self.set_path(path)


# ----------------------------------------------------------------- columns
class ColumnCombo(QComboBox):
    """One column of the loaded table; the first entry means "the table's default" (an empty value)."""

    def __init__(self, empty_text: str = "(as marked in the table)", parent: QWidget | None = None):
        super().__init__(parent)
        self.empty_text = empty_text
        narrow_combo(self)
        self.set_columns([])

    def set_columns(self, columns: Iterable[str], counts: dict[str, int] | None = None) -> None:
        current = self.value()
        self.blockSignals(True)
        self.clear()
        self.addItem(self.empty_text, "")
        for c in columns:
            text = f"{c} ({counts[c]:,})" if counts and c in counts else str(c)
            self.addItem(text, str(c))
        self.blockSignals(False)
        self.set_value(current)

    def value(self) -> str:
        data = self.currentData()
        return str(data) if data else ""

    def set_value(self, value: str | None) -> None:
        index = self.findData(value or "")
        if index < 0 and value:  # a column the table does not have: show it, validation names it
            self.addItem(f"{value} (not in the table)", value)
            index = self.count() - 1
        self.setCurrentIndex(max(index, 0))


class ColumnPicker(QListWidget):
    """A ticked subset of the table's columns (in table order).

    Signals
    -------
    changed()
        The ticked set changed.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None, *, empty_text: str = ""):
        super().__init__(parent)
        self.setSelectionMode(QAbstractItemView.NoSelection)
        self.setMinimumHeight(80)
        self.setMaximumHeight(170)
        self._filling = False
        self.itemChanged.connect(self._item_changed)
        #: Shown under the list while nothing is ticked (what an empty choice means).
        self.hint = note_label(f"Nothing ticked: {empty_text}." if empty_text else "")
        self.hint.setVisible(False)
        self.changed.connect(self._update_hint)

    def _update_hint(self) -> None:
        self.hint.setVisible(bool(self.hint.text()) and not self.value())

    def set_columns(self, columns: Iterable[str], counts: dict[str, int] | None = None) -> None:
        ticked = set(self.value())
        self._filling = True
        self.clear()
        for c in columns:
            item = QListWidgetItem(f"{c} ({counts[c]:,})" if counts and c in counts else str(c))
            item.setData(Qt.UserRole, str(c))
            item.setFlags(Qt.ItemIsUserCheckable | Qt.ItemIsEnabled)
            item.setCheckState(Qt.Checked if str(c) in ticked else Qt.Unchecked)
            self.addItem(item)
        self._filling = False
        self._update_hint()

    def value(self) -> tuple[str, ...]:
        return tuple(self.item(i).data(Qt.UserRole) for i in range(self.count())
                     if self.item(i).checkState() == Qt.Checked)

    def set_value(self, columns: Iterable[str]) -> None:
        wanted = [str(c) for c in columns]
        present = {self.item(i).data(Qt.UserRole) for i in range(self.count())}
        self._filling = True
        for c in wanted:  # keep names the table lacks visible, so validation can name them
            if c not in present:
                item = QListWidgetItem(f"{c} (not in the table)")
                item.setData(Qt.UserRole, c)
                item.setFlags(Qt.ItemIsUserCheckable | Qt.ItemIsEnabled)
                self.addItem(item)
        for i in range(self.count()):
            item = self.item(i)
            item.setCheckState(Qt.Checked if item.data(Qt.UserRole) in wanted else Qt.Unchecked)
        self._filling = False
        self.changed.emit()

    def _item_changed(self, _item: QListWidgetItem) -> None:
        if not self._filling:
            self.changed.emit()


class ColumnPathsEditor(QWidget):
    """A file per column (e.g. a generalization hierarchy): one row per pair, add and remove buttons."""

    changed = Signal()

    def __init__(self, title: str, file_filter: str = "All files (*)", parent: QWidget | None = None):
        super().__init__(parent)
        self.title, self.file_filter = title, file_filter
        self.columns: list[str] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["column", "file"])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setMaximumHeight(110)
        self.table.verticalHeader().setDefaultSectionSize(22)
        buttons = QHBoxLayout()
        self.add_button = QPushButton("Add…")
        self.add_button.setToolTip("Choose a column, then its file.")
        self.add_button.clicked.connect(self._add)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self._remove)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        self._pairs: list[tuple[str, Path]] = []

    def set_columns(self, columns: Iterable[str]) -> None:
        self.columns = [str(c) for c in columns]

    def value(self) -> tuple[tuple[str, Path], ...]:
        return tuple(self._pairs)

    def set_value(self, pairs: Iterable[tuple[str, Path]]) -> None:
        self._pairs = [(str(c), Path(p)) for c, p in pairs]
        self.table.setRowCount(len(self._pairs))
        for r, (c, p) in enumerate(self._pairs):
            self.table.setItem(r, 0, QTableWidgetItem(c))
            item = QTableWidgetItem(p.name)
            item.setToolTip(str(p))
            self.table.setItem(r, 1, item)
        self.changed.emit()

    def _add(self) -> None:
        from PySide6.QtWidgets import QInputDialog

        choices = [c for c in self.columns if c not in {p[0] for p in self._pairs}] or self.columns
        if not choices:
            return
        column, ok = QInputDialog.getItem(self, self.title, "Column:", choices, 0, False)
        if not ok:
            return
        path = open_file_dialog(self, f"{self.title}: {column}", self.file_filter)
        if path is not None:
            self.set_value([*self._pairs, (column, path)])

    def _remove(self) -> None:
        row = self.table.currentRow()
        if 0 <= row < len(self._pairs):
            self.set_value(self._pairs[:row] + self._pairs[row + 1:])


# ----------------------------------------------------------------- levels
class LevelsTable(QWidget):
    """Per-level values: one row per level ℓ = 1..count, one column per levels field.

    "Same for every level" (the default) leaves every field empty, meaning the
    scalar value applies to all levels. Read-only info columns (e.g. the
    samples γ a σ needs) are added with :meth:`add_info_column`.

    Signals
    -------
    changed()
        A value or the "same" box changed.
    """

    changed = Signal()

    def __init__(self, columns: Sequence[tuple[str, str, str]], parent: QWidget | None = None):
        """``columns``: (field name, header, element kind "int" or "float") per levels field."""
        super().__init__(parent)
        self.fields = [c[0] for c in columns]
        self.kinds = {c[0]: c[2] for c in columns}
        self.headers = [c[1] for c in columns]
        self.info: list[tuple[str, Callable[[dict[str, str]], str]]] = []
        self.count = 1
        self.scalars: dict[str, str] = {}
        self._filling = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.same_box = QCheckBox("Same for every level")
        self.same_box.setChecked(True)
        self.same_box.setToolTip("Unchecked: give each level ℓ its own value in the table.")
        self.same_box.toggled.connect(self._same_toggled)
        self.table = QTableWidget(0, len(self.fields))
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setMaximumHeight(170)
        self.table.setMinimumWidth(120)
        self.table.cellChanged.connect(self._cell_changed)
        layout.addWidget(self.same_box)
        layout.addWidget(self.table)
        self._values: dict[str, list[str]] = {f: [] for f in self.fields}
        self._refresh()

    def add_info_column(self, header: str, text: Callable[[dict[str, str]], str]) -> None:
        """A read-only column computed from a row's values (field name -> text)."""
        self.info.append((header, text))
        self._refresh()

    def set_context(self, count: int, scalars: dict[str, str]) -> None:
        """The number of levels and the scalar value of each field (shown when "same" is ticked)."""
        self.count = max(int(count), 1)
        self.scalars = dict(scalars)
        self._refresh()

    def value(self, field: str) -> tuple:
        if self.same_box.isChecked():
            return ()
        convert = int if self.kinds[field] == "int" else float
        out = []
        for text in self._values[field][: self.count]:
            try:
                out.append(convert(float(text)) if convert is int and float(text) == int(float(text))
                           else convert(text))
            except ValueError:
                out.append(text)  # validation names the bad level
        return tuple(out)

    def set_value(self, field: str, values: Sequence) -> None:
        self._values[field] = [("%g" % v) if isinstance(v, float) else str(v) for v in values]
        any_set = any(self._values[f] for f in self.fields)
        self._filling = True
        self.same_box.setChecked(not any_set)
        self._filling = False
        self._refresh()

    def _row_values(self, row: int) -> dict[str, str]:
        same = self.same_box.isChecked()
        out = {}
        for f in self.fields:
            values = self._values[f]
            if same or not values:
                out[f] = self.scalars.get(f, "")
            else:
                out[f] = values[row] if row < len(values) else values[-1]
        return out

    def _refresh(self) -> None:
        table = self.table
        self._filling = True
        table.blockSignals(True)
        table.setColumnCount(len(self.fields) + len(self.info))
        table.setHorizontalHeaderLabels(self.headers + [h for h, _ in self.info])
        table.setRowCount(self.count)
        table.setVerticalHeaderLabels([f"ℓ = {i}" for i in range(1, self.count + 1)])
        editable = not self.same_box.isChecked()
        for row in range(self.count):
            values = self._row_values(row)
            for col, f in enumerate(self.fields):
                item = QTableWidgetItem(values[f])
                flags = Qt.ItemIsSelectable | Qt.ItemIsEnabled
                if editable:
                    flags |= Qt.ItemIsEditable
                item.setFlags(flags)
                table.setItem(row, col, item)
            for j, (_, text) in enumerate(self.info):
                item = QTableWidgetItem(text(values))
                item.setFlags(Qt.ItemIsSelectable | Qt.ItemIsEnabled)
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                table.setItem(row, len(self.fields) + j, item)
        table.setEditTriggers(QAbstractItemView.AllEditTriggers if editable else QAbstractItemView.NoEditTriggers)
        table.blockSignals(False)
        self._filling = False

    def mark_invalid(self, field: str, level: int | None) -> None:
        """Colour the cell of ``field`` at ``level`` (1-based) red; None clears every mark."""
        for row in range(self.table.rowCount()):
            for col in range(len(self.fields)):
                item = self.table.item(row, col)
                if item is not None:
                    bad = level is not None and self.fields[col] == field and row == level - 1
                    item.setBackground(QColor("#f8d0d0") if bad else QColor(0, 0, 0, 0))

    def _same_toggled(self, same: bool) -> None:
        if self._filling:
            return
        if same:
            for f in self.fields:
                self._values[f] = []
        else:
            for f in self.fields:
                self._values[f] = [self.scalars.get(f, "")] * self.count
        self._refresh()
        self.changed.emit()

    def _cell_changed(self, row: int, col: int) -> None:
        if self._filling or col >= len(self.fields):
            return
        f = self.fields[col]
        values = [self._row_values(r)[f] for r in range(self.count)]
        values[row] = self.table.item(row, col).text().strip()
        self._values[f] = values
        self._refresh()
        self.changed.emit()


# ----------------------------------------------------------------- exports
class ExportRow(QWidget):
    """"Save:", one button per export, and a "More" menu for the secondary ones.

    Each button or menu entry calls ``on_export(key)``. :attr:`buttons` maps
    every key to its QPushButton or QAction (both have ``isEnabled``,
    ``setEnabled`` and ``toolTip``).
    """

    def __init__(self, exports: Sequence[tuple[str, str, str]], on_export: Callable[[str], None],
                 caption: str = "Save:", parent: QWidget | None = None,
                 more: Sequence[tuple[str, str, str]] = ()):
        """``exports`` and ``more``: (key, text, tooltip) per export; ``more`` go into the "More" menu."""
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel(caption))
        self.buttons: dict[str, Any] = {}
        for key, text, tip in exports:
            button = QPushButton(text)
            button.setObjectName(f"export_{key}")
            button.setToolTip(tip)
            button.setEnabled(False)
            button.clicked.connect(lambda _=False, k=key: on_export(k))
            layout.addWidget(button)
            self.buttons[key] = button
        if more:
            # The run's JSON and its command line: useful, but not what most people save first, so they
            # sit in a menu and the row fits a small window.
            self.more_button = QToolButton()
            self.more_button.setText("More")
            self.more_button.setObjectName("export_more")
            self.more_button.setPopupMode(QToolButton.InstantPopup)
            self.more_button.setToolTip("The run as JSON, and the command line that repeats it.")
            menu = QMenu(self.more_button)
            menu.setToolTipsVisible(True)
            for key, text, tip in more:
                action = menu.addAction(text)
                action.setObjectName(f"export_{key}")
                action.setToolTip(tip)
                action.setEnabled(False)
                action.triggered.connect(lambda _=False, k=key: on_export(k))
                self.buttons[key] = action
            self.more_button.setMenu(menu)
            layout.addWidget(self.more_button)
        layout.addStretch(1)

    def set_enabled(self, enabled: dict[str, bool]) -> None:
        for key, button in self.buttons.items():
            button.setEnabled(bool(enabled.get(key, False)))

    def set_reason(self, key: str, reason: str) -> None:
        """Explain in the tooltip why a button is disabled ("" restores the plain tooltip)."""
        button = self.buttons[key]
        base = button.property("base_tip") or button.toolTip()
        button.setProperty("base_tip", base)
        button.setToolTip(f"{base}\n\nNot available: {reason}" if reason else base)


# ----------------------------------------------------------------- history
class HistoryBar(QWidget):
    """The runs of a workbench: which one is shown, and which one is drawn beside it for comparison.

    Signals
    -------
    shown(int)
        Index of the run to show.
    compared(int)
        Index of the run to draw beside it, or -1 for none.
    """

    shown = Signal(int)
    compared = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.run_combo = QComboBox()
        self.run_combo.setObjectName("history_run")
        self.run_combo.setToolTip("Every run of this tab, newest first: pick one to show its results again.")
        self.compare_combo = QComboBox()
        self.compare_combo.setObjectName("history_compare")
        self.compare_combo.setToolTip("Draw another run's curves beside the shown one (dashed), to compare "
                                      "parameters.")
        for combo in (self.run_combo, self.compare_combo):
            narrow_combo(combo, 24)
        layout.addWidget(QLabel("Run:"))
        layout.addWidget(self.run_combo, 2)
        layout.addWidget(QLabel("compare with:"))
        layout.addWidget(self.compare_combo, 2)
        self._filling = False
        self.run_combo.currentIndexChanged.connect(self._run_changed)
        self.compare_combo.currentIndexChanged.connect(self._compare_changed)
        self.set_runs([])

    def set_runs(self, labels: Sequence[str], shown: int | None = None) -> None:
        """Show the run labels (oldest first in ``labels``; listed newest first); select ``shown``."""
        self._filling = True
        self.run_combo.clear()
        self.compare_combo.clear()
        self.compare_combo.addItem("none", -1)
        for i in reversed(range(len(labels))):
            self.run_combo.addItem(labels[i], i)
            self.compare_combo.addItem(labels[i], i)
        if shown is not None:
            self.run_combo.setCurrentIndex(max(self.run_combo.findData(shown), 0))
        self._filling = False
        self.setEnabled(bool(labels))

    def _run_changed(self) -> None:
        if not self._filling and self.run_combo.currentData() is not None:
            self.shown.emit(int(self.run_combo.currentData()))

    def _compare_changed(self) -> None:
        if not self._filling and self.compare_combo.currentData() is not None:
            self.compared.emit(int(self.compare_combo.currentData()))


class Collapsible(QWidget):
    """A toggle button that shows or hides a text panel (the in-app guide of a workbench)."""

    def __init__(self, title: str, text: str, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.toggle = QToolButton()
        self.toggle.setText(title)
        self.toggle.setCheckable(True)
        self.toggle.setArrowType(Qt.RightArrow)
        self.toggle.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.toggle.setAutoRaise(True)
        self.body = note_label(text, "guide")
        self.body.setVisible(False)
        self.toggle.toggled.connect(self._toggled)
        layout.addWidget(self.toggle)
        layout.addWidget(self.body)

    def _toggled(self, on: bool) -> None:
        self.toggle.setArrowType(Qt.DownArrow if on else Qt.RightArrow)
        self.body.setVisible(on)
