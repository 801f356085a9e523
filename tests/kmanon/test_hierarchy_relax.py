"""σ = 1 under an item hierarchy: the un-generalization pass that ends every exact level.

The pass against a brute-force reference on random small inputs, the
guarantee and the local optimality of whole runs, its kernel against
itertools, ``PartitionState.split`` against a state built by merges, and
that σ < 1 levels never run it.
"""
import random

import numpy as np
import pytest

from anonstudio.data.hierarchy import Hierarchy
from anonstudio.kernels.generalized_support import key_bits, unpack_key
from anonstudio.kernels.hierarchy_split import itemset_support, new_itemset_keys, smallest_run
from anonstudio.methods.kmanon.algorithm import kmanonymize
from anonstudio.methods.kmanon.constraints import HierarchyCut, HierarchyNcpError
from anonstudio.methods.kmanon.constraints.hierarchy_cut import _HierarchyRun
from anonstudio.methods.kmanon.params import KmAnonParams
from anonstudio.methods.kmanon.partition_state import PartitionState
from tests.reference.kmanon_reference import (
    is_km_anonymous,
    labels_of_cut,
    lowered_children,
    new_itemsets,
    random_data,
    records_of,
    relax_reference,
)


def _random_tree(seed: int, n_items: int) -> Hierarchy:
    """A random tree over items 0..n-1: fan-outs 2-4, uneven depths, consecutive items as siblings."""
    rng = random.Random(seed)
    rows = [[str(i)] for i in range(n_items)]
    level = [[i] for i in range(n_items)]
    depth = 0
    while len(level) > 1:
        depth += 1
        nxt, pos = [], 0
        while pos < len(level):
            size = min(rng.randint(1, 4), len(level) - pos)
            group = level[pos:pos + size]
            pos += size
            if size == 1 and rng.random() < 0.5:
                nxt.append(group[0])  # this subtree skips a level: uneven depths
                continue
            members = [i for g in group for i in g]
            for i in members:
                rows[i].append(f"n{depth}.{len(nxt)}")
            nxt.append(members)
        level = nxt
    # pad every row to the root so that rows read leaf -> root
    return Hierarchy.from_rows([row + ["*"] for row in rows])


def _cut_of_result(level, tree) -> dict[int, int]:
    return {i: tree.find(level.names[int(p)]) for i, p in enumerate(level.labels)}


def _bound(data, tree, start: dict[int, int]):
    """A state, constraint run and NCP run holding the cut ``start`` (item -> node), reached by merges."""
    cons_spec = HierarchyCut(tree, data.vocab)
    state = PartitionState(data)
    cons = cons_spec.bind(state)
    err = HierarchyNcpError().bind(state)
    for node in sorted(set(start.values())):
        items = [i for i in start if start[i] == node]
        parts = sorted({int(state.label[i]) for i in items})
        if len(parts) > 1:
            move = tuple(parts)
            cons.target[move] = node
            keep = state.merge(move)
            err.merged(move, keep)
            cons.merged(move, keep)
        else:
            cons.cut[parts[0]] = node
    # a one-item partition may start above its leaf: price the start as it is
    err.total = sum(float(err.occ[p]) * err.node_loss[cons.cut[p]] for p in state.members)
    return state, cons, err


def _anonymous_start(data, tree, leaf, k, ell, seed) -> dict[int, int]:
    """A random k^ell-anonymous cut: random depths per item's subtree, else the children of the root, else the root."""
    rng = random.Random(seed)
    for _ in range(20):
        depth = {v: rng.randint(0, 2) for v in range(tree.n_nodes)}
        cut = {}
        for i in range(data.n_items):
            path = [int(leaf[i]), *tree.ancestors(int(leaf[i]))]  # leaf ... root
            # the ancestor at a random depth below the root (0-2), drawn once per child of the root
            # so that the items of one subtree agree and the nodes form a cut
            top = path[-2] if len(path) > 1 else path[-1]
            d = min(depth[top], len(path) - 1)
            cut[i] = path[len(path) - 1 - d]
        if _is_cut(tree, cut) and is_km_anonymous(data, labels_of_cut(cut), k, ell):
            return cut
    cut = {i: [int(leaf[i]), *tree.ancestors(int(leaf[i]))][-2] for i in range(data.n_items)}
    if is_km_anonymous(data, labels_of_cut(cut), k, ell):
        return cut
    return {i: tree.root for i in range(data.n_items)}


def _is_cut(tree, cut) -> bool:
    nodes = set(cut.values())
    return not any(a != b and tree.is_ancestor(a, b) for a in nodes for b in nodes)


