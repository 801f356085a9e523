"""Helpers of the rho tests: tiny random datasets and constraints."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from anonstudio.data.transactions import TransactionData
from anonstudio.methods.rho.sensitive import SensitiveConstraint

DATA = Path(__file__).resolve().parents[1] / "data" / "rho"


def constraint_from_sets(data: TransactionData, sets: list[set[int]]) -> SensitiveConstraint:
    """E from one set of item ids per record."""
    recs = np.array([u for u, s in enumerate(sets) for _ in s], dtype=np.int64)
    items = np.array([i for s in sets for i in sorted(s)], dtype=np.int64)
    return SensitiveConstraint.from_pairs(data.n_records, data.vocab, data.n_items, recs, items)


def random_case(seed: int, max_records: int = 25, max_items: int = 7, max_len: int = 5):
    """(records, data, E sets, constraint) of a random tiny dataset (empty records included)."""
    rnd = random.Random(seed)
    n = rnd.randint(1, max_records)
    ni = rnd.randint(1, max_items)
    records = [sorted(rnd.sample(range(ni), rnd.randint(0, min(ni, max_len)))) for _ in range(n)]
    data = TransactionData.from_id_lists(records, n_items=ni)
    sets = [set(rnd.sample(range(ni), rnd.randint(0, ni))) for _ in range(n)]
    return records, data, sets, constraint_from_sets(data, sets)


def as_lists(data: TransactionData) -> list[list[int]]:
    return [sorted(data.record(u).tolist()) for u in range(data.n_records)]


def multiset(data: TransactionData) -> list[tuple[str, ...]]:
    return sorted(tuple(data.record_labels(u)) for u in range(data.n_records))
