"""Independent check of a nonreciprocal release (paper Definitions 1-3).

Given the ORIGINAL records and the release (base, distance bitmap and
threshold per published record, labels; with the audit files also the
generalization graph, the assignment of every edge and the chosen one), it
checks:

* every original lies in the possible worlds of at least m published records
  (an exact count for every original, with its histogram);
* the graph is m-regular and its edges split into m perfect matchings (so
  they are disjoint), every edge a real match (the original is a possible
  world of the slot), and the chosen assignment is one of them;
* every base is the bit vote of its preimages (a strict majority decides;
  ties are free), every distance bitmap is exactly the items on which they
  disagree, every threshold is the largest base-to-preimage distance;
* the error rate recomputed from the chosen assignment equals the reported one;
* for ℓ, the published labels of each original's graph matches are ℓ
  distinct labels, and each slot's label is that of its preimage under the
  chosen assignment.

Shares no code with the method: its own possible-world test and counting
(:mod:`anonstudio.kernels.nonreciprocal_verify`), its own vote recount, and
the error rate through scipy sparse products.
"""
from __future__ import annotations

import concurrent.futures
import csv
import itertools
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..data.arrays import sorted_distinct
from ..data.errors import DataFormatError
from ..data.transactions import TransactionData
from ..jobs import NullProgress, Progress
from ..kernels.nonreciprocal_verify import edges_in_worlds, recount_slots, world_counts
from ..parallel import budget

__all__ = ["Release", "NonreciprocalVerification", "release_from_result", "read_release", "verify_release",
           "verify_result"]

_ER_TOLERANCE = 1e-9


@dataclass(frozen=True, eq=False)
class Release:
    """What the verifier checks, in its own terms (slots and records are 0-based row numbers).

    ``edge_assignment`` is -1 where unknown; ``edges_*`` are empty when the
    graph was not given (only the possible worlds can then be checked).
    ``slot_labels`` / ``record_labels`` are codes into ``label_names``.
    """

    m: int
    mode: str
    base_indptr: np.ndarray
    base_items: np.ndarray
    dist_indptr: np.ndarray
    dist_items: np.ndarray
    threshold: np.ndarray
    edge_original: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    edge_slot: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    edge_assignment: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    chosen: int | None = None
    slot_labels: np.ndarray | None = None
    record_labels: np.ndarray | None = None
    label_names: tuple[str, ...] = ()
    reported_error_rate: float | None = None

    @property
    def n_slots(self) -> int:
        return len(self.threshold)

    @property
    def has_graph(self) -> bool:
        return len(self.edge_original) > 0


