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
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import DataFormatError
from ..table import Role, Table
from ..transactions import TransactionData
from .atomic import atomic_write
from .build import PairChunks, RecordChunks, int_labels_or_none
from .longform import ITEM_NAMES, RECORD_NAMES
from .registry import Format, Head, register
from .report import LoadReport
from .text import COMPRESSED_CAP_MIN, COMPRESSED_EXPANSION, check_cancel, require_regular_file

# imported where used: data.io registers every format when imported, and a FIMI file or --help needs neither
if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

__all__ = ["load_parquet_transactions", "save_parquet_transactions", "load_parquet_table", "save_parquet_table"]

_ROLES_KEY = b"anonstudio.roles"
_INT64_MIN, _INT64_MAX = -2**63, 2**63 - 1


#: Bytes assumed per value when estimating a Parquet file's size in memory (int64, offsets, pointers).
_BYTES_PER_VALUE = 8


def _open(path: Path) -> pq.ParquetFile:
    """The Parquet file, after the regular-file check and the expansion cap of compressed input."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    require_regular_file(path)
    try:
        handle = pq.ParquetFile(path)
    except (pa.ArrowInvalid, pa.ArrowException, OSError) as exc:
        raise DataFormatError(path, f"not a readable Parquet file ({_short(exc)})") from None
    meta = handle.metadata
    values = 0
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        values += sum(group.column(c).num_values for c in range(group.num_columns))
    size = max(path.stat().st_size, 1)
    cap = max(COMPRESSED_CAP_MIN, COMPRESSED_EXPANSION * size)
    if values * _BYTES_PER_VALUE > cap:
        raise DataFormatError(path, f"holds {values:,} values, more than {cap / 2**20:,.0f} MiB in memory and over "
                                    f"{COMPRESSED_EXPANSION} times its {size / 2**20:,.1f} MiB on disk: refused as a "
                                    "likely compression bomb")
    return handle


def _short(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200]


def _read(path: Path, columns: list[str] | None = None, progress: Any = None) -> pa.Table:
    """The table (or some columns), read row group by row group; a cancel raises LoadCancelled."""
    import pyarrow as pa

    handle = _open(path)
    groups = []
    n = handle.metadata.num_row_groups
    try:
        for g in range(n):
            check_cancel(progress, path)
            groups.append(handle.read_row_group(g, columns=columns))
            if progress is not None:
                progress.set((g + 1) / max(n, 1), f"reading {path.name}")
        if not groups:
            return handle.schema_arrow.empty_table() if columns is None else \
                handle.schema_arrow.empty_table().select(columns)
        return pa.concat_tables(groups)
    except (pa.ArrowInvalid, pa.ArrowException, OSError) as exc:
        raise DataFormatError(path, f"not a readable Parquet file ({_short(exc)})") from None


def _is_list(t: pa.DataType) -> bool:
    import pyarrow as pa

    return pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)


def _nested(t: pa.DataType) -> bool:
    import pyarrow as pa

    return pa.types.is_nested(t) or pa.types.is_dictionary(t) and pa.types.is_nested(t.value_type)


def _list_columns(schema: pa.Schema) -> list[str]:
    return [f.name for f in schema if _is_list(f.type)]


def _long_columns(schema: pa.Schema) -> tuple[str, str] | None:
    names = {n.lower(): n for n in schema.names}
    rec = next((names[n] for n in RECORD_NAMES if n in names), None)
    item = next((names[n] for n in ITEM_NAMES if n in names), None)
    return (rec, item) if rec and item else None


def _labels(values: pa.Array, path: Path, column: str) -> np.ndarray:
    """Item labels: integers as numbers (an unsigned one beyond int64 is refused), anything else as text."""
    import pyarrow as pa

    t = values.type
    if pa.types.is_dictionary(t):
        values = values.cast(t.value_type)
        t = values.type
    if _nested(t):
        raise DataFormatError(path, f"column {column!r} holds nested values ({t}); items must be numbers or text")
    if pa.types.is_integer(t):
        numbers = values.to_numpy(zero_copy_only=False)
        if pa.types.is_unsigned_integer(t) and len(numbers) and int(numbers.max()) > np.iinfo(np.int64).max:
            row = int(np.argmax(numbers > np.iinfo(np.int64).max))
            raise DataFormatError(path, f"item {int(numbers[row])} in column {column!r} is beyond the 64-bit range "
                                        "anonstudio reads")
        return numbers.astype(np.int64)
    if pa.types.is_floating(t):
        numbers = values.to_numpy(zero_copy_only=False)
        if len(numbers) and not np.isfinite(numbers).all():
            raise DataFormatError(path, f"column {column!r} holds a NaN or infinite item")
    return np.asarray(values.cast(pa.string()).to_pylist(), dtype=object)


def load_parquet_transactions(path: str | Path, report: LoadReport, *, column: str | None = None,
                              record: str | None = None, item: str | None = None,
                              progress: Any = None) -> TransactionData:
    """Read a list column (``column=`` or the only list column) or ``record``/``item`` long form.

    Nested lists, structs and maps are refused with one line; a cancel of
    ``progress`` raises :class:`~anonstudio.data.errors.LoadCancelled`.
    """
    import pyarrow as pa

    path = Path(path)
    schema = _open(path).schema_arrow
    lists = _list_columns(schema)
    if column is None and lists and record is None:
        if len(lists) > 1:
            raise DataFormatError(path, f"several list columns ({', '.join(lists)}); pass column=...")
        column = lists[0]
    if column is not None:
        if column not in schema.names:
            raise DataFormatError(path, f"no column named {column!r}")
        field = schema.field(column)
        if not _is_list(field.type):
            raise DataFormatError(path, f"column {column!r} is not a list column")
        if _nested(field.type.value_type):
            raise DataFormatError(path, f"column {column!r} holds nested lists ({field.type}); a record is one "
                                        "flat list of items")
        arr = _read(path, [column], progress).column(column).combine_chunks()
        if isinstance(arr, pa.FixedSizeListArray):
            arr = arr.cast(pa.list_(field.type.value_type))
        lengths = arr.value_lengths().fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
        values = arr.flatten()
        if values.null_count:
            report.warn(f"{values.null_count:,} missing items inside lists were skipped")
        valid = values.is_valid().to_numpy(zero_copy_only=False)
        if not valid.all():
            record_of = np.repeat(np.arange(len(arr), dtype=np.int64), lengths)
            lengths = np.bincount(record_of[valid], minlength=len(arr)).astype(np.int64)
            values = values.filter(values.is_valid())
        records = RecordChunks(path, report, line_word="row")
        records.add(lengths, _labels(values, path, column), 1)
        return records.build()
    pair = (record, item) if record and item else _long_columns(schema)
    if pair is None:
        raise DataFormatError(path, "no list column and no record/item columns; pass column= or record=, item=")
    for name in pair:
        if name not in schema.names:
            raise DataFormatError(path, f"no column named {name!r}")
        if _nested(schema.field(name).type):
            raise DataFormatError(path, f"column {name!r} holds nested values ({schema.field(name).type})")
    table = _read(path, list(pair), progress)
    rec = table.column(pair[0]).combine_chunks()
    items = table.column(pair[1]).combine_chunks()
    valid = items.is_valid().to_numpy(zero_copy_only=False)
    present = _labels(items.filter(items.is_valid()), path, pair[1])
    labels = np.full(len(items), "", dtype=object)  # a missing item: the record without an item
    labels[valid] = [str(v) for v in present.tolist()] if present.dtype != object else present
    pairs = PairChunks(path, report, line_word="row")
    record_labels = np.asarray([str(v) for v in rec.to_pylist()], dtype=object)
    pairs.add(record_labels, labels, 1)
    return pairs.build()


def save_parquet_transactions(data: TransactionData, path: str | Path) -> None:
    """Write one ``items`` list column (int64 items when all labels are integers that fit)."""
    import pyarrow as pa

    ints = int_labels_or_none(data.vocab)
    if ints is not None and not all(_INT64_MIN <= v <= _INT64_MAX for v in ints):
        ints = None  # item numbers beyond int64 are stored as text
    vocab = np.asarray(ints, dtype=np.int64) if ints is not None else np.asarray(data.vocab, dtype=object)
    values = pa.array(vocab[data.indices], type=pa.int64() if ints is not None else pa.string())
    offsets = pa.array(data.indptr, type=pa.int64())
    column = pa.LargeListArray.from_arrays(offsets, values)
    _write(pa.table({"items": column}), Path(path))


def _write(table: pa.Table, path: Path) -> None:
    import pyarrow.parquet as pq

    with atomic_write(path, "wb") as fh:
        pq.write_table(table, fh)


def load_parquet_table(path: str | Path, report: LoadReport, *, progress: Any = None) -> Table:
    """Every column as is; nested columns (lists, structs, maps) are refused with one line."""
    path = Path(path)
    schema = _open(path).schema_arrow
    nested = [f for f in schema if _nested(f.type)]
    if nested:
        raise DataFormatError(path, f"column {nested[0].name!r} holds nested values ({nested[0].type}); a table "
                                    "needs one value per cell (a list column makes it transactions: --format parquet)")
    table = _read(path, None, progress)
    meta = table.schema.metadata or {}
    roles = {k: Role(v) for k, v in json.loads(meta[_ROLES_KEY]).items()} if _ROLES_KEY in meta else {}
    frame = table.to_pandas()
    return Table(frame, roles, name=path.name, source=path)


def save_parquet_table(table: Table, path: str | Path) -> None:
    import pyarrow as pa

    arrow = pa.Table.from_pandas(table.frame, preserve_index=False)
    roles = {k: v.value for k, v in table.roles.items()}
    arrow = arrow.replace_schema_metadata({**(arrow.schema.metadata or {}), _ROLES_KEY: json.dumps(roles).encode()})
    _write(arrow, Path(path))


def _parquet_kind(head: Head) -> str | None:
    if not head.raw.startswith(b"PAR1"):
        return None  # sniffing any other file imports no pyarrow
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(head.path)
    except (pa.ArrowInvalid, pa.ArrowException, OSError):
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
