"""What each column of a table holds: type, distinct values, missing values, role, most common values.

One summary serves ``anonstudio-cli info`` and the studio's column views, so
both say the same thing about a table.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .rows import display_value
from .table import Table

if TYPE_CHECKING:  # a table brings pandas along: the studio's window imports this module before any table exists
    import pandas as pd

__all__ = ["ColumnSummary", "column_summaries", "column_type"]


@dataclass(frozen=True)
class ColumnSummary:
    """One column of a table.

    Attributes
    ----------
    name
        The column's name.
    type
        ``"integer"``, ``"number"`` or ``"text"``.
    distinct
        Number of distinct values (missing values not counted).
    missing
        Number of missing values.
    role
        The column's role (``identifier``, ``quasi-identifier``, ``sensitive``, ``insensitive``).
    top
        Up to three most common values and how many rows hold each.
    """

    name: str
    type: str
    distinct: int
    missing: int
    role: str
    top: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> dict:
        return {"name": self.name, "type": self.type, "distinct": self.distinct, "missing": self.missing,
                "role": self.role}


def column_type(column: pd.Series) -> str:
    """``integer``, ``number`` or ``text``: how a privacy officer would call the column's values."""
    if column.dtype.kind in "iu" or str(column.dtype) in ("Int64", "Int32", "UInt64", "UInt32"):
        return "integer"
    if column.dtype.kind == "f":
        return "number"
    return "text"


def column_summaries(table: Table, *, top: int = 3) -> list[ColumnSummary]:
    """The summary of every column of ``table``, in table order."""
    out = []
    for name in table.frame.columns:
        column = table.frame[name]
        counts = column.value_counts(dropna=True, sort=True) if top else None
        common = tuple((display_value(value) or "", int(n)) for value, n in counts.iloc[:top].items()) \
            if counts is not None else ()
        out.append(ColumnSummary(
            name=str(name), type=column_type(column),
            distinct=int(len(counts)) if counts is not None else int(column.nunique(dropna=True)),
            missing=int(column.isna().sum()), role=table.role(name).value, top=common))
    return out
