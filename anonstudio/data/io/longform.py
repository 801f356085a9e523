"""Long-form transaction files: one ``(record, item)`` pair per row.

* ``csv-long``: ``record,item`` (comma, semicolon or tab; header optional).
* ``checkins``: ``user<TAB>item<TAB>time`` as in location check-in data; one
  record per user holding the distinct places visited (time is not kept).

Records come in order of first appearance; their original ids are in the
load report (``record_ids``). A row with an empty item field is a record
without items (that is how the writers store empty records).
"""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from ..errors import DataFormatError
from ..transactions import TransactionData
from .atomic import atomic_write
from .build import build_transactions, records_as_label_lists
from .delimited import column_index, is_number, looks_like_header, read_rows
from .registry import Format, Head, register
from .report import LoadReport
from .shape import RAGGED_SCORE, delimited_shape

__all__ = ["load_csv_long", "save_csv_long", "load_checkins", "save_checkins"]

RECORD_NAMES = ("record", "user", "user_id", "userid", "person", "id", "tid", "transaction", "basket", "customer")
ITEM_NAMES = ("item", "items", "item_id", "venue", "venue_id", "poi", "product", "code", "place", "location")
TIME_NAMES = ("time", "timestamp", "ts", "date", "datetime", "utc_time")


def _long_to_transactions(path: Path, report: LoadReport, rows: list[list[str]], row_lines: list[int],
                          record_col: int, item_col: int, drop_items: Sequence[str] = ()) -> TransactionData:
    records = [r[record_col].strip() for r in rows]
    items = [r[item_col].strip() for r in rows]
    codes, uniques = pd.factorize(np.asarray(records, dtype=object), sort=False)
    drop = set(drop_items)
    has_item = np.fromiter((bool(i) and i not in drop for i in items), dtype=bool, count=len(items))
    if drop:
        dropped = sum(1 for i in items if i in drop)
        report.warn(f"{dropped:,} rows with items {', '.join(map(repr, sorted(drop)))} skipped")
    labels = np.asarray(items, dtype=object)[has_item]
    item_lines = np.asarray(row_lines, dtype=np.int64)[has_item]
    data = build_transactions(codes[has_item], labels, len(uniques), path=path, report=report,
                              line_of=lambda occ: item_lines[occ])
    report.record_ids = [str(u) for u in uniques]
    return data


def _split_header(rows, header, path: Path, known) -> tuple[list[str] | None, list[list[str]], list[int]]:
    """(header names or None, data rows, their line numbers)."""
    if header == "auto":
        header = looks_like_header(rows.rows, known)
    if header:
        if len(rows.rows) < 2:
            raise DataFormatError(path, "the file has a header but no data rows")
        return [h.strip() for h in rows.rows[0]], rows.rows[1:], rows.lines[1:]
    return None, rows.rows, rows.lines


def load_csv_long(path: str | Path, report: LoadReport, *, header: bool | str = "auto", sep: str | None = None,
                  record: str | int | None = None, item: str | int | None = None,
                  drop_items: Sequence[str] = (), encoding: str | None = None,
                  latin1_fallback: bool = False) -> TransactionData:
    """Read ``record,item`` rows; ``record=``/``item=`` pick columns by name or index (default 0, 1).

    ``drop_items`` lists item values that mean "no item" (e.g. ``("-1", "-9")``
    in the INFORMS conditions file); their rows still create the record.
    """
    path = Path(path)
    rows = read_rows(path, sep=sep, encoding=encoding, latin1_fallback=latin1_fallback, min_fields=2)
    names, body, body_lines = _split_header(rows, header, path, RECORD_NAMES + ITEM_NAMES + TIME_NAMES)
    report.details.update(separator=rows.sep, header=names is not None)
    n_fields = len(rows.rows[0])
    r = column_index(names, record, 0, path, n_fields)
    i = column_index(names, item, 1, path, n_fields)
    return _long_to_transactions(path, report, body, body_lines, r, i, drop_items)


