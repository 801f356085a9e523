"""Gray order, DP segmentation and the fixed-end TSP against slow references."""

import numpy as np
import pytest

from anonstudio.data.transactions import TransactionData
from anonstudio.kernels.nonreciprocal_order import segment_dp
from anonstudio.kernels.nonreciprocal_tsp import EXACT_MAX, local_search, path_cost
from anonstudio.kernels.rng import make_state
from anonstudio.methods.nonreciprocal.order import cyclic_hamming, gray_order, segment_bounds
from anonstudio.methods.nonreciprocal.tsp import improve_order
from tests.reference import nonreciprocal_reference as ref


def random_data(seed, n, b, density=0.35, dup=0.2):
    rng = np.random.default_rng(seed)
    recs = [np.flatnonzero(rng.random(b) < density) for _ in range(n)]
    for u in range(n):  # some exact duplicates, to test stability
        if u and rng.random() < dup:
            recs[u] = recs[int(rng.integers(u))]
    return TransactionData.from_id_lists(recs, n_items=b)


@pytest.mark.parametrize("seed", range(6))
def test_gray_order_equals_big_integer_ranks_and_lexsort_key(seed):
    b = [3, 8, 20, 70, 130, 300][seed]
    data = random_data(seed, 300, b, density=[0.5, 0.3, 0.2, 0.1, 0.05, 0.01][seed])
    recs = ref.records_of(data)
    got = gray_order(data).tolist()
    assert got == ref.gray_order_bigint(recs, b)  # stable: equal records keep file order
    assert got == ref.gray_order_lexsort(recs, b)


def test_empty_record_first_and_duplicates_in_file_order():
    data = TransactionData.from_id_lists([[2], [], [0, 1], [2], [], [0]], n_items=3)
    order = gray_order(data).tolist()
    assert order[:2] == [1, 4]
    assert order.index(0) < order.index(3)


def test_dp_equals_brute_force_including_infeasible_lengths():
    rng = np.random.default_rng(3)
    for _trial in range(120):
        lo = int(rng.integers(1, 6))
        hi = lo + int(rng.integers(0, 3))
        n = int(rng.integers(0, 31 if lo >= 3 else 15))
        adj = rng.integers(0, 9, size=max(n, 1)).astype(np.int64)
        bounds, cost = segment_dp(adj, n, lo, hi)
        sizes = tuple(np.diff(bounds).tolist())
        allowed = ref.segmentations(n, lo, hi)
        assert sizes in allowed or (n == 0 and sizes == ())
        best = min((ref.cut_cost(adj.tolist(), s) for s in allowed), default=0)
        assert cost == best == ref.cut_cost(adj.tolist(), sizes)


def test_infeasible_lengths_of_the_default_bounds_get_a_short_last_segment():
    for n in (351, 599, 701, 1051, 1401, 1751):
        bounds, _ = segment_dp(np.zeros(n, dtype=np.int64), n, 300, 350)
        sizes = np.diff(bounds)
        assert sizes.sum() == n and (sizes[:-1] >= 300).all() and (sizes <= 350).all()
        assert sizes[-1] < 300
    bounds, _ = segment_dp(np.zeros(120, dtype=np.int64), 120, 300, 350)
    assert bounds.tolist() == [0, 120]


def _segment_matrix(seed, s):
    data = random_data(seed, s, 12, density=0.3, dup=0.0)
    recs = ref.records_of(data)
    return np.array([[ref.hamming(a, b) for b in recs] for a in recs], dtype=np.int32)


@pytest.mark.parametrize("s", [2, 3, 4, 5, 7, 9])
def test_tsp_is_optimal_on_small_segments(s):
    for seed in range(8):
        data = random_data(seed + 10 * s, 40, 12, density=0.3, dup=0.05)
        order = gray_order(data)
        bounds = np.array([0, s, 40], dtype=np.int64) if s < 40 else np.array([0, 40])
        out = improve_order(data, order, bounds, seed, kicks=5).order
        recs = ref.records_of(data)
        seg = order[:s].tolist()
        d = np.array([[ref.hamming(recs[a], recs[b]) for b in seg] for a in seg])
        best, _ = ref.best_paths(d)
        got = out[:s].tolist()
        assert got[0] == seg[0] and got[-1] == seg[-1] and sorted(got) == sorted(seg)
        assert ref.linear_sum(recs, got) == best


@pytest.mark.parametrize("seed", range(5))
def test_tsp_keeps_ends_and_is_never_worse_than_gray(seed):
    data = random_data(seed, 700, 40, density=0.15, dup=0.1)
    order = gray_order(data)
    bounds, _ = segment_bounds(data, order, 30, 45)
    res = improve_order(data, order, bounds, seed, kicks=10, threads=2)
    recs = ref.records_of(data)
    for s in range(len(bounds) - 1):
        a, b = bounds[s], bounds[s + 1]
        assert res.order[a] == order[a] and res.order[b - 1] == order[b - 1]
        assert sorted(res.order[a:b].tolist()) == sorted(order[a:b].tolist())
        assert ref.linear_sum(recs, res.order[a:b].tolist()) <= ref.linear_sum(recs, order[a:b].tolist())
    assert cyclic_hamming(data, res.order) <= cyclic_hamming(data, order)
    assert res.path_after <= res.path_before
    # threads and batching do not change the result
    again = improve_order(data, order, bounds, seed, kicks=10, threads=1)
    assert (again.order == res.order).all()


def test_local_search_finds_the_optimum_of_most_small_instances():
    # just above the exact limit, against a plain Held-Karp; the descent alone is not exact
    hits = 0
    for seed in range(6):
        d = _segment_matrix(seed, EXACT_MAX + 1)
        tour = local_search(d, make_state(seed), 200)
        assert tour[0] == 0 and tour[-1] == len(d) - 1 and sorted(tour.tolist()) == list(range(len(d)))
        assert path_cost(d, tour) >= ref.held_karp(d)
        hits += path_cost(d, tour) == ref.held_karp(d)
    assert hits >= 4
