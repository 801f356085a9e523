"""The published records as a table of item chips, and the published records one person could be.

Left: every published record (``PUBLISHED.csv`` as the release writes it):
base and distance items as chips (:mod:`.chips`), the threshold and the
label. Right: pick a person (an original record) to see their items and the
published records whose possible worlds include them. The graph links each
person to k of those, each equally likely to be the true one; others may fit
by chance (the possible-world relation is wider than the graph, note T6).
Clicking one scrolls the left table to it.
"""
from __future__ import annotations

import html
from typing import Any

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ....methods.nonreciprocal.publish import world_slots
from ....methods.nonreciprocal.result import NonreciprocalResult
from ...controls import integer, note_label
from .chips import CHIPS_ROLE, ChipDelegate, ChipStrip, chip_legend_html

__all__ = ["PublishedModel", "WorldsModel", "PublishedView", "LINK", "FITS", "person_worlds"]

LINK = "graph link"
FITS = "fits by chance"
LINK_COLOUR = QColor("#fff1c2")
FITS_COLOUR = QColor("#f5f1e6")
ROW_HEIGHT = 24


def _base_chips(result: NonreciprocalResult, j: int) -> list[tuple[str, str]]:
    pub = result.published
    dist = set(pub.distance(j).tolist())
    return [(result.vocab[i], "unsure" if i in dist else "sure") for i in pub.base(j).tolist()]


def _distance_chips(result: NonreciprocalResult, j: int) -> list[tuple[str, str]]:
    return [(result.vocab[i], "distance") for i in result.published.distance(j).tolist()]


def _slot_label(result: NonreciprocalResult, j: int) -> str:
    if result.labels is None or result.slot_labels is None:
        return ""
    return result.labels.names[int(result.slot_labels[j])]


def person_worlds(result: NonreciprocalResult, data: Any, person: int) -> tuple[np.ndarray, np.ndarray]:
    """(published records person ``person`` could be, whether each is one of the person's graph links)."""
    slots = world_slots(result.published, data.record(person))
    linked = np.isin(slots, result.graph[person]) if result.graph is not None else np.zeros(len(slots), bool)
    return slots, linked


class PublishedModel(QAbstractTableModel):
    """Every published record of a finished run; rows are slots in release order."""

    HEADERS = ("record", "base", "distance", "threshold", "label")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.result: NonreciprocalResult | None = None
        self.marks: dict[int, str] = {}

    def set_result(self, result: NonreciprocalResult | None) -> None:
        self.beginResetModel()
        self.result = result if result is not None and result.published is not None else None
        self.marks = {}
        self.endResetModel()

    def set_marks(self, marks: dict[int, str]) -> None:
        """Shade rows: ``{slot: LINK or FITS}`` (the published records a picked person could be)."""
        self.marks = dict(marks)
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, self.columnCount() - 1),
                                  [Qt.BackgroundRole])

    @property
    def has_labels(self) -> bool:
        return self.result is not None and self.result.slot_labels is not None

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() or self.result is None else self.result.published.n_slots

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 5 if self.has_labels else 4

    def headerData(self, section: int, orientation, role=Qt.DisplayRole):  # noqa: N802 (Qt naming)
        if orientation == Qt.Horizontal and role == Qt.DisplayRole:
            return self.HEADERS[section]
        if orientation == Qt.Horizontal and role == Qt.ToolTipRole:
            return ("The published record, named as the release names it (its number in the input, or the input's "
                    "identifier).",
                    "The items the published record shows: the majority vote of the people it covers.",
                    "Distance items: those on which the people behind it disagree; only there may a person differ "
                    "from the base.",
                    "At most this many items differ between the base and any person the record could be.",
                    "The sensitive label published with the record (its true person's label).")[section]
        return None

    def data(self, index: QModelIndex, role=Qt.DisplayRole):
        result = self.result
        if result is None or not index.isValid():
            return None
        j, col = index.row(), index.column()
        if role == Qt.BackgroundRole:
            mark = self.marks.get(j)
            return LINK_COLOUR if mark == LINK else FITS_COLOUR if mark == FITS else None
        if col in (1, 2) and role in (CHIPS_ROLE, Qt.DisplayRole, Qt.ToolTipRole):
            chips = _base_chips(result, j) if col == 1 else _distance_chips(result, j)
            if role == CHIPS_ROLE:
                return chips
            text = "; ".join(t for t, _ in chips)
            return text if role == Qt.DisplayRole else (text or "(none)")
        if role == Qt.DisplayRole:
            if col == 0:
                return result.record_name(j)
            if col == 3:
                return integer(result.published.threshold[j])
            if col == 4:
                return _slot_label(result, j)
        if role == Qt.TextAlignmentRole and col in (0, 3):
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None


