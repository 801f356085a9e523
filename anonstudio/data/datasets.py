"""Open a dataset the way every front end names one: a file path, a bundled sample's name or a database URL.

:class:`~.origin.ReadOptions` is how a file is read (format, encoding, header row,
separator, column names); the CLI's ``--format``, ``--encoding`` and
``--columns`` and the studio's import preview both fill one, and
:func:`load_with_options` reads a file with it.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .errors import DataFormatError
from .origin import DatasetOrigin, ReadOptions, applicable_options, attach_origin, origin_of
from .samples import list_samples, load_sample

# ReadOptions, DatasetOrigin and the origin registry live in .origin (below .samples); they are
# re-exported here, where the front ends and the studio look for them.
__all__ = ["open_dataset", "reopen", "DataChanged", "ReadOptions", "load_with_options", "require_regular_file",
           "applicable_options", "DatasetOrigin", "attach_origin", "origin_of", "parse_roles", "table_with_roles",
           "table_with_numeric", "parse_numeric_columns", "NUMERIC_EPOCH"]


def load_with_options(path: str | Path, options: ReadOptions | None = None, *, report=None,
                      progress: Any = None) -> Any:
    """Load ``path`` (a TransactionData or a Table) as ``options`` say, its ``numeric`` columns as numbers.

    Raises DataFormatError naming file, line and reason; ValueError for an
    unknown format name or a value of a numeric column that is no number
    (:func:`table_with_numeric`); :class:`~anonstudio.data.errors.LoadCancelled`
    when ``progress`` is cancelled (nothing is returned).
    """
    from .io import load_table, load_transactions

    options = options or ReadOptions()
    fmt = options.format_for(path)
    kwargs = options.loader_options(fmt)
    if fmt.kind == "table":
        data = load_table(path, format=fmt.name, report=report, progress=progress, **kwargs)
    else:
        data = load_transactions(path, format=fmt.name, report=report, progress=progress, **kwargs)
    attach_origin(data, DatasetOrigin(path=Path(path), options=options))
    if options.numeric:
        data = table_with_numeric(data, options.numeric)
    return data


def reopen(origin: DatasetOrigin, path: Path | None = None, progress: Any = None, *,
           password: str | None = None) -> Any:
    """Load the dataset ``origin`` names again (from ``path`` instead when the file moved).

    A database origin is fetched again; rows that differ from the ones
    fingerprinted (``origin.sha256``) raise :class:`DataChanged`.
    """
    numeric = origin.options.numeric
    if origin.sample is not None:
        data = load_sample(origin.sample)
        return table_with_numeric(data, numeric) if numeric else data
    if origin.url is not None:
        data = open_dataset(origin.url, table=origin.table, query=origin.query, items_query=origin.items_query,
                            password=password, progress=progress, numeric=numeric or None)
        fetched = origin_of(data)
        if origin.sha256 is not None and fetched is not None and fetched.sha256 != origin.sha256:
            raise DataChanged(f"{origin.url}: the rows of {_source_words(origin)} have changed since the dataset "
                              "was saved (their SHA-256 differs)")
        return data
    target = Path(path or origin.path)
    require_regular_file(target)
    return load_with_options(target, origin.options, progress=progress)


class DataChanged(ValueError):
    """A database's rows differ from those a saved dataset was fingerprinted with."""


def _source_words(origin: DatasetOrigin) -> str:
    return f"table {origin.table!r}" if origin.table is not None else "the query"


