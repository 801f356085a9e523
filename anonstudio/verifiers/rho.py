"""Independent check of a personalized ρ-uncertainty release (paper 002, Definitions 2-6).

Given the ORIGINAL data D, the published D' and the sensitive constraint as
(record, item) pairs, it re-checks the promise without any code of the
suppressor:

* every adversary (u, Q ⊆ D_u, |Q| ≤ m, e ∈ E_u \\ Q) when there are at most
  ``exhaustive_limit`` of them: the number of unsafe ones per ℓ, the exact
  unsafe share under both attacker distributions (a uniform person then a
  uniform itemset, and uniform over (person, itemset) pairs) and the worst
  rules; otherwise its own sample of adversaries per ℓ with a Clopper-Pearson
  interval for the unsafe share;
* D'_u ⊆ D_u for every record, same number of records (and, from files, line
  by line with empty lines kept);
* the utilities recomputed: util_info, util_dist = KL(D'‖D) and util_mining by
  counting every subset of every record (no Apriori library).

Readings shared with the method (they define the model, not the code): Q comes
from the original record, supports are counted on D', e ∈ E_u \\ Q, ρ is an
exact fraction, supp_D'(Q) = 0 is safe.
"""
from __future__ import annotations

import collections
import csv
import io
import itertools
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from ..data.arrays import sorted_distinct
from ..data.errors import DataFormatError
from ..data.io.text import read_text
from ..data.transactions import TransactionData
from ..jobs import ChunkSizer, NullProgress, Progress, derive_seed
from ..kernels.rho_verify import check_groups, count_subsets, decode_keys, distinct_positions, merge_counts
from ..parallel import budget
from .kmanon import clopper_pearson

__all__ = [
    "RhoLevelCheck", "WorstRule", "RhoVerification", "verify_rho", "check_subsets", "check_lines",
    "read_sensitive_pairs", "recompute_utilities", "verify_result",
]


@dataclass(frozen=True)
class RhoLevelCheck:
    """Adversaries who know ℓ items.

    ``share`` is the unsafe share under the sampler the run used
    (``share_user`` / ``share_pair`` give both where known); for a sampled
    check ``ci_low``/``ci_high`` bound it at the check's confidence.
    """

    level: int
    method: str  # "exhaustive" or "sampled"
    adversaries: int
    unsafe: int
    share: float
    ci_low: float
    ci_high: float
    share_user: float | None
    share_pair: float | None
    sampler: str
    seconds: float

    def to_json(self) -> dict:
        return {"level": self.level, "method": self.method, "adversaries": self.adversaries, "unsafe": self.unsafe,
                "share": self.share, "ci_low": self.ci_low, "ci_high": self.ci_high,
                "share_user": self.share_user, "share_pair": self.share_pair, "sampler": self.sampler,
                "seconds": round(self.seconds, 4)}


@dataclass(frozen=True)
class WorstRule:
    """An unsafe adversary's strongest inference Q → e about the person of record index ``user`` (from 0).

    Texts and the JSON number the person from 1 (``person``), as every file and view does.
    """

    user: int
    antecedent: tuple[str, ...]
    consequent: str
    s_q: int
    s_qe: int

    @property
    def confidence(self) -> float:
        return self.s_qe / self.s_q

    def to_json(self) -> dict:
        return {"person": self.user + 1, "antecedent": list(self.antecedent), "consequent": self.consequent,
                "support_q": self.s_q, "support_qe": self.s_qe, "confidence": self.confidence}

    def text(self) -> str:
        return (f"person {self.user + 1}: {{{', '.join(self.antecedent)}}} → {self.consequent} "
                f"({self.s_qe}/{self.s_q} = {self.confidence:.3f})")


