"""The RT-data a run works on, from what a front end loaded and the params.

* RT-data (a table and its item sets) is used as it is;
* a table with ``params.items_column`` holding ``a;b;c`` has that column
  split off into the item sets;
* a table and ``params.items_file`` (``person,item`` rows) are joined on
  ``params.person_column``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ...data.io.documents import refuse_documents
from ...data.io.rt import join_items, load_rt_table, rt_from_table
from ...data.io.text import require_regular_file
from ...data.table import RTData, Table
from ...params import ParameterError
from .params import RTParams

__all__ = ["rt_data_for", "open_rt_table", "check_columns", "suggest_params", "items_column_of"]

#: Share of a column's values that must hold the item separator for it to count as the items column.
ITEMS_SHARE = 0.05
#: Integer columns with at most this many distinct values are taken for codes (race 1-6), not quantities.
CODE_VALUES = 8
#: Columns with more distinct values than this share of the rows identify people: never quasi-identifiers.
ID_SHARE = 0.9


def open_rt_table(path: str | Path, *, encoding: str | None = None, columns: str | None = None,
                  sep: str | None = None, header: bool | None = None, progress: Any = None) -> Table:
    """A people table from a delimited file (codes such as ``001`` stay text; the set column stays ``a;b``)."""
    path = require_regular_file(path)
    refuse_documents(path)
    names = [c.strip() for c in columns.split(",") if c.strip()] if columns else None
    if header is None:
        header = False if names else "auto"
    return load_rt_table(path, names=names, header=header, sep=sep, encoding=encoding, progress=progress)


def items_column_of(table: Table, sep: str = ";", sample: int = 2000) -> str | None:
    """The column whose values most often hold several items joined by ``sep`` (None if none does)."""
    best, best_share = None, ITEMS_SHARE
    for column in table.frame.columns:
        values = table.frame[column].iloc[:sample].dropna()
        if values.dtype.kind in "iufb" or not len(values):
            continue
        share = float(values.astype(str).str.contains(sep, regex=False).mean())
        if share >= best_share:
            best, best_share = str(column), share
    return best


def suggest_params(table: Table) -> dict:
    """Parameter values to start from on a table no one described (empty when it has no items column).

    The items column holds ``;``-joined items; the demographic columns are the
    table's quasi-identifiers except that column and identifying ones (almost
    one value per person); integer columns with few values are codes.
    """
    items = items_column_of(table)
    if items is None:
        return {}
    frame = table.frame
    n = max(len(frame), 1)
    qi = [str(c) for c in table.quasi_identifiers
          if str(c) != items and frame[c].nunique(dropna=True) <= ID_SHARE * n]
    coded = [c for c in qi if frame[c].dtype.kind in "iu" and frame[c].nunique(dropna=True) <= CODE_VALUES]
    return {"items_column": items, "qi": tuple(qi), "categorical": tuple(coded)}


def check_columns(data: Table | RTData, params: RTParams) -> None:
    """Raise ParameterError for columns the params name but the data lacks."""
    table = data.table if isinstance(data, RTData) else data
    columns = [str(c) for c in table.frame.columns]
    shown = ", ".join(columns)
    missing = [c for c in params.qi if c not in columns]
    if missing:
        raise ParameterError(f"no column {missing[0]!r} in the data; columns: {shown}", name="qi")
    if isinstance(data, RTData):
        return
    if params.items_file is not None:
        if params.person_column not in columns:
            raise ParameterError(f"no column {params.person_column!r} in the data; columns: {shown}",
                                 name="person_column")
    elif params.items_column not in columns:
        raise ParameterError(f"no column {params.items_column!r} in the data (the items column, with items "
                             f"separated by ';'); columns: {shown}", name="items_column")


def rt_data_for(data: Table | RTData, params: RTParams) -> RTData:
    """The RT-data of a run (module docstring); the columns were checked with the params (:func:`check_columns`)."""
    if isinstance(data, RTData):
        return data
    if params.items_file is not None:
        return join_items(data, params.items_file, person=params.person_column, item=params.items_column)
    return rt_from_table(data, params.items_column)