def open_dataset(spec: str | Path, *, format: str | None = None, encoding: str | None = None,
                 columns: str | None = None, sep: str | None = None, header: bool | None = None,
                 sheet: str | int | None = None, table: str | None = None, query: str | None = None,
                 items_query: str | None = None, password: str | None = None, progress: Any = None,
                 numeric: str | Sequence[str] | None = None) -> Any:
    """Open what a user names: a data file, a bundled sample, or a database table or query.

    The one function every front end (CLI, studio, library) opens a dataset with.

    Parameters
    ----------
    spec
        A file path (sniffed by content: FIMI, CSV, Parquet, ``.xlsx``/``.xlsm``/``.ods``...), the name of a
        bundled sample, or a database URL (``sqlite:///file.db``, ``postgresql://user@host:5432/db``, any
        installed SQLAlchemy dialect).
    format
        A file: a registered format name instead of sniffing. A database: ``table``, ``long`` (person, item
        rows) or ``sets`` (a column of item sets) instead of guessing the shape.
    encoding
        The text encoding of a text file (default UTF-8, a byte-order mark decides).
    columns
        Comma-separated column names for a table file; without ``header=True`` the file then has no header row.
    sep, header
        The field separator and whether the first row names the columns (delimited files; default guessed;
        ``header`` applies to spreadsheets too).
    sheet
        A spreadsheet's sheet: its name, or its number from 1 (default: the first).
    table, query
        A database URL's table, or one read-only ``SELECT`` (exactly one of them).
    items_query
        With a database table or query of people: a ``SELECT`` of (person, item) rows; each person (the first
        column) gets the ``;``-separated set of their items in an ``items`` column (RT data).
    password
        A database password not in the URL (the studio's prompt); never stored. Without it PostgreSQL reads
        ``PGPASSWORD`` or ``~/.pgpass``.
    progress
        Told the share read; a cancel raises :class:`~anonstudio.data.errors.LoadCancelled` between chunks
        (nothing is returned: the caller keeps what it had).
    numeric
        Table columns to read as numbers, whatever the source (``"when,zip"`` or a list; see
        :func:`table_with_numeric`); the dataset's origin keeps them, so a project reopens the same table.

    Raises
    ------
    DataFormatError
        Naming the file (and sheet), the line or row and the reason: no such file or sample, a folder, pipe or
        device, a bad file.
    ValueError
        An unknown format name, an option that does not apply to the source, or a database that cannot be read
        (:class:`~anonstudio.data.io.database.DatabaseError`: one line naming the URL without its password).
    """
    data = _open(spec, format=format, encoding=encoding, columns=columns, sep=sep, header=header, sheet=sheet,
                 table=table, query=query, items_query=items_query, password=password, progress=progress)
    columns_ = parse_numeric_columns(numeric) if numeric is not None else []
    return table_with_numeric(data, columns_) if columns_ else data


def _open(spec: str | Path, *, format: str | None, encoding: str | None, columns: str | None, sep: str | None,
          header: bool | None, sheet: str | int | None, table: str | None, query: str | None,
          items_query: str | None, password: str | None, progress: Any) -> Any:
    """:func:`open_dataset` before any column is marked numeric."""
    from .io.database import is_database_url

    if is_database_url(str(spec)):
        return _open_database(str(spec), format=format, table=table, query=query, items_query=items_query,
                              password=password, progress=progress, given={"encoding": encoding, "columns": columns,
                                                                            "sep": sep, "header": header,
                                                                            "sheet": sheet})
    for option, value in (("table", table), ("query", query), ("items_query", items_query),
                          ("password", password)):
        if value is not None:
            raise ValueError(f"{option.replace('_', '-')} applies to a database URL (sqlite:///file.db, "
                             f"postgresql://...); {Path(spec).name or spec} is not one")
    path = Path(spec)
    if path.exists() or path.is_symlink():
        require_regular_file(path)
        names = tuple(c.strip() for c in columns.split(",") if c.strip()) if columns else ()
        if names and header is None:
            header = False
        options = ReadOptions(format=format, encoding=encoding, header=header, sep=sep, names=names,
                              sheet=None if sheet is None else str(sheet))
        fmt = options.format_for(path)
        taken = options.loader_options(fmt)
        if sheet is not None and "sheet" not in taken:
            raise ValueError(f"a sheet applies to a spreadsheet (.xlsx, .xlsm, .ods); {path.name} is read as "
                             f"{fmt.name!r}")
        if names and "names" not in taken:
            raise ValueError(f"column names apply to a CSV table; format {fmt.name!r} takes none")
        for what, value, key in (("separator", sep, "sep"), ("header choice", header, "header")):
            if value is not None and key not in taken:
                raise ValueError(f"format {fmt.name!r} takes no {what}")
        return load_with_options(path, options, progress=progress)
    if not path.suffix and str(spec) in {s.name for s in list_samples()}:
        if sheet is not None:
            raise ValueError(f"a sheet applies to a spreadsheet; {spec} is a bundled sample")
        return load_sample(str(spec))
    raise DataFormatError(path, "no such file or bundled sample (anonstudio-cli samples lists the samples)")


