"""Independent check of a published RT table (an ANON.csv) against the original data.

Given the original people (demographics and item sets) and the published
rows (``cluster``, the demographic cells, the items cell), it checks:

1. every record is published, in input order;
2. clusters have at least ``k`` records and one generalized tuple each;
3. every demographic cell covers the person's original value (ranges
   ``[lo-hi]``, hierarchy labels, sets ``{a|b}``, ``*``);
4. the items cell covers each of the person's items and adds none:
   sensitive items appear as they are, every other item under one published
   item, and every published item stands for at least one of the person's items;
5. (k, k^m)-anonymity over the whole table: rows with equal demographic
   cells form a group; every set of at most ``m`` of a row's published
   non-sensitive items is in at least ``k`` rows of its group;
6. optionally (k, ℓ^m)-diversity: for every such set (the empty one too),
   no sensitive item is in more than ``1/ℓ`` of the rows of the group holding it;
7. Rum (NCP, weights 1/v) and Tum (UL with weight 1 for generalized items
   and 0 for items left as they are) recomputed from the cells.

It shares no code with the anonymizer: cells are parsed from their text,
coverage comes from the hierarchies' rows, itemsets are counted with
``collections.Counter``, and UL is computed with exact integers and
fractions (the anonymizer works in log space).
"""
from __future__ import annotations

import csv
import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path

from ..data.errors import DataFormatError
from ..data.hierarchy import Hierarchy
from ..data.io import load_hierarchy
from ..data.io.rt import load_item_list
from ..data.io.text import read_text
from ..data.table import RTData
from ..jobs import NullProgress, Progress

__all__ = ["RTVerification", "RTCheck", "NotPublished", "verify_published", "check_anon_csv", "read_anon_csv"]

#: How many offending rows a report lists (all are counted).
SHOWN = 20


@dataclass
class RTCheck:
    """What the published table must satisfy and how its cells are read.

    ``hierarchies`` maps columns to hierarchies (objects or files);
    ``categorical`` columns without one are value sets; other numeric
    columns are ranges. ``sensitive`` holds item labels or labels of the
    item hierarchy (standing for every item under them).
    """

    qi: Sequence[str]
    items_column: str
    k: int
    m: int
    l: int | None = None
    hierarchies: Mapping[str, Hierarchy | str | Path] = field(default_factory=dict)
    categorical: Sequence[str] = ()
    item_hierarchy: Hierarchy | str | Path | None = None
    sensitive: Iterable[str] = ()
    claimed_rum: float | None = None
    claimed_tum: float | None = None
    tolerance: float = 1e-6


