"""CSV with a set-valued column: one record per row, items joined by ``;`` (``a;b;c``).

The set column is chosen with ``column=`` (name or 0-based index); by default
it is the column whose fields most often contain the item separator. Other
columns are ignored. An empty field is an empty record.
"""
from __future__ import annotations

import csv
from itertools import chain
from pathlib import Path

import numpy as np

from ..errors import DataFormatError
from ..transactions import TransactionData
from .atomic import atomic_write
from .build import build_transactions, records_as_label_lists
from .delimited import column_index, looks_like_header, numeric_header_evidence, read_rows
from .registry import Format, Head, register
from .report import LoadReport
from .shape import delimited_shape

__all__ = ["load_csv_sets", "save_csv_sets"]

SET_COLUMN_NAMES = ("items", "item", "set", "codes", "diagnoses", "basket", "products", "places")


def _guess_set_column(rows: list[list[str]], item_sep: str) -> int | None:
    n_fields = len(rows[0])
    if n_fields == 1:
        return 0
    share = [sum(item_sep in r[j] for r in rows[:2000]) for j in range(n_fields)]
    best = int(np.argmax(share))
    return best if share[best] > 0 else None


def load_csv_sets(path: str | Path, report: LoadReport, *, column: str | int | None = None, item_sep: str = ";",
                  header: bool | str = "auto", sep: str | None = None, encoding: str | None = None,
                  latin1_fallback: bool = False) -> TransactionData:
    """Read one record per row from the set column (see module docstring)."""
    path = Path(path)
    candidates = tuple(c for c in (",", "\t", ";", "|") if c != item_sep)
    rows = read_rows(path, sep=sep, candidates=candidates, encoding=encoding, latin1_fallback=latin1_fallback)
    if header == "auto":
        header = looks_like_header(rows.rows, SET_COLUMN_NAMES) or (
            isinstance(column, str) and column in rows.rows[0] and not column.isdigit())
    names = [h.strip() for h in rows.rows[0]] if header else None
    body = rows.rows[1:] if header else rows.rows
    if column is None:
        index = _guess_set_column(body or rows.rows, item_sep)
        if index is None:
            raise DataFormatError(path, f"no column contains {item_sep!r}-separated items; pass column=...")
    else:
        index = column_index(names, column, 0, path, len(rows.rows[0]))
    parts = [[x.strip() for x in r[index].split(item_sep) if x.strip()] for r in body]
    lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    record_of = np.repeat(np.arange(len(parts), dtype=np.int64), lengths)
    labels = list(chain.from_iterable(parts))
    report.details["set_column"] = names[index] if names else index
    return build_transactions(record_of, labels, len(parts), path=path, report=report)


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
