"""Datasets for the library API: :func:`open` and :func:`sample`.

A path, a bundled sample's name or a database URL goes through
:func:`anonstudio.data.datasets.open_dataset`, the one way every front end opens a dataset;
a pandas DataFrame becomes a :class:`~anonstudio.data.table.Table` and a list of item sets a
:class:`~anonstudio.data.transactions.TransactionData`, as the loaders build them.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["open", "sample", "as_dataset", "is_dataset"]


def is_dataset(value: Any) -> bool:
    """True for data anonstudio has already loaded (a TransactionData, a Table or RT data)."""
    from ..data.table import RTData, Table
    from ..data.transactions import TransactionData

    return isinstance(value, (TransactionData, Table, RTData))


def open(source: Any, /, *, roles: str | Mapping[str, str] | None = None, name: str | None = None,
         numeric: str | Iterable[str] | None = None, **read_options: Any) -> Any:
    """Open a dataset: a file, a bundled sample, a database URL, a pandas DataFrame or a list of item sets.

    Parameters
    ----------
    source
        A path (format sniffed from the content), the name of a bundled sample (``"chess"``), a
        database URL with ``table=`` or ``query=`` where the installed anonstudio reads databases, a
        ``pandas.DataFrame`` (a table, one row per person) or a list of item sets
        (``[{"bread", "milk"}, {"beer"}]``: set-valued data, one set per person).
    roles
        Column roles of a table, as a dict (``{"occupation": "sensitive"}``) or as the CLI's
        ``--roles`` text (``"occupation=sensitive"``); they replace the sample's or file's roles.
    name
        The dataset's name for data built in memory (shown in reports and the run's JSON).
    numeric
        Table columns to read as numbers (a list, or the CLI's ``--numeric`` text ``"when,zip"``):
        dates and date-times become days since 1970-01-01, codes such as ``00123`` become 123
        (by default dates are ISO text and codes with leading zeros stay text).
    **read_options
        How to read a file, passed on unchanged: ``format``, ``encoding``, ``sep``, ``header``,
        ``columns`` (a list or comma-separated text) and whatever else the readers take
        (``sheet=``, ``table=``, ``query=``).

    Returns
    -------
    TransactionData or Table
        Read-only data, ready for any method family.

    Raises
    ------
    DataFormatError
        A bad file, naming the file, the line and the reason.
    ValueError
        An unknown format or an option the format does not take.
    """
    from ..data.datasets import open_dataset

    if is_dataset(source):
        data = source
    elif _is_frame(source):
        data = _table_from_frame(source, name or "table")
    elif isinstance(source, (str, Path)):
        columns = read_options.get("columns")
        if columns is not None and not isinstance(columns, str):
            read_options["columns"] = ",".join(str(c) for c in columns)
        data = open_dataset(source, **read_options)
    elif isinstance(source, Iterable):
        data = _sets(source, name or "item sets")
    else:
        raise TypeError(f"cannot open a {type(source).__name__}: give a path, a sample name, a database URL, a "
                        "pandas DataFrame or a list of item sets")
    if roles is not None:
        data = _with_roles(data, roles)
    if numeric is not None:
        from ..data.datasets import parse_numeric_columns, table_with_numeric

        data = table_with_numeric(data, parse_numeric_columns(numeric))
    return data


def sample(name: str) -> Any:
    """A bundled sample by name (``anonstudio-cli samples`` lists them), e.g. ``sample("small-city")``.

    Raises
    ------
    KeyError
        For an unknown name, listing the bundled samples.
    """
    from ..data.samples import load_sample

    return load_sample(name)


def as_dataset(source: Any, opener: Any = None) -> Any:
    """``source`` as loaded data: loaded data as it is, a path or sample name through ``opener`` (a family's
    :meth:`~anonstudio.methods.contract.MethodSpec.open_dataset`, the CLI's way for its DATASET), anything
    else through :func:`open`."""
    if is_dataset(source):
        return source
    if isinstance(source, (str, Path)) and opener is not None:
        return opener(source)
    return open(source)


def _is_frame(value: Any) -> bool:
    # Without importing pandas: a caller who passes a DataFrame has imported it already.
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(value, pandas.DataFrame)


def _table_from_frame(frame: Any, name: str) -> Any:
    """A Table of a copy of ``frame``: rows renumbered 0..n-1 (people are numbered from 1 when shown), column
    names as text (as every loader gives them)."""
    from ..data.table import Table

    copy = frame.reset_index(drop=True).copy()
    copy.columns = [str(c) for c in copy.columns]
    if len(set(copy.columns)) != len(copy.columns):
        raise ValueError(f"{name}: two columns have the same name")
    return Table(copy, {}, name, None)


def _sets(records: Iterable[Any], name: str) -> Any:
    from ..data.transactions import TransactionData

    rows = list(records)
    for number, record in enumerate(rows, 1):
        if isinstance(record, (str, bytes)) or not isinstance(record, Iterable):
            raise TypeError(f"{name}: record {number} is {record!r}, not a set of items (give a list of sets, e.g. "
                            "[{'bread', 'milk'}, {'beer'}])")
    return TransactionData.from_records(rows, name=name)


def _with_roles(data: Any, roles: str | Mapping[str, str]) -> Any:
    from ..data.datasets import parse_roles, table_with_roles
    from ..data.table import Table

    if not isinstance(data, Table):
        raise ValueError(f"roles apply to tables; {getattr(data, 'name', 'the dataset')} is set-valued data")
    mapping = parse_roles(roles) if isinstance(roles, str) else {str(k): str(v) for k, v in roles.items()}
    if not isinstance(roles, str):
        parse_roles(",".join(f"{k}={v}" for k, v in mapping.items()) or "none")  # the same check of each role
    return table_with_roles(data, mapping)
