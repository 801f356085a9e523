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

from ..transactions import TransactionData, sort_labels
from .report import LoadReport

__all__ = ["int_labels_or_none", "records_as_label_lists", "RecordChunks", "PairChunks", "LabelCoder",
           "IntCoder", "IntLabels"]


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
        import pandas as pd

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


class IntCoder:
    """Integer labels to 32-bit codes in order of first appearance, across chunks, without a text per value.

    The numeric twin of :class:`LabelCoder` (a database's integer columns):
    the label of a value is its decimal text, made only when asked for
    (:attr:`labels`, :meth:`label_texts`). The distinct values are kept sorted
    beside their codes, so coding a chunk is a sort of the chunk's distinct
    values and a binary search.
    """

    def __init__(self) -> None:
        self._keys = np.zeros(0, dtype=np.int64)  # distinct values, sorted
        self._key_codes = np.zeros(0, dtype=np.int32)  # the code of each of _keys
        self.n = 0

    def codes(self, values: np.ndarray) -> np.ndarray:
        """int32 codes of ``values`` (an integer array: one chunk), adding new values."""
        uniq, first, inverse = np.unique(np.asarray(values, dtype=np.int64), return_index=True,
                                         return_inverse=True)
        mapped = np.empty(len(uniq), dtype=np.int32)
        at = np.searchsorted(self._keys, uniq)
        known = np.zeros(len(uniq), dtype=bool)
        if len(self._keys):
            inside = np.flatnonzero(at < len(self._keys))
            known[inside] = self._keys[at[inside]] == uniq[inside]
            mapped[known] = self._key_codes[at[known]]
        new = np.flatnonzero(~known)
        if len(new):
            fresh = np.empty(len(new), dtype=np.int32)
            fresh[np.argsort(first[new], kind="stable")] = np.arange(self.n, self.n + len(new), dtype=np.int32)
            mapped[new] = fresh  # new values numbered in order of first appearance
            self.n += len(new)
            # uniq is sorted, so the new values go in at their (ascending) search positions.
            self._keys = np.insert(self._keys, at[new], uniq[new])
            self._key_codes = np.insert(self._key_codes, at[new], fresh)
        return mapped[inverse.reshape(-1)] if len(inverse) else np.zeros(0, np.int32)

    def values(self) -> np.ndarray:
        """The distinct values in code order."""
        out = np.empty(self.n, dtype=np.int64)
        out[self._key_codes] = self._keys
        return out

    @property
    def labels(self) -> list[str]:
        return [str(v) for v in self.values().tolist()]

    def label_coder(self) -> LabelCoder:
        """The same codes as a :class:`LabelCoder` (when a chunk of text follows integer chunks)."""
        coder = LabelCoder()
        coder.labels = self.labels
        coder.index = {label: i for i, label in enumerate(coder.labels)}
        return coder

    def final_order(self) -> tuple[np.ndarray, tuple[str, ...]]:
        return self.label_coder().final_order()


