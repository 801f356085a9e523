"""Geweke z, autocorrelation, thinning and effective sample size on series with known answers."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.signal import lfilter

from anonstudio.metrics.convergence import (
    autocorrelation,
    batch_means_variance,
    choose_thinning,
    effective_sample_size,
    geweke_z,
)


def ar1(phi: float, n: int, seed: int) -> np.ndarray:
    e = np.random.default_rng(seed).normal(size=n)
    e[0] /= math.sqrt(1 - phi * phi)  # start in the stationary distribution
    return lfilter([1.0], [1.0, -phi], e)  # x[t] = phi x[t-1] + e[t]


def test_geweke_stationary_series_mostly_within_one():
    zs = [geweke_z(np.random.default_rng(s).normal(size=5000)) for s in range(200)]
    inside = np.mean(np.abs(zs) <= 1.0)
    assert 0.55 < inside < 0.80  # |N(0,1)| <= 1 with probability 0.683


def test_geweke_uses_variance_of_the_means_not_of_single_values():
    rng = np.random.default_rng(1)
    x = rng.normal(size=10_000)
    x[:1000] += 1.0  # the chain has not forgotten its start
    z = geweke_z(x)
    # With the raw variances printed in the paper: ~ 1 / sqrt(1 + 1) ~ 0.7, "converged".
    a, b = x[:1000], x[5000:]
    assert abs((a.mean() - b.mean()) / math.sqrt(a.var() + b.var())) < 1.0
    assert z > 10.0


def test_geweke_degenerate_traces():
    assert geweke_z(np.ones(100)) == 0.0
    assert math.isinf(geweke_z(np.r_[np.ones(20), np.zeros(80)]))
    assert math.isinf(geweke_z(np.ones(3)))


def test_batch_means_variance_accounts_for_autocorrelation():
    n = 200_000
    iid = np.random.default_rng(2).normal(size=n)
    assert batch_means_variance(iid) == pytest.approx(1.0 / n, rel=0.5)
    x = ar1(0.9, n, 3)
    # Var(mean) of AR(1) ~ sigma_x^2 (1 + phi) / (1 - phi) / n = (1/(1-.81)) * 19 / n.
    want = (1 / (1 - 0.81)) * 19 / n
    assert batch_means_variance(x) == pytest.approx(want, rel=0.6)


def test_autocorrelation_thinning_and_ess_of_ar1():
    x = ar1(0.5, 100_000, 4)
    acf = autocorrelation(x, 6)
    np.testing.assert_allclose(acf, 0.5 ** np.arange(7), atol=0.02)
    thin, acfs = choose_thinning([x], threshold=0.1, max_lag=50)
    assert thin == 4  # 0.5^3 = 0.125, 0.5^4 = 0.0625
    assert choose_thinning([x], threshold=1e-9, max_lag=7)[0] == 7  # capped
    assert effective_sample_size(x) == pytest.approx(100_000 / 3, rel=0.15)
    iid = np.random.default_rng(5).normal(size=50_000)
    assert effective_sample_size(iid) == pytest.approx(50_000, rel=0.1)
    assert effective_sample_size(np.zeros(100)) == 100
    assert autocorrelation(np.ones(10), 3).tolist() == [1.0, 0.0, 0.0, 0.0]
