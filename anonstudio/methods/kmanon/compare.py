"""Original vs published records of a σ-k^m release (a :class:`~anonstudio.data.compare.Comparison`).

A k^m release replaces every item by its partition, so a record is
published as the set of its items' partitions (named as in the exported
files, see :func:`~anonstudio.methods.kmanon.export.partition_names`).
Records are not grouped; selecting one highlights its partitions, in the
published record and among the original items of every record on screen.
Rows are 0-based here, as in the views' models; a person reads them numbered
from 1 (:meth:`PartitionComparison.describe`).
"""
from __future__ import annotations

import numpy as np

from ...data.rows import GeneralizedRecords, TransactionRows
from ...data.transactions import TransactionData
from .export import partition_names
from .result import LevelResult

__all__ = ["PartitionComparison", "comparison_of"]

#: How many partitions :meth:`PartitionComparison.describe` spells out.
SHOWN_PARTITIONS = 6


class PartitionComparison:
    """A :class:`~anonstudio.data.compare.Comparison` of a k^m level and the records it generalizes.

    Parameters
    ----------
    data
        The records the partitions refer to (``KmAnonResult.data``).
    level
        The level to publish (``KmAnonResult.final`` or any finished level).
    title
        One line naming the release.
    item_word
        What an item is called ("tower", "item").
    """

    group_word = "partition"

    def __init__(self, data: TransactionData, level: LevelResult, title: str = "", item_word: str = "item"):
        labels = np.asarray(level.labels, dtype=np.int64)
        if len(labels) != data.n_items:
            raise ValueError(f"the level maps {len(labels):,} items but the data has {data.n_items:,}")
        self.data, self.level, self.item_word = data, level, item_word
        self.names = partition_names(level)
        self.original = TransactionRows(data, item_keys=labels)
        self.published = GeneralizedRecords(data, labels, self.names, group_word="partition")
        self._members = np.bincount(labels, minlength=int(labels.max(initial=0)) + 1)
        # σ is left to the run's promise text: an exactly checked level reports σ = 1 even when less was asked.
        self.title = title or (f"σ-k^m release (k = {level.k}, m = {level.level}): "
                               f"{data.n_items:,} {item_word}s in {level.partitions:,} partitions")

    def row_groups(self) -> None:
        return None

    def highlight_keys(self, row: int) -> tuple[int, ...]:
        return tuple(self.published.groups_of(row).tolist())

    def describe(self, row: int) -> str:
        items = self.data.record(row)
        groups = self.published.groups_of(row).tolist()
        words = [f"{self.names.get(g, g)} ({self._count(self._members[g])})" for g in groups[:SHOWN_PARTITIONS]]
        more = f" and {len(groups) - SHOWN_PARTITIONS:,} more" if len(groups) > SHOWN_PARTITIONS else ""
        return (f"Record {row + 1}: {self._count(len(items))} published as {len(groups):,} partition"
                f"{'s' if len(groups) != 1 else ''}: {', '.join(words)}{more}.")

    def _count(self, n: int) -> str:
        return f"{n:,} {self.item_word}{'s' if n != 1 else ''}"


def comparison_of(run_result, level: LevelResult | None = None) -> PartitionComparison:
    """The comparison of a k^m run's result (``KmAnonResult``) at ``level`` (default: the last finished one)."""
    level = level or run_result.final
    if level is None:
        raise ValueError("the run finished no level to compare")
    return PartitionComparison(run_result.data, level, item_word=run_result.item_word)
