"""Long-form transaction files: one ``(record, item)`` pair per row.

* ``csv-long``: ``record,item`` (comma, semicolon or tab; header optional).
* ``checkins``: ``user<TAB>item<TAB>time`` as in location check-in data; one
  record per user holding the distinct places visited (time is not kept).

Records come in order of first appearance; their original ids are in the
load report (``record_ids``). A row with an empty item field is a record
without items (that is how the writers store empty records). A file with
more columns than record, item and time is a table, not long-form data, and
is refused unless the record and item columns are named.
"""
from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import DataFormatError
from ..transactions import TransactionData
from .atomic import atomic_write
from .build import PairChunks, records_as_label_lists
from .delimited import column_index, is_number, iter_rows, looks_like_header
from .registry import Format, Head, register
from .report import LoadReport
from .shape import RAGGED_SCORE, delimited_shape

__all__ = ["load_csv_long", "save_csv_long", "load_checkins", "save_checkins", "load_pairs_from_rows"]

RECORD_NAMES = ("record", "user", "user_id", "userid", "person", "id", "tid", "transaction", "basket", "customer")
ITEM_NAMES = ("item", "items", "item_id", "venue", "venue_id", "poi", "product", "code", "place", "location")
TIME_NAMES = ("time", "timestamp", "ts", "date", "datetime", "utc_time")


def _time_like(sample: list[list[str]], names: list[str] | None, column: int) -> bool:
    """Whether ``column`` holds times (named so, or numbers/dates below the header)."""
    if names is not None and names[column].strip().lower() in TIME_NAMES:
        return True
    body = [r[column] for r in (sample[1:] if names is not None else sample) if column < len(r) and r[column].strip()]
    return bool(body) and all(is_number(v) or any(ch.isdigit() for ch in v) for v in body[:200])


def _check_pair_shape(path: Path, fmt: str, n_fields: int, sample: list[list[str]], names: list[str] | None) -> None:
    """Refuse a table (more columns than record, item and a time) read as long-form transactions."""
    if n_fields == 2 or (n_fields == 3 and _time_like(sample, names, 2)):
        return
    raise DataFormatError(path, f"rows have {n_fields} fields, but {fmt} reads one record and one item per row "
                                "(and optionally a time): this looks like a table; open it as a table (csv-table), "
                                "or name the record and item columns")


def load_pairs_from_rows(path: Path, report: LoadReport, reader, *, header, fmt: str, record=None, item=None,
                         drop_items: Sequence[str] = (), progress: Any = None) -> TransactionData:
    """Long-form rows chunk by chunk into :class:`PairChunks` (the shared body of csv-long, checkins and the
    spreadsheet and database readers); ``reader`` as :func:`~.delimited.iter_rows` returns."""
    pairs = PairChunks(path, report, expected_rows=getattr(reader, "total", None))
    body_rows = 0
    skipped = 0
    has_header = False
    for n, chunk in enumerate(reader):
        if n == 0:
            sample = chunk.rows(301)
            has_header = looks_like_header(sample, RECORD_NAMES + ITEM_NAMES + TIME_NAMES) if header == "auto" \
                else bool(header)
            names = [h.strip() for h in sample[0]] if has_header else None
            report.details.update(separator=reader.sep, header=has_header)
            n_fields = reader.n_fields
            if record is None and item is None:
                _check_pair_shape(path, fmt, n_fields, sample, names)
            r = column_index(names, record, 0, path, n_fields)
            i = column_index(names, item, 1, path, n_fields)
            if has_header:
                chunk = chunk.drop_first()
        if chunk.n_rows:
            body_rows += chunk.n_rows
            skipped += pairs.add(chunk.columns[r], chunk.columns[i], chunk.lines, skip_items=tuple(drop_items))
    if has_header and not body_rows:
        raise DataFormatError(path, "the file has a header but no data rows")
    if drop_items:
        report.warn(f"{skipped:,} rows with items {', '.join(map(repr, sorted(set(drop_items))))} skipped")
    if fmt == "checkins":
        report.details["checkins"] = body_rows
    if progress is not None:
        progress.set(1.0, f"building {path.name}")
    return pairs.build()


def load_csv_long(path: str | Path, report: LoadReport, *, header: bool | str = "auto", sep: str | None = None,
                  record: str | int | None = None, item: str | int | None = None,
                  drop_items: Sequence[str] = (), encoding: str | None = None,
                  latin1_fallback: bool = False, progress: Any = None) -> TransactionData:
    """Read ``record,item`` rows; ``record=``/``item=`` pick columns by name or index (default 0, 1).

    ``drop_items`` lists item values that mean "no item" (e.g. ``("-1", "-9")``
    in the INFORMS conditions file); their rows still create the record.
    Without ``record=``/``item=``, rows must have two fields (or three, the
    third a time): a wider file is a table, and is refused.
    """
    path = Path(path)
    reader = iter_rows(path, sep=sep, encoding=encoding, latin1_fallback=latin1_fallback, min_fields=2,
                       progress=progress)
    return load_pairs_from_rows(path, report, reader, header=header, fmt="csv-long", record=record, item=item,
                       drop_items=drop_items, progress=progress)


def load_checkins(path: str | Path, report: LoadReport, *, header: bool | str = "auto", sep: str = "\t",
                  encoding: str | None = None, latin1_fallback: bool = False, progress: Any = None) -> TransactionData:
    """Read ``user<TAB>item[<TAB>time]`` rows into one record per user."""
    path = Path(path)
    reader = iter_rows(path, sep=sep, encoding=encoding, latin1_fallback=latin1_fallback, min_fields=2,
                       progress=progress)
    return load_pairs_from_rows(path, report, reader, header=header, fmt="checkins", progress=progress)


def _write_long(data: TransactionData, path: Path, sep: str, header: list[str] | None) -> None:
    with atomic_write(path) as fh:
        writer = csv.writer(fh, delimiter=sep, lineterminator="\n")
        if header:
            writer.writerow(header)
        # Records are numbered from 1, as everywhere a person reads a record number.
        for u, labels in enumerate(records_as_label_lists(data), start=1):
            writer.writerows([(u, label) for label in labels] or [(u, "")])


def save_csv_long(data: TransactionData, path: str | Path) -> None:
    """Write ``record,item`` with a header; records are numbered from 1."""
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
        if not head.lines or head.lines[0].count(sep) != 1:
            continue  # not two columns: settled before the header guess over every line
        shape = _two_column_shape(head, sep)
        if shape is None:
            continue
        rows, has_header = shape
        if len(rows[0]) != 2:
            continue
        if has_header and rows[0][0].strip().lower() in RECORD_NAMES:
            return 0.9
        known = RECORD_NAMES + ITEM_NAMES + TIME_NAMES
        if has_header and not any(f.strip().lower() in known for f in rows[0]):
            return 0.25  # two named columns, neither a record nor an item: more likely a small table
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
