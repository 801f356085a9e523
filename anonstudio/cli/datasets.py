"""The one DATASET argument of every command: a file or the name of a bundled sample."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .errors import CliError, user_errors

__all__ = ["add_dataset_arguments", "load_dataset_argument", "dataset_options", "DATASET_HELP"]

DATASET_HELP = "a data file, or the name of a bundled sample (anonstudio-cli samples lists them)"


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
    if columns:
        parser.add_argument("--columns", default=None, metavar="NAMES",
                            help="comma-separated column names for a table file (without --header: the file has "
                                 "no header row)")
        parser.add_argument("--roles", default=None, metavar="COL=ROLE,...",
                            help="column roles of a table (quasi-identifier, sensitive, insensitive, identifier); "
                                 "they replace the sample's or file's roles; 'none' clears them")


def dataset_options(args: argparse.Namespace) -> dict[str, Any]:
    """The reading options of :func:`add_dataset_arguments` from parsed arguments, for :func:`load_dataset_argument`."""
    return {key: getattr(args, key, None) for key in ("format", "encoding", "sep", "header", "columns", "roles")}


def load_dataset_argument(spec: str, *, format: str | None = None, encoding: str | None = None,
                          columns: str | None = None, sep: str | None = None, header: bool | None = None,
                          roles: str | None = None, kinds: tuple[type, ...] = (), opener: Any = None,
                          quiet: bool = False) -> Any:
    """Load DATASET (``opener(spec, format=, encoding=, columns=, sep=, header=, progress=)``, by default
    :func:`anonstudio.data.datasets.open_dataset`), give a table ``roles`` and check its kind.

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
    name = Path(spec).name or str(spec)
    # A bar only on a terminal: loading is usually quick, and logs need no bar.
    with TqdmProgress(f"loading {name}", disable=quiet or not _stderr_is_terminal()) as progress:
        try:
            data = opener(spec, format=format, encoding=encoding, columns=columns, sep=sep, header=header,
                          progress=progress)
        except (ValueError, *user_errors()) as exc:  # DataFormatError, an unknown --format or encoding
            raise CliError(str(exc)) from None
    if role_map is not None:
        if not isinstance(data, Table):
            raise CliError(f"--roles applies to tables; {getattr(data, 'name', spec)} is {kind_words(type(data))}")
        try:
            data = table_with_roles(data, role_map)
        except ValueError as exc:
            raise CliError(f"--roles: {exc}") from None
    if kinds and not isinstance(data, kinds):
        wanted = " or ".join(kind_words(k) for k in kinds)
        raise CliError(f"{spec}: this command works on {wanted}, and {getattr(data, 'name', spec)} is "
                       f"{kind_words(type(data))}")
    return data


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False
