"""SPMF sequence files: ``1 2 -1 3 -1 -2`` per line (itemsets end in -1, the sequence in -2).

A record is the *set* of items of the sequence: order and repetition are
dropped (repeats across itemsets are normal in sequences and are not reported
as duplicates). SPMF timestamps written as ``<12>`` are ignored.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DataFormatError
from ..transactions import TransactionData
from .atomic import atomic_write
from .build import RecordChunks, records_as_label_lists
from .delimited import content_lines
from .fimi import parse_int_tokens, require_int_labels
from .registry import Format, Head, register
from .report import LoadReport
from .text import iter_text_chunks

__all__ = ["load_spmf_sequences", "save_spmf_sequences"]

_SEPARATORS = {"-1", "-2"}


def _chunk_records(path: Path, text: str, first_line: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(items, items per sequence, sequence lines) of one chunk of whole lines."""
    lines, numbers = content_lines(text, first_line)
    parts = []
    for line, number in zip(lines, numbers):
        tokens = line.split()
        if tokens and tokens[-1] != "-2":
            raise DataFormatError(path, "a sequence must end with -2", number)
        if "-2" in tokens[:-1]:
            raise DataFormatError(path, "-2 ends a sequence, but more follows it on the same line", number)
        parts.append([t for t in tokens if t not in _SEPARATORS and not t.startswith("<")])
    values = parse_int_tokens(parts, numbers, path, text)
    if values.dtype != object and len(values) and values.min() < 0:
        bad = next((tok, n) for tokens, n in zip(parts, numbers) for tok in tokens if tok.startswith("-"))
        raise DataFormatError(path, f"{bad[0][:40]!r} is not an item: items are whole numbers from 0", bad[1])
    lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    return values, lengths, np.asarray(numbers, dtype=np.int64)


def load_spmf_sequences(path: str | Path, report: LoadReport, *, encoding: str | None = None,
                        latin1_fallback: bool = False, progress: Any = None) -> TransactionData:
    """Read an SPMF sequence file (see the module docstring), chunk by chunk."""
    path = Path(path)
    # Repeats across itemsets are normal in sequences: they are dropped without a warning.
    records = RecordChunks(path, report, report_duplicates=False)
    for chunk in iter_text_chunks(path, encoding=encoding, latin1_fallback=latin1_fallback, progress=progress):
        values, lengths, numbers = _chunk_records(path, chunk.text, chunk.first_line)
        records.add(lengths, values, numbers)
    if records.n_records == 0:
        raise DataFormatError(path, "the file has no records (only comments)")
    return records.build()


def save_spmf_sequences(data: TransactionData, path: str | Path) -> None:
    """Each record as a one-itemset sequence: ``1 2 3 -1 -2``."""
    path = Path(path)
    require_int_labels(data, path, "SPMF")
    with atomic_write(path) as fh:
        for labels in records_as_label_lists(data):
            fh.write(" ".join([*labels, "-1", "-2"]) if labels else "-2")
            fh.write("\n")


def sniff_spmf(head: Head) -> float:
    lines = head.lines[:200]
    if not lines:
        return 0.0
    ended = sum(ln.rstrip().endswith("-2") for ln in lines)
    if ended >= 0.9 * len(lines):
        return 0.9
    if ended and any(" -1" in f" {ln} " for ln in lines):
        return 0.5  # sequences, some missing their -2: the loader names the first such line
    return 0.0


register(Format(
    name="spmf-seq", label="SPMF sequences", kind="transactions", extensions=(".seq", ".spmf"),
    sniff=sniff_spmf, load=load_spmf_sequences, save=save_spmf_sequences,
    description="One sequence per line, itemsets ended by -1, the sequence by -2; a record is its set of items.",
))
