"""The sensitive constraint E = {E_u}: which items each person wants kept uncertain.

E is stored as one global item set plus per-record deviations (items a record
adds, global items it drops), never as an n × |I| matrix: the paper's "fixed"
setting is one set, "personalized+" is that set with 1 % noise per person.

Files (``person,item`` CSV, ``E.csv`` / ``E_USED.csv``)
-------------------------------------------------------
The header ``person,item``, then one pair per line. The person is the
record's number counted from 1 (its line of a FIMI file, comments aside), as
everywhere in anonstudio, or ``*`` for every record. The item is an item
label of the data; labels the data does not hold are allowed (a person may
protect an item they do not have, §4.1) and kept, although they can never be
inferred. Blank lines and lines starting with ``#`` are skipped. Writing puts
items that every record protects as ``*`` rows first, then the remaining
pairs in record order.

The previous release's form, records counted from 0 under the header
``record,item`` or without a header, is still read for one release, with a
deprecation notice (:attr:`SensitiveConstraint.notice`). The header alone
decides which form a file is in: every file anonstudio wrote before had
``record,item`` and records from 0, so such a file is never shifted by one.

Settings (§6.1)
---------------
With k = ⌊f·|I| + ½⌋ for the sensitive fraction f and I the items the data holds:
``fixed`` one random k-subset S for everyone; ``personalized`` an independent
random k-subset of I per record; ``personalized+`` S, each item of S kept with
probability 1 − noise and each other item added with probability noise;
``fixed+`` the union of all personalized+ sets (drawn from the same seed), for
everyone.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...data.errors import DataFormatError
from ...data.io.atomic import atomic_write
from ...data.io.text import read_text
from ...data.transactions import TransactionData
from ...jobs import derive_seed
from .params import SETTINGS

__all__ = [
    "SETTINGS", "SensitiveConstraint", "load_sensitive", "generate_sensitive", "write_sensitive",
    "sensitive_count", "HEADER", "OLD_HEADER",
]


#: Random numbers drawn per block by the generators (any block gives the same draws): about 1 MiB of
#: doubles, so drawing E for a large item set does not hold rows x items doubles at once (4,096 rows of
#: BMS-WebView-1's 497 items were 16 MB, with their comparisons 25 MB, eight times the dataset's CSR).
_BLOCK_VALUES = 2**17


def _block_rows(width: int) -> int:
    """Rows of ``width`` random numbers per block."""
    return max(1, _BLOCK_VALUES // max(width, 1))


@dataclass(frozen=True, eq=False)
class SensitiveConstraint:
    """E_u = (global \\ dropped_u) ∪ added_u for every record u.

    Attributes
    ----------
    n_records
        Records of the data E belongs to.
    labels
        Item labels: the data's vocabulary, then labels the data does not hold.
    n_data_items
        Ids below this are items of the data (the only ones that can be inferred).
    global_items
        int32 sorted ids in E_u of every record that does not drop them.
    add_indptr, add_items
        Per-record CSR of ids added to the global set (sorted, disjoint from it).
    del_indptr, del_items
        Per-record CSR of global ids the record drops (sorted).
    setting, fraction, noise, seed, source
        How E was made (``setting`` is ``"file"`` for a loaded constraint).
    notice
        A deprecation notice for a file in the previous release's form
        (records from 0), "" otherwise.
    """

    n_records: int
    labels: tuple[str, ...]
    n_data_items: int
    global_items: np.ndarray
    add_indptr: np.ndarray
    add_items: np.ndarray
    del_indptr: np.ndarray
    del_items: np.ndarray
    setting: str = "file"
    fraction: float | None = None
    noise: float | None = None
    seed: int | None = None
    source: Path | None = None
    notice: str = ""

    # ------------------------------------------------------------- build
    @classmethod
    def from_pairs(cls, n_records: int, labels: tuple[str, ...], n_data_items: int, records: np.ndarray,
                   items: np.ndarray, **meta) -> SensitiveConstraint:
        """Build from (record, item) pairs; record −1 means every record. Duplicates collapse.

        An item protected by more than half of the records goes to the global
        set (the records without it drop it), so fixed and personalized+
        constraints stay small however they were written.
        """
        records = np.asarray(records, dtype=np.int64)
        items = np.asarray(items, dtype=np.int64)
        n_labels = len(labels)
        star = items[records < 0]
        keyed = np.unique(records[records >= 0] * n_labels + items[records >= 0])
        rec = keyed // n_labels
        itm = (keyed % n_labels).astype(np.int64)
        everyone = np.zeros(n_labels, dtype=bool)
        everyone[star] = True
        # pairs already covered by a '*' row add nothing
        keep = ~everyone[itm]
        rec, itm = rec[keep], itm[keep]
        per_item = np.bincount(itm, minlength=n_labels)
        glob = everyone | (per_item * 2 > n_records)
        in_glob = glob[itm]
        add_rec, add_itm = rec[~in_glob], itm[~in_glob]
        # records holding a global (non-'*') item explicitly; the others drop it
        majority = np.flatnonzero(glob & ~everyone)
        drop_rec: list[np.ndarray] = []
        drop_itm: list[np.ndarray] = []
        for i in majority:
            holders = rec[in_glob & (itm == i)]
            mask = np.ones(n_records, dtype=bool)
            mask[holders] = False
            lacking = np.flatnonzero(mask)
            drop_rec.append(lacking)
            drop_itm.append(np.full(len(lacking), i, dtype=np.int64))
        del_rec = np.concatenate(drop_rec) if drop_rec else np.zeros(0, np.int64)
        del_itm = np.concatenate(drop_itm) if drop_itm else np.zeros(0, np.int64)
        add_indptr, add_items = _csr(n_records, add_rec, add_itm)
        del_indptr, del_items = _csr(n_records, del_rec, del_itm)
        return cls(n_records, tuple(labels), int(n_data_items), np.flatnonzero(glob).astype(np.int32),
                   add_indptr, add_items, del_indptr, del_items, **meta)

    # ---------------------------------------------------------- queries
    def items_of(self, u: int) -> np.ndarray:
        """Sorted ids of E_u (data items and foreign labels alike)."""
        drop = self.del_items[self.del_indptr[u]:self.del_indptr[u + 1]]
        base = np.setdiff1d(self.global_items, drop, assume_unique=True) if len(drop) else self.global_items
        add = self.add_items[self.add_indptr[u]:self.add_indptr[u + 1]]
        return np.union1d(base, add).astype(np.int32) if len(add) else base.astype(np.int32)

    def labels_of(self, u: int) -> list[str]:
        return [self.labels[i] for i in self.items_of(u)]

    def protects(self, users: np.ndarray, item: int) -> np.ndarray:
        """Boolean per user in ``users``: whether ``item`` is in their E_u (vectorized)."""
        users = np.asarray(users, dtype=np.int64)
        if item in set(self.global_items.tolist()):
            return ~_in_rows(self.del_indptr, self.del_items, users, item)
        return _in_rows(self.add_indptr, self.add_items, users, item)

    def sizes(self) -> np.ndarray:
        """|E_u| per record (int64)."""
        return (len(self.global_items) - np.diff(self.del_indptr) + np.diff(self.add_indptr)).astype(np.int64)

    def kernel_arrays(self) -> tuple[np.ndarray, ...]:
        """``(gmask, add_ptr, add_items, del_ptr, del_items)`` restricted to data items, for the kernels."""
        nd = self.n_data_items
        gmask = np.zeros(nd, dtype=np.uint8)
        g = self.global_items[self.global_items < nd]
        gmask[g] = 1
        add_ptr, add_items = _restrict(self.add_indptr, self.add_items, nd)
        del_ptr, del_items = _restrict(self.del_indptr, self.del_items, nd)
        return gmask, add_ptr, add_items, del_ptr, del_items

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Every (record, item) pair as two int64 arrays, record −1 for items every record protects.

        The form ``E_USED.csv`` is written in (an independent checker reads E from here).
        """
        dropped = np.zeros(len(self.labels), dtype=bool)
        dropped[self.del_items] = True
        star = self.global_items[~dropped[self.global_items]].astype(np.int64)
        partial = self.global_items[dropped[self.global_items]]
        recs = [np.full(len(star), -1, dtype=np.int64)]
        items = [star]
        if len(partial) or len(self.add_items):
            n, n_labels = self.n_records, len(self.labels)
            # Global items some record drops: everyone else holds them. A (record, partial item) table with the
            # drops struck out, where np.isin of n × |partial| keys sorted them all (0.35 s of the ρ check's
            # 1.3 s on BMS-WebView-1 personalized+).
            held = np.ones((n, len(partial)), dtype=bool)
            if len(partial) and len(self.del_items):
                column = np.full(n_labels, -1, dtype=np.int64)
                column[partial] = np.arange(len(partial))
                del_rec = np.repeat(np.arange(n, dtype=np.int64), np.diff(self.del_indptr))
                del_col = column[self.del_items]
                struck = del_col >= 0
                held[del_rec[struck], del_col[struck]] = False
            pg_rec, pg_col = np.nonzero(held)
            add_rec = np.repeat(np.arange(n, dtype=np.int64), np.diff(self.add_indptr))
            # One key per pair in (record, item) order. Both parts are sorted runs when the rows are, and a
            # stable sort (timsort) merges two runs in one pass: 0.1 s where the lexsort of two arrays took 0.3 s.
            keys = np.concatenate([pg_rec.astype(np.int64) * n_labels + partial.astype(np.int64)[pg_col],
                                   add_rec * n_labels + self.add_items.astype(np.int64)])
            keys.sort(kind="stable")
            recs.append(keys // n_labels)
            items.append(keys % n_labels)
        return np.concatenate(recs), np.concatenate(items)

    def describe(self) -> str:
        sizes = self.sizes()
        mean = float(sizes.mean()) if len(sizes) else 0.0
        what = self.setting if self.setting != "file" else f"from {self.source.name if self.source else 'a file'}"
        return f"sensitive items {what}: {mean:.1f} per person on average, {len(self.global_items)} shared"


def _in_rows(indptr: np.ndarray, items: np.ndarray, users: np.ndarray, item: int) -> np.ndarray:
    """Whether ``item`` is in row u of a CSR of sorted rows, for each u in ``users``."""
    out = np.zeros(len(users), dtype=bool)
    if not len(items):
        return out
    lo, hi = indptr[users], indptr[users + 1]
    for k, (a, b) in enumerate(zip(lo.tolist(), hi.tolist())):
        if a < b:
            j = a + int(np.searchsorted(items[a:b], item))
            out[k] = j < b and items[j] == item
    return out


def _csr(n: int, rec: np.ndarray, itm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order = np.lexsort((itm, rec))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rec, minlength=n), out=indptr[1:])
    return indptr, np.ascontiguousarray(itm[order].astype(np.int32))


