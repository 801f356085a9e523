"""Rows of a dataset as a viewer shows them, formatted one row at a time.

A viewer over a million records must not format them up front: a
:class:`RowSource` turns one row into display cells when asked, sorts by a
column into a permutation (an int64 array, 8 bytes a row) and answers a
search with the matching row numbers. The GUI's table models ask only for
the rows on screen.

A cell is plain text, ``None`` for a missing value, or a tuple of
:class:`Chip` s: the items of a set-valued record, or the published cells of
a release (``[20-29]``, ``{a|b}``, ``*``, a partition's name), which the
viewer draws as chips. A chip's ``key`` ties chips that belong together (the
items of one partition and the partition itself) so that a viewer can
highlight them together.

Rows are numbered from 1 wherever a person reads or types a number (the
first column, ``#17`` in a search, the Go-to field); the row indexes of the
API (``cells(row)``, sort orders, :class:`Match` rows) count from 0.
"""
from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from .table import Table
from .transactions import TransactionData

if TYPE_CHECKING:  # imported where used: the studio's window imports this module before any table exists
    import pandas as pd

__all__ = [
    "Chip", "Cell", "CHIP_KINDS", "Match", "RowSource", "TransactionRows", "TableRows", "GeneralizedRecords",
    "cell_chip", "capped",
    "display_value", "MAX_CHIPS",
]

#: What a chip stands for; a viewer gives each kind its own look.
CHIP_KINDS = {
    "item": "an item of a person's set",
    "value": "a value published exactly",
    "general": "a generalized value: a range, a set of values, a mask or a hierarchy node",
    "suppressed": "a suppressed value (*): any value of the column",
    "partition": "a published partition: stands for every item in it",
    "sensitive": "a sensitive item: published as it is, never counted as what an attacker knows",
    "more": "more chips than a cell shows",
}

#: Records per slice when counting published sizes (bounds the memory of :meth:`GeneralizedRecords.sizes`).
SIZES_SLICE = 100_000
#: A cell shows at most this many chips; the rest are counted in a last "+N more" chip.
MAX_CHIPS = 200


@dataclass(frozen=True, slots=True)
class Chip:
    """One label drawn as a chip.

    Parameters
    ----------
    text
        What the chip says.
    kind
        One of :data:`CHIP_KINDS`.
    key
        Chips with the same key belong together (-1: none), e.g. the items
        of one published partition and that partition.
    """

    text: str
    kind: str = "item"
    key: int = -1


#: Plain text, a missing value (None) or chips.
Cell = str | None | tuple[Chip, ...]


def cell_chip(text: str, key: int = -1) -> Chip:
    """The chip of a published cell, its kind read from the text.

    ``*`` is suppressed; a range ``[20-29]``, a set ``{a|b}`` and a mask
    ``4550*`` are generalized; anything else is a value published exactly.
    """
    text = str(text)
    if text == "*":
        return Chip(text, "suppressed", key)
    if (text.startswith("[") and text.endswith("]")) or (text.startswith("{") and text.endswith("}")) \
            or (len(text) > 1 and text.endswith("*")):
        return Chip(text, "general", key)
    return Chip(text, "value", key)


def capped(chips: list[Chip], total: int | None = None) -> tuple[Chip, ...]:
    """At most :data:`MAX_CHIPS` chips, the rest of ``total`` (default: all given) counted in a "+N more" chip."""
    total = len(chips) if total is None else total
    if total <= MAX_CHIPS:
        return tuple(chips)
    return (*chips[:MAX_CHIPS], Chip(f"+{total - MAX_CHIPS:,} more", "more"))


def display_value(value) -> str | None:
    """A table value as text: None when missing, whole floats without ``.0``."""
    if value is None:
        return None
    pd = sys.modules.get("pandas")  # NA and NaT exist only once pandas is loaded: no import here (called per cell)
    if pd is not None and (value is pd.NA or value is pd.NaT):
        return None
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        x = float(value)
        if math.isnan(x):
            return None
        return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)
    return str(value)


@dataclass(frozen=True)
class Match:
    """The rows a search found (ascending row numbers) and what was searched, in words."""

    rows: np.ndarray
    text: str


