"""Turn parsed records or (record, item) pairs into a TransactionData.

Loaders parse their file chunk by chunk and hand each chunk to a
:class:`RecordChunks` (one record per line or row: FIMI, SPMF, CSV sets,
Parquet lists) or :class:`PairChunks` (long form: one ``(record, item)`` per
row); the dataset is built only after the last chunk, so a file with an error
deep inside never yields a half-loaded dataset. Chunks are stored compactly
(item numbers, or 32-bit codes of labels), duplicates are dropped per chunk,
and the CSR arrays are filled chunk by chunk: loading peaks at a few times the
final dataset's size, not at a multiple of the file's.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..transactions import TransactionData, sort_labels
from .report import LoadReport

__all__ = ["int_labels_or_none", "records_as_label_lists", "RecordChunks", "PairChunks", "LabelCoder"]


#: How many line numbers the duplicate-item warning shows.
SHOWN_LINES = 3


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def int_labels_or_none(vocab: Sequence[str]) -> list[int] | None:
    """The labels as ints when every one is a canonical decimal integer."""
    out = []
    for label in vocab:
        try:
            value = int(label)
        except ValueError:
            return None
        if str(value) != label:
            return None
        out.append(value)
    return out


def records_as_label_lists(data: TransactionData) -> list[list[str]]:
    """Each record's labels, in item-id order (for writers)."""
    vocab = np.asarray(data.vocab, dtype=object)
    labels = vocab[data.indices].tolist()
    bounds = data.indptr.tolist()
    return [labels[bounds[u]:bounds[u + 1]] for u in range(data.n_records)]


