"""The columns of a table: their summary, and the privacy role of each, set once per table.

* :class:`ColumnSummaryModel` — one row per column: name, role, type,
  distinct values, missing values, most common values (what
  ``anonstudio-cli info`` prints, from :func:`anonstudio.data.summary.column_summaries`);
  the role cell is editable when asked;
* :class:`RoleDelegate` — the role cell's editor, a combo box;
* :class:`ColumnRolesEditor` — the datasets dock's editor: the summary with
  editable roles, a note on where the roles came from and a reset button;
  it emits the new roles, and the dock re-announces the table so that every
  workbench takes them as its defaults.
"""
from __future__ import annotations

import dataclasses
import weakref
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QStyledItemDelegate,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..data.summary import ColumnSummary, column_summaries
from ..data.table import Role, Table
from ..formatting import integer
from .controls import note_label

__all__ = ["ColumnSummaryModel", "RoleDelegate", "ColumnRolesEditor", "ROLE_HELP", "ROLE_COLOURS", "summaries_of"]

#: What each role means, in the words of the role cell's tooltip.
ROLE_HELP = {
    Role.IDENTIFIER: "Identifies a person directly (name, id): never published.",
    Role.QUASI_IDENTIFIER: "Known to an attacker from elsewhere (age, sex, ZIP code): generalized or grouped "
                           "before release.",
    Role.SENSITIVE: "Must not be learned about a person (diagnosis, occupation): protected by ℓ-diversity and "
                    "measured by the threat analysis.",
    Role.INSENSITIVE: "Released as it is; assumed unknown to an attacker and harmless.",
}

#: Background of a role cell.
ROLE_COLOURS = {
    Role.IDENTIFIER: "#fde2e1",
    Role.QUASI_IDENTIFIER: "#fff0cc",
    Role.SENSITIVE: "#ece1f7",
    Role.INSENSITIVE: "#eef1f4",
}

COLUMNS = ("column", "role", "type", "distinct", "missing", "most common")
ROLE_COLUMN = 1
NUMERIC = frozenset({3, 4})

_CACHE: dict[int, tuple[weakref.ref, list[ColumnSummary]]] = {}


def summaries_of(table: Table) -> list[ColumnSummary]:
    """The column summaries of ``table`` with its current roles.

    Counting distinct values is the slow part on a large table; it is done
    once per loaded frame, so a role change or a second view costs nothing.
    """
    key = id(table.frame)
    cached = _CACHE.get(key)
    if cached is None or cached[0]() is not table.frame:
        for stale in [k for k, (ref, _) in _CACHE.items() if ref() is None]:
            del _CACHE[stale]
        _CACHE[key] = (weakref.ref(table.frame), column_summaries(table))
    return [dataclasses.replace(s, role=table.role(s.name).value) for s in _CACHE[key][1]]


class ColumnSummaryModel(QAbstractTableModel):
    """One row per column of a table (see the module docstring).

    Signals
    -------
    roles_edited(dict)
        The user changed a role; carries every column's role (name -> Role).
    """

    roles_edited = Signal(dict)

    def __init__(self, editable: bool = False, parent=None):
        super().__init__(parent)
        self.editable = editable
        self.table: Table | None = None
        self.rows: list[ColumnSummary] = []

    def set_table(self, table: Table | None) -> None:
        self.beginResetModel()
        self.table = table
        self.rows = summaries_of(table) if table is not None else []
        self.endResetModel()

    def roles(self) -> dict[str, Role]:
        return {s.name: Role(s.role) for s in self.rows}

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def flags(self, index: QModelIndex) -> Qt.ItemFlags:
        flags = Qt.ItemIsEnabled | Qt.ItemIsSelectable
        if self.editable and index.column() == ROLE_COLUMN:
            flags |= Qt.ItemIsEditable
        return flags

    def data(self, index: QModelIndex, role: int = Qt.DisplayRole) -> Any:
        if not index.isValid():
            return None
        s = self.rows[index.row()]
        column = index.column()
        if role == Qt.DisplayRole:
            return self._text(s, column)
        if role == Qt.EditRole and column == ROLE_COLUMN:
            return s.role
        if role == Qt.BackgroundRole and column == ROLE_COLUMN:
            return QBrush(QColor(ROLE_COLOURS[Role(s.role)]))
        if role == Qt.TextAlignmentRole:
            return int((Qt.AlignRight if column in NUMERIC else Qt.AlignLeft) | Qt.AlignVCenter)
        if role == Qt.ToolTipRole:
            if column == ROLE_COLUMN:
                change = " Click to change it." if self.editable else " Set roles in the Datasets dock."
                return ROLE_HELP[Role(s.role)] + change
            if column == 5:
                return "\n".join(f"{text}: {integer(n)} rows" for text, n in s.top) or None
        return None

    @staticmethod
    def _text(s: ColumnSummary, column: int) -> str:
        if column == 0:
            return s.name
        if column == ROLE_COLUMN:
            return s.role
        if column == 2:
            return s.type
        if column == 3:
            return integer(s.distinct)
        if column == 4:
            return integer(s.missing) if s.missing else "–"
        return ", ".join(f"{text} ({integer(n)})" for text, n in s.top)

    def setData(self, index: QModelIndex, value: Any, role: int = Qt.EditRole) -> bool:  # noqa: N802
        if not (self.editable and index.isValid() and index.column() == ROLE_COLUMN and role == Qt.EditRole):
            return False
        try:
            new = Role(value)
        except ValueError:
            return False
        s = self.rows[index.row()]
        if new.value == s.role:
            return False
        self.rows[index.row()] = dataclasses.replace(s, role=new.value)
        self.dataChanged.emit(index, index)
        self.roles_edited.emit(self.roles())
        return True

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Horizontal and role == Qt.DisplayRole:
            return COLUMNS[section]
        if orientation == Qt.Horizontal and role == Qt.ToolTipRole:
            return {1: "What the column means to an attacker; the methods use these roles unless told otherwise.",
                    3: "Number of different values.", 4: "Rows without a value.",
                    5: "The most common values and how many rows hold each."}.get(section)
        return None


