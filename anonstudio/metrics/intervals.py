"""Confidence intervals for sampled shares and means, as every sampled measure of the studio reports them.

* :func:`hoeffding_samples` / :func:`hoeffding_half_width`: the two-sided Hoeffding
  bound for a mean of independent values in [0, 1] (``P(|mean - truth| > h) <= delta``
  with ``h = sqrt(ln(2 / delta) / (2 n))``). It holds for any such values, so it
  also fixes the sample size before sampling: ``n = ceil(ln(2 / delta) / (2 eps^2))``
  draws give ±eps.
* :func:`wilson_interval`: the Wilson score interval of a binomial share, narrower
  than Hoeffding's for shares near 0 or 1 and never outside [0, 1].
"""
from __future__ import annotations

import math
from statistics import NormalDist

__all__ = ["hoeffding_samples", "hoeffding_half_width", "hoeffding_interval", "wilson_interval"]


def hoeffding_samples(epsilon: float, delta: float) -> int:
    """Independent draws for ``P(|estimate - truth| > epsilon) <= delta``: ``ceil(ln(2/delta) / (2 eps^2))``."""
    if not (epsilon > 0 and 0 < delta < 1):
        raise ValueError(f"need epsilon > 0 and 0 < delta < 1 (got {epsilon}, {delta})")
    return int(math.ceil(math.log(2.0 / delta) / (2.0 * epsilon * epsilon)))


def hoeffding_half_width(n: float, delta: float) -> float:
    """Two-sided Hoeffding half-width for a mean of ``n`` independent values in [0, 1] (inf for n = 0)."""
    if n <= 0:
        return math.inf
    return math.sqrt(math.log(2.0 / delta) / (2.0 * n))


def hoeffding_interval(mean: float, n: float, delta: float) -> tuple[float, float]:
    """``mean`` ± the Hoeffding half-width, clipped to [0, 1]."""
    h = hoeffding_half_width(n, delta)
    return max(mean - h, 0.0), min(mean + h, 1.0)


def wilson_interval(successes: int, n: int, delta: float) -> tuple[float, float]:
    """Wilson score interval of a binomial share at confidence ``1 - delta`` ((0, 1) for n = 0)."""
    if n <= 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(1.0 - delta / 2.0)
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # The score interval contains the observed share; rounding must not push it out.
    return max(0.0, min(centre - half, p)), min(1.0, max(centre + half, p))