# ------------------------------------------------------------------ chunked building
class LabelCoder:
    """Text labels to 32-bit codes in order of first appearance, across chunks."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.labels: list[str] = []

    def codes(self, labels: np.ndarray | Sequence, *, strip: bool = False) -> np.ndarray:
        """int32 codes of ``labels`` (a chunk), adding new labels; ``strip`` drops edge white space first."""
        local, uniques = pd.factorize(np.asarray(labels, dtype=object), sort=False)
        index, known = self.index, self.labels
        mapped = np.empty(len(uniques), dtype=np.int32)
        for i, label in enumerate(uniques.tolist()):
            if strip:
                label = label.strip()  # on the distinct values only: cheap
            code = index.get(label)
            if code is None:
                code = index[label] = len(known)
                known.append(label)
            mapped[i] = code
        return mapped[local] if len(local) else np.zeros(0, np.int32)

    def final_order(self) -> tuple[np.ndarray, tuple[str, ...]]:
        """(code -> item id, vocabulary) with ids in :func:`sort_labels` order."""
        vocab = sort_labels(self.labels)
        rank = {label: i for i, label in enumerate(vocab)}
        remap = np.fromiter((rank[u] for u in self.labels), dtype=np.int32, count=len(self.labels))
        return remap, vocab


class _Duplicates:
    """What the duplicate-item warning needs, gathered chunk by chunk."""

    def __init__(self, line_word: str):
        self.line_word = line_word
        self.records: list[np.ndarray] = []
        self.repeats = 0
        self.lines: list[int] = []  # the smallest few lines of repeats
        self.lines_known = True

    def add(self, records: np.ndarray, repeats: int, lines: np.ndarray | None) -> None:
        self.records.append(np.asarray(records, dtype=np.int64))
        self.repeats += int(repeats)
        if lines is None:
            self.lines_known = False
        else:
            merged = set(self.lines) | set(np.unique(lines)[:SHOWN_LINES + 1].tolist())
            self.lines = sorted(merged)[:SHOWN_LINES + 1]

    def warn(self, report: LoadReport) -> None:
        if not self.repeats:
            return
        records = np.unique(np.concatenate(self.records))
        where = ""
        if self.lines_known and self.lines:
            shown = ", ".join(str(int(n)) for n in self.lines[:SHOWN_LINES])
            many = len(self.lines) > SHOWN_LINES
            where = f"{'e.g. ' if many else ''}{self.line_word}{'s' if len(self.lines) > 1 else ''} {shown}; "
        report.warn(f"{_plural(len(records), 'record')} had duplicate items "
                        f"({where}{_plural(self.repeats, 'repeat')}), "
                    "deduplicated")
        report.details["records_with_duplicates"] = records


def _record_sorted(values: np.ndarray, lengths: np.ndarray) -> bool:
    """Whether values strictly increase inside every record (nothing to sort, no repeats)."""
    if len(values) < 2:
        return True
    rising = values[1:] > values[:-1]
    if rising.all():
        return True
    starts = np.cumsum(lengths)[:-1]  # where each record after the first begins
    starts = starts[(starts > 0) & (starts < len(values))]
    rising[starts - 1] = True  # a drop from one record to the next is fine
    return bool(rising.all())


def _lines_of(lines: np.ndarray | int | None, rows: np.ndarray) -> np.ndarray | None:
    """File lines of chunk rows ``rows``: ``lines`` is an array per row, or the first line of consecutive rows."""
    if lines is None:
        return None
    if isinstance(lines, np.ndarray):
        return lines[rows]
    return np.asarray(rows, dtype=np.int64) + int(lines)


class RecordChunks:
    """Records parsed chunk by chunk (one record per line or row), built into one dataset at the end.

    Each chunk gives the item count of every record, the items (an integer
    array of item numbers, or text labels) and the file line of every record
    (an array, or the line of the first when the records are consecutive
    lines). Integer items keep their numbers (ids follow them); text labels
    get ids in :func:`sort_labels` order. Repeated items in a record are
    dropped and reported.
    """

    def __init__(self, path: Path | None, report: LoadReport, *, line_word: str = "line",
                 report_duplicates: bool = True):
        self.path = path
        self.report = report
        self._lengths: list[np.ndarray] = []
        self._items: list[np.ndarray] = []  # item numbers (int32 when they fit), or int32 label codes
        self._numeric = True
        self._coder: LabelCoder | None = None
        self._dups = _Duplicates(line_word)
        self._report_duplicates = report_duplicates
        self.n_records = 0

    def add(self, lengths: np.ndarray, items: np.ndarray | Sequence, lines: np.ndarray | int | None = None) -> None:
        """One chunk: items per record, the items in record order, the records' file lines."""
        lengths = np.asarray(lengths, dtype=np.int64)
        numeric = isinstance(items, np.ndarray) and items.dtype.kind in "iu"
        if numeric and items.dtype.kind == "u" and len(items) and int(items.max()) > np.iinfo(np.int64).max:
            numeric = False  # beyond int64: kept as text labels
        if not numeric and self._numeric:
            self._to_text()
        if not self._numeric:
            if numeric:
                items = np.asarray([str(v) for v in items.tolist()], dtype=object)
            values = self._coder.codes(items)
        else:
            values = items.astype(np.int64, copy=False)
        # Text codes carry no order, so they are always checked for repeats; numbers only when out of order.
        if not self._numeric or not _record_sorted(values, lengths):
            rec = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
            order = np.lexsort((values, rec))
            values, rec = values[order], rec[order]
            if len(values) > 1:
                repeated = (values[1:] == values[:-1]) & (rec[1:] == rec[:-1])
                if repeated.any():
                    dropped = rec[1:][repeated]
                    self._dups.add(np.unique(dropped) + self.n_records, int(repeated.sum()),
                                   _lines_of(lines, dropped))
                    keep = np.concatenate(([True], ~repeated))
                    values, rec = values[keep], rec[keep]
                    lengths = np.bincount(rec, minlength=len(lengths)).astype(np.int64)
        if self._numeric and len(values) and -2**31 <= int(values.min()) and int(values.max()) < 2**31:
            values = values.astype(np.int32)
        self._lengths.append(lengths)
        self._items.append(values)
        self.n_records += len(lengths)

    def _to_text(self) -> None:
        """Switch to text labels (an item number beyond 64 bits appeared): recode the chunks so far."""
        self._numeric = False
        self._coder = LabelCoder()
        self._items = [self._coder.codes(np.asarray([str(v) for v in c.tolist()], dtype=object)) for c in self._items]

    def build(self, name: str | None = None) -> TransactionData:
        """The dataset; the chunks are released as they are copied into it."""
        n = self.n_records
        indptr = np.zeros(n + 1, dtype=np.int64)
        counts = [len(x) for x in self._lengths]
        if self._lengths:
            np.cumsum(np.concatenate(self._lengths), out=indptr[1:])
        self._lengths.clear()
        indices = np.empty(int(indptr[-1]), dtype=np.int32)
        if self._numeric:
            lookup, low, uniq = _number_ids(self._items)
            vocab = tuple(str(v) for v in uniq.tolist())
        else:
            remap, vocab = self._coder.final_order()
        record = 0
        for count in counts:
            values = self._items.pop(0)
            start, stop = int(indptr[record]), int(indptr[record + count])
            if self._numeric:
                ids = (lookup[values.astype(np.int64, copy=False) - low] if lookup is not None
                       else np.searchsorted(uniq, values).astype(np.int32))
            else:
                ids = remap[values]
                if len(ids) > 1:  # ids follow the final vocabulary order: sort each record again
                    rec = np.repeat(np.arange(count, dtype=np.int64), np.diff(indptr[record:record + count + 1]))
                    ids = ids[np.lexsort((ids, rec))]
            indices[start:stop] = ids
            record += count
        if self._report_duplicates:
            self._dups.warn(self.report)
        empty = int(np.count_nonzero(np.diff(indptr) == 0))
        if empty:
            self.report.warn(f"{empty:,} empty record{'s' if empty != 1 else ''}")
        label = name or (self.path.name if self.path is not None else "dataset")
        return TransactionData(indptr, indices, vocab, name=label, source=self.path)


