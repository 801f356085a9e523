"""The worked example of Poulis et al. (Figs. 1-2), values from the implementation note, §6."""
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from anonstudio.data.io.rt import load_rt_csv
from anonstudio.methods.rt.algorithm import run_rt
from anonstudio.methods.rt.btd import BTDMatrix
from anonstudio.methods.rt.cluster import clusters_from_assignment
from anonstudio.methods.rt.export import anon_rows
from anonstudio.methods.rt.merge import MergeState, partner_order
from anonstudio.methods.rt.params import RTParams
from anonstudio.methods.rt.prepare import prepare
from anonstudio.methods.rt.transaction import Generalizer
from anonstudio.verifiers.rt import RTCheck, check_anon_csv

DATA = Path(__file__).resolve().parents[1] / "data" / "rt"
FIG2A = np.array([0, 0, 1, 1, 2, 2])
QI = ("age", "origin", "gender")
HIER = {"origin": DATA / "origin_hierarchy.csv", "gender": DATA / "gender_hierarchy.csv"}


def params(**kw) -> RTParams:
    base = dict(qi=QI, hierarchies=tuple(HIER.items()), sensitive_items=DATA / "sensitive.txt", k=2, m=2,
                item_fanout=0, delta=0.8)
    base.update(kw)
    return RTParams(**base)


@pytest.fixture(scope="module")
def data():
    return load_rt_csv(DATA / "example.csv", items_column="items")


@pytest.fixture(scope="module")
def problem(data):
    return prepare(data, params())


def check(**kw) -> RTCheck:
    base = dict(qi=QI, items_column="items", k=2, m=2, hierarchies=HIER, sensitive=["G", "H"])
    base.update(kw)
    return RTCheck(**base)


def test_fig1b_is_2_and_2_2_anonymous_apart_but_not_together(data):
    # Relational part only: k-anonymity of the demographics (every group of equal cells has 2 rows).
    from anonstudio.verifiers.rt import read_anon_csv, verify_published

    header, rows = read_anon_csv(DATA / "fig1b.csv")
    together = verify_published(data, header, rows, check())
    assert together.km_violations == 4
    assert together.violating_rows == [3, 4, 5, 6]  # rows counted from 1: Mary, Zoe, Ann, Jim
    assert any("row 6" in e and "{F}" in e for e in together.examples)  # Jim is unique by F
    # Transaction part alone: one group (no demographics), 2^2-anonymous.
    items_only = verify_published(data, ["cluster", "items"], [[r[0], r[-1]] for r in rows],
                                  check(qi=(), hierarchies={}))
    assert items_only.km_violations == 0
    # Demographics alone: 2-anonymous (m = 0: only the empty itemset).
    relational = verify_published(data, header, rows, check(m=0))
    assert relational.km_violations == 0 and relational.small_clusters == 0


def test_cluster_ncps_of_fig2a_and_the_seed(problem):
    clustering = clusters_from_assignment(problem, FIG2A)
    assert [Fraction(x).limit_denominator(10_000) for x in clustering.ncp] == [
        Fraction(37, 153), Fraction(5, 17), Fraction(83, 153)]
    state = MergeState(problem, clustering, [Generalizer(problem, 2, 2)(np.array(m)) for m in ([0, 1], [2, 3],
                                                                                            [4, 5])],
                       Generalizer(problem, 2, 2))
    assert state.pick_seed() == 0


@pytest.mark.parametrize("figure, rum, tum", [
    ("fig2a", Fraction(55, 153), 0.50753),
    ("fig2b", Fraction(1), 0.32130),
    ("fig2c", Fraction(293, 459), 0.56416),
    ("fig2d", Fraction(13, 17), 0.26057),
])
def test_rum_and_tum_of_the_published_tables(data, figure, rum, tum):
    v = check_anon_csv(DATA / f"{figure}.csv", data, check())
    assert v.passed, v.lines()
    assert v.rum == pytest.approx(float(rum), abs=1e-12)
    assert v.tum == pytest.approx(tum, abs=1e-4)


def test_literal_weights_would_give_the_notes_other_values(data):
    # UL with w = 1 for every item (the literal reading): 2a scores 0.5520, so the canonical
    # weights (0 for an item left as it is) are what reproduces 0.50753.
    from anonstudio.verifiers.rt import read_anon_csv

    _, rows = read_anon_csv(DATA / "fig2a.csv")
    literal = []
    for row in rows:
        sizes = [t.count("|") + 1 for t in row[-1].split(";") if t not in ("G", "H")]
        literal.append(sum(2**a - 1 for a in sizes) / (2 ** sum(sizes) - 1))
    assert np.mean(literal) == pytest.approx(0.5520, abs=1e-4)