class IntLabels(Sequence):
    """Integer record identifiers read as their decimal texts (``LoadReport.record_ids`` without a string each)."""

    def __init__(self, values: np.ndarray):
        self._values = values

    def __len__(self) -> int:
        return len(self._values)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [str(v) for v in self._values[i].tolist()]
        return str(int(self._values[i]))

    def __iter__(self):
        return (str(v) for v in self._values.tolist())

    def __eq__(self, other) -> bool:
        if isinstance(other, (list, tuple, IntLabels)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # mutable-looking, like the list it stands for

    def __repr__(self) -> str:
        return f"IntLabels({len(self):,} ids)"


def _is_int_array(values) -> bool:
    return isinstance(values, np.ndarray) and values.dtype.kind in "iu"


_LOW32 = np.int64(0xFFFFFFFF)
#: Rows of the sorted pair keys handled at a time when the dataset is built (bounds the temporaries).
_BUILD_SLICE = 1 << 17


class PairChunks:
    """Long-form data parsed chunk by chunk: one ``(record label, item label)`` per row.

    Records are numbered in order of first appearance (their labels go to the
    load report's ``record_ids``); items get ids in :func:`sort_labels` order.
    A row whose ``has_item`` is False creates its record without an item.
    Labels come as text, or as integer arrays (a database's integer columns:
    coded by :class:`IntCoder` without a text per row; their label is the
    decimal text, so the dataset is the one the same rows as text give).

    Each row is kept as one int64 (record code << 32 | item code) in one
    buffer (``expected_rows`` long when the caller knows the count, else grown
    by half as needed). The build turns the buffer, in place, into sort keys
    with the row number in the low bits, so one in-place sort groups the pairs
    and still tells which row of a repeated pair came first (the duplicate
    warning's lines), and then fills the CSR slice by slice: loading peaks
    near 8 bytes a row plus the final dataset.
    """

    def __init__(self, path: Path | None, report: LoadReport, *, line_word: str = "line",
                 expected_rows: int | None = None):
        self.path = path
        self.report = report
        self.records: LabelCoder | IntCoder | None = None
        self.items: LabelCoder | IntCoder | None = None
        # An int32 array owns the buffer (viewed as int64 for the pairs) so that the build can write the CSR
        # indices into it and shrink it in place: the indices need no memory of their own.
        self._raw = np.empty(2 * max(int(expected_rows or 0), 1024), dtype=np.int32)
        self._buffer = self._raw.view(np.int64)
        self._n = 0
        self._starts: list[int] = []
        self._lines: list[np.ndarray | int | None] = []
        self._line_word = line_word

    def _room(self, rows: int) -> np.ndarray:
        """The next ``rows`` slots of the buffer (grown when full)."""
        need = self._n + rows
        if need > len(self._buffer):
            raw = np.empty(2 * max(need, len(self._buffer) * 3 // 2), dtype=np.int32)
            raw.view(np.int64)[:self._n] = self._buffer[:self._n]
            self._raw, self._buffer = raw, raw.view(np.int64)
        return self._buffer[self._n:need]

    def _code(self, which: str, values, strip: bool) -> np.ndarray:
        coder = getattr(self, which)
        if _is_int_array(values):
            if coder is None:
                coder = IntCoder()
                setattr(self, which, coder)
            if isinstance(coder, IntCoder):
                return coder.codes(values)
            # Integers after text: their texts, in order of first appearance, through the text coder.
            uniq, first, inverse = np.unique(values, return_index=True, return_inverse=True)
            order = np.argsort(first, kind="stable")
            texts = np.asarray([str(v) for v in uniq[order].tolist()], dtype=object)
            local = np.empty(len(uniq), dtype=np.int32)
            local[order] = coder.codes(texts)
            return local[inverse.reshape(-1)]
        if coder is None:
            coder = LabelCoder()
        elif isinstance(coder, IntCoder):
            coder = coder.label_coder()  # text after integers (e.g. a NULL): from here on, text
        setattr(self, which, coder)
        return coder.codes(values, strip=strip)

    def add(self, records: np.ndarray | Sequence, items: np.ndarray | Sequence, lines: np.ndarray | int | None = None,
            *, skip_items: Sequence[str] = ()) -> int:
        """One chunk of rows: record and item labels (edge white space dropped; or integer arrays) and file
        lines (an array, or the first line). A row whose item is empty or in ``skip_items`` only creates its
        record.

        Returns the number of rows whose item was in ``skip_items``.
        """
        rec = self._code("records", records, True)
        if skip_items and isinstance(self.items, IntCoder):
            self.items = self.items.label_coder()  # skipped items are named by text
        item = self._code("items", items, True)
        skipped = 0
        if isinstance(self.items, LabelCoder):
            no_item = [self.items.index[x] for x in ("", *skip_items) if x in self.items.index]
            if no_item:
                without = np.isin(item, no_item)
                if without.any():
                    if skip_items:
                        skip_codes = [self.items.index[x] for x in skip_items if x in self.items.index]
                        skipped = int(np.isin(item[without], skip_codes).sum())
                    kept = np.flatnonzero(~without)
                    rec, item, lines = rec[kept], item[kept], _lines_of(lines, kept)
        packed = self._room(len(rec))
        packed[:] = rec
        packed <<= 32
        packed |= item
        self._starts.append(self._n)
        self._n += len(rec)
        self._lines.append(lines)
        return skipped

    def build(self, name: str | None = None) -> TransactionData:
        """The dataset (duplicates dropped and reported)."""
        if self.records is None:
            self.records, self.items = LabelCoder(), LabelCoder()
        n_records = self.records.n if isinstance(self.records, IntCoder) else len(self.records.labels)
        self._drop_unused_items()
        remap, vocab = self.items.final_order()
        n_items = max(len(vocab), 1)
        total = self._n
        # The row number goes below the pair in the key when it fits (it does unless records x items x rows
        # nears 2**62); without it the duplicate warning cannot name lines.
        shift = max(total.bit_length(), 1)
        if (max(n_records, 1) * n_items) << shift >= 2**62:
            shift = 0
        raw, key = self._raw, self._buffer[:total]
        self._raw = self._buffer = np.empty(0, dtype=np.int64)
        for s in range(0, total, _BUILD_SLICE):
            part = key[s:s + _BUILD_SLICE]
            item = remap[part & _LOW32]
            part >>= 32
            part *= n_items
            part += item
            if shift:
                part <<= shift
                part += np.arange(s, s + len(part), dtype=np.int64)
            del part, item
        starts = self._starts
        key.sort()  # in place: no second copy of the pairs
        removed = self._find_repeats(key, shift, n_items, starts)  # sorted positions of repeats, or None
        bounds = np.arange(n_records + 1, dtype=np.int64)
        bounds *= n_items
        if shift:
            bounds <<= shift
        indptr = np.searchsorted(key, bounds).astype(np.int64, copy=False)
        del bounds
        if removed is not None:
            indptr -= np.searchsorted(removed, indptr)
        n_kept = total - (len(removed) if removed is not None else 0)
        # The indices go into the front of the key's own memory: the write (4 bytes a pair, at most as many
        # pairs as read so far) never reaches keys not yet read, and each slice is copied before it is written.
        out, pair = 0, None
        for s in range(0, total, _BUILD_SLICE):
            stop = min(s + _BUILD_SLICE, total)
            pair = key[s:stop] >> shift
            if removed is not None:
                lo, hi = np.searchsorted(removed, (s, stop))
                if hi > lo:
                    kept = np.ones(len(pair), dtype=bool)
                    kept[removed[lo:hi] - s] = False
                    pair = pair[kept]
            np.remainder(pair, n_items, out=pair)
            raw[out:out + len(pair)] = pair
            out += len(pair)
        del key, removed, pair
        raw.resize(n_kept, refcheck=False)  # no view of raw is left: shrink it in place to the indices
        indices = raw
        empty = int(np.count_nonzero(np.diff(indptr) == 0))
        if empty:
            self.report.warn(f"{empty:,} empty record{'s' if empty != 1 else ''}")
        if isinstance(self.records, IntCoder):
            self.report.record_ids = IntLabels(self.records.values())
        else:
            self.report.record_ids = list(self.records.labels)
        self._lines.clear()
        label = name or (self.path.name if self.path is not None else "dataset")
        return TransactionData(indptr, indices, vocab, name=label, source=self.path)

    def _find_repeats(self, key: np.ndarray, shift: int, n_items: int, starts: list[int]) -> np.ndarray | None:
        """The sorted positions of repeated pairs in the sorted keys (None: no repeat), warning about them and
        naming their first lines."""
        positions: list[np.ndarray] = []
        dups = _Duplicates(self._line_word)
        first_rows: list[np.ndarray] = []
        previous = None
        row_mask = (np.int64(1) << shift) - 1
        for s in range(0, len(key), _BUILD_SLICE):
            part = key[s:s + _BUILD_SLICE]
            pair = part >> shift
            repeat = np.empty(len(pair), dtype=bool)
            repeat[0] = previous is not None and pair[0] == previous
            np.equal(pair[1:], pair[:-1], out=repeat[1:])
            previous = pair[-1]
            if not repeat.any():
                continue
            at = np.flatnonzero(repeat)
            positions.append(at + s)
            dups.records.append(np.unique(pair[at] // n_items))
            dups.repeats += len(at)
            if shift:
                # Equal pairs sort by row: the first is the original, the later rows repeat it.
                first_rows.append(np.sort(part[at] & row_mask)[:SHOWN_LINES + 1])
        if not positions:
            return None
        if shift and all(lines is not None for lines in self._lines):
            rows = np.unique(np.concatenate(first_rows))[:SHOWN_LINES + 1]
            chunk = np.searchsorted(np.asarray(starts), rows, side="right") - 1
            lines = [int(_lines_of(self._lines[c], np.asarray([r - starts[c]]))[0])
                     for r, c in zip(rows.tolist(), chunk.tolist())]
            dups.lines = sorted(set(lines))[:SHOWN_LINES + 1]
        else:
            dups.lines_known = False
        dups.warn(self.report)
        return np.concatenate(positions)

    def _drop_unused_items(self) -> None:
        """Forget item labels that only stood for "no item" (empty, skipped): they are not items."""
        n = self.items.n if isinstance(self.items, IntCoder) else len(self.items.labels)
        used = np.zeros(n, dtype=bool)
        for s in range(0, self._n, _BUILD_SLICE):
            used[self._buffer[s:min(s + _BUILD_SLICE, self._n)] & _LOW32] = True
        if used.all():
            return
        if isinstance(self.items, IntCoder):
            self.items = self.items.label_coder()
        new_code = np.cumsum(used, dtype=np.int64) - 1
        for s in range(0, self._n, _BUILD_SLICE):
            packed = self._buffer[s:min(s + _BUILD_SLICE, self._n)]
            low = packed & _LOW32
            packed >>= 32
            packed <<= 32
            packed |= new_code[low]
        labels = [label for label, u in zip(self.items.labels, used) if u]
        self.items.labels = labels
        self.items.index = {label: i for i, label in enumerate(labels)}