class RowSource(Protocol):
    """What a viewer needs of a dataset, row by row.

    Attributes
    ----------
    columns
        Column headers.
    column_tips
        One tooltip per column ("" for none).
    right_aligned
        Columns of numbers (shown right-aligned).
    n_rows
        Number of rows.
    """

    columns: tuple[str, ...]
    column_tips: tuple[str, ...]
    right_aligned: frozenset[int]
    n_rows: int

    def cells(self, row: int) -> tuple[Cell, ...]:
        """The display cells of ``row`` (one per column)."""

    def sort_order(self, column: int, descending: bool = False) -> np.ndarray | None:
        """Row numbers in the order of ``column`` (stable; missing values last), or None if it does not sort."""

    def search(self, text: str) -> Match:
        """The rows matching ``text``."""


def _order_of(values, descending: bool) -> np.ndarray:
    """Stable order of ``values`` with missing values last, in either direction."""
    import pandas as pd

    series = pd.Series(values).reset_index(drop=True)
    return series.sort_values(ascending=not descending, kind="stable", na_position="last").index.to_numpy(np.int64)


class TransactionRows:
    """The records of a :class:`TransactionData`: number, original id, size and items as chips.

    Parameters
    ----------
    data
        The records.
    record_ids
        Each record's identifier in the file (``LoadReport.record_ids``), if
        the format has one.
    item_keys
        Optional int array: the chip key of each item (e.g. its partition).
    """

    def __init__(self, data: TransactionData, record_ids: Sequence[str] | None = None,
                 item_keys: np.ndarray | None = None):
        self.data = data
        self.record_ids = list(record_ids) if record_ids is not None and len(record_ids) == data.n_records else None
        self.item_keys = None if item_keys is None else np.asarray(item_keys, dtype=np.int64)
        self._lower_vocab: np.ndarray | None = None
        id_column = ("id in the file",) if self.record_ids is not None else ()
        self.columns = ("record", *id_column, "size", "items")
        id_tip = ("The record's identifier in the file (user, basket or transaction id).",) if id_column else ()
        self.column_tips = ("Record number, counted from 1 as in the workbenches and exported files.", *id_tip,
                            "Number of distinct items in the record.", "The items of the record.")
        self.right_aligned = frozenset({0, len(self.columns) - 2})
        self.n_rows = data.n_records

    def cells(self, row: int) -> tuple[Cell, ...]:
        data = self.data
        ids = data.record(row)
        vocab = data.vocab
        shown = ids[:MAX_CHIPS].tolist()
        if self.item_keys is None:
            chips = [Chip(vocab[i]) for i in shown]
        else:
            keys = self.item_keys
            chips = [Chip(vocab[i], "item", int(keys[i])) for i in shown]
        own_id = (self.record_ids[row],) if self.record_ids is not None else ()
        return (str(row + 1), *own_id, f"{len(ids):,}", capped(chips, len(ids)))

    def sort_order(self, column: int, descending: bool = False) -> np.ndarray | None:
        name = self.columns[column]
        if name == "record":
            order = np.arange(self.n_rows, dtype=np.int64)
            return order[::-1].copy() if descending else order
        if name == "size":
            return _order_of(self.data.lengths, descending)
        if name == "id in the file":
            return _order_of(self._natural_ids(), descending)
        return None

    def _natural_ids(self) -> pd.Series:
        """Ids as numbers when all are whole numbers (so 10 follows 9), else as text."""
        import pandas as pd

        ids = pd.Series(self.record_ids, dtype=object)
        numbers = pd.to_numeric(ids, errors="coerce")
        return numbers if numbers.notna().all() else ids.astype(str)

    def item_mask(self, term: str) -> np.ndarray:
        """Items whose label is ``term`` (any case), else items whose label contains it."""
        if self._lower_vocab is None:
            self._lower_vocab = np.char.lower(np.asarray(self.data.vocab, dtype=str))
        term = term.strip().lower()
        exact = self._lower_vocab == term
        if exact.any():
            return exact
        return np.char.find(self._lower_vocab, term) >= 0

    def records_with(self, items: np.ndarray) -> np.ndarray:
        """Records holding at least one item of the boolean item mask, ascending."""
        positions = np.flatnonzero(items[self.data.indices])
        records = np.searchsorted(self.data.indptr, positions, side="right") - 1
        # Ascending already: keep the first of each run (np.unique would sort again, slowly).
        first = np.ones(len(records), dtype=bool)
        first[1:] = records[1:] != records[:-1]
        return records[first]

    def search(self, text: str) -> Match:
        """Records holding every comma-separated item (an item named exactly, else any item containing the text).

        A record number (``#17``, counted from 1) finds that record.
        """
        text = text.strip()
        if text.startswith("#") and text[1:].strip().isdigit():
            number = int(text[1:])
            rows = np.array([number - 1] if 1 <= number <= self.n_rows else [], dtype=np.int64)
            return Match(rows, f"record {number}" if len(rows) else f"no record {number}")
        terms = [t.strip() for t in text.split(",") if t.strip()]
        if not terms:
            return Match(np.arange(self.n_rows, dtype=np.int64), "all records")
        rows = None
        words = []
        for term in terms:
            mask = self.item_mask(term)
            found = self.records_with(mask)
            rows = found if rows is None else np.intersect1d(rows, found, assume_unique=True)
            words.append(self.term_words(term, mask))
        return Match(rows.astype(np.int64), "records with " + " and ".join(words))

    def term_words(self, term: str, mask: np.ndarray) -> str:
        """What a search term matched, in words."""
        n = int(mask.sum())
        if n == 1:
            return f"item {self.data.vocab[int(np.argmax(mask))]}"
        return f"an item containing “{term}” ({n:,} items)" if n else f"“{term}” (no such item)"


