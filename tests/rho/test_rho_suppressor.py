"""SUPPRESSOR and SAMPLESUPPRESSOR against the slow reference and brute force; exact arithmetic; seeds; cancel."""
from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from anonstudio.data.transactions import TransactionData
from anonstudio.jobs import RecordingProgress
from anonstudio.kernels.rho_suppressor import suppression_numbers
from anonstudio.methods.contract import run_and_verify
from anonstudio.methods.rho import suppressor as suppressor_module
from anonstudio.methods.rho.algorithm import run_rho
from anonstudio.methods.rho.export import write_suppressed
from anonstudio.methods.rho.params import RhoParams, parse_rho, sample_size
from anonstudio.methods.rho.sensitive import generate_sensitive, write_sensitive
from anonstudio.methods.rho.spec import SPEC
from anonstudio.methods.rho.suppressor import adversary_count, suppress_exact, suppress_sampled
from anonstudio.methods.rho.utility import association_rules, frequent_itemsets, util_dist, util_info
from anonstudio.params import ParameterError, validate
from tests.reference import rho_reference as ref
from tests.rho.rho_helpers import as_lists, constraint_from_sets, random_case

RHOS = [Fraction(0), Fraction(1, 10), Fraction(3, 10), Fraction(1, 2), Fraction(2, 3), Fraction(7, 10)]


@pytest.fixture(params=["bitsets+cache", "posting lists"])
def index_mode(request, monkeypatch):
    """Both intersection paths and the level-1 cache on and off must give the same outputs."""
    if request.param == "posting lists":
        monkeypatch.setattr(suppressor_module, "_BITS_BUDGET", 0)
        monkeypatch.setattr(suppressor_module, "_CACHE_ITEMS", 0)
    return request.param


@pytest.mark.parametrize("m", [1, 2, 3, None])
def test_exact_matches_reference_and_is_safe_by_brute_force(index_mode, m):
    for case in range(40):
        records, data, sets, e = random_case(1000 * (m or 9) + case)
        rho = RHOS[case % len(RHOS)]
        out = suppress_exact(data, e, rho, m, case)
        pub = as_lists(out.published)
        expected, passes, suppressed = ref.suppressor(records, sets, rho, m, case)
        assert pub == expected, case
        assert (out.iterations, out.suppressed_items) == (passes, suppressed)
        assert ref.unsafe_adversaries(records, pub, sets, rho, m) == []
        assert all(set(p) <= set(r) for p, r in zip(pub, records))
        assert out.complete and out.passes[-1].clean


@pytest.mark.parametrize("sampler", ["user", "pair"])
def test_sampled_matches_reference(index_mode, sampler):
    for case in range(30):
        records, data, sets, e = random_case(500 + case)
        rho = RHOS[case % len(RHOS)]
        m = 1 + case % 3
        out = suppress_sampled(data, e, rho, m, 15, sampler, case)
        expected, passes, suppressed = ref.sample_suppressor(records, sets, rho, m, 15, sampler, case)
        assert as_lists(out.published) == expected, case
        assert (out.iterations, out.suppressed_items) == (passes, suppressed)
        assert out.samples_per_level == 15


def test_sampled_with_many_samples_is_safe_on_tiny_data():
    """With far more samples than adversaries, a clean pass means every adversary was checked."""
    for case in range(20):
        records, data, sets, e = random_case(77 + case, max_records=8, max_items=5)
        out = suppress_sampled(data, e, Fraction(1, 2), 3, 400, "pair", case)
        assert ref.unsafe_adversaries(records, as_lists(out.published), sets, Fraction(1, 2), 3) == []


def test_suppression_numbers_exact_at_rho_0_3():
    # (s_Qe − 0.3·s_Q)/(1 − 0.3) in floats: ⌈2.1/0.7⌉ = 4; exactly 3
    assert math.ceil((3 - 0.3 * 3) / (1 - 0.3)) == 4
    assert suppression_numbers(3, 10, 3, 3) == (3, 3)
    assert suppression_numbers(3, 10, 20, 13) == (7, 10)
    assert suppression_numbers(1, 2, 4, 3) == (1, 2)          # Table 2: N_s(y) = 1, N_s(x) = 2
    for s_q in range(1, 40):
        for s_qe in range(1, s_q + 1):
            if Fraction(s_qe, s_q) > Fraction(3, 10):
                excess = s_qe - Fraction(3, 10) * s_q
                assert suppression_numbers(3, 10, s_q, s_qe) == (math.ceil(excess), math.ceil(excess / Fraction(7, 10)))


