"""The published table: original and anonymized rows side by side, and the cluster inspector.

* :class:`SideBySide` — two tables with the same rows in the same order
  (input order, cluster after cluster, or only one cluster), scrolled and
  selected together; the selected person's cluster is highlighted in both.
  Generalized cells and items are drawn as chips (:class:`ChipDelegate`).
* :class:`ClusterInspector` — the selected cluster: its size, NCP and UL,
  its generalized demographics beside the values they stand for, and each
  published item with the cluster's items it stands for and how many of the
  cluster's people have it.

Both read an :class:`~anonstudio.gui.workbenches.rt.rows.RTRows`.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QSplitter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...controls import integer, note_label, number
from .rows import RTRows

__all__ = ["SideBySide", "ClusterInspector", "ChipDelegate", "RowsModel", "CHIPS_ROLE", "CHIP_COLOURS"]

#: Item-data role holding a cell's chips, ``[(text, kind), ...]``.
CHIPS_ROLE = Qt.UserRole + 1
#: Fill and border of a chip per kind; ``value`` is drawn as plain text.
CHIP_COLOURS = {
    "generalized": ("#fde9c8", "#e0a544"),
    "item": ("#e4eef8", "#9bb8d6"),
    "group": ("#fde9c8", "#e0a544"),
    "sensitive": ("#f8dede", "#cc7a7a"),
}
#: Background of the rows of the selected person's cluster.
CLUSTER_BACKGROUND = QColor("#fff6bf")
CHIP_GAP = 4
CHIP_PAD = 4
ROW_HEIGHT = 24

LEGEND_HTML = ("<span style='background:#fde9c8'>&nbsp;generalized&nbsp;</span> "
               "<span style='background:#e4eef8'>&nbsp;as it is&nbsp;</span> "
               "<span style='background:#f8dede'>&nbsp;sensitive&nbsp;</span> "
               "<span style='background:#fff6bf'>&nbsp;selected cluster&nbsp;</span>")


class ChipDelegate(QStyledItemDelegate):
    """Paints a cell's chips side by side (text for plain values); cut chips end in "…"."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        chips = index.data(CHIPS_ROLE)
        if not chips or all(kind == "value" for _, kind in chips):
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget is not None else None
        if style is not None:
            style.drawControl(QStyle.CE_ItemViewItem, opt, painter, opt.widget)
        painter.save()
        painter.setRenderHint(QPainter.Antialiasing)
        metrics = QFontMetrics(opt.font)
        rect = option.rect.adjusted(3, 3, -3, -3)
        x = float(rect.left())
        for i, (text, kind) in enumerate(chips):
            fill, border = CHIP_COLOURS.get(kind, ("#ffffff", "#bbbbbb"))
            width = metrics.horizontalAdvance(text) + 2 * CHIP_PAD
            room = rect.right() - x
            if width > room:
                # No room for the whole chip: an ellipsis says there is more (the tooltip lists all).
                if room > metrics.horizontalAdvance("…") + 2:
                    painter.setPen(QPen(QColor("#555555")))
                    painter.drawText(QRectF(x, rect.top(), room, rect.height()), Qt.AlignVCenter, "…")
                break
            chip = QRectF(x, rect.top(), width, rect.height())
            painter.setPen(QPen(QColor(border)))
            painter.setBrush(QColor(fill))
            painter.drawRoundedRect(chip, 4, 4)
            painter.setPen(QPen(QColor("#202020")))
            painter.drawText(chip, Qt.AlignCenter, text)
            x += width + CHIP_GAP
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802 (Qt naming)
        chips = index.data(CHIPS_ROLE) or []
        metrics = QFontMetrics(option.font)
        width = sum(metrics.horizontalAdvance(t) + 2 * CHIP_PAD + CHIP_GAP for t, _ in chips) + 6
        return QSize(max(width, super().sizeHint(option, index).width()), ROW_HEIGHT)


