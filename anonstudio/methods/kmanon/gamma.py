"""How many consecutive k-anonymous samples a level needs (Theorem 1 of Acs et al.).

If ``gamma`` independent uniform samples of ell-itemsets are all k-anonymous,
then with confidence ``1 - delta`` the true fraction of non-k-anonymous
ell-itemsets is below ``eps``; the pair is chosen so that
``(1 - eps)(1 - delta) >= sigma`` and ``gamma`` is as small as possible.

Two Hoeffding tails are in use:

``theorem`` (one-sided, as the proof of Theorem 1 writes it)
    ``gamma = ln(1/delta) / (2 eps^2)``. The theorem's closed form is printed
    garbled ("ln(1/sigma) ... (1 - sigma/(1-sigma))^-2"); Line 3 of Algorithm 2
    gives the consistent reading ``gamma = ln(1/x)/2 * (1 - sigma/(1-x))^-2``
    with ``x = delta`` the root in (0, 1 - sigma) of
    ``x^2 + 2 x sigma ln(x) + (sigma - 2) x - sigma + 1 = 0``, which is exactly
    the stationarity (KKT) condition of the minimisation, so we use it.
    sigma = 0.99 -> 41,917 samples.
``two-sided``
    ``gamma = ln(2/delta) / (2 eps^2)``, the bound behind the sample sizes the
    paper's experiments report: 45,845 (sigma = 0.99) and 5,866,617
    (sigma = 0.999). Its stationarity condition is the one above with
    ``ln(x)`` replaced by ``ln(x/2)``.

``conservative`` (the default) takes the larger of the two, which is always
the two-sided one, so the guarantee holds under either reading.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["BOUNDS", "BOUND_LABELS", "BOUND_TIPS", "BOUND_EXPLANATION", "SampleBound", "sample_bound", "gamma"]

BOUNDS = ("conservative", "theorem", "two-sided")
BOUND_LABELS = ("larger of both", "Theorem 1 formula", "two-sided")
BOUND_TIPS = (
    "The larger of the two readings below, so the guarantee holds under either (default).",
    "The closed formula printed in Theorem 1 (41,917 samples at σ = 0.99).",
    "The two-sided Hoeffding bound the paper's experiments used (45,845 at σ = 0.99, 5,866,617 at σ = 0.999).",
)
BOUND_EXPLANATION = (
    "How many k-anonymous random itemsets in a row are needed before a level is accepted. "
    "'theorem' uses the closed formula printed in Theorem 1 (41,917 samples at sigma = 0.99); "
    "'two-sided' uses the bound the paper's experiments actually used (45,845 at sigma = 0.99, "
    "5,866,617 at sigma = 0.999); 'conservative' takes the larger, so the guarantee holds "
    "under either reading."
)


@dataclass(frozen=True)
class SampleBound:
    """One solved sample bound.

    Attributes
    ----------
    samples
        ``gamma``, rounded up; 0 for sigma = 1 (exact enumeration is needed instead).
    eps, delta
        The optimal error and failure probability, ``(1 - eps)(1 - delta) = sigma``.
    bound
        Which tail: ``theorem`` or ``two-sided``.
    """

    samples: int
    eps: float
    delta: float
    bound: str
    sigma: float

    def explain(self) -> str:
        """One plain-language sentence for tooltips and reports."""
        return (
            f"{self.samples:,} consecutive k-anonymous samples show, with confidence "
            f"{1 - self.delta:.6f}, that at most {self.eps:.4%} of the itemsets are not "
            f"k-anonymous; together at least {self.sigma:g} ({self.bound} bound)."
        )


def _stationarity(x: float, sigma: float, tail: float) -> float:
    # d/dx of ln(tail/x) / (2 eps(x)^2) with eps(x) = 1 - sigma/(1-x), set to zero
    # and multiplied out; tail = 1 gives the paper's printed equation.
    return x * x + 2.0 * x * sigma * math.log(x / tail) + (sigma - 2.0) * x - sigma + 1.0


def _solve(sigma: float, tail: float, name: str) -> SampleBound:
    hi = 1.0 - sigma  # eps -> 0 as delta -> 1 - sigma, so the root lies below
    lo = 1e-300
    # The function is positive near 0 and negative just below 1 - sigma.
    # scipy only when a bound is computed: params.py reads this module's labels to build --help.
    from scipy.optimize import brentq

    x = brentq(_stationarity, lo, hi * (1 - 1e-12), args=(sigma, tail), xtol=1e-300, rtol=1e-15, maxiter=500)
    eps = 1.0 - sigma / (1.0 - x)
    value = math.log(tail / x) / (2.0 * eps * eps)
    return SampleBound(samples=int(math.ceil(value - 1e-9)), eps=eps, delta=x, bound=name, sigma=sigma)


def sample_bound(sigma: float, bound: str = "conservative") -> SampleBound:
    """Solve the sample bound for ``sigma`` in [0.5, 1].

    Parameters
    ----------
    sigma
        Required probability that a uniformly drawn itemset is k-anonymous.
    bound
        ``"theorem"``, ``"two-sided"`` or ``"conservative"`` (the larger).

    Examples
    --------
    >>> sample_bound(0.99, "theorem").samples
    41917
    >>> sample_bound(0.99, "two-sided").samples
    45845
    """
    if bound not in BOUNDS:
        raise ValueError(f"bound must be one of {', '.join(BOUNDS)} (got {bound!r})")
    if not 0.5 <= sigma <= 1.0:
        raise ValueError(f"sigma must be in [0.5, 1] (got {sigma})")
    if sigma >= 1.0:
        return SampleBound(samples=0, eps=0.0, delta=0.0, bound=bound, sigma=1.0)
    if bound == "theorem":
        return _solve(sigma, 1.0, "theorem")
    if bound == "two-sided":
        return _solve(sigma, 2.0, "two-sided")
    a, b = _solve(sigma, 1.0, "theorem"), _solve(sigma, 2.0, "two-sided")
    return a if a.samples > b.samples else b


def gamma(sigma: float, bound: str = "conservative") -> int:
    """The number of samples only (see :func:`sample_bound`)."""
    return sample_bound(sigma, bound).samples
