"""Parquet (via pyarrow): transactions as a list column, or in long form; tables as columns.

Transactions: a column of lists of items (``list<string>`` or ``list<int>``),
one row per record; or two columns ``record, item`` in long form. The
writer stores a single list column ``items`` (integers when every label is
an integer). Tables: every column as is; roles are kept in the schema
metadata under ``anonstudio.roles``.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import DataFormatError
from ..table import Role, Table
from ..transactions import TransactionData
from .atomic import atomic_write
from .build import build_transactions, int_labels_or_none
from .longform import ITEM_NAMES, RECORD_NAMES
from .registry import Format, Head, register
from .report import LoadReport
from .text import read_bytes

__all__ = ["load_parquet_transactions", "save_parquet_transactions", "load_parquet_table", "save_parquet_table"]

_ROLES_KEY = b"anonstudio.roles"
_INT64_MIN, _INT64_MAX = -2**63, 2**63 - 1


def _read(path: Path) -> pa.Table:
    read_bytes(path, 4)  # missing file / folder -> DataFormatError naming it
    try:
        return pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataFormatError(path, f"not a readable Parquet file ({exc})") from exc


def _list_columns(schema: pa.Schema) -> list[str]:
    return [f.name for f in schema if pa.types.is_list(f.type) or pa.types.is_large_list(f.type)]


def _long_columns(schema: pa.Schema) -> tuple[str, str] | None:
    names = {n.lower(): n for n in schema.names}
    rec = next((names[n] for n in RECORD_NAMES if n in names), None)
    item = next((names[n] for n in ITEM_NAMES if n in names), None)
    return (rec, item) if rec and item else None


def _labels(values: pa.Array) -> np.ndarray:
    if pa.types.is_integer(values.type):
        return values.to_numpy(zero_copy_only=False).astype(np.int64)
    return np.asarray(values.cast(pa.string()).to_pylist(), dtype=object)


def load_parquet_transactions(path: str | Path, report: LoadReport, *, column: str | None = None,
                              record: str | None = None, item: str | None = None) -> TransactionData:
    """Read a list column (``column=`` or the only list column) or ``record``/``item`` long form."""
    path = Path(path)
    table = _read(path)
    lists = _list_columns(table.schema)
    if column is None and lists and record is None:
        if len(lists) > 1:
            raise DataFormatError(path, f"several list columns ({', '.join(lists)}); pass column=...")
        column = lists[0]
    if column is not None:
        if column not in table.schema.names:
            raise DataFormatError(path, f"no column named {column!r}")
        arr = table.column(column).combine_chunks()
        if not (pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type)):
            raise DataFormatError(path, f"column {column!r} is not a list column")
        lengths = arr.value_lengths().fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
        values = arr.flatten()
        if values.null_count:
            report.warn(f"{values.null_count:,} missing items inside lists were skipped")
        record_of = np.repeat(np.arange(len(arr), dtype=np.int64), lengths)
        keep = values.is_valid().to_numpy(zero_copy_only=False)
        kept_records = record_of[keep]
        return build_transactions(kept_records, _labels(values.filter(values.is_valid())), len(arr),
                                  path=path, report=report, line_of=lambda occ: kept_records[occ] + 1,
                                  line_word="row")
    pair = (record, item) if record and item else _long_columns(table.schema)
    if pair is None:
        raise DataFormatError(path, "no list column and no record/item columns; pass column= or record=, item=")
    rec = table.column(pair[0]).to_pandas()
    codes, uniques = pd.factorize(rec, sort=False)
    items = table.column(pair[1]).combine_chunks()
    valid = items.is_valid().to_numpy(zero_copy_only=False)
    valid_rows = np.flatnonzero(valid)
    data = build_transactions(codes[valid], _labels(items.filter(items.is_valid())), len(uniques),
                              path=path, report=report, line_of=lambda occ: valid_rows[occ] + 1, line_word="row")
    report.record_ids = [str(u) for u in uniques]
    return data


def save_parquet_transactions(data: TransactionData, path: str | Path) -> None:
    """Write one ``items`` list column (int64 items when all labels are integers that fit)."""
    ints = int_labels_or_none(data.vocab)
    if ints is not None and not all(_INT64_MIN <= v <= _INT64_MAX for v in ints):
        ints = None  # item numbers beyond int64 are stored as text
    vocab = np.asarray(ints, dtype=np.int64) if ints is not None else np.asarray(data.vocab, dtype=object)
    values = pa.array(vocab[data.indices], type=pa.int64() if ints is not None else pa.string())
    offsets = pa.array(data.indptr, type=pa.int64())
    column = pa.LargeListArray.from_arrays(offsets, values)
    _write(pa.table({"items": column}), Path(path))


def _write(table: pa.Table, path: Path) -> None:
    with atomic_write(path, "wb") as fh:
        pq.write_table(table, fh)


def load_parquet_table(path: str | Path, report: LoadReport) -> Table:
    path = Path(path)
    table = _read(path)
    meta = table.schema.metadata or {}
    roles = {k: Role(v) for k, v in json.loads(meta[_ROLES_KEY]).items()} if _ROLES_KEY in meta else {}
    frame = table.to_pandas()
    return Table(frame, roles, name=path.name, source=path)


def save_parquet_table(table: Table, path: str | Path) -> None:
    arrow = pa.Table.from_pandas(table.frame, preserve_index=False)
    roles = {k: v.value for k, v in table.roles.items()}
    arrow = arrow.replace_schema_metadata({**(arrow.schema.metadata or {}), _ROLES_KEY: json.dumps(roles).encode()})
    _write(arrow, Path(path))


def _parquet_kind(head: Head) -> str | None:
    if not head.raw.startswith(b"PAR1"):
        return None
    try:
        schema = pq.read_schema(head.path)
    except (pa.ArrowInvalid, OSError):
        return "table"
    return "transactions" if _list_columns(schema) or _long_columns(schema) and len(schema) == 2 else "table"


register(Format(
    name="parquet", label="Parquet (list column or record/item)", kind="transactions",
    extensions=(".parquet", ".pq"),
    sniff=lambda head: 1.0 if _parquet_kind(head) == "transactions" else 0.0,
    load=load_parquet_transactions, save=save_parquet_transactions,
    description="Apache Parquet with a list-of-items column, or record and item columns.",
))
register(Format(
    name="parquet-table", label="Parquet table", kind="table", extensions=(".parquet", ".pq"),
    sniff=lambda head: 1.0 if _parquet_kind(head) == "table" else 0.0,
    load=load_parquet_table, save=save_parquet_table,
    description="Apache Parquet, one column per attribute.",
))
