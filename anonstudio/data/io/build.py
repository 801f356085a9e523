"""Turn parsed (record, item) pairs into a TransactionData in one vectorised pass.

Every transaction loader parses its whole file into two flat arrays first and
only then builds the dataset here, so a file with an error deep inside never
yields a half-loaded dataset.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from ..transactions import TransactionData, sort_labels
from .report import LoadReport

__all__ = ["build_transactions", "int_labels_or_none", "records_as_label_lists"]


def _encode_labels(labels: np.ndarray | Sequence) -> tuple[np.ndarray, tuple[str, ...]]:
    """Item ids (int64) and the vocabulary, ids in :func:`sort_labels` order."""
    if isinstance(labels, np.ndarray) and labels.dtype.kind in "iu":
        if len(labels) == 0:
            return np.zeros(0, np.int64), ()
        low, high = int(labels.min()), int(labels.max())
        if high - low <= 4 * len(labels) + 1_000_000:
            # Dense-enough id range: a lookup table is O(n), np.unique sorts.
            present = np.zeros(high - low + 1, dtype=bool)
            present[labels - low] = True
            uniq = np.flatnonzero(present) + low
            lookup = np.cumsum(present) - 1
            return lookup[labels - low], tuple(str(v) for v in uniq.tolist())
        uniq, inverse = np.unique(labels, return_inverse=True)
        return inverse.astype(np.int64), tuple(str(v) for v in uniq.tolist())
    codes, uniques = pd.factorize(np.asarray(labels, dtype=object), sort=False)
    uniques = [str(u) for u in uniques]
    vocab = sort_labels(uniques)
    rank = {label: i for i, label in enumerate(vocab)}
    remap = np.fromiter((rank[u] for u in uniques), dtype=np.int64, count=len(uniques))
    return remap[codes], vocab


#: How many line numbers the duplicate-item warning shows.
SHOWN_LINES = 3


def build_transactions(
    record_of: np.ndarray,
    labels: np.ndarray | Sequence,
    n_records: int,
    *,
    path: Path | None,
    report: LoadReport,
    line_of: Callable[[np.ndarray], np.ndarray] | None = None,
    line_word: str = "line",
) -> TransactionData:
    """Build a dataset from one ``(record, item label)`` pair per occurrence.

    Duplicate items within a record are dropped and counted in ``report``.

    Parameters
    ----------
    record_of
        Record index (0-based, < ``n_records``) of each occurrence.
    labels
        Item label of each occurrence: an int array (labels become the decimal
        strings) or a sequence of strings.
    n_records
        Number of records, including empty ones.
    line_of
        Maps occurrence indices to 1-based line numbers in the file, so the
        duplicate warning can name the first few (called only if there are
        duplicates).
    line_word
        What those numbers count (``"line"``, ``"row"``).
    """
    record_of = np.asarray(record_of, dtype=np.int64)
    ids, vocab_out = _encode_labels(labels)
    n_items = max(len(vocab_out), 1)
    key = record_of * n_items + ids
    in_order = len(key) < 2 or bool((key[1:] > key[:-1]).all())
    sorted_key = key if in_order else np.sort(key)  # most files list items in order already: skip the sort
    repeated = sorted_key[1:] == sorted_key[:-1]
    if repeated.any():
        dup_records = np.unique(sorted_key[1:][repeated] // n_items)
        report.warn(_duplicate_warning(key, repeated, len(dup_records), line_of, line_word))
        report.details["records_with_duplicates"] = dup_records
        sorted_key = sorted_key[np.concatenate([[True], ~repeated])]
    rec = sorted_key // n_items
    indptr = np.zeros(n_records + 1, dtype=np.int64)
    np.cumsum(np.bincount(rec, minlength=n_records), out=indptr[1:])
    indices = (sorted_key % n_items).astype(np.int32)
    empty = int(np.count_nonzero(np.diff(indptr) == 0))
    if empty:
        report.warn(f"{empty:,} empty record{'s' if empty != 1 else ''}")
    name = path.name if path is not None else "dataset"
    return TransactionData(indptr, indices, vocab_out, name=name, source=path)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _duplicate_warning(key: np.ndarray, repeated: np.ndarray, n_records: int,
                       line_of: Callable[[np.ndarray], np.ndarray] | None, line_word: str) -> str:
    """``"3 records had duplicate items (e.g. lines 12, 40, 51; 4 repeats), deduplicated"``."""
    n_repeats = int(repeated.sum())
    where = ""
    if line_of is not None:
        # A stable sort keeps the first occurrence first: the others are the repeats.
        order = np.argsort(key, kind="stable")
        lines = np.unique(np.asarray(line_of(order[1:][repeated])))
        shown = ", ".join(str(int(n)) for n in lines[:SHOWN_LINES])
        where = f"{'e.g. ' if len(lines) > SHOWN_LINES else ''}{line_word}{'s' if len(lines) > 1 else ''} {shown}; "
    return (f"{_plural(n_records, 'record')} had duplicate items ({where}{_plural(n_repeats, 'repeat')}), "
            "deduplicated")


def int_labels_or_none(vocab: Sequence[str]) -> list[int] | None:
    """The labels as ints when every one is a canonical decimal integer."""
    out = []
    for label in vocab:
        try:
            value = int(label)
        except ValueError:
            return None
        if str(value) != label:
            return None
        out.append(value)
    return out


def records_as_label_lists(data: TransactionData) -> list[list[str]]:
    """Each record's labels, in item-id order (for writers)."""
    vocab = np.asarray(data.vocab, dtype=object)
    labels = vocab[data.indices].tolist()
    bounds = data.indptr.tolist()
    return [labels[bounds[u]:bounds[u + 1]] for u in range(data.n_records)]