class WorldsModel(QAbstractTableModel):
    """The published records one person could be: name, base chips, how (graph link or by chance), label."""

    HEADERS = ("record", "base", "how", "label")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.result: NonreciprocalResult | None = None
        self.slots = np.zeros(0, np.int64)
        self.linked = np.zeros(0, bool)

    def set_worlds(self, result: NonreciprocalResult | None, slots: np.ndarray, linked: np.ndarray) -> None:
        self.beginResetModel()
        self.result = result
        # the graph's links first, each group in release order
        order = np.lexsort((slots, ~linked)) if len(slots) else np.zeros(0, np.int64)
        self.slots, self.linked = slots[order], linked[order]
        self.endResetModel()

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() or self.result is None else len(self.slots)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 4 if self.result is not None and self.result.slot_labels is not None else 3

    def headerData(self, section: int, orientation, role=Qt.DisplayRole):  # noqa: N802 (Qt naming)
        if orientation == Qt.Horizontal and role == Qt.DisplayRole:
            return self.HEADERS[section]
        return None

    def data(self, index: QModelIndex, role=Qt.DisplayRole):
        if self.result is None or not index.isValid():
            return None
        r, col = index.row(), index.column()
        j = int(self.slots[r])
        if role == Qt.BackgroundRole:
            return LINK_COLOUR if self.linked[r] else FITS_COLOUR
        if col == 1 and role in (CHIPS_ROLE, Qt.DisplayRole, Qt.ToolTipRole):
            chips = _base_chips(self.result, j)
            return chips if role == CHIPS_ROLE else "; ".join(t for t, _ in chips)
        if role == Qt.DisplayRole:
            return (self.result.record_name(j), None, LINK if self.linked[r] else FITS, _slot_label(self.result, j))[col]
        if role == Qt.TextAlignmentRole and col == 0:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        if role == Qt.ToolTipRole and col == 2:
            return ("One of the person's k links in the generalization graph: the true published record is one of "
                    "these, each equally likely." if self.linked[r] else
                    "Not linked to the person by the graph, yet their record fits it: one more published record "
                    "an attacker must consider (possible worlds are wider than the graph).")
        return None


def _table(model: QAbstractTableModel, name: str) -> QTableView:
    view = QTableView()
    view.setObjectName(name)
    view.setModel(model)
    view.setItemDelegate(ChipDelegate(view))
    view.setSelectionBehavior(QAbstractItemView.SelectRows)
    view.setSelectionMode(QAbstractItemView.SingleSelection)
    view.setEditTriggers(QAbstractItemView.NoEditTriggers)
    view.verticalHeader().setVisible(False)
    # Fixed row heights and column widths: a release of 60,000 records must not be measured row by row.
    view.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
    view.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
    view.horizontalHeader().setStretchLastSection(True)
    view.setWordWrap(False)
    return view


def _fit_columns(view: QTableView, fixed: dict[int, int], stretch: tuple[int, ...]) -> None:
    """Chip columns share the spare width; the others get a fixed, user-adjustable width (never measured)."""
    header = view.horizontalHeader()
    header.setStretchLastSection(False)
    for column in range(view.model().columnCount()):
        if column in stretch:
            header.setSectionResizeMode(column, QHeaderView.Stretch)
        else:
            header.setSectionResizeMode(column, QHeaderView.Interactive)
            view.setColumnWidth(column, fixed.get(column, 80))