def _open_database(url: str, *, format: str | None, table: str | None, query: str | None,
                   items_query: str | None, password: str | None, progress: Any, given: dict[str, Any]) -> Any:
    """A database table or query as a dataset, its origin (URL without password, fingerprint) attached."""
    from .io.database import open_database, redact_url
    from .io.report import LoadReport, attach_report

    shown = redact_url(url)
    unused = [k for k, v in given.items() if v is not None]
    if unused:
        raise ValueError(f"{shown}: {unused[0]} applies to files, not to a database")
    report = LoadReport(format="database")
    data, digest = open_database(url, table=table, query=query, items_query=items_query, shape=format,
                                 password=password, report=report, progress=progress)
    attach_report(data, report)
    attach_origin(data, DatasetOrigin(url=shown, table=table, query=query, items_query=items_query, sha256=digest))
    return data


def parse_roles(text: str) -> dict[str, str]:
    """``"occupation=sensitive,fnlwgt=insensitive"`` as a dict (``"none"``: no roles); ValueError naming a bad
    entry."""
    from .table import Role

    text = text.strip()
    if text.lower() in ("none", ""):
        return {}
    valid = {r.value for r in Role}
    roles = {}
    for entry in text.split(","):
        column, eq, role = entry.partition("=")
        column, role = column.strip(), role.strip().lower()
        if not eq or not column:
            raise ValueError(f"roles: {entry.strip()!r} is not COLUMN=ROLE")
        if role not in valid:
            raise ValueError(f"roles: {role!r} is not a role ({', '.join(sorted(valid))})")
        roles[column] = role
    return roles


def table_with_roles(table: Any, roles: dict[str, Any]) -> Any:
    """``table`` (same rows) with exactly these column roles, keeping its load report and origin.

    Raises ValueError for a column the table does not have.
    """
    from .io.report import attach_report, load_report
    from .table import Role, Table

    unknown = sorted(set(roles) - {str(c) for c in table.frame.columns})
    if unknown:
        raise ValueError(f"{table.name} has no column {unknown[0]!r} to give a role; columns: "
                         f"{', '.join(map(str, table.frame.columns))}")
    marked = Table(table.frame, {str(c): Role(r) for c, r in roles.items()}, table.name, table.source)
    attach_report(marked, load_report(table))
    origin = origin_of(table)
    if origin is not None:
        attach_origin(marked, origin)
    return marked


#: Day 0 of a date marked numeric (:func:`table_with_numeric`).
NUMERIC_EPOCH = "1970-01-01"
_TIME_OF_DAY = r"^\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?$"


def parse_numeric_columns(text: str | Sequence[str]) -> list[str]:
    """``"when,born"`` (the CLI's ``--numeric``) or a list of names as a list of column names."""
    names = text.split(",") if isinstance(text, str) else [str(c) for c in text]
    return [n.strip() for n in names if n.strip()]