def load_checkins(path: str | Path, report: LoadReport, *, header: bool | str = "auto", sep: str = "\t",
                  encoding: str | None = None, latin1_fallback: bool = False) -> TransactionData:
    """Read ``user<TAB>item[<TAB>time]`` rows into one record per user."""
    path = Path(path)
    rows = read_rows(path, sep=sep, encoding=encoding, latin1_fallback=latin1_fallback, min_fields=2)
    names, body, body_lines = _split_header(rows, header, path, RECORD_NAMES + ITEM_NAMES + TIME_NAMES)
    report.details.update(separator=rows.sep, header=names is not None, checkins=len(body))
    return _long_to_transactions(path, report, body, body_lines, 0, 1)


def _write_long(data: TransactionData, path: Path, sep: str, header: list[str] | None) -> None:
    with atomic_write(path) as fh:
        writer = csv.writer(fh, delimiter=sep, lineterminator="\n")
        if header:
            writer.writerow(header)
        for u, labels in enumerate(records_as_label_lists(data)):
            writer.writerows([(u, label) for label in labels] or [(u, "")])


def save_csv_long(data: TransactionData, path: str | Path) -> None:
    """Write ``record,item`` with a header; records are numbered from 0."""
    _write_long(data, Path(path), ",", ["record", "item"])


def save_checkins(data: TransactionData, path: str | Path) -> None:
    """Write ``user<TAB>item`` rows (no time column: sets carry no times)."""
    _write_long(data, Path(path), "\t", None)


def _two_column_shape(head: Head, sep: str) -> tuple[list[list[str]], bool] | None:
    rows = [ln.split(sep) for ln in head.lines[:300]]
    if len(rows) < 1 or any(len(r) != len(rows[0]) for r in rows) or len(rows[0]) < 2:
        return None
    return rows, looks_like_header(rows, RECORD_NAMES + ITEM_NAMES + TIME_NAMES)


def _records_repeat(rows: list[list[str]]) -> bool:
    first = [r[0] for r in rows]
    return len(set(first)) < len(first)


def sniff_csv_long(head: Head) -> float:
    for sep in (",", ";", "\t"):
        shape = _two_column_shape(head, sep)
        if shape is None:
            continue
        rows, has_header = shape
        if len(rows[0]) != 2:
            continue
        if has_header and rows[0][0].strip().lower() in RECORD_NAMES:
            return 0.9
        body = rows[1:] if has_header else rows
        if _records_repeat(body):
            return 0.65 if sep != "\t" else 0.5
    shape = delimited_shape(head.lines[:300], (",", ";"))
    if shape is not None and shape.ragged and shape.first >= 2:
        # A broken CSV: let the loader name the row with the wrong field count.
        # Below csv-table when the first row has more than two fields.
        return RAGGED_SCORE if shape.first == 2 else RAGGED_SCORE - 0.05
    return 0.0


def sniff_checkins(head: Head) -> float:
    shape = _two_column_shape(head, "\t")
    if shape is None:
        return _sniff_ragged_checkins(head)
    rows, has_header = shape
    body = rows[1:] if has_header else rows
    if len(rows[0]) == 3 and body and all(is_number(r[2]) for r in body):
        return 0.85
    if len(rows[0]) == 3 and has_header:
        return 0.6
    if len(rows[0]) == 2:
        return 0.55 if _records_repeat(body) else 0.45
    return 0.0


def _sniff_ragged_checkins(head: Head) -> float:
    shape = delimited_shape(head.lines[:300], ("\t",))
    return RAGGED_SCORE if shape is not None and shape.ragged and shape.first in (2, 3) else 0.0


register(Format(
    name="csv-long", label="CSV, one record-item pair per row", kind="transactions", extensions=(".csv",),
    sniff=sniff_csv_long, load=load_csv_long, save=save_csv_long,
    description="Columns record,item (header optional); one row per item occurrence.",
))
register(Format(
    name="checkins", label="Check-ins (user, place, time)", kind="transactions", extensions=(".tsv", ".checkins"),
    sniff=sniff_checkins, load=load_checkins, save=save_checkins,
    description="Tab-separated user, place and time; one record per user with the places visited.",
))
