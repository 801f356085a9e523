"""Sample bound of Theorem 1: both readings, the paper's numbers exactly."""
import math

import pytest

from anonstudio.methods.kmanon.gamma import gamma, sample_bound


def test_theorem_closed_form_at_099():
    assert gamma(0.99, "theorem") == 41_917


def test_two_sided_matches_experiments():
    # Section VI-E: 45,845 samples (sigma = 0.99) and 5,866,617 (sigma = 0.999).
    assert gamma(0.99, "two-sided") == 45_845
    assert gamma(0.999, "two-sided") == 5_866_617


def test_conservative_is_the_larger():
    for s in (0.6, 0.9, 0.99, 0.999):
        assert gamma(s) == max(gamma(s, "theorem"), gamma(s, "two-sided"))
    assert gamma(0.99) == 45_845


@pytest.mark.parametrize("bound,tail", [("theorem", 1.0), ("two-sided", 2.0)])
def test_root_is_the_optimum_of_the_constrained_problem(bound, tail):
    # Brute-force the minimisation of ln(tail/delta) / (2 eps^2) subject to
    # (1 - eps)(1 - delta) = sigma over a fine grid of delta.
    sigma = 0.99
    best = min(
        math.log(tail / d) / (2 * (1 - sigma / (1 - d)) ** 2)
        for d in (i * 1e-7 for i in range(1, 99_999))
    )
    sb = sample_bound(sigma, bound)
    assert abs((1 - sb.eps) * (1 - sb.delta) - sigma) < 1e-12
    assert sb.samples == math.ceil(best - 1e-6) or abs(sb.samples - best) < 1.0


def test_sigma_one_needs_enumeration_and_bad_input_raises():
    assert gamma(1.0) == 0
    with pytest.raises(ValueError):
        gamma(0.3)
    with pytest.raises(ValueError):
        gamma(0.99, "nonsense")


def test_explanation_mentions_numbers():
    text = sample_bound(0.99).explain()
    assert "45,845" in text and "two-sided" in text
