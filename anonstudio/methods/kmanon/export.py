"""Writing a k^m-anonymization: the anonymized records and the item → partition map.

Partition names: the constraint's own (hierarchy node labels) when it has
them, otherwise ``1, 2, ...`` in order of the partitions' smallest item, so
that the anonymized records can also be written as FIMI.
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

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
    index = {p: j for j, p in enumerate(ids)}
    pos = np.array([index[int(p)] for p in level.labels], dtype=np.int64)
    records = [np.unique(pos[data.record(u)]) for u in range(data.n_records)]
    return TransactionData.from_id_lists(records, n_items=len(ids), vocab=tuple(names[p] for p in ids),
                                         name=f"{data.name} (k^m-anonymized)")


def write_partition_map(path: str | Path, data: TransactionData, level: LevelResult) -> None:
    """CSV ``item,partition`` with the input's item labels."""
    names = partition_names(level)
    with atomic_write(path) as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["item", "partition"])
        for i, label in enumerate(data.vocab):
            writer.writerow([label, names[int(level.labels[i])]])
