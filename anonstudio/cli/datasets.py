"""The one DATASET argument of every command: a file or the name of a bundled sample."""
from __future__ import annotations

import argparse
from typing import Any

from .errors import USER_ERRORS, CliError

__all__ = ["add_dataset_arguments", "load_dataset_argument", "DATASET_HELP"]

DATASET_HELP = "a data file, or the name of a bundled sample (anonstudio-cli samples lists them)"


def add_dataset_arguments(parser: argparse.ArgumentParser, *, name: str = "dataset", metavar: str = "DATASET",
                          help: str = DATASET_HELP, columns: bool = True) -> None:
    """The positional dataset plus ``--format``, ``--encoding`` and (for tables) ``--columns``."""
    parser.add_argument(name, metavar=metavar, help=help)
    parser.add_argument("--format", default=None, metavar="FMT",
                        help="input format if it cannot be sniffed (fimi, csv-long, csv-sets, checkins, spmf-seq, "
                             "parquet, csv-table, parquet-table)")
    parser.add_argument("--encoding", default=None, metavar="NAME",
                        help="text encoding of the input file if it is not UTF-8 (e.g. latin-1, cp1252, utf-16)")
    if columns:
        parser.add_argument("--columns", default=None, metavar="NAMES",
                            help="comma-separated column names for a table file without a header row")


def load_dataset_argument(spec: str, *, format: str | None = None, encoding: str | None = None,
                          columns: str | None = None, kinds: tuple[type, ...] = (), opener: Any = None) -> Any:
    """Load DATASET (``opener(spec, format=, encoding=, columns=)``, by default
    :func:`anonstudio.data.datasets.open_dataset`) and check its kind.

    Raises :class:`CliError` with one line for everything the user must fix.
    """
    from ..data.datasets import open_dataset
    from ..data.kinds import kind_words

    opener = opener or open_dataset
    try:
        data = opener(spec, format=format, encoding=encoding, columns=columns)
    except (ValueError, *USER_ERRORS) as exc:  # DataFormatError, an unknown --format or encoding
        raise CliError(str(exc)) from None
    if kinds and not isinstance(data, kinds):
        wanted = " or ".join(kind_words(k) for k in kinds)
        raise CliError(f"{spec}: this command works on {wanted}, and {getattr(data, 'name', spec)} is "
                       f"{kind_words(type(data))}")
    return data
