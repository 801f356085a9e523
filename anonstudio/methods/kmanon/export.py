"""Writing a k^m-anonymization: partition map, anonymized records, per-level JSON, GeoJSON.

Partition names: the constraint's own (hierarchy node labels) when it has
them, otherwise ``1, 2, ...`` in order of the partitions' smallest item, so
that the anonymized records can also be written as FIMI.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from ...data.io import atomic_write
from ...data.transactions import TransactionData
from .result import KmAnonResult, LevelResult

__all__ = [
    "partition_names", "anonymized_dataset", "write_partition_map", "write_json", "result_json",
]


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


def write_json(path: str | Path, doc: dict) -> None:
    with atomic_write(path) as fh:
        json.dump(doc, fh, indent=2)
        fh.write("\n")


def result_json(result: KmAnonResult, verify: dict | None = None) -> dict:
    """The run's JSON: per level samples, violations, merges, partitions, error, seconds, gamma; plus the check."""
    doc = result.to_json()
    if verify is not None:
        doc["verify"] = verify
    return doc
