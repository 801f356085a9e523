"""Original vs published records of a nonreciprocal release, and the published records one person could be.

:class:`NonreciprocalComparison` is the release as the studio's side-by-side
view shows it (a :class:`~anonstudio.data.compare.Comparison`): row ``r`` is
person ``r`` beside the record published in ``r``'s slot, the paper's
*unified view* (slot ``r`` is always one of the records linked to person
``r``, never necessarily the true one). Published records are not grouped;
selecting a person highlights their items wherever they appear.

:class:`PublishedRows` lists published records as rows (the whole release,
or the possible worlds of one person with how each fits): the base as chips
(``value``: every person behind the record has the item; ``general``: some
may lack it), the distance items (``general``: where a person may differ),
the threshold and the label. Published records are numbered from 1 like the
people beside them and every row view of the studio; when the input names its
records (long CSV, check-ins), ``name`` is the name ``PUBLISHED.csv`` gives
the record.
"""
from __future__ import annotations

import numpy as np

from ...data.rows import Cell, Chip, Match, TransactionRows, capped
from ...data.transactions import TransactionData
from ...formatting import integer
from .publish import world_slots
from .result import NonreciprocalResult

__all__ = ["NonreciprocalComparison", "PublishedRows", "person_worlds", "LINK", "FITS"]

LINK = "graph link"
FITS = "fits by chance"


def person_worlds(result: NonreciprocalResult, data: TransactionData, person: int) -> tuple[np.ndarray, np.ndarray]:
    """(published records ``person`` could be, ascending; whether each is one of the person's graph links)."""
    slots = world_slots(result.published, data.record(person))
    linked = np.isin(slots, result.graph[person]) if result.graph is not None else np.zeros(len(slots), bool)
    return slots, linked


def _stable_order(values: np.ndarray, descending: bool) -> np.ndarray:
    keys = -np.asarray(values, dtype=np.float64) if descending else np.asarray(values, dtype=np.float64)
    return np.argsort(keys, kind="stable").astype(np.int64)


class PublishedRows:
    """Published records as rows (a :class:`~anonstudio.data.rows.RowSource`).

    Parameters
    ----------
    result
        A run that published (``result.published`` set).
    slots
        The published records to list, in this order (default: all of them).
    linked
        One flag per listed record: linked to the person by the graph (else it
        fits by chance); adds a ``how`` column.
    """

    def __init__(self, result: NonreciprocalResult, slots: np.ndarray | None = None,
                 linked: np.ndarray | None = None):
        if result.published is None:
            raise ValueError("the run published nothing yet")
        self.result = result
        pub = result.published
        self.slots = np.arange(pub.n_slots, dtype=np.int64) if slots is None else np.asarray(slots, dtype=np.int64)
        self.linked = None if linked is None else np.asarray(linked, dtype=bool)
        self.has_labels = result.labels is not None and result.slot_labels is not None
        record_tip = ("Published record number, counted from 1 like the people beside it (the unified view: record "
                      "r is the one published in person r's slot).")
        how_tip = (f"“{LINK}”: one of the person's links in the generalization graph, each equally likely to be the "
                   f"true one. “{FITS}”: not linked, yet the person's record fits it.")
        columns = [("record", record_tip)]
        if self.linked is not None:
            columns.append(("how", how_tip))
        columns += [("base", "The items the published record shows: the majority vote of the people it covers. "
                             "Grey: every one of them has it; yellow: some may lack it."),
                    ("distance", "Distance items: where the people behind it disagree, the only items on which a "
                                 "person may differ from the base."),
                    ("threshold", "At most this many items differ between the base and any person the record "
                                  "could be.")]
        if self.has_labels:
            columns.append(("label", "The sensitive label published with the record (its true person's label)."))
        if result.record_names is not None:
            columns.append(("name", "Its name in PUBLISHED.csv: the input's identifier of the record."))
        self.columns = tuple(name for name, _ in columns)
        self.column_tips = tuple(tip for _, tip in columns)
        self.right_aligned = frozenset({0, self.columns.index("threshold")})
        self.n_rows = len(self.slots)
        # Searching by items reuses the record search over the bases.
        bases = TransactionData(pub.base_indptr, pub.base_items.astype(np.int32), result.vocab)
        self._bases = TransactionRows(bases)

    def cells(self, row: int) -> tuple[Cell, ...]:
        result = self.result
        pub = result.published
        j = int(self.slots[row])
        vocab = result.vocab
        dist = pub.distance(j)
        unsure = set(dist.tolist())
        base = pub.base(j).tolist()
        base_chips = [Chip(vocab[i], "general" if i in unsure else "value", i) for i in base]
        dist_chips = [Chip(vocab[i], "general", i) for i in dist.tolist()]
        cells: list[Cell] = [str(j + 1)]
        if self.linked is not None:
            cells.append(LINK if self.linked[row] else FITS)
        cells += [capped(base_chips, len(base)), capped(dist_chips, len(dist)), integer(pub.threshold[j])]
        if self.has_labels:
            cells.append(result.labels.names[int(result.slot_labels[j])])
        if result.record_names is not None:
            cells.append(result.record_name(j))
        return tuple(cells)

    def sort_order(self, column: int, descending: bool = False) -> np.ndarray | None:
        name = self.columns[column]
        if name == "record":
            return _stable_order(self.slots, descending)
        if name == "threshold":
            return _stable_order(self.result.published.threshold[self.slots], descending)
        if name == "base":
            return _stable_order(np.diff(self.result.published.base_indptr)[self.slots], descending)
        if name == "how" and self.linked is not None:
            return _stable_order(~self.linked, descending)
        return None

    def search(self, text: str) -> Match:
        """Published records whose base holds every comma-separated item (``#17``: published record 17, from 1)."""
        found = self._bases.search(text)
        rows = np.flatnonzero(np.isin(self.slots, found.rows)).astype(np.int64)
        return Match(rows, found.text.replace("records with", "published records whose base has"))


class NonreciprocalComparison:
    """A nonreciprocal release beside its data, one row per person (the unified view); see the module docstring."""

    group_word = "group"

    def __init__(self, result: NonreciprocalResult, data: TransactionData):
        if result.published is None:
            raise ValueError("the run published nothing yet")
        self.result, self.data = result, data
        self.original = TransactionRows(data, item_keys=np.arange(data.n_items, dtype=np.int64))
        self.published = PublishedRows(result)
        what = f"k = {result.m}" if result.mode == "k" else f"ℓ = {result.m}"
        self.title = (f"Nonreciprocal release ({what}): {integer(data.n_records)} people, each beside the record "
                      "published in their slot")

    def row_groups(self) -> None:
        return None

    def highlight_keys(self, row: int) -> tuple[int, ...]:
        """The person's items, wherever they appear."""
        return tuple(int(i) for i in self.data.record(row))

    def describe(self, row: int) -> str:
        slots, linked = person_worlds(self.result, self.data, row)
        links = ", ".join(str(int(j) + 1) for j in slots[linked])
        text = (f"Person {row + 1} could be {integer(len(slots))} published records: {links} by the generalization "
                "graph (one of them, each equally likely, is theirs)")
        extra = slots[~linked]
        if len(extra):
            shown = ", ".join(str(int(j) + 1) for j in extra[:8]) + (", …" if len(extra) > 8 else "")
            text += f", and {integer(len(extra))} more that fit by chance ({shown})"
        return text + ". Their items are highlighted."
