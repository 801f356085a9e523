"""Publication of every slot (paper §4, fifth step).

``P(j)``: the preimages of slot ``j``, i.e. the originals whose graph edges
enter it. The base bitmap is the bit vote over ``P(j)`` (ties give 0; the
paper leaves ties free), the distance bitmap marks the items on which
``P(j)`` disagree, and the threshold is the largest Hamming distance between
the base and a member of ``P(j)``, computed after ties are resolved. The
possible worlds of the slot then include every member of ``P(j)``.

:func:`world_slots` answers the question a reader of the release asks about
one person: which published records could be theirs (the possible-world
relation, wider than the graph's edges, note T6).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...data.transactions import TransactionData
from ...kernels.nonreciprocal_publish import publish_slots

__all__ = ["Published", "preimages", "publish", "group_preimages", "world_slots"]


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

    @cached_property
    def base_in_distance(self) -> np.ndarray:
        """For every entry of ``base_items``: whether that item is also in its slot's distance bitmap."""
        n = self.n_slots
        width = int(max(self.base_items.max(initial=-1), self.dist_items.max(initial=-1))) + 1
        base_keys = np.repeat(np.arange(n, dtype=np.int64), np.diff(self.base_indptr)) * width + self.base_items
        dist_keys = np.repeat(np.arange(n, dtype=np.int64), np.diff(self.dist_indptr)) * width + self.dist_items
        if not len(dist_keys):
            return np.zeros(len(base_keys), dtype=bool)
        if np.any(dist_keys[1:] <= dist_keys[:-1]):  # never from publish(), whose items ascend per slot
            return np.isin(base_keys, dist_keys)
        # Slot-major with ascending items: the keys are sorted already, a binary search needs no sort (np.isin
        # sorts, ten times slower on BMS-WebView-1).
        at = np.minimum(np.searchsorted(dist_keys, base_keys), len(dist_keys) - 1)
        return dist_keys[at] == base_keys


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


def _per_slot(indptr: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """How many of each slot's entries (CSR ``indptr``) are flagged."""
    counts = np.concatenate([[0], np.cumsum(flags, dtype=np.int64)])
    return counts[indptr[1:]] - counts[indptr[:-1]]


def world_slots(published: Published, items) -> np.ndarray:
    """The slots (ascending) whose possible worlds include the record with item ids ``items``.

    A record ``r`` is a possible world of slot ``j`` when it equals the base
    outside the distance bitmap (``r Δ base ⊆ d``) and differs from the base
    in at most ``t`` items. Both sides are counted per slot from set sizes,
    ``|r Δ b| = |r| + |b| - 2|r ∩ b|`` and ``|(r Δ b) ∩ d| = |r ∩ d| +
    |b ∩ d| - 2|r ∩ b ∩ d|``, in one pass over the release (no loop over slots).
    """
    items = np.unique(np.asarray(items, dtype=np.int64))
    top = max(int(published.base_items.max(initial=-1)), int(published.dist_items.max(initial=-1)),
              int(items.max(initial=-1)))
    held = np.zeros(top + 1, dtype=bool)
    held[items] = True
    in_dist = published.base_in_distance
    held_base = held[published.base_items]
    shared = _per_slot(published.base_indptr, held_base)
    shared_dist = _per_slot(published.dist_indptr, held[published.dist_items])
    base_dist = _per_slot(published.base_indptr, in_dist)
    all_three = _per_slot(published.base_indptr, held_base & in_dist)
    differ = len(items) + np.diff(published.base_indptr) - 2 * shared
    differ_in_dist = shared_dist + base_dist - 2 * all_three
    return np.flatnonzero((differ == differ_in_dist) & (differ <= published.threshold)).astype(np.int64)
