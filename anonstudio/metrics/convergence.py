"""MCMC convergence diagnostics: Geweke z, autocorrelation, thinning, effective sample size.

Acs et al. (BigData 2015, appendix) declare the itemset chain converged when the
Geweke z-score of X_t (the support of the state at step t) between the first 10%
and the last 50% of the trace lies in [-1, 1]. The paper writes the denominator
as ``sqrt(Var(X_a) + Var(X_b))`` with the *raw* variances of the two segments;
that makes z tiny for any trace (the difference of two means is compared with the
spread of single values), so convergence would be declared immediately. We follow
Geweke (1992) instead and divide by the standard error of the *means*, each
estimated from the spectral density at frequency zero by batch means, which also
accounts for the autocorrelation of the chain.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = [
    "batch_means_variance",
    "geweke_z",
    "autocorrelation",
    "choose_thinning",
    "effective_sample_size",
    "ACF_THRESHOLD",
]

#: Thinning keeps every t-th state, t the smallest lag whose autocorrelation is below this.
ACF_THRESHOLD = 0.1


def batch_means_variance(x: np.ndarray, n_batches: int = 20) -> float:
    """Variance of the mean of ``x`` allowing for autocorrelation (batch means).

    Splits ``x`` into ``n_batches`` contiguous batches; the variance of the batch
    means divided by the number of batches estimates ``Var(mean(x))`` (equivalently
    ``S(0) / n`` with S the spectral density at zero).
    """
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    if n < 2:
        return 0.0
    b = min(n_batches, n)
    size = n // b
    means = x[: size * b].reshape(b, size).mean(axis=1)
    return float(means.var(ddof=1) / b) if b > 1 else 0.0


def geweke_z(trace: np.ndarray, first: float = 0.1, last: float = 0.5) -> float:
    """Geweke z-score comparing the mean of the first and last parts of a trace.

    ``z = (mean_a - mean_b) / sqrt(Var(mean_a) + Var(mean_b))`` with the variances of
    the means from :func:`batch_means_variance` (see module docstring for why not the
    raw variances the paper prints). Returns 0 for a constant trace and +-inf when
    two constant segments differ.
    """
    x = np.asarray(trace, dtype=np.float64)
    n = len(x)
    if n < 4:
        return math.inf
    a = x[: max(int(n * first), 2)]
    b = x[n - max(int(n * last), 2) :]
    diff = a.mean() - b.mean()
    se2 = batch_means_variance(a) + batch_means_variance(b)
    if se2 <= 0.0:
        return 0.0 if diff == 0.0 else math.copysign(math.inf, diff)
    return float(diff / math.sqrt(se2))


def autocorrelation(x: np.ndarray, max_lag: int) -> np.ndarray:
    """Sample autocorrelation at lags ``0..max_lag`` (FFT; all zeros but lag 0 for a constant series)."""
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    max_lag = int(min(max_lag, max(n - 1, 0)))
    out = np.zeros(max_lag + 1)
    if n == 0:
        return out
    out[0] = 1.0
    d = x - x.mean()
    # Not ``d @ d``: a BLAS dot wakes the BLAS thread pool, which costs ~20 ms on a
    # busy machine -- more than the FFTs below -- for a sum numpy does in microseconds.
    var = float(np.square(d).sum())
    if var <= 0.0 or max_lag == 0:
        return out
    size = 1 << (2 * n - 1).bit_length()
    f = np.fft.rfft(d, size)
    acov = np.fft.irfft(f * np.conjugate(f), size)[: max_lag + 1]
    return acov / var


def choose_thinning(series: list[np.ndarray], threshold: float = ACF_THRESHOLD,
                    max_lag: int = 50) -> tuple[int, list[np.ndarray]]:
    """Smallest lag at which the autocorrelation of every series falls below ``threshold``.

    Parameters
    ----------
    series
        Post-burn-in traces (e.g. support and uniqueness indicator of each chain).
    max_lag
        Cap on the thinning; returned when no lag qualifies.

    Returns
    -------
    (thinning, acfs)
        The lag (>= 1) and the autocorrelation curve of each series.
    """
    acfs = [autocorrelation(s, max_lag) for s in series]
    for lag in range(1, max_lag + 1):
        if all(lag >= len(a) or abs(a[lag]) < threshold for a in acfs):
            return lag, acfs
    return max_lag, acfs


def effective_sample_size(x: np.ndarray) -> float:
    """Effective number of independent draws in an autocorrelated series.

    ``n / (1 + 2 sum_k rho_k)`` with the sum truncated by Geyer's initial positive
    sequence (pairs of lags summed while positive). A constant series counts as
    ``n`` (every draw agrees; there is nothing left to estimate).
    """
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    if n < 3:
        return float(n)
    rho = autocorrelation(x, n - 1)
    if not np.any(rho[1:]):
        return float(n)
    tau = -1.0
    for k in range(0, n - 1, 2):
        pair = rho[k] + rho[k + 1]
        if pair <= 0.0:
            break
        tau += 2.0 * pair
    tau = max(tau, 1.0 / n)
    return float(min(n / tau, n))
