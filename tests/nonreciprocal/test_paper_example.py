"""The paper's worked example (Tables 1, 3, 4; §4.3), values from the implementation note §4."""
import itertools
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from anonstudio.data.io import load_transactions
from anonstudio.data.transactions import TransactionData
from anonstudio.kernels.nonreciprocal_tsp import exact_path, segment_distances
from anonstudio.methods.nonreciprocal.algorithm import nonreciprocal
from anonstudio.methods.nonreciprocal.order import cyclic_hamming, gray_order
from anonstudio.methods.nonreciprocal.params import NonreciprocalParams
from anonstudio.methods.nonreciprocal.publish import preimages, publish
from anonstudio.methods.nonreciprocal.walk import ring_graph
from anonstudio.verifiers.nonreciprocal import verify_result
from tests.reference import nonreciprocal_reference as ref

DATA = Path(__file__).resolve().parents[1] / "data" / "nonreciprocal"


def bits(items, b=4):
    """Item set (1-based items) -> bitmap string, column 1 first."""
    return "".join("1" if i + 1 in items else "0" for i in range(b))


@pytest.fixture(scope="module")
def table1():
    return load_transactions(DATA / "table1.dat")


@pytest.fixture(scope="module")
def run(table1):
    return nonreciprocal(table1, NonreciprocalParams(k=3, labels=DATA / "table1_labels.csv"))


def test_gray_ranks_and_order(table1):
    recs = ref.records_of(table1)
    assert [ref.gray_rank(r, 4) for r in recs] == [8, 4, 9, 5, 11, 13]
    assert (gray_order(table1) + 1).tolist() == [2, 4, 1, 3, 5, 6]


def test_hamming_sums_14_12_10(table1, run):
    recs = ref.records_of(table1)
    assert cyclic_hamming(table1) == 14
    assert run.hamming_before == 14 and run.hamming_gray == 12 and run.hamming_after == 10
    assert ref.linear_sum(recs, list(range(6))) == 11
    assert ref.linear_sum(recs, run.gray_order.tolist()) == 9
    assert ref.linear_sum(recs, run.order.tolist()) == 7


def test_tsp_order_is_the_lexicographically_first_of_three_optima(table1, run):
    assert (run.order + 1).tolist() == [2, 4, 3, 1, 5, 6]
    recs = ref.records_of(table1)
    gray = run.gray_order.tolist()
    d = np.array([[ref.hamming(recs[a], recs[b]) for b in gray] for a in gray])
    best, paths = ref.best_paths(d)
    assert best == 7
    assert sorted(tuple(gray[t] + 1 for t in p) for p in paths) == [
        (2, 4, 3, 1, 5, 6), (2, 4, 5, 1, 3, 6), (2, 5, 1, 3, 4, 6)]
    kernel_d = segment_distances(table1.indptr, table1.indices, np.array(gray), np.zeros(4, np.int64))
    assert (kernel_d == d).all()
    tour = exact_path(kernel_d, np.array(gray, dtype=np.int64))
    assert [gray[t] + 1 for t in tour] == [2, 4, 3, 1, 5, 6]
    # the best closed tour without fixed ends is 8
    assert min(ref.cyclic_sum(recs, [0] + list(p)) for p in itertools.permutations(range(1, 6))) == 8


def test_ring_is_table_4(run):
    table4 = {1: {1, 5, 6}, 2: {2, 3, 4}, 3: {1, 3, 5}, 4: {1, 3, 4}, 5: {2, 5, 6}, 6: {2, 4, 6}}
    assert {i + 1: set((run.graph[i] + 1).tolist()) for i in range(6)} == table4
    pre_indptr, pre = preimages(run.graph)
    slots = {j + 1: set((pre[pre_indptr[j]:pre_indptr[j + 1]] + 1).tolist()) for j in range(6)}
    assert slots == {1: {1, 3, 4}, 2: {2, 5, 6}, 3: {2, 3, 4}, 4: {2, 4, 6}, 5: {1, 3, 5}, 6: {1, 5, 6}}


