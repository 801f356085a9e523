"""Slow, obvious references for the RT method: NCP, Cluster, RMERGE_R, brute-force (k, k^m), UL, BTD.

Plain Python on lists and sets; nothing shared with the fast code except the
seeded stream of seed positions (drawn with the same numpy calls on purpose,
so both pick the same seeds).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from anonstudio.data.hierarchy import Hierarchy
from anonstudio.data.table import RTData, Table
from anonstudio.data.transactions import TransactionData
from anonstudio.jobs import derive_seed


@dataclass
class RefColumn:
    """``kind``: numeric, hierarchy (``parent`` map, ``leaves`` of the tree) or set (``domain`` size)."""

    name: str
    kind: str
    values: list
    parent: dict | None = None
    n_leaves: int = 0
    domain: int = 0


def _ancestors(parent: dict, leaf) -> list:
    out = [leaf]
    while out[-1] in parent:
        out.append(parent[out[-1]])
    return out


def _leaves_under(parent: dict, node) -> int:
    leaves = [x for x in parent if x not in set(parent.values())]
    return sum(1 for x in leaves if node in _ancestors(parent, x))


def ref_ncp(columns: list[RefColumn], rows) -> float:
    """NCP of the generalized tuple of ``rows`` (weights 1/v)."""
    total = 0.0
    for col in columns:
        vals = [col.values[r] for r in rows]
        if col.kind == "numeric":
            span = max(col.values) - min(col.values)
            total += (max(vals) - min(vals)) / span if span > 0 else 0.0
        elif col.kind == "hierarchy":
            paths = [_ancestors(col.parent, v) for v in vals]
            common = [x for x in paths[0] if all(x in p for p in paths)][0]
            size = _leaves_under(col.parent, common)
            total += 0.0 if size <= 1 else size / col.n_leaves
        else:
            size = len(set(vals))
            total += 0.0 if size <= 1 else size / col.domain
    return total / len(columns)


def ref_seed_positions(n: int, k: int, seed: int) -> list[int]:
    rng = np.random.default_rng(derive_seed(seed, "rt-cluster"))
    highs = n - np.arange(n // k, dtype=np.int64) * k
    return rng.integers(0, highs).tolist() if n // k else []


def ref_cluster(columns: list[RefColumn], n: int, k: int, seed: int) -> list[list[int]]:
    """Cluster: seeds, k-1 nearest (ties: lower row), leftovers to the cheapest cluster, join equal tuples."""
    alive = list(range(n))
    clusters: list[list[int]] = []
    for pos in ref_seed_positions(n, k, seed):
        s = alive[pos]
        others = [r for r in alive if r != s]
        others.sort(key=lambda r: (ref_ncp(columns, [s, r]), r))
        members = [s] + others[:k - 1]
        clusters.append(sorted(members))
        alive = [r for r in alive if r not in members]
    for r in alive:
        best = min(range(len(clusters)), key=lambda c: (ref_ncp(columns, clusters[c] + [r]), c))
        clusters[best] = sorted(clusters[best] + [r])
    joined: dict[tuple, list[int]] = {}
    for members in clusters:
        joined.setdefault(ref_tuple(columns, members), []).extend(members)
    return [sorted(m) for m in joined.values()]


def ref_tuple(columns: list[RefColumn], rows) -> tuple:
    out = []
    for col in columns:
        vals = [col.values[r] for r in rows]
        if col.kind == "numeric":
            out.append((min(vals), max(vals)))
        elif col.kind == "hierarchy":
            paths = [_ancestors(col.parent, v) for v in vals]
            out.append([x for x in paths[0] if all(x in p for p in paths)][0])
        else:
            out.append(frozenset(vals))
    return tuple(out)


def ref_rmerge_r(columns: list[RefColumn], clusters: list[list[int]], n: int, delta: float) -> list[list[int]]:
    """RMERGE_R with every Rum recomputed from scratch; merged clusters keep the lower id."""
    clusters = {c: list(m) for c, m in enumerate(clusters)}

    def rum(cl):
        return sum(len(m) * ref_ncp(columns, m) for m in cl.values()) / n

    while len(clusters) > 1:
        seed = min(clusters, key=lambda c: (ref_ncp(columns, clusters[c]), c))
        partner = min((c for c in clusters if c != seed),
                      key=lambda c: (ref_ncp(columns, clusters[seed] + clusters[c]), c))
        trial = dict(clusters)
        keep, gone = min(seed, partner), max(seed, partner)
        trial[keep] = sorted(clusters[seed] + clusters[partner])
        del trial[gone]
        if rum(trial) > delta + 1e-12:
            break
        clusters = trial
    return sorted(sorted(m) for m in clusters.values())


def ref_km_violations(groups: list[tuple], items: list[list[str]], k: int, m: int) -> set[int]:
    """Rows r with some set of at most m of their published items shared by fewer than k rows of equal ``groups``."""
    bad = set()
    for r in range(len(groups)):
        same = [q for q in range(len(groups)) if groups[q] == groups[r]]
        for size in range(m + 1):
            for itemset in itertools.combinations(sorted(set(items[r])), size):
                if sum(1 for q in same if set(itemset) <= set(items[q])) < k:
                    bad.add(r)
    return bad


def ref_ul(sizes: list[int]) -> Fraction:
    """UL of one record, exactly: Σ over its published generalized items of |ũ| ≥ 2 of (2^|ũ| − 1) / (2^σ − 1),
    σ the sum of |ũ| over all its published items."""
    sigma = sum(sizes)
    if sigma == 0:
        return Fraction(0)
    return Fraction(sum(2 ** a - 1 for a in sizes if a >= 2), 2 ** sigma - 1)


def ref_btd(a: set, b: set) -> float:
    """The paper's bit-vector transaction distance of two item sets: (|a ⊕ b| + 1) / (|a ∧ b| + 1) · |a ∨ b|."""
    return (len(a ^ b) + 1) / (len(a & b) + 1) * len(a | b)


