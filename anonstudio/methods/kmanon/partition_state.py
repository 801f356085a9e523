"""The current generalization: items grouped into partitions, with posting lists.

Partition ids are item ids: partition ``p`` starts as ``{p}``; merging keeps
the smallest id of the merged partitions. ``label[i]`` is the partition of item
``i``. An unmerged partition reads its item's posting list where the sampler
keeps it (``base``); merged ones live in one pool (see
:mod:`anonstudio.kernels.generalized_support`), compacted when it fills.

Records are numbered in the independent sampler's clustered layout
(:func:`~anonstudio.samplers.independent_sampler.record_layout_of`: longest
records first, then neighbours in space), not in data order. A support does
not depend on the numbering, but "support >= k" is answered by the first k
common records found, and in this order they come first: the longest records
hold most generalized itemsets.
"""
from __future__ import annotations

import numpy as np

from ...data.transactions import TransactionData
from ...kernels.generalized_support import NO_ROW, fill_bits, support_at_least, union_into
from ...samplers.independent_sampler import layout_bitsets_of, layout_order_of, layout_postings_of

__all__ = ["PartitionState"]


class PartitionState:
    """Items -> partitions, with fast "support >= k" checks on partition sets.

    Parameters
    ----------
    data
        The original dataset.
    """

    def __init__(self, data: TransactionData):
        post_indptr, post_records = layout_postings_of(data)
        # Kept (the dataset caches them) for split, which rebuilds a partition's list from its items' lists.
        self._post_indptr, self._post_records = post_indptr, post_records
        n = data.n_items
        self.n_items = n
        self.label = np.arange(n, dtype=np.int32)
        self.members: dict[int, list[int]] = {i: [i] for i in range(n)}
        live = len(post_records)
        #: ``order[p]``: the data record that is record ``p`` of the posting lists and bitsets.
        self.order = layout_order_of(data)
        #: The items' lists (read-only, shared with the sampler): partition p reads
        #: ``base[-1 - start[p]:]`` while ``start[p] < 0``, i.e. until it merges
        #: (a copy cost 46 MB at a million people and 200 MB at 4.4 million).
        self.base = post_records
        # Merged lists never hold more than one entry per (record, item)
        # occurrence, and a union needs at most as many again, so twice that
        # always leaves room after a compaction. Pages of ``np.empty`` cost
        # memory only once written, so the pool is compacted as soon as its end
        # passes ``_room`` (a quarter of the occurrences, raised when a union
        # does not fit after compacting) instead of when it is full.
        self.pool = np.empty(2 * live + 16, dtype=np.int32)
        self._room = live // 4 + 16
        self.start = -1 - np.ascontiguousarray(post_indptr[:-1], dtype=np.int64)
        self.length = np.diff(post_indptr).astype(np.int64)
        self.end = 0
        self.merges = 0
        # Big partitions also keep a bitset over records: probing it is O(1)
        # where a search in a long posting list is not. A bitset costs
        # n_records / 8 bytes (at most one per item: 0.7 GB for 4.4 million
        # records and 1,303 items); lists longer than n_records / 256 gain.
        # An unmerged partition is one item, and the sampler keeps a bitset of
        # each item in this numbering: its row is read there (bit_row <= -2,
        # see generalized_support.NO_ROW), only merged partitions get rows of
        # their own (at a million people: ~100 MB less than a copy per item).
        self.n_records = data.n_records
        self.big = max(64, data.n_records // 256)
        words = (data.n_records + 63) // 64
        item_row, self.item_rows = layout_bitsets_of(data)
        self._item_row = item_row
        # Every partition holds at most one row, and the big ones together hold at most
        # every occurrence, so this many rows always suffice. Zeroed pages cost memory
        # only once written: only rows in use count, and the array never grows by
        # copying (which held two copies of 36 MB for a moment at a million people).
        max_rows = min(n, live // self.big + 1)
        self.bits = np.zeros((max_rows, words), dtype=np.uint64)
        self.bit_row = np.full(n, NO_ROW, dtype=np.int64)
        self._free_rows = list(range(len(self.bits) - 1, -1, -1))
        for p in np.flatnonzero(self.length > self.big):
            self._give_bits(int(p), [int(p)])
        #: Per-run objects that a constraint and its error function share.
        self.extras: dict[str, object] = {}

    # ----------------------------------------------------------------- basics
    @property
    def n_partitions(self) -> int:
        return len(self.members)

    def partition_ids(self) -> np.ndarray:
        """Live partition ids, ascending."""
        return np.array(sorted(self.members), dtype=np.int64)

    def users(self, p: int) -> int:
        """Records touching partition ``p``."""
        return int(self.length[p])

    def parts_of(self, items) -> list[int]:
        """Distinct partitions of some items, in first-seen order."""
        out: list[int] = []
        for i in items:
            p = int(self.label[int(i)])
            if p not in out:
                out.append(p)
        return out

    def support_at_least(self, parts, k: int) -> int:
        """``min(support, k)`` of a set of distinct partitions."""
        arr = np.asarray(parts, dtype=np.int64)
        return int(support_at_least(self.base, self.pool, self.start, self.length, self.bits, self.item_rows,
                                    self.bit_row, arr, len(arr), k))

    def posting(self, p: int) -> np.ndarray:
        """Sorted records (data numbering) touching partition ``p``."""
        return np.sort(self.order[self._list(p)])

    def _list(self, p: int) -> np.ndarray:
        """Partition ``p``'s posting list (layout numbering), a view of the base lists or of the pool."""
        s, n = int(self.start[p]), int(self.length[p])
        return self.base[-1 - s : -1 - s + n] if s < 0 else self.pool[s : s + n]

    def labels_copy(self) -> np.ndarray:
        return self.label.copy()

    # ------------------------------------------------------------------ merge
    def merge(self, parts) -> int:
        """Merge the given partitions into one; returns the surviving id (the smallest)."""
        parts = sorted({int(p) for p in parts})
        if len(parts) < 2:
            raise ValueError("a merge needs at least two partitions")
        keep = parts[0]
        for other in parts[1:]:
            self._merge_postings(keep, other)
            items = self.members.pop(other)
            self.label[items] = keep
            self.members[keep].extend(items)
        self.merges += 1
        return keep

    def split(self, p: int, groups) -> list[int]:
        """Undo merges: partition ``p`` becomes one partition per group of its items.

        ``groups`` must cover the members of ``p`` exactly. A group takes the id
        of its smallest item, the id a merge of its items would keep, and the
        postings and bitset a state built by merging its items would have.
        Returns the new ids.
        """
        post_indptr, post_records = self._post_indptr, self._post_records
        groups = [sorted(int(i) for i in g) for g in groups]
        if sorted(i for g in groups for i in g) != sorted(self.members[p]) or any(not g for g in groups):
            raise ValueError("a split needs non-empty groups covering the partition's items exactly")
        del self.members[p]
        self.length[p] = 0
        if self.bit_row[p] >= 0:
            self._free_rows.append(int(self.bit_row[p]))
        self.bit_row[p] = NO_ROW
        ids = []
        for items in groups:
            q = items[0]
            if len(items) == 1:  # back to its item's list, as before any merge
                self.start[q] = -1 - post_indptr[q]
                self.length[q] = n = post_indptr[q + 1] - post_indptr[q]
            else:
                recs = np.unique(np.concatenate([post_records[post_indptr[i] : post_indptr[i + 1]] for i in items]))
                n = len(recs)
                self._make_room(n)
                self.pool[self.end : self.end + n] = recs
                self.start[q] = self.end
                self.length[q] = n
                self.end += n
            self.members[q] = items
            self.label[items] = q
            if n > self.big:
                self._give_bits(q, items)
            ids.append(q)
        # Keys of per-partition caches (e.g. the exact level's pair count) must change with the partitions.
        self.merges += 1
        return ids

    def _merge_postings(self, a: int, b: int) -> None:
        self._make_room(int(self.length[a] + self.length[b]))
        n = union_into(self.base, self.pool, self.start[a], self.length[a], self.start[b], self.length[b], self.end)
        self.start[a] = self.end
        self.length[a] = n
        self.length[b] = 0
        self.end += int(n)
        if self.bit_row[b] >= 0:
            self._free_rows.append(int(self.bit_row[b]))
        self.bit_row[b] = NO_ROW
        if self.bit_row[a] < NO_ROW:
            # a read its item's shared row, which no longer matches its list (and is never written)
            self.bit_row[a] = NO_ROW
        if n > self.big:
            self._build_bits(a)

    def _give_bits(self, p: int, items: list[int]) -> None:
        """A bitset for big partition ``p`` of ``items``: the sampler's row of a single item, else one of its own."""
        if len(items) == 1 and self._item_row[items[0]] >= 0:
            self.bit_row[p] = -2 - int(self._item_row[items[0]])
        else:
            self._build_bits(p)

    def _build_bits(self, p: int) -> None:
        if self.bit_row[p] == NO_ROW:
            self.bit_row[p] = self._free_rows.pop()
        fill_bits(self.bits, int(self.bit_row[p]), self.base, self.pool, int(self.start[p]), int(self.length[p]))

    def _make_room(self, need: int) -> None:
        """Make room for ``need`` more entries at the end of the pool: compact, and use more of it if needed."""
        if self.end + need <= self._room:
            return
        self._compact()
        if self.end + need > self._room:
            self._room = min(len(self.pool), max(self._room + self._room // 4, self.end + need))

    def _compact(self) -> None:
        """Move the live lists of the pool to its front, in place.

        Lists move in the order they lie in the pool, each to a place at or
        before its own, so no list is overwritten before it has moved (numpy
        copies overlapping slices correctly). A fresh pool would hold two
        pools at once: 0.4 GB more at 4.4 million people.
        """
        pos = 0
        in_pool = [q for q in self.members if self.start[q] >= 0]
        for p in sorted(in_pool, key=lambda q: int(self.start[q])):
            n = int(self.length[p])
            s = int(self.start[p])
            if s != pos:
                self.pool[pos : pos + n] = self.pool[s : s + n]
            self.start[p] = pos
            pos += n
        self.end = pos
