"""The release beside the data, and the published records one person could be.

* :func:`release_view`: the studio's :class:`~anonstudio.gui.side_by_side.SideBySideView`
  fed with :class:`~anonstudio.methods.nonreciprocal.compare.NonreciprocalComparison`:
  every person beside the record published in their slot (the paper's unified
  view), base and distance items as chips, the picked person's items
  highlighted and their possible worlds named under the tables.
* :class:`WorldsView`: pick a person (or select them in the release, or click
  them in the graph) to list every published record whose possible worlds
  include them, the graph's links first (each equally likely to be the true
  one, shaded), then those that fit by chance (possible worlds are wider than
  the graph, note T6).
"""
from __future__ import annotations

import html
from typing import Any

import numpy as np
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from ....formatting import integer
from ....methods.nonreciprocal.compare import PublishedRows, person_worlds
from ....methods.nonreciprocal.result import NonreciprocalResult
from ...controls import note_label
from ...data_view import RowsTable

__all__ = ["WorldsView", "CHIP_LEGEND"]

#: What the chip colours of a published record mean (shown above the release).
CHIP_LEGEND = ("<b>Base</b> items: grey, every person behind the record has it; yellow, some may lack it. "
               "<b>Distance</b> items: where a person may differ, by at most the <b>threshold</b>. Select a person "
               "to highlight their items.")
PICK = "Pick a person to list the published records that could be theirs."


class WorldsView(QWidget):
    """One person's possible published records; see the module docstring.

    Signals
    -------
    person_changed(int)
        The person shown (the record's index, from 0; people read and type its number, from 1).
    """

    person_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.result: NonreciprocalResult | None = None
        self.data: Any = None
        self.person: int | None = None
        self.person_box = QSpinBox()
        self.person_box.setObjectName("person_box")
        self.person_box.setRange(1, 1)
        self.person_box.setToolTip("A person of the original data, by record number (from 1, as in the release "
                                   "view). Selecting a person there or in the graph shows them here too.")
        self.person_box.setEnabled(False)
        self.person_box.valueChanged.connect(lambda number: self.show_person(number - 1))
        self.summary = note_label(PICK, "body")
        self.summary.setObjectName("worlds_summary")
        self.table = RowsTable()
        self.table.setObjectName("worlds_table")
        pick = QHBoxLayout()
        pick.addWidget(QLabel("Person"))
        pick.addWidget(self.person_box)
        pick.addWidget(note_label("(record number, from 1)"), 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(pick)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)

    @property
    def source(self) -> PublishedRows | None:
        return self.table.rows_model.source

    def clear(self) -> None:
        self.result, self.data, self.person = None, None, None
        self.table.set_source(None)
        self.person_box.setEnabled(False)
        self.summary.setText(PICK)

    def set_result(self, result: NonreciprocalResult, data: Any) -> None:
        """Follow a run's release (the person shown is kept for the same data)."""
        if result is self.result or result.published is None:
            return
        keep = self.person if self.result is not None and data is self.data else 0
        self.result, self.data = result, data
        self.person_box.blockSignals(True)
        self.person_box.setRange(1, max(result.n_records, 1))
        self.person_box.blockSignals(False)
        self.person_box.setEnabled(True)
        self.person = None
        self.show_person(min(keep or 0, result.n_records - 1))

    def show_person(self, person: int) -> None:
        """List the published records the person of record index ``person`` (from 0) could be."""
        result, data = self.result, self.data
        if result is None or data is None or not 0 <= person < result.n_records or person == self.person:
            return
        self.person = person
        if self.person_box.value() != person + 1:
            self.person_box.blockSignals(True)
            self.person_box.setValue(person + 1)
            self.person_box.blockSignals(False)
        slots, linked = person_worlds(result, data, person)
        order = np.lexsort((slots, ~linked))  # the graph's links first, each part by record
        self.table.set_source(PublishedRows(result, slots[order], linked[order]))
        self.table.show_sorted_by(1)  # "how": the links first, as listed
        self.table.rows_model.set_marked(np.flatnonzero(linked[order]))
        items = ", ".join(result.vocab[i] for i in data.record(person).tolist()) or "no items"
        links, extra = int(linked.sum()), int((~linked).sum())
        name = result.record_name(person)
        alias = f", “{html.escape(name)}” in PUBLISHED.csv" if name != str(person + 1) else ""
        text = (f"<b>Person {person + 1}</b> ({html.escape(items)}{alias}) could be <b>{integer(len(slots))}</b> "
                f"published records: {integer(links)} linked by the generalization graph (shaded; the true one is "
                "among them, each equally likely)")
        text += f" and {integer(extra)} more that fit by chance." if extra else "."
        if result.slot_labels is not None and links:
            labels = {result.labels.names[int(result.slot_labels[j])] for j in slots[linked]}
            text += f" Labels on the linked records: {integer(len(labels))} different."
        self.summary.setText(text)
        self.person_changed.emit(person)
