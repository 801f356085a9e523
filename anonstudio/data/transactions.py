"""Set-valued data: one set of items per person, stored as CSR arrays.

numpy is imported by the methods that need it, not by the module: the method specs name
:class:`TransactionData` as the kind of data they take, and every ``anonstudio-cli --help`` imports the specs.
"""
from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

__all__ = ["TransactionData", "DatasetSummary"]


@dataclass(frozen=True)
class DatasetSummary:
    """Headline numbers of a transaction dataset, as shown in the datasets dock."""

    name: str
    records: int
    items: int
    occurrences: int
    mean_length: float
    max_length: int
    min_length: int
    empty_records: int
    has_coordinates: bool

    def lines(self) -> list[str]:
        """Human-readable ``label: value`` lines (CLI ``info`` and the dock)."""
        out = [
            f"dataset: {self.name}",
            f"records: {self.records:,}",
            f"distinct items: {self.items:,}",
            f"item occurrences: {self.occurrences:,}",
            f"record length: mean {self.mean_length:.2f}, min {self.min_length}, max {self.max_length}",
        ]
        if self.empty_records:
            out.append(f"empty records: {self.empty_records:,}")
        out.append(f"item coordinates: {'yes' if self.has_coordinates else 'no'}")
        return out


@dataclass(frozen=True, eq=False)
class TransactionData:
    """Records as sorted, duplicate-free item-id lists in CSR form.

    Parameters
    ----------
    indptr
        int64, length ``n_records + 1``; record ``u`` is
        ``indices[indptr[u]:indptr[u + 1]]``.
    indices
        int32 item ids, sorted and unique within each record.
    vocab
        Item labels; item id ``i`` is ``vocab[i]``.
    coords
        Optional ``(n_items, 2)`` float64 item positions in metres (x, y).
    name
        Display name (usually the file name).
    source
        The file it was loaded from, if any.
    """

    indptr: np.ndarray
    indices: np.ndarray
    vocab: tuple[str, ...]
    coords: np.ndarray | None = None
    name: str = "dataset"
    source: Path | None = None
    _cache: dict = field(default_factory=dict, repr=False, compare=False)
    # Guards derived(): building one dataset's index never waits for another's.
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)

    def __post_init__(self) -> None:
        import numpy as np

        indptr = np.ascontiguousarray(self.indptr, dtype=np.int64)
        indices = np.ascontiguousarray(self.indices, dtype=np.int32)
        object.__setattr__(self, "indptr", indptr)
        object.__setattr__(self, "indices", indices)
        object.__setattr__(self, "vocab", tuple(str(v) for v in self.vocab))
        if indptr.ndim != 1 or len(indptr) < 1 or indptr[0] != 0 or indptr[-1] != len(indices):
            raise ValueError("indptr must start at 0 and end at len(indices)")
        if np.any(np.diff(indptr) < 0):
            raise ValueError("indptr must be non-decreasing")
        if len(indices) and (indices.min() < 0 or indices.max() >= len(self.vocab)):
            raise ValueError("item ids must index the vocabulary")
        if self.coords is not None:
            coords = np.ascontiguousarray(self.coords, dtype=np.float64)
            if coords.shape != (len(self.vocab), 2):
                raise ValueError(f"coords must have shape ({len(self.vocab)}, 2), got {coords.shape}")
            object.__setattr__(self, "coords", coords)
        indptr.setflags(write=False)
        indices.setflags(write=False)

    def __getstate__(self) -> dict:
        # Pickled (result cache, Dask workers) without the lock and the derived
        # indexes: the receiver rebuilds what it needs.
        state = {k: v for k, v in self.__dict__.items() if k not in ("_cache", "_lock")}
        return state

    def __setstate__(self, state: dict) -> None:
        for key, value in state.items():
            object.__setattr__(self, key, value)
        self.indptr.setflags(write=False)
        self.indices.setflags(write=False)
        object.__setattr__(self, "_cache", {})
        object.__setattr__(self, "_lock", threading.RLock())

    # ------------------------------------------------------------------ build
    @classmethod
    def from_records(
        cls,
        records: Iterable[Iterable[str | int]],
        *,
        vocab: Sequence[str] | None = None,
        name: str = "dataset",
        source: Path | None = None,
        coords: np.ndarray | None = None,
    ) -> TransactionData:
        """Build from label sets; duplicates inside a record are dropped.

        Item ids follow ``vocab`` if given, else the labels sorted numerically
        when they are all integers and alphabetically otherwise.
        """
        import numpy as np

        label_sets = [{str(x) for x in rec} for rec in records]
        if vocab is None:
            vocab = sort_labels(set().union(*label_sets) if label_sets else set())
        index = {label: i for i, label in enumerate(vocab)}
        lengths = np.fromiter((len(s) for s in label_sets), dtype=np.int64, count=len(label_sets))
        indptr = np.zeros(len(label_sets) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        indices = np.empty(int(indptr[-1]), dtype=np.int32)
        for u, s in enumerate(label_sets):
            ids = sorted(index[label] for label in s)
            indices[indptr[u] : indptr[u + 1]] = ids
        return cls(indptr, indices, tuple(vocab), coords=coords, name=name, source=source)

    @classmethod
    def from_id_lists(
        cls, records: Sequence[Sequence[int]], n_items: int | None = None, **kwargs
    ) -> TransactionData:
        """Build from integer item ids (labels become ``"0", "1", ...``)."""
        import numpy as np

        cleaned = [np.unique(np.asarray(r, dtype=np.int64)) for r in records]
        if n_items is None:
            n_items = int(max((r.max() + 1 for r in cleaned if len(r)), default=0))
        indptr = np.zeros(len(cleaned) + 1, dtype=np.int64)
        np.cumsum([len(r) for r in cleaned], out=indptr[1:])
        indices = np.concatenate(cleaned).astype(np.int32) if cleaned else np.zeros(0, np.int32)
        vocab = kwargs.pop("vocab", None) or tuple(str(i) for i in range(n_items))
        return cls(indptr, indices, vocab, **kwargs)

    # -------------------------------------------------------------- accessors
    @property
    def n_records(self) -> int:
        return len(self.indptr) - 1

    @property
    def n_items(self) -> int:
        return len(self.vocab)

    @property
    def lengths(self) -> np.ndarray:
        """Items per record (int64)."""
        if "lengths" not in self._cache:
            import numpy as np

            self._cache["lengths"] = np.diff(self.indptr)
        return self._cache["lengths"]

    @property
    def item_frequencies(self) -> np.ndarray:
        """Number of records containing each item (int64, length n_items)."""
        if "freq" not in self._cache:
            import numpy as np

            self._cache["freq"] = np.bincount(self.indices, minlength=self.n_items).astype(np.int64)
        return self._cache["freq"]

    def derived(self, key, build):
        """A value computed from the data once, on first use, and kept with it.

        For indexes that several methods or threads reuse (record bitsets, say):
        a lock makes concurrent first uses build it once.
        """
        with self._lock:
            if key not in self._cache:
                self._cache[key] = build()
            return self._cache[key]

    def record(self, u: int) -> np.ndarray:
        """Item ids of record ``u`` (a read-only view)."""
        return self.indices[self.indptr[u] : self.indptr[u + 1]]

    def record_labels(self, u: int) -> list[str]:
        return [self.vocab[i] for i in self.record(u)]

    def inverted(self) -> tuple[np.ndarray, np.ndarray]:
        """Posting lists: ``(post_indptr int64, post_records int32)``.

        Records of item ``i`` are ``post_records[post_indptr[i]:post_indptr[i+1]]``,
        sorted ascending. Built once, on first use.
        """
        if "inverted" not in self._cache:
            import numpy as np

            freq = self.item_frequencies
            post_indptr = np.zeros(self.n_items + 1, dtype=np.int64)
            np.cumsum(freq, out=post_indptr[1:])
            record_of = np.repeat(np.arange(self.n_records, dtype=np.int32), self.lengths)
            # A stable sort by item keeps each posting list in record order.
            order = np.argsort(self.indices, kind="stable")
            post_records = np.ascontiguousarray(record_of[order])
            post_indptr.setflags(write=False)
            post_records.setflags(write=False)
            self._cache["inverted"] = (post_indptr, post_records)
        return self._cache["inverted"]

    def with_coords(self, coords: np.ndarray) -> TransactionData:
        """A copy carrying item coordinates (metres)."""
        return TransactionData(self.indptr, self.indices, self.vocab, coords=coords, name=self.name, source=self.source)

    def subset(self, rows: np.ndarray) -> TransactionData:
        """A dataset with only the given records, same vocabulary."""
        import numpy as np

        rows = np.asarray(rows, dtype=np.int64)
        lengths = self.lengths[rows]
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        parts = [self.record(int(u)) for u in rows]
        indices = np.concatenate(parts) if parts else np.zeros(0, np.int32)
        return TransactionData(indptr, indices, self.vocab, coords=self.coords, name=self.name, source=self.source)

    def to_frame(self, form: str = "long") -> Any:
        """The records as a pandas DataFrame.

        ``form="long"``: one row per (record, item), columns ``record`` (numbered from 1) and ``item``
        (its label), in record order and item-id order within a record (the csv-long layout; a record
        without items has no row). ``form="sets"``: one row per record, columns ``record`` and
        ``items`` (a tuple of labels).
        """
        import numpy as np
        import pandas as pd

        labels = np.asarray(self.vocab, dtype=object)
        if form == "long":
            records = np.repeat(np.arange(1, self.n_records + 1, dtype=np.int64), self.lengths)
            return pd.DataFrame({"record": records, "item": labels[self.indices] if len(self.indices) else
                                 np.zeros(0, dtype=object)})
        if form == "sets":
            items = [tuple(labels[self.record(u)].tolist()) for u in range(self.n_records)]
            return pd.DataFrame({"record": np.arange(1, self.n_records + 1, dtype=np.int64), "items": items})
        raise ValueError(f"form must be 'long' or 'sets' (got {form!r})")

    def summary(self) -> DatasetSummary:
        import numpy as np

        lengths = self.lengths
        n = self.n_records
        return DatasetSummary(
            name=self.name,
            records=n,
            items=int(np.count_nonzero(self.item_frequencies)),
            occurrences=int(len(self.indices)),
            mean_length=float(lengths.mean()) if n else 0.0,
            max_length=int(lengths.max()) if n else 0,
            min_length=int(lengths.min()) if n else 0,
            empty_records=int(np.count_nonzero(lengths == 0)),
            has_coordinates=self.coords is not None,
        )


def sort_labels(labels: Iterable[str]) -> tuple[str, ...]:
    """Labels in numeric order when all are integers, else alphabetical."""
    labels = list(labels)
    try:
        return tuple(sorted(labels, key=lambda s: (int(s), s)))
    except ValueError:
        return tuple(sorted(labels))