class RowsModel(QAbstractTableModel):
    """One side (original or published) of :class:`RTRows`, in a given row order."""

    def __init__(self, side: str, parent=None):
        super().__init__(parent)
        self.side = side
        self.rows: RTRows | None = None
        self.order = np.zeros(0, dtype=np.int64)
        self.highlight: int | None = None  # cluster whose rows get the highlight background
        self._cache: dict[int, list] = {}

    def set_rows(self, rows: RTRows | None, order: np.ndarray | None = None) -> None:
        self.beginResetModel()
        self.rows = rows
        self.order = np.zeros(0, dtype=np.int64) if rows is None else (
            order if order is not None else np.arange(rows.n))
        self._cache = {}
        self.endResetModel()

    def set_order(self, order: np.ndarray) -> None:
        self.beginResetModel()
        self.order = np.asarray(order, dtype=np.int64)
        self.endResetModel()

    def set_highlight(self, cluster: int | None) -> None:
        self.highlight = cluster
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, self.columnCount() - 1),
                                  [Qt.BackgroundRole])

    @property
    def columns(self) -> list[str]:
        if self.rows is None:
            return []
        return self.rows.original_columns if self.side == "original" else self.rows.published_columns

    def data_row(self, view_row: int) -> int:
        return int(self.order[view_row])

    def view_row(self, data_row: int) -> int:
        hits = np.flatnonzero(self.order == data_row)
        return int(hits[0]) if len(hits) else -1

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self.order)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.DisplayRole):  # noqa: N802
        if role == Qt.DisplayRole and orientation == Qt.Horizontal and 0 <= section < len(self.columns):
            return self.columns[section]
        return None

    def _cells(self, row: int) -> list:
        cells = self._cache.get(row)
        if cells is None:
            if len(self._cache) > 4096:  # only the rows on screen matter; keep the cache small
                self._cache.clear()
            cells = (self.rows.original_cells(row) if self.side == "original" else self.rows.published_cells(row))
            self._cache[row] = cells
        return cells

    def data(self, index: QModelIndex, role: int = Qt.DisplayRole):
        if not index.isValid() or self.rows is None:
            return None
        row = self.data_row(index.row())
        if role == Qt.BackgroundRole:
            if self.highlight is not None and self.rows.cluster_of(row) == self.highlight:
                return CLUSTER_BACKGROUND
            return None
        if role == Qt.TextAlignmentRole:
            return int(Qt.AlignRight | Qt.AlignVCenter) if index.column() == 0 else int(Qt.AlignLeft | Qt.AlignVCenter)
        if role not in (Qt.DisplayRole, Qt.ToolTipRole, CHIPS_ROLE):
            return None
        chips = self._cells(row)[index.column()]
        if role == CHIPS_ROLE:
            return chips
        text = " ".join(t for t, _ in chips)
        if role == Qt.ToolTipRole:
            if not chips:
                return "Not published"
            return "\n".join(t for t, _ in chips) if len(chips) > 1 else text
        return text


class SideBySide(QWidget):
    """Original (left) and published (right) rows, one order, one selection; see the module docstring.

    Signals
    -------
    row_selected(int)
        The data row selected (from 0), -1 for none.
    """

    row_selected = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.rows: RTRows | None = None
        self.selected = -1
        self._syncing = False
        self.title = note_label("Run the anonymization to see each person before and after.", "body")
        self.title.setObjectName("rt_table_title")
        self.by_cluster = QCheckBox("Rows of a cluster together")
        self.by_cluster.setToolTip("List the people cluster after cluster instead of in input order.")
        self.by_cluster.toggled.connect(self._reorder)
        self.only_cluster = QCheckBox("Only this cluster")
        self.only_cluster.setToolTip("List only the people of the selected person's cluster.")
        self.only_cluster.toggled.connect(self._reorder)
        self.models = {side: RowsModel(side, self) for side in ("original", "published")}
        self.views: dict[str, QTableView] = {}
        delegate = ChipDelegate(self)
        splitter = QSplitter(Qt.Horizontal)
        for side, caption in (("original", "<b>Original</b>"), ("published", "<b>Published</b> " + LEGEND_HTML)):
            view = QTableView()
            view.setObjectName(f"rt_{side}_table")
            view.setModel(self.models[side])
            view.setItemDelegate(delegate)
            view.setSelectionBehavior(QAbstractItemView.SelectRows)
            view.setSelectionMode(QAbstractItemView.SingleSelection)
            view.setEditTriggers(QAbstractItemView.NoEditTriggers)
            view.verticalHeader().setVisible(False)
            view.verticalHeader().setDefaultSectionSize(ROW_HEIGHT)
            view.horizontalHeader().setSectionResizeMode(QHeaderView.Interactive)
            view.horizontalHeader().setStretchLastSection(True)
            view.selectionModel().currentRowChanged.connect(lambda current, _prev, s=side: self._current(s, current))
            self.views[side] = view
            box = QWidget()
            box_layout = QVBoxLayout(box)
            box_layout.setContentsMargins(0, 0, 0, 0)
            box_layout.addWidget(note_label(caption))
            box_layout.addWidget(view, 1)
            splitter.addWidget(box)
        splitter.setChildrenCollapsible(False)
        left, right = self.views["original"], self.views["published"]
        left.verticalScrollBar().valueChanged.connect(right.verticalScrollBar().setValue)
        right.verticalScrollBar().valueChanged.connect(left.verticalScrollBar().setValue)
        self.detail = note_label("Select a person to highlight their cluster in both tables.", "body")
        self.detail.setObjectName("rt_row_detail")
        heading = QHBoxLayout()
        heading.setContentsMargins(0, 0, 0, 0)
        heading.addWidget(self.title, 1)
        heading.addWidget(self.by_cluster)
        heading.addWidget(self.only_cluster)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(heading)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.detail)

    # ------------------------------------------------------------ content
    def set_rows(self, rows: RTRows | None) -> None:
        """Show a result's rows (None: empty)."""
        self.rows = rows
        self.selected = -1
        for model in self.models.values():
            model.set_highlight(None)
            model.set_rows(rows, self._order())
        if rows is None:
            self.title.setText("Run the anonymization to see each person before and after.")
        elif not rows.published:
            self.title.setText(f"<b>Nothing may be published</b> ({rows.result.reason}); left, the "
                               f"{rows.n:,} people as they are.")
        else:
            self.title.setText(f"<b>{rows.n:,} people in {len(rows.sizes):,} clusters</b>. Click a person.")
        self.detail.setText("Select a person to highlight their cluster in both tables.")
        for view in self.views.values():
            view.resizeColumnsToContents()
        self.only_cluster.setEnabled(False)

    def _order(self) -> np.ndarray | None:
        if self.rows is None:
            return None
        only = self.rows.cluster_of(self.selected) if self.only_cluster.isChecked() and self.selected >= 0 else None
        return self.rows.order(self.by_cluster.isChecked(), only)

    def _reorder(self) -> None:
        if self.rows is None:
            return
        order = self._order()
        for model in self.models.values():
            model.set_order(order)
        if self.selected >= 0:
            self.select_row(self.selected)

    # ---------------------------------------------------------- selection
    def select_row(self, row: int) -> None:
        """Select data row ``row`` in both tables (and scroll to it)."""
        if self.rows is None or not 0 <= row < self.rows.n:
            return
        view_row = self.models["original"].view_row(row)
        if view_row < 0:  # not listed (another cluster shown alone): list everybody again
            self.only_cluster.setChecked(False)
            view_row = self.models["original"].view_row(row)
        self.views["original"].selectRow(view_row)
        self.views["original"].scrollTo(self.models["original"].index(view_row, 0))

    def _current(self, side: str, current: QModelIndex) -> None:
        if self._syncing or not current.isValid() or self.rows is None:
            return
        row = self.models[side].data_row(current.row())
        self._syncing = True
        try:
            other = "published" if side == "original" else "original"
            self.views[other].selectRow(current.row())
        finally:
            self._syncing = False
        self.selected = row
        cluster = self.rows.cluster_of(row)
        for model in self.models.values():
            model.set_highlight(cluster)
        self.only_cluster.setEnabled(True)
        self.detail.setText(self.rows.describe(row))
        self.row_selected.emit(row)


