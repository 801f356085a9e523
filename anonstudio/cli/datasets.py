"""The one DATASET argument of every command: a file, the name of a bundled sample or a database URL."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .errors import CliError, user_errors

__all__ = ["add_dataset_arguments", "load_dataset_argument", "dataset_options", "DATASET_HELP"]

DATASET_HELP = ("a data file (text, Parquet, .xlsx/.xlsm/.ods spreadsheet), the name of a bundled sample "
                "(anonstudio-cli samples lists them), or a database URL such as sqlite:///file.db or "
                "postgresql://user@host:5432/db (with --table or --query)")

#: Reading options beyond the file formats': passed to the opener only when given.
SOURCE_OPTIONS = ("sheet", "table", "query", "items_query")


def add_dataset_arguments(parser: argparse.ArgumentParser, *, name: str = "dataset", metavar: str = "DATASET",
                          help: str = DATASET_HELP, columns: bool = True) -> None:
    """The positional dataset plus how to read it: ``--format``, ``--encoding``, ``--sep``, ``--header`` and
    (for tables) ``--columns`` and ``--roles``."""
    parser.add_argument(name, metavar=metavar, help=help)
    parser.add_argument("--format", default=None, metavar="FMT",
                        help="input format if it cannot be sniffed (fimi, csv-long, csv-sets, checkins, spmf-seq, "
                             "parquet, csv-table, parquet-table)")
    parser.add_argument("--encoding", default=None, metavar="NAME",
                        help="text encoding of the input file if it is not UTF-8 (e.g. latin-1, cp1252, utf-16)")
    parser.add_argument("--sep", default=None, metavar="CHAR",
                        help="field separator of a delimited file if the guess is wrong ('tab' for a tab)")
    parser.add_argument("--header", default=None, action=argparse.BooleanOptionalAction,
                        help="whether the first row of a delimited file names the columns (default: guessed)")
    parser.add_argument("--sheet", default=None, metavar="NAME|NUMBER",
                        help="the sheet of a spreadsheet to read, by name or number from 1 (default: the first)")
    parser.add_argument("--table", default=None, metavar="NAME",
                        help="the table to read when DATASET is a database URL (rows in the database's order: "
                             "for a fixed order use --query with ORDER BY)")
    parser.add_argument("--query", default=None, metavar="SQL",
                        help="a SELECT to read when DATASET is a database URL (run read-only)")
    parser.add_argument("--items-query", default=None, metavar="SQL",
                        help="with a database URL: a SELECT of (person, item) rows giving each person of --table "
                             "or --query a set of items (RT data), joined on the first column")
    if columns:
        parser.add_argument("--columns", default=None, metavar="NAMES",
                            help="comma-separated column names for a table file (without --header: the file has "
                                 "no header row)")
        parser.add_argument("--roles", default=None, metavar="COL=ROLE,...",
                            help="column roles of a table (quasi-identifier, sensitive, insensitive, identifier); "
                                 "they replace the sample's or file's roles; 'none' clears them")
        parser.add_argument("--numeric", default=None, metavar="COL,...",
                            help="columns of a table to read as numbers: dates and date-times become days since "
                                 "1970-01-01 (2020-01-02 is 18263), codes such as 00123 become 123 (default: "
                                 "dates are ISO text, codes with leading zeros stay text)")


def dataset_options(args: argparse.Namespace) -> dict[str, Any]:
    """The reading options of :func:`add_dataset_arguments` from parsed arguments, for :func:`load_dataset_argument`."""
    keys = ("format", "encoding", "sep", "header", "columns", "roles", "numeric", *SOURCE_OPTIONS)
    return {key: getattr(args, key, None) for key in keys}


def load_dataset_argument(spec: str, *, format: str | None = None, encoding: str | None = None,
                          columns: str | None = None, sep: str | None = None, header: bool | None = None,
                          roles: str | None = None, kinds: tuple[type, ...] = (), opener: Any = None,
                          quiet: bool = False, sheet: str | None = None, table: str | None = None,
                          query: str | None = None, items_query: str | None = None,
                          numeric: str | None = None) -> Any:
    """Load DATASET (``opener(spec, format=, encoding=, columns=, sep=, header=, progress=)``, by default
    :func:`anonstudio.data.datasets.open_dataset`), give a table ``roles`` and check its kind.

    ``sheet``, ``table``, ``query`` and ``items_query`` are passed to the opener
    only when given (a spreadsheet's sheet, a database's table or queries).
    ``numeric`` (``--numeric``) marks table columns to read as numbers
    (:func:`~anonstudio.data.datasets.table_with_numeric`), whatever the source.

    Loading runs under Ctrl-C handling like every other step: the first press
    stops it between chunks (:class:`~anonstudio.data.errors.LoadCancelled`,
    which the CLI turns into exit status 130 with nothing written), a second
    aborts. Raises :class:`CliError` with one line for everything the user
    must fix.
    """
    from ..data.datasets import open_dataset, parse_roles, table_with_roles
    from ..data.kinds import kind_words
    from ..data.table import Table
    from .progress import TqdmProgress

    opener = opener or open_dataset
    if columns is not None and not [c for c in columns.split(",") if c.strip()]:
        raise CliError("--columns needs at least one column name")
    if sep is not None and sep.lower() in ("\\t", "tab"):
        sep = "\t"  # a typed backslash-t or the word: a shell passes no real tab without $'\t'
    if sep is not None and len(sep) != 1:
        raise CliError(f"--sep must be one character (got {sep!r})")
    try:
        role_map = parse_roles(roles) if roles is not None else None
    except ValueError as exc:
        raise CliError(f"--{exc}") from None
    source = {k: v for k, v in (("sheet", sheet), ("table", table), ("query", query), ("items_query", items_query))
              if v is not None}
    name = _display_name(spec)
    # A bar only on a terminal: loading is usually quick, and logs need no bar.
    with TqdmProgress(f"loading {name}", disable=quiet or not _stderr_is_terminal()) as progress:
        try:
            data = opener(spec, format=format, encoding=encoding, columns=columns, sep=sep, header=header,
                          progress=progress, **source)
        except (ValueError, *user_errors()) as exc:  # DataFormatError, an unknown --format or encoding
            raise CliError(str(exc)) from None
    if role_map is not None:
        if not isinstance(data, Table):
            raise CliError(f"--roles applies to tables; {getattr(data, 'name', name)} is {kind_words(type(data))}")
        try:
            data = table_with_roles(data, role_map)
        except ValueError as exc:
            raise CliError(f"--roles: {exc}") from None
    if numeric is not None:
        from ..data.datasets import parse_numeric_columns, table_with_numeric

        try:
            data = table_with_numeric(data, parse_numeric_columns(numeric))
        except ValueError as exc:
            raise CliError(f"--numeric: {exc}") from None
    if kinds and not isinstance(data, kinds):
        wanted = " or ".join(kind_words(k) for k in kinds)
        shown = name if "://" in str(spec) else spec  # never a URL's password
        raise CliError(f"{shown}: this command works on {wanted}, and {getattr(data, 'name', name)} is "
                       f"{kind_words(type(data))}")
    return data


def _display_name(spec: str) -> str:
    """What the progress bar calls DATASET: a file's name, or a database URL without its password."""
    if "://" in str(spec):
        from ..data.io.database import redact_url

        return redact_url(str(spec))
    return Path(spec).name or str(spec)


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


