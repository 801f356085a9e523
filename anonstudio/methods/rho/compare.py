"""Original vs published records of a ρ-uncertainty run (a :class:`~anonstudio.data.compare.Comparison`).

Partial suppression removes single item occurrences, so a published record is
its original minus some items. The original side draws each record's items
with the suppressed ones as grey "suppressed" chips and a column counting
them; the published side draws what the release holds. Every chip's key is its item, so selecting a record highlights
the items suppressed from it wherever they appear on screen, in both tables:
where the item was taken out and where it was kept.
"""
from __future__ import annotations

import numpy as np

from ...data.rows import MAX_CHIPS, Chip, TransactionRows, capped
from ...data.transactions import TransactionData
from ...formatting import integer, percent
from .result import RhoResult
from .sensitive import SensitiveConstraint

__all__ = ["SuppressionComparison", "comparison_of", "suppressed_counts"]

#: How many items :meth:`SuppressionComparison.describe` spells out per list.
SHOWN_ITEMS = 8


def suppressed_counts(original: TransactionData, published: TransactionData) -> np.ndarray:
    """Occurrences suppressed per record (int64): original length minus published length."""
    return (original.lengths - published.lengths).astype(np.int64)


class _Records(TransactionRows):
    """Records with a "suppressed" column; chips keyed by item so a selection can highlight them."""

    def __init__(self, data: TransactionData, gone: np.ndarray, removed_of, *, original: bool):
        super().__init__(data, item_keys=np.arange(data.n_items, dtype=np.int64))
        self.gone = gone
        self.removed_of = removed_of
        self.show_removed = original
        self.columns = ("record", "size", "suppressed", "items" if original else "published items")
        self.column_tips = (
            "Record number (one person), counted from 1 as in the workbenches and exported files.",
            "Number of distinct items in the record" + ("" if original else " as published") + ".",
            "How many of the record's items were suppressed (removed) from it.",
            "The record's original items; grey chips are the ones suppressed from it." if original
            else "The items the release publishes for the person: the original record minus the suppressed items.",
        )
        self.right_aligned = frozenset({0, 1, 2})

    def cells(self, row: int):
        ids = self.data.record(row)
        vocab = self.data.vocab
        removed = set(self.removed_of(row).tolist()) if self.show_removed and self.gone[row] else set()
        chips = [Chip(vocab[i], "suppressed" if i in removed else "item", int(i)) for i in ids[:MAX_CHIPS].tolist()]
        gone = int(self.gone[row])
        return (str(row + 1), integer(len(ids)), integer(gone) if gone else "", capped(chips, len(ids)))

    def sort_order(self, column: int, descending: bool = False) -> np.ndarray | None:
        if self.columns[column] == "suppressed":
            order = np.argsort(-self.gone if descending else self.gone, kind="stable")
            return order.astype(np.int64)
        return super().sort_order(column, descending)


class SuppressionComparison:
    """A :class:`~anonstudio.data.compare.Comparison` of a ρ release and the records it was made from.

    Parameters
    ----------
    original, published
        D and D' (same records in the same order).
    constraint
        The sensitive items E used (for :meth:`describe`).
    title
        One line naming the release.
    """

    group_word = "group"

    def __init__(self, original: TransactionData, published: TransactionData, constraint: SensitiveConstraint,
                 title: str = ""):
        if original.n_records != published.n_records:
            raise ValueError(f"the original has {original.n_records:,} records but the release "
                             f"{published.n_records:,}")
        self.data, self.release, self.constraint = original, published, constraint
        self.gone = suppressed_counts(original, published)
        self.original = _Records(original, self.gone, self.removed_of, original=True)
        self.published = _Records(published, self.gone, self.removed_of, original=False)
        total = int(self.gone.sum())
        touched = int(np.count_nonzero(self.gone))
        self.title = title or (f"{integer(total)} item occurrence{'s' if total != 1 else ''} suppressed from "
                               f"{integer(touched)} of {integer(original.n_records)} records; select a record to "
                               "highlight the items taken out of it")

    def removed_of(self, row: int) -> np.ndarray:
        """Item ids suppressed from record ``row``."""
        return np.setdiff1d(self.data.record(row), self.release.record(row), assume_unique=True)

    def row_groups(self) -> None:
        return None

    def highlight_keys(self, row: int) -> tuple[int, ...]:
        return tuple(int(i) for i in self.removed_of(row))

    def describe(self, row: int) -> str:
        vocab = self.data.vocab
        items = self.data.record(row)
        sensitive = self.constraint.labels_of(row)
        removed = [vocab[i] for i in self.removed_of(row)]
        parts = [f"Record {row + 1}: {integer(len(items))} item{'s' if len(items) != 1 else ''}"]
        parts.append(f"sensitive for this person: {_listed(sensitive)}" if sensitive
                     else "nothing sensitive for this person")
        parts.append(f"suppressed: {_listed(removed)}" if removed else "nothing suppressed")
        return "; ".join(parts) + "."


def _listed(labels: list[str]) -> str:
    more = f" and {integer(len(labels) - SHOWN_ITEMS)} more" if len(labels) > SHOWN_ITEMS else ""
    return ", ".join(labels[:SHOWN_ITEMS]) + more


def comparison_of(result: RhoResult) -> SuppressionComparison:
    """The comparison of a ρ run's result (complete or stopped early)."""
    state = "" if result.complete else " (stopped early: the data so far, not a safe release)"
    plural = "s" if result.suppressed_items != 1 else ""
    touched = int(np.count_nonzero(suppressed_counts(result.original, result.published)))
    title = (f"{integer(result.suppressed_items)} item occurrence{plural} suppressed ({percent(result.util_info, 2)}) "
             f"from {integer(touched)} of {integer(result.original.n_records)} records{state}")
    return SuppressionComparison(result.original, result.published, result.constraint, title)
