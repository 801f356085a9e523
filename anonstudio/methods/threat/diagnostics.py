"""Convergence diagnostics used in Section VI-D of Boreale et al. (2020).

* Geweke (1992) z-scores for the population parameters pi: the mean of an
  early window of the kept samples against the mean of a late window, divided
  by the standard error of the difference. The kernel keeps batch means of
  every pi component (about 100 batches per chain); treating batch means as
  nearly independent gives the windows' variances without storing the chain.
* Weiss procedure (as described by Deonovic and Smith, 2017) for a row's
  hidden categorical value: the chi-square statistic of homogeneity between
  consecutive sub-sequences, divided by ``c = (1 + phi) / (1 - phi)`` where
  ``phi`` is the lag-one "stay" correlation of a discrete AR(1) model fitted
  from how often the value repeats. Under convergence the adjusted statistic
  is chi-square with ``(categories - 1)(sub-sequences - 1)`` degrees of freedom.
"""
from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["geweke_from_batches", "weiss_test"]


def geweke_from_batches(batch_sums: np.ndarray, batch_counts: np.ndarray, first: float = 0.1,
                        last: float = 0.5) -> np.ndarray:
    """Geweke z for every column of a chain's batch means (NaN when a window is degenerate)."""
    full = batch_counts > 0
    means = batch_sums[full] / batch_counts[full][:, None]
    n = means.shape[0]
    n_a, n_b = max(int(round(first * n)), 2), max(int(round(last * n)), 2)
    if n < n_a + n_b:
        return np.full(batch_sums.shape[1], np.nan)
    a, b = means[:n_a], means[n - n_b:]
    var = a.var(axis=0, ddof=1) / n_a + b.var(axis=0, ddof=1) / n_b
    diff = a.mean(axis=0) - b.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(var > 0, diff / np.sqrt(var), np.where(diff == 0, 0.0, np.nan))
    return z


def weiss_test(series: np.ndarray, n_sub: int = 5) -> tuple[float, float, int]:
    """Homogeneity of ``n_sub`` consecutive sub-sequences of one categorical chain.

    Returns ``(adjusted statistic, p-value, degrees of freedom)``; a constant
    series gives ``(0, 1, 0)``.
    """
    x = np.asarray(series)
    x = x[x >= 0]
    length = len(x) // n_sub
    if length < 2:
        return float("nan"), float("nan"), 0
    x = x[: length * n_sub]
    cats, codes = np.unique(x, return_inverse=True)
    if len(cats) < 2:
        return 0.0, 1.0, 0
    table = np.zeros((n_sub, len(cats)))
    np.add.at(table, (np.repeat(np.arange(n_sub), length), codes), 1.0)
    p_all = table.sum(axis=0) / table.sum()
    p_sub = table / length
    chi2 = length * float((((p_sub - p_all) ** 2) / p_all).sum())
    stay = float(np.mean(x[1:] == x[:-1]))
    sum_sq = float((p_all**2).sum())
    phi = 1.0 - (1.0 - stay) / (1.0 - sum_sq)
    phi = min(max(phi, 0.0), 1.0 - 1e-9)
    c = (1.0 + phi) / (1.0 - phi)
    df = (len(cats) - 1) * (n_sub - 1)
    stat = chi2 / c
    return stat, float(stats.chi2.sf(stat, df)), df
