"""The promise of a σ-k^m run, the verifier's verdict per level, and the figures of the check's verdict."""
from __future__ import annotations

import numpy as np

from anonstudio.methods.kmanon.report import guarantee_notes, guarantee_text
from anonstudio.methods.kmanon.result import LevelResult
from anonstudio.verifiers.kmanon import KmVerifyPoint, KmVerifyResult, clopper_pearson


def _level(level, k, sigma, mode="sampling", complete=True, unfixable=0):
    return LevelResult(level=level, k=k, sigma=sigma, gamma=0, mode=mode, samples=0, violations=0, merges=0,
                       partitions=1, error=0.0, avg_area_km2=None, seconds=0.0, support_checks=0,
                       unfixable=unfixable, complete=complete, labels=np.zeros(1, dtype=np.int32))


def test_guarantee_text_follows_k_sigma_and_levels():
    same = [_level(1, 20, 1.0, "exact"), _level(2, 20, 0.99), _level(3, 20, 0.99)]
    text = guarantee_text(same, "tower")
    assert text.startswith("Any 3 towers a stranger knows about a person match at least 20 people")
    assert "probability ≥ 0.99" in text
    assert "share is protected" in guarantee_notes(same, "tower")
    exact = [_level(1, 5, 1.0, "exact")]
    assert "Any 1 tower " in guarantee_text(exact, "tower") and "always" in guarantee_text(exact, "tower")
    assert guarantee_notes(exact) == ""
    mixed = [_level(1, 50, 1.0, "exact"), _level(2, 10, 0.9)]
    text = guarantee_text(mixed, "item")
    assert "1 item: at least 50 people, always" in text
    assert "2 items: at least 10 people, with probability ≥ 0.9" in text
    # a level cut short promises nothing
    assert guarantee_text([_level(1, 5, 0.9, complete=False)]).startswith("No level finished")
    assert "could not be protected" in guarantee_notes([_level(1, 5, 0.9, unfixable=3)])


def point(ok, n, ell=2, sigma=0.99, method="sampling"):
    lo, hi = clopper_pearson(ok, n, 0.95)
    return KmVerifyPoint(ell, 10, method, n, ok, ok / n, lo, hi, 0.0, sigma=sigma)


def test_check_verdicts():
    assert point(5000, 5000).verdict == "confirmed"
    assert point(5000, 5000, sigma=1.0).verdict == "no violation found"
    assert point(4950, 5000).verdict == "consistent"
    assert point(4800, 5000).verdict == "below target" and not point(4800, 5000).passed
    # an exact count confirms or breaks σ outright
    exact = KmVerifyPoint(1, 10, "exact", 100, 99, 0.99, 0.99, 0.99, 0.0, sigma=1.0)
    assert exact.verdict == "below target"
    bad = KmVerifyResult((point(5000, 5000, 1), point(4800, 5000, 2)), 0.95, True)
    assert not bad.passed and bad.lines()[1].endswith("σ = 0.99: below target")
    good = KmVerifyResult((point(5000, 5000, 1), point(5000, 5000, 2)), 0.95, True)
    assert good.passed and not any("below target" in line for line in good.lines())


def test_each_line_says_whether_the_check_was_exhaustive_or_sampled():
    exact = KmVerifyPoint(1, 10, "exact", 200, 200, 1.0, 1.0, 1.0, 0.0, sigma=1.0)
    clean = point(20_000, 20_000, sigma=1.0)
    some = point(19_950, 20_000, sigma=0.99)
    lines = KmVerifyResult((exact, clean, some), 0.95, True).lines()
    assert lines[0] == ("ℓ = 1: exhaustive: 200 of 200 itemsets shared by ≥ 10 people (100.00 %), "
                        "σ = 1: confirmed")
    # A sample never proves σ = 1: it says so, with the bound its interval puts on the share (rounded down).
    low = clean.ci_low
    assert 0.9998 < low < 0.99985
    assert lines[1] == ("ℓ = 2: sampled: no violation in 20,000 itemsets (so at least 99.98 % are shared by "
                        "≥ 10 people, 95 % confidence), σ = 1: no violation found")
    assert lines[2].startswith("ℓ = 2: sampled: 19,950 of 20,000 itemsets shared by ≥ 10 people (99.75 %; 95 % "
                               "interval ")
    assert lines[2].endswith("σ = 0.99: confirmed")
