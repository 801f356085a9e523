"""The implementation note's worked examples A (the paper's Table 2) and B (personalized), asserted exactly."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from anonstudio.data.io import load_transactions
from anonstudio.methods.rho.algorithm import run_rho
from anonstudio.methods.rho.params import RhoParams
from anonstudio.methods.rho.sensitive import load_sensitive
from anonstudio.verifiers.rho import verify_rho
from tests.reference import rho_reference as ref
from tests.rho.rho_helpers import as_lists, multiset


def _run(rho_data, dat, csv, seed=1, **kw):
    data = load_transactions(rho_data / dat)
    params = RhoParams(rho="0.5", sensitive=rho_data / csv, seed=seed, **kw)
    return data, run_rho(data, params)


def test_example_a_table2(rho_data):
    data, res = _run(rho_data, "table2.dat", "table2_E.csv")
    # y is removed from one of records 0-2 (tie at F = 0, smaller N_s); x stays everywhere
    assert multiset(res.published) == sorted([("1",), ("1",), ("1", "2"), ("1", "2")])
    assert [data.vocab[i] for i in res.log.column("d")] == ["2"]
    assert res.log.column("n").tolist() == [1]
    assert set(res.log.records) <= {0, 1, 2}
    assert res.suppressed_items == 1
    assert res.util_info == pytest.approx(1 / 7, abs=1e-15)
    expected = 2 / 3 * math.log(7 / 6) + 1 / 3 * math.log(7 / 9)
    assert res.util_dist == pytest.approx(expected, abs=1e-13)
    assert res.util_dist == pytest.approx(0.0189956437912, abs=1e-12)
    assert res.iterations == 2
    assert res.complete


def test_example_a_unsuppressed_has_exactly_one_violation(rho_data):
    data = load_transactions(rho_data / "table2.dat")
    e = load_sensitive(rho_data / "table2_E.csv", data)
    check = verify_rho(data, data, e.pairs(), Fraction(1, 2))
    assert check.unsafe == 1
    assert not check.passed
    worst = check.worst[0]
    assert (worst.user, worst.antecedent, worst.consequent, worst.s_q, worst.s_qe) == (0, ("1",), "2", 4, 3)


def test_example_a_paper_alternative_values():
    """Suppressing x from two records instead (Table 2c): util_info 2/7 and the note's KL."""
    records = [[0, 1], [0, 1], [0, 1], [0]]
    published = [[1], [1], [0, 1], [0]]
    assert ref.kl(records, published) == pytest.approx(0.0592133643972, abs=1e-12)


def test_example_b_personalized(rho_data):
    data, res = _run(rho_data, "example_b.dat", "example_b_E.csv")
    lab = {"1": "a", "2": "b", "3": "c", "9": "s"}
    got = sorted(tuple(sorted(lab[x] for x in rec)) for rec in multiset(res.published))
    assert got == sorted([("a",), ("b", "s"), ("b", "s"), ("b",), ("s",), ("c", "s"), ("c",)])
    # pass 1: u0's a→s repaired by removing s from r0; u6's c→s by removing c (a Q item) from r4 or r5
    log = res.log
    assert log.column("user").tolist() == [0, 6]
    assert [lab[data.vocab[i]] for i in log.column("e")] == ["s", "s"]
    assert [lab[data.vocab[i]] for i in log.column("d")] == ["s", "c"]
    assert log.records_of(0).tolist() == [0]
    assert set(log.records_of(1).tolist()) <= {4, 5}
    assert res.suppressed_items == 2
    assert res.util_info == pytest.approx(1 / 6, abs=1e-15)
    expected = 0.4 * math.log(1.2) + 0.2 * math.log(0.8) + 0.4 * math.log(0.96)
    assert res.util_dist == pytest.approx(expected, abs=1e-13)
    assert res.util_dist == pytest.approx(0.0119711146466, abs=1e-12)
    assert res.iterations == 2


