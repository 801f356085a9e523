"""SPMF sequence files: ``1 2 -1 3 -1 -2`` per line (itemsets end in -1, the sequence in -2).

A record is the *set* of items of the sequence: order and repetition are
dropped (repeats across itemsets are normal in sequences and are not reported
as duplicates). SPMF timestamps written as ``<12>`` are ignored.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import DataFormatError
from ..transactions import TransactionData
from .atomic import atomic_write
from .build import build_transactions, records_as_label_lists
from .fimi import content_lines, parse_int_tokens, require_int_labels
from .registry import Format, Head, register
from .report import LoadReport
from .text import read_text

__all__ = ["load_spmf_sequences", "save_spmf_sequences"]

_SEPARATORS = {"-1", "-2"}


def load_spmf_sequences(path: str | Path, report: LoadReport, *, encoding: str | None = None,
                        latin1_fallback: bool = False) -> TransactionData:
    path = Path(path)
    text = read_text(path, encoding=encoding, latin1_fallback=latin1_fallback)
    lines, numbers = content_lines(text)
    if not lines:
        raise DataFormatError(path, "the file has no records (only comments)")
    parts = []
    for line, number in zip(lines, numbers):
        tokens = line.split()
        if tokens and tokens[-1] != "-2":
            raise DataFormatError(path, "a sequence must end with -2", number)
        parts.append([t for t in tokens if t not in _SEPARATORS and not t.startswith("<")])
    values = parse_int_tokens(parts, numbers, path, text)
    lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    record_of = np.repeat(np.arange(len(parts), dtype=np.int64), lengths)
    quiet = LoadReport()  # repeats across itemsets are expected: do not warn about them
    data = build_transactions(record_of, values, len(parts), path=path, report=quiet)
    report.warnings.extend(w for w in quiet.warnings if "duplicate" not in w)
    return data


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
    if lines and sum(ln.rstrip().endswith("-2") for ln in lines) >= 0.9 * len(lines):
        return 0.9
    return 0.0


register(Format(
    name="spmf-seq", label="SPMF sequences", kind="transactions", extensions=(".seq", ".spmf"),
    sniff=sniff_spmf, load=load_spmf_sequences, save=save_spmf_sequences,
    description="One sequence per line, itemsets ended by -1, the sequence by -2; a record is its set of items.",
))