def ref_cluster_btd(records: list[set]) -> float:
    """BTD of a cluster: the largest BTD of two of its records (0 for fewer than two)."""
    return max((ref_btd(a, b) for a, b in itertools.combinations(records, 2)), default=0.0)


def random_rt(seed: int, n: int = 40, n_items: int = 8, max_len: int = 4, empty: bool | None = None):
    """Small random RT-data: age (numeric), zone (hierarchy), sex (set); items i0..; and the reference columns.

    Records may be empty when ``empty`` (default: odd seeds).
    """
    empty = bool(seed % 2) if empty is None else empty
    rng = np.random.default_rng(seed)
    ages = rng.integers(18, 80, n).tolist()
    zones = [f"z{x}" for x in rng.integers(0, 6, n).tolist()]
    sexes = rng.choice(["F", "M", "X"], n).tolist()
    records = []
    for _ in range(n):
        size = int(rng.integers(0 if empty else 1, max_len + 1))
        records.append(sorted({f"i{x}" for x in rng.integers(0, n_items, size).tolist()}))
    frame = pd.DataFrame({"age": ages, "zone": zones, "sex": sexes})
    vocab = [f"i{x}" for x in range(n_items)]
    data = RTData(Table(frame), TransactionData.from_records(records, vocab=vocab, name="items"))
    zone_rows = [[f"z{x}", f"r{x // 2}", f"s{x // 4}", "*"] for x in range(6)]
    hierarchy = Hierarchy.from_rows(zone_rows, name="zone")
    parent = {}
    for row in zone_rows:
        for a, b in zip(row, row[1:]):
            parent[a] = b
    columns = [RefColumn("age", "numeric", ages), RefColumn("zone", "hierarchy", zones, parent, 6),
               RefColumn("sex", "set", sexes, domain=len(set(sexes)))]
    return data, hierarchy, zone_rows, columns
