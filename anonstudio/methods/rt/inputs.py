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

from ...data.io.text import require_regular_file
from ...data.io.rt import join_items, load_rt_table, rt_from_table
from ...data.table import RTData, Table
from ...params import ParameterError
from .params import RTParams

__all__ = ["rt_data_for", "open_rt_table", "check_columns"]


def open_rt_table(path: str | Path, *, encoding: str | None = None, columns: str | None = None,
                  sep: str | None = None, header: bool | None = None, progress: Any = None) -> Table:
    """A people table from a delimited file (codes such as ``001`` stay text; the set column stays ``a;b``)."""
    path = require_regular_file(path)
    names = [c.strip() for c in columns.split(",") if c.strip()] if columns else None
    if header is None:
        header = False if names else "auto"
    return load_rt_table(path, names=names, header=header, sep=sep, encoding=encoding, progress=progress)


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
    """The RT-data of a run (module docstring)."""
    check_columns(data, params)
    if isinstance(data, RTData):
        return data
    if params.items_file is not None:
        return join_items(data, params.items_file, person=params.person_column, item=params.items_column)
    return rt_from_table(data, params.items_column)