@dataclass
class RTVerification:
    """Outcome of the independent check (see the module docstring for what is checked)."""

    n_records: int
    n_clusters: int
    k: int
    m: int
    l: int | None
    min_cluster_size: int
    small_clusters: int
    mixed_clusters: int
    uncovered_cells: int
    item_problems: int
    km_violations: int
    diversity_violations: int | None
    rum: float
    tum: float
    claimed_rum: float | None
    claimed_tum: float | None
    rum_matches: bool | None
    tum_matches: bool | None
    complete: bool = True
    shape_problems: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    #: Rows of the published table (counted from 1, as in ``examples``) where a check failed, the first ``SHOWN``.
    violating_rows: list[int] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """The privacy promise holds and the measures match what was reported."""
        return (not self.shape_problems and self.small_clusters == 0 and self.mixed_clusters == 0
                and self.uncovered_cells == 0 and self.item_problems == 0 and self.km_violations == 0
                and not self.diversity_violations and self.rum_matches is not False
                and self.tum_matches is not False)

    @property
    def violations(self) -> int:
        return (len(self.shape_problems) + self.small_clusters + self.mixed_clusters + self.uncovered_cells
                + self.item_problems + self.km_violations + (self.diversity_violations or 0))

    def lines(self) -> list[str]:
        """One plain-language line per check."""
        ok = {True: "ok", False: "FAILED"}
        out = [f"{ok[not self.shape_problems]}: every one of the {self.n_records:,} people is published once, in "
               "input order" + (f" ({self.shape_problems[0]})" if self.shape_problems else "")]
        out.append(f"{ok[self.small_clusters == 0]}: {self.n_clusters:,} clusters, the smallest with "
                   f"{self.min_cluster_size:,} people (k = {self.k})")
        out.append(f"{ok[self.mixed_clusters == 0]}: each cluster shows one set of demographics"
                   + (f" ({self.mixed_clusters} do not)" if self.mixed_clusters else ""))
        out.append(f"{ok[self.uncovered_cells == 0]}: every published demographic covers the true value"
                   + (f" ({self.uncovered_cells:,} cells do not)" if self.uncovered_cells else ""))
        out.append(f"{ok[self.item_problems == 0]}: every person's items are covered and none is invented"
                   + (f" ({self.item_problems:,} problems)" if self.item_problems else ""))
        out.append(f"{ok[self.km_violations == 0]}: anyone who knows a person's demographics and up to {self.m} of "
                   f"their items matches at least {self.k} people"
                   + (f" ({self.km_violations:,} people match fewer)" if self.km_violations else ""))
        if self.l is not None:
            out.append(f"{ok[not self.diversity_violations]}: no sensitive item is linked to more than 1/{self.l} "
                       "of the people an attacker can match"
                       + (f" ({self.diversity_violations:,} people exposed)" if self.diversity_violations else ""))
        out.append(f"recomputed: demographics loss (Rum) {self.rum:.6f}, items loss (Tum) {self.tum:.6f}")
        for name, claimed, match in (("Rum", self.claimed_rum, self.rum_matches),
                                     ("Tum", self.claimed_tum, self.tum_matches)):
            if claimed is not None:
                out.append(f"{ok[bool(match)]}: reported {name} {claimed:.6f} agrees with the recomputed value")
        return out

    def to_json(self) -> dict:
        return {
            "passed": self.passed, "complete": self.complete, "violations": self.violations,
            "records": self.n_records, "clusters": self.n_clusters, "k": self.k, "m": self.m, "l": self.l,
            "min_cluster_size": self.min_cluster_size, "small_clusters": self.small_clusters,
            "mixed_clusters": self.mixed_clusters, "uncovered_cells": self.uncovered_cells,
            "item_problems": self.item_problems, "km_violations": self.km_violations,
            "diversity_violations": self.diversity_violations, "rum": self.rum, "tum": self.tum,
            "rum_matches": self.rum_matches, "tum_matches": self.tum_matches,
            "shape_problems": list(self.shape_problems), "examples": list(self.examples),
            "violating_rows": list(self.violating_rows),
        }

    def summary(self) -> dict[str, float]:
        return {"passed": float(self.passed), "violations": float(self.violations), "rum_check": self.rum,
                "tum_check": self.tum}


@dataclass
class NotPublished:
    """The outcome of a run that publishes nothing (its loss bound cannot be met): there is no table to check,
    and the promise is not met."""

    reason: str
    complete: bool = True
    passed: bool = False
    details: dict = field(default_factory=dict)

    def lines(self) -> list[str]:
        return [f"FAILED: nothing can be published: {self.reason}"]

    def to_json(self) -> dict:
        return {"passed": False, "complete": True, "published": False, "reason": self.reason, **self.details}

    def summary(self) -> dict[str, float]:
        return {"passed": 0.0}


# --------------------------------------------------------------- hierarchies
def _as_hierarchy(h: Hierarchy | str | Path, name: str) -> Hierarchy:
    return h if isinstance(h, Hierarchy) else load_hierarchy(Path(h), name=name)


def _label_leaves(h: Hierarchy) -> tuple[dict[str, set[str]], int]:
    """Label -> leaf labels under it (every node carrying the label); and the number of leaves."""
    # A node's leaves are one slice of the leaves in depth-first order: one set per node, built in C, instead
    # of one insertion per label of every leaf's row (a third of the time on the INFORMS income tree).
    leaf_labels = h.leaf_labels
    under: dict[str, set[str]] = {}
    for label, (lo, hi) in zip(h.labels, h.leaf_spans.tolist()):
        if label in under:
            under[label].update(leaf_labels[lo:hi])
        else:
            under[label] = set(leaf_labels[lo:hi])
    return under, len(leaf_labels)


def _text(value) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if hasattr(value, "item"):
        return _text(value.item())
    return str(value)