def _restrict(indptr: np.ndarray, items: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    keep = items < limit
    if keep.all():
        return indptr, items
    rows = np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr))
    out = np.zeros_like(indptr)
    np.cumsum(np.bincount(rows[keep], minlength=len(indptr) - 1), out=out[1:])
    return out, np.ascontiguousarray(items[keep])


# ------------------------------------------------------------------- files
def _canonical(label: str, int_labels: bool) -> str:
    if int_labels:
        try:
            return str(int(label))
        except ValueError:
            return label
    return label


#: The header of a sensitive-items file: people numbered from 1.
HEADER = ("person", "item")
#: The previous release's header (records numbered from 0), still read with a notice.
OLD_HEADER = ("record", "item")


def load_sensitive(path: str | Path, data: TransactionData) -> SensitiveConstraint:
    """Read a ``person,item`` CSV (see the module docstring) for ``data``.

    A file in the previous release's form (header ``record,item`` or none,
    records from 0) is read as such; the constraint's ``notice`` then says so
    in one line.

    Raises
    ------
    DataFormatError
        Naming the file, the line and the reason (a person outside the data,
        a missing item, a line with more than two fields...). Nothing is
        returned for a bad file.
    """
    path = Path(path)
    text = read_text(path, allow_empty=True)
    n = data.n_records
    vocab = data.vocab
    int_labels = all(_is_int(v) for v in vocab[:1000])
    index = {label: i for i, label in enumerate(vocab)}
    extra: dict[str, int] = {}
    recs: list[int] = []
    items: list[int] = []
    reader = csv.reader(io.StringIO(text))
    first: int | None = None  # the number of the first record: 1, or 0 in the old form
    word = "person"
    for row in reader:
        line = reader.line_num
        if not row or (len(row) == 1 and not row[0].strip()) or row[0].lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in row]
        if first is None:
            header = tuple(f.lower() for f in fields)
            first = 1 if header == HEADER else 0
            if first == 0:
                word = "record"
            if header in (HEADER, OLD_HEADER):
                continue
        if len(fields) != 2:
            raise DataFormatError(path, f"expected two fields '{word},item', found {len(fields)}", line)
        rec_text, label = fields
        if not label:
            raise DataFormatError(path, "the item is empty", line)
        if rec_text == "*":
            rec = -1
        else:
            try:
                number = int(rec_text)
            except ValueError:
                raise DataFormatError(path, f"{word} {rec_text[:40]!r} is neither a record number nor '*'",
                                      line) from None
            if not first <= number < n + first:
                raise DataFormatError(path, f"{word} {number} does not exist (the data has {n:,} records, "
                                            f"numbered {first} to {n - 1 + first:,})", line)
            rec = number - first
        label = _canonical(label, int_labels)
        item = index.get(label)
        if item is None:
            item = extra.setdefault(label, len(vocab) + len(extra))
        recs.append(rec)
        items.append(item)
    if not recs:
        raise DataFormatError(path, "names no sensitive item (no person,item line): ρ would promise nothing")
    if not any(item < len(vocab) for item in items):
        shown = ", ".join(repr(label) for label in list(extra)[:3])
        raise DataFormatError(path, f"none of its {len(extra):,} items occurs in the data ({shown}"
                                    f"{', ...' if len(extra) > 3 else ''}): ρ would promise nothing about them; "
                                    "check the file belongs to this dataset")
    notice = ""
    if first == 0:
        notice = (f"{path.name} numbers records from 0 (the previous release's form, header record,item or none): "
                  "read as such for now; write the header person,item and number people from 1, as E_USED.csv "
                  "does, before the old form goes in the next release")
    labels = tuple(vocab) + tuple(extra)
    return SensitiveConstraint.from_pairs(n, labels, len(vocab), np.asarray(recs, dtype=np.int64),
                                          np.asarray(items, dtype=np.int64), setting="file", source=path,
                                          notice=notice)


