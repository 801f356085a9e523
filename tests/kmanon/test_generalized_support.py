"""Generalized support kernels against brute force on random partitions."""

import itertools

import numpy as np
import pytest

from anonstudio.kernels.generalized_support import (
    NO_ROW,
    binomial_table,
    count_keys,
    dense_count,
    dense_offsets,
    dense_violators,
    enumerate_keys,
    key_bits,
    union_into,
    unpack_key,
    violating_keys,
)
from anonstudio.methods.kmanon.partition_state import PartitionState
from tests.reference.kmanon_reference import generalized_support, random_data, records_of


def _random_merges(state, rng, n):
    for _ in range(n):
        ids = state.partition_ids()
        if len(ids) < 2:
            break
        a, b = rng.choice(ids, 2, replace=False)
        state.merge((int(a), int(b)))


def test_support_at_least_matches_brute_force_under_merges():
    rng = np.random.default_rng(0)
    data = random_data(1, 400, 30, 7)
    records = records_of(data)
    state = PartitionState(data)
    # 20 merges append more unions than the pool has room for: compaction runs
    for _round in range(4):
        _random_merges(state, rng, 5)
        for _ in range(200):
            size = int(rng.integers(1, 4))
            items = rng.choice(data.n_items, size, replace=False)
            truth = generalized_support(records, state.label, items)
            parts = state.parts_of(items)
            for k in (1, 2, 5, 40, 1000):
                assert state.support_at_least(parts, k) == min(truth, k)
        # big partitions answer through bitsets, small ones through lists
        rows = state.bit_row[state.partition_ids()]
        assert (rows != NO_ROW).any() and (rows == NO_ROW).any()
        # posting lists are exact unions
        for p in state.partition_ids():
            expected = sorted(u for u, rec in enumerate(records) if any(state.label[i] == p for i in rec))
            assert state.posting(int(p)).tolist() == expected


@pytest.mark.parametrize(("a_in_base", "b_in_base"), [(True, True), (True, False), (False, True), (False, False)])
def test_union_into_writes_the_sorted_union_wherever_the_lists_are(a_in_base, b_in_base):
    rng = np.random.default_rng(7)
    for _ in range(50):
        a, b = (np.sort(rng.choice(200, int(rng.integers(0, 60)), replace=False)).astype(np.int32) for _ in "ab")
        # each list in the read-only base lists or in the pool; the union goes to the end of the pool
        base = np.concatenate([a, b]).astype(np.int32)
        base.flags.writeable = False
        pool = np.full(len(a) + len(b) + 200, -7, dtype=np.int32)
        pool[: len(a)], pool[len(a) : len(a) + len(b)] = a, b
        a_start = -1 if a_in_base else 0
        b_start = -1 - len(a) if b_in_base else len(a)
        out = len(a) + len(b) + 10
        n = union_into(base, pool, a_start, len(a), b_start, len(b), out)
        assert pool[out : out + n].tolist() == np.union1d(a, b).tolist()
        assert (pool[out + n :] == -7).all() and (pool[len(a) + len(b) : out] == -7).all()


def test_enumeration_counts_match_brute_force():
    import itertools

    rng = np.random.default_rng(2)
    data = random_data(4, 120, 12, 6)
    state = PartitionState(data)
    _random_merges(state, rng, 4)
    label = state.label
    ell, k = 3, 4
    bits = key_bits(data.n_items)
    max_len = int(data.lengths.max())
    est = count_keys(data.indptr, data.indices, label, ell, max_len, 0, data.n_records)
    keys = np.empty(int(est) + 1, np.uint64)
    n = enumerate_keys(data.indptr, data.indices, label, ell, bits, max_len, keys, 0, data.n_records, 0)
    assert n == int(est)
    keys = keys[:n]
    keys.sort()
    out = np.empty(n, np.uint64)
    nv, nflag = violating_keys(keys, n, k, out)
    buf = np.empty(ell, np.int64)
    found = set()
    for j in range(nv):
        m = unpack_key(out[j], bits, buf)
        found.add(frozenset(int(x) for x in buf[:m]))
    # brute force: images of ell-itemsets and their generalized supports
    records = records_of(data)
    gen = [frozenset(int(label[i]) for i in r) for r in records]
    images = set()
    for r in records:
        for x in itertools.combinations(sorted(r), ell):
            images.add(frozenset(int(label[i]) for i in x))
    expected = {img for img in images if sum(1 for g in gen if img <= g) < k}
    assert found == expected
    assert nflag == len(images)
    # the dense counters find the same violators
    ids = state.partition_ids()
    compact = np.searchsorted(ids, label).astype(np.int32)
    binom = binomial_table(len(ids), ell)
    off = dense_offsets(len(ids), ell, binom)
    counts = np.zeros(off[-1], np.int32)
    flags = np.zeros(off[-1], np.uint8)
    dense_count(data.indptr, data.indices, compact, ell, max_len, binom, off, counts, flags, 0, data.n_records)
    rows = np.empty((off[-1], ell), np.int32)
    nv2, nflag2 = dense_violators(counts, flags, k, off, binom, len(ids), ell, rows)
    assert nflag2 == len(images)
    assert {frozenset(int(ids[c]) for c in r) for r in rows[:nv2]} == expected


