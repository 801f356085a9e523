"""Closed walk (Alg. 1), greedy extraction (Alg. 2) and the WMC baselines."""

import numpy as np
import pytest

from anonstudio.data.transactions import TransactionData
from anonstudio.jobs import RecordingProgress, derive_seed
from anonstudio.methods.nonreciprocal.walk import GreedyStuck, extract_assignments, greedy_assignments, ring_graph
from anonstudio.methods.nonreciprocal.wmc import backtrack_assignments
from tests.reference import nonreciprocal_reference as ref


def random_ring(seed, n, m):
    order = np.random.default_rng(seed).permutation(n)
    return order, ring_graph(order, m)


def check_rounds(nbr, assignments):
    n, m = nbr.shape
    edges = {(x, int(nbr[x, c])) for x in range(n) for c in range(m)}
    used = set()
    for a in assignments:
        assert ref.is_perfect_matching(a, edges)
        mine = {(x, int(a[x])) for x in range(n)}
        assert not mine & used
        used |= mine
    return used == edges


@pytest.mark.parametrize("n,m", [(1, 1), (2, 2), (5, 5), (12, 3), (40, 4), (200, 7), (90, 16)])
def test_rounds_are_disjoint_perfect_matchings_inside_the_ring(n, m):
    for seed in range(5):
        _, nbr = random_ring(seed, n, m)
        ext = extract_assignments(nbr, seed)
        assert ext.complete and ext.rounds == m
        assert check_rounds(nbr, ext.assignments)  # m rounds use every edge exactly once


def test_kernel_walk_equals_the_plain_python_walk_step_for_step():
    for seed in range(6):
        _, nbr = random_ring(seed, 30 + seed, 2 + seed % 4)
        ext = extract_assignments(nbr, seed)
        rounds, steps = ref.closed_walk_reference(nbr, lambda r, seed=seed: derive_seed(seed, "walk", r))
        assert ext.assignments.tolist() == rounds
        assert ext.steps == steps


def test_walk_on_a_non_ring_regular_graph():
    # a random 3-regular bipartite graph: union of 3 disjoint random permutations
    rng = np.random.default_rng(4)
    n = 50
    while True:
        perms = [rng.permutation(n) for _ in range(3)]
        nbr = np.stack(perms, axis=1)
        if all(len(set(row)) == 3 for row in nbr.tolist()):
            break
    ext = extract_assignments(nbr, 7)
    assert check_rounds(nbr, ext.assignments)


def test_edge_frequency_in_the_chosen_assignment_is_uniform_and_rounds_are_not_shifts():
    n, k, trials = 12, 3, 2000
    order = np.arange(n)
    nbr = ring_graph(order, k)
    hits = np.zeros((n, k))
    shifts = {tuple((order + d) % n) for d in range(k)}
    not_shifts = 0
    for seed in range(trials):
        ext = extract_assignments(nbr, seed)
        alpha = ext.assignments[np.random.default_rng(derive_seed(seed, "alpha")).integers(k)]
        hits[np.arange(n), (alpha - np.arange(n)) % n] += 1
        not_shifts += any(tuple(a) not in shifts for a in ext.assignments)
    freq = hits / trials
    assert np.all(np.abs(freq - 1 / k) < 0.04)
    assert not_shifts > trials // 4


def test_same_seed_same_rounds_and_chunking_does_not_matter():
    _, nbr = random_ring(1, 300, 6)
    a = extract_assignments(nbr, 11)
    b = extract_assignments(nbr, 11)
    assert (a.assignments == b.assignments).all() and a.steps == b.steps
    c = extract_assignments(nbr, 12)
    assert not (a.assignments == c.assignments).all()


def test_cancel_between_rounds_keeps_finished_rounds():
    _, nbr = random_ring(2, 400, 5)
    progress = RecordingProgress(cancel_after_sets=2)
    ext = extract_assignments(nbr, 3, progress)
    assert not ext.complete and ext.rounds < 5
    full = extract_assignments(nbr, 3)
    assert (ext.assignments == full.assignments[:ext.rounds]).all()


@pytest.mark.parametrize("variant", ["keep-marks", "unmark"])
def test_backtracking_baselines_extract_valid_rounds(variant):
    n = 60 if variant == "keep-marks" else 16  # un-marking is exponential
    for seed in range(4):
        _, nbr = random_ring(seed, n, 4)
        bt = backtrack_assignments(nbr, seed, variant)
        assert not bt.over_budget and bt.assignments.shape == (4, n)
        assert check_rounds(nbr, bt.assignments)
        assert bt.steps > 0


def test_unmarking_backtracking_stops_at_its_budget():
    _, nbr = random_ring(0, 400, 16)
    bt = backtrack_assignments(nbr, 0, "unmark", budget=20_000)
    assert bt.over_budget and bt.steps >= 20_000 and bt.assignments.shape[0] < 16


def _labelled(seed, n, b, n_labels):
    rng = np.random.default_rng(seed)
    data = TransactionData.from_id_lists([np.flatnonzero(rng.random(b) < 0.3) for _ in range(n)], n_items=b)
    return data, rng.integers(0, n_labels, n)


def test_greedy_first_round_is_identity_and_index_labels_are_distinct():
    for seed in range(4):
        data, labels = _labelled(seed, 80, 15, 6)
        counts = np.bincount(labels)
        if counts.max() * 3 > 80:
            continue
        ext = greedy_assignments(data, np.arange(80), labels, 3, seed, restarts=50)
        assert ext.complete
        assert ext.assignments[0].tolist() == list(range(80))
        nbr = ext.assignments.T
        assert all(len(set(row)) == 3 for row in nbr.tolist())  # disjoint rounds
        assert all(len({labels[y] for y in row}) == 3 for row in nbr.tolist())  # index labels distinct
        assert check_rounds(nbr, ext.assignments)


def test_greedy_gives_up_after_its_restarts():
    # two labels, l = 3: no record can get a third label; the walk must stop, not loop
    data, _ = _labelled(0, 30, 8, 2)
    labels = np.arange(30) % 2
    with pytest.raises(GreedyStuck):
        greedy_assignments(data, np.arange(30), labels, 3, 0, restarts=5)
