"""Slow, obvious pure-Python reference of the independent evaluator (anonstudio.evaluate).

People and published records are plain Python objects built by the tests
next to the files they write, never read back from those files, so a reader
bug cannot hide here:

* a :class:`Person` has quasi-identifier values, a set of items, the items an
  attacker may learn (``pool``) and the sensitive atoms they hold;
* a :class:`Record` has, per quasi-identifier column, the set of values its
  cell stands for (with their shares), the items it stands for with their
  probabilities, the probabilities of its sensitive-column values, and for a
  nonreciprocal record its base, distance bitmap and threshold.

Candidates are found by testing every record, known sets by
``itertools.combinations``, possible worlds by enumerating every flip set,
and count queries by summing each record's probability of holding the query.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field


@dataclass
class Person:
    qi: dict[str, str] = field(default_factory=dict)
    items: frozenset = frozenset()
    pool: frozenset = frozenset()
    #: Sensitive atoms held: item labels, or ("column", value) for a sensitive column.
    sensitive: frozenset = frozenset()


@dataclass
class Record:
    #: column -> {value: share} of the values its cell stands for.
    qi: dict[str, dict[str, float]] = field(default_factory=dict)
    #: item -> probability the record holds it (1 published as such, 1/|g| inside a generalized item g).
    items: dict[str, float] = field(default_factory=dict)
    #: sensitive-column value -> probability.
    sensitive: dict[str, float] = field(default_factory=dict)
    base: frozenset | None = None
    dist: frozenset | None = None
    threshold: int | None = None


def _worlds(record: Record):
    """Every possible world of a nonreciprocal record (each equally likely)."""
    dist = sorted(record.dist)
    for f in range(min(record.threshold, len(dist)) + 1):
        for flips in itertools.combinations(dist, f):
            yield set(record.base) ^ set(flips)


def world_share(record: Record, items) -> float:
    """Share of the record's possible worlds that hold every item of ``items``."""
    worlds = list(_worlds(record))
    return sum(1 for w in worlds if set(items) <= w) / len(worlds)


def holds(record: Record, atom) -> float:
    """The probability that ``record`` holds a sensitive atom (an item, or ("column", value))."""
    if isinstance(atom, tuple):
        return record.sensitive.get(atom[1], 0.0)
    if record.base is not None:
        return world_share(record, [atom])
    return record.items.get(atom, 0.0)


def candidates(records: list[Record], person: Person, known) -> list[int]:
    """Records consistent with the person's quasi-identifiers and the known items."""
    out = []
    known = set(known)
    for j, rec in enumerate(records):
        if any(person.qi[c] not in cell for c, cell in rec.qi.items()):
            continue
        if rec.base is not None:
            if not known <= (rec.base | rec.dist) or len(known - rec.base) > rec.threshold:
                continue
        elif not known <= set(rec.items):
            continue
        out.append(j)
    return out


def known_sets(person: Person, m: int):
    pool = sorted(person.pool)
    if len(pool) <= m:
        return [tuple(pool)]
    return list(itertools.combinations(pool, m))


def pair_values(records, people, own, u, known, k, rho):
    """(prosecutor value, at risk, disclosed, candidates, own a candidate, highest confidence) of one pair."""
    person = people[u]
    cands = candidates(records, person, known)
    mine = own[u] in cands
    count = len(cands)
    best = -1.0
    disclosed = False
    for s in person.sensitive:
        if s in known:
            continue
        total = sum(holds(records[j], s) for j in cands)
        if count:
            best = max(best, total / count)
            if total > rho * count + 1e-9:
                disclosed = True
    return (1.0 / count if mine else 0.0), (mine and count < k), (mine and disclosed), count, mine, best


def risk_measures(records, people, own, m: int, k: int, rho: float) -> tuple[float, float, float]:
    """Exact prosecutor risk, share at risk and attribute disclosure: means over people of means over their
    known sets."""
    pr = risk = attr = 0.0
    for u, person in enumerate(people):
        sets = known_sets(person, m)
        values = [pair_values(records, people, own, u, K, k, rho) for K in sets]
        pr += sum(v[0] for v in values) / len(sets)
        risk += sum(v[1] for v in values) / len(sets)
        attr += sum(v[2] for v in values) / len(sets)
    n = len(people)
    return pr / n, risk / n, attr / n


def fewest_candidates(records, people, own, m: int) -> int | None:
    """The fewest candidates any person whose own record is a candidate has, over all known sets."""
    best = None
    for u, person in enumerate(people):
        for K in known_sets(person, m):
            cands = candidates(records, person, K)
            if own[u] in cands and (best is None or len(cands) < best):
                best = len(cands)
    return best


def query_estimate(records: list[Record], items=(), values: dict | None = None) -> float:
    """The release's estimate of "how many people hold all ``items`` and have ``values`` (column -> value,
    quasi-identifier or sensitive column)": each record's chance of holding them, summed."""
    values = values or {}
    total = 0.0
    for rec in records:
        w = 1.0
        for column, value in values.items():
            if column in rec.qi:
                w *= rec.qi[column].get(value, 0.0)
            else:
                w *= rec.sensitive.get(value, 0.0)
        if not w:
            continue
        if rec.base is not None:
            w *= world_share(rec, items)
        else:
            for item in items:
                w *= rec.items.get(item, 0.0)
        total += w
    return total


def true_count(people: list[Person], items=(), values: dict | None = None, sensitive_column: str | None = None) -> int:
    """People holding every item and value of the query."""
    values = values or {}
    n = 0
    for p in people:
        if not set(items) <= p.items:
            continue
        ok = True
        for column, value in values.items():
            if column == sensitive_column:
                ok &= (column, value) in p.sensitive
            else:
                ok &= p.qi.get(column) == value
        n += ok
    return n


def total_variation(p: dict, q: dict) -> float:
    """½ Σ |p/Σp - q/Σq| over the union of keys."""
    sp, sq = sum(p.values()), sum(q.values())
    keys = set(p) | set(q)
    return 0.5 * sum(abs(p.get(x, 0) / sp - q.get(x, 0) / sq) for x in keys)