def test_example_b_f_values_of_u6():
    """F(s) = (4/11)ln((4/11)/(5/12)) and F(c) = (3/11)ln(12/11) after r0 lost s."""
    f_s = (4 / 11) * math.log((4 / 11) / (5 / 12))
    f_c = (3 / 11) * math.log((3 / 11) / (3 / 12))
    assert f_s == pytest.approx(-0.0495026, abs=1e-7)
    assert f_c == pytest.approx(0.0237304, abs=1e-7)


def test_example_b_unsuppressed_level_one_shares(rho_data):
    data = load_transactions(rho_data / "example_b.dat")
    e = load_sensitive(rho_data / "example_b_E.csv", data)
    check = verify_rho(data, data, e.pairs(), Fraction(1, 2), m=1)
    level = check.levels[0]
    assert (level.adversaries, level.unsafe) == (12, 2)
    assert level.share_pair == pytest.approx(1 / 6, abs=1e-15)
    assert level.share_user == pytest.approx(3 / 14, abs=1e-15)
    # the violations are exactly (0, {a}, s) and (6, {c}, s)
    triples = ref.unsafe_adversaries(as_lists(data), as_lists(data), [set(e.items_of(u).tolist()) for u in range(7)],
                                     Fraction(1, 2), None)
    names = {data.vocab.index(k): v for k, v in {"1": "a", "3": "c", "9": "s"}.items()}
    assert [(u, tuple(names[i] for i in q), names[x]) for u, q, x in triples] == [(0, ("a",), "s"), (6, ("c",), "s")]


def test_example_b_fixed(rho_data):
    data, res = _run(rho_data, "example_b.dat", "example_b_fixed.csv")
    sets = [{data.vocab.index("9")}] * 7
    assert len(ref.unsafe_adversaries(as_lists(data), as_lists(data), sets, Fraction(1, 2), None)) == 7
    assert res.suppressed_items == 3
    lab = {"1": "a", "2": "b", "3": "c", "9": "s"}
    assert sorted(lab[data.vocab[i]] for i in res.log.column("d")) == ["b", "c", "s"]
    assert res.util_info == pytest.approx(1 / 4, abs=1e-15)
    # one b, one c and one s gone from the 12 occurrences: a 1, b 3, c 3, s 5 of 12 → a 1, b 2, c 2, s 4 of 9
    expected = 1 / 9 * math.log((1 / 9) / (1 / 12)) + 2 * 2 / 9 * math.log((2 / 9) / (3 / 12)) \
        + 4 / 9 * math.log((4 / 9) / (5 / 12))
    pub, _, _ = ref.suppressor(as_lists(data), sets, Fraction(1, 2), None, 1)
    assert res.util_dist == pytest.approx(expected, abs=1e-13) == ref.kl(as_lists(data), pub)


@pytest.mark.parametrize("seed", range(8))
def test_examples_same_multiset_for_every_seed_and_match_reference(rho_data, seed):
    expected = {"table2.dat": [("1",), ("1",), ("1", "2"), ("1", "2")],
                "example_b.dat": [("1",), ("2",), ("2", "9"), ("2", "9"), ("3",), ("3", "9"), ("9",)]}
    for dat, csv in (("table2.dat", "table2_E.csv"), ("example_b.dat", "example_b_E.csv")):
        data, res = _run(rho_data, dat, csv, seed=seed)
        e = res.constraint
        pub, passes, suppressed = ref.suppressor(as_lists(data), [set(e.items_of(u).tolist()) for u in
                                                                   range(data.n_records)], Fraction(1, 2), None, seed)
        assert as_lists(res.published) == pub
        assert (passes, suppressed) == (res.iterations, res.suppressed_items)
        assert int(np.sum(res.published.lengths)) == int(np.sum(data.lengths)) - res.suppressed_items
        assert multiset(res.published) == expected[dat]