# -------------------------------------------------------------------- cells
class _ColumnReader:
    """How one demographic column's published cells are read, independently of the anonymizer."""

    def __init__(self, name: str, values: list, hierarchy: Hierarchy | None, categorical: bool):
        self.name = name
        self.texts = [_text(v) for v in values]
        self.numeric = hierarchy is None and not categorical and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
        if self.numeric:
            nums = [float(v) for v in values]
            self.lo, self.hi = min(nums), max(nums)
        self.hierarchy = None
        if hierarchy is not None:
            self.hierarchy, self.n_leaves = _label_leaves(hierarchy)
        self.domain = sorted(set(self.texts))

    def covers(self, cell: str, row: int) -> bool:
        value = self.texts[row]
        if self.numeric:
            span = _parse_span(cell)
            return span is not None and span[0] <= float(value) <= span[1]
        return value in self.members(cell)

    def members(self, cell: str) -> set[str]:
        if self.hierarchy is not None:
            if cell in self.hierarchy:
                return self.hierarchy[cell]
            return set()
        if cell == "*":
            return set(self.domain)
        if cell.startswith("{") and cell.endswith("}"):
            return set(cell[1:-1].split("|"))
        return {cell}

    def loss(self, cell: str) -> float:
        """NCP of one cell (Xu et al.: a categorical cell of c of n values loses c/n, a single value nothing)."""
        if self.numeric:
            span = _parse_span(cell)
            if span is None or self.hi <= self.lo:
                return 0.0
            return (span[1] - span[0]) / (self.hi - self.lo)
        if self.hierarchy is not None:
            size = len(self.members(cell))
            return 0.0 if size <= 1 else size / self.n_leaves
        size = len(self.members(cell))
        return 0.0 if size <= 1 else size / len(self.domain)


def _parse_span(cell: str) -> tuple[float, float] | None:
    cell = cell.strip()
    try:
        if cell.startswith("[") and cell.endswith("]"):
            body = cell[1:-1]
            # the lower end may itself be negative: split at the first '-' after a digit
            for cut in range(1, len(body)):
                if body[cut] == "-" and (body[cut - 1].isdigit() or body[cut - 1] == "."):
                    return float(body[:cut]), float(body[cut + 1:])
            return None
        x = float(cell)
        return x, x
    except ValueError:
        return None


# -------------------------------------------------------------------- items
class _ItemReader:
    """What each published item stands for."""

    def __init__(self, vocab: Sequence[str], present: set[str], sensitive: set[str], hierarchy: Hierarchy | None):
        self.present = present
        self.sensitive = sensitive
        self.plain = present - sensitive
        self.under = _label_leaves(hierarchy)[0] if hierarchy is not None else {}

    def stands_for(self, token: str) -> set[str] | None:
        """Non-sensitive dataset items a published item stands for; None if it is not understood."""
        if token in self.under and not (token in self.present and len(self.under[token]) == 1):
            return self.under[token] & self.plain
        if token in self.present:
            return {token}
        if token == "*":
            return set(self.plain)
        if token.startswith("{") and token.endswith("}"):
            listed = set(token[1:-1].split("|"))
            return listed if listed <= self.present else None
        return None


def _ul(sizes: list[int]) -> Fraction:
    """UL of a record from the sizes of its published generalized items, exactly."""
    sigma = sum(sizes)
    if sigma == 0:
        return Fraction(0)
    num = sum((1 << a) - 1 for a in sizes if a >= 2)
    return Fraction(num, (1 << sigma) - 1)


def _expand_sensitive(labels: Iterable[str], hierarchy: Hierarchy | None, present: set[str]) -> set[str]:
    under = _label_leaves(hierarchy)[0] if hierarchy is not None else {}
    out = set()
    for label in labels:
        if label in present:
            out.add(label)
        out |= under.get(label, set()) & present
    return out


