"""Turn parsed (record, item) pairs into a TransactionData in one vectorised pass.

Every transaction loader parses its whole file into two flat arrays first and
only then builds the dataset here, so a file with an error deep inside never
yields a half-loaded dataset.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

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


def build_transactions(
    record_of: np.ndarray,
    labels: np.ndarray | Sequence,
    n_records: int,
    *,
    path: Path | None,
    report: LoadReport,
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
    """
    record_of = np.asarray(record_of, dtype=np.int64)
    ids, vocab_out = _encode_labels(labels)
    n_items = max(len(vocab_out), 1)
    key = record_of * n_items + ids
    if len(key) > 1 and not (key[1:] > key[:-1]).all():
        key = np.sort(key)  # most files list items in order already: skip the sort then
    repeated = key[1:] == key[:-1]
    if repeated.any():
        dup_records = np.unique(key[1:][repeated] // n_items)
        report.warn(
            f"{len(dup_records):,} record{'s' if len(dup_records) != 1 else ''} had duplicate items "
            f"({int(repeated.sum()):,} repeats), deduplicated"
        )
        report.details["records_with_duplicates"] = dup_records
        key = key[np.concatenate([[True], ~repeated])]
    rec = key // n_items
    indptr = np.zeros(n_records + 1, dtype=np.int64)
    np.cumsum(np.bincount(rec, minlength=n_records), out=indptr[1:])
    indices = (key % n_items).astype(np.int32)
    empty = int(np.count_nonzero(np.diff(indptr) == 0))
    if empty:
        report.warn(f"{empty:,} empty record{'s' if empty != 1 else ''}")
    name = path.name if path is not None else "dataset"
    return TransactionData(indptr, indices, vocab_out, name=name, source=path)


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