def _number_ids(chunks: list[np.ndarray]) -> tuple[np.ndarray | None, int, np.ndarray]:
    """(lookup table ``number - low -> id`` or None, ``low``, the sorted distinct numbers)."""
    present_chunks = [c for c in chunks if len(c)]
    if not present_chunks:
        return None, 0, np.zeros(0, np.int64)
    low = min(int(c.min()) for c in present_chunks)
    high = max(int(c.max()) for c in present_chunks)
    total = sum(len(c) for c in present_chunks)
    if high - low <= 2 * total + 1_000_000:
        # A dense-enough range: a lookup table is O(n) and small; np.unique would sort.
        present = np.zeros(high - low + 1, dtype=bool)
        for c in present_chunks:
            present[c.astype(np.int64, copy=False) - low] = True
        lookup = (np.cumsum(present, dtype=np.int64) - 1).astype(np.int32)
        return lookup, low, np.flatnonzero(present).astype(np.int64) + low
    uniq = np.unique(np.concatenate([np.unique(c) for c in present_chunks]).astype(np.int64))
    return None, 0, uniq


class PairChunks:
    """Long-form data parsed chunk by chunk: one ``(record label, item label)`` per row.

    Records are numbered in order of first appearance (their labels go to the
    load report's ``record_ids``); items get ids in :func:`sort_labels` order.
    A row whose ``has_item`` is False creates its record without an item.
    """

    def __init__(self, path: Path | None, report: LoadReport, *, line_word: str = "line"):
        self.path = path
        self.report = report
        self.records = LabelCoder()
        self.items = LabelCoder()
        self._rec: list[np.ndarray] = []
        self._item: list[np.ndarray] = []
        self._lines: list[np.ndarray | int | None] = []
        self._line_word = line_word

    def add(self, records: np.ndarray | Sequence, items: np.ndarray | Sequence, lines: np.ndarray | int | None = None,
            *, skip_items: Sequence[str] = ()) -> int:
        """One chunk of rows: record and item labels (edge white space dropped) and file lines (an array, or
        the first line). A row whose item is empty or in ``skip_items`` only creates its record.

        Returns the number of rows whose item was in ``skip_items``.
        """
        rec = self.records.codes(records, strip=True)
        item = self.items.codes(items, strip=True)
        skipped = 0
        no_item = [self.items.index[x] for x in ("", *skip_items) if x in self.items.index]
        if no_item:
            without = np.isin(item, no_item)
            if without.any():
                if skip_items:
                    skip_codes = [self.items.index[x] for x in skip_items if x in self.items.index]
                    skipped = int(np.isin(item[without], skip_codes).sum())
                kept = np.flatnonzero(~without)
                rec, item, lines = rec[kept], item[kept], _lines_of(lines, kept)
        self._rec.append(rec)
        self._item.append(item)
        self._lines.append(lines)
        return skipped

    def build(self, name: str | None = None) -> TransactionData:
        """The dataset (duplicates dropped and reported)."""
        n_records = len(self.records.labels)
        self._drop_unused_items()
        remap, vocab = self.items.final_order()
        n_items = max(len(vocab), 1)
        key = np.empty(sum(len(r) for r in self._rec), dtype=np.int64)
        pos = 0
        for rec, item in zip(self._rec, self._item):
            part = key[pos:pos + len(rec)]
            np.multiply(rec, n_items, out=part, dtype=np.int64)
            part += remap[item]
            pos += len(rec)
        if len(key) > 1 and not bool((key[1:] > key[:-1]).all()):
            key.sort()  # in place: no second copy of the pairs
            repeated = key[1:] == key[:-1]
            if repeated.any():
                self._warn_duplicates(key, repeated, n_items, remap)
                key = key[np.concatenate(([True], ~repeated))]
            del repeated
        self._rec.clear()
        self._item.clear()
        indptr = np.searchsorted(key, np.arange(n_records + 1, dtype=np.int64) * n_items).astype(np.int64)
        np.remainder(key, n_items, out=key)
        indices = key.astype(np.int32)
        del key
        empty = int(np.count_nonzero(np.diff(indptr) == 0))
        if empty:
            self.report.warn(f"{empty:,} empty record{'s' if empty != 1 else ''}")
        self.report.record_ids = list(self.records.labels)
        label = name or (self.path.name if self.path is not None else "dataset")
        return TransactionData(indptr, indices, vocab, name=label, source=self.path)

    def _drop_unused_items(self) -> None:
        """Forget item labels that only stood for "no item" (empty, skipped): they are not items."""
        used = np.zeros(len(self.items.labels), dtype=bool)
        for item in self._item:
            used[item] = True
        if used.all():
            return
        new_code = np.cumsum(used, dtype=np.int64).astype(np.int32) - 1
        self._item = [new_code[item] for item in self._item]
        labels = [label for label, u in zip(self.items.labels, used) if u]
        self.items.labels = labels
        self.items.index = {label: i for i, label in enumerate(labels)}

    def _warn_duplicates(self, key: np.ndarray, repeated: np.ndarray, n_items: int, remap: np.ndarray) -> None:
        dup_keys = np.unique(key[1:][repeated])
        dups = _Duplicates(self._line_word)
        dups.records.append(np.unique(dup_keys // n_items))
        dups.repeats = int(repeated.sum())
        # Lines of the repeats: in file order, the first row of a pair is the original, later ones repeat it.
        seen: set[int] = set()
        lines: list[int] = []
        for rec, item, chunk_lines in zip(self._rec, self._item, self._lines):
            if chunk_lines is None:
                dups.lines_known = False
                break
            chunk_key = rec.astype(np.int64) * n_items + remap[item]
            for row in np.flatnonzero(np.isin(chunk_key, dup_keys)).tolist():
                k = int(chunk_key[row])
                if k in seen:
                    lines.append(int(_lines_of(chunk_lines, np.asarray([row]))[0]))
                    if len(set(lines)) > SHOWN_LINES:
                        break
                else:
                    seen.add(k)
            if len(set(lines)) > SHOWN_LINES:
                break
        dups.lines = sorted(set(lines))[:SHOWN_LINES + 1]
        dups.warn(self.report)