def test_confidence_exactly_rho_is_safe():
    """ρ = 0.7, supp(Q) = 90, supp(Q∪{e}) = 63: 0.7·90 is 62.99999999999999 in floats, yet conf = ρ is safe."""
    assert 0.7 * 90 < 63
    records = [[0, 1]] * 63 + [[0]] * 27
    data = TransactionData.from_id_lists(records, n_items=2)
    e = constraint_from_sets(data, [{1}] + [set()] * 89)
    out = suppress_exact(data, e, parse_rho("0.7"), None, 1)
    assert out.suppressed_items == 0 and out.iterations == 1
    out = suppress_exact(data, e, parse_rho("0.69"), None, 1)
    assert out.suppressed_items > 0


def test_rho_parsing():
    assert parse_rho("0.3") == Fraction(3, 10)
    assert parse_rho(0.3) == Fraction(3, 10)
    assert parse_rho("1/3") == Fraction(1, 3)
    assert parse_rho("50%") == Fraction(1, 2)
    assert parse_rho("1/1000000000") == Fraction(1, 10**9)
    for bad in ("1", "1.5", "-0.1", "abc", "1/0", float("nan"), 0, "0", "1e-300", "1" * 20 + "/" + "3" * 21,
                "0." + "1" * 5000):
        with pytest.raises(ParameterError):
            parse_rho(bad)


def test_sample_sizes_use_the_natural_log():
    assert [sample_size(x, x) for x in (0.1, 0.05, 0.01)] == [116, 600, 23026]
    assert [math.ceil(math.log10(1 / x) / (2 * x * x)) for x in (0.1, 0.05, 0.01)] == [50, 261, 10000]
    assert RhoParams(epsilon=0.05, delta=0.05, m=3).samples_per_level == 600
    assert RhoParams().samples_per_level is None


def test_params_cross_field_rules(tmp_path):
    with pytest.raises(ParameterError, match="go together") as info:
        validate(RhoParams(epsilon=0.05))
    assert info.value.name == "delta"
    with pytest.raises(ParameterError, match="needs m") as info:
        validate(RhoParams(epsilon=0.05, delta=0.05))
    assert info.value.name == "m"
    with pytest.raises(ParameterError, match="does not exist"):
        validate(RhoParams(sensitive=tmp_path / "missing.csv"))
    with pytest.raises(ParameterError):
        validate(RhoParams(rho="1"))
    assert validate(RhoParams(epsilon=0.05, delta=0.05, m=3)).sampled


def test_kl_direction():
    """util_dist is KL(D'‖D): finite when an item disappears, and not KL(D‖D')."""
    records = [[0, 1], [0, 1], [0], [1, 2]]
    published = [[0, 1], [0], [0], [1]]
    d = TransactionData.from_id_lists(records, n_items=3)
    p = TransactionData.from_id_lists(published, n_items=3)
    c, c1 = np.array([3, 3, 1]), np.array([3, 2, 0])
    forward = sum((c1[i] / 5) * math.log((c1[i] / 5) / (c[i] / 7)) for i in range(3) if c1[i])
    assert util_dist(d, p) == pytest.approx(forward, abs=1e-15)
    assert util_dist(d, p) == pytest.approx(ref.kl(records, published), abs=1e-15)
    backward = sum((c[i] / 7) * math.log((c[i] / 7) / (c1[i] / 5)) if c1[i] else math.inf for i in range(3))
    assert math.isinf(backward) and math.isfinite(util_dist(d, p))
    assert util_info(d, p) == pytest.approx(2 / 7)
    assert util_dist(d, TransactionData.from_id_lists([[], [], [], []], n_items=3)) is None


def test_mining_rule_sets_match_subset_counting():
    rng = np.random.default_rng(3)
    for case in range(15):
        records = [sorted(rng.choice(8, size=rng.integers(0, 5), replace=False).tolist()) for _ in range(60)]
        d = TransactionData.from_id_lists(records, n_items=8)
        minsup, minconf = Fraction(1, 20), Fraction(3, 10)
        mine = association_rules(frequent_itemsets(d, math.ceil(minsup * 60)), minconf)
        assert mine == ref.mining_rules(records, minsup, minconf)
        assert any(len(y) > 1 for _, y in mine) or case  # multi-item consequents occur