@dataclass(frozen=True)
class RhoVerification:
    """What the independent check found.

    ``passed``: records are subsets, and the privacy promise holds as far as
    checked: no unsafe adversary (exact ρ / ρ^m), or every level's unsafe
    share below ε (exactly, or with the interval's upper bound) for
    (ε, δ)-ρ^m. Utilities that differ from the reported ones are listed in
    ``mismatches`` and also fail the check.
    """

    rho: Fraction
    m: int | None
    epsilon: float | None
    confidence: float
    levels: tuple[RhoLevelCheck, ...]
    worst: tuple[WorstRule, ...]
    records_checked: int
    record_problems: tuple[str, ...]
    utilities: dict
    mismatches: tuple[str, ...]
    complete: bool
    seconds: float
    exhaustive: bool = True
    extra: dict = field(default_factory=dict)

    @property
    def unsafe(self) -> int:
        return sum(lv.unsafe for lv in self.levels)

    @property
    def privacy_holds(self) -> bool:
        if self.epsilon is None:
            return self.unsafe == 0
        for lv in self.levels:
            bound = lv.share if lv.method == "exhaustive" else lv.ci_high
            if not bound < self.epsilon:
                return False
        return True

    @property
    def passed(self) -> bool:
        return self.complete and not self.record_problems and not self.mismatches and self.privacy_holds

    def to_json(self) -> dict:
        return {
            "passed": self.passed, "complete": self.complete, "privacy_holds": self.privacy_holds,
            "rho": float(self.rho), "m": self.m, "epsilon": self.epsilon, "confidence": self.confidence,
            "exhaustive": self.exhaustive, "unsafe_adversaries": self.unsafe,
            "levels": [lv.to_json() for lv in self.levels], "worst_rules": [w.to_json() for w in self.worst],
            "records_checked": self.records_checked, "record_problems": list(self.record_problems),
            "utilities": self.utilities, "mismatches": list(self.mismatches), "seconds": round(self.seconds, 4),
            **self.extra,
        }

    def summary(self) -> dict[str, float]:
        out = {"passed": float(self.passed), "unsafe_adversaries": float(self.unsafe)}
        shares = [lv.ci_high if lv.method == "sampled" else lv.share for lv in self.levels]
        if shares:
            out["max_unsafe_share"] = max(shares)
        return out

    def lines(self) -> list[str]:
        out = []
        if self.record_problems:
            out.append(f"records: {len(self.record_problems)} problem(s), e.g. {self.record_problems[0]}")
        else:
            out.append(f"records: all {self.records_checked:,} published records are subsets of the originals, "
                       "same order")
        for lv in self.levels:
            if lv.method == "exhaustive":
                out.append(f"knowing {lv.level} item{'s' if lv.level > 1 else ''}: {lv.unsafe:,} of "
                           f"{lv.adversaries:,} attackers can infer a sensitive item above ρ (checked "
                           f"exhaustively; unsafe share {lv.share_user:.4g} for a random person, "
                           f"{lv.share_pair:.4g} over all person-itemset pairs)")
            else:
                out.append(f"knowing {lv.level} item{'s' if lv.level > 1 else ''}: {lv.unsafe:,} of "
                           f"{lv.adversaries:,} sampled attackers ({lv.sampler} sampler) succeed; unsafe share "
                           f"{lv.share:.4g}, {self.confidence:.0%} interval [{lv.ci_low:.4g}, {lv.ci_high:.4g}]")
        if self.worst:
            out.append(f"worst: {self.worst[0].text()}")
        if self.mismatches:
            out.append("utilities differ from the reported ones: " + "; ".join(self.mismatches))
        elif self.utilities:
            out.append("utilities recomputed: " + ", ".join(
                f"{k} {v:.6g}" for k, v in self.utilities.items() if isinstance(v, float)))
        if not self.complete:
            out.append("the check was stopped before it finished")
        return out


# ------------------------------------------------------------------ inputs
def read_sensitive_pairs(path: str | Path, vocab: tuple[str, ...], n_records: int) -> tuple[np.ndarray, np.ndarray]:
    """(record index from 0, item id) pairs of an ``E_USED.csv`` (−1 for ``*``); labels not in ``vocab`` are dropped.

    The checker's own reader: it accepts what the method writes, a ``person,item`` header then one pair per line
    with people numbered from 1, and the previous release's form (header ``record,item`` or none, records from 0).
    """
    text = read_text(path, allow_empty=True)
    ids = {label: i for i, label in enumerate(vocab)}
    numeric = all(v.lstrip("-").isdigit() for v in vocab[:50])
    rows = [(number, row) for number, row in enumerate(csv.reader(io.StringIO(text)), start=1) if row]
    first = 1
    if rows and [f.strip().lower() for f in rows[0][1]] == ["person", "item"]:
        rows = rows[1:]
    else:
        first = 0
        if rows and [f.strip().lower() for f in rows[0][1]] == ["record", "item"]:
            rows = rows[1:]
    recs, items = [], []
    for number, row in rows:
        if len(row) != 2:
            raise DataFormatError(path, f"expected person,item, got {len(row)} field(s)", number)
        who, label = row[0].strip(), row[1].strip()
        if numeric and label.lstrip("-").isdigit():
            label = str(int(label))
        rec = -1 if who == "*" else int(who) - first if who.isdigit() else None
        if rec is None or not -1 <= rec < n_records or (who != "*" and rec < 0):
            raise DataFormatError(path, f"bad person {who!r}", number)
        if label in ids:
            recs.append(rec)
            items.append(ids[label])
    return np.asarray(recs, dtype=np.int64), np.asarray(items, dtype=np.int64)