@dataclass
class NonreciprocalVerification:
    """Outcome of every check (None: not checked, for want of the input it needs)."""

    m: int
    mode: str
    complete: bool = True
    world_histogram: dict[int, int] = field(default_factory=dict)
    min_worlds: int | None = None
    below_m: int | None = None
    regular: bool | None = None
    matchings: bool | None = None
    non_matching_edges: int | None = None
    chosen_ok: bool | None = None
    bad_votes: int | None = None
    bad_distances: int | None = None
    low_thresholds: int | None = None
    loose_thresholds: int | None = None
    error_rate: float | None = None
    reported_error_rate: float | None = None
    label_failures: int | None = None
    label_mismatches: int | None = None
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        """The promise holds as far as it was checked (and the worlds were counted)."""
        if not self.complete or self.below_m is None or self.below_m > 0:
            return False
        for ok in (self.regular, self.matchings, self.chosen_ok):
            if ok is False:
                return False
        for bad in (self.non_matching_edges, self.bad_votes, self.bad_distances, self.low_thresholds,
                    self.loose_thresholds, self.label_failures, self.label_mismatches):
            if bad:
                return False
        if self.error_rate is not None and self.reported_error_rate is not None:
            if abs(self.error_rate - self.reported_error_rate) > _ER_TOLERANCE:
                return False
        return True

    def lines(self) -> list[str]:
        """One plain-language line per check."""
        unit = "published records"
        out = []
        if self.min_worlds is None:
            out.append("possible worlds: not counted (stopped)")
        elif self.below_m:
            out.append(f"{self.below_m:,} people match fewer than {self.m} {unit} (fewest: {self.min_worlds})")
        else:
            out.append(f"every person matches at least {self.m} {unit} (fewest: {self.min_worlds})")
        if self.regular is None:
            out.append("generalization graph: not given, regularity and assignments unchecked")
        else:
            out.append(f"graph {'is' if self.regular else 'is NOT'} {self.m}-regular; its edges "
                       f"{'split' if self.matchings else 'do NOT split'} into {self.m} disjoint perfect matchings")
            out.append("every graph edge is a real match" if not self.non_matching_edges else
                       f"{self.non_matching_edges:,} graph edges are not possible worlds of their slot")
            if self.chosen_ok is not None:
                out.append("the chosen assignment is one of them" if self.chosen_ok else
                           "the chosen assignment is NOT one of them")
            bad = (self.bad_votes or 0, self.bad_distances or 0, self.low_thresholds or 0, self.loose_thresholds or 0)
            if any(bad):
                out.append(f"publication: {bad[0]:,} bases not the vote, {bad[1]:,} distance bitmaps not exact, "
                           f"{bad[2]:,} thresholds too low, {bad[3]:,} thresholds not tight")
            else:
                out.append("every base is the bit vote, every distance bitmap and threshold tight")
        if self.error_rate is not None:
            same = self.reported_error_rate is None or abs(self.error_rate - self.reported_error_rate) <= _ER_TOLERANCE
            rep = "" if self.reported_error_rate is None else (
                " (as reported)" if same else f" (reported {self.reported_error_rate:.6g})")
            out.append(f"error rate recomputed: {self.error_rate:.6g}{rep}")
        if self.label_failures is not None:
            out.append(f"every person's {self.m} matches carry {self.m} different published labels"
                       if self.label_failures == 0 else
                       f"{self.label_failures:,} people's matches carry fewer than {self.m} different published labels")
        if self.label_mismatches:
            out.append(f"{self.label_mismatches:,} published labels are not their true preimage's label")
        out.extend(self.problems)
        return out

    def to_json(self) -> dict:
        return {
            "passed": self.passed, "complete": self.complete, "m": self.m, "mode": self.mode,
            "min_worlds": self.min_worlds, "below_m": self.below_m,
            "world_histogram": [[int(k), int(v)] for k, v in sorted(self.world_histogram.items())],
            "regular": self.regular, "matchings": self.matchings, "non_matching_edges": self.non_matching_edges,
            "chosen_ok": self.chosen_ok, "bad_votes": self.bad_votes, "bad_distances": self.bad_distances,
            "low_thresholds": self.low_thresholds, "loose_thresholds": self.loose_thresholds,
            "error_rate": self.error_rate, "reported_error_rate": self.reported_error_rate,
            "label_failures": self.label_failures, "label_mismatches": self.label_mismatches,
            "problems": list(self.problems), "lines": self.lines(), "seconds": round(self.seconds, 4),
        }

    def summary(self) -> dict[str, float]:
        out = {"passed": float(self.passed), "min_worlds": self.min_worlds, "below_m": self.below_m,
               "error_rate": self.error_rate, "label_failures": self.label_failures}
        return {k: v for k, v in out.items() if v is not None}


# ------------------------------------------------------------------ inputs
def release_from_result(result: Any) -> Release:
    """The verifier's view of a method result (reads its published arrays, graph and labels)."""
    pub = result.published
    graph = np.asarray(result.graph, dtype=np.int64)
    n, m = graph.shape
    asg = np.asarray(result.assignments, dtype=np.int64)
    # the assignment of edge (x, graph[x, c]): the round whose matching sends x there
    edge_assignment = np.full((n, m), -1, dtype=np.int64)
    for r in range(asg.shape[0]):
        edge_assignment[graph == asg[r][:, None]] = r
    labels = getattr(result, "labels", None)
    return Release(
        m=int(result.m), mode=str(result.mode),
        base_indptr=pub.base_indptr, base_items=pub.base_items, dist_indptr=pub.dist_indptr,
        dist_items=pub.dist_items, threshold=np.asarray(pub.threshold, dtype=np.int64),
        edge_original=np.repeat(np.arange(n, dtype=np.int64), m), edge_slot=graph.ravel().copy(),
        edge_assignment=edge_assignment.ravel(), chosen=result.chosen,
        slot_labels=None if result.slot_labels is None else np.asarray(result.slot_labels, dtype=np.int64),
        record_labels=None if labels is None else np.asarray(labels.codes, dtype=np.int64),
        label_names=() if labels is None else tuple(labels.names),
        reported_error_rate=result.error_rate,
    )