def _is_int(label: str) -> bool:
    try:
        int(label)
    except ValueError:
        return False
    return True


def write_sensitive(path: str | Path, constraint: SensitiveConstraint) -> None:
    """Write ``E_USED.csv``: the ``person,item`` header, ``*`` rows, then per-person rows (from 1), atomically."""
    recs, items = constraint.pairs()
    labels = np.asarray([_csv_field(v) for v in constraint.labels], dtype=object)
    with atomic_write(path) as fh:
        fh.write(",".join(HEADER) + "\n")
        star = recs < 0
        for label in labels[items[star]]:
            fh.write(f"*,{label}\n")
        rest_rec = recs[~star] + 1
        rest_lab = labels[items[~star]]
        step = 1 << 16
        for a in range(0, len(rest_rec), step):
            fh.write("".join(f"{r},{lab}\n" for r, lab in zip(rest_rec[a:a + step].tolist(),
                                                             rest_lab[a:a + step].tolist())))


def _csv_field(value: str) -> str:
    if any(c in value for c in ',"\n\r') or value != value.strip():
        return '"' + value.replace('"', '""') + '"'
    return value


# -------------------------------------------------------------- generators
def sensitive_count(fraction: float, n_items: int) -> int:
    """k = ⌊f·|I| + ½⌋ (round half up)."""
    return int(np.floor(fraction * n_items + 0.5))


