"""The rule browser's data: rules above ρ in the original, whom they threatened, what fixed them."""
from __future__ import annotations

from fractions import Fraction

from anonstudio.data.io import load_transactions
from anonstudio.methods.rho.algorithm import run_rho
from anonstudio.methods.rho.params import RhoParams
from anonstudio.methods.rho.rules import rule_browser
from tests.reference import rho_reference as ref
from tests.rho.rho_helpers import random_case


def test_example_b_browser(rho_data):
    data = load_transactions(rho_data / "example_b.dat")
    res = run_rho(data, RhoParams(rho="0.5", sensitive=rho_data / "example_b_E.csv", seed=1))
    browser = rule_browser(res)
    assert browser.scanned
    rows = browser.rows()
    assert [(r["antecedent"], r["consequent"]) for r in rows] == [(["1"], "9"), (["3"], "9")]
    a, c = rows
    assert a["confidence_before"] == 1.0 and a["confidence_after"] == 0.0 and a["people_listed"] == [0]
    assert a["repairs"] == [{"pass": 1, "suppressed_item": "9", "records": [0]}]
    assert c["confidence_before"] == 2 / 3 and c["confidence_after"] == 1 / 2 and c["people_listed"] == [6]
    assert c["repairs"][0]["suppressed_item"] == "3" and c["repairs"][0]["records"][0] in (4, 5)
    assert browser.select(item="3") == [1] and browser.select(person=0) == [0] and browser.select(person=3) == []
    view = browser.person(6)
    assert view.items == ("3",) and view.sensitive == ("9",) and view.suppressed == () and view.rules == (1,)
    assert browser.person(0).suppressed == ("9",)


def test_browser_lists_every_rule_above_rho_in_the_original():
    for case in range(25):
        records, data, sets, e = random_case(900 + case)
        rho = Fraction(case % 6 + 1, 10)  # ρ = 0 is refused (an empty promise)
        res = run_rho(data, RhoParams(rho=str(float(rho)), seed=case), constraint=e)
        browser = rule_browser(res)
        brute = ref.unsafe_adversaries(records, records, sets, rho, None)
        expected = {}
        for u, q, item in brute:
            expected.setdefault((q, item), set()).add(u)
        above = {(r.antecedent, r.consequent): set(r.people.tolist()) for r in browser.rules if r.above(rho)}
        assert above == expected
        after = [r for r in browser.rules if r.above(rho, after=True)]
        assert after == []
        for r in browser.rules:
            assert len(r.repairs) > 0 or r.above(rho)


def test_without_a_scan_the_repaired_rules_are_listed_with_their_people(rho_data):
    data = load_transactions(rho_data / "example_b.dat")
    res = run_rho(data, RhoParams(rho="0.5", sensitive=rho_data / "example_b_fixed.csv", seed=1))
    scanned = rule_browser(res)
    logged = rule_browser(res, scan_limit=0)
    assert not logged.scanned and len(logged) == len(res.log) == 3
    # too many threats found by the scan: the same listing of the repaired rules
    threats = sum(len(r.people) for r in scanned.rules if r.above(Fraction(1, 2)))
    capped = rule_browser(res, rule_limit=threats - 1)
    assert not capped.scanned and [(r.antecedent, r.consequent, r.people.tolist()) for r in capped.rules] == [
        (r.antecedent, r.consequent, r.people.tolist()) for r in logged.rules]
    assert rule_browser(res, rule_limit=threats).scanned
    by_rule = {(r.antecedent, r.consequent): r for r in scanned.rules}
    for rule in logged.rules:
        full = by_rule[(rule.antecedent, rule.consequent)]
        # fixed E: every holder of Q protects s, and each of these rules was above ρ for all of them
        assert rule.people.tolist() == full.people.tolist()
        assert (rule.s_q_before, rule.s_qe_before, rule.s_q_after, rule.s_qe_after) == (
            full.s_q_before, full.s_qe_before, full.s_q_after, full.s_qe_after)
        assert rule.repairs == full.repairs
