"""Writing a k^m-anonymization: the anonymized records and the item → partition map.

Partition names: the constraint's own (hierarchy node labels) when it has
them, otherwise ``1, 2, ...`` in order of the partitions' smallest item, so
that the anonymized records can also be written as FIMI.
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from ...data.arrays import sorted_distinct
from ...data.io import atomic_write
from ...data.transactions import TransactionData
from .result import LevelResult

__all__ = ["partition_names", "anonymized_dataset", "write_partition_map"]


def partition_names(level: LevelResult) -> dict[int, str]:
    """Partition id -> unique display name."""
    ids = np.unique(level.labels).tolist()
    if not level.names:
        return {p: str(n) for n, p in enumerate(ids, start=1)}
    out: dict[int, str] = {}
    used: set[str] = set()
    for p in ids:
        name = str(level.names.get(p, p))
        base, n = name, 2
        while name in used:  # two cut nodes with one label (different depths)
            name = f"{base}#{n}"
            n += 1
        used.add(name)
        out[p] = name
    return out


def anonymized_dataset(data: TransactionData, level: LevelResult) -> TransactionData:
    """The generalized records: each record's distinct partitions, labelled by :func:`partition_names`."""
    names = partition_names(level)
    ids = sorted(names)
    # Position of each item's partition among the sorted ids (np.unique sorts as ``sorted`` does).
    _, pos = np.unique(np.asarray(level.labels, dtype=np.int64), return_inverse=True)
    # Every record's distinct partitions at once: one sorted unique over (record, partition) keys instead of
    # a unique per record (59,602 records of BMS-WebView-1 took 0.8 s that way, longer than the run).
    n, width = data.n_records, max(len(ids), 1)
    record_of = np.repeat(np.arange(n, dtype=np.int64), np.diff(data.indptr))
    keys = sorted_distinct(record_of * width + pos.astype(np.int64)[data.indices])  # not np.unique: see there
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys // width, minlength=n), out=indptr[1:])
    return TransactionData(indptr, (keys % width).astype(np.int32), tuple(names[p] for p in ids),
                           name=f"{data.name} (k^m-anonymized)")


def write_partition_map(path: str | Path, data: TransactionData, level: LevelResult) -> None:
    """CSV ``item,partition`` with the input's item labels."""
    names = partition_names(level)
    with atomic_write(path) as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["item", "partition"])
        for i, label in enumerate(data.vocab):
            writer.writerow([label, names[int(level.labels[i])]])
