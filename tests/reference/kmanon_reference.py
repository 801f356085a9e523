"""Slow, obvious references for probabilistic k^m-anonymization tests.

Everything here works on Python sets and itertools: enumerate Omega^ell,
sample from it uniformly, count generalized supports, check k^m-anonymity.
"""
from __future__ import annotations

import itertools
import random

import numpy as np


def records_of(data) -> list[frozenset[int]]:
    return [frozenset(int(i) for i in data.record(u)) for u in range(data.n_records)]


def omega(data, ell: int) -> list[tuple[int, ...]]:
    """All ell-itemsets occurring in at least one record, sorted."""
    out = set()
    for rec in records_of(data):
        out.update(itertools.combinations(sorted(rec), ell))
    return sorted(out)


def generalized_support(records, labels, itemset) -> int:
    """Records whose generalized record contains the generalization of ``itemset``."""
    image = {int(labels[i]) for i in itemset}
    return sum(1 for rec in records if image <= {int(labels[i]) for i in rec})


def violators(data, labels, k: int, ell: int) -> list[tuple[int, ...]]:
    """ell-itemsets of the original data whose generalized support is below k."""
    records = records_of(data)
    gen = [frozenset(int(labels[i]) for i in rec) for rec in records]
    bad = []
    for x in omega(data, ell):
        image = {int(labels[i]) for i in x}
        if sum(1 for g in gen if image <= g) < k:
            bad.append(x)
    return bad


def partition_records(records, part) -> dict[int, list[int]]:
    """Partition -> the records (0-based, ascending) holding at least one of its items; ``part`` maps items."""
    out: dict[int, list[int]] = {}
    for u, rec in enumerate(records):
        for p in sorted({int(part[i]) for i in rec}):
            out.setdefault(p, []).append(u)
    return out


def is_km_anonymous(data, labels, k: int, m: int) -> bool:
    return all(not violators(data, labels, k, ell) for ell in range(1, m + 1))


def fraction_k_anonymous(data, labels, k: int, ell: int) -> float:
    om = omega(data, ell)
    if not om:
        return 1.0
    return 1.0 - len(violators(data, labels, k, ell)) / len(om)


class BruteForceSampler:
    """Uniform i.i.d. samples from an enumerated Omega^ell (same interface as ItemsetSampler)."""

    def __init__(self, data, ell, seed, chains=1):
        self.items = np.array(omega(data, ell), dtype=np.int32).reshape(-1, ell)
        self.rng = np.random.default_rng(seed)

    def burn_in(self, progress=None):
        return None

    def draw(self, n, progress=None):
        if len(self.items) == 0:
            return np.zeros((0, self.items.shape[1]), np.int32), np.zeros(0, np.int64)
        rows = self.rng.integers(0, len(self.items), size=n)
        return self.items[rows], np.zeros(n, np.int64)


def brute_force_factory(data, ell, seed, chains):
    return BruteForceSampler(data, ell, seed, chains)


def random_data(seed: int, n_records: int, n_items: int, max_len: int):
    """Small random set-valued data with skewed item popularity."""
    from anonstudio.data.transactions import TransactionData

    rng = random.Random(seed)
    weights = [1.0 / (i + 1) for i in range(n_items)]
    records = []
    for _ in range(n_records):
        size = rng.randint(1, max_len)
        rec = set()
        while len(rec) < size:
            rec.add(rng.choices(range(n_items), weights)[0])
        records.append(sorted(rec))
    return TransactionData.from_id_lists(records, n_items=n_items)