def test_support_over_bitsets_block_by_block_matches_brute_force():
    """Dense items over 3,000 records: every check ANDs bitsets of 47 words (two full blocks and a partial one)."""
    rng = np.random.default_rng(3)
    data = random_data(4, 3000, 12, 9)
    records = records_of(data)
    state = PartitionState(data)
    _random_merges(state, rng, 3)
    ids = state.partition_ids()
    assert (state.bit_row[ids] >= 0).any() and (state.bit_row[ids] < NO_ROW).any()
    words = state.bits.shape[1]
    assert words % 16 and words > 32
    for _ in range(300):
        items = rng.choice(data.n_items, int(rng.integers(2, 6)), replace=False)
        parts = state.parts_of(items)
        if len(parts) < 2:
            continue
        # the AND path, over rows of merged partitions and rows shared with the items
        assert all(state.bit_row[p] != NO_ROW and 2 * state.length[p] > words for p in parts)
        truth = generalized_support(records, state.label, items)
        for k in (1, 7, truth, truth + 1, 10**6):
            assert state.support_at_least(parts, max(k, 1)) == min(truth, max(k, 1))


def test_the_pool_compacts_and_uses_more_room_when_big_partitions_merge():
    """Merging every item into one partition needs a union as long as all lists together: more than the first room."""
    data = random_data(6, 600, 15, 6)
    records = records_of(data)
    state = PartitionState(data)
    room = state._room
    ids = [int(p) for p in state.partition_ids()]
    assert all(state.start[i] < 0 for i in ids)
    for other in ids[1:]:
        state.merge((ids[0], other))
    assert state._room > room
    holding = sorted(u for u, rec in enumerate(records) if rec)
    assert state.posting(ids[0]).tolist() == holding
    state.split(ids[0], [[i] for i in ids])
    for i in ids:
        assert state.start[i] < 0  # back to the item's own list
        assert state.posting(i).tolist() == [u for u, rec in enumerate(records) if i in rec]
        assert state.support_at_least([i], 10**6) == sum(i in rec for rec in records)


def test_lists_survive_compactions_inside_merges_and_splits():
    """Merges of several partitions and splits into groups compact the pool midway: every list stays whole."""
    data = random_data(11, 500, 24, 8)
    records = records_of(data)
    rng = np.random.default_rng(11)
    state = PartitionState(data)
    for _round in range(30):
        ids = [int(p) for p in state.partition_ids()]
        if len(ids) > 3 and rng.random() < 0.6:
            state.merge(rng.choice(ids, int(rng.integers(2, 5)), replace=False).tolist())
        else:
            big = max(ids, key=lambda p: len(state.members[p]))
            items = rng.permutation(state.members[big]).tolist()
            if len(items) < 2:
                continue
            cut = sorted(rng.choice(range(1, len(items)), min(2, len(items) - 1), replace=False).tolist())
            state.split(big, [g for g in np.split(np.array(items), cut) if len(g)])
        assert state.partition_ids().tolist() == sorted(state.members)
        for p in state.partition_ids():
            members = set(state.members[int(p)])
            assert state.posting(int(p)).tolist() == [u for u, rec in enumerate(records) if members & set(rec)]


@pytest.mark.parametrize(("n_parts", "ell"), [(1, 1), (2, 2), (7, 3), (12, 4), (40, 2), (9, 5)])
def test_dense_violators_lists_the_flagged_cells_below_k_in_cell_order(n_parts, ell):
    """Cell order is colex order of the subsets (combinatorial number system), checked on every cell."""
    rng = np.random.default_rng(n_parts * 10 + ell)
    binom = binomial_table(n_parts, ell)
    off = dense_offsets(n_parts, ell, binom)
    counts = rng.integers(0, 6, size=off[-1]).astype(np.int32)
    flags = (rng.random(off[-1]) < 0.6).astype(np.uint8)
    k = 3
    expected, flagged = [], 0
    for j in range(1, ell + 1):
        for subset in sorted(itertools.combinations(range(n_parts), j), key=lambda c: c[::-1]):
            cell = off[j] + sum(int(binom[c, i + 1]) for i, c in enumerate(subset))
            if flags[cell]:
                flagged += 1
                if counts[cell] < k:
                    expected.append(list(subset) + [subset[0]] * (ell - j))
    rows = np.empty((max(len(expected), 1), ell), np.int32)
    nv, n_flagged = dense_violators(counts, flags, k, off, binom, n_parts, ell, rows)
    assert n_flagged == flagged
    assert rows[:nv].tolist() == expected
