"""Open a dataset the way every front end names one: a file path, a bundled sample's name or a database URL.

:class:`~.origin.ReadOptions` is how a file is read (format, encoding, header row,
separator, column names); the CLI's ``--format``, ``--encoding`` and
``--columns`` and the studio's import preview both fill one, and
:func:`load_with_options` reads a file with it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import DataFormatError
from .origin import DatasetOrigin, ReadOptions, applicable_options, attach_origin, origin_of
from .samples import list_samples, load_sample

# ReadOptions, DatasetOrigin and the origin registry live in .origin (below .samples); they are
# re-exported here, where the front ends and the studio look for them.
__all__ = ["open_dataset", "reopen", "DataChanged", "ReadOptions", "load_with_options", "require_regular_file",
           "applicable_options", "DatasetOrigin", "attach_origin", "origin_of", "parse_roles", "table_with_roles"]


def load_with_options(path: str | Path, options: ReadOptions | None = None, *, report=None,
                      progress: Any = None) -> Any:
    """Load ``path`` (a TransactionData or a Table) as ``options`` say.

    Raises DataFormatError naming file, line and reason; ValueError for an
    unknown format name; :class:`~anonstudio.data.errors.LoadCancelled` when
    ``progress`` is cancelled (nothing is returned).
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
    return data


def reopen(origin: DatasetOrigin, path: Path | None = None, progress: Any = None, *,
           password: str | None = None) -> Any:
    """Load the dataset ``origin`` names again (from ``path`` instead when the file moved).

    A database origin is fetched again; rows that differ from the ones
    fingerprinted (``origin.sha256``) raise :class:`DataChanged`.
    """
    if origin.sample is not None:
        return load_sample(origin.sample)
    if origin.url is not None:
        data = open_dataset(origin.url, table=origin.table, query=origin.query, items_query=origin.items_query,
                            password=password, progress=progress)
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
                 items_query: str | None = None, password: str | None = None, progress: Any = None) -> Any:
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

    Raises
    ------
    DataFormatError
        Naming the file (and sheet), the line or row and the reason: no such file or sample, a folder, pipe or
        device, a bad file.
    ValueError
        An unknown format name, an option that does not apply to the source, or a database that cannot be read
        (:class:`~anonstudio.data.io.database.DatabaseError`: one line naming the URL without its password).
    """
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


def require_regular_file(path: Path) -> None:
    """DataFormatError unless ``path`` is a regular file (or a link to one)."""
    from .io.text import require_regular_file as check

    check(path)