def generate_sensitive(data: TransactionData, setting: str, fraction: float, seed: int | None,
                       noise: float = 0.01) -> SensitiveConstraint:
    """Draw E for ``data`` in one of the paper's settings (see the module docstring).

    Streams: the shared set S comes from ``derive_seed(seed, "E-global")``,
    the per-record draws from ``derive_seed(seed, "E-person")``; fixed and
    personalized+ of one seed share S, and fixed+ is exactly the union of the
    personalized+ sets of the same seed.
    """
    if setting not in SETTINGS:
        raise ValueError(f"setting must be one of {', '.join(SETTINGS)} (got {setting!r})")
    n = data.n_records
    held = np.flatnonzero(data.item_frequencies > 0).astype(np.int64)
    k = sensitive_count(fraction, len(held))
    meta = dict(setting=setting, fraction=float(fraction), seed=seed,
                noise=float(noise) if setting.endswith("+") else None)
    g_rng = np.random.default_rng(derive_seed(seed, "E-global"))
    shared = np.sort(g_rng.choice(held, size=k, replace=False)) if k else np.zeros(0, np.int64)
    empty_ptr = np.zeros(n + 1, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int32)
    labels = tuple(data.vocab)
    nd = data.n_items
    if setting == "fixed":
        return SensitiveConstraint(n, labels, nd, shared.astype(np.int32), empty_ptr, empty, empty_ptr.copy(),
                                   empty, **meta)
    p_rng = np.random.default_rng(derive_seed(seed, "E-person"))
    block = _block_rows(len(held))
    if setting == "personalized":
        rows = []
        for a in range(0, n, block):
            b = min(n, a + block)
            keys = p_rng.random((b - a, len(held)))
            pick = np.argpartition(keys, k - 1, axis=1)[:, :k] if 0 < k < len(held) else (
                np.tile(np.arange(len(held)), (b - a, 1))[:, :k])
            rows.append(np.sort(held[pick], axis=1).astype(np.int32))  # int32 per block: no int64 copy of E
        chosen = np.concatenate(rows) if rows else np.zeros((0, k), np.int32)
        add_ptr = np.arange(0, (n + 1) * k, k, dtype=np.int64)
        return SensitiveConstraint(n, labels, nd, empty, add_ptr, np.ascontiguousarray(chosen.ravel()),
                                   empty_ptr, empty, **meta)
    # personalized+ / fixed+: each item of S kept w.p. 1 - noise, each other held item added w.p. noise
    in_s = np.isin(held, shared)
    threshold = np.where(in_s, 1.0 - noise, noise)
    add_r, add_i, del_r, del_i = [], [], [], []
    for a in range(0, n, block):
        b = min(n, a + block)
        hit = p_rng.random((b - a, len(held))) < threshold
        # int32 per block (records and items fit): the lists and their concatenation hold half the bytes
        r, c = np.nonzero(hit & ~in_s)
        add_r.append((r + a).astype(np.int32))
        add_i.append(held[c].astype(np.int32))
        r, c = np.nonzero(~hit & in_s)
        del_r.append((r + a).astype(np.int32))
        del_i.append(held[c].astype(np.int32))
    add_r, add_i = np.concatenate(add_r), np.concatenate(add_i)
    del_r, del_i = np.concatenate(del_r), np.concatenate(del_i)
    if setting == "fixed+":
        union = np.union1d(shared, np.unique(add_i)).astype(np.int32)
        # an item of S dropped by every record is in nobody's personalized+ set
        dropped_by_all = [i for i in shared if np.count_nonzero(del_i == i) == n]
        union = np.setdiff1d(union, np.asarray(dropped_by_all, dtype=np.int32)).astype(np.int32)
        return SensitiveConstraint(n, labels, nd, union, empty_ptr, empty, empty_ptr.copy(), empty, **meta)
    add_ptr, add_items = _csr(n, add_r, add_i)
    del_ptr, del_items = _csr(n, del_r, del_i)
    return SensitiveConstraint(n, labels, nd, shared.astype(np.int32), add_ptr, add_items, del_ptr, del_items, **meta)