def _run_files(tmp_path, data, params, tag):
    res = run_rho(data, params)
    out = {}
    write_suppressed(tmp_path / f"{tag}_SUPPRESSED.dat", res)
    write_sensitive(tmp_path / f"{tag}_E_USED.csv", res.constraint)
    for name in ("SUPPRESSED.dat", "E_USED.csv"):
        out[name] = (tmp_path / f"{tag}_{name}").read_bytes()
    out["json"] = json.dumps(run_and_verify(SPEC, data, params).to_json(timings=False), sort_keys=True).encode()
    return res, out


@pytest.mark.parametrize("extra", [{}, {"epsilon": 0.1, "delta": 0.1, "m": 3, "sampler": "pair"}])
def test_same_seed_same_bytes(tmp_path, extra):
    rng = np.random.default_rng(8)
    records = [rng.choice(30, size=rng.integers(0, 6), replace=False).tolist() for _ in range(400)]
    path = tmp_path / "d.dat"
    path.write_text("\n".join(" ".join(map(str, r)) for r in records) + "\n")
    from anonstudio.data.io import load_transactions

    data = load_transactions(path)
    params = RhoParams(rho="0.4", setting="personalized+", sensitive_fraction=0.2, seed=5, **extra)
    a_res, a = _run_files(tmp_path, data, params, "a")
    _, b = _run_files(tmp_path, load_transactions(path), params, "b")
    assert a == b
    assert a_res.suppressed_items > 0
    _, c = _run_files(tmp_path, data, RhoParams(rho="0.4", setting="personalized+", sensitive_fraction=0.2,
                                                seed=6, **extra), "c")
    assert c["SUPPRESSED.dat"] != a["SUPPRESSED.dat"]


def _medium():
    """3,000 baskets from 5 topics of 8 items: items of a topic co-occur, so rules above ρ abound."""
    rng = np.random.default_rng(2)
    records = [8 * int(rng.integers(5)) + rng.choice(8, size=rng.integers(1, 6), replace=False)
               for _ in range(3000)]
    data = TransactionData.from_id_lists(records, n_items=40)
    return data, generate_sensitive(data, "personalized+", 0.2, 1)


def test_cancel_returns_partial_result_marked_incomplete():
    data, e = _medium()
    progress = RecordingProgress(cancel_after_partials=1)
    res = run_rho(data, RhoParams(rho="0.3", epsilon=0.05, delta=0.05, m=3, seed=1), progress, constraint=e)
    assert not res.complete and not res.suppression.complete
    assert res.iterations == 2 and not res.passes[-1].complete
    assert res.mining is None and res.to_json()["complete"] is False
    assert res.suppressed_items > 0
    assert all(set(res.published.record(u)) <= set(data.record(u)) for u in range(data.n_records))
    assert len(progress.partials) == 1 and not progress.partials[0].complete

    progress = RecordingProgress(cancel_after_sets=3)
    res = run_rho(data, RhoParams(rho="0.3", m=2, seed=1), progress, constraint=e)
    assert not res.complete and not res.passes[-1].complete and res.iterations <= 2


def test_progress_and_partials_per_pass():
    data, e = _medium()
    progress = RecordingProgress()
    res = run_rho(data, RhoParams(rho="0.3", m=2, seed=1), progress, constraint=e)
    assert res.complete and res.iterations >= 2
    assert len(progress.partials) == res.iterations
    assert [len(p.passes) for p in progress.partials] == list(range(1, res.iterations + 1))
    assert progress.fractions == sorted(progress.fractions) and progress.fractions[-1] == 1.0
    first = res.passes[0]
    assert [lv.level for lv in first.levels] == [1, 2] and first.levels[0].rules > 0
    assert res.passes[-1].clean


def test_exact_refuses_data_beyond_its_budget():
    data = TransactionData.from_id_lists([list(range(30)), [0, 1]], n_items=30)
    assert adversary_count(data.lengths, 30) == 2**30 - 1 + 3
    assert adversary_count(data.lengths, 2) == 30 + 435 + 3
    with pytest.raises(ParameterError, match="set a smaller m") as info:
        SPEC.check_data(data, RhoParams())
    assert info.value.name == "m"
    SPEC.check_data(data, RhoParams(m=2))
    SPEC.check_data(data, RhoParams(m=8, epsilon=0.1, delta=0.1))
