"""Slow, obvious pure-Python versions of the uniqueness-area computations.

Records are plain lists of Python sets; nothing here shares code with
``anonstudio.kernels`` or ``anonstudio.metrics``.
"""
from __future__ import annotations

import random
from collections import Counter
from itertools import combinations
from math import prod


def support(records: list[set], itemset) -> int:
    """Records containing every item of ``itemset``."""
    s = set(itemset)
    return sum(1 for r in records if s <= r)


def q_value(records: list[set], itemset) -> float:
    """Algorithm 1's q(x) = sum over records u ⊇ x of prod_{i=1..l} 1/(|D_u| - l + i)."""
    s = set(itemset)
    ell = len(s)
    return sum(prod(1.0 / (len(r) - ell + i) for i in range(1, ell + 1)) for r in records if s <= r)


def omega(records: list[set], m: int) -> Counter:
    """Every m-itemset occurring in some record (sorted tuple) -> its support."""
    counts: Counter = Counter()
    for r in records:
        for x in combinations(sorted(r), m):
            counts[x] += 1
    return counts


def uniqueness(records: list[set], m: int) -> float:
    """|{x : |x| = m, supp(x) = 1}| / |{x : |x| = m, supp(x) >= 1}| (nan if none)."""
    counts = omega(records, m)
    if not counts:
        return float("nan")
    return sum(1 for c in counts.values() if c == 1) / len(counts)


def person_unicity(records: list[set], m: int) -> float:
    """Exact record-first unicity: mean over people with >= m items of the share
    of their m-subsets that only they hold."""
    counts = omega(records, m)
    shares = []
    for r in records:
        if len(r) < m:
            continue
        subsets = list(combinations(sorted(r), m))
        shares.append(sum(1 for x in subsets if counts[x] == 1) / len(subsets))
    return sum(shares) / len(shares) if shares else float("nan")


def naive_record_first_draws(records: list[set], ell: int, n: int, seed: int) -> list[tuple]:
    """de Montjoye-style draws: a record uniformly, then ell of its items (biased over Omega)."""
    rng = random.Random(seed)
    pool = [sorted(r) for r in records if len(r) >= ell]
    return [tuple(sorted(rng.sample(rng.choice(pool), ell))) for _ in range(n)]


def linkage_matches(records: list[set], revealed) -> list[int]:
    """Ids of the records containing every revealed item."""
    s = set(revealed)
    return [u for u, r in enumerate(records) if s <= r]


def random_records(rng: random.Random, n_records: int, n_items: int, max_len: int) -> list[set]:
    """Random non-empty records with lengths 1..max_len."""
    return [set(rng.sample(range(n_items), rng.randint(1, min(max_len, n_items)))) for _ in range(n_records)]
