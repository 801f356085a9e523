"""Reading an original and a release of any kind into the evaluator's model (:mod:`.model`).

The evaluator reads releases with its own readers, never with the code of the
method that wrote them, so that a method's bug cannot hide in a shared reader.
Files are decoded by :func:`anonstudio.data.io.text.read_text` (regular files
only, NUL-free, line ends normalised); anything the evaluator cannot make sense
of raises :class:`~anonstudio.data.errors.DataFormatError` naming the file, the
line and the reason.

Release kinds
-------------
``plain``
    One line per person of the original, in its order, each a set of the
    original's items (a subset for a suppressed release such as ρ's). FIMI-style
    lines (items separated by blanks or commas; ``#``, ``%``, ``@`` lines skipped;
    a blank line is an empty record) or a CSV with a set column (``a;b;c``).
``generalized``
    The same layout, with published items that stand for sets of original
    items: names from ``--map`` (``item,partition``, σ-k^m's partition map), nodes of
    ``--item-hierarchy`` (the leaves under them), ``{a|b}`` (the items listed) or
    an original item as it is.
``nonreciprocal``
    ``record,base,distance,threshold[,label]``: one row per person (``record`` names
    them as the original does: its record identifier, or the number from 1);
    ``base`` and ``distance`` are ``;``-joined items.
``rt``
    A table with quasi-identifier cells and the original's items column holding
    published items (as for ``generalized``), one row per person in the
    original's order (or matched by an identifier column).
``table``
    A table with quasi-identifier cells (see :mod:`.cells`) and, if published,
    the sensitive column (a value per row, or a group's multiset ``{a|a|b}``).
"""
from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..data.errors import DataFormatError
from ..data.io.text import read_text
from ..data.table import Role, RTData, Table
from ..data.transactions import TransactionData
from ..formatting import count
from ..kernels.evaluate_risk import KIND_BASE_DIST, KIND_CERTAIN, KIND_DIST
from ..kernels.evaluate_utility import world_marginals
from ..params import ParameterError
from .cells import MISSING, CellError, Domain, domain_of, value_text
from .model import Atoms, People, Published, csr, entries_to_csr, no_budget, plain_classes

__all__ = ["KINDS", "KNOWN", "SideFiles", "sniff_kind", "read_release", "NONRECIPROCAL_HEADER"]

KINDS = ("plain", "generalized", "nonreciprocal", "rt", "table")
#: What the attacker may know of a person's items: any of them, or only those that are not sensitive.
KNOWN = ("all", "non-sensitive")
NONRECIPROCAL_HEADER = ["record", "base", "distance", "threshold"]
#: Column names that hold a set of items in a CSV release.
SET_COLUMNS = ("items", "item", "set", "codes", "diagnoses", "basket", "products", "places", "partitions")
#: Names of columns that number or name records.
RECORD_COLUMNS = ("record", "person", "id", "user", "row", "tid", "transaction")
_META = ("#", "%", "@")
#: Share of an original column's values that must hold ';' for it to be taken as a set of items.
_ITEMS_SHARE = 0.05


@dataclass
class SideFiles:
    """What comes with a release besides its file."""

    map: Path | None = None
    item_hierarchy: Path | None = None
    hierarchies: dict[str, Path] = field(default_factory=dict)
    sensitive: Path | None = None
    sensitive_column: str | None = None
    qi: list[str] | None = None
    items_column: str | None = None
    known: str = "all"

    def files(self) -> dict[str, Path]:
        out = {}
        for key in ("map", "item_hierarchy", "sensitive"):
            if getattr(self, key) is not None:
                out[key] = Path(getattr(self, key))
        for column, path in self.hierarchies.items():
            out[f"hierarchy:{column}"] = Path(path)
        return out


# --------------------------------------------------------------------------- text
def _lines(path: Path) -> list[str]:
    text = read_text(path, allow_empty=True)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _csv_rows(path: Path, delimiter: str = ",") -> list[tuple[int, list[str]]]:
    """(line, fields) of every non-blank row; a one-line error for a row CSV cannot parse."""
    text = read_text(path)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows = []
    try:
        for row in reader:
            if not any(f.strip() for f in row):
                continue
            rows.append((reader.line_num, row))
    except csv.Error as exc:
        raise DataFormatError(path, f"cannot be read as CSV ({exc})", reader.line_num) from None
    return rows