class TableRows:
    """The rows of a :class:`Table`: row number, then one cell per column.

    Parameters
    ----------
    table
        The rows.
    chip_columns
        Columns whose cells are published cells, drawn as one chip each:
        column -> function from the cell's text to its chip (e.g.
        :func:`cell_chip`).
    """

    def __init__(self, table: Table, chip_columns: Mapping[str, Callable[[str], Chip]] | None = None):
        self.table = table
        frame = table.frame
        self.columns = ("row", *(str(c) for c in frame.columns))
        self.column_tips = ("Row number, counted from 1 as in the workbenches.",
                            *(f"{c}: {table.role(c).value}" for c in frame.columns))
        self.right_aligned = frozenset({0} | {j + 1 for j, c in enumerate(frame.columns)
                                              if frame[c].dtype.kind in "iuf" or str(frame[c].dtype) == "Int64"})
        self.n_rows = len(frame)
        # Column arrays once, so that a row is read by position without pandas' per-row overhead.
        self._arrays = [frame[c].array for c in frame.columns]
        self._missing = [frame[c].isna().to_numpy() for c in frame.columns]
        chip_columns = chip_columns or {}
        self._chips = [chip_columns.get(str(c)) for c in frame.columns]

    def cells(self, row: int) -> tuple[Cell, ...]:
        values = []
        for array, missing, chip in zip(self._arrays, self._missing, self._chips):
            text = None if missing[row] else display_value(array[row])
            values.append((chip(text),) if chip is not None and text is not None else text)
        return (str(row + 1), *values)

    def sort_order(self, column: int, descending: bool = False) -> np.ndarray | None:
        if column == 0:
            order = np.arange(self.n_rows, dtype=np.int64)
            return order[::-1].copy() if descending else order
        return _order_of(self.table.frame.iloc[:, column - 1], descending)

    def search(self, text: str) -> Match:
        """Rows with a cell containing ``text`` (any case); ``column = value`` looks in one column for that value."""
        text = text.strip()
        frame = self.table.frame
        if not text:
            return Match(np.arange(self.n_rows, dtype=np.int64), "all rows")
        if text.startswith("#") and text[1:].strip().isdigit():
            number = int(text[1:])
            rows = np.array([number - 1] if 1 <= number <= self.n_rows else [], dtype=np.int64)
            return Match(rows, f"row {number}" if len(rows) else f"no row {number}")
        name, sep, value = (part.strip() for part in text.partition("="))
        if sep and name in map(str, frame.columns):
            column = frame[name]
            if column.dtype.kind in "iuf" or str(column.dtype) == "Int64":
                try:
                    hit = (column == float(value)).fillna(False).to_numpy(bool)
                except ValueError:  # a number column never holds a word
                    hit = np.zeros(self.n_rows, dtype=bool)
            else:
                hit = (column.astype(str).str.lower() == value.lower()).to_numpy(bool) & column.notna().to_numpy()
            return Match(np.flatnonzero(hit).astype(np.int64), f"rows with {name} = {value}")
        hit = np.zeros(self.n_rows, dtype=bool)
        needle = text.lower()
        for c in frame.columns:
            texts = frame[c].astype(str).str.lower()
            hit |= texts.str.contains(needle, regex=False).fillna(False).to_numpy(bool) & frame[c].notna().to_numpy()
        return Match(np.flatnonzero(hit).astype(np.int64), f"rows containing “{text}”")


