"""Where a loaded dataset came from: how a file was read (:class:`ReadOptions`) and its origin.

A dataset remembers how it was opened (:class:`DatasetOrigin`: a bundled
sample's name, or a file and its reading options) so that projects, the result
cache and command lines can name it. This module sits below both
:mod:`.samples` (which records a sample's origin) and :mod:`.datasets` (which
records a file's and opens either again), so neither imports the other's
caller.
"""
from __future__ import annotations

import dataclasses
import inspect
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ReadOptions", "applicable_options", "DatasetOrigin", "attach_origin", "origin_of"]


@dataclass(frozen=True)
class ReadOptions:
    """How to read a file; every field left at its default is guessed from the file.

    Parameters
    ----------
    format
        A registered format name (``fimi``, ``csv-table``...); None sniffs the content.
    encoding
        A text encoding (``latin-1``...); None reads UTF-8 (a byte-order mark is dropped).
    header
        Whether the first row names the columns; None guesses (delimited formats only).
    sep
        The field separator; None guesses (delimited formats only).
    names
        Column names for a table (they replace a header row, or name a file without one).
    sheet
        The sheet of a workbook: its name, or its number from 1 as text; None reads the first.
    numeric
        Table columns read as numbers after any reader (dates as days since 1970-01-01, ``00123`` as 123:
        :func:`~anonstudio.data.datasets.table_with_numeric`). Unlike the other fields it applies to every
        source, a database table or a bundled sample included.
    """

    format: str | None = None
    encoding: str | None = None
    header: bool | None = None
    sep: str | None = None
    names: tuple[str, ...] = ()
    sheet: str | None = None
    numeric: tuple[str, ...] = ()

    def replace(self, **changes: Any) -> ReadOptions:
        return dataclasses.replace(self, **changes)

    def format_for(self, path: str | Path):
        """The :class:`~anonstudio.data.io.Format` these options read ``path`` with (column names mean a table)."""
        from .io import get_format, sniff_format

        if self.format:
            return get_format(self.format)
        return sniff_format(path, "table" if self.names else None, sheet=self.sheet)

    def loader_options(self, fmt) -> dict[str, Any]:
        """The options the format's loader takes (the others do not apply to it)."""
        accepted = applicable_options(fmt)
        wanted = {"encoding": self.encoding, "sep": self.sep, "header": self.header,
                  "names": list(self.names) if self.names else None, "sheet": self.sheet}
        return {k: v for k, v in wanted.items() if v is not None and k in accepted}


def applicable_options(fmt) -> set[str]:
    """Which of :class:`ReadOptions`' fields (``encoding``, ``sep``, ``header``, ``names``, ``sheet``) a format's
    loader takes."""
    accepted = inspect.signature(fmt.load).parameters
    return {name for name in ("encoding", "sep", "header", "names", "sheet") if name in accepted}


@dataclass(frozen=True)
class DatasetOrigin:
    """How to open a loaded dataset again: a bundled sample's name, a file and how it was read, or a database
    table or query. ``options.numeric`` (columns read as numbers) applies to all three.

    Projects store it; :func:`anonstudio.data.datasets.reopen` reads the same data again.
    """

    sample: str | None = None
    path: Path | None = None
    options: ReadOptions = ReadOptions()
    #: A database: its URL without password, the table or query read, RT data's items query, and the SHA-256 of
    #: the fetched rows in canonical form (reopening refuses data that changed).
    url: str | None = None
    table: str | None = None
    query: str | None = None
    items_query: str | None = None
    sha256: str | None = None


# Kept beside the datasets rather than inside them (TransactionData is frozen);
# the weak keys let a dataset be garbage-collected.
_ORIGINS: weakref.WeakKeyDictionary[Any, DatasetOrigin] = weakref.WeakKeyDictionary()


def attach_origin(data: Any, origin: DatasetOrigin) -> None:
    """Remember how ``data`` was opened (a table with new roles passes its origin on)."""
    _ORIGINS[data] = origin


def origin_of(data: Any) -> DatasetOrigin | None:
    """How ``data`` was opened; None for data built in memory (a generated city, a test's table)."""
    try:
        return _ORIGINS.get(data)
    except TypeError:
        return None