def _header_and_rows(path: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    rows = _csv_rows(path)
    if not rows:
        raise DataFormatError(path, "the file is empty")
    header = [h.strip() for h in rows[0][1]]
    dupes = [h for h, c in Counter(header).items() if c > 1]
    if dupes:
        raise DataFormatError(path, f"column {dupes[0]!r} appears twice in the header", rows[0][0])
    for line, row in rows[1:]:
        if len(row) != len(header):
            raise DataFormatError(path, f"{len(row)} fields, but the header has {len(header)}", line)
    return header, rows[1:]


def _first_line(path: Path) -> str:
    for line in _lines(path)[:50]:
        if line.strip() and not line.startswith(_META):
            return line
    return ""


class _Vocabulary:
    """Item label -> id of the original (integer labels also match written as 007 or +7)."""

    def __init__(self, labels: tuple[str, ...]):
        self.labels = labels
        self.index = {label: i for i, label in enumerate(labels)}

    def get(self, token: str) -> int | None:
        i = self.index.get(token)
        if i is None and token[:1] in "-+0123456789":
            try:
                i = self.index.get(str(int(token)))
            except ValueError:
                return None
        return i


# --------------------------------------------------------------------------- sniffing
def _items_column_of(table: Table, header: list[str] | None = None) -> str | None:
    """The original column holding ``;``-joined items (and published in the release, when ``header`` is given)."""
    best, best_share = None, _ITEMS_SHARE
    for column in table.frame.columns:
        if header is not None and column not in header:
            continue
        values = table.frame[column].iloc[:2000].dropna()
        if values.dtype.kind in "iufb" or not len(values):
            continue
        share = float(values.astype(str).str.contains(";", regex=False).mean())
        if share >= best_share:
            best, best_share = str(column), share
    return best


def sniff_kind(original: Any, path: Path, side: SideFiles) -> str:
    """The kind of release ``path`` is, from its first line, the original and the side files given."""
    path = Path(path)
    first = _first_line(path)
    fields = [f.strip() for f in next(csv.reader([first]), [])] if first else []
    if isinstance(original, TransactionData):
        if fields[:4] == NONRECIPROCAL_HEADER:
            return "nonreciprocal"
        vocab = _Vocabulary(tuple(original.vocab))
        if len(fields) >= 3 and all(vocab.get(f) is None for f in fields) and path.suffix.lower() in (".csv", ".tsv"):
            raise DataFormatError(path, f"the release is a table (columns {', '.join(fields[:6])}), and the original "
                                        "was read as set-valued data: read the original as a table (--format "
                                        "csv-table)", 1)
        if side.map is not None or side.item_hierarchy is not None:
            return "generalized"
        if any("{" in line for line in _lines(path)[:2000]):
            return "generalized"
        return "plain"
    if isinstance(original, RTData):
        return "rt"
    if isinstance(original, Table):
        if fields[:4] == NONRECIPROCAL_HEADER:
            raise DataFormatError(path, "a nonreciprocal release belongs to set-valued data, and the original is a "
                                        "table", 1)
        if side.items_column is not None or _items_column_of(original, fields) is not None:
            return "rt"
        return "table"
    raise DataFormatError(path, f"cannot evaluate a release of {type(original).__name__}")


# --------------------------------------------------------------------------- sensitive items
_NOTHING_SENSITIVE = ("names no sensitive item the original holds, so the attribute disclosure would measure "
                      "nothing; give person,item rows of its items, or leave out --sensitive")


def _sensitive_items(path: Path, n: int, vocab: _Vocabulary, names: tuple[str, ...] | None,
                     groups: dict[str, list[str]] | None = None) -> tuple[np.ndarray, dict[int, set[int]], list[str]]:
    """(global sensitive items as a bool mask, person -> own extra items, notes).

    Two layouts: pairs (ρ's E file: header ``person,item``, ``*`` for everyone, people numbered from 1 or named
    by the original's record identifiers) or a list of items, one per line, sensitive for everyone (RT's list).
    Pairs headed ``record,item`` or without a header are ρ's previous form, records numbered from 0, read as ρ
    reads them (with a note), so one file means the same people to the method and to its audit.
    With an item hierarchy (``groups``: node label -> leaf labels) a node stands for every item under it.
    """
    lines = _lines(path)
    content = [(i + 1, ln) for i, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith("#")]
    glob = np.zeros(len(vocab.labels), dtype=bool)
    extra: dict[int, set[int]] = {}
    unknown = 0
    if not content:
        raise DataFormatError(path, _NOTHING_SENSITIVE)
    rows = [(line, next(csv.reader([text]))) for line, text in content]
    head = [f.strip().lower() for f in rows[0][1]]
    index = {name: u for u, name in enumerate(names)} if names is not None else None

    # ρ writes ``person,item`` (people from 1); ``record,item`` or no header is its previous form (from 0).
    headed = head in (["record", "item"], ["person", "item"])
    first = 1 if head == ["person", "item"] else 0

    def person_of(text: str, line: int) -> int | None:
        if text == "*":
            return None
        if index is not None and text in index:
            return index[text]
        if not text.isdigit():
            raise DataFormatError(path, f"record {text[:40]!r} is neither '*', a record number nor a record "
                                        "identifier of the original", line)
        number = int(text)
        if not first <= number < n + first:
            raise DataFormatError(path, f"record {number} does not exist (the original's {n:,} records are "
                                        f"numbered {first} to {n - 1 + first:,} in this file)", line)
        return number - first

    pairs = headed or all(
        len(r) == 2 and (r[0].strip() == "*" or r[0].strip().isdigit() or (index is not None and r[0].strip() in index))
        for _, r in rows)
    if pairs:
        body = rows[1:] if headed else rows
        for line, row in body:
            if len(row) != 2:
                raise DataFormatError(path, f"expected record,item, got {len(row)} fields", line)
            who = person_of(row[0].strip(), line)
            item = vocab.get(row[1].strip())
            if item is None:
                unknown += 1  # a person may protect an item no one has; it can never be inferred
                continue
            if who is None:
                glob[item] = True
            else:
                extra.setdefault(who, set()).add(item)
    else:
        for _line, text in content:
            label = text.strip()
            if len(label) >= 2 and label[0] == label[-1] == '"':
                label = label[1:-1]
            item = vocab.get(label)
            if item is None and groups is not None and label in groups:
                leaves = [vocab.get(x) for x in groups[label]]
                glob[[i for i in leaves if i is not None]] = True
                continue
            if item is None:
                unknown += 1
                continue
            glob[item] = True
    if not glob.any() and not any(extra.values()):
        # As for ρ: attribute disclosure over no sensitive item measures nothing, and would read as safe.
        raise DataFormatError(path, _NOTHING_SENSITIVE + (f" ({unknown:,} entries name items the original does "
                                                          "not hold)" if unknown else ""))
    notes = [f"{unknown:,} sensitive entries of {path.name} name items the original does not hold (ignored)"] \
        if unknown else []
    if pairs and first == 0 and any(r[0].strip() not in ("*", "record") for _, r in rows):
        notes.append(f"{path.name} numbers records from 0 (the previous form of ρ's file, header record,item or "
                     "none): read as such; write the header person,item and number people from 1")
    return glob, extra, notes


def _split_people(items_indptr: np.ndarray, items: np.ndarray, glob: np.ndarray, extra: dict[int, set[int]],
                  known: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(pool CSR, sensitive CSR): every person's learnable items and the sensitive items they hold."""
    flag = glob[items] if len(glob) else np.zeros(len(items), dtype=bool)
    for u, own in extra.items():
        lo, hi = items_indptr[u], items_indptr[u + 1]
        if hi > lo:
            flag[lo:hi] |= np.isin(items[lo:hi], np.fromiter(own, dtype=np.int64, count=len(own)))
    owner = np.repeat(np.arange(len(items_indptr) - 1, dtype=np.int64), np.diff(items_indptr))
    n = len(items_indptr) - 1

    def sub(mask):
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(owner[mask], minlength=n), out=indptr[1:])
        return indptr, np.ascontiguousarray(items[mask])

    sens_indptr, sens = sub(flag)
    pool_indptr, pool = sub(~flag) if known == "non-sensitive" else (items_indptr.astype(np.int64), items)
    return pool_indptr, np.ascontiguousarray(pool, dtype=np.int32), sens_indptr, sens.astype(np.int64)


def _set_valued_people(data: TransactionData, side: SideFiles,
                       names: tuple[str, ...] | None) -> tuple[People, list[str]]:
    vocab = _Vocabulary(tuple(data.vocab))
    indptr = np.asarray(data.indptr, dtype=np.int64)
    items = np.asarray(data.indices, dtype=np.int32)
    notes: list[str] = []
    glob, extra = np.zeros(len(vocab.labels), dtype=bool), {}
    if side.sensitive is not None:
        groups = _hierarchy_covers(Path(side.item_hierarchy)) if side.item_hierarchy is not None else None
        glob, extra, notes = _sensitive_items(Path(side.sensitive), data.n_records, vocab, names, groups)
    elif side.known == "non-sensitive":
        raise ParameterError("--known non-sensitive needs the sensitive items (--sensitive FILE)", name="known")
    pool_indptr, pool, sens_indptr, sens = _split_people(indptr, items, glob, extra, side.known)
    n = data.n_records
    people = People(
        atoms=Atoms(item_labels=vocab.labels), names=names, items_indptr=indptr, items=items,
        pool_indptr=pool_indptr, pool_items=pool, sens_indptr=sens_indptr, sens_atoms=sens,
        tuple_of=np.zeros(n, dtype=np.int64), tuple_codes=np.zeros((1, 0), dtype=np.int64),
        qi_codes=np.zeros((n, 0), dtype=np.int64), sensitive_given=side.sensitive is not None,
        sensitive_source=f"sensitive items from {Path(side.sensitive).name}" if side.sensitive is not None else "",
    )
    return people, notes


# --------------------------------------------------------------------------- published items
class _Covers:
    """Published item token -> the original items it stands for (ids), with the token's rule."""

    def __init__(self, path: Path, vocab: _Vocabulary, side: SideFiles, allow_general: bool):
        self.path, self.vocab = path, vocab
        self.named: dict[str, np.ndarray] = {}
        self.allow_general = allow_general
        self.cache: dict[str, np.ndarray] = {}
        if side.map is not None:
            self.named.update(_read_map(Path(side.map), vocab))
        if side.item_hierarchy is not None:
            for label, leaves in _hierarchy_covers(Path(side.item_hierarchy)).items():
                ids = [vocab.get(x) for x in leaves]
                self.named.setdefault(label, np.array(sorted({i for i in ids if i is not None}), dtype=np.int64))

    def __call__(self, token: str, line: int) -> np.ndarray:
        hit = self.cache.get(token)
        if hit is not None:
            return hit
        cover = self.named.get(token)
        if cover is None:
            i = self.vocab.get(token)
            if i is not None:
                cover = np.array([i], dtype=np.int64)
        if cover is None and self.allow_general and token.startswith("{") and token.endswith("}"):
            ids = {self.vocab.get(p.strip()) for p in token[1:-1].split("|") if p.strip()}
            cover = np.array(sorted(i for i in ids if i is not None), dtype=np.int64)
            if not len(cover):
                raise DataFormatError(self.path, f"the published item {token[:60]!r} stands for no item of the "
                                                 "original", line)
        if cover is None:
            hint = "" if self.allow_general else " (a generalized release needs --map or --item-hierarchy)"
            what = "a published item of the map or hierarchy, nor an item of the original" if self.named else \
                "an item of the original"
            raise DataFormatError(self.path, f"{token[:60]!r} is neither {what}{hint}" if self.named else
                                  f"{token[:60]!r} is not {what}{hint}", line)
        if not len(cover):
            raise DataFormatError(self.path, f"the published item {token[:60]!r} stands for no item of the original",
                                  line)
        self.cache[token] = cover
        return cover


def _read_map(path: Path, vocab: _Vocabulary) -> dict[str, np.ndarray]:
    """``item,partition`` rows: published item -> the original items mapped to it."""
    rows = _csv_rows(path)
    if rows and [f.strip().lower() for f in rows[0][1]] == ["item", "partition"]:
        rows = rows[1:]
    out: dict[str, list[int]] = {}
    seen: dict[int, int] = {}
    for line, row in rows:
        if len(row) != 2:
            raise DataFormatError(path, f"expected item,partition, got {len(row)} fields", line)
        item = vocab.get(row[0].strip())
        if item is None:
            raise DataFormatError(path, f"item {row[0].strip()[:40]!r} is not an item of the original", line)
        if item in seen:
            raise DataFormatError(path, f"item {row[0].strip()[:40]!r} is mapped twice (first on line {seen[item]})",
                                  line)
        seen[item] = line
        out.setdefault(row[1].strip(), []).append(item)
    if not out:
        raise DataFormatError(path, "the map is empty")
    return {label: np.array(sorted(ids), dtype=np.int64) for label, ids in out.items()}


def _hierarchy_covers(path: Path) -> dict[str, list[str]]:
    """Node label -> the leaf labels under it (labels shared by several nodes: all their leaves)."""
    from ..data.io import load_hierarchy

    h = load_hierarchy(path)
    out: dict[str, set[str]] = {}
    for node, label in enumerate(h.labels):
        out.setdefault(label, set()).update(h.labels[v] for v in h.leaves_under(node))
    return {label: sorted(leaves) for label, leaves in out.items()}


def _split_items(text: str) -> list[str]:
    """Tokens of ``a;b;{c|d}`` (``;`` inside braces does not split)."""
    if "{" not in text:
        return [t.strip() for t in text.split(";") if t.strip()]
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
        if ch == ";" and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [t.strip() for t in parts if t.strip()]


def _item_entries(records: list[tuple[int, list[str]]], covers: _Covers) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(record, item, probability) of every item a published record stands for (1/|cover| inside a
    generalized item)."""
    token_id: dict[str, int] = {}
    cover_list: list[np.ndarray] = []
    rec_of: list[int] = []
    tok_of: list[int] = []
    for j, (line, tokens) in enumerate(records):
        for token in tokens:
            t = token_id.get(token)
            if t is None:
                t = token_id[token] = len(cover_list)
                cover_list.append(covers(token, line))
            rec_of.append(j)
            tok_of.append(t)
    if not tok_of:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    cov_indptr, cov_items = csr(cover_list)
    toks = np.asarray(tok_of, dtype=np.int64)
    lengths = np.diff(cov_indptr)[toks]
    total = int(lengths.sum())
    starts = np.repeat(cov_indptr[toks] - (np.cumsum(lengths) - lengths), lengths)
    atoms = cov_items[starts + np.arange(total, dtype=np.int64)]
    return np.repeat(np.asarray(rec_of, dtype=np.int64), lengths), atoms, 1.0 / np.repeat(lengths, lengths)


# --------------------------------------------------------------------------- set-valued files
def _set_records(path: Path, spaced_labels: bool = False) -> list[tuple[int, list[str]]]:
    """(line, tokens) per record of a subset-per-line file, in file order (see the module docstring).

    ``spaced_labels``: the original's item labels hold blanks (``1 Jogging``), so blanks cannot separate items.
    """
    lines = _lines(path)
    data_lines = [(i + 1, ln) for i, ln in enumerate(lines) if not ln.startswith(_META)]
    sets_layout = (spaced_labels or path.suffix.lower() in (".csv", ".tsv")
                   or any(";" in ln for _, ln in data_lines[:200]))
    if not sets_layout:
        return [(number, ln.replace(",", " ").split()) for number, ln in data_lines]
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    rows = []
    reader = csv.reader([ln for _, ln in data_lines], delimiter=delimiter)
    try:
        rows = [(number, row) for (number, _), row in zip(data_lines, reader)]
    except csv.Error as exc:
        raise DataFormatError(path, f"cannot be read as CSV ({exc})", None) from None
    if not rows:
        return []
    first = [f.strip().lower() for f in rows[0][1]]
    width = len(rows[0][1])
    header = any(f in SET_COLUMNS or f in RECORD_COLUMNS for f in first)
    column = width - 1
    if header:
        named = [i for i, f in enumerate(first) if f in SET_COLUMNS]
        column = named[0] if named else width - 1
        rows = rows[1:]
    elif width > 1:
        with_sep = [sum(";" in r[i] for _, r in rows[:200] if i < len(r)) for i in range(width)]
        column = int(np.argmax(with_sep))
    out = []
    for number, row in rows:
        if not row or (len(row) == 1 and not row[0].strip()):
            out.append((number, []))  # a blank line is an empty record
            continue
        if len(row) != width:
            raise DataFormatError(path, f"{len(row)} fields, but the first row has {width}", number)
        out.append((number, _split_items(row[column])))
    return out


def _check_count(path: Path, records: list, n: int, what: str = "records") -> None:
    if len(records) != n:
        line = records[n][0] if len(records) > n else None
        raise DataFormatError(path, f"the release has {len(records):,} {what} but the original has {n:,} people: a "
                                    "release must keep one record per person, in the original's order", line)


def _read_set_valued(data: TransactionData, path: Path, side: SideFiles, kind: str,
                     names: tuple[str, ...] | None) -> tuple[People, Published]:
    people, notes = _set_valued_people(data, side, names)
    records = _set_records(path, spaced_labels=any(" " in label for label in data.vocab))
    _check_count(path, records, data.n_records)
    vocab = _Vocabulary(tuple(data.vocab))
    covers = _Covers(path, vocab, side, allow_general=kind == "generalized")
    rec, atom, prob = _item_entries(records, covers)
    n = len(records)
    a_indptr, a_atoms, a_kind, a_prob = entries_to_csr(n, rec, atom, prob)
    published = Published(kind=kind, n_records=n, own=np.arange(n, dtype=np.int64), a_indptr=a_indptr,
                          a_atoms=a_atoms, a_kind=a_kind, a_prob=a_prob, budget=no_budget(n),
                          notes=notes, files=side.files(), **plain_classes(n))
    return people, published


def _read_nonreciprocal(data: TransactionData, path: Path, side: SideFiles,
                        names: tuple[str, ...] | None) -> tuple[People, Published]:
    people, notes = _set_valued_people(data, side, names)
    header, rows = _header_and_rows(path)
    if header[:4] != NONRECIPROCAL_HEADER or len(header) > 5 or (len(header) == 5 and header[4] != "label"):
        raise DataFormatError(path, "the header must be record,base,distance,threshold[,label]", 1)
    n = data.n_records
    index = {name: u for u, name in enumerate(names)} if names is not None else {str(u + 1): u for u in range(n)}
    vocab = _Vocabulary(tuple(data.vocab))
    slot_line = np.zeros(n, dtype=np.int64)
    threshold = np.full(n, -1, dtype=np.int64)
    recs, atoms, kinds = [], [], []
    n_dist = np.zeros(n, dtype=np.int64)
    labels = 0

    def items_of(text: str, line: int) -> set[int]:
        out = set()
        for token in text.split(";"):
            token = token.strip()
            if not token:
                continue
            i = vocab.get(token)
            if i is None:
                raise DataFormatError(path, f"item {token[:40]!r} is not an item of the original", line)
            out.add(i)
        return out

    for line, row in rows:
        name = row[0].strip()
        j = index.get(name)
        if j is None:
            raise DataFormatError(path, f"record {name[:40]!r} is not a record of the original (records are "
                                        f"named {'by its identifiers' if names is not None else 'from 1'})", line)
        if slot_line[j]:
            raise DataFormatError(path, f"record {name[:40]} appears twice (first on line {slot_line[j]})", line)
        slot_line[j] = line
        base, dist = items_of(row[1], line), items_of(row[2], line)
        text = row[3].strip()
        if not text.isdigit():
            raise DataFormatError(path, f"threshold {text[:40]!r} is not a whole number", line)
        threshold[j] = int(text)
        n_dist[j] = len(dist)
        for i in base:
            recs.append(j)
            atoms.append(i)
            kinds.append(KIND_BASE_DIST if i in dist else KIND_CERTAIN)
        for i in dist - base:
            recs.append(j)
            atoms.append(i)
            kinds.append(KIND_DIST)
        if len(row) == 5 and row[4].strip():
            labels += 1
    missing = np.flatnonzero(slot_line == 0)
    if len(missing):
        raise DataFormatError(path, f"{count(len(missing), 'person')} of the original "
                                    f"{'has' if len(missing) == 1 else 'have'} no published row (the first: "
                                    f"record {people.name(int(missing[0]))})")
    a_indptr, a_atoms, a_kind, _ = entries_to_csr(n, np.asarray(recs, dtype=np.int64), np.asarray(atoms, np.int64),
                                                  np.ones(len(recs)), np.asarray(kinds, dtype=np.int8))
    a_prob = np.zeros(len(a_atoms))
    log_z = np.zeros(n)
    world_marginals(a_indptr, a_kind, n_dist, threshold, a_prob, log_z)
    if labels:
        notes.append("the release publishes labels; they are not measured (the original's labels are not an input)")
    published = Published(kind="nonreciprocal", n_records=n, own=np.arange(n, dtype=np.int64), a_indptr=a_indptr,
                          a_atoms=a_atoms, a_kind=a_kind, a_prob=a_prob, budget=threshold.copy(), worlds=True,
                          n_dist=n_dist, threshold=threshold, log_z=log_z, notes=notes, files=side.files(),
                          **plain_classes(n))
    return people, published


# --------------------------------------------------------------------------- tables
def _column_domain(table: Table, column: str, side: SideFiles) -> Domain:
    series = table.frame[column]
    numeric = series.dtype.kind in "iuf"
    hierarchy = _hierarchy_covers(Path(side.hierarchies[column])) if column in side.hierarchies else None
    return domain_of(column, series.tolist(), numeric, hierarchy)


def _align_rows(path: Path, table: Table, header: list[str], rows: list) -> tuple[np.ndarray, str | None]:
    """Person of every release row: by an identifier column the release keeps, else by order."""
    n = table.n_rows
    ids = [c for c in header if c in table.frame.columns and table.role(c) is Role.IDENTIFIER]
    if not ids:
        if len(rows) < n:
            # Anonymizers publish complete rows only: rows with a missing value in a published column are left
            # out, and the release follows the others in order.
            shared = [c for c in header if c in table.frame.columns]
            complete = np.flatnonzero(table.frame[shared].notna().all(axis=1).to_numpy())
            if len(complete) == len(rows):
                return complete.astype(np.int64), None
        _check_count(path, rows, n, "rows")
        return np.arange(n, dtype=np.int64), None
    column = ids[0]
    keys = [value_text(v) for v in table.frame[column].tolist()]
    index: dict[str, int] = {}
    for u, key in enumerate(keys):
        if key in index:
            raise DataFormatError(path, f"the original's identifier {key!r} ({column}) names two rows "
                                        f"({index[key] + 1} and {u + 1}), so release rows cannot be matched by it")
        index[key] = u
    at = header.index(column)
    person = np.empty(len(rows), dtype=np.int64)
    seen: dict[int, int] = {}
    for r, (line, row) in enumerate(rows):
        key = row[at].strip()
        u = index.get(key)
        if u is None:
            raise DataFormatError(path, f"{column} {key[:40]!r} names no row of the original", line)
        if u in seen:
            raise DataFormatError(path, f"{column} {key[:40]!r} appears twice (first on line {seen[u]})", line)
        seen[u] = line
        person[r] = u
    if len(rows) != n:
        first = next(u for u in range(n) if u not in seen)
        raise DataFormatError(path, f"row {first + 1} of the original ({column} {keys[first]!r}) has no release row")
    return person, column


def _read_table_like(original: Table | RTData, path: Path, side: SideFiles, kind: str) -> tuple[People, Published]:
    from ..data.io.rt import rt_from_table

    header, rows = _header_and_rows(path)
    path = Path(path)
    notes: list[str] = []
    transactions: TransactionData | None = None
    if isinstance(original, RTData):
        table, transactions = original.table, original.transactions
        items_column = side.items_column or _items_column_of(table, header) or next(
            (c for c in header if c in SET_COLUMNS), None)
        if items_column is None or items_column not in header:
            raise DataFormatError(path, "no column of the release holds the published items (name it with "
                                        "--items-column)", 1)
    else:
        table = original
        items_column = None
        if kind == "rt":
            items_column = side.items_column or _items_column_of(table, header)
            if items_column is None:
                raise DataFormatError(path, "no column holds the original's items (name it with --items-column)", 1)
            if items_column not in table.frame.columns:
                raise DataFormatError(path, f"--items-column {items_column!r} is not a column of the original", None)
            if items_column not in header:
                raise DataFormatError(path, f"the release has no column {items_column!r} (the original's items)", 1)
            rt = rt_from_table(table, items_column)
            table, transactions = rt.table, rt.transactions
    for column in side.hierarchies:
        if column not in table.frame.columns:
            raise DataFormatError(Path(side.hierarchies[column]), f"--hierarchy names {column!r}, which is not a "
                                                                    "column of the original")
    person_of_row, id_column = _align_rows(path, table, header, rows)
    # The sensitive column: named, or the one the original marks (an items column never is one here).
    sensitive = side.sensitive_column
    if sensitive is None:
        marked = [c for c in table.sensitive if c != items_column]
        sensitive = marked[0] if len(marked) == 1 else None
    elif sensitive not in table.frame.columns:
        raise DataFormatError(path, f"--sensitive-column {sensitive!r} is not a column of the original", None)
    skip = {items_column, sensitive, id_column}
    if side.qi:
        qi = list(side.qi)
        for c in qi:
            if c not in table.frame.columns:
                raise DataFormatError(path, f"--qi names {c!r}, which is not a column of the original", None)
            if c not in header:
                raise DataFormatError(path, f"--qi names {c!r}, which the release does not publish", 1)
    else:
        qi = [c for c in table.quasi_identifiers if c in header and c not in skip]
        if not qi:
            qi = [c for c in header if c in table.frame.columns and c not in skip
                  and table.role(c) not in (Role.IDENTIFIER, Role.SENSITIVE, Role.INSENSITIVE)]
    if not qi and transactions is None:
        raise DataFormatError(path, "the release shares no quasi-identifier column with the original", 1)
    domains = tuple(_column_domain(table, c, side) for c in qi)
    sens_domain = _column_domain(table, sensitive, side) if sensitive is not None else None
    vocab_labels = tuple(transactions.vocab) if transactions is not None else ()
    atoms = Atoms(item_labels=vocab_labels, sensitive_column=sensitive, sensitive_domain=sens_domain, qi=tuple(qi),
                  qi_domains=domains)
    n = table.n_rows
    at = {c: i for i, c in enumerate(header)}

    # People: their quasi-identifier tuples, items and sensitive values.
    qi_codes = np.zeros((n, len(qi)), dtype=np.int64)
    for q, c in enumerate(qi):
        qi_codes[:, q] = [domains[q].code(value_text(v)) for v in table.frame[c].tolist()]
    if len(qi):
        tuple_codes, tuple_of = np.unique(qi_codes, axis=0, return_inverse=True)
        tuple_of = tuple_of.reshape(-1)
    else:
        tuple_codes, tuple_of = np.zeros((1, 0), dtype=np.int64), np.zeros(n, dtype=np.int64)
    sens_codes = None
    names = None
    if transactions is not None:
        sub_side = SideFiles(sensitive=side.sensitive, known=side.known, item_hierarchy=side.item_hierarchy)
        base, notes = _set_valued_people(transactions, sub_side, names)
        items_indptr, items = base.items_indptr, base.items
        pool_indptr, pool = base.pool_indptr, base.pool_items
        sens_indptr, sens_atoms = base.sens_indptr, base.sens_atoms
        given, source = base.sensitive_given, base.sensitive_source
    else:
        items_indptr, items = np.zeros(n + 1, np.int64), np.zeros(0, np.int32)
        pool_indptr, pool = np.zeros(n + 1, np.int64), np.zeros(0, np.int32)
        sens_indptr, sens_atoms = np.zeros(n + 1, np.int64), np.zeros(0, np.int64)
        given, source = False, ""
    if sens_domain is not None:
        sens_codes = np.array([sens_domain.code(value_text(v)) for v in table.frame[sensitive].tolist()], np.int64)
        # A missing sensitive value is nothing to disclose.
        known_value = sens_codes != sens_domain.code(MISSING)
        sens_indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(known_value, out=sens_indptr[1:])
        sens_atoms = atoms.sensitive_base + sens_codes[known_value]
        given, source = True, f"the sensitive column {sensitive!r}"
        if sensitive not in header:
            notes.append(f"the release does not publish the sensitive column {sensitive!r}: nobody can infer it from "
                         "the release")
    people = People(atoms=atoms, names=None, items_indptr=items_indptr, items=items, pool_indptr=pool_indptr,
                    pool_items=pool, sens_indptr=sens_indptr, sens_atoms=sens_atoms, tuple_of=tuple_of,
                    tuple_codes=np.ascontiguousarray(tuple_codes, dtype=np.int64), qi_codes=qi_codes,
                    sens_codes=sens_codes, sensitive_given=given, sensitive_source=source)

    # Published records: classes of quasi-identifier cells, record atoms (items, sensitive values).
    n_rec = len(rows)
    own = np.full(n, -1, dtype=np.int64)
    own[person_of_row] = np.arange(n_rec, dtype=np.int64)
    if qi:
        keys = ["\x1f".join(row[at[c]].strip() for c in qi) for _, row in rows]
        uniq, first, rec_class = np.unique(np.asarray(keys, dtype=object).astype(str), return_index=True,
                                           return_inverse=True)
        rec_class = rec_class.reshape(-1).astype(np.int64)
    else:
        first, rec_class = np.zeros(1, dtype=np.int64), np.zeros(n_rec, dtype=np.int64)
    n_classes = len(first)
    class_size = np.bincount(rec_class, minlength=n_classes).astype(np.int64)
    offsets = atoms.qi_offsets
    words = max(1, (n_classes + 63) // 64)
    colbits = np.zeros((atoms.n_qi_atoms, words), dtype=np.uint64)
    qi_prob = np.zeros((n_classes, atoms.n_qi_atoms), dtype=np.float64)
    for c_id, r in enumerate(first.tolist()):
        line, row = rows[r]
        for q, c in enumerate(qi):
            try:
                mask, shares = domains[q].read(row[at[c]])
            except CellError as exc:
                raise DataFormatError(path, f"column {c!r}: {exc}", line) from None
            hits = np.flatnonzero(mask)
            colbits[offsets[q] + hits, c_id >> 6] |= np.uint64(1 << (c_id & 63))
            qi_prob[c_id, offsets[q]:offsets[q + 1]] = shares if shares is not None else mask / len(hits)
    recs, atom_ids, probs = [], [], []
    if transactions is not None:
        vocab = _Vocabulary(vocab_labels)
        covers = _Covers(path, vocab, side, allow_general=True)
        item_records = [(line, _split_items(row[at[items_column]])) for line, row in rows]
        r_, a_, p_ = _item_entries(item_records, covers)
        recs.append(r_)
        atom_ids.append(a_)
        probs.append(p_)
    if sens_domain is not None and sensitive in header:
        cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        r_list, a_list, p_list = [], [], []
        for j, (line, row) in enumerate(rows):
            text = row[at[sensitive]].strip()
            hit = cache.get(text)
            if hit is None:
                try:
                    mask, shares = sens_domain.read(text)
                except CellError as exc:
                    raise DataFormatError(path, f"column {sensitive!r}: {exc}", line) from None
                codes = np.flatnonzero(mask)
                weights = shares[codes] if shares is not None else np.full(len(codes), 1 / len(codes))
                hit = cache[text] = (codes, weights)
            r_list.append(np.full(len(hit[0]), j, dtype=np.int64))
            a_list.append(atoms.sensitive_base + hit[0])
            p_list.append(hit[1])
        recs.append(np.concatenate(r_list))
        atom_ids.append(np.concatenate(a_list))
        probs.append(np.concatenate(p_list))
    if recs:
        rec_all, atom_all, prob_all = np.concatenate(recs), np.concatenate(atom_ids), np.concatenate(probs)
    else:
        rec_all, atom_all, prob_all = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    a_indptr, a_atoms, a_kind, a_prob = entries_to_csr(n_rec, rec_all, atom_all, prob_all)
    if id_column is not None:
        notes.append(f"release rows matched to the original's rows by {id_column!r}")
    if n_rec < n:
        notes.append(f"{count(n - n_rec, 'person')} of the original (rows with a missing value) "
                     f"{'is' if n - n_rec == 1 else 'are'} not in the release: they count as targets whose own "
                     "record cannot be found")
    published = Published(kind=kind, n_records=n_rec, own=own, rec_class=rec_class, class_size=class_size,
                          colbits=colbits, qi_prob=qi_prob, a_indptr=a_indptr, a_atoms=a_atoms, a_kind=a_kind,
                          a_prob=a_prob, budget=no_budget(n_rec), notes=notes, files=side.files())
    return people, published


# --------------------------------------------------------------------------- entry point
def read_release(original: Any, path: str | Path, kind: str | None, side: SideFiles) -> tuple[People, Published]:
    """The original's people and the release at ``path`` in the evaluator's model.

    ``kind`` None (or ``"auto"``) sniffs it (:func:`sniff_kind`). Raises
    :class:`~anonstudio.data.errors.DataFormatError` for a file the evaluator
    cannot read or that contradicts the original.
    """
    from ..data.io import load_report

    path = Path(path)
    if side.known not in KNOWN:
        raise ValueError(f"known must be one of {KNOWN}")
    if kind in (None, "auto"):
        kind = sniff_kind(original, path, side)
    if kind not in KINDS:
        raise ValueError(f"unknown release kind {kind!r}; one of {', '.join(KINDS)}")
    if isinstance(original, TransactionData):
        if kind in ("rt", "table"):
            raise DataFormatError(path, f"a {kind} release needs a table as the original, and the original is "
                                        "set-valued data")
        ids = load_report(original).record_ids
        names = tuple(ids) if ids is not None else None
        if kind == "nonreciprocal":
            return _read_nonreciprocal(original, path, side, names)
        return _read_set_valued(original, path, side, kind, names)
    if isinstance(original, (Table, RTData)):
        if kind not in ("rt", "table"):
            raise DataFormatError(path, f"a {kind} release needs set-valued data as the original, and the original "
                                        "is a table")
        if kind == "table" and isinstance(original, RTData):
            kind = "rt"
        return _read_table_like(original, path, side, kind)
    raise DataFormatError(path, f"cannot evaluate against an original of type {type(original).__name__}")
