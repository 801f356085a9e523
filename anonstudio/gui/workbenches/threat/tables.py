"""Tables of the Threats workbench: selected rows and the measures of Tables IV/V.

* :class:`ThreatRowsTable` lists rows (the brushed points, or a victim's
  group) with their attribute values, group, p_A and p_L of the true value and
  ``Ti = p_A / p_L``; clicking a line announces its row.
* :class:`MeasuresTable` shows every table-wide measure with its value and a
  one-line plain-language meaning (from :data:`anonstudio.methods.threat.MEASURE_MEANINGS`).

Row numbers count from 1, as in the CLI (``--victim-row N``) and the CSV export; the signals and
methods take row indices (from 0).
"""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from ....formatting import MISSING, integer, probability
from ....methods.threat.measures import MEASURE_MEANINGS
from ....methods.threat.model import text_of

__all__ = ["ThreatRowsTable", "MeasuresTable", "MEASURE_NAMES", "format_measure", "row_values"]

#: Shown row limit: a selection of every point would otherwise build a table of 100,000 cells.
MAX_LISTED = 2000

#: Order and names of Tables IV/V of the paper, then the measures added by anonstudio.
MEASURE_NAMES = {
    "GT_A": "Global threat under p_A (GT_A)",
    "GT_L": "Global threat under p_L (GT_L)",
    "GT_RW": "Global threat under random worlds (GT_RW)",
    "RGT_A": "Relative global threat (RGT_A)",
    "RF": "Relative faithfulness (RF)",
    "ABS_A": "Absolute error under p_A (ABS_A)",
    "ABS_RW": "Absolute error under random worlds (ABS_RW)",
    "ABS_L": "Absolute error under p_L (ABS_L)",
    "baseline_accuracy": "Baseline accuracy",
    "ideal_accuracy": "Ideal accuracy",
    "max_Ti": "Largest Ti",
    "share_log2Ti_ge1_threatened": "log2 Ti ≥ 1, share of threatened rows",
    "share_log2Ti_ge1_table": "log2 Ti ≥ 1, share of the table",
    "count_log2Ti_ge1": "log2 Ti ≥ 1, rows",
    "skewness_log2Ti_A": "Skewness γ of log2 Ti (threatened under p_A)",
    "skewness_log2Ti_L": "Skewness γ of log2 Ti (threatened under p_L)",
    "rows": "Rows",
    "RF_exact": "RF computed exactly",
}
_COUNTS = {"count_log2Ti_ge1", "rows"}
_ERRORS = {"ABS_A", "ABS_RW", "ABS_L"}


def format_measure(key: str, value: float) -> str:
    """A threat measure as the paper's Tables IV/V print it: four decimals, errors and the largest Ti to two.

    Counts read as :func:`~anonstudio.formatting.integer`, a missing or
    non-finite value as :data:`~anonstudio.formatting.MISSING`, and the
    ``RF_exact`` flag says how RF was computed.
    """
    if value is None or not math.isfinite(value):
        return MISSING
    if key == "RF_exact":
        return "yes" if value else "no (estimated by sampling, ETV)"
    if key in _COUNTS:
        return integer(value)
    if key in _ERRORS or key == "max_Ti":
        return f"{value:,.2f}"
    return f"{value:.4f}"


class _NumberItem(QTableWidgetItem):
    """Shows formatted text, sorts by the number (plain items would sort "10" before "9")."""

    def __init__(self, number: float, text: str):
        super().__init__(text)
        self.number = number

    def __lt__(self, other: QTableWidgetItem) -> bool:
        if isinstance(other, _NumberItem):
            return self.number < other.number
        return super().__lt__(other)


def _probability(value: float) -> QTableWidgetItem:
    text = "∞" if math.isinf(value) else probability(value) if value < 100 else integer(value)
    item = _NumberItem(value, text)
    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
    return item


def _item(value, text: str | None = None, *, right: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem()
    if isinstance(value, (int, float, np.integer, np.floating)) and text is None:
        item.setData(Qt.DisplayRole, float(value) if isinstance(value, (float, np.floating)) else int(value))
    else:
        item.setText(text if text is not None else str(value))
    if right:
        item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
    return item


def _read_only(table: QTableWidget) -> None:
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.NoEditTriggers)
    table.setAlternatingRowColors(True)
    table.verticalHeader().setDefaultSectionSize(22)


def row_values(view, rows: np.ndarray) -> list[list]:
    """Per row: row and group (numbered from 1), p_A(s), p_L(s), Ti, true value s, quasi-identifiers (``view`` is a
    RowView; ``rows`` are indices from 0)."""
    out = []
    for r in rows.tolist():
        out.append([r + 1, int(view.group[r]) + 1, float(view.p_A[r]), float(view.p_L[r]), float(view.ti[r]),
                    view.s_names[int(view.s_true[r])], *[text_of(view.frame[c].iloc[r]) for c in view.qi]])
    return out