def test_the_set_based_t_finds_the_drawn_generalizations(problem):
    T = Generalizer(problem, 2, 2)
    vocab = problem.transactions.vocab

    def groups(rows):
        t = T(np.array(rows))
        out = {}
        for item, head in zip(t.items.tolist(), t.head.tolist()):
            out.setdefault(head, []).append(vocab[item])
        return sorted("".join(g) for g in out.values()), t.ul_sum / len(rows)

    assert groups([0, 1]) == (["BD", "E", "F"], pytest.approx(0.2))
    assert groups([2, 3])[0] == ["BCF", "DE"]
    assert groups([4, 5])[0] == ["AEF"]
    assert groups([0, 1, 2, 3]) == (["BCD", "E", "F"], pytest.approx(0.34624, abs=1e-5))
    assert groups([0, 1, 4, 5]) == (["ABD", "E", "F"], pytest.approx(0.22957, abs=1e-5))
    assert groups(list(range(6))) == (["ABCD", "E", "F"], pytest.approx(0.32130, abs=1e-5))


def _run(data, **kw):
    return run_rt(data, params(**kw), initial=FIG2A)


@pytest.mark.parametrize("merge, order, expected", [
    ("r", "btd", [0, 0, 0, 0, 1, 1]),   # 2c: C01 + C23 (Rum 35/51 beats 1); next seed C45 breaks δ
    ("t", "btd", [0, 0, 1, 1, 0, 0]),   # 2d: BTD 12 < 30
    ("t", "ul", [0, 0, 1, 1, 0, 0]),    # 2d: Tum 0.22957 < 0.34624
    ("rt", "btd", [0, 0, 0, 0, 1, 1]),  # u + v = 3 for both; the smaller u wins: 2c
    ("rt", "ul", [0, 0, 0, 0, 1, 1]),
])
def test_rmerge_choices_from_fig2a_at_delta_0_8(data, merge, order, expected):
    result = _run(data, merge=merge, order=order)
    assert result.feasible and result.merges == 1
    assert result.assignment.tolist() == expected
    expected_rum = Fraction(293, 459) if expected[2] == 0 else Fraction(13, 17)
    assert result.rum == pytest.approx(float(expected_rum), abs=1e-12)


def test_btd_values_of_the_two_candidates(problem):
    clustering = clusters_from_assignment(problem, FIG2A)
    members = [np.array([0, 1]), np.array([2, 3]), np.array([4, 5])]
    btd = BTDMatrix(problem, members)
    assert btd.union(0, np.array([1, 2])).tolist() == [30.0, 12.0]
    merged = MergeState(problem, clustering, [Generalizer(problem, 2, 2)(m) for m in members],
                        Generalizer(problem, 2, 2)).merged_ncp(0, np.array([1, 2]))
    assert merged[0] == pytest.approx(35 / 51) and merged[1] == pytest.approx(1.0)
    # RMERGE_RT ranks: u = (1, 2), v = (2, 1): a tie at 3, the smaller u (C23) goes first.
    assert partner_order("rt", merged, np.array([30.0, 12.0])).tolist() == [0, 1]


def test_rmerge_t_falls_back_to_c23_below_13_over_17(data):
    result = _run(data, merge="t", delta=0.7)
    assert result.assignment.tolist() == [0, 0, 0, 0, 1, 1]
    assert result.rum == pytest.approx(293 / 459)


def test_diversity_l2_on_fig2a_and_fig2c(data):
    assert check_anon_csv(DATA / "fig2a.csv", data, check(l=2)).passed
    v = check_anon_csv(DATA / "fig2c.csv", data, check(l=2))
    assert not v.passed and v.diversity_violations > 0
    # The ℓ^m version of T repairs what merging C01 and C23 would expose.
    result = _run(data, merge="r", l=2)
    header, rows = anon_rows(result)
    from anonstudio.verifiers.rt import verify_published

    assert verify_published(data, header, rows, check(l=2)).passed


@pytest.mark.parametrize("merge", ["r", "rt"])
@pytest.mark.parametrize("delta, feasible", [(0.35, True), (0.3, False)])
def test_tum_bound_feasibility(data, merge, delta, feasible):
    result = _run(data, bound="tum", merge=merge, delta=delta)
    # C01 + C23 raises Tum 0.5075 -> 0.5642 (against Property 3); one cluster gives 0.3213.
    assert result.tum_trace == pytest.approx([0.56416, 0.32130], abs=1e-5)
    assert result.feasible is feasible
    if not feasible:
        assert result.rum == pytest.approx(55 / 153)  # the paper's "return false" with Cluster's Rum


def test_rum_bound_infeasible_below_clusters_rum(data):
    result = _run(data, delta=0.3)
    assert result.feasible is False and result.rum == pytest.approx(55 / 153) and result.tum is None