class ClusterInspector(QWidget):
    """One cluster: size, losses, generalized demographics and published items; see the module docstring."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.heading = note_label("<b>Cluster inspector</b>: select a person in the table.", "body")
        self.heading.setObjectName("rt_cluster_heading")
        self.cells = _table(["column", "published", "values in the cluster"])
        self.cells.setToolTip("How the cluster's demographics are published, and the original values that cell "
                              "stands for.")
        self.items = _table(["published item", "people", "stands for (items of this cluster)"])
        self.items.setToolTip("Each published item of the cluster, the cluster's original items it stands for, and "
                              "how many of the cluster's people have one of them. Sensitive items are published as "
                              "they are.")
        split = QSplitter(Qt.Horizontal)
        split.addWidget(self.cells)
        split.addWidget(self.items)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(split, 1)
        self.cluster: int | None = None

    def clear(self) -> None:
        self.cluster = None
        self.heading.setText("<b>Cluster inspector</b>: select a person in the table.")
        self.cells.setRowCount(0)
        self.items.setRowCount(0)

    def show_cluster(self, rows: RTRows, cluster: int) -> None:
        view = rows.cluster(cluster)
        self.cluster = cluster
        ul = "" if not np.isfinite(view.ul) else f", items loss UL {number(view.ul, 3)}"
        published = "" if rows.published else " (not publishable)"
        self.heading.setText(f"<b>Cluster {cluster + 1:,}</b>{published}: {integer(view.size)} people, demographics "
                             f"loss NCP {number(view.ncp, 3)}{ul}, {len(view.items):,} published items.")
        _fill(self.cells, [(c, p, o) for c, p, o in view.cells])
        _fill(self.items, [(it.label + (" (sensitive)" if it.kind == "sensitive" else ""), integer(it.people),
                            _stands_for(it)) for it in view.items], numeric=(1,))


def _stands_for(item) -> str:
    shown = ", ".join(item.items[:12]) + (" …" if len(item.items) > 12 else "")
    if item.kind == "group":
        return f"{shown} ({len(item.items):,} here, {item.stands_for:,} in all)"
    return shown


def _table(headers: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(22)
    table.setEditTriggers(QAbstractItemView.NoEditTriggers)
    table.setWordWrap(False)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeToContents)
    header.setStretchLastSection(True)
    return table


def _fill(table: QTableWidget, rows: list[tuple[str, ...]], numeric: tuple[int, ...] = ()) -> None:
    table.setRowCount(len(rows))
    for r, values in enumerate(rows):
        for c, value in enumerate(values):
            item = QTableWidgetItem(value)
            item.setToolTip(value)
            if c in numeric:
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            table.setItem(r, c, item)