# -------------------------------------------------------------------- check
def verify_published(data: RTData, header: Sequence[str], rows: Sequence[Sequence[str]], check: RTCheck,
                     progress: Progress | None = None) -> RTVerification:
    """Check published rows (as read from an ANON.csv) against the original ``data``."""
    progress = progress or NullProgress()
    frame = data.table.frame
    trans = data.transactions
    n = data.table.n_rows
    shape: list[str] = []
    expected = ["cluster", *check.qi, check.items_column]
    if list(header) != expected:
        shape.append(f"the header is {', '.join(header)}; expected {', '.join(expected)}")
    if len(rows) != n:
        shape.append(f"{len(rows):,} rows for {n:,} people")
    bad_width = [r for r, row in enumerate(rows) if len(row) != len(expected)]
    if bad_width:
        shape.append(f"row {bad_width[0] + 1} has {len(rows[bad_width[0]])} fields")
    if shape and (len(rows) != n or bad_width or len(header) != len(expected)):
        return _failed_shape(n, check, shape)
    hierarchies = {c: _as_hierarchy(h, c) for c, h in check.hierarchies.items()}
    readers = [_ColumnReader(c, frame[c].tolist(), hierarchies.get(c), c in set(check.categorical))
               for c in check.qi]
    item_h = _as_hierarchy(check.item_hierarchy, "items") if check.item_hierarchy is not None else None
    labels = [[trans.vocab[i] for i in trans.indices[trans.indptr[u]:trans.indptr[u + 1]].tolist()]
              for u in range(n)]
    present = set(itertools.chain.from_iterable(labels))
    sensitive = _expand_sensitive(check.sensitive, item_h, present)
    items = _ItemReader(trans.vocab, present, sensitive, item_h)
    examples: list[str] = []
    violating: set[int] = set()

    def note(row: int, text: str) -> None:
        violating.add(row)
        if len(examples) < SHOWN:
            examples.append(f"row {row + 1}: {text}")

    # clusters
    cluster_rows: dict[str, list[int]] = defaultdict(list)
    for r, row in enumerate(rows):
        cluster_rows[row[0]].append(r)
    small = [c for c, members in cluster_rows.items() if len(members) < check.k]
    for c in small:
        note(cluster_rows[c][0], f"cluster {c} has {len(cluster_rows[c])} people")
    mixed = [c for c, members in cluster_rows.items() if len({tuple(rows[r][1:-1]) for r in members}) > 1]
    for c in mixed:
        note(cluster_rows[c][0], f"cluster {c} shows more than one set of demographics")
    progress.set(0.1, "checking cells")
    # demographic cells
    uncovered = 0
    rum_total = 0.0
    v = len(readers)
    for r, row in enumerate(rows):
        ncp = 0.0
        for j, reader in enumerate(readers):
            cell = row[1 + j]
            if not reader.covers(cell, r):
                uncovered += 1
                note(r, f"{reader.name} {cell!r} does not cover {reader.texts[r]!r}")
            ncp += reader.loss(cell)
        rum_total += ncp / v if v else 0.0
    progress.set(0.3, "checking items")
    # items
    item_problems = 0
    published: list[list[str]] = []
    tum_total = Fraction(0)
    for r, row in enumerate(rows):
        tokens = [t for t in row[-1].split(";") if t != ""]
        own = set(labels[r])
        own_sensitive = own & sensitive
        shown_sensitive = {t for t in tokens if t in sensitive}
        if shown_sensitive != own_sensitive:
            item_problems += 1
            note(r, f"sensitive items {sorted(shown_sensitive)} published for {sorted(own_sensitive)}")
        covered: set[str] = set()
        plain_tokens = []
        sizes = []
        for t in tokens:
            if t in sensitive:
                continue
            stands = items.stands_for(t)
            if stands is None:
                item_problems += 1
                note(r, f"published item {t!r} is not an item or a label")
                continue
            if stands & sensitive:
                item_problems += 1
                note(r, f"published item {t!r} hides a sensitive item")
            mine = stands & own
            if not mine:
                item_problems += 1
                note(r, f"published item {t!r} stands for none of the person's items")
            covered |= mine
            plain_tokens.append(t)
            sizes.append(len(stands))
        missing = (own - sensitive) - covered
        if missing:
            item_problems += 1
            note(r, f"items {sorted(missing)[:5]} are not published")
        published.append(sorted(set(plain_tokens)))
        tum_total += _ul(sizes)
    progress.set(0.5, "counting itemsets")
    # (k, k^m) and (k, ℓ^m) over groups of equal demographic cells
    groups: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for r, row in enumerate(rows):
        groups[tuple(row[1:-1])].append(r)
    km_bad = 0
    div_bad = 0 if check.l is not None else None
    for members in groups.values():
        support: Counter = Counter()
        with_sens: Counter = Counter()
        for r in members:
            tokens = published[r]
            own_sens = sorted(set(labels[r]) & sensitive)
            for size in range(0, check.m + 1):
                for itemset in itertools.combinations(tokens, size):
                    support[itemset] += 1
                    if check.l is not None:
                        for s in own_sens:
                            with_sens[(itemset, s)] += 1
        for r in members:
            tokens = published[r]
            worst = None
            for size in range(0, check.m + 1):
                for itemset in itertools.combinations(tokens, size):
                    if support[itemset] < check.k:
                        worst = itemset
                        break
                if worst is not None:
                    break
            if worst is not None:
                km_bad += 1
                note(r, f"{{{', '.join(worst)}}} is shared by {support[worst]} people of its group")
        if check.l is not None:
            exposed_sets = {itemset for (itemset, s), c in with_sens.items() if check.l * c > support[itemset]}
            if exposed_sets:
                for r in members:
                    tokens = published[r]
                    hit = next((itemset for size in range(0, check.m + 1)
                                for itemset in itertools.combinations(tokens, size) if itemset in exposed_sets), None)
                    if hit is not None:
                        div_bad += 1
                        note(r, f"a sensitive item is in more than 1/{check.l} of the people with "
                                f"{{{', '.join(hit)}}}")
    progress.set(1.0, "checked")
    rum = rum_total / n if n else 0.0
    tum = float(tum_total / n) if n else 0.0
    sizes_all = [len(m) for m in cluster_rows.values()]
    return RTVerification(
        n_records=n, n_clusters=len(cluster_rows), k=check.k, m=check.m, l=check.l,
        min_cluster_size=min(sizes_all) if sizes_all else 0, small_clusters=len(small), mixed_clusters=len(mixed),
        uncovered_cells=uncovered, item_problems=item_problems, km_violations=km_bad,
        diversity_violations=div_bad, rum=rum, tum=tum, claimed_rum=check.claimed_rum,
        claimed_tum=check.claimed_tum,
        rum_matches=None if check.claimed_rum is None else math.isclose(rum, check.claimed_rum, rel_tol=0,
                                                                        abs_tol=check.tolerance),
        tum_matches=None if check.claimed_tum is None else math.isclose(tum, check.claimed_tum, rel_tol=0,
                                                                        abs_tol=check.tolerance),
        shape_problems=shape, examples=examples, violating_rows=[r + 1 for r in sorted(violating)[:SHOWN]],
    )


