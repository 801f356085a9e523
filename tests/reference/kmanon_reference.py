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


# ------------------------------------------------------ hierarchy relaxation
def lowered_children(tree, node: int, data_leaves: set[int]) -> list[int]:
    """Children of ``node`` holding a data leaf, each moved down while one child alone holds its data leaves."""
    def holds(v):
        return any(int(x) in data_leaves for x in tree.leaves_under(v))

    out = []
    for c in tree.children(node):
        if not holds(c):
            continue
        while True:
            kids = [g for g in tree.children(c) if holds(g)]
            if len(kids) != 1:
                break
            c = kids[0]
        out.append(c)
    return out


def new_itemsets(data, records, label, is_new, j: int) -> list[tuple[int, ...]]:
    """Every generalized j-itemset holding a new partition, once per record of ``records`` that holds it."""
    recs = records_of(data)
    out = []
    for u in records:
        parts = sorted({int(label[i]) for i in recs[int(u)]})
        out += [c for c in itertools.combinations(parts, j) if any(is_new[p] for p in c)]
    return out


def labels_of_cut(item_node: dict[int, int]) -> np.ndarray:
    """Item -> partition id (the smallest item released as the same node)."""
    first: dict[int, int] = {}
    for i in sorted(item_node):
        first.setdefault(item_node[i], i)
    return np.array([first[item_node[i]] for i in sorted(item_node)], dtype=np.int64)


def relax_reference(data, tree, leaf_of_item, item_node: dict[int, int], k: int, ell: int) -> dict[int, int]:
    """Split cut nodes into their children while the whole release stays k^ell-anonymous (brute force).

    Among the inner cut nodes not refused yet, the one whose split saves the
    most NCP (occurrences times ``leaves - 1``; ties: the smaller node id) is
    split; if the release is then not k^ell-anonymous the split is undone and
    the node refused. Ends when no inner cut node is left to try.
    """
    occ = data.item_frequencies
    data_leaves = {int(v) for v in leaf_of_item}
    cut = dict(item_node)
    refused: set[int] = set()
    while True:
        best = None
        for node in sorted(set(cut.values())):
            if tree.is_leaf(node) or node in refused:
                continue
            items = [i for i in cut if cut[i] == node]
            children = lowered_children(tree, node, data_leaves)
            after = 0
            for i in items:
                child = next(c for c in children if tree.is_ancestor(c, int(leaf_of_item[i])))
                after += int(occ[i]) * (tree.leaf_count(child) - 1)
            saving = sum(int(occ[i]) for i in items) * (tree.leaf_count(node) - 1) - after
            if saving > 0 and (best is None or (-saving, node) < best[0]):
                best = ((-saving, node), node, children)
        if best is None:
            return cut
        _, node, children = best
        trial = dict(cut)
        for i in cut:
            if cut[i] == node:
                trial[i] = next(c for c in children if tree.is_ancestor(c, int(leaf_of_item[i])))
        if is_km_anonymous(data, labels_of_cut(trial), k, ell):
            cut = trial
        else:
            refused.add(node)


def bitset_words(records, n_records: int) -> list[int]:
    """The 64-bit words of a bitset over ``n_records`` records with bit ``p`` set for each ``p`` in ``records``."""
    words = [0] * ((n_records + 63) // 64)
    for p in records:
        words[p // 64] |= 1 << (p % 64)
    return words
