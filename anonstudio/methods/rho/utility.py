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

Frequent itemsets come from efficient-apriori (a maintained, dependency-free
Apriori); the rules are generated here from their counts in integer
arithmetic, so the thresholds are exact whatever the library rounds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

import numpy as np
from efficient_apriori import itemsets_from_transactions

from ...data.transactions import TransactionData

__all__ = ["util_info", "util_dist", "MiningUtility", "util_mining", "association_rules", "frequent_itemsets"]


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


def frequent_itemsets(data: TransactionData, min_count: int) -> dict[tuple[int, ...], int]:
    """Itemsets (sorted item-id tuples) held by at least ``min_count`` records, with their counts."""
    n = data.n_records
    if n == 0 or len(data.indices) == 0:
        return {}
    max_len = int(data.lengths.max())
    records = [tuple(data.indices[data.indptr[u]:data.indptr[u + 1]].tolist()) for u in range(n)]
    # Half a record below the count keeps the library's float comparison off the boundary;
    # the exact filter follows.
    support = max(min_count - 0.5, 0.0) / n
    itemsets, _ = itemsets_from_transactions(records, min_support=support, max_length=max_len)
    out: dict[tuple[int, ...], int] = {}
    for level in itemsets.values():
        for items, count in level.items():
            if count >= min_count:
                out[tuple(sorted(items))] = int(count)
    return out


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
                max_length: int) -> MiningUtility:
    """Jaccard distance of the association-rule sets of D and D' (eq. 12).

    Not computed (value None, ``reason`` says why) when a record of D is
    longer than ``max_length``: Apriori explodes on long records, and the
    paper mines only records of up to 5 items.
    """
    n = original.n_records
    min_count = min_support_count(minsup, n)
    longest = int(original.lengths.max()) if n else 0
    if longest > max_length:
        return MiningUtility(None, minsup, minconf, min_count, None, None, None,
                             f"not computed: records of up to {longest} items exceed the mining limit of "
                             f"{max_length}")
    rules_d = original.derived(("rho-rules", minsup, minconf),
                               lambda: frozenset(association_rules(frequent_itemsets(original, min_count), minconf)))
    rules_p = association_rules(frequent_itemsets(published, min_count), minconf)
    common = len(rules_d & rules_p)
    union = len(rules_d) + len(rules_p) - common
    value = 1.0 - common / union if union else 0.0
    return MiningUtility(value, minsup, minconf, min_count, len(rules_d), len(rules_p), common)
