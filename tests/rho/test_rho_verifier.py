"""The independent verifier: brute-force agreement, planted faults, sampled shares, recomputed utilities."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from anonstudio.data.io import load_transactions
from anonstudio.data.transactions import TransactionData
from anonstudio.methods.rho.algorithm import run_rho
from anonstudio.methods.rho.export import write_suppressed
from anonstudio.methods.rho.params import RhoParams
from anonstudio.methods.rho.sensitive import generate_sensitive, load_sensitive, write_sensitive
from anonstudio.verifiers.rho import check_lines, read_sensitive_pairs, verify_rho
from tests.reference import rho_reference as ref
from tests.rho.rho_helpers import as_lists, random_case


def _reported(res):
    doc = res.to_json()
    return {k: doc[k] for k in ("suppressed_items", "util_info", "util_dist", "util_mining", "rules_original",
                                "rules_published", "rules_common")}


@pytest.mark.parametrize("m", [1, 2, None])
def test_exhaustive_count_matches_brute_force(m):
    for case in range(40):
        records, data, sets, e = random_case(300 + case)
        rho = Fraction(case % 7, 10)
        check = verify_rho(data, data, e.pairs(), rho, m)
        brute = ref.unsafe_adversaries(records, records, sets, rho, m)
        assert check.unsafe == len({(u, q) for u, q, _ in brute})
        assert check.exhaustive and check.passed == (not brute)
        for worst in check.worst:
            assert worst.confidence > rho


def _tiny_run(rho_data):
    data = load_transactions(rho_data / "example_b.dat")
    res = run_rho(data, RhoParams(rho="0.5", sensitive=rho_data / "example_b_fixed.csv", seed=2))
    return data, res


def test_clean_release_passes_with_utilities_recomputed(rho_data):
    data, res = _tiny_run(rho_data)
    check = verify_rho(data, res.published, res.constraint.pairs(), Fraction(1, 2), reported=_reported(res))
    assert check.passed and check.unsafe == 0 and not check.mismatches
    assert check.utilities["suppressed_items"] == 3
    assert check.utilities["util_info"] == pytest.approx(0.25)
    assert check.utilities["util_dist"] == pytest.approx(ref.kl(as_lists(data), as_lists(res.published)), abs=1e-15)
    assert check.utilities["util_mining"] == pytest.approx(res.mining.value)
    assert any("subsets of the originals" in line for line in check.lines())


def test_planted_fault_suppressed_item_re_added(rho_data):
    data, res = _tiny_run(rho_data)
    log = res.log
    j = 0
    u, d = int(log.records_of(j)[0]), int(log.column("d")[j])
    records = [set(res.published.record(v).tolist()) for v in range(data.n_records)]
    records[u].add(d)
    planted = TransactionData.from_id_lists([sorted(r) for r in records], n_items=data.n_items, vocab=data.vocab)
    check = verify_rho(data, planted, res.constraint.pairs(), Fraction(1, 2), reported=_reported(res))
    assert not check.passed
    assert check.unsafe > 0                       # the rule it protected is above ρ again
    assert any("suppressed_items" in m for m in check.mismatches)
    assert not check.record_problems              # it is still a subset: only the privacy check catches it


def test_planted_fault_line_not_a_subset(rho_data):
    data, res = _tiny_run(rho_data)
    records = [set(res.published.record(v).tolist()) for v in range(data.n_records)]
    records[3].add(data.vocab.index("3"))         # record 3 is {b}: c was never there
    planted = TransactionData.from_id_lists([sorted(r) for r in records], n_items=data.n_items, vocab=data.vocab)
    check = verify_rho(data, planted, res.constraint.pairs(), Fraction(1, 2))
    assert not check.passed
    assert check.record_problems and "record 4 has 3" in check.record_problems[0]  # index 3, numbered from 1


def test_planted_fault_dropped_empty_line(rho_data, tmp_path):
    data = load_transactions(rho_data / "with_empty.dat")
    e = generate_sensitive(data, "fixed", 0.5, 1)
    res = run_rho(data, RhoParams(rho="0.3", seed=1), constraint=e)
    out = tmp_path / "SUPPRESSED.dat"
    write_suppressed(out, res)
    assert check_lines(rho_data / "with_empty.dat", out) == ()
    lines = out.read_text().split("\n")
    dropped = lines[:2] + lines[3:]               # line 3 is an empty record
    bad = tmp_path / "BAD.dat"
    bad.write_text("\n".join(dropped))
    problems = check_lines(rho_data / "with_empty.dat", bad)
    assert problems and "lines" in problems[0]
    reloaded = load_transactions(bad)
    check = verify_rho(data, reloaded, e.pairs(), Fraction(3, 10))
    assert not check.passed and "records" in check.record_problems[0]


def test_planted_fault_wrong_reported_utility(rho_data):
    data, res = _tiny_run(rho_data)
    reported = _reported(res)
    reported["util_dist"] *= 1.001
    check = verify_rho(data, res.published, res.constraint.pairs(), Fraction(1, 2), reported=reported)
    assert not check.passed and check.mismatches[0].startswith("util_dist")


def test_sampled_check_interval_covers_the_exact_share():
    rng = np.random.default_rng(4)
    records = [8 * int(rng.integers(4)) + rng.choice(8, size=rng.integers(1, 7), replace=False) for _ in range(600)]
    data = TransactionData.from_id_lists(records, n_items=32)
    e = generate_sensitive(data, "personalized", 0.3, 2)
    exact = verify_rho(data, data, e.pairs(), Fraction(1, 2), 3, epsilon=0.05)
    sampled = verify_rho(data, data, e.pairs(), Fraction(1, 2), 3, epsilon=0.05, exhaustive_limit=0, samples=4000,
                         seed=3, confidence=0.999)
    for a, b in zip(exact.levels, sampled.levels):
        assert a.method == "exhaustive" and b.method == "sampled"
        assert b.ci_low <= a.share_user <= b.ci_high
    pair = verify_rho(data, data, e.pairs(), Fraction(1, 2), 3, epsilon=0.05, exhaustive_limit=0, samples=4000,
                      seed=3, confidence=0.999, sampler="pair")
    for a, b in zip(exact.levels, pair.levels):
        assert b.ci_low <= a.share_pair <= b.ci_high
    assert not exact.passed and exact.unsafe > 0


def test_sampled_release_passes_sampled_check():
    rng = np.random.default_rng(6)
    records = [8 * int(rng.integers(4)) + rng.choice(8, size=rng.integers(1, 7), replace=False) for _ in range(800)]
    data = TransactionData.from_id_lists(records, n_items=32)
    params = RhoParams(rho="0.5", epsilon=0.1, delta=0.1, m=3, setting="personalized", sensitive_fraction=0.3)
    res = run_rho(data, params)
    check = verify_rho(data, res.published, res.constraint.pairs(), Fraction(1, 2), 3, epsilon=0.1,
                       exhaustive_limit=0, samples=3000, reported=_reported(res))
    assert check.passed, check.lines()
    assert all(lv.ci_high < 0.1 for lv in check.levels)


def test_sensitive_pairs_read_back_from_e_used(rho_data, tmp_path):
    data, res = _tiny_run(rho_data)
    path = tmp_path / "E_USED.csv"
    write_sensitive(path, res.constraint)
    recs, items = read_sensitive_pairs(path, data.vocab, data.n_records)
    mine = sorted(zip(*[a.tolist() for a in res.constraint.pairs()]))
    assert sorted(zip(recs.tolist(), items.tolist())) == mine
    # people from 1 in the file; the previous release's form (header record,item, records from 0) reads the same
    personal = load_sensitive(rho_data / "example_b_E.csv", data)
    pairs = sorted(zip(*[a.tolist() for a in personal.pairs()]))
    assert pairs == [(0, data.vocab.index("9")), (1, data.vocab.index("1")), (6, data.vocab.index("9"))]
    recs, items = read_sensitive_pairs(rho_data / "example_b_E.csv", data.vocab, data.n_records)
    assert sorted(zip(recs.tolist(), items.tolist())) == pairs
    old = tmp_path / "old.csv"
    old.write_text("record,item\n" + "".join(f"{r},{data.vocab[i]}\n" for r, i in pairs))
    recs, items = read_sensitive_pairs(old, data.vocab, data.n_records)
    assert sorted(zip(recs.tolist(), items.tolist())) == pairs
    check = verify_rho(data, res.published, (recs, items), Fraction(1, 2))
    assert check.passed
    assert as_lists(res.published) != as_lists(data)


@pytest.mark.parametrize("exhaustive_limit", [5_000_000, 0])
def test_check_is_the_same_on_one_thread_or_several(monkeypatch, exhaustive_limit):
    """Groups of adversaries spread over the thread budget in small pieces give every number one thread gives."""
    from anonstudio import parallel
    from anonstudio.verifiers import rho as verifier

    rng = np.random.default_rng(8)
    records = [8 * int(rng.integers(4)) + rng.choice(8, size=rng.integers(1, 7), replace=False) for _ in range(700)]
    data = TransactionData.from_id_lists(records, n_items=32)
    res = run_rho(data, RhoParams(rho="0.5", epsilon=0.1, delta=0.1, m=3, setting="personalized",
                                  sensitive_fraction=0.3))
    monkeypatch.setattr(verifier, "_ROWS_PER_PIECE", 16)
    pieces = []
    real = verifier._check_on_threads
    monkeypatch.setattr(verifier, "_check_on_threads", lambda starts, n, workers, *rest: pieces.append(workers)
                        or real(starts, n, workers, *rest))
    docs = []
    before = parallel.budget.setting
    try:
        for threads in (1, 3):
            parallel.configure(threads=threads)
            for published in (data, res.published):  # unsafe adversaries and a clean release
                check = verify_rho(data, published, res.constraint.pairs(), Fraction(1, 2), 3, epsilon=0.1,
                                   exhaustive_limit=exhaustive_limit, samples=3000)
                docs.append((threads, [(lv.method, lv.adversaries, lv.unsafe, lv.share) for lv in check.levels],
                             check.worst))
    finally:
        parallel.configure(threads=before)
    assert pieces and set(pieces) == {3}  # only the budget of 3 ran the pieces on threads
    assert [d[1:] for d in docs[:2]] == [d[1:] for d in docs[2:]]
    assert any(lv[2] for _, levels, _ in docs for lv in levels)