def _pass_case(seed):
    rng = random.Random(seed)
    n_items = rng.randint(6, 14)
    data = random_data(100 + seed, rng.randint(40, 120), n_items, rng.randint(2, 5))
    tree = _random_tree(seed, n_items)
    k, ell = rng.randint(2, 4), rng.randint(1, 3)
    leaf = HierarchyCut(tree, data.vocab).leaf_of_item
    start = _anonymous_start(data, tree, leaf, k, ell, seed)
    want = relax_reference(data, tree, leaf, start, k, ell)

    state, cons, err = _bound(data, tree, start)
    splits = cons.exact_relax(data, ell, k, err, 10**9, lambda: False)
    got = {i: cons.cut[int(state.label[i])] for i in range(data.n_items)}
    assert got == want, f"seed {seed}"
    assert is_km_anonymous(data, state.label, k, ell)
    # the partitions are exactly the data items under their cut nodes, and the error is their NCP
    data_leaves = {int(v) for v in leaf}
    for p, node in cons.cut.items():
        under = {int(x) for x in tree.leaves_under(node)} & data_leaves
        assert {int(leaf[i]) for i in np.flatnonzero(state.label == p)} == under
    occ = data.item_frequencies
    ncp = sum(occ[i] * (tree.leaf_count(got[i]) - 1) / (tree.n_leaves - 1) for i in range(n_items)) / occ.sum()
    assert err.value == pytest.approx(ncp, abs=1e-12)
    return splits


def test_the_pass_matches_the_brute_force_reference():
    splits = [_pass_case(seed) for seed in range(16)]
    # the cases exercise splits that are kept and splits that are refused
    assert sum(s > 0 for s in splits) >= 4, splits


@pytest.mark.parametrize("seed", range(4))
def test_exact_runs_are_km_anonymous_and_no_split_is_left(seed):
    rng = random.Random(50 + seed)
    n_items = rng.randint(8, 16)
    data = random_data(200 + seed, 150, n_items, 5)
    tree = _random_tree(50 + seed, n_items)
    k, m = 3 + seed % 3, 3
    leaf = HierarchyCut(tree, data.vocab).leaf_of_item
    res = kmanonymize(data, HierarchyCut(tree, data.vocab), KmAnonParams(k=k, m=m, sigma=1.0, trials=2, seed=seed))
    assert res.complete
    data_leaves = {int(v) for v in leaf}
    for lv in res.levels:
        assert is_km_anonymous(data, lv.labels, k, lv.level)
        cut = _cut_of_result(lv, tree)
        assert _is_cut(tree, cut)
        for node in set(cut.values()) - {int(v) for v in leaf}:
            children = lowered_children(tree, node, data_leaves)
            split = {i: (next(c for c in children if tree.is_ancestor(c, int(leaf[i]))) if v == node else v)
                     for i, v in cut.items()}
            assert not is_km_anonymous(data, labels_of_cut(split), k, lv.level), \
                f"level {lv.level}: {tree.labels[node]} could be split"


def test_same_seed_same_release_at_any_thread_count():
    data = random_data(7, 200, 16, 5)
    tree = _random_tree(7, 16)
    runs = [kmanonymize(data, HierarchyCut(tree, data.vocab),
                        KmAnonParams(k=4, m=3, sigma=1.0, trials=3, seed=5, threads=t)) for t in (1, 2, 1)]
    for other in runs[1:]:
        assert [lv.labels.tolist() for lv in other.levels] == [lv.labels.tolist() for lv in runs[0].levels]
        assert [lv.error for lv in other.levels] == [lv.error for lv in runs[0].levels]


def test_sigma_below_one_never_relaxes(monkeypatch):
    calls = []
    monkeypatch.setattr(_HierarchyRun, "exact_relax", lambda self, *a, **kw: calls.append(a) or 0)
    data = random_data(8, 200, 16, 5)
    tree = _random_tree(8, 16)
    # exact when cheaper enumerates these levels, but sigma < 1 was asked for: no relaxation
    kmanonymize(data, HierarchyCut(tree, data.vocab), KmAnonParams(k=4, m=2, sigma=0.9, seed=1))
    assert calls == []
    kmanonymize(data, HierarchyCut(tree, data.vocab), KmAnonParams(k=4, m=2, sigma=1.0, seed=1))
    assert len(calls) == 2


def test_the_pass_lowers_the_loss_of_the_lift_by_lift_repair(monkeypatch):
    """On a case where an early lift is made unnecessary by later ones, the pass lowers the error."""
    data = random_data(2, 150, 16, 5)
    tree = _random_tree(2, 16)
    params = KmAnonParams(k=4, m=3, sigma=1.0, seed=1)
    after = kmanonymize(data, HierarchyCut(tree, data.vocab), params)
    monkeypatch.setattr(_HierarchyRun, "exact_relax", lambda self, *a, **kw: 0)
    before = kmanonymize(data, HierarchyCut(tree, data.vocab), params)
    errors = [(a.error, b.error) for a, b in zip(after.levels, before.levels, strict=True)]
    assert after.levels[1].error < before.levels[1].error - 0.04, errors  # 0.099 instead of 0.151