def _record_index(names: Sequence[str] | None, n: int) -> dict[str, int]:
    if names is not None:
        return {str(s): u for u, s in enumerate(names)}
    return {str(u + 1): u for u in range(n)}


def read_release(data: TransactionData, published: str | Path, graph: str | Path | None = None,
                 json_path: str | Path | None = None, record_labels: Sequence[str] | None = None,
                 record_ids: Sequence[str] | None = None) -> Release:
    """A release as written to files: PUBLISHED.csv, optionally GRAPH.csv and the run's JSON.

    ``record_labels`` (one per record, the input's sensitive labels) enables
    the check that each slot's label is its true preimage's. Records and
    slots are named as the files name them (numbers from 1, or ``record_ids``).
    """
    n = data.n_records
    index = _record_index(record_ids, n)
    item_index = {label: i for i, label in enumerate(data.vocab)}
    path = Path(published)
    base: list[list[int]] = [[] for _ in range(n)]
    dist: list[list[int]] = [[] for _ in range(n)]
    thr = np.full(n, -1, dtype=np.int64)
    slot_label: list[str] = [""] * n
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header != ["record", "base", "distance", "threshold", "label"]:
            raise DataFormatError(path, "the header must be record,base,distance,threshold,label", 1)
        for line, row in enumerate(reader, start=2):
            if len(row) != 5:
                raise DataFormatError(path, f"expected 5 fields, got {len(row)}", line)
            if row[0] not in index:
                raise DataFormatError(path, f"record {row[0][:40]!r} is not a record of the dataset", line)
            j = index[row[0]]
            if thr[j] >= 0:
                raise DataFormatError(path, f"record {row[0][:40]} appears twice", line)
            for field_text, out in ((row[1], base[j]), (row[2], dist[j])):
                for item in filter(None, field_text.split(";")):
                    if item not in item_index:
                        raise DataFormatError(path, f"item {item[:40]!r} is not an item of the dataset", line)
                    out.append(item_index[item])
            if not row[3].isdigit():
                raise DataFormatError(path, f"threshold {row[3][:40]!r} is not a whole number", line)
            thr[j] = int(row[3])
            slot_label[j] = row[4]
    if (thr < 0).any():
        raise DataFormatError(path, f"{int((thr < 0).sum()):,} records of the dataset have no published row")

    def csr(lists: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum([len(x) for x in lists], out=indptr[1:])
        items = np.array([i for x in lists for i in sorted(set(x))], dtype=np.int32)
        if len(items) != indptr[-1]:
            raise DataFormatError(path, "an item is listed twice in one base or distance field")
        return indptr, items

    b_indptr, b_items = csr(base)
    d_indptr, d_items = csr(dist)
    doc = json.loads(Path(json_path).read_text(encoding="utf-8")) if json_path is not None else {}
    m = int(doc.get("m") or doc.get("k") or doc.get("l") or 0)
    mode = "l" if "l" in doc else "k"
    chosen = doc.get("chosen_assignment")
    names = sorted(set(slot_label) | set(record_labels or ()))
    code = {s: i for i, s in enumerate(names)}
    has_labels = any(slot_label)
    e_orig = e_slot = e_asg = np.zeros(0, dtype=np.int64)
    if graph is not None:
        gpath = Path(graph)
        rows = []
        with open(gpath, newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            if next(reader, None) != ["original", "published", "assignment"]:
                raise DataFormatError(gpath, "the header must be original,published,assignment", 1)
            for line, row in enumerate(reader, start=2):
                if len(row) != 3 or row[0] not in index or row[1] not in index or not row[2].isdigit():
                    raise DataFormatError(gpath, "expected a record, a published record and an assignment number",
                                          line)
                rows.append((index[row[0]], index[row[1]], int(row[2]) - 1))
        arr = np.array(rows, dtype=np.int64).reshape(-1, 3)
        e_orig, e_slot, e_asg = arr[:, 0].copy(), arr[:, 1].copy(), arr[:, 2].copy()
        if m == 0:
            m = int(np.bincount(e_orig, minlength=n).max()) if len(e_orig) else 0
    return Release(
        m=m, mode=mode, base_indptr=b_indptr, base_items=b_items, dist_indptr=d_indptr, dist_items=d_items,
        threshold=thr, edge_original=e_orig, edge_slot=e_slot, edge_assignment=e_asg,
        chosen=None if chosen is None else int(chosen) - 1,
        slot_labels=np.array([code[s] for s in slot_label], dtype=np.int64) if has_labels else None,
        record_labels=np.array([code[s] for s in record_labels], dtype=np.int64) if record_labels else None,
        label_names=tuple(names), reported_error_rate=doc.get("error_rate"),
    )


# ------------------------------------------------------------------ checks
def _count_worlds(data: TransactionData, rel: Release, progress: Progress, threads: int | None) -> np.ndarray | None:
    """Exact number of slots whose possible worlds contain each original (None if cancelled).

    Slot ranges run on up to ``threads`` threads of the budget (None: all of it), handed to whichever thread is
    free; the per-range counts are integers, so they add up the same in any order.
    """
    n_slots = rel.n_slots
    n_items = max(data.n_items, 1)
    threads = budget.workers(threads or budget.available())
    # slot ranges: about 8 per thread (progress, cancel, and no thread idle long at the end: a range costs a scan
    # of every record per 64 slots), each within a bit table of at most 32 MB
    cap_words = max(1, (4 << 20) // n_items)
    words = max(1, min(cap_words, -(-n_slots // (64 * 8 * threads))))
    chunk = 64 * words
    ranges = [(s, min(s + chunk, n_slots)) for s in range(0, n_slots, chunk)]
    totals = np.zeros(data.n_records, dtype=np.int64)

    def work(span: tuple[int, int]) -> np.ndarray:
        counts = np.zeros(data.n_records, dtype=np.int64)
        world_counts(data.indptr, data.indices, rel.base_indptr, rel.base_items, rel.dist_indptr, rel.dist_items,
                     rel.threshold, n_items, words, span[0], span[1], counts)
        return counts

    done = 0
    with budget.pool(threads, "nonreciprocal-verify") as pool:
        todo = iter(ranges)
        pending = {pool.submit(work, span) for span in itertools.islice(todo, 2 * threads)}
        while pending:
            finished, pending = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in finished:
                totals += future.result()
                done += 1
            progress.set(0.8 * done / max(len(ranges), 1), "counting possible worlds")
            if progress.cancelled() and done < len(ranges):
                for f in pending:
                    f.cancel()
                return None
            for span in itertools.islice(todo, len(finished)):
                pending.add(pool.submit(work, span))
    return totals



def _error_rate(data: TransactionData, rel: Release, alpha: np.ndarray) -> float:
    """Mean over non-empty records of |r Δ base_α(r)| / |r|, through sparse products."""
    n = data.n_records
    b = max(data.n_items, 1)
    records = sp.csr_matrix((np.ones(len(data.indices)), data.indices, data.indptr), shape=(n, b))
    bases = sp.csr_matrix((np.ones(len(rel.base_items)), rel.base_items, rel.base_indptr), shape=(rel.n_slots, b))
    mine = bases[alpha]
    inter = np.asarray(records.multiply(mine).sum(axis=1)).ravel()
    size_r = np.diff(data.indptr).astype(np.float64)
    size_b = np.diff(mine.indptr).astype(np.float64)
    keep = size_r > 0
    if not keep.any():
        return 0.0
    return float(np.mean((size_r + size_b - 2 * inter)[keep] / size_r[keep]))


def verify_release(data: TransactionData, rel: Release, progress: Progress | None = None,
                   threads: int | None = None) -> NonreciprocalVerification:
    """Run every check the release's inputs allow (see the module docstring).

    ``threads``: at most this many threads of the thread budget count possible worlds (None: the whole budget).
    """
    progress = progress or NullProgress()
    t0 = time.perf_counter()
    n = data.n_records
    m = rel.m
    out = NonreciprocalVerification(m=m, mode=rel.mode, reported_error_rate=rel.reported_error_rate)
    if rel.n_slots != n:
        out.problems.append(f"{rel.n_slots:,} published records for {n:,} people")
    if any(len(a) and (int(a.min()) < 0 or int(a.max()) >= data.n_items) for a in (rel.base_items, rel.dist_items)):
        # The counting kernels index their bit tables by item id: an id beyond the data's would write outside them.
        out.problems.append(f"the release names item ids outside the data's {data.n_items:,} items (a release of "
                            "other data?): possible worlds not counted")
        out.complete = False
        out.seconds = time.perf_counter() - t0
        return out
    counts = _count_worlds(data, rel, progress, threads)
    if counts is None:
        out.complete = False
        out.seconds = time.perf_counter() - t0
        return out
    values, freq = np.unique(counts, return_counts=True)
    out.world_histogram = {int(v): int(f) for v, f in zip(values, freq)}
    out.min_worlds = int(counts.min()) if n else 0
    out.below_m = int(np.count_nonzero(counts < m))
    if rel.has_graph:
        progress.set(0.85, "checking the graph")
        eo, es, ea = rel.edge_original, rel.edge_slot, rel.edge_assignment
        out_deg = np.bincount(eo, minlength=n)
        in_deg = np.bincount(es, minlength=n)
        pairs = sorted_distinct(eo * n + es)
        out.regular = bool((out_deg == m).all() and (in_deg == m).all() and len(pairs) == len(eo))
        ok = out.regular and bool(((ea >= 0) & (ea < m)).all())
        if ok:
            for a in range(m):
                sel = ea == a
                if (np.count_nonzero(sel) != n or len(sorted_distinct(eo[sel])) != n
                        or len(sorted_distinct(es[sel])) != n):
                    ok = False
                    break
        out.matchings = ok
        inside = edges_in_worlds(data.indptr, data.indices, rel.base_indptr, rel.base_items, rel.dist_indptr,
                                 rel.dist_items, rel.threshold, eo, es)
        out.non_matching_edges = int(np.count_nonzero(~inside))
        # preimages of every slot from the graph, recounted
        order = np.argsort(es, kind="stable")
        pre_indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(in_deg, out=pre_indptr[1:])
        problems = np.zeros(n, dtype=np.int64)
        recount_slots(data.indptr, data.indices, pre_indptr, np.ascontiguousarray(eo[order]), rel.base_indptr,
                      rel.base_items, rel.dist_indptr, rel.dist_items, rel.threshold, max(data.n_items, 1), problems)
        out.bad_votes = int(np.count_nonzero(problems & 3))
        out.bad_distances = int(np.count_nonzero(problems & 4))
        out.low_thresholds = int(np.count_nonzero(problems & 8))
        out.loose_thresholds = int(np.count_nonzero(problems & 16))
        alpha = None
        if rel.chosen is not None:
            out.chosen_ok = bool(out.matchings and 0 <= rel.chosen < m)
            if out.chosen_ok:
                sel = ea == rel.chosen
                alpha = np.empty(n, dtype=np.int64)
                alpha[eo[sel]] = es[sel]
        if alpha is not None:
            progress.set(0.9, "recomputing the error rate")
            out.error_rate = _error_rate(data, rel, alpha)
            if rel.slot_labels is not None and rel.record_labels is not None:
                out.label_mismatches = int(np.count_nonzero(rel.slot_labels[alpha] != rel.record_labels))
        if rel.mode == "l" and rel.slot_labels is not None:
            # distinct published labels among each original's graph matches
            lab = rel.slot_labels[es]
            keys = sorted_distinct(eo * (len(rel.label_names) + 1) + lab)
            distinct = np.bincount(keys // (len(rel.label_names) + 1), minlength=n)
            out.label_failures = int(np.count_nonzero(distinct < m))
    elif rel.mode == "l":
        out.problems.append("labels not checked: the graph is needed to know each person's matches")
    out.seconds = time.perf_counter() - t0
    progress.set(1.0, "checked")
    return out


def verify_result(data: TransactionData, result: Any, progress: Progress | None = None,
                  threads: int | None = None) -> NonreciprocalVerification:
    """Check a method result in memory (graph, assignments, chosen one and labels included)."""
    return verify_release(data, release_from_result(result), progress, threads)
