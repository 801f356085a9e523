"""CSV with a set-valued column: one record per row, items joined by ``;`` (``a;b;c``).

The set column is chosen with ``column=`` (name or 0-based index); by default
it is the column whose fields most often contain the item separator. Other
columns are ignored. An empty field is an empty record.

Header row (``header="auto"``): the first row is data when it looks like the
other rows, that is when its set field is empty, holds the item separator,
or names an item found in other records, or when the other columns are
numeric and so is the first row there. It is a header when its fields are
known column names (``items``, ``codes``...), when ``column=`` names one of
them, or when a numeric column starts with a word. A first row none of
these rules decides (a lone word that is no item elsewhere) is taken as the
header and the load report says so. ``header=True``/``False`` overrides.
"""
from __future__ import annotations

import csv
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DataFormatError
from ..transactions import TransactionData
from .atomic import atomic_write
from .build import RecordChunks, records_as_label_lists
from .delimited import (
    column_index,
    header_only,
    header_only_reason,
    iter_rows,
    looks_like_header,
    numeric_header_evidence,
)
from .registry import Format, Head, register
from .report import LoadReport
from .shape import delimited_shape

__all__ = ["load_csv_sets", "save_csv_sets", "load_sets_from_rows"]

SET_COLUMN_NAMES = ("items", "item", "set", "codes", "diagnoses", "basket", "products", "places")


def _guess_set_column(rows: list[list[str]], item_sep: str) -> int | None:
    n_fields = len(rows[0])
    if n_fields == 1:
        return 0
    share = [sum(item_sep in r[j] for r in rows[:2000]) for j in range(n_fields)]
    best = int(np.argmax(share))
    return best if share[best] > 0 else None


def _first_row_is_header(rows: list[list[str]], index: int | None, item_sep: str, report: LoadReport) -> bool:
    """The ``header="auto"`` rule of the module docstring; ``index`` is the set column if known."""
    first, body = rows[0], rows[1:]
    if not body:
        return False
    if all(f.strip().lower() in SET_COLUMN_NAMES for f in first):
        return True
    if index is None:
        return looks_like_header(rows, SET_COLUMN_NAMES)
    cell = first[index].strip()
    if not cell or item_sep in cell:
        return False  # column names hold no item separator; an empty field is an empty record
    items = {x.strip() for r in body[:2000] if index < len(r) for x in r[index].split(item_sep)}
    if cell in items:
        return False
    numeric = numeric_header_evidence(rows, skip=(index,))
    if numeric is not None:
        return numeric
    if cell.lower() not in SET_COLUMN_NAMES:
        shown = ", ".join(f.strip() for f in first)
        report.warn(f"first row {shown[:60]!r} read as column names; pass header=False if it is a record")
    return True


def _refuse_header_only(path: Path, sample: list[list[str]], header: bool | str, column: str | int | None,
                        item_sep: str, line: int | None) -> None:
    """A file of one line of names (``a;b;c``, ``name;age;city``) is a header without data, as for ``,``.

    The line's fields, or its one field split at the item separator, are read
    as :func:`~.delimited.header_only` reads a header: text, none empty,
    none repeated, no number. ``header=False`` (``--no-header``) reads it as a
    record.
    """
    if header != "auto" or column is not None or len(sample) != 1:
        return
    fields = sample[0] if len(sample[0]) > 1 else sample[0][0].split(item_sep) if sample[0] else []
    if len(fields) > 1 and header_only([fields]):
        raise DataFormatError(path, header_only_reason([fields]), line)


def _split_sets(values: np.ndarray, item_sep: str) -> tuple[np.ndarray, np.ndarray]:
    """(items per record, the items) of a chunk's set column; edge white space and empty items dropped."""
    parts = [[x.strip() for x in v.split(item_sep)] for v in values.tolist()]
    parts = [[x for x in p if x] for p in parts]
    lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    return lengths, np.asarray(list(chain.from_iterable(parts)), dtype=object)