class GeneralizedRecords(TransactionRows):
    """Records as published when every item is replaced by its group (a partition, a hierarchy node).

    Parameters
    ----------
    data
        The original records.
    item_group
        int array: the group of each item.
    group_names
        Group -> its published name.
    group_word
        What a group is called ("partition", "category").
    """

    def __init__(self, data: TransactionData, item_group: np.ndarray, group_names: dict[int, str],
                 group_word: str = "group"):
        super().__init__(data, item_keys=item_group)
        self.group_names = dict(group_names)
        self.group_word = group_word
        self.columns = ("record", "size", "published items")
        self.column_tips = ("Record number, counted from 1 as in the workbenches and exported files.",
                            "Number of distinct published items in the record.",
                            "The record as published: the group of each of its items.")
        self.right_aligned = frozenset({0, 1})
        self._sizes: np.ndarray | None = None
        self._lower_names: np.ndarray | None = None

    def groups_of(self, row: int) -> np.ndarray:
        """The distinct groups of record ``row``, ascending."""
        return np.unique(self.item_keys[self.data.record(row)])

    def cells(self, row: int) -> tuple[Cell, ...]:
        groups = self.groups_of(row).tolist()
        names = self.group_names
        chips = [Chip(names.get(g, str(g)), "partition", g) for g in groups[:MAX_CHIPS]]
        return (str(row + 1), f"{len(groups):,}", capped(chips, len(groups)))

    def sizes(self) -> np.ndarray:
        """Distinct published items per record (computed once, on first use).

        Records are taken a slice at a time (memory stays small on a million
        records), and distinct (record, group) pairs are counted after a sort:
        ``np.unique`` took 20 s where the sort takes 0.3 s on 11 million pairs.
        """
        if self._sizes is None:
            data = self.data
            n_groups = int(self.item_keys.max()) + 1 if len(self.item_keys) else 1
            sizes = np.zeros(data.n_records, dtype=np.int64)
            for lo in range(0, data.n_records, SIZES_SLICE):
                hi = min(lo + SIZES_SLICE, data.n_records)
                first, last = data.indptr[lo], data.indptr[hi]
                record = np.repeat(np.arange(hi - lo, dtype=np.int64), data.lengths[lo:hi])
                key = record * n_groups + self.item_keys[data.indices[first:last]]
                key.sort()
                new = np.ones(len(key), dtype=bool)
                new[1:] = key[1:] != key[:-1]
                sizes[lo:hi] = np.bincount(key[new] // n_groups, minlength=hi - lo)
            self._sizes = sizes
        return self._sizes

    def sort_order(self, column: int, descending: bool = False) -> np.ndarray | None:
        if self.columns[column] == "size":
            return _order_of(self.sizes(), descending)
        return super().sort_order(column, descending) if column == 0 else None

    def item_mask(self, term: str) -> np.ndarray:
        """Items whose group is named ``term`` (any case), else whose group's name contains it."""
        ids = np.array(sorted(self.group_names), dtype=np.int64)
        if self._lower_names is None:
            self._lower_names = np.char.lower(np.asarray([self.group_names[g] for g in ids.tolist()], dtype=str))
        term = term.strip().lower()
        named = self._lower_names == term
        if not named.any():
            named = np.char.find(self._lower_names, term) >= 0
        wanted = np.zeros(int(max(ids.max(initial=0), self.item_keys.max(initial=0))) + 1, dtype=bool)
        wanted[ids[named]] = True
        return wanted[self.item_keys]

    def term_words(self, term: str, mask: np.ndarray) -> str:
        groups = np.unique(self.item_keys[mask]).tolist()
        if len(groups) == 1:
            return f"{self.group_word} {self.group_names.get(groups[0], groups[0])}"
        if groups:
            return f"a {self.group_word} whose name contains “{term}” ({len(groups):,} of them)"
        return f"“{term}” (no such {self.group_word})"
