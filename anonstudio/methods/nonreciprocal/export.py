"""Writing a nonreciprocal release and its audit files.

* ``PUBLISHED.csv``: ``record,base,distance,threshold,label``, one row per
  published record (slot), in slot order; ``base`` and ``distance`` are
  ``;``-joined item labels of the input, ``label`` is empty without labels.
  ``record`` names the slot as the input names its record (its number from
  1, or the record identifier of formats that have one): in the unified view
  slot ``j`` is the slot of record ``j``.
* the *public* export: the same rows shuffled (seeded) and numbered 1..n, so
  that neither the row order nor the slot names carry the input order.
* audit files, which together with ``chosen_assignment`` in the run's JSON
  de-anonymize everyone: ``GRAPH.csv`` (``original,published,assignment``)
  and ``ORDER.csv`` (``rank,record,ring_record``).

Records are named as the input names them (numbers from 1, or the input's
record identifiers); ranks and assignments count from 1. Files are written
atomically and only for complete runs: a cancelled run writes nothing. The
run's JSON is the contract's (``MethodRun.to_json``).
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from ...data.io import atomic_write
from ...jobs import derive_seed
from .result import NonreciprocalResult

__all__ = ["write_published", "write_public", "write_graph", "write_order", "published_rows", "PUBLISHED_COLUMNS"]

#: The header of PUBLISHED.csv.
PUBLISHED_COLUMNS = ["record", "base", "distance", "threshold", "label"]


def _require_complete(result: NonreciprocalResult) -> None:
    if not result.complete or result.published is None:
        raise ValueError("the run did not finish; nothing is written for a partial result")


def published_rows(result: NonreciprocalResult) -> list[list[str]]:
    """The rows of PUBLISHED.csv (without header), in slot order."""
    _require_complete(result)
    pub = result.published
    vocab = result.vocab
    clash = next((v for v in vocab if ";" in v), None)
    if clash is not None:  # the base and distance fields join item labels with ';'
        raise ValueError(f"item {clash[:40]!r} contains ';', which PUBLISHED.csv uses between items; rename it")
    names = result.labels.names if result.labels is not None and result.slot_labels is not None else None
    rows = []
    for j in range(pub.n_slots):
        base = ";".join(vocab[i] for i in pub.base(j))
        dist = ";".join(vocab[i] for i in pub.distance(j))
        label = names[int(result.slot_labels[j])] if names is not None else ""
        rows.append([result.record_name(j), base, dist, str(int(pub.threshold[j])), label])
    return rows


def _write_rows(path: str | Path, header: list[str], rows) -> None:
    with atomic_write(path) as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def write_published(path: str | Path, result: NonreciprocalResult) -> None:
    """PUBLISHED.csv in slot order (slot names as the input names its records)."""
    _write_rows(path, PUBLISHED_COLUMNS, published_rows(result))


def write_public(path: str | Path, result: NonreciprocalResult) -> None:
    """The release with its rows shuffled (seeded) and renumbered 1..n."""
    rows = published_rows(result)
    perm = np.random.default_rng(derive_seed(result.seed, "public")).permutation(len(rows))
    out = [[str(t + 1)] + rows[int(j)][1:] for t, j in enumerate(perm)]
    _write_rows(path, PUBLISHED_COLUMNS, out)


def write_graph(path: str | Path, result: NonreciprocalResult) -> None:
    """Audit: every edge of the generalization graph and the assignment (1..m) it belongs to."""
    _require_complete(result)
    asg = result.assignments
    name = result.record_name
    rows = ([name(i), name(int(asg[r, i])), str(r + 1)] for i in range(result.n_records) for r in range(result.m))
    _write_rows(path, ["original", "published", "assignment"], rows)


def write_order(path: str | Path, result: NonreciprocalResult) -> None:
    """Audit: the Gray(-TSP) order by rank and the order the ring was built over (empty for greedy ℓ)."""
    _require_complete(result)
    name = result.record_name
    ring = result.ring_order
    rows = ([str(t + 1), name(int(result.order[t])), name(int(ring[t])) if ring is not None else ""]
            for t in range(result.n_records))
    _write_rows(path, ["rank", "record", "ring_record"], rows)