class PublishedView(QWidget):
    """The release table and the "who could this person be?" panel; see the module docstring.

    Signals
    -------
    person_changed(int)
        The person picked (0-based record), -1 for none.
    """

    person_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.result: NonreciprocalResult | None = None
        self.data: Any = None
        self.model = PublishedModel(self)
        self.table = _table(self.model, "published_table")
        self.worlds_model = WorldsModel(self)
        self.worlds_table = _table(self.worlds_model, "worlds_table")
        self.worlds_table.clicked.connect(self._world_clicked)
        self.caption = note_label("The published records appear here once a run has published them.", "body")
        self.caption.setObjectName("published_caption")
        self.legend = note_label(chip_legend_html())

        self.person_box = QSpinBox()
        self.person_box.setObjectName("person_box")
        self.person_box.setRange(1, 1)
        self.person_box.setToolTip("A person of the original data, by record number (from 1). Their possible "
                                   "published records are listed below and shaded in the table on the left.")
        self.person_box.setEnabled(False)
        self.person_box.valueChanged.connect(lambda v: self.show_person(v - 1))
        self.person_name = QLabel("")
        self.person_name.setProperty("role", "note")
        self.items = ChipStrip()
        self.items.setObjectName("person_items")
        self.summary = note_label("Pick a person to see which published records could be theirs.", "body")
        self.summary.setObjectName("worlds_summary")

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.caption)
        left_layout.addWidget(self.legend)
        left_layout.addWidget(self.table, 1)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(4, 0, 0, 0)
        right_layout.addWidget(note_label("<b>Who could this person be?</b>", "body"))
        pick = QHBoxLayout()
        pick.addWidget(QLabel("Person"))
        pick.addWidget(self.person_box)
        pick.addWidget(self.person_name, 1)
        right_layout.addLayout(pick)
        right_layout.addWidget(self.items)
        right_layout.addWidget(self.summary)
        right_layout.addWidget(self.worlds_table, 1)
        splitter = QSplitter(Qt.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)
        self.clear()

    # ---------------------------------------------------------------- data
    def clear(self) -> None:
        self.result, self.data = None, None
        self.model.set_result(None)
        self.worlds_model.set_worlds(None, np.zeros(0, np.int64), np.zeros(0, bool))
        self.items.set_chips([])
        self.person_box.setEnabled(False)
        self.person_name.setText("")
        self.caption.setText("The published records appear here once a run has published them.")
        self.summary.setText("Pick a person to see which published records could be theirs.")

    def set_result(self, result: NonreciprocalResult, data: Any) -> None:
        """Show a run's release (once it has one); the picked person is kept when the dataset is the same."""
        if result.published is None:
            return
        if result is self.result:
            return
        keep = self.person_box.value() - 1 if self.result is not None and data is self.data else 0
        self.result, self.data = result, data
        self.model.set_result(result)
        n = result.published.n_slots
        _fit_columns(self.table, {0: 64, 3: 70, 4: 96}, stretch=(1, 2))
        _fit_columns(self.worlds_table, {0: 64, 2: 96, 3: 90}, stretch=(1,))
        what = f"k = {result.m}" if result.mode == "k" else f"ℓ = {result.m}"
        self.caption.setText(f"<b>{integer(n)} published records</b> ({what}), one per person, in release order "
                             "(the public export shuffles them). Shaded: the records the picked person could be.")
        self.person_box.blockSignals(True)
        self.person_box.setRange(1, max(result.n_records, 1))
        self.person_box.setValue(min(keep, result.n_records - 1) + 1)
        self.person_box.blockSignals(False)
        self.person_box.setEnabled(True)
        self.show_person(self.person_box.value() - 1)

    # -------------------------------------------------------------- person
    def show_person(self, person: int) -> None:
        """List the published records person ``person`` (0-based) could be, and shade them on the left."""
        result, data = self.result, self.data
        if result is None or data is None or not 0 <= person < result.n_records:
            return
        if self.person_box.value() != person + 1:
            self.person_box.blockSignals(True)
            self.person_box.setValue(person + 1)
            self.person_box.blockSignals(False)
        name = result.record_name(person)
        self.person_name.setText(f"record “{name}”" if name != str(person + 1) else "")
        self.items.set_chips([(result.vocab[i], "person") for i in data.record(person).tolist()])
        slots, linked = person_worlds(result, data, person)
        self.worlds_model.set_worlds(result, slots, linked)
        self.model.set_marks({int(j): (LINK if ok else FITS) for j, ok in zip(slots, linked)})
        links, extra = int(linked.sum()), int((~linked).sum())
        text = (f"Person {html.escape(str(person + 1))} could be <b>{integer(len(slots))}</b> published records: "
                f"<span style='background:{LINK_COLOUR.name()}'>&nbsp;{integer(links)} linked by the graph&nbsp;"
                "</span> (the true one is among them, each equally likely)")
        if extra:
            text += (f" and <span style='background:{FITS_COLOUR.name()}'>&nbsp;{integer(extra)} more that fit by "
                     "chance&nbsp;</span>")
        text += "."
        if result.slot_labels is not None and links:
            labels = {_slot_label(result, int(j)) for j in slots[linked]}
            text += f" Labels on the linked records: {integer(len(labels))} different."
        self.summary.setText(text)
        self.person_changed.emit(person)

    def _world_clicked(self, index: QModelIndex) -> None:
        if not index.isValid():
            return
        j = int(self.worlds_model.slots[index.row()])
        self.table.selectRow(j)
        self.table.scrollTo(self.model.index(j, 0), QAbstractItemView.PositionAtCenter)