def _e_arrays(records: np.ndarray, items: np.ndarray, n_records: int, n_items: int):
    """E as (global ids, per-record CSR of own ids not in the global set), data items only."""
    keep = (items >= 0) & (items < n_items)
    records, items = records[keep], items[keep]
    glob = np.unique(items[records < 0]).astype(np.int32)
    own = records >= 0
    r, i = records[own], items[own]
    not_global = ~np.isin(i, glob)
    r, i = r[not_global], i[not_global]
    key = sorted_distinct(r * n_items + i)
    r, i = key // n_items, key % n_items
    ptr = np.zeros(n_records + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=n_records), out=ptr[1:])
    return glob, ptr, i.astype(np.int32)



def _postings(data: TransactionData) -> tuple[np.ndarray, np.ndarray]:
    """The checker's own posting lists of D' (records ascending per item)."""
    counts = np.bincount(data.indices, minlength=data.n_items)
    ptr = np.zeros(data.n_items + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    owner = np.repeat(np.arange(data.n_records, dtype=np.int32), np.diff(data.indptr))
    order = np.lexsort((owner, data.indices))
    return ptr, np.ascontiguousarray(owner[order])


# ---------------------------------------------------------------- records
def check_subsets(original: TransactionData, published: TransactionData, limit: int = 20) -> tuple[str, ...]:
    """Problems with D'_u ⊆ D_u (same record count and order), at most ``limit`` of them."""
    problems = []
    if published.n_records != original.n_records:
        problems.append(f"the published data has {published.n_records:,} records, the original "
                        f"{original.n_records:,} (a line was dropped or added)")
        return tuple(problems)
    index = {label: i for i, label in enumerate(original.vocab)}
    mapped = np.array([index.get(label, -1) for label in published.vocab], dtype=np.int64)
    # one key per (record, item): every published key must be an original key
    width = original.n_items + 1
    orig_keys = np.repeat(np.arange(original.n_records, dtype=np.int64), np.diff(original.indptr)) * width \
        + original.indices
    pub_rows = np.repeat(np.arange(published.n_records, dtype=np.int64), np.diff(published.indptr))
    pub_items = mapped[published.indices]
    pub_keys = pub_rows * width + np.where(pub_items >= 0, pub_items, original.n_items)
    bad = np.flatnonzero(~np.isin(pub_keys, orig_keys))
    for u in np.unique(pub_rows[bad])[:limit].tolist():
        extra = pub_items[bad[pub_rows[bad] == u]]
        labels = [original.vocab[i] if i >= 0 else "an item the original data does not have" for i in extra[:3]]
        problems.append(f"record {u + 1} has {', '.join(labels)}, which the original record does not")
    return tuple(problems)


def check_lines(original_path: str | Path, published_path: str | Path, limit: int = 20) -> tuple[str, ...]:
    """Line-by-line check of two item-per-token text files: same line count, each line's tokens a subset."""
    a = read_text(original_path, allow_empty=True).splitlines()
    b = read_text(published_path, allow_empty=True).splitlines()
    problems = []
    if len(a) != len(b):
        problems.append(f"{Path(published_path).name} has {len(b):,} lines, {Path(original_path).name} "
                        f"{len(a):,} (an empty line was dropped or added?)")
    for number, (x, y) in enumerate(zip(a, b), start=1):
        if x.startswith(("#", "%", "@")) or y.startswith(("#", "%", "@")):
            if x != y:
                problems.append(f"line {number}: comment lines differ")
            continue
        tx = set(x.replace(",", " ").split())
        ty = set(y.replace(",", " ").split())
        if not ty <= tx:
            problems.append(f"line {number}: {', '.join(sorted(ty - tx)[:3])} not in the original line")
        if len(problems) >= limit:
            break
    return tuple(problems)


# --------------------------------------------------------------- utilities
class _Stopped(Exception):
    """The recount saw a cancel (it runs in Python for up to tens of seconds)."""


def _subset_budget_ok(data: TransactionData, limit: int) -> bool:
    """Whether every subset of every record (the sum of 2^len) fits in ``limit``."""
    lengths = np.diff(data.indptr)
    return int(np.sum(np.power(2.0, lengths.astype(np.float64)))) <= limit


def _all_subset_counts(data: TransactionData, budget: int,
                       progress: Progress | None = None) -> dict[tuple[int, ...], int] | None:
    """Support of every itemset occurring in D (every subset of every record), or None above ``budget``.

    The Python recount, for data whose subsets do not fit a 64-bit key (see :func:`_frequent_itemsets`).
    Raises :class:`_Stopped` when ``progress`` is cancelled (looked at every few thousand subsets).
    """
    if not _subset_budget_ok(data, budget):
        return None
    lengths = np.diff(data.indptr)
    progress = progress or NullProgress()
    # Counter.update counts in C: a block of records at a time, about 20,000 subsets, then the cancel is read.
    counts: collections.Counter = collections.Counter()
    indptr, indices = data.indptr.tolist(), data.indices.tolist()
    sizes = (1 << np.minimum(lengths, 62)).tolist()
    u = 0
    while u < data.n_records:
        if progress.cancelled():
            raise _Stopped
        first, since = u, 0
        while u < data.n_records and since <= 20_000:
            since += sizes[u]
            u += 1
        counts.update(itertools.chain.from_iterable(
            itertools.combinations(indices[indptr[v]:indptr[v + 1]], size)
            for v in range(first, u) for size in range(1, indptr[v + 1] - indptr[v] + 1)))
    return counts


#: Subsets per block of the kernel recount: a block takes some tens of ms, so a cancel is seen quickly.
_SUBSETS_PER_BLOCK = 1 << 20


def _key_bits(datas: list[TransactionData]) -> int | None:
    """Bits per item of the recount's keys, or None when a subset does not fit 64 bits or records are unsorted.

    Items are stored as id + 1 (0 ends a key). Records must list their ids ascending and none negative, as the
    Python recount's tuples then are sorted too; else that recount runs and gives what it always gave.
    """
    n_items = max(int(d.indices.max()) + 1 if len(d.indices) else 0 for d in datas)
    bits = max(1, n_items.bit_length())
    longest = max(int(np.diff(d.indptr).max()) if d.n_records else 0 for d in datas)
    if longest * bits > 64:
        return None
    for d in datas:
        if len(d.indices) and int(d.indices.min()) < 0:
            return None
        steps = np.diff(d.indices.astype(np.int64))
        inside = np.ones(len(steps), dtype=bool)
        inside[d.indptr[1:-1][(d.indptr[1:-1] > 0) & (d.indptr[1:-1] < len(d.indices))] - 1] = False
        if np.any(steps[inside] <= 0):
            return None
    return bits


def _subset_counts_kernel(datas: list[TransactionData], bits: int,
                          progress: Progress) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """Every subset key of each dataset with its support (keys ascending), counted on the thread budget.

    Records are cut into blocks of about :data:`_SUBSETS_PER_BLOCK` subsets (smaller when that leaves a thread
    idle); each block is enumerated, sorted and counted by a nogil kernel, then the blocks of a dataset are
    merged. The merged arrays do not depend on the cut, so any thread count gives the same numbers. None once
    ``progress`` is cancelled (read before every block).
    """
    sizes = [(np.int64(1) << np.diff(d.indptr).astype(np.int64)) - 1 for d in datas]
    grand = sum(int(s.sum()) for s in sizes)
    workers = budget.workers(max(1, grand // (1 << 16)))
    per_block = max(1 << 16, min(_SUBSETS_PER_BLOCK, grand // (4 * workers) + 1))
    blocks = []  # (dataset, first record, last record, subsets)
    for which, (d, s) in enumerate(zip(datas, sizes)):
        cum = np.concatenate(([0], np.cumsum(s)))
        cuts = np.unique(np.concatenate((np.searchsorted(cum, np.arange(0, cum[-1], per_block), side="right") - 1,
                                         [d.n_records])))
        for a, b in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
            if b > a:
                blocks.append((which, a, b, int(cum[b] - cum[a])))

    def block(i: int):
        if progress.cancelled():
            return None
        which, a, b, total = blocks[i]
        return count_subsets(datas[which].indptr, datas[which].indices, a, b, bits, total)

    def merge(which: int, parts: list) -> tuple[np.ndarray, np.ndarray]:
        mine = [p for (w, *_), p in zip(blocks, parts) if w == which]
        if not mine:
            return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
        if len(mine) == 1:
            return mine[0]
        return merge_counts(np.concatenate([k for k, _ in mine]), np.concatenate([c for _, c in mine]))

    if workers > 1:
        with budget.pool(workers, "rho-recount") as pool:
            parts = list(pool.map(block, range(len(blocks))))
            if any(p is None for p in parts) or progress.cancelled():
                return None
            return list(pool.map(lambda which: merge(which, parts), range(len(datas))))
    parts = []
    for i in range(len(blocks)):
        part = block(i)
        if part is None:
            return None
        parts.append(part)
    if progress.cancelled():
        return None
    return [merge(which, parts) for which in range(len(datas))]


def _frequent_itemsets(datas: list[TransactionData], limit: int, min_count: int,
                       progress: Progress | None = None) -> list[dict[tuple[int, ...], int]] | None:
    """The itemsets of each dataset held by at least ``min_count`` records, with their supports.

    None (mining skipped) when a dataset has more subsets than ``limit``; raises :class:`_Stopped` when
    ``progress`` is cancelled. Counted by the kernel when every subset fits a 64-bit key, else in Python.
    """
    progress = progress or NullProgress()
    if not all(_subset_budget_ok(d, limit) for d in datas):
        return None
    bits = _key_bits(datas)
    if bits is None:
        out = []
        for d in datas:
            counts = _all_subset_counts(d, limit, progress)
            out.append({z: c for z, c in counts.items() if c >= min_count})
        return out
    counted = _subset_counts_kernel(datas, bits, progress)
    if counted is None:
        raise _Stopped
    out = []
    for keys, counts in counted:
        keep = counts >= min_count
        keys, counts = keys[keep], counts[keep]
        width = max(1, 64 // bits)
        items = np.empty((len(keys), width), dtype=np.int64)
        lengths = decode_keys(keys, bits, width, items)
        out.append({tuple(row[:k]): c for row, k, c in zip(items.tolist(), lengths.tolist(), counts.tolist())})
    return out


def _rules(frequent: dict[tuple[int, ...], int], minconf: Fraction) -> set:
    """Association rules (X, Z \\ X) of confidence at least ``minconf`` from the frequent itemsets Z."""
    out = set()
    for z, c in frequent.items():
        for size in range(1, len(z)):
            for x in itertools.combinations(z, size):
                if c * minconf.denominator >= minconf.numerator * frequent[x]:
                    out.add((x, tuple(v for v in z if v not in x)))
    return out


def recompute_utilities(original: TransactionData, published: TransactionData, minsup: Fraction,
                        minconf: Fraction, max_length: int, budget: int = 20_000_000,
                        progress: Progress | None = None) -> dict | None:
    """util_info, util_dist = KL(D'‖D) and util_mining recomputed from scratch (mining None when too costly).

    None when ``progress`` was cancelled during the subset counts.
    """
    before = np.bincount(original.indices, minlength=original.n_items).astype(np.int64)
    after = np.zeros(original.n_items, dtype=np.int64)
    index = {label: i for i, label in enumerate(original.vocab)}
    pub_ids = np.array([index.get(lab, -1) for lab in published.vocab], dtype=np.int64)
    np.add.at(after, pub_ids[published.indices], 1)
    t0, t1 = int(before.sum()), int(after.sum())
    out: dict = {"suppressed_items": t0 - t1, "util_info": (t0 - t1) / t0 if t0 else 0.0}
    if t1 == 0:
        out["util_dist"] = None
    else:
        kl = 0.0
        for i in np.flatnonzero(after):
            share = after[i] / t1
            kl += share * math.log(share * t0 / before[i])
        out["util_dist"] = kl
    out["util_mining"] = None
    longest = int(np.diff(original.indptr).max()) if original.n_records else 0
    if longest <= max_length:
        min_count = max(1, math.ceil(minsup * original.n_records))
        mapped = TransactionData(published.indptr, pub_ids[published.indices].astype(np.int32), original.vocab)
        try:
            frequent = _frequent_itemsets([original, mapped], budget, min_count, progress)
        except _Stopped:
            return None
        if frequent is not None:
            r0, r1 = _rules(frequent[0], minconf), _rules(frequent[1], minconf)
            common = len(r0 & r1)
            union = len(r0 | r1)
            out.update({"util_mining": 1.0 - common / union if union else 0.0, "rules_original": len(r0),
                        "rules_published": len(r1), "rules_common": common})
    return out


def _compare(reported: dict, mine: dict) -> tuple[str, ...]:
    bad = []
    for key, value in mine.items():
        if key not in reported or reported[key] is None and value is None:
            continue
        theirs = reported[key]
        if value is None or theirs is None:
            if key == "util_mining":
                continue  # one side skipped the mining (different cost limits)
            bad.append(f"{key}: reported {theirs}, recomputed {value}")
        elif isinstance(value, float) or isinstance(theirs, float):
            if not math.isclose(float(theirs), float(value), rel_tol=1e-9, abs_tol=1e-12):
                bad.append(f"{key}: reported {theirs:.10g}, recomputed {value:.10g}")
        elif int(theirs) != int(value):
            bad.append(f"{key}: reported {theirs}, recomputed {value}")
    return tuple(bad)


# ---------------------------------------------------------------- privacy
def _adversaries_of_level(original: TransactionData, users: np.ndarray, ell: int) -> tuple[np.ndarray, np.ndarray]:
    """Every (u, Q) with |Q| = ell of the given users' original records, Q as sorted item rows."""
    lengths = np.diff(original.indptr)
    rows, owners = [], []
    for k in np.unique(lengths[users]):
        if k < ell:
            continue
        group = users[lengths[users] == k]
        combos = np.array(list(itertools.combinations(range(int(k)), ell)), dtype=np.int64)
        starts = original.indptr[group]
        pos = starts[:, None, None] + combos[None, :, :]
        rows.append(original.indices[pos].reshape(-1, ell))
        owners.append(np.repeat(group.astype(np.int32), len(combos)))
    if not rows:
        return np.zeros((0, ell), dtype=np.int32), np.zeros(0, dtype=np.int32)
    return np.concatenate(rows).astype(np.int32), np.concatenate(owners)


def _check(rows, owners, post, e, rho: Fraction, n_records: int, progress: Progress | None = None):
    """Unsafe flag and worst rule per adversary (rows grouped by Q inside); None once ``progress`` is cancelled.

    The groups of equal Q go to the kernel in chunks of about 0.1 s (on one
    thread) or in pieces spread over the thread budget, so a cancel is seen
    during a level of millions of adversaries.
    """
    progress = progress or NullProgress()
    if len(rows) == 0:
        z = np.zeros(0, dtype=np.int64)
        return np.zeros(0, dtype=np.uint8), z.astype(np.int32), z, z, np.arange(0)
    order = np.lexsort(tuple(rows[:, t] for t in range(rows.shape[1] - 1, -1, -1)))
    rows_s = np.ascontiguousarray(rows[order])
    owners_s = np.ascontiguousarray(owners[order])
    change = np.any(rows_s[1:] != rows_s[:-1], axis=1)
    starts = np.concatenate(([0], np.flatnonzero(change) + 1, [len(rows_s)])).astype(np.int64)
    n = len(rows_s)
    unsafe = np.zeros(n, dtype=np.uint8)
    worst = np.zeros(n, dtype=np.int32)
    s_q = np.zeros(n, dtype=np.int64)
    s_qe = np.zeros(n, dtype=np.int64)
    n_items = len(post[0]) - 1
    n_groups = len(starts) - 1

    def scratch() -> tuple[np.ndarray, ...]:
        # The kernel's working arrays: one set per thread (memo is reset after every group, so any split of the
        # groups gives the same numbers).
        return (np.empty(max(n_records, 1), dtype=np.int32), np.empty(max(n_records, 1), dtype=np.int32),
                np.full(max(n_items, 1), -1, dtype=np.int64), np.empty(max(n_items, 1), dtype=np.int32))

    def run(g: int, g1: int, work: tuple[np.ndarray, ...]) -> None:
        # A slice of ``starts`` keeps the absolute row numbers: the kernel writes rows starts[g] .. starts[g1].
        check_groups(rows_s, owners_s, starts[g:g1 + 1], post[0], post[1], e[0], e[1], e[2], rho.numerator,
                     rho.denominator, unsafe, worst, s_q, s_qe, *work)

    # Groups write disjoint rows, so they are spread over the thread budget in pieces of about equal rows.
    workers = budget.workers(max(1, n // _ROWS_PER_PIECE))
    if workers > 1:
        if not _check_on_threads(starts, n, workers, run, scratch, progress):
            return None
        return unsafe, worst, s_q, s_qe, order
    work = scratch()
    sizer = ChunkSizer(initial=256, target=0.1)
    g = 0
    while g < n_groups:
        if progress.cancelled():
            return None
        g1 = min(n_groups, g + sizer.next_size())
        run(g, g1, work)
        sizer.done(g1 - g)
        g = g1
    return unsafe, worst, s_q, s_qe, order


#: Adversaries per piece of work when the check runs on several threads (a piece takes a few ms to 0.1 s).
_ROWS_PER_PIECE = 8192


def _check_on_threads(starts: np.ndarray, n: int, workers: int, run, scratch, progress: Progress) -> bool:
    """Run the groups of ``starts`` in pieces on ``workers`` threads of the budget; False once cancelled.

    Pieces are cut at group starts, about ``n / (16 workers)`` rows each (at least :data:`_ROWS_PER_PIECE`), so
    a thread that drew cheap groups takes the next piece instead of waiting at a join; the cancel is read
    before every piece.
    """
    import threading

    size = max(_ROWS_PER_PIECE, n // (16 * workers))
    cuts = np.searchsorted(starts, np.arange(0, n, size), side="left")
    bounds = np.unique(np.concatenate((cuts, [len(starts) - 1])))
    local = threading.local()

    def piece(i: int) -> bool:
        if progress.cancelled():
            return False
        work = getattr(local, "work", None)
        if work is None:
            work = local.work = scratch()
        run(int(bounds[i]), int(bounds[i + 1]), work)
        return True

    with budget.pool(workers, "rho-verify") as pool:
        done = all(list(pool.map(piece, range(len(bounds) - 1))))
    return done and not progress.cancelled()


def verify_rho(original: TransactionData, published: TransactionData, sensitive_pairs: tuple[np.ndarray, np.ndarray],
               rho: Fraction | str, m: int | None = None, *, epsilon: float | None = None, sampler: str = "user",
               samples: int = 20_000, confidence: float = 0.95, exhaustive_limit: int = 5_000_000,
               seed: int | None = 1, reported: dict | None = None, minsup: Fraction = Fraction(1, 2000),
               minconf: Fraction = Fraction(3, 10), mining_max_length: int = 12, worst_count: int = 10,
               progress: Progress | None = None) -> RhoVerification:
    """Check the release independently (see the module docstring).

    Parameters
    ----------
    sensitive_pairs
        (record, item id) arrays as written to ``E_USED.csv`` (record −1 = everyone).
    rho, m, epsilon
        The promise: exact ρ^m (``epsilon`` None: no unsafe adversary) or
        (ε, δ)-ρ^m (every level's unsafe share, under ``sampler``, below ε).
    samples, confidence, exhaustive_limit, seed
        Sampled check: adversaries per level and the interval's confidence;
        all adversaries are enumerated when there are at most
        ``exhaustive_limit`` (person, itemset) pairs.
    reported
        The run's utilities (``util_info``, ``util_dist``, ``util_mining``,
        ``suppressed_items``, rule counts) to compare with the recomputed ones.
    """
    progress = progress or NullProgress()
    t0 = time.perf_counter()
    rho = Fraction(rho) if not isinstance(rho, Fraction) else rho
    n = original.n_records
    progress.set(0.0, "checking records")
    problems = check_subsets(original, published)
    levels: list[RhoLevelCheck] = []
    worst: list[WorstRule] = []
    utilities: dict = {}
    mismatches: tuple[str, ...] = ()
    if problems:
        return RhoVerification(rho, m, epsilon, confidence, (), (), n, problems, {}, (), True,
                               time.perf_counter() - t0, exhaustive=False)
    e = _e_arrays(*sensitive_pairs, n, original.n_items)
    post = _postings(published)
    lengths = np.diff(original.indptr)
    longest = int(lengths.max()) if n else 0
    top = longest if m is None else min(int(m), longest)
    sizes, how_many = np.unique(lengths, return_counts=True)
    total = sum(int(c) * math.comb(int(k), ell) for k, c in zip(sizes, how_many) for ell in range(1, top + 1))
    exhaustive = total <= exhaustive_limit
    candidates: list[tuple[float, int, tuple[int, ...], int, int, int]] = []
    complete = True
    for ell in range(1, top + 1):
        if progress.cancelled():
            complete = False
            break
        progress.set(0.05 + 0.8 * (ell - 1) / max(top, 1), f"checking attackers who know {ell} item(s)")
        t1 = time.perf_counter()
        pool = np.flatnonzero(lengths >= ell).astype(np.int32)
        if not len(pool):
            continue
        by_length = np.array([math.comb(k, ell) for k in range(longest + 1)], dtype=np.float64)
        weights = by_length[lengths[pool]]  # the ell-subsets of each user's record, per length once
        if exhaustive:
            rows, owners = _adversaries_of_level(original, pool, ell)
            checked = _check(rows, owners, post, e, rho, n, progress)
            if checked is None:
                complete = False
                break
            unsafe, w_e, s_q, s_qe, order = checked
            owners_s = owners[order]
            per_user = np.bincount(owners_s, weights=unsafe, minlength=n)[pool]
            share_pair = float(unsafe.sum() / len(unsafe))
            share_user = float(np.mean(per_user / weights))
            share = share_user if sampler == "user" else share_pair
            count, k_unsafe = len(unsafe), int(unsafe.sum())
            levels.append(RhoLevelCheck(ell, "exhaustive", count, k_unsafe, share, share, share, share_user,
                                        share_pair, sampler, time.perf_counter() - t1))
            rows_s = rows[order]
        else:
            rng = np.random.default_rng(derive_seed(seed, "verifier", ell))
            if sampler == "user":
                users = pool[rng.integers(0, len(pool), size=samples)]
            else:
                cum = np.cumsum(weights)
                users = pool[np.minimum(np.searchsorted(cum, rng.random(samples) * cum[-1], side="right"),
                                        len(pool) - 1)]
            positions = np.empty((samples, ell), dtype=np.int64)
            distinct_positions(lengths[users].astype(np.int64), rng.random((samples, ell)), positions)
            rows = np.sort(original.indices[original.indptr[users][:, None] + positions], axis=1).astype(np.int32)
            checked = _check(rows, users.astype(np.int32), post, e, rho, n, progress)
            if checked is None:
                complete = False
                break
            unsafe, w_e, s_q, s_qe, order = checked
            owners_s = users[order]
            rows_s = rows[order]
            k_unsafe = int(unsafe.sum())
            lo, hi = clopper_pearson(k_unsafe, samples, confidence)
            share = k_unsafe / samples
            levels.append(RhoLevelCheck(ell, "sampled", samples, k_unsafe, share, lo, hi,
                                        share if sampler == "user" else None,
                                        share if sampler == "pair" else None, sampler, time.perf_counter() - t1))
        bad = np.flatnonzero(unsafe)
        if len(bad):
            conf = s_qe[bad] / s_q[bad]
            top_k = bad[np.argsort(-conf, kind="stable")[:worst_count]]
            for j in top_k:
                candidates.append((float(s_qe[j] / s_q[j]), int(owners_s[j]), tuple(int(v) for v in rows_s[j]),
                                   int(w_e[j]), int(s_q[j]), int(s_qe[j])))
    candidates.sort(key=lambda c: (-c[0], c[1]))
    for _conf, u, q, item, sq, sqe in candidates[:worst_count]:
        worst.append(WorstRule(u, tuple(original.vocab[i] for i in q), original.vocab[item], sq, sqe))
    if complete and progress.cancelled():
        complete = False
    if complete:
        progress.set(0.9, "recomputing utilities")
        recount = recompute_utilities(original, published, minsup, minconf, mining_max_length, progress=progress)
        utilities = recount or {}
        mismatches = _compare(reported or {}, utilities)
        # A cancel during the recount (or just after it) stops the check.
        complete = recount is not None and not progress.cancelled()
    progress.set(1.0, "check done" if complete else "check stopped")
    extra = {"adversaries_total": total, "sampler": sampler}
    return RhoVerification(rho, m, epsilon, confidence, tuple(levels), tuple(worst), n, problems, utilities,
                           mismatches, complete, time.perf_counter() - t0, exhaustive, extra)


#: The utilities a run reports that the check recomputes and compares.
_REPORTED = ("suppressed_items", "util_info", "util_dist", "util_mining", "rules_original", "rules_published",
             "rules_common")


def _exact(value: Any) -> Fraction:
    """A threshold typed as a decimal (0.0005), read exactly as the shortest decimal that prints as it."""
    return value if isinstance(value, Fraction) else Fraction(repr(float(value)))


def verify_result(original: TransactionData, result: Any, params: Any,
                  progress: Progress | None = None) -> RhoVerification:
    """Check a run in memory: its published records against D and the sensitive pairs it used.

    ``result`` gives the release (``published``), the sensitive items it
    protected (``constraint.pairs()``) and its reported utilities
    (``to_json()``); ``params`` the promise (ρ, m, ε, the sampler) and the
    check's settings. A stopped run's data so far can be checked too.
    """
    doc = result.to_json()
    return verify_rho(original, result.published, result.constraint.pairs(), params.rho_fraction, params.m,
                      epsilon=params.epsilon, sampler=params.sampler, samples=params.verify_samples,
                      confidence=params.verify_confidence, exhaustive_limit=params.exhaustive_limit,
                      seed=params.seed, reported={key: doc[key] for key in _REPORTED},
                      minsup=_exact(params.minsup), minconf=_exact(params.minconf),
                      mining_max_length=params.mining_max_length, progress=progress)