def _failed_shape(n: int, check: RTCheck, shape: list[str]) -> RTVerification:
    return RTVerification(n_records=n, n_clusters=0, k=check.k, m=check.m, l=check.l, min_cluster_size=0,
                          small_clusters=0, mixed_clusters=0, uncovered_cells=0, item_problems=0, km_violations=0,
                          diversity_violations=None, rum=math.nan, tum=math.nan, claimed_rum=check.claimed_rum,
                          claimed_tum=check.claimed_tum, rum_matches=None, tum_matches=None, shape_problems=shape)


def read_anon_csv(path: str | Path) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a published table."""
    path = Path(path)
    text = read_text(path)
    reader = csv.reader(text.splitlines())
    try:
        table = list(reader)
    except csv.Error as exc:
        raise DataFormatError(path, f"cannot be parsed as CSV ({exc})", reader.line_num) from exc
    if not table:
        raise DataFormatError(path, "the file is empty")
    return table[0], table[1:]


def check_anon_csv(anon_path: str | Path, data: RTData, check: RTCheck, *,
                   sensitive_file: str | Path | None = None, progress: Progress | None = None) -> RTVerification:
    """Check an ANON.csv file against the original data (module docstring)."""
    if sensitive_file is not None:
        check = replace(check, sensitive=[label for label, _ in load_item_list(sensitive_file)])
    header, rows = read_anon_csv(anon_path)
    return verify_published(data, header, rows, check, progress)
