"""Utility loss of a suppression: util_info (eq. 5), util_dist (eq. 6) and util_mining (eq. 12).

* util_info = suppressed occurrences / all occurrences.
* util_dist = KL(D'‖D) = Σ_i D'(i) ln(D'(i)/D(i)), D' first, natural log, item
  frequencies normalized over all occurrences (R-7); items gone from D'
  contribute 0. Never the reverse: KL(D‖D') is infinite once an item is gone.
  None when D' has no items left.
* util_mining = 1 − |R_D ∩ R_D'| / |R_D ∪ R_D'| over association rules X→Y
  (X, Y non-empty and disjoint, any consequent size, R-9) with support count
  ≥ minsup·n (n = records) and confidence ≥ minconf, both inclusive and
  compared exactly. 0 when both rule sets are empty.

Frequent itemsets are mined level by level with efficient-apriori's candidate
generation (a maintained, dependency-free Apriori), counted here so that a
cancel is seen between chunks of candidates; the rules are generated from
their counts in integer arithmetic, so the thresholds are exact.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, islice

import numpy as np
from efficient_apriori.itemsets import apriori_gen

from ...data.transactions import TransactionData

__all__ = ["util_info", "util_dist", "MiningUtility", "MiningCancelled", "util_mining", "association_rules",
           "frequent_itemsets"]


def util_info(original: TransactionData, published: TransactionData) -> float:
    """Share of item occurrences suppressed (eq. 5)."""
    total = len(original.indices)
    return (total - len(published.indices)) / total if total else 0.0


def util_dist(original: TransactionData, published: TransactionData) -> float | None:
    """KL(D'‖D) over item frequencies (eq. 6, natural log); None if D' is empty."""
    c = original.item_frequencies.astype(np.float64)
    c1 = np.bincount(published.indices, minlength=len(c)).astype(np.float64)
    t, t1 = c.sum(), c1.sum()
    if t1 == 0 or t == 0:
        return None
    held = c1 > 0
    p1 = c1[held] / t1
    p0 = c[held] / t
    return float(np.sum(p1 * np.log(p1 / p0)))


class MiningCancelled(Exception):
    """The rule mining saw a cancel between two chunks of candidates."""


#: Candidates counted between two looks at the cancel flag (~10-50 ms of set intersections).
_CHUNK = 512


def frequent_itemsets(data: TransactionData, min_count: int,
                      cancelled: Callable[[], bool] | None = None) -> dict[tuple[int, ...], int]:
    """Itemsets (sorted item-id tuples) held by at least ``min_count`` records, with their counts.

    Apriori level by level with efficient-apriori's candidate generation
    (join and prune), each candidate counted by intersecting the posting sets
    of its items (rarest first, stopped as soon as it falls below the count).
    ``cancelled`` is polled every few hundred candidates and at every level,
    so a long mining stops within a fraction of a second
    (:class:`MiningCancelled`). The result is the library's exactly: the set of
    itemsets with count ≥ ``min_count``, compared in integers.
    """
    n = data.n_records
    if n == 0 or len(data.indices) == 0:
        return {}
    cancelled = cancelled or (lambda: False)
    max_len = int(data.lengths.max())
    postings: dict[int, set[int]] = {}
    for u in range(n):
        if u % 65536 == 0 and cancelled():
            raise MiningCancelled
        for item in data.indices[data.indptr[u]:data.indptr[u + 1]].tolist():
            postings.setdefault(item, set()).add(u)
    level = {(item,): len(rows) for item, rows in postings.items() if len(rows) >= min_count}
    out: dict[tuple[int, ...], int] = dict(level)
    size = 2
    while level and size <= max_len:
        found: dict[tuple[int, ...], int] = {}
        candidates = apriori_gen(sorted(level))
        while True:
            if cancelled():
                raise MiningCancelled
            chunk = list(islice(candidates, _CHUNK))
            if not chunk:
                break
            for candidate in chunk:
                count = _support(candidate, postings, min_count)
                if count >= min_count:
                    found[candidate] = count
        out.update(found)
        level = found
        size += 1
    return out


def _support(candidate: tuple[int, ...], postings: dict[int, set[int]], min_count: int) -> int:
    """Records holding every item of ``candidate``; stops early (returning less) below ``min_count``."""
    items = sorted(candidate, key=lambda item: len(postings[item]))
    rows = postings[items[0]]
    for item in items[1:]:
        rows = rows & postings[item]
        if len(rows) < min_count:
            return len(rows)
    return len(rows)


Rule = tuple[tuple[int, ...], tuple[int, ...]]


def association_rules(itemsets: dict[tuple[int, ...], int], minconf: Fraction) -> set[Rule]:
    """All rules X→Y (X, Y non-empty, disjoint, X∪Y frequent) with supp(X∪Y) ≥ minconf·supp(X), exactly."""
    a, b = minconf.numerator, minconf.denominator
    rules = set()
    for z, count in itemsets.items():
        if len(z) < 2:
            continue
        for size in range(1, len(z)):
            for x in combinations(z, size):
                # every subset of a frequent itemset is frequent (downward closure)
                if b * count >= a * itemsets[x]:
                    rules.add((x, tuple(i for i in z if i not in x)))
    return rules


@dataclass(frozen=True)
class MiningUtility:
    """util_mining with its thresholds and rule counts."""

    value: float | None
    minsup: Fraction
    minconf: Fraction
    min_count: int
    rules_original: int | None
    rules_published: int | None
    rules_common: int | None
    reason: str = ""

    def to_json(self) -> dict:
        return {"util_mining": self.value, "minsup": float(self.minsup), "minconf": float(self.minconf),
                "min_support_count": self.min_count, "rules_original": self.rules_original,
                "rules_published": self.rules_published, "rules_common": self.rules_common,
                "util_mining_note": self.reason or None}


def min_support_count(minsup: Fraction, n_records: int) -> int:
    """Least count c with c ≥ minsup·n (inclusive; at least 1)."""
    return max(1, math.ceil(minsup * n_records))


def util_mining(original: TransactionData, published: TransactionData, minsup: Fraction, minconf: Fraction,
                max_length: int, cancelled: Callable[[], bool] | None = None) -> MiningUtility:
    """Jaccard distance of the association-rule sets of D and D' (eq. 12).

    Not computed (value None, ``reason`` says why) when a record of D is
    longer than ``max_length``: Apriori explodes on long records, and the
    paper mines only records of up to 5 items. A cancel (``cancelled``)
    raises :class:`MiningCancelled`.
    """
    n = original.n_records
    min_count = min_support_count(minsup, n)
    longest = int(original.lengths.max()) if n else 0
    if longest > max_length:
        return MiningUtility(None, minsup, minconf, min_count, None, None, None,
                             f"not computed: records of up to {longest} items exceed the mining limit of "
                             f"{max_length}")
    rules_d = original.derived(("rho-rules", minsup, minconf),
                               lambda: frozenset(association_rules(frequent_itemsets(original, min_count, cancelled),
                                                                   minconf)))
    rules_p = association_rules(frequent_itemsets(published, min_count, cancelled), minconf)
    common = len(rules_d & rules_p)
    union = len(rules_d) + len(rules_p) - common
    value = 1.0 - common / union if union else 0.0
    return MiningUtility(value, minsup, minconf, min_count, len(rules_d), len(rules_p), common)