# ------------------------------------------------------------------ releases written back to a database
def add_release_table_arguments(group: Any) -> None:
    """``--out-table``, ``--out-url`` and ``--replace``: a table release written as a new database table."""
    group.add_argument("--out-table", default=None, metavar="NAME",
                       help="also write the release as a new table NAME of the database DATASET names (or of "
                            "--out-url); written only when the independent check confirms the promise, in one "
                            "transaction")
    group.add_argument("--out-url", default=None, metavar="URL",
                       help="the database --out-table writes to (default: DATASET's, when it is a database URL)")
    group.add_argument("--replace", action="store_true",
                       help="let --out-table replace an existing table (never replaced otherwise)")


def release_table_target(args: argparse.Namespace) -> str | None:
    """The database URL ``--out-table`` writes to (None without ``--out-table``); CliError when there is none."""
    from ..data.io.database import is_database_url

    name = getattr(args, "out_table", None)
    if name is None:
        if getattr(args, "out_url", None) is not None:
            raise CliError("--out-url needs --out-table NAME")
        return None
    url = getattr(args, "out_url", None) or (args.dataset if is_database_url(str(args.dataset)) else None)
    if url is None:
        raise CliError("--out-table needs a database: DATASET is a file, so give --out-url URL")
    if not name.strip():
        raise CliError("--out-table needs a table name")
    return url


def write_release_table(run: Any, args: argparse.Namespace, *, allow_unverified: bool = False) -> list[str]:
    """Write the run's table release to ``--out-table`` (one line per thing not written, saying why).

    Raises CliError (one line, no password) when the database refuses the table.
    """
    import tempfile

    from ..data.io.database import DatabaseError, write_table
    from ..data.io.sheets import csv_rows
    from ..methods.contract import release_as_csv

    url = release_table_target(args)
    if url is None:
        return []
    export = next((e for e in run.spec.exports if e.kind == "release" and e.offered(run)), None)
    if export is None:
        return [f"--out-table {args.out_table}: not written, this run has no release"]
    if not run.guarantee_met and not allow_unverified:
        return [f"--out-table {args.out_table}: not written, {run.status_reason() or 'unverified'} "
                "(--allow-unverified writes it anyway)"]
    with tempfile.TemporaryDirectory(prefix="anonstudio-release-") as folder:
        header, rows = csv_rows(release_as_csv(export, run, Path(folder)))
        try:
            write_table(url, args.out_table, header, rows, replace=bool(args.replace))
        except DatabaseError as exc:
            raise CliError(str(exc)) from None
    return []
