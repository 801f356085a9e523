"""A table of measures (:func:`fill_measure_table`): one row per run or cell, one column per measure."""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem

from ...formatting import number
from ...glossary import meaning

__all__ = ["fill_measure_table", "measure_text"]


def measure_text(value: Any) -> str:
    """A cell's text: numbers as :func:`anonstudio.formatting.number`, a missing or NaN value empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number(value)
    return str(value)


def fill_measure_table(table: QTableWidget, keys: Sequence[str], rows: Sequence[Mapping[str, Any]], *,
                       heading: Callable[[str], str] = str) -> None:
    """Replace ``table``'s contents with ``rows`` under the columns ``keys``.

    Each heading carries the measure's glossary meaning as its tooltip; numbers are right-aligned and sort by
    value (``Qt.UserRole``), not by their text. Sorting is off while filling, and restored as it was.
    """
    sorting = table.isSortingEnabled()
    table.setSortingEnabled(False)
    table.clear()
    table.setColumnCount(len(keys))
    table.setRowCount(len(rows))
    table.setHorizontalHeaderLabels([heading(k) for k in keys])
    for c, key in enumerate(keys):
        header = table.horizontalHeaderItem(c)
        if header is not None and meaning(key):
            header.setToolTip(meaning(key))
    for r, row in enumerate(rows):
        for c, key in enumerate(keys):
            value = row.get(key)
            item = QTableWidgetItem(measure_text(value))
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                item.setData(Qt.UserRole, float(value))
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            table.setItem(r, c, item)
    table.setSortingEnabled(sorting)
