"""One sensitive label per record: a ``record,label`` CSV.

The first line is the header ``record,label`` (any case; ``,``, tab or ``;``
separated). Each following line names a record and its label. A record is
its number in the dataset, counting from 1 (the n-th record read from the
file), or, for formats that carry record identifiers (long CSV, check-ins,
Parquet), that identifier. Every record needs exactly one non-empty label.
Any problem raises :class:`~anonstudio.data.errors.DataFormatError` naming
the file, the line and the reason; nothing is half-loaded.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import DataFormatError
from ..transactions import sort_labels
from .delimited import read_rows

__all__ = ["RecordLabels", "load_record_labels"]


@dataclass(frozen=True, eq=False)
class RecordLabels:
    """Label of every record: ``names[codes[u]]`` is record ``u``'s label.

    ``names`` are sorted (numerically when all are integers), so codes do not
    depend on the order of the file's lines.
    """

    codes: np.ndarray
    names: tuple[str, ...]
    source: Path | None = None

    def __post_init__(self) -> None:
        codes = np.ascontiguousarray(self.codes, dtype=np.int64)
        if codes.ndim != 1 or (len(codes) and (codes.min() < 0 or codes.max() >= len(self.names))):
            raise ValueError("label codes must index the label names")
        codes.setflags(write=False)
        object.__setattr__(self, "codes", codes)

    @property
    def n_labels(self) -> int:
        return len(self.names)

    def counts(self) -> np.ndarray:
        """Records per label (int64, by code)."""
        return np.bincount(self.codes, minlength=len(self.names)).astype(np.int64)

    @classmethod
    def from_names(cls, labels: Sequence[str], source: Path | None = None) -> RecordLabels:
        names = sort_labels(set(labels))
        index = {name: i for i, name in enumerate(names)}
        return cls(np.array([index[s] for s in labels], dtype=np.int64), names, source)


def load_record_labels(path: str | Path, n_records: int, record_ids: Sequence[str] | None = None, *,
                       encoding: str | None = None) -> RecordLabels:
    """Read a ``record,label`` CSV for a dataset of ``n_records`` records.

    Parameters
    ----------
    path
        The CSV file.
    n_records
        Records of the dataset; every one must get a label.
    record_ids
        The dataset's own record identifiers, when its format has them;
        otherwise records are numbered from 1.
    """
    path = Path(path)
    rows = read_rows(path, sep=None, expect_same_length=False, encoding=encoding)
    # Ragged rows come back padded with empty fields to the widest row; drop them to see each row's own fields.
    rows.rows[:] = [_trimmed(r) for r in rows.rows]
    header = [f.strip().lower() for f in rows.rows[0]]
    if header != ["record", "label"]:
        shown = ",".join(rows.rows[0])[:60]
        raise DataFormatError(path, f"the first line must be the header 'record,label' (got {shown!r})",
                              rows.lines[0])
    index = {str(r): u for u, r in enumerate(record_ids)} if record_ids is not None else None
    labels: list[str | None] = [None] * n_records
    first_line = [0] * n_records
    for row, line in zip(rows.rows[1:], rows.lines[1:]):
        if len(row) != 2:
            raise DataFormatError(path, f"expected 2 fields (record,label), got {len(row)}", line)
        rec, label = row[0].strip(), row[1].strip()
        if index is not None:
            if rec not in index:
                raise DataFormatError(path, f"record {rec[:40]!r} is not in the dataset", line)
            u = index[rec]
        else:
            if not rec.isdigit() or not rec.isascii():
                raise DataFormatError(path, f"{rec[:40]!r} is not a record number (1 to {n_records:,})", line)
            u = int(rec) - 1
            if not 0 <= u < n_records:
                raise DataFormatError(path, f"record {rec[:40]} is not between 1 and {n_records:,}", line)
        if not label:
            raise DataFormatError(path, f"record {rec[:40]} has an empty label", line)
        if labels[u] is not None:
            raise DataFormatError(path, f"record {rec[:40]} already has a label (line {first_line[u]})", line)
        labels[u] = label
        first_line[u] = line
    missing = [u for u, s in enumerate(labels) if s is None]
    if missing:
        name = record_ids[missing[0]] if record_ids is not None else str(missing[0] + 1)
        more = f" and {len(missing) - 1:,} more records" if len(missing) > 1 else ""
        raise DataFormatError(path, f"record {name}{more} of the dataset have no label"
                              if len(missing) > 1 else f"record {name} of the dataset has no label")
    return RecordLabels.from_names(labels, source=path)  # type: ignore[arg-type]


def _trimmed(row: list[str]) -> list[str]:
    end = len(row)
    while end > 2 and not row[end - 1].strip():
        end -= 1
    return row[:end]