def test_published_is_table_3_cell_by_cell(run):
    table3 = {1: ("1101", "1011", 2), 2: ("1110", "1101", 2), 3: ("0111", "1011", 2),
              4: ("0111", "1101", 2), 5: ("1100", "0011", 1), 6: ("1110", "0111", 2)}
    pub = run.published
    got = {j + 1: (bits(set((pub.base(j) + 1).tolist())), bits(set((pub.distance(j) + 1).tolist())),
                   int(pub.threshold[j])) for j in range(6)}
    assert got == table3


def test_bit_vote_1100_1011_0101():
    data = TransactionData.from_id_lists([[0, 1], [0, 2, 3], [1, 3]], n_items=4)
    pub = publish(data, np.array([0, 3]), np.array([0, 1, 2]))
    assert bits(set((pub.base(0) + 1).tolist())) == "1101"
    assert bits(set((pub.distance(0) + 1).tolist())) == "1111"
    assert int(pub.threshold[0]) == 2
    recs = ref.records_of(data)
    base = frozenset(pub.base(0).tolist())
    assert sum(ref.hamming(base, r) for r in recs) == 4


def test_possible_world_matches_are_wider_than_table_4(table1, run):
    recs = ref.records_of(table1)
    published = [(frozenset(run.published.base(j).tolist()), frozenset(run.published.distance(j).tolist()),
                  int(run.published.threshold[j])) for j in range(6)]
    matches = [[j + 1 for j in row] for row in ref.world_matches(recs, published)]
    assert matches == [[1, 5, 6], [2, 3, 4], [1, 3, 5, 6], [1, 2, 3, 4], [1, 2, 3, 4, 5, 6], [2, 4, 6]]
    v = verify_result(table1, run)
    assert v.passed and v.world_histogram == {3: 3, 4: 2, 6: 1}


def test_matchings_er_and_diversity_by_chance(table1, run):
    edges = ref.ring_edges(run.order.tolist(), 3)
    matchings = ref.perfect_matchings(6, edges)
    assert len(matchings) == 20
    # three pairwise disjoint matchings cover all 18 edges
    splits = [c for c in itertools.combinations(matchings, 3) if len({(x, p[x]) for p in c for x in range(6)}) == 18]
    assert len(splits) == 12
    recs = ref.records_of(table1)
    published = [(frozenset(run.published.base(j).tolist()), frozenset(), 0) for j in range(6)]

    def er(alpha):
        return sum(Fraction(ref.hamming(recs[i], published[alpha[i]][0]), len(recs[i])) for i in range(6)) / 6

    assert er(tuple(range(6))) == Fraction(4, 9)
    assert {er(p) for p in matchings} == {Fraction(7, 36), Fraction(1, 3), Fraction(5, 12), Fraction(4, 9),
                                          Fraction(5, 9)}
    # the run drew one of the extracted matchings; its ER is one of those values
    alpha = tuple(int(x) for x in run.alpha)
    assert alpha in matchings
    assert Fraction(run.error_rate).limit_denominator(1000) == er(alpha)
    # published labels under a random α: 3-diversity holds for only 6 of the 20 matchings
    labels = ["C", "C", "M", "B", "B", "M"]
    ring = {i: [j for j in range(6) if (i, j) in edges] for i in range(6)}

    def diverse(p):
        inv = {p[x]: x for x in range(6)}
        return all(len({labels[inv[j]] for j in ring[i]}) == 3 for i in range(6))

    good = [p for p in matchings if diverse(p)]
    assert len(good) == 6
    assert tuple(range(6)) in good
    shift = {run.order[t]: run.order[(t + 1) % 6] for t in range(6)}
    shift2 = {run.order[t]: run.order[(t + 2) % 6] for t in range(6)}
    assert tuple(shift[x] for x in range(6)) in good and tuple(shift2[x] for x in range(6)) in good


def test_run_publishes_labels_of_the_true_preimages(run):
    names = run.labels.names
    alpha = run.alpha
    for i, code in enumerate(run.labels.codes):
        assert names[run.slot_labels[alpha[i]]] == names[code]


def test_ring_graph_matches_reference():
    order = [1, 3, 2, 0, 4, 5]
    nbr = ring_graph(np.array(order), 3)
    assert {(x, int(nbr[x, c])) for x in range(6) for c in range(3)} == ref.ring_edges(order, 3)