@pytest.mark.parametrize("seed", range(5))
def test_new_itemset_keys_against_itertools(seed):
    rng = np.random.default_rng(seed)
    data = random_data(300 + seed, 60, 12, 7)
    label = rng.integers(0, 12, size=12).astype(np.int32)
    is_new = np.zeros(12, dtype=np.bool_)
    is_new[rng.choice(np.unique(label), size=2, replace=False)] = True
    records = np.sort(rng.choice(60, size=30, replace=False)).astype(np.int32)
    bits = key_bits(12)
    for j in range(1, 5):
        want = new_itemsets(data, records, label, is_new, j)
        max_len = int(data.lengths.max())
        n = new_itemset_keys(data.indptr, data.indices, records, label, is_new, j, bits, max_len,
                             np.empty(0, np.uint64), 10**9)
        assert n == len(want)
        keys = np.empty(n, dtype=np.uint64)
        assert new_itemset_keys(data.indptr, data.indices, records, label, is_new, j, bits, max_len, keys,
                                10**9) == n
        got = []
        buf = np.empty(j, dtype=np.int64)
        for key in keys:
            m = unpack_key(key, bits, buf)
            got.append(tuple(sorted(int(x) for x in buf[:m])))
        assert sorted(got) == sorted(want)
        if n:
            keys.sort()
            counts = {c: want.count(c) for c in set(want)}
            run, where = smallest_run(keys)
            assert run == min(counts.values())
            assert want.count(_unpacked(keys[where], bits, j)) == run
        # a short buffer takes the first keys and the count says how many there are
        if n > 1:
            short = np.empty(n // 2, dtype=np.uint64)
            assert new_itemset_keys(data.indptr, data.indices, records, label, is_new, j, bits, max_len, short,
                                    10**9) == n
            full = np.empty(n, dtype=np.uint64)
            new_itemset_keys(data.indptr, data.indices, records, label, is_new, j, bits, max_len, full, 10**9)
            assert short.tolist() == full[: n // 2].tolist()
        # over the budget: says so at once
        if n > 1:
            assert new_itemset_keys(data.indptr, data.indices, records, label, is_new, j, bits, max_len,
                                    np.empty(0, np.uint64), n - 1) == n


def _unpacked(key, bits, j):
    buf = np.empty(j, dtype=np.int64)
    m = unpack_key(key, bits, buf)
    return tuple(sorted(int(x) for x in buf[:m]))


def test_itemset_support_counts_records_covering_the_labels():
    data = random_data(11, 80, 10, 6)
    rng = np.random.default_rng(1)
    label = rng.integers(0, 6, size=10).astype(np.int32)
    records = np.arange(0, 80, 2, dtype=np.int32)
    recs = records_of(data)
    for parts in ([0], [1, 3], [0, 2, 5], [4, 5]):
        want = sum(1 for u in records if set(parts) <= {int(label[i]) for i in recs[u]})
        arr = np.array(parts, dtype=np.int64)
        assert itemset_support(data.indptr, data.indices, records, label, arr, 10**6) == want
        assert itemset_support(data.indptr, data.indices, records, label, arr, 2) == min(want, 2)


def test_split_gives_the_postings_and_bitsets_of_a_state_built_by_merges():
    data = random_data(9, 400, 10, 6)
    state = PartitionState(data)
    state.big = 10  # every list longer than 10 records keeps a bitset
    state.merge([0, 3, 5, 7])
    state.merge([1, 2])
    ids = state.split(0, [[5, 0], [3], [7]])
    assert ids == [0, 3, 7]
    fresh = PartitionState(data)
    fresh.merge([0, 5])
    fresh.merge([1, 2])
    assert state.label.tolist() == fresh.label.tolist()
    assert sorted(state.members) == sorted(fresh.members)
    recs = records_of(data)
    for p in state.members:
        want = [u for u, rec in enumerate(recs) if any(int(state.label[i]) == p for i in rec)]
        assert state.posting(p).tolist() == want
        for q in state.members:
            assert state.support_at_least([p, q] if p != q else [p], 10**6) == \
                fresh.support_at_least([p, q] if p != q else [p], 10**6)
    with pytest.raises(ValueError):
        state.split(1, [[1]])  # item 2 left out


def test_the_remembered_itemset_only_saves_work(monkeypatch):
    """Refusing a split again from its remembered itemset gives the release a full enumeration gives."""
    import anonstudio.methods.kmanon.constraints.hierarchy_cut as hc

    data = random_data(12, 300, 20, 6)
    tree = _random_tree(12, 20)
    params = KmAnonParams(k=4, m=4, sigma=1.0, trials=2, seed=3)
    counted = []
    real = hc.itemset_support

    def counting(*args):
        counted.append(1)
        return real(*args)

    monkeypatch.setattr(hc, "itemset_support", counting)
    shortcut = kmanonymize(data, HierarchyCut(tree, data.vocab), params)
    assert counted, "no split was tried again at a later level"
    monkeypatch.setattr(hc, "itemset_support", lambda *args: 0)  # never conclusive: always enumerate
    full = kmanonymize(data, HierarchyCut(tree, data.vocab), params)
    assert [lv.labels.tolist() for lv in shortcut.levels] == [lv.labels.tolist() for lv in full.levels]
