"""The cluster inspector: one cluster of an RT release, what it publishes and what that stands for.

Its size and losses (NCP of the demographics, mean UL of the items), the
generalized demographics beside the values they stand for, and each
published item with the cluster's original items under it and how many of
the cluster's people have it (sensitive items are published as they are).
Reads a :class:`~anonstudio.methods.rt.compare.ClusterView`.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ....formatting import integer, number
from ....methods.rt.compare import ClusterView
from ...controls import note_label

__all__ = ["ClusterInspector"]

HEADING_EMPTY = "<b>Cluster inspector</b>: select a person in the tables above."


class ClusterInspector(QWidget):
    """One cluster: size, losses, generalized demographics and published items; see the module docstring.

    ``cluster`` is the cluster shown (its position in the result, from 0; people read its number, from 1).
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.heading = note_label(HEADING_EMPTY, "body")
        self.heading.setObjectName("rt_cluster_heading")
        self.cells = _table(["column", "published", "values in the cluster"], stretch=(1, 2))
        self.cells.setToolTip("How the cluster's demographics are published, and the original values that cell "
                              "stands for.")
        self.items = _table(["published item", "people", "stands for"], stretch=(2,))
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
        self.heading.setText(HEADING_EMPTY)
        self.cells.setRowCount(0)
        self.items.setRowCount(0)

    def show_cluster(self, view: ClusterView) -> None:
        self.cluster = view.cluster
        ul = "" if not np.isfinite(view.ul) else f", items loss UL {number(view.ul, 3)}"
        # Numbered from 1, as in the cluster column of the tables and of ANON.csv.
        self.heading.setText(f"<b>Cluster {integer(view.number)}</b>: {integer(view.size)} people, demographics loss "
                             f"NCP {number(view.ncp, 3)}{ul}, {len(view.items):,} published items.")
        _fill(self.cells, list(view.cells))
        _fill(self.items, [(it.label + (" (sensitive)" if it.kind == "sensitive" else ""), integer(it.people),
                            _stands_for(it)) for it in view.items], numeric=(1,))


def _stands_for(item) -> str:
    shown = ", ".join(item.items[:12]) + (" …" if len(item.items) > 12 else "")
    if item.kind == "partition":
        return f"{shown} ({len(item.items):,} here, {item.stands_for:,} in all)"
    return shown


def _table(headers: list[str], stretch: tuple[int, ...]) -> QTableWidget:
    """A read-only table; the ``stretch`` columns share the width left and elide long text (full in the tooltip).

    Sizing every column to its contents pushed the last ones out of sight (a
    generalized education cell lists a dozen values), so long columns stretch.
    """
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(22)
    table.setEditTriggers(QAbstractItemView.NoEditTriggers)
    table.setWordWrap(False)
    table.setTextElideMode(Qt.ElideRight)
    header = table.horizontalHeader()
    # Left-aligned captions: a narrow column cuts its caption's end, not both ends.
    header.setDefaultAlignment(Qt.AlignLeft | Qt.AlignVCenter)
    for c in range(len(headers)):
        header.setSectionResizeMode(c, QHeaderView.Stretch if c in stretch else QHeaderView.ResizeToContents)
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