def load_csv_sets(path: str | Path, report: LoadReport, *, column: str | int | None = None, item_sep: str = ";",
                  header: bool | str = "auto", sep: str | None = None, encoding: str | None = None,
                  latin1_fallback: bool = False, progress: Any = None) -> TransactionData:
    """Read one record per row from the set column (see module docstring), chunk by chunk."""
    path = Path(path)
    candidates = tuple(c for c in (",", "\t", ";", "|") if c != item_sep)
    reader = iter_rows(path, sep=sep, candidates=candidates, encoding=encoding, latin1_fallback=latin1_fallback,
                       progress=progress)
    return load_sets_from_rows(path, report, reader, column=column, item_sep=item_sep, header=header,
                               progress=progress)


def load_sets_from_rows(path: Path, report: LoadReport, reader, *, column: str | int | None = None,
                        item_sep: str = ";", header: bool | str = "auto", progress: Any = None) -> TransactionData:
    """Rows with a set column (``reader`` as :func:`~.delimited.iter_rows` returns) as one record per row."""
    records = RecordChunks(path, report)
    names = None
    index = None
    for n, chunk in enumerate(reader):
        if n == 0:
            sample = chunk.rows(2001)
            if column is None:
                # The separator share barely moves with one header row, so guess on all rows.
                index = _guess_set_column(sample, item_sep)
                if index is None:
                    raise DataFormatError(path, f"no column contains {item_sep!r}-separated items; pass column=...")
            _refuse_header_only(path, sample, header, column, item_sep, chunk.line(0) if chunk.n_rows else None)
            use_header = header
            if header == "auto":
                named = isinstance(column, str) and column in sample[0] and not column.isdigit()
                use_header = named or _first_row_is_header(sample, index if column is None else None, item_sep,
                                                           report)
            names = [h.strip() for h in sample[0]] if use_header else None
            report.details.update(separator=reader.sep, header=bool(use_header))
            if column is not None:
                index = column_index(names, column, 0, path, reader.n_fields)
            if use_header:
                chunk = chunk.drop_first()
        if chunk.n_rows:
            lengths, labels = _split_sets(chunk.columns[index], item_sep)
            records.add(lengths, labels, chunk.lines)
    report.details["set_column"] = names[index] if names else index
    if progress is not None:
        progress.set(1.0, f"building {path.name}")
    return records.build()


def save_csv_sets(data: TransactionData, path: str | Path, *, item_sep: str = ";") -> None:
    """Write a one-column CSV ``items`` with ``a;b;c`` per row."""
    path = Path(path)
    bad = [v for v in data.vocab if item_sep in v or v != v.strip()]
    if bad:
        raise DataFormatError(path, f"item {bad[0]!r} contains the separator {item_sep!r} or edge spaces")
    with atomic_write(path) as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["items"])
        writer.writerows([item_sep.join(labels)] for labels in records_as_label_lists(data))


def _semicolon_table(lines: list[str]) -> bool:
    """A ';'-separated table with a header row (``name;age;city``), possibly ragged.

    Told apart from a set column by its first row: at least three fields,
    a field count most rows share, and numeric columns whose first value is
    a name.
    """
    shape = delimited_shape(lines, (";",))
    return (shape is not None and shape.first >= 3 and shape.share(shape.first) >= 0.5
            and numeric_header_evidence(shape.rows) is True)


def sniff_csv_sets(head: Head) -> float:
    lines = head.lines[:300]
    if not lines or _semicolon_table(lines):
        return 0.0
    body = lines[1:] or lines
    with_sets = sum(";" in ln for ln in body)
    if with_sets >= 0.3 * len(body):
        rows = list(csv.reader(lines))
        if len({len(r) for r in rows}) == 1 and any(";" in f for r in rows for f in r):
            # The same number of ';' on every line looks more like a ';'-separated table.
            fixed = len({ln.count(";") for ln in lines}) == 1 and lines[0].count(";") > 1
            return 0.4 if fixed else 0.75
    return 0.0


register(Format(
    name="csv-sets", label="CSV with a set column (a;b;c)", kind="transactions", extensions=(".sets.csv",),
    sniff=sniff_csv_sets, load=load_csv_sets, save=save_csv_sets,
    description="One record per row; the items of a record in one field separated by semicolons.",
))