class RoleDelegate(QStyledItemDelegate):
    """A combo box of the four roles for the role cell; the choice applies at once."""

    def createEditor(self, parent: QWidget, option, index: QModelIndex) -> QWidget:  # noqa: N802
        combo = QComboBox(parent)
        for r in Role:
            combo.addItem(r.value, r.value)
            combo.setItemData(combo.count() - 1, ROLE_HELP[r], Qt.ToolTipRole)
        combo.activated.connect(lambda _=0, c=combo: self._commit(c))
        return combo

    def _commit(self, combo: QComboBox) -> None:
        self.commitData.emit(combo)
        self.closeEditor.emit(combo)

    def setEditorData(self, editor: QWidget, index: QModelIndex) -> None:  # noqa: N802
        editor.setCurrentIndex(max(editor.findData(index.data(Qt.EditRole)), 0))

    def setModelData(self, editor: QWidget, model, index: QModelIndex) -> None:  # noqa: N802
        model.setData(index, editor.currentData(), Qt.EditRole)


def summary_view(model: ColumnSummaryModel) -> QTableView:
    """A compact table view of a :class:`ColumnSummaryModel` (role cells editable when the model is)."""
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectRows)
    view.setSelectionMode(QAbstractItemView.SingleSelection)
    view.setWordWrap(False)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 10)
    header = view.horizontalHeader()
    header.setStretchLastSection(True)
    header.setHighlightSections(False)
    header.setSectionResizeMode(QHeaderView.Interactive)

    def fit() -> None:
        # One row per column of the table: sizing to the contents is cheap here.
        for column in range(ROLE_COLUMN + 4):
            view.resizeColumnToContents(column)
            view.setColumnWidth(column, min(view.columnWidth(column), 220))

    model.modelReset.connect(fit)
    if model.editable:
        view.setItemDelegateForColumn(ROLE_COLUMN, RoleDelegate(view))
        view.setEditTriggers(QAbstractItemView.AllEditTriggers)
    else:
        view.setEditTriggers(QAbstractItemView.NoEditTriggers)
    return view


class ColumnRolesEditor(QWidget):
    """The datasets dock's column editor: name, role (editable), distinct and missing per column.

    Signals
    -------
    roles_changed(dict)
        The user changed the roles; carries every column's role (name -> Role).
    """

    roles_changed = Signal(dict)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.model = ColumnSummaryModel(editable=True, parent=self)
        self.model.roles_edited.connect(self.roles_changed)
        self.view = summary_view(self.model)
        for hidden in (2, 5):  # type and most common values: in the data view, where there is room
            self.view.setColumnHidden(hidden, True)
        self.view.setToolTip("Each column's role. Click a role to change it: every workbench then uses the new "
                             "roles as its default columns.")
        self.origin = note_label("")
        self.reset_button = QPushButton("Reset roles")
        self.reset_button.setToolTip("Back to the roles the table had when it was loaded.")
        self.reset_button.clicked.connect(self._reset)
        self.reset_button.setEnabled(False)
        row = QHBoxLayout()
        row.addWidget(self.origin, 1)
        row.addWidget(self.reset_button, 0, Qt.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(note_label("<b>Columns and roles</b>", "heading"))
        layout.addWidget(self.view, 1)
        layout.addLayout(row)
        self._loaded_roles: dict[str, Role] = {}

    def set_table(self, table: Table | None, origin: str = "", *, loaded: bool = True) -> None:
        """Show ``table``'s columns; ``loaded`` marks its roles as the ones Reset goes back to."""
        self.model.set_table(table)
        if loaded:
            self._loaded_roles = self.model.roles()
        if origin:
            self.origin.setText(origin)
        self.reset_button.setEnabled(table is not None and self.model.roles() != self._loaded_roles)

    def _reset(self) -> None:
        if self._loaded_roles and self.model.roles() != self._loaded_roles:
            self.roles_changed.emit(dict(self._loaded_roles))
