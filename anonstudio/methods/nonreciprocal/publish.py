"""Publication of every slot (paper §4, fifth step).

``P(j)``: the preimages of slot ``j``, i.e. the originals whose graph edges
enter it. The base bitmap is the bit vote over ``P(j)`` (ties give 0; the
paper leaves ties free), the distance bitmap marks the items on which
``P(j)`` disagree, and the threshold is the largest Hamming distance between
the base and a member of ``P(j)``, computed after ties are resolved. The
possible worlds of the slot then include every member of ``P(j)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...data.transactions import TransactionData
from ...kernels.nonreciprocal_publish import publish_slots

__all__ = ["Published", "preimages", "publish", "group_preimages"]


@dataclass(frozen=True, eq=False)
class Published:
    """Base and distance bitmaps (CSR item lists) and thresholds of the ``n`` slots."""

    base_indptr: np.ndarray
    base_items: np.ndarray
    dist_indptr: np.ndarray
    dist_items: np.ndarray
    threshold: np.ndarray

    @property
    def n_slots(self) -> int:
        return len(self.threshold)

    def base(self, j: int) -> np.ndarray:
        return self.base_items[self.base_indptr[j]:self.base_indptr[j + 1]]

    def distance(self, j: int) -> np.ndarray:
        return self.dist_items[self.dist_indptr[j]:self.dist_indptr[j + 1]]


def preimages(nbr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR ``(indptr, records)`` of the preimages of every slot of the graph ``nbr`` (records ascending)."""
    n, m = nbr.shape
    slots = nbr.ravel()
    records = np.repeat(np.arange(n, dtype=np.int64), m)
    order = np.lexsort((records, slots))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(slots, minlength=n), out=indptr[1:])
    return indptr, np.ascontiguousarray(records[order])


def group_preimages(group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Preimages when every slot of a group is matched by every member (reciprocal groups, CAHD)."""
    group = np.asarray(group, dtype=np.int64)
    n = len(group)
    members = np.argsort(group, kind="stable")
    sizes = np.bincount(group)
    gstart = np.concatenate([[0], np.cumsum(sizes)])
    per_slot = sizes[group]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(per_slot, out=indptr[1:])
    records = np.concatenate([members[gstart[g]:gstart[g + 1]] for g in group]) if n else np.zeros(0, np.int64)
    return indptr, records.astype(np.int64)


def publish(data: TransactionData, pre_indptr: np.ndarray, pre: np.ndarray) -> Published:
    """Vote, distance bitmap and threshold of every slot from its preimages."""
    arrays = publish_slots(data.indptr, data.indices, np.ascontiguousarray(pre_indptr, dtype=np.int64),
                           np.ascontiguousarray(pre, dtype=np.int64), data.n_items)
    return Published(*arrays)