def _numeric_values(series: Any, column: str, where: str) -> Any:
    """A column's values as numbers: numbers as they are, ISO dates and date-times as days since
    :data:`NUMERIC_EPOCH` (a time of day adds its fraction of a day), a time alone as its fraction of a day."""
    import numpy as np
    import pandas as pd

    if series.dtype.kind in "iuf" or isinstance(series.dtype, pd.api.extensions.ExtensionDtype) and \
            pd.api.types.is_numeric_dtype(series.dtype):
        return series
    present = series.notna().to_numpy()
    texts = pd.Series(series[present].astype(str).str.strip().to_numpy(), dtype=object)
    values = pd.to_numeric(texts, errors="coerce").astype(np.float64)
    rest = values.isna().to_numpy()
    if rest.any():
        clock = texts[rest].str.match(_TIME_OF_DAY)
        clocks = texts[rest][clock]
        clocks = clocks.where(clocks.str.count(":") == 2, clocks + ":00")  # 06:00 is 06:00:00
        times = pd.to_timedelta(clocks, errors="coerce") / pd.Timedelta(days=1)
        values[times.index] = times
        dated = texts[rest][~clock]
        if len(dated):
            stamps = pd.to_datetime(dated, format="ISO8601", errors="coerce", utc=True)
            values[dated.index] = (stamps - pd.Timestamp(NUMERIC_EPOCH, tz="UTC")) / pd.Timedelta(days=1)
    bad = np.flatnonzero(values.isna().to_numpy() | ~np.isfinite(values.to_numpy()))
    if len(bad):
        row = int(np.flatnonzero(present)[bad[0]]) + 1
        raise ValueError(f"{where}: column {column!r} is marked numeric, but data row {row} holds "
                         f"{texts[bad[0]]!r}: neither a number nor an ISO date or time")
    numbers = values.to_numpy()
    whole = bool(np.all(numbers == np.round(numbers))) and bool(np.all(np.abs(numbers) < 2**53))
    if whole and present.all():
        return pd.Series(numbers.astype(np.int64), index=series.index)
    if whole:
        out = pd.array(np.zeros(len(series), dtype=np.int64), dtype="Int64")
        out[present] = numbers.astype(np.int64)
        out[~present] = pd.NA
        return pd.Series(out, index=series.index)
    out = np.full(len(series), np.nan)
    out[present] = numbers
    return pd.Series(out, index=series.index)


def table_with_numeric(table: Any, columns: Sequence[str]) -> Any:
    """``table`` (same rows, roles, load report and origin) with ``columns`` read as numbers.

    Readers give dates as ISO text (``2020-01-02``), as a CSV export holds them,
    and keep codes with leading zeros as text; a column marked numeric holds
    numbers instead: a number as its value (``00123`` is 123), a date or
    date-time as days since 1970-01-01 (``2020-01-02`` is 18263; ``12:00`` adds
    0.5), a time of day alone as its fraction of a day. Whole numbers make an
    integer column. Raises ValueError naming the column, the data row (from 1)
    and the value that is neither.
    """
    from .io.report import attach_report, load_report
    from .table import RTData, Table

    if isinstance(table, RTData):
        marked = RTData(table_with_numeric(table.table, columns), table.transactions)
    elif isinstance(table, Table):
        names = [str(c) for c in table.frame.columns]
        unknown = [c for c in columns if c not in names]
        if unknown:
            raise ValueError(f"{table.name} has no column {unknown[0]!r} to mark numeric; columns: "
                             f"{', '.join(names)}")
        frame = table.frame.copy()
        for column in columns:
            frame[column] = _numeric_values(frame[column], column, str(table.name))
        marked = Table(frame, dict(table.roles), table.name, table.source)
    else:
        raise ValueError(f"numeric columns apply to tables; {getattr(table, 'name', 'the data')} holds item sets")
    attach_report(marked, load_report(table))
    origin = origin_of(table)
    if origin is not None:
        # The origin names the marks too, so a project, a command line or the result cache reads the same numbers.
        marked_columns = tuple(dict.fromkeys([*origin.options.numeric, *map(str, columns)]))
        attach_origin(marked, dataclasses.replace(origin, options=origin.options.replace(numeric=marked_columns)))
    return marked


def require_regular_file(path: Path) -> None:
    """DataFormatError unless ``path`` is a regular file (or a link to one)."""
    from .io.text import require_regular_file as check

    check(path)