class ThreatRowsTable(QTableWidget):
    """Rows with their values, p_A, p_L and Ti; clicking one emits :attr:`row_clicked`.

    Signals
    -------
    row_clicked(int)
        Table row index (from 0) of the clicked line.
    """

    row_clicked = Signal(int)

    def __init__(self, empty_tip: str = ""):
        super().__init__(0, 0)
        _read_only(self)
        self.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.setSelectionMode(QAbstractItemView.SingleSelection)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.horizontalHeader().setStretchLastSection(True)
        self.setToolTip(empty_tip)
        self.rows = np.zeros(0, dtype=np.int64)
        self.truncated = 0
        self.cellClicked.connect(self._clicked)
        self.currentCellChanged.connect(lambda row, _c, _pr, _pc: self._clicked(row, 0))

    def show_rows(self, view, rows: np.ndarray, *, highlight: int | None = None) -> None:
        """List ``rows`` (at most :data:`MAX_LISTED`) of the RowView ``view``."""
        rows = np.asarray(rows, dtype=np.int64)
        self.truncated = max(0, len(rows) - MAX_LISTED)
        rows = rows[:MAX_LISTED]
        self.rows = rows
        headers = ["row", "group", "p_A", "p_L", "Ti", f"{view.sensitive} (true)", *view.qi]
        self.blockSignals(True)
        self.setSortingEnabled(False)
        self.clear()
        self.setColumnCount(len(headers))
        self.setHorizontalHeaderLabels(headers)
        for c, tip in ((2, "attacker's probability of the row's true sensitive value"),
                       (3, "learner's probability of the row's true sensitive value"),
                       (4, "Ti = p_A / p_L: how many times more confident the attacker is than the learner")):
            self.horizontalHeaderItem(c).setToolTip(tip)
        self.setRowCount(len(rows))
        for i, values in enumerate(row_values(view, rows)):
            for c, v in enumerate(values):
                if c < 2:
                    item = _item(v, right=True)
                elif c >= 5:
                    item = _item(v, str(v))
                else:
                    item = _probability(v)
                if highlight is not None and values[0] == highlight + 1:
                    item.setBackground(Qt.yellow)
                self.setItem(i, c, item)
        self.setSortingEnabled(True)
        self.blockSignals(False)

    def row_at(self, line: int) -> int | None:
        """The row index (from 0) listed on ``line``; the table shows it numbered from 1."""
        item = self.item(line, 0)
        return int(item.data(Qt.DisplayRole)) - 1 if item is not None else None

    def _clicked(self, line: int, _column: int) -> None:
        row = self.row_at(line)
        if row is not None:
            self.row_clicked.emit(row)


class MeasuresTable(QTableWidget):
    """The measures of Tables IV/V, one line each: name, value, plain-language meaning."""

    def __init__(self):
        super().__init__(0, 3)
        _read_only(self)
        self.setHorizontalHeaderLabels(["measure", "value", "what it means"])
        self.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeToContents)
        self.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeToContents)
        self.horizontalHeader().setStretchLastSection(True)
        self.setWordWrap(True)

    def show_measures(self, measures: dict[str, float] | None, meanings: dict[str, str] | None = None,
                      compared: dict[str, float] | None = None, compared_label: str = "compared run") -> None:
        """One row per measure; ``compared`` adds a column with another run's values."""
        meanings = meanings or MEASURE_MEANINGS
        measures = measures or {}
        keys = [k for k in MEASURE_NAMES if k in measures] + [k for k in measures if k not in MEASURE_NAMES]
        extra = compared is not None
        self.setColumnCount(4 if extra else 3)
        self.setHorizontalHeaderLabels(["measure", "value", *([compared_label] if extra else []), "what it means"])
        self.setRowCount(len(keys))
        for r, key in enumerate(keys):
            name = _item(key, MEASURE_NAMES.get(key, key))
            name.setToolTip(key)
            self.setItem(r, 0, name)
            self.setItem(r, 1, _item(key, format_measure(key, measures[key]), right=True))
            if extra:
                value = compared.get(key)
                self.setItem(r, 2, _item(key, "" if value is None else format_measure(key, value), right=True))
            meaning = _item(key, meanings.get(key, ""))
            meaning.setToolTip(meanings.get(key, ""))
            self.setItem(r, 3 if extra else 2, meaning)
        header = self.horizontalHeader()
        for c in range(self.columnCount() - 1):
            header.setSectionResizeMode(c, QHeaderView.ResizeToContents)
        header.setStretchLastSection(True)
        self.resizeRowsToContents()

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt naming)
        # Wrapped meanings need their row heights recomputed at the new width.
        super().resizeEvent(event)
        self.resizeRowsToContents()

    def value_text(self, key: str) -> str | None:
        for r in range(self.rowCount()):
            if self.item(r, 0).toolTip() == key:
                return self.item(r, 1).text()
        return None
